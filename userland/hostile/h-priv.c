/*
 * h-priv CASE: ring 3 tries what only ring 0 may do. Each instruction must
 * fault (#GP, or #NP for an absent gate) and the kernel must kill the
 * process with SIGSEGV, not obey: interrupts stay on, no port is touched,
 * no control register, MSR or descriptor table changes, no descriptor
 * table address is shown (UMIP), and no kernel handler runs for a vector
 * that ring 3 invokes with `int`. The two vectors that ring 3 may raise
 * (int3, int $4) reach their own handlers: SIGTRAP and SIGSEGV; `into`
 * does not exist in 64-bit mode (SIGILL). Surviving the instruction is a
 * failure (exit 99).
 */
#include "hostile.h"

#define ATTACK(name, insn)                                                   \
	static int name(void)                                                \
	{                                                                    \
		__asm__ volatile(insn ::: "memory");                         \
		return 99;                                                   \
	}

ATTACK(cli, "cli")
ATTACK(sti, "sti")
ATTACK(hlt, "hlt")
/* Port 0xf4 is QEMU's isa-debug-exit: obeyed, it would end the machine
 * with a verdict. */
ATTACK(port_out, "mov $0xf4, %%dx; mov $0x10, %%al; outb %%al, %%dx")
ATTACK(port_in, "mov $0x3f8, %%dx; inb %%dx, %%al")
ATTACK(cr3_write, "xor %%eax, %%eax; mov %%rax, %%cr3")
ATTACK(cr0_read, "mov %%cr0, %%rax")
ATTACK(wrmsr, "mov $0xc0000082, %%ecx; xor %%eax, %%eax; xor %%edx, %%edx; wrmsr")
ATTACK(lidt, "sub $16, %%rsp; movw $0, (%%rsp); movq $0, 2(%%rsp); lidt (%%rsp)")
ATTACK(swapgs, "swapgs")
ATTACK(sysret, "sysretq")
ATTACK(int_nmi, "int $2")
ATTACK(int_ipi, "int $0xf1")
ATTACK(int_timer, "int $0x20")
ATTACK(int3, "int3")
ATTACK(int_of, "int $4")
ATTACK(into, ".byte 0xce")
/* Under UMIP these fault instead of storing a kernel address. */
ATTACK(sgdt, "sub $16, %%rsp; sgdt (%%rsp); add $16, %%rsp")
ATTACK(sidt, "sub $16, %%rsp; sidt (%%rsp); add $16, %%rsp")
ATTACK(sldt, "sub $16, %%rsp; sldt (%%rsp); add $16, %%rsp")
ATTACK(str, "sub $16, %%rsp; str (%%rsp); add $16, %%rsp")
ATTACK(smsw, "sub $16, %%rsp; smsw (%%rsp); add $16, %%rsp")

/* An iretq frame asking for ring 0 (CS 0x08): the CPU refuses the
 * privilege raise. */
static int iret_ring0(void)
{
	__asm__ volatile("mov %%rsp, %%rax\n\t"
			 "pushq $0x10\n\t" /* ss: kernel data */
			 "pushq %%rax\n\t"
			 "pushfq\n\t"
			 "pushq $0x08\n\t" /* cs: kernel code */
			 "lea 1f(%%rip), %%rax\n\t"
			 "pushq %%rax\n\t"
			 "iretq\n"
			 "1:" ::: "rax", "memory");
	return 99;
}

/* popf cannot raise IOPL from ring 3 (it is silently kept): check that,
 * then try the port anyway. */
static int iopl(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; orq $0x3000, (%%rsp); popfq; pushfq; popq %0"
			 : "=r"(flags) :: "memory");
	EXPECT((flags & 0x3000) == 0, "IOPL is %lu after popf", (unsigned long)(flags >> 12 & 3));
	if (hostile_failed)
		return 1;
	return port_out();
}

static const struct hcase cases[] = {
	{ "cli", cli }, { "sti", sti }, { "hlt", hlt },
	{ "port-out", port_out }, { "port-in", port_in }, { "iopl", iopl },
	{ "cr3-write", cr3_write }, { "cr0-read", cr0_read }, { "wrmsr", wrmsr },
	{ "lidt", lidt }, { "swapgs", swapgs }, { "sysret", sysret },
	{ "iret-ring0", iret_ring0 }, { "int-nmi", int_nmi }, { "int-ipi", int_ipi },
	{ "int-timer", int_timer }, { "int3", int3 }, { "int-overflow", int_of },
	{ "into", into }, { "sgdt", sgdt }, { "sidt", sidt }, { "sldt", sldt },
	{ "str", str }, { "smsw", smsw },
};
HOSTILE_MAIN(cases)
