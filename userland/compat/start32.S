/*
 * The 32-bit test programs' entry and system-call gate (gcc -m32, no
 * libc): the kernel's i386 ABI as docs/PROCESSES.md ("32-bit programs")
 * gives it, written out by hand so that these programs test the kernel
 * alone.
 */
	.text
	.code32

/* The kernel enters in compatibility mode with esp 16-byte aligned at
 * argc, then argv[] and envp[] as 4-byte pointers, each ending in NULL,
 * then the auxv. compat_main(uint32_t *sp) never returns. */
	.globl _start
	.type _start, @function
_start:
	xorl %ebp, %ebp
	movl %esp, %eax
	subl $12, %esp		/* 16-byte aligned again at the call */
	pushl %eax
	call compat_main
	ud2
	.size _start, . - _start

/* long sys6(long nr, long a1, ..., long a6): int $0x80 with the number in
 * eax and the arguments in ebx, ecx, edx, esi, edi, ebp. */
	.globl sys6
	.type sys6, @function
sys6:
	pushl %ebp
	pushl %ebx
	pushl %esi
	pushl %edi
	movl 20(%esp), %eax
	movl 24(%esp), %ebx
	movl 28(%esp), %ecx
	movl 32(%esp), %edx
	movl 36(%esp), %esi
	movl 40(%esp), %edi
	movl 44(%esp), %ebp
	int $0x80
	popl %edi
	popl %esi
	popl %ebx
	popl %ebp
	ret
	.size sys6, . - sys6

/* long far64_write(uint32_t buf_lo, uint32_t buf_hi, uint32_t len): a far
 * jump to the 64-bit user code segment (0x23), the 64-bit SYSCALL
 * write(1, buf_hi:buf_lo, len) there, and a far jump back to the 32-bit
 * one (0x3b). The upper halves of the registers are undefined across the
 * mode switch (Intel SDM vol. 1, 3.4.1.1): each is set in full. (Back by
 * a jump through memory, not by lret: QEMU 7.2 pops a far return's
 * operands with a supervisor access, which SMAP refuses on a user page.) */
	.globl far64_write
	.type far64_write, @function
far64_write:
	pushl %ebx
	pushl %esi
	pushl %edi
	movl 16(%esp), %esi
	movl 20(%esp), %edi
	movl 24(%esp), %edx
	ljmp $0x23, $1f
	.code64
1:	movl %esi, %esi
	movl %edx, %edx
	shlq $32, %rdi
	orq %rdi, %rsi
	movl $1, %edi
	movl $2, %eax		/* SYS_write */
	syscall			/* clobbers rcx, r11 */
	ljmpl *back32(%rip)
back32:	.long 2f		/* m16:32, the far pointer: never executed */
	.word 0x3b
	.code32
2:	popl %edi
	popl %esi
	popl %ebx
	ret
	.size far64_write, . - far64_write

/* void syscall_in_compat(void): the SYSCALL instruction in compatibility
 * mode, which the kernel refuses by ending the program. */
	.globl syscall_in_compat
	.type syscall_in_compat, @function
syscall_in_compat:
	movl $12, %eax		/* SYS_getpid, were it allowed */
	syscall
	ret
	.size syscall_in_compat, . - syscall_in_compat

/* void sysenter_in_compat(void): SYSENTER, which faults (#GP) with the
 * kernel's IA32_SYSENTER_CS of 0. */
	.globl sysenter_in_compat
	.type sysenter_in_compat, @function
sysenter_in_compat:
	sysenter
	ret
	.size sysenter_in_compat, . - sysenter_in_compat

	.section .note.GNU-stack, "", @progbits
