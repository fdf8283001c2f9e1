/*
 * The architectural performance-monitoring unit (Intel SDM vol. 3, ch.
 * 20), as far as the sampler needs it: one general-purpose counter
 * counting unhalted core cycles, overflowing into an NMI.
 */
#ifndef ARCH_X86_64_PMU_H
#define ARCH_X86_64_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/x86.h"

/* What CPUID leaf 0xA says. */
struct pmu_info {
	unsigned version;   /* 0: no architectural PMU */
	unsigned counters;  /* general-purpose counters per logical CPU */
	unsigned width;     /* their bit width */
	bool core_cycles;   /* the unhalted-core-cycles event exists */
};

/* Decodes leaf 0xA (leaf_a) given the highest basic leaf (max_leaf). */
struct pmu_info pmu_decode(uint32_t max_leaf, struct cpuid leaf_a);
/* Version >= 1, a counter of at least 32 bits, and the cycles event. */
bool pmu_usable(const struct pmu_info *p);

#endif
