/*
 * The kernel's entry point, jumped to by the loader with rdi = physical
 * address of struct boot_info, interrupts off, on the loader's stack.
 * Its CFI is for debuggers only (arch/x86_64/include/arch/trap.h).
 */
	.cfi_sections .debug_frame
	.section .text.entry, "ax"
	.globl _start
_start:
	.cfi_startproc simple
	.cfi_undefined %rip /* the outermost frame, for debuggers */
	cli
	leaq boot_stack_top(%rip), %rsp
	xorl %ebp, %ebp /* the end of every frame-pointer chain */
	call kmain
1:	hlt
	jmp 1b
	.cfi_endproc

	.bss
	.p2align 12
	.globl boot_stack, boot_stack_top
boot_stack:
	.skip 65536
boot_stack_top:
