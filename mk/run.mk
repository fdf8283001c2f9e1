# make run: build, boot the demo (or APP=prog.c) in QEMU with the profiler
# on, and show the profile. make qemu-gdb: the same boot, waiting for gdb.

MODE ?= sframe
HZ   ?= 1000
CPUS ?= 1
RUN_INIT ?= /bin/demo
RUN_CMDLINE = init=$(RUN_INIT) profile.mode=$(MODE) profile.hz=$(HZ)

.PHONY: run qemu-gdb
# The profile is shown even when the program failed; the kernel's verdict
# is still make's exit status.
run: all
	@mkdir -p $(OUT)
	@echo "make run: booting with: $(RUN_CMDLINE)"
	@tools/qemu-run --cpus $(CPUS) --cmdline "$(RUN_CMDLINE)" --serial $(OUT)/console.txt \
		--records $(OUT)/records.bin; status=$$?; \
	$(MAKE) --no-print-directory stitch-report || status=1; exit $$status

qemu-gdb: all
	@echo "In another terminal: gdb $(KERNEL_ELF) -ex 'target remote :1234'"
	tools/qemu-run --cpus $(CPUS) --cmdline "$(RUN_CMDLINE)" --gdb
