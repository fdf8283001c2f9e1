/*
 * The SYSCALL entry. The CPU has put the user rip in rcx and rflags in
 * r11, loaded the kernel CS/SS from STAR and cleared the FMASK bits
 * (IF, TF, DF, AC, NT): interrupts are off until the C side enables them.
 * rsp is still the user's: swapgs gives us the per-CPU block, which holds
 * the current task's kernel stack top.
 *
 * The frame built there is a struct trap_frame, exactly as an interrupt
 * from ring 3 leaves it (vector VEC_SYSCALL), so every user frame sits at
 * the top of its task's kernel stack whatever the way in.
 *
 * No CFI on purpose: a kernel unwind ends at the entry (kern/kunwind.h);
 * the return address syscall_exit marks a trap_frame at sp.
 */
#include "arch/x86_64/gdt.h"
#include "arch/x86_64/trap.h"
#include "arch/x86_64/task.h"

	.text
	.globl syscall_entry
syscall_entry:
	swapgs
	movq %rsp, %gs:CPU_USER_RSP
	movq %gs:CPU_KSTACK_TOP, %rsp
	pushq $(SEG_UDATA | 3)      /* ss */
	pushq %gs:CPU_USER_RSP      /* rsp */
	pushq %r11                  /* rflags */
	pushq $(SEG_UCODE | 3)      /* cs */
	pushq %rcx                  /* rip */
	pushq $0                    /* error */
	pushq $VEC_SYSCALL          /* vector */
	PUSH_GPRS
	movq %rsp, %rdi
	call x86_syscall
	.globl syscall_exit
syscall_exit:
	/* x86_syscall returns with interrupts off, and false when the frame
	 * cannot go back by SYSRET: then the trap exit irets. */
	testb %al, %al
	jz trap_exit
	POP_GPRS
	addq $16, %rsp              /* vector, error */
	movq 0(%rsp), %rcx          /* rip */
	movq 16(%rsp), %r11         /* rflags */
	movq 24(%rsp), %rsp         /* the user stack, from here on */
	swapgs
	sysretq

	.section .note.GNU-stack, "", @progbits
