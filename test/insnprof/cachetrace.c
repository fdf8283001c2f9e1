/*
 * build/bin/cachesim-trace: a memory trace through the cost model's cache
 * hierarchy (tools/insnprof/cachesim.c), counted the way Valgrind's
 * cachegrind counts, so that test/t/88-oracle-cachegrind.t can compare
 * the two on one program.
 *
 *   valgrind --tool=lackey --trace-mem=yes --log-fd=3 PROG 3>&1 >/dev/null |
 *       cachesim-trace [--llc-as-l2]
 *
 * Input: lackey's trace ("I  addr,size" an instruction, " L", " S", " M"
 * a load, a store, a load and store of the same bytes; other lines are
 * lackey's log and skipped). Output: cachegrind's summary events for the
 * same accesses,
 *
 *   events: Ir I1mr ILmr Dr D1mr DLmr Dw D1mw DLmw
 *   summary: ...
 *
 * where an access missed a level when any line it touches did (as
 * cachegrind counts an access that crosses a line), and the second level
 * (cachegrind's "LL") is the model's L2: the one level the L1 misses go
 * to. With --llc-as-l2 that level has the LLC's geometry (8 MiB, 16 ways)
 * instead. A modify (an add to memory) is one data read, as cachegrind
 * counts it, looked up as a load then a store, as the plugin sees one
 * (the store hits). Then the misses the
 * model counts itself, a line each: "lines: L1I L1D L2".
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cachesim.h"

enum { IR, I1MR, ILMR, DR, D1MR, DLMR, DW, D1MW, DLMW, NEV };
static const char *ev_name[NEV] = { "Ir", "I1mr", "ILmr", "Dr", "D1mr", "DLmr", "Dw", "D1mw", "DLmw" };

/* Count one access that the level `served` served, at base (IR, DR, DW). */
static void count(unsigned long long *ev, int base, int served)
{
	ev[base]++;
	ev[base + 1] += served >= SERVED_L2;
	ev[base + 2] += served >= SERVED_LLC;
}

/* An instruction's fetch: every line it touches, the worst level. */
static int fetch(struct hierarchy *h, unsigned long long a, unsigned size)
{
	int worst = SERVED_L1;
	for (unsigned long long l = a / LINE_SIZE; l <= (a + size - 1) / LINE_SIZE; l++) {
		int s = hier_fetch(h, l * LINE_SIZE);
		if (s > worst)
			worst = s;
	}
	return worst;
}

int main(int argc, char **argv)
{
	struct hierarchy h;
	int llc_as_l2 = argc == 2 && !strcmp(argv[1], "--llc-as-l2");
	if (argc > 2 || (argc == 2 && !llc_as_l2)) {
		fprintf(stderr, "usage: cachesim-trace [--llc-as-l2] < lackey-trace\n");
		return 2;
	}
	if (hier_init(&h))
		return 1;
	if (llc_as_l2) {
		cache_free(&h.l2);
		if (cache_init(&h.l2, "L2", LLC_SIZE, LLC_WAYS, LINE_SIZE))
			return 1;
	}
	unsigned long long ev[NEV] = { 0 }, a, n = 0;
	unsigned size;
	char line[256], kind;
	while (fgets(line, sizeof line, stdin)) {
		n++;
		if (sscanf(line, "I %llx,%u", &a, &size) == 2 && size)
			count(ev, IR, fetch(&h, a, size));
		else if (sscanf(line, " %c %llx,%u", &kind, &a, &size) == 3 && size && strchr("LSM", kind)) {
			int s = hier_data(&h, a, size);
			if (kind == 'M')
				hier_data(&h, a, size); /* the store: a hit */
			count(ev, kind == 'S' ? DW : DR, s);
		} else if (strncmp(line, "==", 2)) {
			fprintf(stderr, "cachesim-trace: line %llu is not lackey's: %s", n, line);
			return 1;
		}
	}
	printf("events:");
	for (int i = 0; i < NEV; i++)
		printf(" %s", ev_name[i]);
	printf("\nsummary:");
	for (int i = 0; i < NEV; i++)
		printf(" %llu", ev[i]);
	printf("\nlines: %llu %llu %llu\n", (unsigned long long)h.l1i.misses,
	       (unsigned long long)h.l1d.misses, (unsigned long long)h.l2.misses);
	hier_free(&h);
	return 0;
}
