/* The C halves of the system-call entries: SYSCALL (syscallentry.S), its
 * compatibility-mode twin, and int $0x80 (docs/PROCESSES.md, "32-bit
 * programs"). */
#include <arch/arch.h>
#include "arch/x86_64/cpu/gdt.h"
#include <arch/task.h>
#include "kern/proc/entry.h"
#include "kern/proc/syscall.h"
#include "kern/mm/uvm.h"
#include "kern/lib/stats.h"
#include "kern/proc/signal.h"
#include "kern/proc/task.h"

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

/* int $0x80, through the trap path (trap_dispatch does the entry and exit
 * work): the i386 convention, eax = number, ebx, ecx, edx, esi, edi, ebp
 * the arguments, the result in eax. Only the low halves count, whatever
 * mode the caller is in: kern/proc/syscall.c widens them. */
void x86_int80(struct trap_frame *tf)
{
	irq_enable();
	const uint32_t reg[6] = {
		(uint32_t)tf->rbx, (uint32_t)tf->rcx, (uint32_t)tf->rdx,
		(uint32_t)tf->rsi, (uint32_t)tf->rdi, (uint32_t)tf->rbp,
	};
	tf->rax = (uint64_t)syscall_dispatch_compat((int32_t)tf->rax, reg);
}

/* SYSCALL in compatibility mode: no such system call ABI here (an Intel
 * CPU raises #UD for it, which ends the program with SIGILL too). */
void x86_syscall32(struct trap_frame *tf)
{
	enter_from_user_mode(tf);
	irq_enable();
	stat_inc(STAT_COMPAT_SYSCALL_INSN);
	task_kill(current, SIGILL, "syscall in 32-bit mode", tf->rip, 0);
	exit_to_user_mode(tf);
}
