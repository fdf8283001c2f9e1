/*
 * evict KIB LINES: touch LINES cache lines in all, a store to each 64-byte
 * line of a KIB KiB buffer in turn, round and round. Run beside another
 * program on one CPU (bsuite -j), it takes every other time slice: with a
 * buffer bigger than the last-level cache (the cost model's 8 MiB,
 * tools/insnprof/cachesim.h) nothing of the other program's survives in
 * any level of the cache between two of its slices; with a buffer of a
 * few KiB it does the same work and evicts next to nothing. So two runs
 * that differ only in KIB differ only in what the other program finds in
 * the cache (make bench's fdesearch part, docs/BENCHMARKS.md).
 * Prints "evict: kib=K lines=L checksum=X".
 */
#include "../workloads/workload.h"

#define LINE 64

FRAME static uint64_t evict(volatile uint8_t *buf, long lines_in_buf, long lines)
{
	uint64_t x = FNV_OFFSET;
	long at = 0;

	for (long i = 0; i < lines; i++) {
		buf[at * LINE] = (uint8_t)i;
		x = (x ^ (uint64_t)at) * FNV_PRIME;
		if (++at == lines_in_buf)
			at = 0;
	}
	return x;
}

int main(int argc, char **argv)
{
	long kib = arg_long(argc, argv, 1, 16384, 1, 1 << 20);
	long lines = arg_long(argc, argv, 2, 1000000, 1, 1L << 40);
	uint8_t *buf = malloc((size_t)kib << 10);

	if (!buf) {
		printf("evict: no memory for %ld KiB\n", kib);
		return 1;
	}
	printf("evict: kib=%ld lines=%ld checksum=%016llx\n", kib, lines,
	       (unsigned long long)evict(buf, (kib << 10) / LINE, lines));
	return 0;
}
