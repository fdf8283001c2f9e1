# make run: build, boot the demo (or APP=prog.c) in QEMU with the profiler
# on, and show the profile. make qemu-gdb: the same boot, waiting for gdb.
# ARGS="a b c": init's arguments (the kernel's init.args=a,b,c; so no
# commas or spaces inside one).
# DEMO=real: boot /bin/bsuite with the real workloads (zlib, libiberty's
# demangler: docs/USERLAND.md "Real workloads") and the arguments make
# bench's "real" part gives them: the one list, tools/bench/real-suite.txt,
# which bench.py reads too. The fp modes run their frame-pointer builds
# (/bin/zreal-fp...), as the bench does. DEMO=demo (default): /bin/demo.

# gdb for make qemu-gdb, and for test 12 (docs/DEBUGGING.md).
ifneq ($(filter test qemu-gdb,$(MAKECMDGOALS)),)
RUN_PACKAGES += gdb
endif

MODE ?= sframe
HZ   ?= 1000
# CONSUMER=map: the kernel counts the samples by stack (the stack map,
# profile.consumer=) instead of writing each one; both: the two at once
# (stitch shows the stream's, stitch --from map the map's).
CONSUMER ?= stream
CPUS ?= 1
ICOUNT ?=
# What boots: RUN_INIT if given, else the APP (mk/userland.mk installs it
# as /app/<name>), else the demo or, for DEMO=real, the real suite's driver.
# Recursive: USER_APP is set by a fragment read later.
RUN_INIT ?= $(if $(USER_APP),/$(USER_APP),$(if $(filter real,$(DEMO)),/bin/bsuite,/bin/demo))
DEMO ?= demo
RUN_DEMOS := demo real
run_comma := ,
run_space := $(subst ,, )
# bsuite's arguments: each line of the list one word, ':' between a
# program's path and its arguments (init.args splits at ',').
RUN_REAL_SUITE := tools/bench/real-suite.txt
RUN_REAL_ARGS = $(shell sed -e 's/\#.*//' -e '/^[[:space:]]*$$/d' -e 's/^[[:space:]]*//' \
	-e 's/[[:space:]]*$$//' $(if $(filter fp fp-deferred,$(MODE)),-e 's/^[^[:space:]]*/&-fp/') \
	-e 's/[[:space:]][[:space:]]*/:/g' $(RUN_REAL_SUITE))
RUN_ARGV = $(if $(filter real,$(DEMO)),$(RUN_REAL_ARGS),$(ARGS))
RUN_ARGS = $(if $(strip $(RUN_ARGV)),init.args=$(subst $(run_space),$(run_comma),$(strip $(RUN_ARGV))))
RUN_CMDLINE = $(strip init=$(RUN_INIT) $(RUN_ARGS) profile.mode=$(MODE) profile.hz=$(HZ) \
	$(if $(filter-out stream,$(CONSUMER)),profile.consumer=$(CONSUMER)))

# What make run and qemu-gdb were given is checked here, before anything
# is built or booted: one line saying what is wrong, and make stops with
# status 2. The kernel checks its command line again (kern/profile/profile.c).
RUN_MODES := sframe fp fp-deferred stack-copy guess validate eh-frame eh-rowcache eh-convert validate-eh none
RUN_CONSUMERS := stream map both
# $(call run_uint,VALUE,MIN,MAX): y if VALUE is one decimal number in
# [MIN, MAX] (the shell compares only what is known to be digits).
run_digitless = $(strip $(foreach d,0 1 2 3 4 5 6 7 8 9,$(eval run_x := $(subst $(d),,$(run_x))))$(run_x))
run_uint = $(if $(and $(filter 1,$(words $(1))),$(1)),$(eval run_x := $(1))$(if $(run_digitless),,$(shell \
	[ $(1) -ge $(2) ] 2>/dev/null && [ $(1) -le $(3) ] && echo y)))
