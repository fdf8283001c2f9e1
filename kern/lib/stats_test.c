#include "kern/lib/ktest.h"
#include "kern/lib/stats.h"
#include "kern/lib/string.h"

/* Names fit the record, are distinct, and the unwind_stop_* counters
 * follow enum unwind_stop. */
KTEST(stats_names)
{
	for (int a = 0; a < STAT_COUNT; a++) {
		KEXPECT(t, strlen(stat_name((enum stat)a)) < sizeof(((struct rec_stat *)0)->name));
		for (int b = 0; b < a; b++)
			KEXPECT(t, strcmp(stat_name((enum stat)a), stat_name((enum stat)b)));
	}
	KEXPECT(t, !strcmp(stat_name(STAT_UNWIND_STOP_END + UNWIND_STOP_FAULT),
			   "unwind_stop_fault"));
	KEXPECT(t, !strcmp(stat_name(STAT_UNWIND_STOP_END + UNWIND_STOP_TASK_EXITED),
			   "unwind_stop_task_exited"));
}

/* Sums add, maxima keep the largest value. */
KTEST(stats_add_and_max)
{
	uint64_t total = stat_total(STAT_UNWINDS_RUN);
	stat_add(STAT_UNWINDS_RUN, 5);
	stat_inc(STAT_UNWINDS_RUN);
	KEXPECT_EQ(t, stat_total(STAT_UNWINDS_RUN), total + 6);

	uint64_t max = stat_total(STAT_UNWIND_CYCLES_MAX);
	stat_max(STAT_UNWIND_CYCLES_MAX, max + 100);
	stat_max(STAT_UNWIND_CYCLES_MAX, max + 50);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_CYCLES_MAX), max + 100);

	uint64_t fault = stat_total(STAT_UNWIND_STOP_FAULT);
	stat_unwind_stop(UNWIND_STOP_FAULT);
	stat_unwind_stop(UNWIND_STOP_COUNT); /* out of range: ignored */
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_STOP_FAULT), fault + 1);
}
