/*
 * The workload the capture programs sample: a few distinct call paths of
 * known shape, each ending in snap(). noinline keeps every function a real
 * frame; the volatile sink keeps the compiler from folding the arithmetic.
 */
/* In the shared object run_all carries a symbol version, as a C library's
 * symbols do ("memcpy@@GLIBC_2.14"), so that the tests see it dropped. */
#ifdef WORK_VERSIONED
#define run_all run_all_v1
__asm__(".symver run_all_v1, run_all@@WORK_1");
#endif

#include "capture.h"

#define NOINLINE __attribute__((noinline))

volatile int sink;

NOINLINE static int compare_leaf(int a, int b)
{
	snap();                            /* snap 0: sort path */
	return a - b;
}

NOINLINE static int sort_pass(int *v, int n)
{
	int swaps = 0;
	for (int i = 0; i + 1 < n; i++)
		if (compare_leaf(v[i], v[i + 1]) > 0) {
			int t = v[i];
			v[i] = v[i + 1];
			v[i + 1] = t;
			swaps++;
		}
	return swaps;
}

NOINLINE static int fib(int n)
{
	if (n < 2) {
		snap();                    /* snaps 1.. : recursion path */
		return n;
	}
	return fib(n - 1) + fib(n - 2);
}

NOINLINE static int checksum(const char *s)
{
	int sum = 0;
	while (*s)
		sum = sum * 31 + *s++;
	snap();                            /* last snap: a third path */
	return sum;
}

NOINLINE static int parse(int n)
{
	char buf[32] = "stitch-me";
	buf[0] = (char)('a' + n);
	return checksum(buf);
}

NOINLINE int run_all(int n)
{
	int v[2] = { 2, 1 };
	sink = sort_pass(v, 2);
	sink += fib(n);
	sink += parse(n);
	return sink;
}
