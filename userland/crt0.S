/*
 * _start: the ELF entry point of every Stitch program.
 *
 * The kernel enters here in ring 3 with rsp 16-byte aligned, pointing at
 * argc, argv[], NULL, envp[] (docs/USERLAND.md). We hand that pointer to C.
 *
 * Deliberately no CFI here: _start then has no SFrame FDE, so a user-stack
 * unwinder that reaches the return address into _start finds no entry and
 * stops there. _start is the bottom of every user call chain. (binutils
 * 2.40 ignores .cfi_undefined rip when it writes SFrame, so the usual way to
 * mark the outermost frame would turn into a bogus "CFA = sp + 8" row.)
 */
	.text
	.globl	_start
	.type	_start, @function
_start:
	xorl	%ebp, %ebp		/* no caller frame, for debuggers */
	movq	%rsp, %rdi		/* stitch_start(long *sp) */
	call	stitch_start		/* pushes 8: callee sees the ABI alignment */
	ud2				/* stitch_start never returns */
	.size	_start, . - _start

	.section .note.GNU-stack, "", @progbits
