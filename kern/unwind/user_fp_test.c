/*
 * Kernel tests of the NMI's frame-pointer walk (unwind_user_fp_nmi,
 * kern/unwind/user.c) on a borrowed address space: chains of frames
 * written into its writable page, walked as the NMI walks them. The walk
 * may read only present pages (an NMI cannot take a page fault), must stop
 * at the buffer's end, at the outermost frame (rbp 0), at a frame that
 * does not move up the stack, and at anything it cannot read.
 */
#include "kern/lib/ktest.h"
#include <arch/unwind_user.h>
#include "kern/mm/mm.h"
#include "kern/mm/uaccess.h"
#include "kern/mm/uvm.h"
#include "kern/proc/task.h"
#include "kern/unwind/user.h"

#define PC0 0x400100u
#define SENTINEL 0x5e5e5e5eu

/* A frame at rw + at: the saved rbp (next) and the return address. */
static bool frame(uint64_t rw, uint64_t at, uint64_t next, uint64_t ra)
{
	uint64_t w[2] = { next, ra };
	_Static_assert(UNWIND_USER_FP_NEXT == 0 && UNWIND_USER_FP_RA == 8, "x86_64 frame layout");
	return copy_to_user(rw + at, w, sizeof w) == 0;
}

/* Three frames from rw + 0x100 up, the last one outermost (rbp 0). */
static bool three_frames(uint64_t rw)
{
	return frame(rw, 0x100, rw + 0x200, 0x401000) && frame(rw, 0x200, rw + 0x300, 0x402000) &&
	       frame(rw, 0x300, 0, 0x403000);
}

/* Walks from pc PC0, sp rw + 0x80, rbp rw + 0x100 into ips (filled with
 * SENTINEL first); returns the frames. */
static uint32_t walk(uint64_t rw, uint64_t *ips, uint32_t cap, uint32_t max)
{
	for (uint32_t i = 0; i < cap; i++)
		ips[i] = SENTINEL;
	struct sf_frame f = { .pc = PC0, .sp = rw + 0x80, .fp = rw + 0x100 };
	return unwind_user_fp_nmi(&f, ips, max);
}

/* The pc and three return addresses. */
KTEST(unwind_user_fp_chain)
{
	uint64_t rw, ro, ips[8];
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return;
	KEXPECT(t, three_frames(rw));
	KEXPECT_EQ(t, walk(rw, ips, 8, 8), 4);
	KEXPECT_EQ(t, ips[0], PC0);
	KEXPECT_EQ(t, ips[1], 0x401000);
	KEXPECT_EQ(t, ips[2], 0x402000);
	KEXPECT_EQ(t, ips[3], 0x403000);
	KEXPECT_EQ(t, ips[4], SENTINEL);
	ktest_return_mm(mm);
}

/* The buffer bounds the walk, however long the chain: max entries and
 * not one more (0 included). */
KTEST(unwind_user_fp_max)
{
	uint64_t rw, ro, ips[8];
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return;
	KEXPECT(t, three_frames(rw));
	KEXPECT_EQ(t, walk(rw, ips, 8, 2), 2);
	KEXPECT_EQ(t, ips[1], 0x401000);
	KEXPECT_EQ(t, ips[2], SENTINEL);
	KEXPECT_EQ(t, walk(rw, ips, 8, 1), 1);
	KEXPECT_EQ(t, ips[1], SENTINEL);
	KEXPECT_EQ(t, walk(rw, ips, 8, 0), 0);
	KEXPECT_EQ(t, ips[0], SENTINEL);
	ktest_return_mm(mm);
}

/* A saved rbp below the frame's own (a loop, or garbage in rbp on code
 * built without frame pointers) or misaligned ends the walk: a stack only
 * grows down, so a real chain only moves up. */
KTEST(unwind_user_fp_goes_up)
{
	uint64_t rw, ro, ips[8];
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return;
	KEXPECT(t, frame(rw, 0x100, rw + 0x200, 0x401000) && frame(rw, 0x200, rw + 0x100, 0x402000));
	uint32_t n = walk(rw, ips, 8, 8);
	KEXPECT(t, n >= 2 && n <= 3);
	KEXPECT_EQ(t, ips[1], 0x401000);
	KEXPECT(t, frame(rw, 0x200, rw + 0x301, 0x402000));
	n = walk(rw, ips, 8, 8);
	KEXPECT(t, n >= 2 && n <= 3);
	KEXPECT_EQ(t, ips[3], SENTINEL);
	ktest_return_mm(mm);
}

/* What the NMI cannot read ends the walk without a page fault: a page
 * mapped but never touched (not present), the hole after the writable
 * page, kernel memory. */
KTEST(unwind_user_fp_safe_reads)
{
	uint64_t rw, ro, ips[8];
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return;
	KEXPECT(t, frame(rw, 0x100, ro + 0x100, 0x401000));
	uint64_t faults = current->kernel_page_faults; /* the writes' own */
	KEXPECT_EQ(t, walk(rw, ips, 8, 8), 2);
	KEXPECT(t, frame(rw, 0x100, rw + PAGE_SIZE + 0x100, 0x401000));
	KEXPECT_EQ(t, walk(rw, ips, 8, 8), 2);
	KEXPECT(t, frame(rw, 0x100, (uint64_t)&ips[4], 0x401000));
	KEXPECT_EQ(t, walk(rw, ips, 8, 8), 2);
	KEXPECT_EQ(t, ips[2], SENTINEL);
	KEXPECT_EQ(t, current->kernel_page_faults, faults);
	ktest_return_mm(mm);
}
