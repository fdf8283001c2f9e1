/*
 * Kernel tests of the frame-pointer walk of a compat (i386) process
 * (kern/unwind/user.c, mm->compat): 4-byte frames, the saved ebp at [ebp]
 * and the return address at [ebp + 4], written into pages of a borrowed
 * address space below 4 GiB and walked as the NMI walks them (the task
 * work's walk takes the same steps with faulting reads). Frame pointers
 * that lie (a loop, a pointer above 4 GiB, a frame that straddles it,
 * misaligned) end the walk within the buffer's bound, and those that
 * reach 4 GiB are counted (unwind_compat_fp_refused).
 */
#include "kern/lib/ktest.h"
#include <arch/unwind_user.h>
#include "kern/lib/stats.h"
#include "kern/mm/mm.h"
#include "kern/mm/uaccess.h"
#include "kern/mm/uvm.h"
#include "kern/proc/task.h"
#include "kern/unwind/user.h"

#define PC0 0x8048100u
#define SENTINEL 0x5e5e5e5eu
/* Where the tests map their 32-bit stacks: below 4 GiB, above the
 * borrowed program's heap room, and one mapping across 4 GiB. */
#define LOW 0x80000000ull
#define TOP4G (1ull << 32)

/* A 4-byte frame at addr: the saved ebp (next) and the return address. */
static bool frame32(uint64_t addr, uint32_t next, uint32_t ra)
{
	uint32_t w[2] = { next, ra };
	_Static_assert(UNWIND_COMPAT_FP_NEXT == 0 && UNWIND_COMPAT_FP_RA == 4, "i386 frame layout");
	return copy_to_user(addr, w, sizeof w) == 0;
}

/* A borrowed address space made compat, with two writable pages at LOW
 * and three across 4 GiB (0xffffe000 .. 0x100001000), the two words
 * at 4 GiB written. */
static struct uvm *borrow_compat(struct ktest *t)
{
	uint64_t rw, ro;
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return NULL;
	/* Mapped as a 64-bit program may: a compat one's mmap stays below
	 * 4 GiB. */
	if (!KEXPECT(t, uvm_mmap(mm, LOW, 2 * PAGE_SIZE, VM_WRITE, NULL, 0) == (long)LOW &&
			uvm_mmap(mm, TOP4G - 2 * PAGE_SIZE, 3 * PAGE_SIZE, VM_WRITE, NULL, 0) ==
				(long)(TOP4G - 2 * PAGE_SIZE))) {
		ktest_return_mm(mm);
		return NULL;
	}
	/* What a walk that let the straddling frame below through would
	 * read as its return address, written while the range is 64-bit. */
	uint32_t above[2] = { 0x804c000, 0x804c000 };
	KEXPECT_EQ(t, copy_to_user(TOP4G, above, sizeof above), 0);
	mm->compat = true;
	return mm;
}

/* Walks from pc PC0, sp, ebp into ips (SENTINEL first); the frames. */
static uint32_t walk32(uint64_t sp, uint64_t fp, uint64_t *ips, uint32_t cap, uint32_t max)
{
	for (uint32_t i = 0; i < cap; i++)
		ips[i] = SENTINEL;
	struct sf_frame f = { .pc = PC0, .sp = sp, .fp = fp };
	return unwind_user_fp_nmi(&f, ips, max);
}

/* Three 8-byte frames, 4-byte aligned and only 8 bytes apart (a 64-bit
 * walk would read the next frame's words as one): the pc and three
 * return addresses, the outermost frame's ebp 0. */
KTEST(unwind_compat_fp_chain)
{
	uint64_t ips[8];
	struct uvm *mm = borrow_compat(t);
	if (!mm)
		return;
	uint64_t s = LOW + 0x104;
	KEXPECT(t, frame32(s, (uint32_t)(s + 8), 0x8049000) &&
		   frame32(s + 8, (uint32_t)(s + 16), 0x804a000) && frame32(s + 16, 0, 0x804b000));
	KEXPECT_EQ(t, walk32(LOW + 0x80, s, ips, 8, 8), 4);
	KEXPECT_EQ(t, ips[0], PC0);
	KEXPECT_EQ(t, ips[1], 0x8049000);
	KEXPECT_EQ(t, ips[2], 0x804a000);
	KEXPECT_EQ(t, ips[3], 0x804b000);
	KEXPECT_EQ(t, ips[4], SENTINEL);
	/* The same words walked as a 64-bit program's are another chain. */
	mm->compat = false;
	KEXPECT(t, walk32(LOW + 0x80, s, ips, 8, 8) != 4 || ips[1] != 0x8049000);
	ktest_return_mm(mm);
}

