#include "arch/x86_64/cpu/gdt.h"
#include <arch/trap.h>
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"

static struct trap_frame seen;

/* Records the frame and changes rax, which the exit path must restore. */
static void on_breakpoint(struct trap_frame *tf)
{
	seen = *tf;
	tf->rax = 0x5717c4;
}

KTEST(trap_frame_roundtrip)
{
	uint64_t rax, after;
	trap_set_handler(VEC_BP, on_breakpoint);
	__asm__ volatile("leaq 1f(%%rip), %1\n\t"
			 "movq $0x1234, %%rax\n\t"
			 "movq $0xb0b, %%r15\n\t"
			 "int3\n"
			 "1:"
			 : "=a"(rax), "=r"(after)
			 :
			 : "r15", "memory");
	trap_set_handler(VEC_BP, NULL);
	KEXPECT_EQ(t, seen.vector, VEC_BP);
	KEXPECT_EQ(t, seen.rip, after); /* #BP is a trap: rip is past int3 */
	KEXPECT_EQ(t, seen.cs, SEG_KCODE);
	KEXPECT_EQ(t, seen.rax, 0x1234);
	KEXPECT_EQ(t, seen.r15, 0xb0b);
	KEXPECT_EQ(t, seen.error, 0);
	KEXPECT_EQ(t, rax, 0x5717c4);
}

/*
 * `ktest.fault=pf|gp|ud|de`: raise that exception in kernel mode, with
 * no handler. The kernel must print the register dump and a backtrace and
 * shut down with failure (test/t/11-kernel-fault.t checks the output).
 */
#define FAULT_ADDR 0xdead000ull /* the lower half is unmapped in the kernel */

/*
 * Each raiser is a noinline function of its own, so that the dump's
 * backtrace (kunwind, by the kernel's .sframe, which describes frameless
 * leaves too) names the raiser and then its caller.
 */
__attribute__((noinline)) static void fault_pf(void)
{
	volatile uint64_t frame = FAULT_ADDR;
	*(volatile uint64_t *)frame = 1;
}

__attribute__((noinline)) static void fault_gp(void)
{
	volatile uint64_t frame = 0x8000000000000000ull; /* non-canonical */
	*(volatile uint64_t *)frame = 1;
}

__attribute__((noinline)) static void fault_ud(void)
{
	volatile uint64_t frame = 0;
	__asm__ volatile("ud2" : : "r"(frame));
}

__attribute__((noinline)) static void fault_de(void)
{
	volatile uint32_t divisor = 0;
	__asm__ volatile("xorl %%edx, %%edx\n\t"
			 "movl $1, %%eax\n\t"
			 "divl %0" : : "r"(divisor) : "eax", "edx");
}

KTEST(trap_fault_injection)
{
	static const struct {
		const char *name;
		void (*fn)(void);
	} faults[] = {
		{ "pf", fault_pf }, { "gp", fault_gp }, { "ud", fault_ud }, { "de", fault_de },
	};
	const char *kind = cmdline_get(&boot_args, "ktest.fault");
	if (!kind) {
		ktest_skip(t, "no ktest.fault= on the command line");
		return;
	}
	for (size_t i = 0; i < ARRAY_SIZE(faults); i++) {
		if (strcmp(kind, faults[i].name) == 0) {
			kprintf("# raising #%s in kernel mode\n", kind);
			faults[i].fn();
			KEXPECT(t, !"the fault returned");
			return;
		}
	}
	KEXPECT(t, !"ktest.fault= names pf, gp, ud or de");
}