ifneq ($(filter run qemu-gdb,$(MAKECMDGOALS)),)
ifneq ($(words $(MODE)),1)
$(error make run: MODE=$(MODE): one of $(RUN_MODES))
endif
ifeq ($(filter $(MODE),$(RUN_MODES)),)
$(error make run: MODE=$(MODE) is no mode: one of $(RUN_MODES))
endif
ifneq ($(filter-out $(RUN_CONSUMERS),$(CONSUMER))$(filter-out 1,$(words $(CONSUMER))),)
$(error make run: CONSUMER=$(CONSUMER): one of $(RUN_CONSUMERS))
endif
ifneq ($(filter map both,$(CONSUMER)),)
ifneq ($(filter fp stack-copy none,$(MODE)),)
$(error make run: CONSUMER=$(CONSUMER) counts deferred user stacks: MODE=$(MODE) has none (a deferred mode: sframe fp-deferred guess validate eh-frame eh-rowcache eh-convert validate-eh))
endif
endif
ifeq ($(call run_uint,$(HZ),100,20000),)
$(error make run: HZ=$(HZ) is not a number of samples per second from 100 to 20000)
endif
ifeq ($(call run_uint,$(CPUS),1,8),)
$(error make run: CPUS=$(CPUS) is not a number of CPUs from 1 to 8)
endif
ifeq ($(filter-out 0 1,$(ICOUNT))$(filter-out 0 1,$(words $(ICOUNT))),)
else
$(error make run: ICOUNT=$(ICOUNT): 1 (guest time counts instructions) or 0)
endif
ifeq ($(filter-out 0 1,$(IDLE))$(filter-out 0 1,$(words $(IDLE))),)
else
$(error make run: IDLE=$(IDLE): 1 (the idle samples stay in the profile) or 0)
endif
ifneq ($(APP),)
ifneq ($(words $(APP)),1)
$(error make run: APP=$(APP): one C file, whose path has no spaces)
else ifeq ($(wildcard $(APP)),)
$(error make run: APP=$(APP): no such file)
else ifneq ($(wildcard $(APP)/.),)
$(error make run: APP=$(APP) is a directory, not a C file)
else ifeq ($(filter %.c,$(APP)),)
$(error make run: APP=$(APP) is not a C file (name.c))
endif
endif
ifeq ($(APP),)
ifeq ($(origin APP_ARCH),command line)
$(error make run: APP_ARCH=$(APP_ARCH) says how to build APP=prog.c: give one)
endif
endif
ifneq ($(findstring $(run_comma),$(ARGS)),)
$(error make run: ARGS="$(ARGS)": no commas (they separate init.args); arguments are split at spaces)
endif
ifneq ($(word 32,$(ARGS)),)
$(error make run: ARGS: $(words $(ARGS)) arguments, init takes at most 31)
endif
ifneq ($(filter-out $(RUN_DEMOS),$(DEMO))$(filter-out 1,$(words $(DEMO))),)
$(error make run: DEMO=$(DEMO): demo (/bin/demo) or real (the real workloads, as make bench runs them))
endif
ifeq ($(DEMO),real)
ifneq ($(APP)$(ARGS)$(filter command line,$(origin RUN_INIT)),)
$(error make run: DEMO=real boots /bin/bsuite with the real workloads' arguments: no APP, ARGS or RUN_INIT with it)
endif
endif
ifeq ($(filter /%,$(RUN_INIT)),)
$(error make run: RUN_INIT=$(RUN_INIT): the path of a program in the initrd, /bin/demo for example)
endif
# Whether the initrd holds it is known once every fragment has added its
# files (the Makefile runs LATE_CHECKS then).
LATE_CHECKS += run_init_check
endif
# APP_ARCH: the instruction set APP is built for, whatever the goal
# (mk/userland.mk: x86_64 with the 64-bit SDK, i386 with the 32-bit one).
APP_ARCH ?= x86_64
RUN_APP_ARCHS := x86_64 i386
ifneq ($(filter-out $(RUN_APP_ARCHS),$(APP_ARCH))$(filter-out 1,$(words $(APP_ARCH))),)
$(error APP_ARCH=$(APP_ARCH): one of $(RUN_APP_ARCHS))
endif
run_init_check = $(if $(filter $(patsubst /%,%,$(RUN_INIT)),$(USER_INITRD_NAMES)),,$(error make run: \
	RUN_INIT=$(RUN_INIT) is not in the initrd (its programs are in /bin/, an APP in /app/: \
	build/userland/initrd.list lists them)))

.PHONY: run qemu-gdb
# The profile is shown even when the program failed; the kernel's verdict
# is still make's exit status. A process the kernel killed (an exception,
# kill(), abort()): its user stack, symbolised from the full ELF files
# (tools/symbolise-kills).
# QEMU writes into $(RUN_TMP); the console and the stream move to $(OUT)
# (and stitch writes its files there) only if the guest wrote a stream
# (its REC_STREAM magic, "STITCHRS"): a run that failed before that, or
# whose QEMU did not start, leaves the last profile in $(OUT) as it was.
# ICOUNT=1: guest time counts instructions (QEMU -icount shift=0,sleep=off)
# and QEMU loads the kernel and the initrd itself (tools/qemu-run --direct
# --icount): no firmware, no disk, whose reads finish at host-timed
# moments, so the same program gives the same stream, byte for byte. No
# screen either: the kernel's summary is asked for on the command line.
# The firmware boot reads its command line from the ESP: make run boots
# $(RUN_ESP), build/esp.img with the run's command line in
# \stitch\cmdline.txt, made again only when one of the two changed (the
# file that holds the command line is rewritten only when it changes, as
# build/cmdline.txt is), not a fresh copy of the ESP for every boot.
RUN_TMP := $(BUILD)/run
RUN_ICOUNT := $(filter 1,$(ICOUNT))
RUN_ESP := $(BUILD)/run-esp.img
RUN_CMDLINE_FILE := $(BUILD)/run-cmdline.txt
VALUE_FILES += RUN_CMDLINE_FILE
RUN_CMDLINE_FILE_TEXT = $(RUN_CMDLINE)
$(RUN_ESP): $(ESP_IMG) $(RUN_CMDLINE_FILE)
	cp $(ESP_IMG) $@.tmp
	mcopy -o -i $@.tmp $(RUN_CMDLINE_FILE) ::/stitch/cmdline.txt
	$(if $(filter-out $(INITRD),$(SFRAME_INITRD)),mcopy -o -i $@.tmp $(SFRAME_INITRD) ::/stitch/initrd.cpio)
	mv $@.tmp $@
RUN_QEMU_ARGS = --cpus $(CPUS) $(if $(RUN_ICOUNT),--direct --icount --initrd $(SFRAME_INITRD) \
	--cmdline "$(RUN_BOOT_CMDLINE)",--esp $(RUN_ESP))
RUN_BOOT_CMDLINE = $(RUN_CMDLINE)$(if $(RUN_ICOUNT), profile.summary=on)
# out/console.txt is the console without the terminal escape sequences
# OVMF sends (tools/strip-ansi); the raw one stays in $(RUN_TMP)/console.txt
# until the next run.
# It needs $(RUN_TARGETS) too, named in the Makefile (once every fragment
# has added to it), as for qemu-gdb.
run: $(if $(RUN_ICOUNT),,$(RUN_ESP))
	@rm -rf $(RUN_TMP) && mkdir -p $(RUN_TMP) $(OUT)
	@echo "make run: booting$(if $(RUN_ICOUNT), directly under QEMU -icount)$(if $(filter-out v1,$(SFRAME)), the programs with SFrame $(SFRAME)) with: $(RUN_BOOT_CMDLINE)"
	@tools/qemu-run $(RUN_QEMU_ARGS) --serial $(RUN_TMP)/console.txt \
		--records $(RUN_TMP)/records.bin; status=$$?; \
	[ ! -f $(RUN_TMP)/console.txt ] || \
		tools/symbolise-kills $(USER_SYMFS) $(RUN_TMP)/console.txt | sed 's/^/make run: /'; \
	if ! grep -aq STITCHRS $(RUN_TMP)/records.bin 2>/dev/null; then \
		echo "make run: no record stream from this run: $(OUT)/ keeps the last run's files;" \
			"this run's console is in $(RUN_TMP)/console.txt"; \
		exit $$(( status ? status : 1 )); \
	fi; \
	tools/strip-ansi < $(RUN_TMP)/console.txt > $(OUT)/console.txt && \
	mv -f $(RUN_TMP)/records.bin $(OUT)/ && \
	( $(STITCH_REPORT) ) || status=1; exit $$status

qemu-gdb:
	@echo "In another terminal: gdb -iex 'set auto-load local-gdbinit off' -x .gdbinit -ex 'stitch-user $(RUN_INIT)' -ex 'target remote :1234'"
	tools/qemu-run --cpus $(CPUS) --cmdline "$(RUN_CMDLINE)" --gdb
