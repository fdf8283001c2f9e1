/*
 * The CPU's performance counters (Intel architectural perfmon, SDM vol. 3,
 * ch. 20; AMD's legacy core counters, APM vol. 2, 13.2), as far as the
 * sampler needs them: one counter counting unhalted core cycles,
 * overflowing into an NMI.
 */
#ifndef ARCH_X86_64_NMI_PMU_H
#define ARCH_X86_64_NMI_PMU_H

#include <stdbool.h>
#include <stdint.h>

#include "arch/x86_64/x86.h"

/* What CPUID says about the counters. */
struct pmu_info {
	unsigned version;   /* 0: none; AMD's counters count as version 1 */
	unsigned counters;  /* general-purpose counters per logical CPU */
	unsigned width;     /* their bit width */
	bool core_cycles;   /* the unhalted-core-cycles event exists */
	bool amd;           /* AMD's MSRs and event, not Intel's */
};

/* Decodes leaf 0xA (leaf_a) given the highest basic leaf (max_leaf). */
struct pmu_info pmu_decode(uint32_t max_leaf, struct cpuid leaf_a);
/* AMD's counters from leaves 0 and 1: family 10h and later, bare metal. */
struct pmu_info pmu_decode_amd(struct cpuid leaf0, struct cpuid leaf1);
/* Version >= 1, a counter of at least 32 bits, and the cycles event. */
bool pmu_usable(const struct pmu_info *p);

/* This CPU's counters: true and what they are in *why, or false and why
 * not. */
bool pmu_detect(const char **why);
void pmu_start(unsigned hz);
void pmu_stop(void);
/* NMI context: did the counter overflow? If so it is re-armed. */
bool pmu_nmi(void);

#endif
