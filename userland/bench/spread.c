/*
 * spread-K [rounds]: the C half of a program whose rounds call down
 * through K different callers (userland/bench/genspread.pl writes the
 * other half): round r runs spread_leaf under caller r mod K,
 *
 *     main -> spread_rounds -> spread_call_<r mod K> -> spread_leaf
 *
 * so a sample's stack is always four frames deep, and the pcs the
 * deferred unwinder looks up are K + a few: a rule cache's working set
 * that fits (K small) or does not (K above its entries).
 * Prints "spread: callers=K rounds=R checksum=X".
 */
#include "../workloads/workload.h"

typedef uint64_t (*caller_fn)(uint64_t);
extern const caller_fn spread_table[];
extern const unsigned spread_count;

FRAME static uint64_t spread_rounds(long rounds)
{
	uint64_t x = FNV_OFFSET;

	for (long r = 0; r < rounds; r++)
		x = spread_table[r % spread_count](x + (uint64_t)r);
	return x;
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 1000, 1, 100000000);

	printf("spread: callers=%u rounds=%ld checksum=%016llx\n", spread_count, rounds,
	       (unsigned long long)spread_rounds(rounds));
	return 0;
}
