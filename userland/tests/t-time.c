/*
 * t-time: gettimeofday, times (and clock on top), usleep/sleep, yield.
 * Bounds are loose where the machine's speed matters, tight where the
 * kernel promises something (a sleep never ends early).
 */
#include <sys/time.h>
#include <sys/times.h>
#include <time.h>
#include <unistd.h>
#include "check.h"

static long long now_us(void)
{
	struct timeval tv;

	if (gettimeofday(&tv, NULL) != 0)
		return -1;
	return tv.tv_sec * 1000000LL + tv.tv_usec;
}

static void test_gettimeofday(void)
{
	struct timeval tv;
	long long a, b;

	CHECK_EQ(gettimeofday(&tv, NULL), 0);
	CHECK(tv.tv_usec >= 0 && tv.tv_usec < 1000000);
	CHECK(tv.tv_sec >= 0);
	a = now_us();
	b = now_us();
	CHECK(a > 0 && b >= a);	/* never goes back */
}

/* Sleeps last at least what was asked (one 10 ms tick of slack for the
 * clock's own granularity) and not absurdly longer. */
static void test_sleep(void)
{
	long long t0 = now_us(), t1, t2;
	clock_t c0, c1;
	struct tms tm;

	CHECK_EQ(usleep(200000), 0);
	t1 = now_us();
	CHECK(t1 - t0 >= 190000);
	CHECK(t1 - t0 < 5000000);
	c0 = times(&tm);
	CHECK_EQ(sleep(1), 0);
	c1 = times(&tm);
	t2 = now_us();
	CHECK(t2 - t1 >= 990000);
	/* times() counts CLOCKS_PER_SEC units since boot (the SDK scales). */
	CHECK(c1 - c0 >= CLOCKS_PER_SEC * 99 / 100);
	CHECK(c1 - c0 < CLOCKS_PER_SEC * 5);
	CHECK_EQ(usleep(0), 0);
}

/* CPU time: spinning for 300 ms of wall time is mostly user time. */
static void test_cpu_time(void)
{
	struct tms before, after;
	clock_t cl0 = clock(), cl1;
	long long end = now_us() + 300000;
	volatile unsigned long spin = 0;

	CHECK(times(&before) != (clock_t)-1);
	while (now_us() < end)
		for (int i = 0; i < 1000000; i++)
			spin++;
	CHECK(times(&after) != (clock_t)-1);
	cl1 = clock();
	CHECK(after.tms_utime + after.tms_stime - before.tms_utime - before.tms_stime
	      >= CLOCKS_PER_SEC / 10);	/* at least a third of the 300 ms */
	CHECK(after.tms_utime >= before.tms_utime);
	CHECK(cl1 - cl0 >= CLOCKS_PER_SEC / 10);
	CHECK_EQ(before.tms_cutime, 0);	/* no child has been reaped yet */
}

static void test_yield(void)
{
	CHECK_EQ(yield(), 0);	/* alone or not, yield succeeds and returns */
}

int main(int argc, char **argv)
{
	(void)argc;
	check_begin(argv[0]);
	test_gettimeofday();
	test_sleep();
	test_cpu_time();
	test_yield();
	return check_exit();
}
