/*
 * Single user loads inside an open user-access window, after Linux's
 * user_read_access_begin() / unsafe_get_user() / user_access_end().
 *
 * A walk that reads many small fields of user memory (an SFrame lookup, a
 * stack walk) opens the SMAP window once (stac), does each read as one
 * 1, 2, 4 or 8-byte load, and closes it (clac). Each load is listed in
 * the .uaccess_fixups section, like usercopy.S's instructions: a fault on
 * it first goes to the demand pager, and if that cannot map the page,
 * resumes at the load's fixup, which makes it return false. Nothing is
 * copied through a buffer and nothing is called per read.
 *
 * Freestanding on purpose (stdint and stdbool only): the SFrame library
 * includes it through arch/x86_64/include/arch/sframe_load.h.
 */
#ifndef ARCH_X86_64_USER_LOAD_H
#define ARCH_X86_64_USER_LOAD_H

#include <stdbool.h>
#include <stdint.h>

/* The end of the user range (USER_END of kern/mm/uvm.h, asserted equal in
 * kern/mm/uaccess.c): no load reaches it. */
#define ARCH_USER_LOAD_END 0x00007ffffffff000ull

/* One entry of the fixup table: (faulting instruction, where to resume). */
#define ARCH_UACCESS_FIXUP(insn, fixup) \
	".pushsection .uaccess_fixups, \"a\"\n\t.balign 8\n\t" \
	".quad " insn ", " fixup "\n\t.popsection\n\t"

/* volatile: GCC 12 drops an asm goto whose outputs are unused, fault
 * path and all (the uaccess_user_loads kernel test caught it). */
#define ARCH_USER_LOAD_INSN(op, out, addr, fault)                           \
	__asm__ volatile goto("1: " op " (%1), %0\n\t" ARCH_UACCESS_FIXUP("1b", "%l2")   \
		 : "=r"(out) : "r"(addr) : : fault)

/* Whether [addr, addr + len) lies wholly in the user range. */
static inline __attribute__((always_inline)) bool
arch_user_range_ok(uint64_t addr, uint64_t len)
{
	return addr <= ARCH_USER_LOAD_END && len <= ARCH_USER_LOAD_END - addr;
}

/*
 * len (a constant 1, 2, 4 or 8) bytes at user address addr into dst,
 * which the caller has proved lie in the user range (arch_user_range_ok
 * of a range holding them): false when the page cannot be had. The
 * caller holds the window open (arch_user_access_begin).
 */
static inline __attribute__((always_inline)) bool
arch_user_load_in_range(uint64_t addr, uint32_t len, void *dst)
{
	switch (len) {
	case 1: {
		uint32_t v;
		ARCH_USER_LOAD_INSN("movzbl", v, addr, fault);
		*(uint8_t *)dst = (uint8_t)v;
		return true;
	}
	case 2: {
		uint32_t v;
		ARCH_USER_LOAD_INSN("movzwl", v, addr, fault);
		__builtin_memcpy(dst, &v, 2); /* little-endian: the low bytes */
		return true;
	}
	case 4: {
		uint32_t v;
		ARCH_USER_LOAD_INSN("movl", v, addr, fault);
		__builtin_memcpy(dst, &v, 4);
		return true;
	}
	case 8: {
		uint64_t v;
		ARCH_USER_LOAD_INSN("movq", v, addr, fault);
		__builtin_memcpy(dst, &v, 8);
		return true;
	}
	}
fault:
	return false;
}

/* The same for any address: false also when the range leaves user
 * memory. */
static inline __attribute__((always_inline)) bool
arch_user_load(uint64_t addr, uint32_t len, void *dst)
{
	/* addr + len <= the end, without overflow: len is a constant 1..8. */
	if (addr > ARCH_USER_LOAD_END - len)
		return false;
	return arch_user_load_in_range(addr, len, dst);
}

#endif
