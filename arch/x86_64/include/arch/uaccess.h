/*
 * The three instructions that touch user memory (usercopy.S), each with a
 * fixup: a fault on them that the demand pager cannot satisfy resumes at
 * the fixup, which returns an error instead of oopsing. kern/mm/uaccess.c
 * checks ranges and builds the kernel's API on these.
 */
#ifndef ARCH_X86_64_UACCESS_H
#define ARCH_X86_64_UACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/task.h>
#include <arch/trap.h>

/* Copies n bytes; returns how many were NOT copied (0: all). */
uint64_t arch_copy_user(void *dst, const void *src, uint64_t n);
/* Copies bytes up to and including a NUL, at most max: returns the NUL's
 * index (< max), max if there was none, -1 on a fault. */
long arch_strncpy_user(char *dst, const char *src, uint64_t max);
/* One aligned or unaligned 8-byte load: 0, or -1 on a fault. */
int arch_get_user_u64(uint64_t *dst, const void *src);

/* Is rip one of the user-access instructions? */
bool uaccess_insn(uint64_t rip);
/* If tf faulted on a user-access instruction: point it at the fixup. */
bool uaccess_fixup(struct trap_frame *tf);

/* Set by arch_proc_init when SMAP is on: the helpers then bracket their
 * access with stac/clac (which fault on CPUs without SMAP). */
extern uint8_t uaccess_smap;

/*
 * The window for arch_user_load (arch/x86_64/include/arch/user_load.h): between begin
 * and end, ring 0 may touch user pages. This CPU's cpu_local.uaccess_open
 * is set before stac and cleared after clac, so that an NMI that finds AC
 * set in the code it interrupted knows whether a window is open (nmi.c). Keep
 * windows short, with no call that may schedule inside: an exception in
 * the window clears AC on entry and its iret restores it.
 */
static inline void arch_user_access_begin(void)
{
	__atomic_store_n(&this_cpu_local()->uaccess_open, 1, __ATOMIC_RELAXED);
	__asm__ volatile("" ::: "memory");
	if (uaccess_smap)
		__asm__ volatile("stac" ::: "memory");
}

static inline void arch_user_access_end(void)
{
	if (uaccess_smap)
		__asm__ volatile("clac" ::: "memory");
	__asm__ volatile("" ::: "memory");
	__atomic_store_n(&this_cpu_local()->uaccess_open, 0, __ATOMIC_RELAXED);
}

#endif
