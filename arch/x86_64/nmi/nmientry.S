/*
 * The NMI entry: its own path, not trap_entry's.
 *
 * The IDT gate runs it on IST1, a stack of its own, so it starts on a good
 * stack even when the NMI hit the first instructions of the syscall entry
 * (user rsp still loaded). It does no swapgs and calls nothing that reads
 * GS: the GS base may be the user's or the kernel's depending on where the
 * NMI landed, and nothing here needs to know (arch_cpu_id reads
 * TSC_AUX). Nor does its exit run return-to-user work: an NMI is no
 * return path; the sampler asks for work with a self-IPI instead.
 *
 * Nesting: the CPU blocks further NMIs from delivery until the next IRET.
 * That IRET must be this path's: if an exception inside the handler
 * returned with IRET, NMIs would be unblocked while this frame is live on
 * IST1, and the next NMI would start again at the top of IST1, on top of
 * it. So the handler takes no exception: it reads memory only after a
 * bounds check (kern/unwind/kernel.c) and uses no debug breakpoints. An NMI that
 * arrives during this exit, before or at its IRET, stays pending and is
 * delivered right after the IRET, with the interrupted context (not this
 * code) as its frame: back-to-back, never nested.
 *
 * The frame is a struct trap_frame (vector 2, error 0) so handlers set
 * with trap_set_handler(VEC_NMI, fn) see the same layout as every trap.
 * Its CFI is for debuggers only (trap.h): the kernel unwinder recognises
 * nmi_return, the return address of the call, and reads the interrupted
 * context from the frame.
 */
#include <arch/trap.h>

	.cfi_sections .debug_frame

	.text
	.globl nmi_entry
	.p2align 4
nmi_entry:
	.cfi_startproc simple
	CFI_TRAP_FRAME 40
	pushq $0
	.cfi_adjust_cfa_offset 8
	pushq $VEC_NMI
	.cfi_adjust_cfa_offset 8
	PUSH_GPRS
	/* The gate keeps RFLAGS.AC: ring 3 may have set it, or the NMI may
	 * have hit a user-access helper. Close SMAP for the handler, as the
	 * trap entry does; iretq gives the interrupted code its AC back. */
	testb $1, uaccess_smap(%rip)
	jz 1f
	clac
1:	cld
	movq %rsp, %rdi
	call nmi_dispatch
.Lnmi_return:
	nop /* the return address is nmi_entry's (trap.h) */

	.globl nmi_exit
nmi_exit:
	POP_GPRS
	addq $16, %rsp /* vector and error code */
	.cfi_adjust_cfa_offset -16
	iretq
	.cfi_endproc

/* The return address of nmi_entry's call: a struct trap_frame is at sp
 * (arch/x86_64/unwind/unwind.c). */
	.section .rodata
	.p2align 3
	.globl nmi_return
nmi_return:
	.quad .Lnmi_return
