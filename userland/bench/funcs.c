/*
 * funcs-N [rounds]: the C half of a program with N generated functions
 * (userland/bench/genfuncs.pl writes the other half). Each round calls
 * down the generated chain to its spinning leaf:
 *
 *     main -> funcs_rounds -> funcs_chain_0 -> ... -> funcs_chain_7 -> funcs_leaf
 *
 * so every sample's user stack is the same 11 frames, whatever N is; only
 * the size of the SFrame table an unwinder searches changes.
 * Prints "funcs: functions=N rounds=R checksum=X".
 */
#include "../workloads/workload.h"

extern uint64_t funcs_chain_0(uint64_t x);
extern const unsigned funcs_count;

FRAME static uint64_t funcs_rounds(long rounds)
{
	uint64_t x = FNV_OFFSET;

	for (long r = 0; r < rounds; r++)
		x = funcs_chain_0(x + (uint64_t)r);
	return x;
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 200, 1, 100000000);

	printf("funcs: functions=%u rounds=%ld checksum=%016llx\n", funcs_count, rounds,
	       (unsigned long long)funcs_rounds(rounds));
	return 0;
}
