/*
 * The hooks that architecture-neutral code (kern/, sframe/) calls. This
 * directory (arch/x86_64/include/arch/, reached as <arch/...> through the
 * include path the Makefile chooses by ARCH) is the whole interface: kern/
 * includes nothing else from arch/ and writes no instruction of its own;
 * tools/check-arch, run by every build, holds it to that.
 *
 * Nothing here includes x86.h: the instructions kern/ needs are named for
 * what they do (irq_disable, arch_cycles), not for the x86 instruction.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <stdbool.h>
#include <stdint.h>

#include "sframe/sframe.h"

#define ARCH_NAME "x86_64" /* in the boot banner */

/* Interrupt flag save/restore: the kernel's only "lock" while it runs on
 * one CPU. NMIs are not masked by it: NMI code must not take it. */
typedef uint64_t irqflags_t;
#define ARCH_IRQFLAGS_ENABLED (1ull << 9) /* RFLAGS.IF */

static inline void irq_disable(void) { __asm__ volatile("cli" ::: "memory"); }
static inline void irq_enable(void) { __asm__ volatile("sti" ::: "memory"); }

static inline irqflags_t irq_save(void)
{
	irqflags_t f;
	__asm__ volatile("pushfq; popq %0; cli" : "=r"(f) : : "memory");
	return f;
}

static inline void irq_restore(irqflags_t f)
{
	if (f & ARCH_IRQFLAGS_ENABLED)
		irq_enable();
}

/* Wait (interrupts enabled) until an interrupt has been handled, without
 * the race between enabling and halting: sti takes effect only after the
 * next instruction, the hlt. */
static inline void arch_wait_for_interrupt(void)
{
	__asm__ volatile("sti; hlt" ::: "memory");
}

/* In a spin loop: tells the CPU (and, under -icount, QEMU, which then runs
 * the other CPUs) that this one is waiting. */
static inline void cpu_relax(void) { __asm__ volatile("pause" ::: "memory"); }
/* No instruction: code after it cannot move before it, and a call just
 * before it is no tail call (its caller's frame stays for debuggers). */
static inline void arch_compiler_barrier(void) { __asm__ volatile(""); }

/* The CPU's cycle counter (the TSC), tsc_hz per second; inline, the NMI
 * reads it. */
