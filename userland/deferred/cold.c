/*
 * cold [rounds]: a program whose unwind needs memory it never touched
 * itself, and which an NMI therefore cannot read:
 *
 *   - its .sframe section: no program reads its own, so the first deferred
 *     unwind faults every page of it in (unwind_page_faults). The 256
 *     cold_table functions make it several pages, most of which no other
 *     data shares;
 *   - its stack: cold_big's frames hold 16 KiB of array it never writes
 *     (Debian's gcc does no stack-clash probing), so the pages between
 *     a callee's frame and cold_big's return address were never mapped.
 *     A stack copy taken in the NMI (stack-copy, validate) stops at the
 *     first of them (stack_copy_truncated); the deferred SFrame unwind
 *     reads only the slots it needs (return addresses, saved registers),
 *     which the calls wrote.
 *
 * The sampled stack is main -> cold_run -> cold_big -> cold_big -> cold_mid
 * -> cold_leaf. Prints "cold: rounds=R result=X".
 */
#include "../workloads/workload.h"

#define COLD_PAD 16384

FRAME static uint64_t cold_leaf(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	return x;
}

/* 256 small functions: SFrame rows enough for several pages of .sframe. */
#define COLD_FN(n)                                                      \
	FRAME static uint64_t cold_fn##n(uint64_t x)                    \
	{                                                               \
		return (x ^ (x >> ((n) % 31 + 1))) * (2 * (n) + 1);       \
	}
#define COLD_FN4(n) COLD_FN(n##0) COLD_FN(n##1) COLD_FN(n##2) COLD_FN(n##3)
#define COLD_FN16(n) COLD_FN4(n##0) COLD_FN4(n##1) COLD_FN4(n##2) COLD_FN4(n##3)
COLD_FN16(10) COLD_FN16(11) COLD_FN16(12) COLD_FN16(13)
COLD_FN16(20) COLD_FN16(21) COLD_FN16(22) COLD_FN16(23)
COLD_FN16(30) COLD_FN16(31) COLD_FN16(32) COLD_FN16(33)
COLD_FN16(40) COLD_FN16(41) COLD_FN16(42) COLD_FN16(43)

#define COLD_REF(n) cold_fn##n,
#define COLD_REF4(n) COLD_REF(n##0) COLD_REF(n##1) COLD_REF(n##2) COLD_REF(n##3)
#define COLD_REF16(n) COLD_REF4(n##0) COLD_REF4(n##1) COLD_REF4(n##2) COLD_REF4(n##3)
static uint64_t (*const cold_table[])(uint64_t) = {
	COLD_REF16(10) COLD_REF16(11) COLD_REF16(12) COLD_REF16(13)
	COLD_REF16(20) COLD_REF16(21) COLD_REF16(22) COLD_REF16(23)
	COLD_REF16(30) COLD_REF16(31) COLD_REF16(32) COLD_REF16(33)
	COLD_REF16(40) COLD_REF16(41) COLD_REF16(42) COLD_REF16(43)
};

FRAME static uint64_t cold_mid(uint64_t x)
{
	x = cold_table[x % (sizeof cold_table / sizeof cold_table[0])](x);
	return cold_leaf(x) + 1; /* no tail call: cold_mid keeps its frame */
}

/* Only the array's lowest bytes are written: the pages above them, up to
 * the return address, stay unmapped. */
FRAME static uint64_t cold_big(int depth, uint64_t x)
{
	volatile unsigned char pad[COLD_PAD];
	pad[0] = (unsigned char)x;
	x = depth > 1 ? cold_big(depth - 1, x) : cold_mid(x);
	return x + pad[0];
}

FRAME static uint64_t cold_run(long rounds)
{
	uint64_t x = 1;
	for (long r = 0; r < rounds; r++)
		x += cold_big(2, x + (uint64_t)r);
	return x;
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 200, 1, 100000000);
	printf("cold: rounds=%ld result=%llu\n", rounds,
	       (unsigned long long)cold_run(rounds));
	return 0;
}
