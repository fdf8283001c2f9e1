# Reproducible benchmarks: every unwinding mode side by side under
# QEMU -icount (guest time = instructions, so a run repeats exactly), the
# scaling curves, and the host-side unwinder comparison. docs/BENCHMARKS.md.
#
#   make bench            everything: out/bench/{results.csv,results.json,
#                         *.csv,*.png,host-unwind.csv}, the table on stdout;
#                         BENCH_JOBS boots side by side (default: make's
#                         -jN, else the number of cores)
#   make bench-page       docs/BENCHMARKS.md and docs/bench/ from the
#                         committed docs/bench/results.json, booting nothing
#   make bench-publish    out/bench/results.json becomes the committed one,
#                         then bench-page
#   make bench-plan       the plan as a job file, out/bench/plan.jobs, one
#                         boot a line, for GNU parallel (-j, --sshlogin)
#   make bench-collect    the tables from what the job file's lines printed
#                         (BENCH_STREAMS, default out/bench/streams.jsonl)
#   make bench-check      boots BENCH_PARTS (or BENCH_SAMPLE of the committed
#                         boots, seed BENCH_SEED) and compares every guest
#                         number with BENCH_RESULTS (docs/bench/results.json)
#   make bench-sframe     the SFrame library alone (mk/sframe.mk)
#
# This file comes before mk/userland.mk (mk/*.mk are included in name
# order): it hands its ring-3 programs to the SDK through
# USER_EXTRA_PROGRAMS / USER_SRCS_<name>, and they go into the initrd.

# libunwind: build/bin/bench-unwind, which `make` builds (test 73 runs it);
# valgrind: cachegrind and lackey, the cost model's caches against
# cachegrind's (test 88); gnuplot draws make bench's curves.
PACKAGES += libunwind-dev libelf-dev valgrind
BENCH_PACKAGES += gnuplot-nox

BENCH_DIR := $(BUILD)/bench
BENCH_OUT := $(OUT)/bench

# --- Ring-3 programs (userland/bench/) --------------------------------------
# /bin/bsuite runs programs one after the other; /bin/kentry makes long
# kernel entries; /bin/funcs-N has N generated functions; /bin/evict
# empties the caches beside another program; /bin/spread-K samples
# under K different call sites; /bin/deepstack has a stack of 1 KiB
# frames, for stack copies of up to 16 KiB.
BENCH_FUNCS := 10 100 1000 3000 10000 30000 100000
BENCH_SPREAD := 16 256 4096 16384
BENCH_PROGRAMS := bsuite kentry evict deepstack $(BENCH_FUNCS:%=funcs-%) $(BENCH_SPREAD:%=spread-%)
USER_EXTRA_PROGRAMS += $(BENCH_PROGRAMS)
USER_SRCS_bsuite := userland/bench/bsuite.c
USER_SRCS_kentry := userland/bench/kentry.c
USER_SRCS_evict := userland/bench/evict.c
USER_SRCS_deepstack := userland/bench/deepstack.c
$(foreach n,$(BENCH_FUNCS),$(eval USER_SRCS_funcs-$(n) := userland/bench/funcs.c $(BENCH_DIR)/gen/funcs-$(n).s))
$(foreach n,$(BENCH_SPREAD),$(eval USER_SRCS_spread-$(n) := userland/bench/spread.c $(BENCH_DIR)/gen/spread-$(n).s))

# Frame pointers in every function of the program's own, leaves included,
# so that a frame-pointer walk sees as many frames as SFrame
# (docs/BENCHMARKS.md, "A fair frame-pointer baseline"). newlib and the
# start code keep none. /bin/<w>-fp is workload w built this way, for the
# fp modes; /bin/funcs-N is built this way only (its generated chain
# keeps rbp frames too), the same binary for every mode.
BENCH_FP_CFLAGS := -fno-omit-frame-pointer -mno-omit-leaf-frame-pointer
BENCH_FP_BUILDS := fib chain sort reader piper kentry
USER_EXTRA_PROGRAMS += $(BENCH_FP_BUILDS:%=%-fp)
$(foreach w,fib chain sort reader piper,$(eval USER_SRCS_$(w)-fp := userland/workloads/$(w).c))
USER_SRCS_kentry-fp := userland/bench/kentry.c
$(foreach p,$(BENCH_FP_BUILDS:%=%-fp) $(BENCH_FUNCS:%=funcs-%),$(eval USER_CFLAGS_$(p) := $(BENCH_FP_CFLAGS)))

