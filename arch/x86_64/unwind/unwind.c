/*
 * What the kernel unwinder (kern/unwind/kernel.c) needs to know about x86_64:
 * which stacks exist before any task does, and how to cross a trap frame.
 *
 * SFrame cannot describe a trap frame (the interrupted sp is loaded from
 * the frame, not computed from the CFA), so the entry code has no SFrame
 * entry (its CFI, in .debug_frame, is for gdb: trap.h) and the unwinder
 * recognises the return address of its `call` instead, as ORC does with
 * its "regs" hint.
 */
#include <stddef.h>

#include <arch/arch.h>
#include "arch/x86_64/cpu/gdt.h"
#include "arch/x86_64/smp/smp.h"
#include <arch/trap.h>

extern char boot_stack[], boot_stack_top[];
/* The return addresses of `call trap_dispatch` and `call nmi_dispatch`. */
extern const uint64_t trap_return, nmi_return;

bool arch_stack_bounds(uint64_t sp, uint64_t *lo, uint64_t *hi)
{
	if (sp >= (uint64_t)boot_stack && sp <= (uint64_t)boot_stack_top) {
		*lo = (uint64_t)boot_stack;
		*hi = (uint64_t)boot_stack_top;
		return true;
	}
	return ist_stack_bounds(sp, lo, hi) || smp_stack_bounds(sp, lo, hi);
}

static bool read_word(sf_read_fn read, void *ctx, uint64_t addr, uint64_t *v)
{
	return read(ctx, addr, v, sizeof *v);
}

int arch_unwind_trap(uint64_t pc, uint64_t sp, sf_read_fn read, void *ctx,
		     struct sf_frame *f)
{
	uint64_t rip, cs, rsp, rbp;

	if (pc != trap_return && pc != nmi_return)
		return 0;
	if (!read_word(read, ctx, sp + offsetof(struct trap_frame, cs), &cs) ||
	    (cs & 3) == 3)
		return -1; /* the user part is the deferred unwinder's */
	if (!read_word(read, ctx, sp + offsetof(struct trap_frame, rip), &rip) ||
	    !read_word(read, ctx, sp + offsetof(struct trap_frame, rsp), &rsp) ||
	    !read_word(read, ctx, sp + offsetof(struct trap_frame, rbp), &rbp))
		return -1;
	/* rip is where the trap hit, not a return address: look it up as is. */
	f->pc = rip;
	f->sp = rsp;
	f->fp = rbp;
	f->caller = false;
	return 1;
}
