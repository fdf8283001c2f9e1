/*
 * The trap path: 256 stubs, one common entry, one common exit.
 */
#include <arch/trap.h>

	.cfi_sections .debug_frame /* for debuggers only: trap.h */

/*
 * 256 stubs of 16 bytes each: the stub of vector v is at trap_stubs + 16 v.
 * Each pushes a zero where the CPU pushes no error code, then the vector
 * (at most 2 + 5 + 5 bytes).
 */
	.text
	.p2align 4
	.globl trap_stubs
trap_stubs:
	.set vec, 0
	.rept 256
	.p2align 4
	.if (vec == 8) || (vec >= 10 && vec <= 14) || (vec == 17) || (vec == 21) || (vec == 29) || (vec == 30)
	.else
	pushq $0
	.endif
	pushq $vec
	jmp trap_entry
	.set vec, vec + 1
	.endr

/* Stack on entry: vector, error code, then the CPU's rip, cs, rflags, rsp,
 * ss. The CPU aligned rsp to 16 before its pushes; 22 quadwords keep it
 * aligned for the call. (The stubs above have no CFI: gdb sees a trap from
 * here on.) */
	.globl trap_entry
trap_entry:
	.cfi_startproc simple
	CFI_TRAP_FRAME 56
	/* From ring 3 (cs above vector, error code, rip): the kernel's GS. */
	testb $3, 24(%rsp)
	jz 1f
	swapgs
1:	/* An interrupt gate keeps RFLAGS.AC: ring 3 (or a user-access helper
	 * that was interrupted) may have left it set, which would open SMAP
	 * for this whole trap. iretq restores the caller's AC. */
	testb $1, uaccess_smap(%rip)
	jz 2f
	clac
.Lac_closed:
2:	PUSH_GPRS
	cld
	movq %rsp, %rdi
	call trap_dispatch
.Ltrap_return:
	nop /* the return address is trap_entry's (trap.h) */

	/*
	 * The one exit. Returning to ring 3 will pass here too: the checks
	 * for pending work (task work, deferred unwinds) belong at the end
	 * of trap_dispatch, before this point, where C can run them.
	 */
	.globl trap_exit
trap_exit:
	POP_GPRS
	addq $16, %rsp /* vector and error code */
	.cfi_adjust_cfa_offset -16
	testb $3, 8(%rsp) /* to ring 3: the user's GS */
	jz 3f
	swapgs
3:	iretq
	.cfi_endproc

/* From the first stub to the clac: where a trap may still run with the
 * AC flag it came with (arch/x86_64/nmi/nmi.c checks). */
	.section .rodata
	.p2align 3
	.globl trap_ac_window
trap_ac_window:
	.quad trap_stubs, .Lac_closed

/* The return address of trap_entry's call: a struct trap_frame is at sp
 * (arch/x86_64/unwind/unwind.c). */
	.globl trap_return
trap_return:
	.quad .Ltrap_return

