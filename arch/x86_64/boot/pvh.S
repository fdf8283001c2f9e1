/*
 * The direct boot path: QEMU -kernel (no UEFI firmware), through the x86
 * PVH boot ABI of Xen that QEMU also implements.
 *
 * QEMU's ELF loader puts the PT_LOAD segments at their physical (load)
 * addresses, which linker.ld sets to the link address minus PHYS_OFFSET,
 * finds the entry point in the "Xen" note below and starts it (through
 * its pvh.bin option ROM under SeaBIOS) in 32-bit protected mode, paging
 * off, interrupts off, flat segments, ebx = physical address of struct
 * hvm_start_info, no usable stack.
 *
 * pvh_start32 makes the machine look like the UEFI loader's hand-off
 * (include/stitch/boot_info.h): long mode on page tables that map 0-4 GiB
 * 1:1 and the kernel image at its link address, then pvh_boot_info()
 * (pvh_info.c) builds the struct boot_info, and _start runs the kernel exactly
 * as on the UEFI path.
 */

#include "arch/x86_64/boot/pvh.h"

#define KERNEL_VIRT_BASE 0xffffffff80000000 /* stitch/boot_info.h */
#define PHYS(x) ((x) - KERNEL_VIRT_BASE + PVH_KERNEL_PHYS)

#define PTE_PW    PVH_PTE_PW
#define PTE_PW_2M (PVH_PTE_PW | PVH_PTE_2M)
#define TWO_MIB   0x200000

#define CR4_PAE    0x20
#define CR0_PE_PG  0x80000001
#define MSR_EFER   0xc0000080
#define EFER_LME   0x100
#define EFER_NXE   0x800 /* the kernel's page tables use NX (arch_init_cpu) */

/* For the ASSERT in linker.ld. */
	.globl pvh_kernel_phys_base
	.set pvh_kernel_phys_base, PVH_KERNEL_PHYS

/* XEN_ELFNOTE_PHYS32_ENTRY: QEMU reads a 64-bit value in an ELF64 file. */
	.section .note.Xen, "a", @note
	.p2align 2
	.long 4, 8, 18 /* namesz ("Xen\0"), descsz, type */
	.asciz "Xen"
	.p2align 2
	.quad PHYS(pvh_start32)

	.text
	.code32
	.globl pvh_start32
pvh_start32:
	cli
	cld
	movl %ebx, %esi /* start_info; cpuid and rdmsr clobber the others */

	/* .bss (page tables, stacks, boot_info) is not in the file: zero it. */
	movl $PHYS(__bss_start), %edi
	movl $PHYS(__bss_end), %ecx
	subl %edi, %ecx
	xorl %eax, %eax
	rep stosb

	/* 0-4 GiB 1:1: PML4[0] -> pvh_pdpt, entries 0-3 -> four page directories. */
	movl $PHYS(pvh_pdpt) + PTE_PW, PHYS(pvh_pml4)
	movl $PHYS(pvh_pd) + PTE_PW, %eax
	movl $PHYS(pvh_pdpt), %edi
	movl $4, %ecx
1:	movl %eax, (%edi)
	addl $4096, %eax
	addl $8, %edi
	loop 1b

	movl $PHYS(pvh_pd), %edi
	movl $PTE_PW_2M, %eax
	movl $2048, %ecx
1:	movl %eax, (%edi)
	addl $TWO_MIB, %eax
	addl $8, %edi
	loop 1b

	/* The image at KERNEL_VIRT_BASE: PML4[511] -> PDPT[510] -> 2 MiB pages. */
	movl $PHYS(pvh_kernel_pdpt) + PTE_PW, PHYS(pvh_pml4) + 511 * 8
	movl $PHYS(pvh_kernel_pd) + PTE_PW, PHYS(pvh_kernel_pdpt) + 510 * 8
	movl $PHYS(__kernel_end) - PVH_KERNEL_PHYS + TWO_MIB - 1, %ecx
	shrl $21, %ecx
	movl $PHYS(pvh_kernel_pd), %edi
	movl $PVH_KERNEL_PHYS + PTE_PW_2M, %eax
1:	movl %eax, (%edi)
	addl $TWO_MIB, %eax
	addl $8, %edi
	loop 1b

	/*
	 * Long mode (Intel SDM 3A, 10.8.5): PAE, CR3, EFER.LME, then paging.
	 * A CPU without long mode or NX faults here, and QEMU (-no-reboot)
	 * stops: tools/qemu-run says "no verdict".
	 */
	movl %cr4, %eax
	orl $CR4_PAE, %eax
	movl %eax, %cr4
	movl $PHYS(pvh_pml4), %eax
	movl %eax, %cr3
	movl $MSR_EFER, %ecx
	rdmsr
	orl $EFER_LME | EFER_NXE, %eax
	wrmsr
	movl %cr0, %eax
	orl $CR0_PE_PG, %eax
	movl %eax, %cr0

	lgdt PHYS(pvh_gdt_desc)
	ljmp $8, $PHYS(pvh_start64)

	.code64
pvh_start64:
	movw $16, %ax
	movw %ax, %ds
	movw %ax, %es
	movw %ax, %ss
	xorw %ax, %ax
	movw %ax, %fs
	movw %ax, %gs
	movabsq $1f, %rax /* from the identity map to the link address */
	jmp *%rax
1:	leaq boot_stack_top(%rip), %rsp /* _start takes it over again */
	xorl %ebp, %ebp
	movl %esi, %edi
	call pvh_boot_info /* start_info -> boot_info, physical addresses */
	movq %rax, %rdi
	jmp _start

/* Until arch_init_cpu loads the kernel's own GDT: null, 64-bit code, data. */
	.section .rodata
	.p2align 3
pvh_gdt:
	.quad 0
	.quad 0x00af9a000000ffff
	.quad 0x00cf92000000ffff
pvh_gdt_desc:
	.word pvh_gdt_desc - pvh_gdt - 1
	.long PHYS(pvh_gdt)

	.bss
	.p2align 12
	.globl pvh_pml4, pvh_pdpt
pvh_pml4:
	.skip 4096
pvh_pdpt: /* pvh_info.c adds page directories here when RAM goes beyond 4 GiB */
	.skip 4096
pvh_pd:
	.skip 4 * 4096
pvh_kernel_pdpt:
	.skip 4096
pvh_kernel_pd:
	.skip 4096
