/*
 * deepstack [frames [rounds]]: each round a recursion `frames` deep whose
 * every frame holds 1 KiB of its own stack (a buffer it writes), spinning
 * at the bottom as /bin/chain does: a stack in use of about `frames` KiB,
 * where /bin/chain 256's is about 4 KiB. The memory part of make bench
 * copies 1 to 16 KiB of it in stack-copy mode (profile.stack_copy), so
 * that every copy size is filled.
 * Prints "deepstack: frames=F rounds=R checksum=X".
 */
#include "../workloads/workload.h"

#define FRAME_BYTES 1024

/* The work at the bottom, so most samples see the whole recursion. */
FRAME static uint64_t deepstack_leaf(uint64_t x)
{
	return xorshift_rounds(x, 4096);
}

/* volatile: the buffer is really on the stack and really written. Using
 * it after the call keeps the call from becoming a tail call. */
FRAME static uint64_t deepstack_frame(unsigned level, uint64_t x)
{
	volatile unsigned char pad[FRAME_BYTES];

	for (unsigned i = 0; i < FRAME_BYTES; i += 64)
		pad[i] = (unsigned char)(x + i);
	x = level > 1 ? deepstack_frame(level - 1, x * 31 + level) : deepstack_leaf(x);
	return x ^ pad[(level * 64) % FRAME_BYTES];
}

int main(int argc, char **argv)
{
	unsigned frames = (unsigned)arg_long(argc, argv, 1, 32, 1, 64);
	long rounds = arg_long(argc, argv, 2, 1000, 1, 100000000);
	uint64_t x = FNV_OFFSET;

	for (long r = 0; r < rounds; r++)
		x = fnv1a_u64(x, deepstack_frame(frames, (uint64_t)r));
	printf("deepstack: frames=%u rounds=%ld checksum=%016llx\n", frames, rounds,
	       (unsigned long long)x);
	return 0;
}
