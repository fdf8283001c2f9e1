/*
 * What the kernel unwinder (kern/unwind/kernel.c) asks of the
 * architecture (arch/x86_64/unwind/). The stacks the arch code owns (boot,
 * IST): true and [*lo, *hi) if sp lies in one. The trap path's exit
 * addresses: if pc is one, a struct trap_frame starts at sp; read it with
 * read() and set *f to the interrupted context. Returns 1 for a kernel
 * context, -1 if the trap came from user mode or the frame is unreadable
 * (the walk ends), 0 if pc is no trap exit.
 */
#ifndef ARCH_UNWIND_KERNEL_H
#define ARCH_UNWIND_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sframe/sframe.h"

bool arch_stack_bounds(uint64_t sp, uint64_t *lo, uint64_t *hi);
int arch_unwind_trap(uint64_t pc, uint64_t sp, sf_read_fn read, void *ctx,
		     struct sf_frame *f);

/* The current pc, sp and fp, all three taken at the same instruction, so
 * the SFrame row of that pc describes them (always inlined: the frame is
 * the caller's). */
__attribute__((always_inline)) static inline void
arch_current_frame(struct sf_frame *f)
{
	__asm__ volatile("leaq 1f(%%rip), %0\n"
			 "1:\tmovq %%rsp, %1\n\t"
			 "movq %%rbp, %2"
			 : "=r"(f->pc), "=r"(f->sp), "=r"(f->fp));
	f->caller = false;
}

#endif