static inline uint64_t arch_cycles(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

void arch_init_cpu(void);     /* serial, GDT, TSS, IDT: before anything can fault */
void arch_init_devices(void); /* LAPIC, IOAPIC, PIT tick, calibration: after kernel_space_init */
void arch_init_cpu_regs(void); /* EFER.NXE, CR0.WP, CR4.PGE: each CPU */
/* The page-fault and user-exception handlers: after the memory and
 * process managers they call are up (proc_init). */
void fault_init(void);
/* Starts the other CPUs of the MADT (arch/x86_64/smp.c); after proc_init. */
void arch_start_cpus(void);

void arch_console_putc(char c);

/*
 * Kernel unwinding (kern/unwind/kernel.c). The stacks the arch code owns (boot,
 * IST): true and [*lo, *hi) if sp lies in one. The trap path's exit
 * addresses: if pc is one, a struct trap_frame starts at sp; read it with
 * read() and set *f to the interrupted context. Returns 1 for a kernel
 * context, -1 if the trap came from user mode or the frame is unreadable
 * (the walk ends), 0 if pc is no trap exit.
 */
bool arch_stack_bounds(uint64_t sp, uint64_t *lo, uint64_t *hi);
int arch_unwind_trap(uint64_t pc, uint64_t sp, sf_read_fn read, void *ctx,
		     struct sf_frame *f);

/* The current pc, sp and fp, all three taken at the same instruction, so
 * the SFrame row of that pc describes them (always inlined: the frame is
 * the caller's). */
__attribute__((always_inline)) static inline void
arch_current_frame(struct sf_frame *f)
{
	__asm__ volatile("leaq 1f(%%rip), %0\n"
			 "1:\tmovq %%rsp, %1\n\t"
			 "movq %%rbp, %2"
			 : "=r"(f->pc), "=r"(f->sp), "=r"(f->fp));
	f->caller = false;
}

/* Exit QEMU through isa-debug-exit (success or failure); halt otherwise. */
__attribute__((noreturn)) void arch_shutdown(bool success);

/*
 * CPUs: indices 0 .. ARCH_MAX_CPUS-1. arch_cpu_id() is safe anywhere, NMI
 * included: it reads no GS base (which may still be the user's when an NMI
 * hits the syscall entry), only RDTSCP's TSC_AUX, set to the index at boot,
 * or the LAPIC ID.
 */
#define ARCH_MAX_CPUS 8
extern bool arch_has_rdtscp;
unsigned arch_cpu_id_lapic(void);
/* Inline: every counter update (kern/lib/stats.h) asks, the NMI's included. */
static inline unsigned arch_cpu_id(void)
{
	if (arch_has_rdtscp) {
		uint32_t aux;
		__asm__ volatile("rdtscp" : "=c"(aux) : : "rax", "rdx");
		return aux;
	}
	return arch_cpu_id_lapic();
}
/* The TSC and the CPU index in one instruction where RDTSCP exists.
 * Inline: the sampling NMI starts with it. */
static inline uint64_t arch_tsc_cpu(unsigned *cpu)
{
	if (arch_has_rdtscp) {
		uint32_t lo, hi, aux;
		__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
		*cpu = aux;
		return (uint64_t)hi << 32 | lo;
	}
	*cpu = arch_cpu_id_lapic();
	return arch_cycles();
}

/* CPUs online: 1 until arch_start_cpus, then those that started. */
unsigned arch_ncpus(void);
/* Runs fn(arg) on CPU cpu, in its interrupt handler (interrupts off), and
 * waits until it returned; cpu must be online. The caller may have its
 * interrupts off only if the target cannot be waiting, with its own off,
 * for the caller (a lock the caller holds, an smp_call to it). */
void smp_call(unsigned cpu, void (*fn)(void *), void *arg);
/* Interrupts CPU cpu (not this one) so that it looks at the run queue or
 * its task's TIF_NEED_RESCHED; normal context, interrupts off. */
void arch_resched_ipi(unsigned cpu);

/* Sampling NMIs (arch/x86_64/sampling.c): hz per second on this CPU, each
 * calling sample_nmi(). arch_sampling_select() picks the source, "pmu",
 * "lapic", "ioapic", or NULL / "auto" to choose, and returns a line that
 * names it and says why (arch_sampling_start selects itself if not). */
const char *arch_sampling_select(const char *want);
void arch_sampling_start(unsigned hz);
void arch_sampling_stop(void);
/* The same on every CPU online (arch/x86_64/smp.c). In a panic only this
 * CPU stops; the others' NMIs find sampling disarmed and are counted as
 * ignored. arch_nmi_quiesce() waits until no CPU is inside an NMI. */
void arch_sampling_start_all(unsigned hz);
void arch_sampling_stop_all(void);
void arch_nmi_quiesce(void);

/* The watchdog (kern/watchdog.c): this CPU's timer raising an NMI hz
 * times a second, for when nothing samples (every CPU: the _all form;
 * arch_sampling_stop, arch_sampling_stop_all and arch_sampling_start take
 * the timer back); and an NMI to another CPU, so that it prints its own
 * stack (may be sent from NMI context: the run ends after). */
void arch_watchdog_start(unsigned hz);
void arch_watchdog_start_all(unsigned hz);
void arch_nmi_cpu(unsigned cpu);

/*
 * The record channel (arch/x86_64/channel.c): records out to the host,
 * through ivshmem shared memory if QEMU has it, else COM2; init says which.
 * The shared memory is bounded: `reserve` bytes at its end are kept for the
 * records that end the stream. arch_channel_write appends one whole record
 * or refuses it (false); once it refused one, it refuses every record but
 * the final ones (final: may use the reserve).
 */
void arch_channel_init(uint64_t reserve);
bool arch_channel_write(const void *buf, uint64_t n, bool final);
/* Where the records go, for the console. */
const char *arch_channel_name(void);
/* What a 10 ms tick may drain: the channel's speed. */
uint64_t arch_channel_tick_bytes(void);

/* NMI context? (arch/x86_64/nmi.c: set while nmi_dispatch runs; per
 * CPU, and NMIs do not nest, so a flag is enough.) */
extern bool arch_nmi_active[ARCH_MAX_CPUS];
/* For a caller that already knows its CPU index (the NMI's request). */
static inline bool arch_in_nmi_on(unsigned cpu)
{
	return __atomic_load_n(&arch_nmi_active[cpu], __ATOMIC_RELAXED);
}
static inline bool arch_in_nmi(void)
{
	return arch_in_nmi_on(arch_cpu_id());
}

/* irq work's self-IPI (arch/x86_64/ipi.c), on this CPU (NMI-safe): its
 * handler calls irq_work_run(). */
void arch_irq_work_raise(void);

/* Time: the TSC, calibrated against the PIT at boot. */
extern uint64_t tsc_hz;
uint64_t tsc_to_ns(uint64_t ticks);
void delay_us(uint64_t us);

#endif
