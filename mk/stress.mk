# make stress: the SMP workloads (eight programs at once, the hostile
# suite, the load) repeated on 2, 4 and 8 CPUs under multi-threaded TCG
# (tools/qemu-run --parallel), with sched.migrate and without, for
# STRESS_SECONDS of wall time; each boot's verdict, page accounting and
# record stream are checked (tools/stress; docs/SMP.md, "Parallel runs").
# Test 58 runs a few such boots on 4 CPUs.

ifneq ($(filter stress,$(MAKECMDGOALS)),)
PACKAGES += libjson-xs-perl
endif

STRESS_SECONDS ?= 600
STRESS_CPUS    ?= 2 4 8

.PHONY: stress
stress: $(KERNEL_ELF) $(INITRD) $(BIN)/stitch
	tools/stress --seconds $(STRESS_SECONDS) --cpus "$(STRESS_CPUS)"
