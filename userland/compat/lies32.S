/*
 * /bin/hostile32's lying frame pointers (userland/compat/hostile32.c):
 * each lie_* function puts a lie in the frame-pointer register and spins
 * without touching it or the stack, so that every sample taken in it
 * walks from the lie. One function per case, so that a sample's pc says
 * which case it was taken in.
 *
 *   void lie_CASE(uint32_t ebp, uint32_t rounds)
 *
 * The wide cases go to the 64-bit code segment (0x23) to set all of rbp,
 * and come back to the 32-bit one (0x3b) with its upper half kept: code
 * in compatibility mode that does not write ebp leaves it so (the SDM,
 * vol. 1, 3.4.1.1, calls it undefined; QEMU keeps it), and the kernel
 * sees a frame pointer no 32-bit program could hold.
 *
 *   void lie_wide_CASE(uint32_t rbp_lo, uint32_t rbp_hi, uint32_t rounds)
 *
 * And the one way a 32-bit program passes a system call wider arguments:
 * far64_syscall6(nr, arg), the 64-bit SYSCALL with the six arguments of
 * arg[0..11] (low, high halves), from the 64-bit code segment.
 */
	.text
	.code32

/* The loop: rounds in ecx, eax and edx scratch; neither ebp nor esp. */
.macro SPIN
1:	imull $1103515245, %eax, %eax
	addl $12345, %eax
	decl %ecx
	jnz 1b
.endm

.macro LIE name
	.globl lie_\name
	.type lie_\name, @function
lie_\name:
	pushl %ebp
	movl 8(%esp), %edx
	movl 12(%esp), %ecx
	movl %edx, %ebp
	SPIN
	popl %ebp
	ret
	.size lie_\name, . - lie_\name
.endm

.macro LIE_WIDE name
	.globl lie_\name
	.type lie_\name, @function
lie_\name:
	pushl %ebp
	pushl %esi
	movl 12(%esp), %edx
	movl 16(%esp), %esi
	movl 20(%esp), %ecx
	ljmp $0x23, $1f
	.code64
1:	movl %edx, %edx
	shlq $32, %rsi
	orq %rsi, %rdx
	movq %rdx, %rbp
	ljmpl *2f(%rip)
2:	.long 3f		/* m16:32: the way back, never executed */
	.word 0x3b
	.code32
3:	SPIN
	popl %esi
	popl %ebp
	ret
	.size lie_\name, . - lie_\name
.endm

	.globl far64_syscall6
	.type far64_syscall6, @function
far64_syscall6:
	pushl %ebx
	pushl %esi
	pushl %edi
	movl 16(%esp), %eax
	movl 20(%esp), %ebx
	ljmp $0x23, $1f
	.code64
1:	movl %eax, %eax
	movl %ebx, %ebx
	movq 0(%rbx), %rdi
	movq 8(%rbx), %rsi
	movq 16(%rbx), %rdx
	movq 24(%rbx), %r10
	movq 32(%rbx), %r8
	movq 40(%rbx), %r9
	syscall			/* clobbers rcx, r11 */
	ljmpl *2f(%rip)
2:	.long 3f
	.word 0x3b
	.code32
3:	popl %edi
	popl %esi
	popl %ebx
	ret
	.size far64_syscall6, . - far64_syscall6

/* void lie_sp_high(uint32_t rsp_hi, uint32_t rounds): the frame
 * pointers honest, the stack pointer's upper half set in 64-bit mode
 * (rsp_hi) for the spin, put back in 64-bit mode after it (esp saved in
 * memory: the stack is not usable meanwhile). */
	.globl lie_sp_high
	.type lie_sp_high, @function
lie_sp_high:
	pushl %esi
	movl 8(%esp), %esi
	movl 12(%esp), %ecx
	movl %esp, saved_esp
	ljmp $0x23, $1f
	.code64
1:	shlq $32, %rsi
	orq %rsi, %rsp
	ljmpl *2f(%rip)
2:	.long 3f
	.word 0x3b
	.code32
3:	SPIN
	ljmp $0x23, $4f
	.code64
4:	movl saved_esp(%rip), %esp
	ljmpl *5f(%rip)
5:	.long 6f
	.word 0x3b
	.code32
6:	popl %esi
	ret
	.size lie_sp_high, . - lie_sp_high

	.bss
	.balign 4
saved_esp:
	.long 0
	.text

	LIE self
	LIE straddle
	LIE unmapped
	LIE misaligned
	LIE_WIDE high
	LIE_WIDE kernel

	.section .note.GNU-stack, "", @progbits
