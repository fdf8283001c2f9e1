/*
 * Where an application processor starts: the start-up IPI puts it in real
 * mode at CS:IP = (page << 8):0, page being the low page smp.c copied this
 * code to (pmm_low_page). It goes to protected mode, then to long mode
 * with the page tables smp.c prepared (the kernel half plus this page
 * mapped at its own address), and jumps to ap_entry in the kernel image.
 *
 * The code is position-independent within its page: in real mode every
 * address is an offset from the segment base, and in protected and long
 * mode rbx holds the page's physical address. What depends on where the
 * page is (the GDT's base, the far jumps' targets) and what each AP needs
 * (page tables, stack, index) is in struct trampoline_params at the end,
 * filled in by smp.c (arch/x86_64/smp/smp.h).
 *
 * No CFI: a kernel unwind from the AP's first C function ends at
 * ap_entry, as it ends at _start on the boot CPU.
 */
#include "arch/x86_64/cpu/gdt.h"

#define OFF(sym) ((sym) - smp_trampoline)
#define CR0_PE     0x1
#define CR0_PG_WP  0x80010000
#define CR4_PAE    0x20
#define MSR_EFER   0xc0000080
#define EFER_LME_NXE 0x900 /* LME (bit 8) and NXE (bit 11): the kernel's
			    * page tables have NX bits */
#define TR_CODE32  0x08
#define TR_DATA32  0x10
#define TR_CODE64  0x18

	.section .rodata
	.p2align 12
	.globl smp_trampoline, smp_trampoline_end
smp_trampoline:
	.code16
	cli
	cld
	movw %cs, %ax
	movw %ax, %ds
	movzwl %ax, %ebx
	shll $4, %ebx                  /* the page's physical address */
	lgdtl OFF(tr_gdtr)
	movl %cr0, %eax
	orl $CR0_PE, %eax
	movl %eax, %cr0
	ljmpl *OFF(tr_to32)

	.code32
tr_32:
	movw $TR_DATA32, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl OFF(tr_cr3)(%ebx), %eax   /* below 4 GiB: smp.c checks */
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME_NXE, %eax
	wrmsr
	movl %cr0, %eax
	orl $CR0_PG_WP, %eax
	movl %eax, %cr0
	ljmpl *OFF(tr_to64)(%ebx)

	.code64
tr_64:
	movl %ebx, %ebx                /* zero-extend: the upper half is undefined */
	movq OFF(tr_stack)(%rbx), %rsp
	movl OFF(tr_cpu)(%rbx), %edi
	movq OFF(tr_entry)(%rbx), %rax
	jmpq *%rax                     /* into the kernel image: ap_entry */

	.p2align 3
tr_gdt:
	.quad 0
	.quad 0x00cf9a000000ffff       /* 0x08 32-bit code, flat */
	.quad 0x00cf92000000ffff       /* 0x10 32-bit data, flat */
	.quad 0x00af9a000000ffff       /* 0x18 64-bit code */
tr_gdt_end:

/* struct trampoline_params (smp.h): keep the order and the offsets. */
	.p2align 3
	.globl smp_trampoline_params
smp_trampoline_params:
tr_gdtr:
	.word tr_gdt_end - tr_gdt - 1
	.long OFF(tr_gdt)              /* +2: smp.c adds the page address */
	.word 0
tr_to32:
	.long OFF(tr_32)               /* +8: smp.c adds the page address */
	.word TR_CODE32
	.word 0
tr_to64:
	.long OFF(tr_64)               /* +16: smp.c adds the page address */
	.word TR_CODE64
	.word 0
tr_cr3:
	.quad 0                        /* +24 */
tr_stack:
	.quad 0                        /* +32 */
tr_entry:
	.quad 0                        /* +40 */
tr_cpu:
	.long 0                        /* +48 */
	.long 0
smp_trampoline_end:

/*
 * The AP in the kernel image, on its own stack (rsp from the params), edi
 * its index. rbp 0 ends frame-pointer chains, as on the boot CPU.
 */
	.text
	.globl ap_entry
ap_entry:
	xorl %ebp, %ebp
	call ap_main
1:	hlt
	jmp 1b

	.section .note.GNU-stack, "", @progbits
