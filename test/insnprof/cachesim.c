/*
 * build/bin/cachesim-test: tools/insnprof/cachesim.c against access
 * patterns whose misses are known (test/t/76-bench-memory.t runs it).
 * TAP on stdout.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cachesim.h"

static int n_test, failed;

static void ok(int cond, const char *what, unsigned long got, unsigned long want)
{
	n_test++;
	printf("%sok %d - %s (got %lu, want %lu)\n", cond ? "" : "not ", n_test, what, got, want);
	failed += !cond;
}

int main(void)
{
	struct cache c;
	struct hierarchy h;

	/* Geometry: 32 KiB 8-way of 64-byte lines is 64 sets. */
	int rc = cache_init(&c, "t", 32 << 10, 8, 64);
	ok(rc == 0 && c.sets == 64 && c.line_shift == 6, "32 KiB, 8 ways, 64-byte lines: 64 sets",
	   c.sets, 64);
	cache_free(&c);
	ok(cache_init(&c, "t", 3000, 8, 64) != 0, "a size not a power of two is refused", 1, 1);

	/* Sequential reads of N bytes, 8 at a time, in a cold cache: one miss
	 * per 64-byte line, N / 64. */
	if (hier_init(&h))
		return 1;
	const unsigned n = 16 << 10;
	for (unsigned a = 0; a < n; a += 8)
		hier_data(&h, 0x100000 + a, 8);
	ok(h.l1d.misses == n / 64, "16 KiB read in 8-byte loads, cold: L1D misses = N / 64",
	   h.l1d.misses, n / 64);
	ok(h.l1d.accesses == n / 8, "one L1D access per load", h.l1d.accesses, n / 8);
	ok(h.llc.misses == n / 64, "and as many LLC misses (all cold)", h.llc.misses, n / 64);
	/* Again: all in L1D now. */
	uint64_t before = h.l1d.misses;
	for (unsigned a = 0; a < n; a += 8)
		hier_data(&h, 0x100000 + a, 8);
	ok(h.l1d.misses == before, "read again: no miss", h.l1d.misses - before, 0);
	/* An access across a line boundary touches two lines. */
	before = h.l1d.accesses;
	int served = hier_data(&h, 0x900000 + 60, 8);
	ok(served == SERVED_MEM && h.l1d.accesses == before + 2,
	   "8 bytes across a line boundary: two lines, from memory", h.l1d.accesses - before, 2);
	hier_free(&h);

	/* A working set larger than L1D (32 KiB) but smaller than L2
	 * (256 KiB), read in order, five times: L1D misses every line every
	 * pass (LRU and a cyclic pattern larger than the cache), L2 and the
	 * LLC only in the first pass. */
	if (hier_init(&h))
		return 1;
	const unsigned ws = 128 << 10, lines = ws / 64, passes = 5;
	for (unsigned p = 0; p < passes; p++)
		for (unsigned a = 0; a < ws; a += 64)
			hier_data(&h, 0x4000000 + a, 8);
	ok(h.l1d.misses == (uint64_t)lines * passes, "128 KiB working set: L1D misses every pass",
	   h.l1d.misses, (unsigned long)lines * passes);
	ok(h.l2.misses == lines, "L2 misses only the first pass", h.l2.misses, lines);
	ok(h.llc.misses == lines, "LLC misses only the first pass", h.llc.misses, lines);
	/* And one larger than L2 (512 KiB) but smaller than the LLC: L2 every
	 * pass, the LLC only the first. */
	hier_free(&h);
	if (hier_init(&h))
		return 1;
	const unsigned ws2 = 512 << 10, lines2 = ws2 / 64;
	for (unsigned p = 0; p < 3; p++)
		for (unsigned a = 0; a < ws2; a += 64)
			hier_data(&h, 0x8000000 + a, 8);
	ok(h.l2.misses == (uint64_t)lines2 * 3, "512 KiB working set: L2 misses every pass",
	   h.l2.misses, (unsigned long)lines2 * 3);
	ok(h.llc.misses == lines2, "LLC misses only the first pass", h.llc.misses, lines2);
	/* Instruction fetches go through L1I, not L1D, and share L2. */
	uint64_t d = h.l1d.accesses;
	served = hier_fetch(&h, 0x8000000 + ws2 - 64); /* the last line read: in L1D and L2 */
	ok(served == SERVED_L2 && h.l1d.accesses == d && h.l1i.misses == 1,
	   "a fetch of a line L1D holds: an L1I miss served by L2, L1D untouched", h.l1i.misses, 1);
	hier_free(&h);

	/* LRU in one set: 8 ways, lines 64 sets apart map to one set. */
	cache_init(&c, "t", 32 << 10, 8, 64);
	const uint64_t stride = 64 * 64;
	for (unsigned i = 0; i < 8; i++)
		cache_access(&c, i * stride);
	cache_access(&c, 0);         /* line 0 becomes the most recent: 1 is the least */
	cache_access(&c, 8 * stride); /* a ninth line: evicts line 1 */
	ok(cache_holds(&c, 0) && !cache_holds(&c, 1 * stride) && cache_holds(&c, 2 * stride) &&
	   cache_holds(&c, 8 * stride), "LRU: the ninth line evicts the least recently used (1, not 0)",
	   cache_holds(&c, stride), 0);
	cache_access(&c, 9 * stride); /* next: 2 */
	ok(!cache_holds(&c, 2 * stride) && cache_holds(&c, 3 * stride), "then the next least recent (2)",
	   cache_holds(&c, 2 * stride), 0);
	/* Other sets are untouched by all that. */
	ok(!cache_holds(&c, 64), "a line of another set was never filled", cache_holds(&c, 64), 0);
	ok(c.misses == 10 && c.accesses == 11, "10 misses in 11 accesses", c.misses, 10);
	cache_free(&c);

	/* The penalties: what cachesim.h's table says. */
	ok(hier_penalty(SERVED_L1) == 0 && hier_penalty(SERVED_L2) == L2_LAT - L1_LAT &&
	   hier_penalty(SERVED_LLC) == LLC_LAT - L1_LAT && hier_penalty(SERVED_MEM) == MEM_LAT - L1_LAT,
	   "penalties: the table's latencies less an L1 hit", hier_penalty(SERVED_MEM), MEM_LAT - L1_LAT);

	printf("1..%d\n", n_test);
	return failed != 0;
}
