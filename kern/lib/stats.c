#include "kern/lib/stats.h"
#include <arch/arch.h>
#include "kern/lib/console.h"
#include "kern/kernel.h"

enum how { HOW_SUM, HOW_MAX };

#define STATS_NAME(id, name, how) name,
static const char *const names[STAT_COUNT] = { STATS_LIST(STATS_NAME) };
#define STATS_HOW(id, name, how) HOW_##how,
static const enum how hows[STAT_COUNT] = { STATS_LIST(STATS_HOW) };

uint64_t stat_counters[ARCH_MAX_CPUS][STAT_ROW] __attribute__((aligned(64)));

uint64_t stat_total(enum stat s)
{
	uint64_t t = 0;
	for (int cpu = 0; cpu < ARCH_MAX_CPUS; cpu++) {
		uint64_t v = __atomic_load_n(&stat_counters[cpu][s], __ATOMIC_RELAXED);
		t = hows[s] == HOW_MAX ? MAX(t, v) : t + v;
	}
	return t;
}

const char *stat_name(enum stat s)
{
	return s < STAT_COUNT ? names[s] : "?";
}

void stats_print(void)
{
	kprintf("stats:");
	for (int s = 0; s < STAT_COUNT; s++)
		kprintf("%s %s=%lu", s % 4 ? "" : "\n ", names[s], stat_total((enum stat)s));
	kprintf("\n");
}
