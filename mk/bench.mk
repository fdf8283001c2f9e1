# Reproducible benchmarks (issue 7): every unwinding mode side by side under
# QEMU -icount (guest time = instructions, so a run repeats exactly), the
# scaling curves, and the host-side unwinder comparison. docs/BENCHMARKS.md.
#
#   make bench            everything: out/bench/{results.csv,results.json,
#                         *.csv,*.png,host-unwind.csv}, the table on stdout
#   make bench-sframe     the SFrame library alone (mk/sframe.mk)
#
# This file comes before mk/userland.mk (mk/*.mk are included in name
# order): it hands its ring-3 programs to the SDK through
# USER_EXTRA_PROGRAMS / USER_SRCS_<name>, and they go into the initrd.

PACKAGES += python3 gnuplot-nox libunwind-dev

BENCH_DIR := $(BUILD)/bench
BENCH_OUT := $(OUT)/bench

# --- Ring-3 programs (userland/bench/) --------------------------------------
# /bin/bsuite runs programs one after the other; /bin/kentry makes long
# kernel entries; /bin/funcs-N has N generated functions.
BENCH_FUNCS := 10 100 1000 10000 100000
BENCH_PROGRAMS := bsuite kentry $(BENCH_FUNCS:%=funcs-%)
USER_EXTRA_PROGRAMS += $(BENCH_PROGRAMS)
USER_SRCS_bsuite := userland/bench/bsuite.c
USER_SRCS_kentry := userland/bench/kentry.c
$(foreach n,$(BENCH_FUNCS),$(eval USER_SRCS_funcs-$(n) := userland/bench/funcs.c $(BENCH_DIR)/gen/funcs-$(n).s))

$(BENCH_DIR)/gen/funcs-%.s: userland/bench/genfuncs.pl
	@mkdir -p $(@D)
	perl userland/bench/genfuncs.pl $* > $@.tmp && mv $@.tmp $@
