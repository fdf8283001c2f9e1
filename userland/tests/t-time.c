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

static long cpu_units(const struct tms *t)
{
	return (long)(t->tms_utime + t->tms_stime);
}

/*
 * CPU time: spinning is charged to us. Spin until times() shows 200 ms of
 * CPU time (by the clock, not by a guess of this machine's speed; a host
 * that starves us only makes it take longer), or give up after 20 s of
 * wall time. The time charged can never exceed the wall time that passed.
 */
static void test_cpu_time(void)
{
	struct tms before, now;
	clock_t cl0 = clock();
	long long t0 = now_us(), t1;
	volatile unsigned long spin = 0;

	CHECK(times(&before) != (clock_t)-1);
	do {
		for (int i = 0; i < 100000; i++)
			spin++;
		times(&now);
		t1 = now_us();
	} while (cpu_units(&now) - cpu_units(&before) < CLOCKS_PER_SEC / 5 &&
		 t1 - t0 < 20000000);
	long charged = cpu_units(&now) - cpu_units(&before);
	CHECK(charged >= CLOCKS_PER_SEC / 5);
	/* one 10 ms tick of slack on each side of the interval */
	CHECK(charged * (1000000 / CLOCKS_PER_SEC) <= t1 - t0 + 20000);
	CHECK((long)(clock() - cl0) >= charged);	/* clock() sums the same counters */
	CHECK(now.tms_utime >= before.tms_utime);
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
