/*
 * The kernel unwinds itself with its own .sframe section, the way Linux's
 * ORC unwinder does: the kernel is built with -fomit-frame-pointer and
 * -Wa,--gsframe, linker.ld keeps the merged section between
 * __sframe_start and __sframe_end, and kunwind_init() checks it once at
 * boot (a bad section panics: every later unwind trusts it).
 *
 * Every unwind reads only the kernel stack that holds the starting sp
 * (boot stack, an IST stack, or the current task's stack), after a bounds
 * check, so it never faults and may run in NMI context. It stops at the
 * first pc without an SFrame entry, which is how the assembly entry points
 * (_start, the trap stubs, the syscall entry) end every walk: the assembly
 * has no SFrame entries on purpose (its CFI is for gdb: mk/kernel.mk). A
 * return into the trap path's exit (a struct
 * trap_frame on the stack) continues into the interrupted kernel code, or
 * ends the walk if the trap came from user mode (docs/SAMPLING.md).
 */
#ifndef KERN_UNWIND_KERNEL_H
#define KERN_UNWIND_KERNEL_H

#include <stdbool.h>
#include <stdint.h>

#include "sframe/sframe.h"

/* Most frames a kernel callchain holds (the kernel's stacks are shallow). */
#define KUNWIND_MAX_FRAMES 48

/* A kernel stack: [lo, hi). */
struct kstack {
	uint64_t lo, hi;
};

/* Opens and validates the kernel's .sframe; panics if it is bad. */
void kunwind_init(void);

/*
 * The scheduler publishes the kernel stack of the task it switches to (one
 * pointer, so an NMI never sees half an update); NULL when the CPU runs on
 * the boot stack. The struct must stay valid while it is published.
 */
void kunwind_set_task_stack(const struct kstack *ks);

/*
 * Interrupted context (an NMI or a trap): ips[0] = ip, then the return
 * addresses, leaf first; at most max entries; returns how many. NMI-safe.
 */
int kunwind_from(uint64_t ip, uint64_t sp, uint64_t fp, uint64_t *ips,
		 int max);

/*
 * Software events: no fake registers ("Re: [RFC PATCH v2] perf/x86: make
 * perf callchain work without CONFIG_FRAME_POINTER", LKML, Apr 2019). Starts from this very
 * call, with the real pc, sp and fp, and drops frames until the one whose
 * sp reaches skip_sp. Pass KUNWIND_CALLER from a function F to get the
 * callchain of F's caller: ips[0] is the return address into it.
 */
int kunwind_here(uint64_t skip_sp, uint64_t *ips, int max);

/* The CFA of the function using it: the sp of its caller after return. */
#define KUNWIND_CALLER ((uint64_t)__builtin_dwarf_cfa())

/* Console backtraces (panic, trap dumps), one "  #n 0x..." line a frame. */
void kunwind_print_from(uint64_t ip, uint64_t sp, uint64_t fp);
void kunwind_print_here(uint64_t skip_sp);

/* The kernel's table: for tests that check which function an address is in. */
const struct sf_table *kunwind_table(void);

#endif
