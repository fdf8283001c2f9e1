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
 * Its CFI is for debuggers only (trap.h): a kernel unwind ends at the
 * entry (kern/unwind/kernel.h), at the return address of its call.
 */
#include "arch/x86_64/cpu/gdt.h"
#include <arch/trap.h>
#include <arch/task.h>

	.cfi_sections .debug_frame

/* The frame, from the registers SYSCALL left: the CPU's part (cs is the
 * selector the caller ran on) and the vector, then the registers. */
.macro SYSCALL_FRAME cs, vector
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa %rsp, 0
	.cfi_register %rip, %rcx
	swapgs
	movq %rsp, %gs:CPU_USER_RSP
	movq %gs:CPU_KSTACK_TOP, %rsp
	.cfi_undefined %rip
	pushq $(SEG_UDATA | 3)      /* ss */
	pushq %gs:CPU_USER_RSP      /* rsp */
	pushq %r11                  /* rflags */
	pushq $(\cs | 3)            /* cs */
	pushq %rcx                  /* rip */
	CFI_TRAP_FRAME 40
	pushq $0                    /* error */
	.cfi_adjust_cfa_offset 8
	pushq $\vector              /* vector */
	.cfi_adjust_cfa_offset 8
	PUSH_GPRS
	movq %rsp, %rdi
.endm

	.text
	.globl syscall_entry
syscall_entry:
	/* Until the frame holds them, the caller's pc is in rcx and its sp
	 * in rsp, then only in the per-CPU block: no caller for gdb there. */
	SYSCALL_FRAME SEG_UCODE, VEC_SYSCALL
	call x86_syscall
	nop /* the return address is syscall_entry's (trap.h) */
	.globl syscall_exit
syscall_exit:
	/* x86_syscall returns with interrupts off, and false when the frame
	 * cannot go back by SYSRET: then the trap exit irets. */
	testb %al, %al
	jz trap_exit
	POP_GPRS
	addq $16, %rsp              /* vector, error */
	.cfi_adjust_cfa_offset -16
	movq 0(%rsp), %rcx          /* rip */
	movq 16(%rsp), %r11         /* rflags */
	movq 24(%rsp), %rsp         /* the user stack, from here on */
	.cfi_def_cfa %rsp, 0
	.cfi_register %rip, %rcx
	swapgs
	sysretq
	.cfi_endproc

/* SYSCALL from compatibility mode (MSR_CSTAR): refused, the caller
 * killed (x86_syscall32); what is left of the way out is the trap
 * exit's iret. */
	.globl syscall32_entry
syscall32_entry:
	SYSCALL_FRAME SEG_UCODE32, VEC_SYSCALL32
	call x86_syscall32
	nop /* the return address is syscall32_entry's (trap.h) */
	jmp trap_exit
	.cfi_endproc

	.section .note.GNU-stack, "", @progbits
