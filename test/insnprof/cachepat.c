/*
 * build/bin/cachepat: a host program that makes, for real, the access
 * patterns that tell caches apart, for test/t/88-oracle-cachegrind.t to
 * run under Valgrind's cachegrind and, traced by Valgrind's lackey,
 * through the cost model's simulator (build/bin/cachesim-trace).
 * Linked statically, so both runs place everything at the same addresses.
 * Data accesses are aligned to their size (none crosses a line); the
 * buffers are in .bss, 64-byte aligned.
 */
#include <stdint.h>

#define KIB 1024u
#define MIB (1024u * KIB)

static _Alignas(64) unsigned char buf[16 * MIB];

/* [base, base + ws) read `passes` times in order, a load each `step` bytes. */
__attribute__((noinline)) static uint64_t sweep(unsigned base, unsigned ws, unsigned step, unsigned passes)
{
	uint64_t sum = 0;
	for (unsigned p = 0; p < passes; p++)
		for (unsigned a = 0; a < ws; a += step)
			sum += *(volatile uint64_t *)(buf + base + a);
	return sum;
}

/* n lines `stride` bytes apart (one set when stride is sets * 64), in a
 * cycle, `rounds` times: LRU misses every access once n exceeds the ways;
 * then the first n - 1 of them again, in the reverse order (a cycle with
 * its most recent line dropped: LRU hits them all when n - 1 fit). */
__attribute__((noinline)) static uint64_t conflict(unsigned n, unsigned stride, unsigned rounds)
{
	uint64_t sum = 0;
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < n; i++)
			sum += *(volatile uint64_t *)(buf + i * stride);
	for (unsigned i = n - 1; i-- > 0;)
		sum += *(volatile uint64_t *)(buf + i * stride);
	return sum;
}

/* One line loaded before each of `others` lines of its set, in turn,
 * `rounds` times: LRU keeps the hot line (it is never the least recent)
 * and misses every other line, a policy that evicts in the order lines
 * came (FIFO) misses the hot line too. */
__attribute__((noinline)) static uint64_t hot_line(unsigned others, unsigned stride, unsigned rounds)
{
	uint64_t sum = 0;
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 1; i <= others; i++)
			sum += *(volatile uint64_t *)buf + *(volatile uint64_t *)(buf + i * stride);
	return sum;
}

/* Stores to every line of [0, ws), then loads of them: a write-allocate
 * cache has them all (misses only on the stores). */
__attribute__((noinline)) static uint64_t store_then_load(unsigned ws)
{
	for (unsigned a = 0; a < ws; a += 64)
		*(volatile uint64_t *)(buf + 8 * MIB + a) = a;
	return sweep(8 * MIB, ws, 64, 1);
}

/* A walk over the lines of [0, ws) in a scrambled order (an odd multiplier
 * modulo a power of two visits every line once a round), `rounds` times. */
__attribute__((noinline)) static uint64_t scramble(unsigned ws, unsigned rounds)
{
	uint64_t sum = 0;
	unsigned lines = ws / 64;
	for (unsigned r = 0; r < rounds; r++)
		for (unsigned i = 0; i < lines; i++)
			sum += *(volatile uint64_t *)(buf + 64 * ((i * 2654435761u + r) & (lines - 1)));
	return sum;
}

int main(void)
{
	uint64_t sum = 0;
	sum += sweep(0, 16 * KIB, 8, 2);      /* fits L1D: misses once a line */
	sum += sweep(0, 128 * KIB, 64, 5);    /* L1D < 128 KiB < L2 */
	sum += sweep(0, 512 * KIB, 64, 3);    /* L2 < 512 KiB < LLC */
	sum += sweep(0, 12 * MIB, 64, 2);     /* larger than the LLC */
	sum += conflict(9, 64 * 64, 20);   /* 9 lines in one of L1D's 8-way sets */
	sum += conflict(8, 64 * 64, 20);   /* 8: they fit */
	sum += conflict(5, 1024 * 64, 20); /* 5 lines in one of L2's 4-way sets */
	sum += conflict(17, 8192 * 64, 4); /* 17 lines in one of the LLC's 16-way sets */
	sum += hot_line(9, 64 * 64, 100);  /* L1D: 1 hot line, 9 others for 7 ways */
	sum += store_then_load(64 * KIB);
	sum += scramble(1 * MIB, 3);
	return sum == 1; /* never: zeros and the even offsets store_then_load wrote */
}
