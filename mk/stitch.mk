# tools/stitch/: the host-side stitcher and report writer, build/bin/stitch;
# test/stitch/: its test programs, stream generator and fuzz driver;
# test/t/6*-stitch*.t. docs/STITCH.md (usage), docs/RECORDS.md (the stream).
#
#   make                  build/bin/stitch
#   make test             the stitch tests (streams built from real ELF files)
#
#   make stitch-report    stitch $(OUT)/records.bin into $(OUT)/ and show it
#
# Provides for other fragments:
#   STITCH_TOOL           build/bin/stitch
#   stitch-report         the target `make run` ends with

# linux-perf reads the perf.data we write (the command make run prints, and
# the tests). Only the tests need a browser to render flame.svg and a JSON
# schema validator for profile.speedscope.json: `make test` installs them.
RUN_PACKAGES += libelf-dev libdw-dev linux-perf
STITCH_TEST_PACKAGES := chromium python3-jsonschema
ifneq ($(filter test,$(MAKECMDGOALS)),)
PACKAGES += $(STITCH_TEST_PACKAGES)
endif

STITCH_DIR  := $(BUILD)/stitch
STITCH_TOOL := $(BIN)/stitch
STITCH_SRCS := $(wildcard tools/stitch/*.c)
STITCH_HDRS := $(wildcard tools/stitch/*.h) include/stitch/records.h
STITCH_OBJS := $(STITCH_SRCS:tools/stitch/%.c=$(STITCH_DIR)/%.o)
# Everything but main(): the fuzz driver links these too.
STITCH_LIB_OBJS := $(filter-out $(STITCH_DIR)/main.o,$(STITCH_OBJS))
STITCH_LIBS := -ldw -lelf

STITCH_CFLAGS := $(HOST_CFLAGS) -iquote tools/stitch

$(STITCH_DIR)/%.o: tools/stitch/%.c $(STITCH_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(STITCH_CFLAGS) -c $< -o $@

$(STITCH_TOOL): $(STITCH_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) -o $@ $^ $(STITCH_LIBS)

RUN_TARGETS += $(STITCH_TOOL)

# The end of `make run` (mk/run.mk runs it once the guest has written
# $(OUT)/records.bin): stitch, then the head of report.txt, the files and
# the perf command. The symfs is the userland's tree of full ELFs under the
# guest's paths (USER_SYMFS, mk/userland.mk); --kernel names the kernel ELF
# whatever path its REC_MMAP carries.
STITCH_RUN_SYMFS ?= $(USER_SYMFS)
STITCH_REPORT_LINES ?= 40
# IDLE=1: stitch --idle, the idle samples (pid 0 in the kernel's idle loop)
# stay in report.txt, the folded stacks, the flame graph and speedscope.
IDLE ?=
STITCH_IDLE = $(if $(filter 1,$(IDLE)),--idle)

# The commands are a variable so that `make run` runs them in its own
# recipe (a $(MAKE) line would run even under make -n).
STITCH_REPORT = summary=$$($(STITCH_TOOL) --symfs $(STITCH_RUN_SYMFS) --kernel $(KERNEL_ELF) \
		$(STITCH_IDLE) -o $(OUT) $(OUT)/records.bin) || exit 1; \
	head -n $(STITCH_REPORT_LINES) $(OUT)/report.txt; echo; echo "$$summary"

.PHONY: stitch-report
stitch-report: $(STITCH_TOOL)
	@$(STITCH_REPORT)

# --- Tests -----------------------------------------------------------------
# Real ELF files to build streams from: a static and a dynamic capture
# program (the latter with its workload in a shared object) and a stand-in
# kernel linked at Stitch's kernel address. They live in a symfs tree laid
# out as the guest would see it. The capture programs run once, at build
# time; their snapshots (registers, stack copies, true chains) feed every
# test, and no test depends on where ASLR put things.
STITCH_T     := $(BUILD)/test/stitch
STITCH_SYMFS := $(STITCH_T)/symfs
STITCH_T_CFLAGS := -std=gnu11 -O1 -g $(WARN) -fno-optimize-sibling-calls -Iinclude \
	-iquote test/stitch
STITCH_CAPTURE_SRCS := test/stitch/work.c test/stitch/snap.c
STITCH_CAPTURE_DEPS := $(STITCH_CAPTURE_SRCS) test/stitch/capture-main.c \
	test/stitch/capture.h include/stitch/records.h

$(STITCH_SYMFS)/bin/capture-static: $(STITCH_CAPTURE_DEPS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(STITCH_T_CFLAGS) -static -no-pie -o $@ test/stitch/capture-main.c \
		$(STITCH_CAPTURE_SRCS)

$(STITCH_SYMFS)/lib/libwork.so: $(STITCH_CAPTURE_DEPS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(STITCH_T_CFLAGS) -fPIC -shared -o $@ $(STITCH_CAPTURE_SRCS)

# The same with a versioned run_all ("run_all@@WORK_1" in its symbol
# table, as a C library's symbols are): for the test that versions are dropped.
$(STITCH_SYMFS)/lib/libwork-v.so: $(STITCH_CAPTURE_DEPS) test/stitch/libwork.map
	@mkdir -p $(dir $@)
	$(HOST_CC) $(STITCH_T_CFLAGS) -DWORK_VERSIONED -fPIC -shared -o $@ $(STITCH_CAPTURE_SRCS) \
		-Wl,--version-script=test/stitch/libwork.map

$(STITCH_SYMFS)/bin/capture-dyn: test/stitch/capture-main.c $(STITCH_SYMFS)/lib/libwork.so
	@mkdir -p $(dir $@)
	$(HOST_CC) $(STITCH_T_CFLAGS) -no-pie -o $@ $< -L$(STITCH_SYMFS)/lib -lwork \
		-Wl,-rpath,'$$ORIGIN/../lib'

$(STITCH_SYMFS)/boot/kernel.elf: test/stitch/fakekernel.c
	@mkdir -p $(dir $@)
	$(HOST_CC) -std=gnu11 -O1 -g $(WARN) -ffreestanding -nostdlib -static -fno-pic \
		-no-pie -mcmodel=kernel -mno-red-zone -Wl,-Ttext=0xffffffff80100000 \
		-Wl,--build-id -Wl,-e,kernel_main -o $@ $<

# Run a capture program. Its workload runs on a stack of its own and it
# records only the mappings of the symfs' files, so nothing of the host's C
# library reaches a test (test/stitch/capture-main.c). (Without
# randomization when the machine allows it; no test needs it.)
$(STITCH_T)/snaps-%.txt: $(STITCH_SYMFS)/bin/capture-%
	setarch x86_64 -R $< $@.tmp 2>/dev/null || $< $@.tmp
	mv $@.tmp $@

# The fuzz driver: the whole of stitch but main(), with ASan and UBSan, run
# over every prefix and every one-byte corruption of a stream.
STITCH_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
STITCH_ASAN_OBJS := $(STITCH_LIB_OBJS:$(STITCH_DIR)/%.o=$(STITCH_DIR)/asan/%.o)
STITCH_FUZZ := $(STITCH_T)/fuzz-stream

$(STITCH_DIR)/asan/%.o: tools/stitch/%.c $(STITCH_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(STITCH_CFLAGS) -O1 $(STITCH_SAN) -c $< -o $@

$(STITCH_FUZZ): test/stitch/fuzz-stream.c $(STITCH_ASAN_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(STITCH_CFLAGS) -O1 $(STITCH_SAN) -iquote tools/stitch -o $@ $^ $(STITCH_LIBS)

STITCH_TEST_FILES := $(STITCH_T)/snaps-static.txt $(STITCH_T)/snaps-dyn.txt \
	$(STITCH_SYMFS)/lib/libwork-v.so \
	$(STITCH_SYMFS)/boot/kernel.elf $(STITCH_FUZZ)
TEST_PREREQS += $(STITCH_TEST_FILES)
