/*
 * memset, memcpy and memmove with the string instructions: eight bytes a
 * step (rep stosq, rep movsq), then the last n % 8 bytes with the byte
 * forms. Under QEMU -icount every step of a rep instruction is one
 * instruction, so zeroing a 4 KiB page costs about 520 of them where a C
 * byte loop cost 16 K (docs/BENCHMARKS.md has the demand-zero fault's
 * cost). Unaligned addresses are fine for the string instructions.
 *
 * The direction flag is clear on entry: the ABI says so at every call,
 * and every way into the kernel clears it (cld in trapentry.S and
 * nmientry.S, DF in the SYSCALL mask), so an interrupted backward copy
 * does not leak its set flag into a handler.
 */
#include <stdint.h>

#include "kern/lib/string.h"

void *memset(void *dst, int c, size_t n)
{
	uint64_t v = (uint8_t)c * 0x0101010101010101ull;
	void *d = dst;
	size_t q = n / 8, r = n % 8;
	__asm__ volatile("rep stosq" : "+D"(d), "+c"(q) : "a"(v) : "memory");
	__asm__ volatile("rep stosb" : "+D"(d), "+c"(r) : "a"(v) : "memory");
	return dst;
}

/* Low to high: also right for overlapping buffers when dst < src. */
static void copy_up(void *dst, const void *src, size_t n)
{
	size_t q = n / 8, r = n % 8;
	__asm__ volatile("rep movsq" : "+D"(dst), "+S"(src), "+c"(q) : : "memory");
	__asm__ volatile("rep movsb" : "+D"(dst), "+S"(src), "+c"(r) : : "memory");
}

void *memcpy(void *restrict dst, const void *restrict src, size_t n)
{
	copy_up(dst, src, n);
	return dst;
}

/*
 * High to low, for dst above an overlapping src: with DF set, first the
 * n % 8 bytes at the top (rep movsb leaves rsi/rdi one below them), then
 * the quadwords, whose first one ends where those bytes began.
 */
static void copy_down(void *dst, const void *src, size_t n)
{
	const char *s = (const char *)src + n - 1;
	char *d = (char *)dst + n - 1;
	size_t q = n / 8, r = n % 8;
	__asm__ volatile("std\n\t"
			 "rep movsb\n\t"
			 "sub $7, %%rsi\n\t"
			 "sub $7, %%rdi\n\t"
			 "mov %3, %%rcx\n\t"
			 "rep movsq\n\t"
			 "cld"
			 : "+D"(d), "+S"(s), "+c"(r)
			 : "r"(q)
			 : "memory", "cc");
}

void *memmove(void *dst, const void *src, size_t n)
{
	uintptr_t d = (uintptr_t)dst, s = (uintptr_t)src;
	if (d - s >= n)	/* dst below src, or no overlap */
		copy_up(dst, src, n);
	else
		copy_down(dst, src, n);
	return dst;
}
