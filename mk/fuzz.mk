# test/fuzz/: libFuzzer targets for the input the kernel and the host tools
# take from untrusted hands, and the sanitizer builds of the host tools.
# docs/SECURITY.md.
#
#   make fuzz [FUZZ_SECONDS=n]   every fuzz target for n seconds each (the
#                                SFrame target of mk/sframe.mk included),
#                                one after the other whatever the others
#                                did; then one line per target (ok, or
#                                FAILED with its artifacts), and a failure
#                                status if any failed
#   make fuzz FUZZ_ONLY="a b"    those targets only, the same way
#   make fuzz-NAME               one target
#   make test                    test/t/81-fuzz.t: each target here for
#                                FUZZ_TEST_SECONDS (10 s) from its seeds
#
# Targets (test/fuzz/<name>.c, seeds in test/fuzz/corpus/<name>/):
#   fuzz_elf     kern/proc/elf.c + elf_load.c + kern/mm/uvm.c: ELF validation, build id, loading
#                into a mock address space, demand faults
#   fuzz_cpio    kern/fs/initrd.c: cpio newc lookups
#   fuzz_uvm     kern/mm/uvm.c + kern/unwind/table.c (+ its formats): sbrk/mmap/munmap/faults/
#                registry calls
#   fuzz_stream  tools/stitch: the record stream reader and the stitcher
#
# The kernel files are compiled unchanged for the host; test/fuzz/mock.c
# provides the kernel services they call (frames, kmalloc, page tables),
# mock_sframe.c what the SFrame registry needs besides (counters, current).

# clang's libFuzzer; libdw/libelf for stitch, libsframe (binutils-dev) for
# the sanitized libsframe comparison.
PACKAGES += clang libclang-rt-14-dev libdw-dev libelf-dev binutils-dev

FUZZ_DIR := $(BUILD)/fuzz
FUZZ_CC  := clang
FUZZ_SAN := -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined
FUZZ_CFLAGS := -std=gnu11 -g -O1 $(WARN) -Iinclude $(ARCH_INCLUDE) -I. -iquote sframe -iquote test/fuzz $(FUZZ_SAN)

