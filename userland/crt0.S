/*
 * _start: the ELF entry point of every Stitch program.
 *
 * The kernel enters here in ring 3 with the stack pointer 16-byte aligned,
 * pointing at argc, argv[], NULL, envp[] (docs/USERLAND.md): 8-byte words
 * in a 64-bit program, 4-byte words in a 32-bit (i386) one, which is what
 * a long is to stitch_start in either. We hand that pointer to C.
 *
 * The unwind tables the kernel reads (.sframe, .eh_frame) have no entry
 * for _start: a user-stack unwinder that reaches the return address into
 * _start finds none and stops there. _start is the bottom of every user
 * call chain. (binutils 2.40 ignores .cfi_undefined rip when it writes
 * SFrame, so the usual way to mark the outermost frame would turn into a
 * bogus "CFA = sp + 8" row; mk/userland.mk assembles this file without
 * --gsframe.) Debuggers read .debug_frame too: there the CFI below says
 * that _start has no return address (DWARF 5, 6.4.4: an undefined return
 * address register ends the virtual unwind), so gdb's backtrace ends here instead
 * of guessing frames beyond it.
 */
	.cfi_sections .debug_frame
	.text
	.globl	_start
	.type	_start, @function
_start:
	.cfi_startproc
#if defined(__x86_64__)
	.cfi_undefined rip
	xorl	%ebp, %ebp		/* no caller frame, for debuggers */
	movq	%rsp, %rdi		/* stitch_start(long *sp) */
	call	stitch_start		/* pushes 8: callee sees the ABI alignment */
#else
	/* i386: the argument goes on the stack, and the ABI wants esp
	 * 16-byte aligned at the call (whatever the kernel gave us). */
	.cfi_undefined eip
	xorl	%ebp, %ebp		/* no caller frame, for debuggers */
	movl	%esp, %eax		/* stitch_start(long *sp) */
	andl	$-16, %esp
	subl	$12, %esp
	pushl	%eax
	call	stitch_start
#endif
	ud2				/* stitch_start never returns */
	.cfi_endproc
	.size	_start, . - _start

	.section .note.GNU-stack, "", @progbits
