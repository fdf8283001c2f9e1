# make run: build, boot the demo (or APP=prog.c) in QEMU with the profiler
# on, and show the profile. make qemu-gdb: the same boot, waiting for gdb.
# ARGS="a b c": init's arguments (the kernel's init.args=a,b,c; so no
# commas or spaces inside one).

# gdb for make qemu-gdb, and for test 12 (docs/DEBUGGING.md).
ifneq ($(filter test qemu-gdb,$(MAKECMDGOALS)),)
PACKAGES += gdb
endif

MODE ?= sframe
HZ   ?= 1000
CPUS ?= 1
RUN_INIT ?= /bin/demo
run_comma := ,
run_space := $(subst ,, )
RUN_ARGS = $(if $(strip $(ARGS)),init.args=$(subst $(run_space),$(run_comma),$(strip $(ARGS))))
RUN_CMDLINE = init=$(RUN_INIT) $(RUN_ARGS) profile.mode=$(MODE) profile.hz=$(HZ)

.PHONY: run qemu-gdb
# The profile is shown even when the program failed; the kernel's verdict
# is still make's exit status. A process an exception killed: its user
# stack, symbolised from the full ELF files (tools/symbolise-kills).
run: all
	@mkdir -p $(OUT)
	@echo "make run: booting with: $(RUN_CMDLINE)"
	@tools/qemu-run --cpus $(CPUS) --cmdline "$(RUN_CMDLINE)" --serial $(OUT)/console.txt \
		--records $(OUT)/records.bin; status=$$?; \
	tools/symbolise-kills $(USER_SYMFS) $(OUT)/console.txt | sed 's/^/make run: /'; \
	( $(STITCH_REPORT) ) || status=1; exit $$status

qemu-gdb: all
	@echo "In another terminal: gdb -x .gdbinit -ex 'stitch-user $(RUN_INIT)' -ex 'target remote :1234'"
	tools/qemu-run --cpus $(CPUS) --cmdline "$(RUN_CMDLINE)" --gdb