FUZZ_MOCK := test/fuzz/mock.c test/fuzz/mock.h
FUZZ_KERN_HDRS := $(wildcard kern/*.h kern/*/*.h) $(wildcard include/stitch/*.h)
# The ELF loader (kern/proc/elf_load.c) lays out an address space
# (kern/mm/uvm.c) and registers its tables with the registry of unwind
# tables, whose formats call the SFrame library and the .eh_frame library
# (whose in-place reads, without the kernel's load, fail).
FUZZ_UVM_SRCS := kern/proc/elf_load.c kern/mm/uvm.c kern/unwind/table.c kern/unwind/sframe_format.c \
	kern/unwind/ehframe_format.c kern/unwind/ehframe_rows.c test/fuzz/mock.c test/fuzz/mock_sframe.c \
	$(wildcard sframe/*.c) $(wildcard ehframe/*.c)
FUZZ_UVM_DEPS := $(FUZZ_UVM_SRCS) $(FUZZ_MOCK) $(FUZZ_KERN_HDRS) $(wildcard sframe/*.h) \
	$(wildcard ehframe/*.h) \
	$(wildcard $(ARCH_DIR)/include/arch/*.h)

$(FUZZ_DIR)/fuzz_elf: test/fuzz/fuzz_elf.c kern/proc/elf.c $(FUZZ_UVM_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ test/fuzz/fuzz_elf.c kern/proc/elf.c $(FUZZ_UVM_SRCS)

$(FUZZ_DIR)/fuzz_cpio: test/fuzz/fuzz_cpio.c kern/fs/initrd.c $(FUZZ_MOCK) $(FUZZ_KERN_HDRS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ test/fuzz/fuzz_cpio.c kern/fs/initrd.c test/fuzz/mock.c

$(FUZZ_DIR)/fuzz_uvm: test/fuzz/fuzz_uvm.c $(FUZZ_UVM_DEPS)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ test/fuzz/fuzz_uvm.c $(FUZZ_UVM_SRCS)

# stitch minus main(), compiled into the target with the fuzzer's coverage.
FUZZ_STITCH_SRCS := $(filter-out tools/stitch/main.c,$(wildcard tools/stitch/*.c))
$(FUZZ_DIR)/fuzz_stream: test/fuzz/fuzz_stream.c $(FUZZ_STITCH_SRCS) \
		$(wildcard tools/stitch/*.h) include/stitch/records.h
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -iquote tools/stitch -o $@ test/fuzz/fuzz_stream.c \
		$(FUZZ_STITCH_SRCS) $(STITCH_LIBS)

FUZZ_NAMES   := fuzz_elf fuzz_cpio fuzz_uvm fuzz_stream
FUZZ_TARGETS := $(FUZZ_NAMES:%=$(FUZZ_DIR)/%)

# One run: new inputs go to build/fuzz/corpus/<name>/, crashes to
# build/fuzz/<name>-crash-*; the checked-in seeds are read, never written.
# The input size is capped: the seeds are small, and large inputs only slow
# each run down.
fuzz_run = mkdir -p $(FUZZ_DIR)/corpus/$(1) && $(FUZZ_DIR)/$(1) \
	-artifact_prefix=$(FUZZ_DIR)/$(1)- -timeout=10 -rss_limit_mb=2048 -max_len=131072 \
	-print_final_stats=1 -max_total_time=$(2) $(FUZZ_DIR)/corpus/$(1) test/fuzz/corpus/$(1)

# make fuzz-NAME: one target (fuzz-fuzz_sframe is in mk/sframe.mk).
.PHONY: fuzz $(FUZZ_NAMES:%=fuzz-%)
$(FUZZ_NAMES:%=fuzz-%): fuzz-%: $(FUZZ_DIR)/%
	$(call fuzz_run,$*,$(FUZZ_SECONDS))

# make fuzz: each target in turn, a failure not stopping the rest (a crash
# in one says nothing about the others), then what each did.
FUZZ_SECONDS ?= 600
FUZZ_ONLY ?= $(FUZZ_NAMES) fuzz_sframe
fuzz:
	@failed=0; report=; \
	for t in $(FUZZ_ONLY); do \
		if $(MAKE) --no-print-directory fuzz-$$t FUZZ_SECONDS=$(FUZZ_SECONDS); then \
			report="$$report  $$t: ok\n"; \
		else \
			failed=$$((failed + 1)); \
			art=$(FUZZ_DIR)/$$t-*; \
			[ $$t = fuzz_sframe ] && art="$(SFRAME_DIR)/fuzz/crash-* $(SFRAME_DIR)/fuzz/timeout-*"; \
			report="$$report  $$t: FAILED (artifacts: $$(ls -d $$art 2>/dev/null | tr '\n' ' '))\n"; \
		fi; \
	done; \
	printf "fuzz: %s targets, %d failed\n$$report" "$(words $(FUZZ_ONLY))" $$failed; \
	test $$failed = 0

TEST_PREREQS += $(FUZZ_TARGETS)

# --- Sanitizer builds of the host tools and the SFrame library's tests ----
# test/t/82-sanitizers.t runs them on the inputs of the tools' own tests
# and requires the same answers as the plain builds. Each is one compile
# of all its sources (gcc's ASan and UBSan; UBSan aborts on the first
# report, as the other sanitized tests here do).
FUZZ_SAN_DIR   := $(BUILD)/san
FUZZ_SAN_FLAGS := -O1 -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
FUZZ_SAN_SFRAME := $(wildcard sframe/*.c sframe/*.h)
FUZZ_SAN_SFLAGS  = $(SFRAME_TOOL_CFLAGS) $(FUZZ_SAN_FLAGS)

$(FUZZ_SAN_DIR)/sframe: $(wildcard tools/sframe/*.c tools/sframe/*.h) $(FUZZ_SAN_SFRAME)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(FUZZ_SAN_SFLAGS) -o $@ tools/sframe/*.c sframe/*.c -lelf

$(FUZZ_SAN_DIR)/sframe-unit: test/sframe/unit.c test/sframe/vecgen.c test/sframe/vecgen.h \
		$(FUZZ_SAN_SFRAME)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(FUZZ_SAN_SFLAGS) -o $@ test/sframe/unit.c test/sframe/vecgen.c sframe/*.c

$(FUZZ_SAN_DIR)/vs_libsframe: test/sframe/vs_libsframe.c tools/sframe/input.c tools/sframe/reloc.c \
		tools/sframe/input.h $(FUZZ_SAN_SFRAME)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(FUZZ_SAN_SFLAGS) -iquote tools/sframe -o $@ test/sframe/vs_libsframe.c \
		tools/sframe/input.c tools/sframe/reloc.c sframe/*.c -lsframe -lelf

$(FUZZ_SAN_DIR)/conv_check: test/sframe/conv_check.c tools/sframe/input.c tools/sframe/reloc.c \
		tools/sframe/input.h $(FUZZ_SAN_SFRAME)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(FUZZ_SAN_SFLAGS) -iquote tools/sframe -o $@ test/sframe/conv_check.c \
		tools/sframe/input.c tools/sframe/reloc.c sframe/*.c -lelf

# The whole of stitch, main() included (test 60's driver has all but main).
$(FUZZ_SAN_DIR)/stitch: $(wildcard tools/stitch/*.c tools/stitch/*.h) include/stitch/records.h
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -iquote tools/stitch $(FUZZ_SAN_FLAGS) -o $@ \
		tools/stitch/*.c -ldw -lelf

FUZZ_SAN_BINS := $(addprefix $(FUZZ_SAN_DIR)/,sframe sframe-unit vs_libsframe conv_check stitch)
TEST_PREREQS += $(FUZZ_SAN_BINS)
