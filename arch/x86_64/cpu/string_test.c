#include <stdint.h>

#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"

/*
 * memset, memcpy and memmove against byte-by-byte references, at every
 * alignment of source and destination mod 8, for every length that
 * exercises the quadword/byte split (0..40) and for a page and around it.
 * Bytes around the destination must keep their pattern.
 */
#define GUARD 16
#define BIG 4099
static uint8_t buf[2 * BIG + 5 * GUARD + 16], want[sizeof buf];

static const uint32_t lens[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 12, 15, 16, 17,
				 23, 24, 25, 31, 32, 33, 40, 4095, 4096, BIG };

/* The first len bytes of buf equal want's: the check covers the guards
 * around the destination, so a write past either end is caught. */
static bool same(uint32_t len)
{
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] != want[i])
			return false;
	return true;
}

static void reset(uint8_t seed, uint32_t len)
{
	ktest_fill(buf, len, seed);
	ktest_fill(want, len, seed);
}

KTEST(string_memset)
{
	for (uint32_t a = 0; a < 8; a++) {
		for (uint32_t k = 0; k < ARRAY_SIZE(lens); k++) {
			uint32_t n = lens[k];
			uint8_t *d = buf + GUARD + a;
			uint32_t len = n + 2 * GUARD + 8;
			reset((uint8_t)(a + k), len);
			for (uint32_t i = 0; i < n; i++)
				want[GUARD + a + i] = 0xa5;
			/* Only the low byte of c counts. */
			KASSERT(t, memset(d, 0x3a5, n) == d);
			KASSERT(t, same(len));
		}
	}
}

KTEST(string_memcpy)
{
	for (uint32_t sa = 0; sa < 8; sa++) {
		for (uint32_t da = 0; da < 8; da++) {
			for (uint32_t k = 0; k < ARRAY_SIZE(lens); k++) {
				uint32_t n = lens[k];
				/* src, then dst above it, each with its guards */
				uint32_t s = GUARD + sa, d = n + 3 * GUARD + 8 + da;
				uint32_t len = d + n + GUARD;
				reset((uint8_t)(sa * 8 + da + k), len);
				for (uint32_t i = 0; i < n; i++)
					want[d + i] = want[s + i];
				KASSERT(t, memcpy(buf + d, buf + s, n) == buf + d);
				KASSERT(t, same(len));
			}
		}
	}
}

/* Overlapping moves both ways, source and destination 0 to 12 bytes
 * apart: the result is what a copy through a third buffer gives. */
KTEST(string_memmove_overlap)
{
	static uint8_t tmp[BIG];
	for (int delta = -12; delta <= 12; delta++) {
		for (uint32_t a = 0; a < 8; a++) {
			for (uint32_t k = 0; k < ARRAY_SIZE(lens); k++) {
				uint32_t n = lens[k], s = GUARD + 12 + a, d = s + delta;
				uint32_t len = s + 12 + n + GUARD;
				reset((uint8_t)(delta + a + k), len);
				for (uint32_t i = 0; i < n; i++)
					tmp[i] = want[s + i];
				for (uint32_t i = 0; i < n; i++)
					want[d + i] = tmp[i];
				KASSERT(t, memmove(buf + d, buf + s, n) == buf + d);
				KASSERT(t, same(len));
			}
		}
	}
}

/* After a backward move the direction flag is clear again: the next
 * string instruction (here memset's) goes up. */
KTEST(string_memmove_leaves_df_clear)
{
	uint64_t flags;
	reset(7, 128);
	memmove(buf + 9, buf + 1, 100);
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	KEXPECT_EQ(t, flags & (1u << 10), 0);
}
