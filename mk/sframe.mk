# sframe/: the SFrame library; tools/sframe/: the host tool build/bin/sframe;
# test/sframe/: its tests, fuzz target and benchmark. docs/SFRAME.md.
#
#   make                  library (host + kernel-flag objects), build/bin/sframe
#   make test             test/t/2*-sframe*.t (dump vs readelf, libsframe,
#                         conversions, malformed input, 30 s of fuzzing)
#   make fuzz [FUZZ_SECONDS=600]    run the libFuzzer target as long as asked
#   make bench-sframe     lookup / step timings against libsframe
#
# Provides for other fragments:
#   SFRAME_SRCS         the library's sources (compile them with your flags)
#   SFRAME_KERNEL_OBJS  the same compiled with the kernel's code-model flags
#   SFRAME_TOOL         build/bin/sframe

# libelf: build/bin/sframe, which re-encodes a program's .sframe for the
# initrd (mk/deferred.mk); the rest for the tests and the fuzz target.
RUN_PACKAGES += libelf-dev
PACKAGES += binutils-dev clang libclang-rt-14-dev newlib-source

SFRAME_DIR   := $(BUILD)/sframe
SFRAME_SRCS  := $(wildcard sframe/*.c)
SFRAME_HDRS  := $(wildcard sframe/*.h)
SFRAME_TOOL  := $(BIN)/sframe

# Host objects: hosted C11, warnings as errors, plus -Wconversion because
# this code does arithmetic on untrusted sizes.
SFRAME_CFLAGS := $(HOST_CFLAGS) -std=c11 -Wconversion -iquote sframe
# Tools and tests are POSIX programs.
SFRAME_TOOL_CFLAGS := $(HOST_CFLAGS) -Wconversion -iquote sframe
SFRAME_HOST_OBJS := $(SFRAME_SRCS:sframe/%.c=$(SFRAME_DIR)/host/%.o)

# The kernel's code-generation flags: proves the library is freestanding
# (test 26 checks these objects reference no symbol outside themselves).
SFRAME_KERNEL_CFLAGS := -std=c11 -O2 $(WARN) -Wconversion -ffreestanding \
	-fno-pic -mcmodel=kernel -mno-red-zone -mgeneral-regs-only \
	-fno-stack-protector -nostdinc -isystem $(shell $(HOST_CC) -print-file-name=include) \
	-iquote . $(ARCH_INCLUDE) -DSF_ENV_LOAD_H='<arch/sframe_load.h>'
SFRAME_KERNEL_OBJS := $(SFRAME_SRCS:sframe/%.c=$(SFRAME_DIR)/kernel/%.o)

# The same library with AddressSanitizer and UBSan, for the malformed-input
# test; UBSan traps so that any undefined behaviour fails the test.
SFRAME_SAN := -fsanitize=address,undefined -fno-sanitize-recover=all \
	-fno-omit-frame-pointer
SFRAME_ASAN_OBJS := $(SFRAME_SRCS:sframe/%.c=$(SFRAME_DIR)/asan/%.o)

$(SFRAME_DIR)/host/%.o: sframe/%.c $(SFRAME_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_CFLAGS) -c $< -o $@

$(SFRAME_DIR)/kernel/%.o: sframe/%.c $(SFRAME_HDRS) $(wildcard $(ARCH_DIR)/include/arch/*.h)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_KERNEL_CFLAGS) -c $< -o $@

$(SFRAME_DIR)/asan/%.o: sframe/%.c $(SFRAME_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_CFLAGS) -O1 $(SFRAME_SAN) -c $< -o $@

# The host tool.
SFRAME_TOOL_SRCS := $(wildcard tools/sframe/*.c)
SFRAME_TOOL_HDRS := $(wildcard tools/sframe/*.h)

$(SFRAME_TOOL): $(SFRAME_TOOL_SRCS) $(SFRAME_TOOL_HDRS) $(SFRAME_HOST_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_TOOL_CFLAGS) -o $@ $(SFRAME_TOOL_SRCS) $(SFRAME_HOST_OBJS) -lelf

ALL_TARGETS += $(SFRAME_TOOL) $(SFRAME_KERNEL_OBJS)
TEST_PREREQS += $(SFRAME_TOOL)

# Paths the test scripts need, written by make so that they never guess.
SFRAME_PATHS := $(SFRAME_DIR)/paths
$(SFRAME_PATHS): mk/sframe.mk mk/newlib.mk
	@mkdir -p $(dir $@)
	printf 'NEWLIB_LIBC=%s\nSFRAME_TOOL=%s\nSFRAME_DIR=%s\n' \
		'$(NEWLIB_LIBC)' '$(SFRAME_TOOL)' '$(SFRAME_DIR)' > $@

TEST_PREREQS += $(SFRAME_PATHS) $(NEWLIB_LIBC)

# Test programs (test/sframe/), built before `make test` runs test/t/.
SFRAME_TDIR := $(SFRAME_DIR)/test
SFRAME_VECGEN := test/sframe/vecgen.c test/sframe/vecgen.h

$(SFRAME_TDIR)/vectors: test/sframe/vectors.c $(SFRAME_VECGEN) $(SFRAME_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_TOOL_CFLAGS) -o $@ test/sframe/vectors.c test/sframe/vecgen.c

TEST_PREREQS += $(SFRAME_TDIR)/vectors

# Test 21 links binutils' libsframe next to ours (their names never clash:
# ours all start with sf_).
SFRAME_TEST_CFLAGS := $(SFRAME_TOOL_CFLAGS) -iquote tools/sframe

$(SFRAME_TDIR)/vs_libsframe: test/sframe/vs_libsframe.c tools/sframe/input.c tools/sframe/reloc.c \
		tools/sframe/input.h $(SFRAME_HOST_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_TEST_CFLAGS) -o $@ test/sframe/vs_libsframe.c \
		tools/sframe/input.c tools/sframe/reloc.c $(SFRAME_HOST_OBJS) -lsframe -lelf

# newlib's libc.a linked whole into one static executable: the archive's
# code at final addresses with sorted FDEs, so that every pc of every libc
# object can be looked up (in the .o files all functions start at 0).
SFRAME_LIBC_ELF := $(SFRAME_TDIR)/libc-whole.elf
$(SFRAME_LIBC_ELF): $(NEWLIB_LIBC)
	@mkdir -p $(dir $@)
	$(LD) -static -e 0 --no-warn-execstack --unresolved-symbols=ignore-all \
		--whole-archive $(NEWLIB_LIBC) -o $@

TEST_PREREQS += $(SFRAME_TDIR)/vs_libsframe $(SFRAME_LIBC_ELF)

# Dynamically linked inputs (PLT stubs: PCMASK FDEs) for tests 20-22.
SFRAME_SAMPLE_FLAGS := -O2 -g -Wa,--gsframe -fomit-frame-pointer $(WARN)
SFRAME_SAMPLES := $(SFRAME_TDIR)/sample $(SFRAME_TDIR)/libsample.so

$(SFRAME_TDIR)/sample: test/sframe/sample.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_SAMPLE_FLAGS) -o $@ $<

$(SFRAME_TDIR)/libsample.so: test/sframe/sample.c
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_SAMPLE_FLAGS) -DSAMPLE_LIB -shared -fPIC -o $@ $<

TEST_PREREQS += $(SFRAME_SAMPLES)

# Test 22's conversion check and test 18's comparison of the accelerated
# lookups with the reference, over the sections of ELF files.
SFRAME_ELF_CHECKS := $(SFRAME_TDIR)/conv_check $(SFRAME_TDIR)/reference
$(SFRAME_ELF_CHECKS): $(SFRAME_TDIR)/%: test/sframe/%.c tools/sframe/input.c tools/sframe/reloc.c \
		tools/sframe/input.h $(SFRAME_HOST_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_TEST_CFLAGS) -o $@ $< \
		tools/sframe/input.c tools/sframe/reloc.c $(SFRAME_HOST_OBJS) -lelf

TEST_PREREQS += $(SFRAME_ELF_CHECKS)

# Test 23 runs the sanitized library.
$(SFRAME_TDIR)/malformed: test/sframe/malformed.c $(SFRAME_VECGEN) $(SFRAME_ASAN_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_TOOL_CFLAGS) -O1 $(SFRAME_SAN) -o $@ test/sframe/malformed.c \
		test/sframe/vecgen.c $(SFRAME_ASAN_OBJS)

TEST_PREREQS += $(SFRAME_TDIR)/malformed

# Test 24: the libFuzzer target, the library compiled into it with clang's
# coverage and sanitizers. test/sframe/corpus/ holds the checked-in seeds;
# what the fuzzer finds goes to build/sframe/fuzz/corpus/, crashes to
# build/sframe/fuzz/crash-*.
SFRAME_FUZZ := $(SFRAME_DIR)/fuzz/fuzz_sframe
SFRAME_FUZZ_RUN = mkdir -p $(SFRAME_DIR)/fuzz/corpus && $(SFRAME_FUZZ) \
	-artifact_prefix=$(SFRAME_DIR)/fuzz/ -timeout=10 -rss_limit_mb=2048 \
	-print_final_stats=1

$(SFRAME_FUZZ): test/sframe/fuzz_sframe.c $(SFRAME_SRCS) $(SFRAME_HDRS)
	@mkdir -p $(dir $@)
	clang -std=c11 -g -O1 $(WARN) -iquote sframe \
		-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
		-o $@ test/sframe/fuzz_sframe.c $(SFRAME_SRCS)

# make fuzz-fuzz_sframe [FUZZ_SECONDS=n]: fuzz for n seconds (0: until
# stopped); `make fuzz` runs it with the targets of mk/fuzz.mk.
.PHONY: fuzz-fuzz_sframe
fuzz-fuzz_sframe: $(SFRAME_FUZZ)
	$(SFRAME_FUZZ_RUN) -max_total_time=$(FUZZ_SECONDS) \
		$(SFRAME_DIR)/fuzz/corpus test/sframe/corpus

TEST_PREREQS += $(SFRAME_FUZZ)

$(SFRAME_TDIR)/unit: test/sframe/unit.c $(SFRAME_VECGEN) $(SFRAME_HOST_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_TOOL_CFLAGS) -o $@ test/sframe/unit.c test/sframe/vecgen.c \
		$(SFRAME_HOST_OBJS)

TEST_PREREQS += $(SFRAME_TDIR)/unit

# make bench-sframe: generated programs of about 100 to 100 000 functions
# (test/sframe/gen_funcs.pl), timed by test/sframe/bench.c.
SFRAME_BDIR := $(SFRAME_DIR)/bench
SFRAME_BENCH_SIZES := 100 1000 10000 100000
SFRAME_BENCH_ELVES := $(SFRAME_BENCH_SIZES:%=$(SFRAME_BDIR)/funcs-%.elf)

$(SFRAME_BDIR)/funcs-%.elf: test/sframe/gen_funcs.pl
	@mkdir -p $(dir $@)
	perl test/sframe/gen_funcs.pl $* > $(SFRAME_BDIR)/funcs-$*.s
	as --gsframe -o $(SFRAME_BDIR)/funcs-$*.o $(SFRAME_BDIR)/funcs-$*.s
	$(LD) -e f0 -o $@ $(SFRAME_BDIR)/funcs-$*.o

$(SFRAME_BDIR)/bench: test/sframe/bench.c tools/sframe/input.c tools/sframe/reloc.c tools/sframe/input.h \
		$(SFRAME_HOST_OBJS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(SFRAME_TEST_CFLAGS) -o $@ test/sframe/bench.c tools/sframe/input.c tools/sframe/reloc.c \
		$(SFRAME_HOST_OBJS) -lsframe -lelf

.PHONY: bench-sframe
bench-sframe: $(SFRAME_BDIR)/bench $(SFRAME_BENCH_ELVES)
	@grep -m1 'model name' /proc/cpuinfo
	$(SFRAME_BDIR)/bench $(SFRAME_BENCH_ELVES)
