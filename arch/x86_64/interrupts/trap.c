/*
 * The IDT and the one C entry of every trap, trap_dispatch().
 */
#include <arch/trap.h>
#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu/gdt.h"
#include "arch/x86_64/interrupts/lapic.h"
#include "kern/lib/console.h"
#include "kern/proc/entry.h"
#include "kern/kernel.h"
#include "kern/watchdog.h"

struct idt_gate {
	uint16_t off_lo, selector;
	uint8_t ist, type; /* present, DPL, 64-bit interrupt gate (IF cleared) */
	uint16_t off_mid;
	uint32_t off_hi, reserved;
} __attribute__((packed));

extern const char trap_stubs[]; /* trapentry.S: 16 bytes per vector */
extern const char nmi_entry[];  /* nmientry.S */

static struct idt_gate idt[256];
static trap_handler_t handlers[256];

static const char *const names[32] = {
	"#DE divide error", "#DB debug", "NMI", "#BP breakpoint",
	"#OF overflow", "#BR bound range", "#UD invalid opcode",
	"#NM device not available", "#DF double fault",
	"coprocessor segment overrun", "#TS invalid TSS",
	"#NP segment not present", "#SS stack fault",
	"#GP general protection", "#PF page fault", "reserved 15",
	"#MF x87 floating point", "#AC alignment check", "#MC machine check",
	"#XM SIMD floating point", "#VE virtualization", "#CP control protection",
};

const char *trap_name(uint64_t vector)
{
	if (vector < 32)
		return names[vector] ? names[vector] : "reserved exception";
	return "interrupt";
}

#define GATE_PRESENT 0x80
#define GATE_INTR64  0x0e

/* dpl: the lowest privilege allowed to raise the vector with int n, int3
 * or into (exceptions and interrupts ignore it). */
static void set_gate(int v, const void *entry, int ist, int dpl)
{
	uint64_t off = (uint64_t)entry;
	idt[v] = (struct idt_gate){
		.off_lo = off & 0xffff, .selector = SEG_KCODE, .ist = ist,
		.type = GATE_PRESENT | dpl << 5 | GATE_INTR64,
		.off_mid = (off >> 16) & 0xffff, .off_hi = off >> 32,
	};
}

void trap_init(void)
{
	/* Ring 3 raising any other vector with int n is a #GP. */
	for (int v = 0; v < 256; v++)
		set_gate(v, &trap_stubs[16 * v], 0, 0);
	/* int3 and int $4 are for programs (debuggers, overflow checks): they
	 * get SIGTRAP and SIGSEGV, as on Linux, not a #GP. */
	set_gate(VEC_BP, &trap_stubs[16 * VEC_BP], 0, 3);
	set_gate(VEC_OF, &trap_stubs[16 * VEC_OF], 0, 3);
	/* int $0x80: compat programs' system calls (arch/x86_64/proc/syscall.c). */
	set_gate(VEC_COMPAT_SYSCALL, &trap_stubs[16 * VEC_COMPAT_SYSCALL], 0, 3);
	/* The NMI has its own entry (nmientry.S): no swapgs, no return-to-user
	 * work; it still calls the handler set for VEC_NMI. */
	set_gate(VEC_NMI, nmi_entry, IST_NMI, 0);
	set_gate(VEC_DF, &trap_stubs[16 * VEC_DF], IST_DF, 0);
	set_gate(VEC_MC, &trap_stubs[16 * VEC_MC], IST_MC, 0);
	trap_load_idt();
}

/* Every CPU loads the one IDT (the IST numbers name each CPU's own
 * stacks, through its own TSS). */
void trap_load_idt(void)
{
	struct {
		uint16_t limit;
		uint64_t base;
	} __attribute__((packed)) idtr = { sizeof(idt) - 1, (uint64_t)idt };
	__asm__ volatile("lidt %0" : : "m"(idtr));
}

void trap_set_handler(int vector, trap_handler_t fn)
{
	handlers[vector] = fn;
}

trap_handler_t trap_handler(int vector)
{
	return handlers[vector];
}

void trap_dump(const struct trap_frame *tf)
{
	kprintf("trap: %s (vector %lu) in %s mode, error code 0x%lx\n",
		trap_name(tf->vector), tf->vector,
		trap_from_user(tf) ? "user" : "kernel", tf->error);
	kprintf("  RIP %016lx  CS %04lx  RFLAGS %016lx\n", tf->rip, tf->cs, tf->rflags);
	kprintf("  RSP %016lx  SS %04lx\n", tf->rsp, tf->ss);
	kprintf("  RAX %016lx  RBX %016lx  RCX %016lx\n", tf->rax, tf->rbx, tf->rcx);
	kprintf("  RDX %016lx  RSI %016lx  RDI %016lx\n", tf->rdx, tf->rsi, tf->rdi);
	kprintf("  RBP %016lx  R8  %016lx  R9  %016lx\n", tf->rbp, tf->r8, tf->r9);
	kprintf("  R10 %016lx  R11 %016lx  R12 %016lx\n", tf->r10, tf->r11, tf->r12);
	kprintf("  R13 %016lx  R14 %016lx  R15 %016lx\n", tf->r13, tf->r14, tf->r15);
	kprintf("  CR0 %016lx  CR2 %016lx  CR3 %016lx  CR4 %016lx\n",
		read_cr0(), read_cr2(), read_cr3(), read_cr4());
}

/* An exception with no handler: fault.c sets one for the page fault and
 * for every exception ring 3 can raise, so what is left (double fault,
 * machine check, reserved vectors) is fatal. */
static void unhandled(struct trap_frame *tf)
{
	trap_dump(tf);
	panic_at(tf->rip, tf->rsp, tf->rbp, "unhandled %s", trap_name(tf->vector));
}

void trap_dispatch(struct trap_frame *tf)
{
	uint64_t v = tf->vector;
	trap_handler_t fn = handlers[v];
	bool user = trap_from_user(tf);

	if (user)
		enter_from_user_mode(tf);
	if (v < 32 || v == VEC_COMPAT_SYSCALL) { /* raised by the CPU or by int n */
		if (!fn)
			unhandled(tf);
		fn(tf);
	} else if (v != VEC_SPURIOUS) {
		/* Acknowledge first: a handler may switch to another task and
		 * come back much later (the scheduler tick). */
		lapic_eoi();
		watchdog_touch();
		if (fn)
			fn(tf);
		else
			kprintf("trap: no handler for vector %lu\n", v);
		/* Hand the host thread on: under -icount QEMU runs the CPUs
		 * round-robin in one thread and a CPU keeps its turn until
		 * the next timer deadline, a hlt or a pause; a CPU running
		 * ring-3 code does neither, and another CPU (an idle one
		 * sent a wake-up, one with a task queued) then waits tens of
		 * milliseconds of guest time to execute anything
		 * (docs/SMP.md). On hardware, a hint of some cycles. */
		arch_cpu_relax();
	}
	/* The common return to user mode: pending work (kern/proc/entry.c). */
	if (user)
		exit_to_user_mode(tf);
}
