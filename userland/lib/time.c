/* Time: wall-clock-ish time since boot and tick counts. */
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include "sys.h"

int gettimeofday(struct timeval *tv, void *tz)
{
	struct stitch_timeval ktv;
	long ret;

	(void)tz;	/* obsolete argument; newlib passes NULL */
	ret = sys1(SYS_gettimeofday, (long)&ktv);
	if (ret < 0)
		return (int)sys_result(ret);
	tv->tv_sec = ktv.sec;
	tv->tv_usec = ktv.usec;
	return 0;
}

/*
 * The kernel counts STITCH_CLK_TCK ticks per second; newlib's clock() and
 * CLK_TCK assume times() counts CLOCKS_PER_SEC (1000) units, so scale here
 * and clock() / CLOCKS_PER_SEC gives seconds.
 */
#define TICK_SCALE (CLOCKS_PER_SEC / STITCH_CLK_TCK)

clock_t times(struct tms *t)
{
	struct stitch_tms kt;
	long ret = sys1(SYS_times, (long)&kt);

	if (ret < 0)
		return (clock_t)sys_result(ret);
	t->tms_utime = kt.utime * TICK_SCALE;
	t->tms_stime = kt.stime * TICK_SCALE;
	t->tms_cutime = kt.cutime * TICK_SCALE;
	t->tms_cstime = kt.cstime * TICK_SCALE;
	return (clock_t)(ret * TICK_SCALE);
}
