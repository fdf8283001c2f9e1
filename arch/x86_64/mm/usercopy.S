/*
 * User-memory access. Each routine opens the SMAP window (stac) for
 * exactly one instruction or one rep string, closes it (clac) on every
 * way out, and lists its faulting instruction in uaccess_fixups: the page
 * fault handler first tries the demand pager (the page may simply not be
 * mapped yet), and if that fails resumes at the fixup.
 *
 * One FDE for all: leaves that push nothing (CFA = rsp + 8 throughout).
 * Unlike the entry stubs, it goes to .sframe as well as .debug_frame, so
 * that the kernel's own unwinder (kern/unwind/kernel.c) steps out of a copy to
 * the system call that asked for it: a sample taken during read()'s copy
 * shows file_read, x86_syscall and the entry, not the copy alone.
 */
	.cfi_sections .sframe, .debug_frame

/* stac/clac raise #UD on a CPU without SMAP: test the flag first. */
.macro UACCESS_OPEN
	testb $1, uaccess_smap(%rip)
	jz 1f
	stac
1:
.endm

.macro UACCESS_CLOSE
	testb $1, uaccess_smap(%rip)
	jz 1f
	clac
1:
.endm

	.text
.Luaccess_start:
	.cfi_startproc

/* uint64_t arch_copy_user(void *dst, const void *src, uint64_t n) */
	.globl arch_copy_user
arch_copy_user:
	movq %rdx, %rcx
	UACCESS_OPEN
.Lcopy:
	rep movsb
	UACCESS_CLOSE
	xorl %eax, %eax
	ret
.Lcopy_fault:
	UACCESS_CLOSE
	movq %rcx, %rax /* rep leaves the count still to do in rcx */
	ret

/* long arch_strncpy_user(char *dst, const char *src, uint64_t max) */
	.globl arch_strncpy_user
arch_strncpy_user:
	xorl %eax, %eax
	UACCESS_OPEN
2:	cmpq %rdx, %rax
	je 3f
.Lstr:
	movb (%rsi,%rax), %cl
	movb %cl, (%rdi,%rax)
	testb %cl, %cl
	jz 3f
	incq %rax
	jmp 2b
3:	UACCESS_CLOSE
	ret
.Lstr_fault:
	UACCESS_CLOSE
	movq $-1, %rax
	ret

/* int arch_get_user_u64(uint64_t *dst, const void *src) */
	.globl arch_get_user_u64
arch_get_user_u64:
	UACCESS_OPEN
.Lget:
	movq (%rsi), %rax
	UACCESS_CLOSE
	movq %rax, (%rdi)
	xorl %eax, %eax
	ret
.Lget_fault:
	UACCESS_CLOSE
	movl $-1, %eax
	ret
	.cfi_endproc
.Luaccess_end:

/* Pairs (faulting instruction, fixup), read by arch/x86_64/interrupts/fault.c; the
 * inline loads of user_load.h add theirs to the same section. */
	.section .uaccess_fixups, "a"
	.p2align 3
	.quad .Lcopy, .Lcopy_fault
	.quad .Lstr, .Lstr_fault
	.quad .Lget, .Lget_fault

/* [start, end) of the code above: kernel code that may run with SMAP open
 * outside an arch_user_access_begin/end window (arch/x86_64/nmi/nmi.c
 * checks). Data, not code labels, so that no symbol hides the functions'
 * names. */
	.section .rodata
	.globl uaccess_text
uaccess_text:
	.quad .Luaccess_start, .Luaccess_end

	.section .note.GNU-stack, "", @progbits
