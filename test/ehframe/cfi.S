/*
 * Hand-written CFI for test 28: each function describes its frame with
 * directives gcc rarely or never emits for ordinary C (remember/restore,
 * register rules, val_offset, signal frames, a personality and LSDA,
 * advances of 2 and 4 bytes, big and positive offsets, GNU_args_size, a
 * CFA expression), so that `ehframe check` compares them with libdw. The
 * program is never run: only its .eh_frame and .eh_frame_hdr are read.
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
	.cfi_undefined rip		/* the outermost frame */
	xorl	%ebp, %ebp
	call	f_frame
	movl	$60, %eax
	xorl	%edi, %edi
	syscall
	.cfi_endproc
	.size	_start, . - _start

/* A frame pointer, a body long enough for advance_loc2. */
f_frame:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	movq	%rsp, %rbp
	.cfi_def_cfa_register rbp
	.skip	300, 0x90
	leave
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc

/* An early return: remember_state around the first epilogue. */
f_remember:
	.cfi_startproc
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	pushq	%rbx
	.cfi_def_cfa_offset 24
	.cfi_offset rbx, -24
	testl	%edi, %edi
	je	1f
	.cfi_remember_state
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	.cfi_restore rbp
	ret
1:	.cfi_restore_state
	nop
	.cfi_remember_state
	.cfi_remember_state
	popq	%rbx
	.cfi_restore_state
	.cfi_restore_state
	popq	%rbx
	.cfi_def_cfa_offset 16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc

/* rbp kept in rbx for a while, then the same again; the RA moved into a
 * register and back. */
f_register:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset rbx, -16
	movq	%rbp, %rbx
	.cfi_register rbp, rbx
	nop
	movq	%rbx, %rbp
	.cfi_same_value rbp
	nop
	.cfi_register rip, r11
	nop
	.cfi_offset rip, -8
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc

/* rbp's value is the CFA less 16; rbp undefined. */
f_valoff:
	.cfi_startproc
	.cfi_val_offset rbp, -16
	nop
	.cfi_undefined rbp
	nop
	.cfi_restore rbp
	ret
	.cfi_endproc

/* A signal trampoline's frame ("zRS"). */
f_signal:
	.cfi_startproc
	.cfi_signal_frame
	nop
	ret
	.cfi_endproc

/* A personality and an LSDA ("zPLR"), both 4-byte absolute. */
f_personality:
	.cfi_startproc
	.cfi_personality 0x3, f_signal
	.cfi_lsda 0x3, lsda
	pushq	%rbp
	.cfi_def_cfa_offset 16
	.cfi_offset rbp, -16
	popq	%rbp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc

/* A big frame: a 3-byte ULEB128 offset and an advance_loc4. */
f_big:
	.cfi_startproc
	subq	$70000, %rsp
	.cfi_def_cfa_offset 70008
	.skip	70000, 0x90
	addq	$70000, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc

/* rbp saved above the CFA (offset_extended_sf), outgoing argument bytes
 * (GNU_args_size), a CFA offset set by hand (def_cfa_offset_sf is what
 * .cfi_escape writes here: -3 * -8 = 24). */
f_sf:
	.cfi_startproc
	.cfi_offset rbp, 8
	nop
	.cfi_escape 0x2e, 0x10
	nop
	.cfi_escape 0x13, 0x7d
	nop
	.cfi_escape 0x12, 0x06, 0x7e
	nop
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc

/* The CFA by a DWARF expression of the shape gcc writes around a stack
 * realignment, DW_OP_breg7 8; DW_OP_deref: ours follows it (a loaded
 * CFA), as libdw does. */
f_expr:
	.cfi_startproc
	nop
	.cfi_escape 0x0f, 0x03, 0x77, 0x08, 0x06
	nop
	.cfi_def_cfa rsp, 8
	ret
	.cfi_endproc

	.section .rodata
lsda:	.long	0

	.section .note.GNU-stack, "", @progbits