/* A chain longer than the buffer: max entries, not one more. */
KTEST(unwind_compat_fp_max)
{
	uint64_t ips[8];
	struct uvm *mm = borrow_compat(t);
	if (!mm)
		return;
	for (uint32_t i = 0; i < 64; i++)
		KEXPECT(t, frame32(LOW + 0x100 + 16 * i, (uint32_t)(LOW + 0x110 + 16 * i), 0x8049000 + i));
	KEXPECT_EQ(t, walk32(LOW + 0x80, LOW + 0x100, ips, 8, 5), 5);
	KEXPECT_EQ(t, ips[4], 0x8049003);
	KEXPECT_EQ(t, ips[5], SENTINEL);
	ktest_return_mm(mm);
}

/* Frame pointers that lie: a frame saving its own ebp (a loop), one
 * saving a lower one, a misaligned one: the walk stops at once (it only
 * ever moves up the stack), with the frames before the lie. */
KTEST(unwind_compat_fp_lies)
{
	uint64_t ips[8];
	struct uvm *mm = borrow_compat(t);
	if (!mm)
		return;
	uint64_t s = LOW + 0x200;
	KEXPECT(t, frame32(s, (uint32_t)s, 0x8049000));
	KEXPECT_EQ(t, walk32(LOW + 0x80, s, ips, 8, 8), 2);
	KEXPECT(t, frame32(s, (uint32_t)(s + 16), 0x8049000) &&
		   frame32(s + 16, (uint32_t)s, 0x804a000));
	KEXPECT_EQ(t, walk32(LOW + 0x80, s, ips, 8, 8), 3);
	KEXPECT_EQ(t, ips[3], SENTINEL);
	KEXPECT(t, frame32(s, (uint32_t)(s + 18), 0x8049000));
	KEXPECT_EQ(t, walk32(LOW + 0x80, s, ips, 8, 8), 2);
	ktest_return_mm(mm);
}

/* Frame pointers at or past 4 GiB: above it (as a 64-bit register may
 * hold), and a frame whose return address would be read across it, from
 * a mapping that is there to read (so that the check, not a fault, ends
 * the walk). Each is refused and counted; the last frame that lies
 * wholly below 4 GiB is walked. */
KTEST(unwind_compat_fp_4g)
{
	uint64_t ips[8];
	struct uvm *mm = borrow_compat(t);
	if (!mm)
		return;
	uint64_t refused = stat_total(STAT_UNWIND_COMPAT_FP_REFUSED);
	KEXPECT_EQ(t, walk32(LOW + 0x80, TOP4G + 0x100, ips, 8, 8), 1);
	KEXPECT_EQ(t, ips[1], SENTINEL);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_COMPAT_FP_REFUSED) - refused, 1);
	/* ebp 0xfffffffc: [ebp] below 4 GiB, [ebp + 4] past it. */
	uint64_t last = TOP4G - 8, straddle = TOP4G - 4;
	KEXPECT(t, frame32(TOP4G - 0x100, (uint32_t)straddle, 0x8049000));
	KEXPECT(t, frame32(last, 0, 0x804a000)); /* the highest whole frame */
	KEXPECT_EQ(t, walk32(TOP4G - 0x200, TOP4G - 0x100, ips, 8, 8), 2);
	KEXPECT_EQ(t, ips[1], 0x8049000);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_COMPAT_FP_REFUSED) - refused, 2);
	KEXPECT(t, frame32(TOP4G - 0x100, (uint32_t)last, 0x8049000));
	KEXPECT_EQ(t, walk32(TOP4G - 0x200, TOP4G - 0x100, ips, 8, 8), 3);
	KEXPECT_EQ(t, ips[2], 0x804a000);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_COMPAT_FP_REFUSED) - refused, 2);
	ktest_return_mm(mm);
}
