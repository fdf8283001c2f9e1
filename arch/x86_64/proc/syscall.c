/* The C half of the SYSCALL entry (syscallentry.S). */
#include <arch/arch.h>
#include "arch/x86_64/cpu/gdt.h"
#include <arch/task.h>
#include "kern/proc/entry.h"
#include "kern/proc/syscall.h"
#include "kern/mm/uvm.h"

/*
 * SYSRET loads rip from rcx and rflags from r11, and Intel CPUs take a #GP
 * in ring 0 when rcx is not canonical: only a frame that SYSRET restores
 * exactly, with rip inside the user range, goes back that way. Anything
 * else (a frame someone rewrote) takes the iret of the trap exit.
 */
static bool sysret_ok(const struct trap_frame *tf)
{
	return tf->cs == (SEG_UCODE | 3) && tf->ss == (SEG_UDATA | 3) &&
	       tf->rip < USER_END && tf->rcx == tf->rip && tf->r11 == tf->rflags;
}

bool x86_syscall(struct trap_frame *tf)
{
	enter_from_user_mode(tf);
	irq_enable();
	const long arg[6] = {
		(long)tf->rdi, (long)tf->rsi, (long)tf->rdx,
		(long)tf->r10, (long)tf->r8, (long)tf->r9,
	};
	tf->rax = (uint64_t)syscall_dispatch((long)tf->rax, arg);
	exit_to_user_mode(tf);
	return sysret_ok(tf);
}