$(BENCH_DIR)/gen/funcs-%.s: userland/bench/genfuncs.pl
	@mkdir -p $(@D)
	perl userland/bench/genfuncs.pl $* > $@.tmp && mv $@.tmp $@

$(BENCH_DIR)/gen/spread-%.s: userland/bench/genspread.pl
	@mkdir -p $(@D)
	perl userland/bench/genspread.pl $* > $@.tmp && mv $@.tmp $@

# --- build/bin/bench-unwind: the host-side unwinder comparison --------------
# Built from the sources of the SFrame library and of stitch's reader (this
# file is read before theirs, so from their sources, not their variables).
BENCH_UNWIND := $(BIN)/bench-unwind
BENCH_UNWIND_SRCS := $(wildcard tools/bench/*.c) \
	$(filter-out tools/stitch/main.c,$(wildcard tools/stitch/*.c)) $(wildcard sframe/*.c)
BENCH_UNWIND_OBJS := $(patsubst %.c,$(BENCH_DIR)/obj/%.o,$(BENCH_UNWIND_SRCS))
BENCH_UNWIND_HDRS := $(wildcard tools/bench/*.h tools/stitch/*.h sframe/*.h) \
	include/stitch/records.h
BENCH_CFLAGS := $(HOST_CFLAGS) -iquote tools/bench -iquote tools/stitch -iquote sframe

$(BENCH_DIR)/obj/%.o: %.c $(BENCH_UNWIND_HDRS)
	@mkdir -p $(@D)
	$(HOST_CC) $(BENCH_CFLAGS) -c $< -o $@

$(BENCH_UNWIND): $(BENCH_UNWIND_OBJS)
	@mkdir -p $(@D)
	$(HOST_CC) -o $@ $^ -lunwind-x86_64 -lunwind -ldw -lelf -lm

ALL_TARGETS += $(BENCH_UNWIND)
TEST_PREREQS += $(BENCH_UNWIND)

# --- build/bin/insnprof.so: the QEMU plugin of the breakdown -----------------
# Guest instructions per kernel function inside the deferred unwind, the NMI
# handler and the page fault (tools/insnprof/, docs/BENCHMARKS.md). Against
# the hand-written declarations of QEMU 7.2's plugin API (Debian ships no
# qemu-plugin.h); the API is resolved in the QEMU executable at load time.
INSNPROF := $(BIN)/insnprof.so
INSNPROF_SRCS := $(wildcard tools/insnprof/*.c)

$(INSNPROF): $(INSNPROF_SRCS) $(wildcard tools/insnprof/*.h)
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -fPIC -shared -fvisibility=hidden -o $@ $(INSNPROF_SRCS) -lelf

ALL_TARGETS += $(INSNPROF)
TEST_PREREQS += $(INSNPROF)

# build/bin/cachesim-test: the plugin's cache simulator (tools/insnprof/
# cachesim.c) against known access patterns, on the host (test 76).
CACHESIM_TEST := $(BIN)/cachesim-test

$(CACHESIM_TEST): test/insnprof/cachesim.c tools/insnprof/cachesim.c tools/insnprof/cachesim.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -iquote tools/insnprof -o $@ test/insnprof/cachesim.c tools/insnprof/cachesim.c

ALL_TARGETS += $(CACHESIM_TEST)
TEST_PREREQS += $(CACHESIM_TEST)

# build/bin/cachesim-trace: a lackey trace through the same simulator,
# counted as cachegrind counts; build/bin/cachepat: the host program both
# run, static so that every run lays it out alike (test 88).
CACHESIM_TRACE := $(BIN)/cachesim-trace
CACHEPAT := $(BIN)/cachepat

$(CACHESIM_TRACE): test/insnprof/cachetrace.c tools/insnprof/cachesim.c tools/insnprof/cachesim.h
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -iquote tools/insnprof -o $@ test/insnprof/cachetrace.c tools/insnprof/cachesim.c

$(CACHEPAT): test/insnprof/cachepat.c
	@mkdir -p $(@D)
	$(HOST_CC) $(HOST_CFLAGS) -static -o $@ $<

ALL_TARGETS += $(CACHESIM_TRACE) $(CACHEPAT)
TEST_PREREQS += $(CACHESIM_TRACE) $(CACHEPAT)

# --- make bench ---------------------------------------------------------------
# BENCH_CONFIG=quick for a short development run; BENCH_PARTS=modes,host to
# run some parts only (modes real depth funcs kentry rate cpus cache breakdown memory fdesearch rulecache stackmap host sframe-v3 tables compat): they replace
# their own files in out/bench/ and their part of results.json.
# SFRAME=v2|v3 boots every part on the initrd of that version's copies
# (mk/usersframe.mk); the sframe-v3 part boots all three whatever SFRAME.
# BENCH_REUSE=1 boots nothing that out/bench/runs/ already holds (to redo
# the tables and plots from the same streams).
BENCH_CONFIG ?= full
BENCH_PARTS  ?= modes,real,depth,funcs,kentry,rate,cpus,cache,breakdown,memory,fdesearch,rulecache,stackmap,host,sframe-v3,tables,compat
BENCH_DRIVER = python3 tools/bench/bench.py --qemu-run tools/qemu-run \
	--stitch $(STITCH_TOOL) --symfs $(USER_SYMFS) --kernel $(KERNEL_ELF) --initrd $(SFRAME_INITRD) \
	--insnprof $(INSNPROF) $(if $(BENCH_JOBS),--jobs $(BENCH_JOBS)) \
	--sframe-initrds v1=$(strip $(INITRD)),v2=$(SFRAME_DIR)/v2/initrd.cpio,v3=$(SFRAME_DIR)/v3/initrd.cpio

.PHONY: bench
bench: all $(BENCH_UNWIND) $(INSNPROF)
	mkdir -p $(BENCH_OUT)
	$(BENCH_DRIVER) --out $(BENCH_OUT) --config $(BENCH_CONFIG) --parts $(BENCH_PARTS) \
		--unwind $(BENCH_UNWIND) $(if $(BENCH_REUSE),--reuse)
	$(MAKE) --no-print-directory bench-sframe > $(BENCH_OUT)/sframe-library.txt
	@cat $(BENCH_OUT)/sframe-library.txt

# --- docs/BENCHMARKS.md: one page from one results file --------------------
# Every table and every number of the page's prose come from
# docs/bench/results.json through the template docs/bench/BENCHMARKS.md.in
# (tools/bench/output.py says how); each curve's plot data, gnuplot script
# and PNG go into docs/bench/. test/t/70-bench-page.t checks that the
# committed page is what the committed results give.
BENCH_PAGE := python3 tools/bench/output.py --results docs/bench/results.json \
	--template docs/bench/BENCHMARKS.md.in --page docs/BENCHMARKS.md --plots docs/bench

.PHONY: bench-page bench-publish
bench-page:
	$(BENCH_PAGE)

bench-publish:
	cp $(BENCH_OUT)/results.json docs/bench/results.json
	$(BENCH_PAGE)
# The plan elsewhere (docs/BENCHMARKS.md, "Running the plan elsewhere"):
#   make bench-plan
#   parallel --will-cite -j4 < out/bench/plan.jobs > out/bench/streams.jsonl
#   make bench-collect
# bench-plan boots kentry's calibration itself (the curve's points depend
# on it); every line checks the kernel's and the initrd's SHA-256.
BENCH_STREAMS ?= $(BENCH_OUT)/streams.jsonl
# GNU parallel runs the job file (test 78 runs the tiny plan through it).
PACKAGES += parallel

.PHONY: bench-plan bench-collect
bench-plan: all $(INSNPROF)
	mkdir -p $(BENCH_OUT)
	$(BENCH_DRIVER) --out $(BENCH_OUT) --config $(BENCH_CONFIG) --parts $(BENCH_PARTS) \
		--unwind $(BENCH_UNWIND) --plan $(BENCH_OUT)/plan.jobs

bench-collect: all $(BENCH_UNWIND) $(INSNPROF)
	mkdir -p $(BENCH_OUT)
	$(BENCH_DRIVER) --out $(BENCH_OUT) --config $(BENCH_CONFIG) --parts $(BENCH_PARTS) \
		--unwind $(BENCH_UNWIND) --collect $(BENCH_STREAMS)

# make bench-check BENCH_PARTS=modes,cache: those parts, in the committed
# file's configuration; without BENCH_PARTS on the command line,
# BENCH_SAMPLE boots of the file's, chosen by BENCH_SEED. Exit status 0
# only when every number is the committed one.
BENCH_RESULTS ?= docs/bench/results.json
BENCH_SAMPLE ?= 5
BENCH_SEED ?= 0

.PHONY: bench-check
bench-check: all $(BENCH_UNWIND) $(INSNPROF)
	mkdir -p $(OUT)/bench-check
	$(BENCH_DRIVER) --out $(OUT)/bench-check --check $(BENCH_RESULTS) --unwind $(BENCH_UNWIND) \
		$(if $(filter command line,$(origin BENCH_PARTS)),--parts $(BENCH_PARTS),--sample $(BENCH_SAMPLE) --seed $(BENCH_SEED))
