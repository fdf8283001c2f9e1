/*
 * The signal page: the one piece of code every process has that it did
 * not link, mapped by the kernel at STITCH_SIGPAGE_ADDR (kern/proc/signal.c).
 * A handler returns here, onto struct stitch_sigframe (stitch/signal.h),
 * and the trampoline asks the kernel to put the interrupted context back.
 *
 * Its unwind tables say where that context is. .eh_frame: this FDE is a
 * signal frame ('S' augmentation, from .cfi_signal_frame) whose CFA is the
 * end of the saved registers, each at its offset; a DWARF unwinder (libdw)
 * follows it into the interrupted function, whose pc it then takes as
 * exact, not as a return address. .sframe: gas 2.40 cannot mark a signal
 * trampoline, so the build rewrites the section as SFrame version 3 with
 * the mark (`sframe convert --signal`, mk/sigpage.mk); the kernel's unwinder
 * then reads the registers from the frame (kern/unwind/user.c).
 *
 * The FDE and the symbol start one byte before the trampoline's first
 * instruction (STITCH_SIGPAGE_TRAMPOLINE, the handler's return address):
 * an unwinder or symboliser looks a caller's frame up at its return
 * address less one, which must land here (glibc's x86-64 __restore_rt
 * has the same nop, for the same reason).
 */
#include <stitch/signal.h>
#include <stitch/syscall.h>

/* A register's save slot as a CFA offset (the CFA is the end of sc). */
#define SLOT(n) (STITCH_SIGFRAME_SC + 8 * (n) - STITCH_SIGFRAME_CFA)

	.text
	.globl	__stitch_sigreturn
	.type	__stitch_sigreturn, @function
__stitch_sigreturn:
	.cfi_startproc simple
	.cfi_signal_frame
	.cfi_def_cfa	rsp, STITCH_SIGFRAME_CFA - STITCH_SIGFRAME_INFO
	.cfi_offset	r8, SLOT(0)
	.cfi_offset	r9, SLOT(1)
	.cfi_offset	r10, SLOT(2)
	.cfi_offset	r11, SLOT(3)
	.cfi_offset	r12, SLOT(4)
	.cfi_offset	r13, SLOT(5)
	.cfi_offset	r14, SLOT(6)
	.cfi_offset	r15, SLOT(7)
	.cfi_offset	rdi, SLOT(8)
	.cfi_offset	rsi, SLOT(9)
	.cfi_offset	rbx, SLOT(10)
	.cfi_offset	rdx, SLOT(11)
	.cfi_offset	rax, SLOT(12)
	.cfi_offset	rcx, SLOT(13)
	.cfi_offset	rsp, SLOT(16)
	.cfi_offset	rbp, SLOT(17)
	.cfi_offset	rip, SLOT(18)
	nop			/* one byte: the trampoline is at +1 */
	mov	$SYS_sigreturn, %eax
	syscall
	ud2			/* sigreturn never comes back here */
	.cfi_endproc
	.size	__stitch_sigreturn, . - __stitch_sigreturn
	.section .note.GNU-stack, "", @progbits
