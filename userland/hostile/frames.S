/*
 * Code whose unwind information (CFI, hence SFrame: the SDK assembles with
 * --gsframe) describes an honest frame while the registers say otherwise:
 * what a hostile program shows a sampling profiler. Both functions spin on
 * the TSC until a deadline, so that sampling NMIs land inside them.
 */
	.text

/*
 * void spin_with_sp(uint64_t sp, uint64_t bp, uint64_t until_tsc)
 * A leaf: its SFrame row says CFA = rsp + 8, return address at CFA - 8.
 * It runs with rsp = sp and rbp = bp, then puts both back. The labels
 * *_loop and *_loop_end bound the instructions that run with the lie
 * (test/t/80-hostile.t picks the samples taken there).
 */
	.globl spin_with_sp, spin_with_sp_loop, spin_with_sp_loop_end
	.type spin_with_sp, @function
spin_with_sp:
	.cfi_startproc
	mov	%rdx, %rcx	/* rdtsc writes rdx */
	mov	%rsp, %r8
	mov	%rbp, %r9
	mov	%rdi, %rsp
	mov	%rsi, %rbp
spin_with_sp_loop:
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	cmp	%rcx, %rax
	jb	spin_with_sp_loop
spin_with_sp_loop_end:
	mov	%r8, %rsp
	mov	%r9, %rbp
	ret
	.cfi_endproc
	.size spin_with_sp, . - spin_with_sp

/*
 * void spin_with_frame(uint64_t fake_bp, uint64_t until_tsc)
 * A frame-pointer function: after its prologue the row says CFA = rbp +
 * 16, return address at CFA - 8, caller's rbp at CFA - 16. It spins with
 * rbp = fake_bp, so the unwinder follows whatever fake_bp points at.
 * spin_with_frame_loop is an address inside that row, for fake return
 * addresses that lead the unwinder back into the same rule.
 */
	.globl spin_with_frame, spin_with_frame_loop, spin_with_frame_loop_end
	.type spin_with_frame, @function
spin_with_frame:
	.cfi_startproc
	push	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset %rbp, -16
	mov	%rsp, %rbp
	.cfi_def_cfa_register %rbp
	mov	%rdi, %rbp
spin_with_frame_loop:
	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	cmp	%rsi, %rax
	jb	spin_with_frame_loop
spin_with_frame_loop_end:
	mov	%rsp, %rbp	/* rsp still points at the saved rbp */
	pop	%rbp
	.cfi_def_cfa %rsp, 8
	ret
	.cfi_endproc
	.size spin_with_frame, . - spin_with_frame

/*
 * void spin_plain(uint64_t until_tsc): an honest leaf (CFA = rsp + 8
 * throughout) without a single absolute address, so that h-sframe can run
 * a copy of it mapped elsewhere, described by a section of its own.
 */
	.globl spin_plain, spin_plain_end
	.type spin_plain, @function
spin_plain:
	.cfi_startproc
	mov	%rdi, %rcx
1:	rdtsc
	shl	$32, %rdx
	or	%rdx, %rax
	cmp	%rcx, %rax
	jb	1b
	ret
	.cfi_endproc
spin_plain_end:
	.size spin_plain, . - spin_plain

	.section .note.GNU-stack, "", @progbits
