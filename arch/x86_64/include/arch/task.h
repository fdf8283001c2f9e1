/*
 * The x86_64 half of a task (kern/proc/task.h): its saved kernel stack pointer
 * and FPU/SSE state, starting a task in ring 3, switching tasks, the
 * SYSCALL entry and the per-CPU block that the entry reads through GS.
 *
 * GS: in the kernel, GS base is always this CPU's struct cpu_local; in
 * ring 3 it is the user's (0). Every entry from ring 3 (syscallentry.S,
 * trapentry.S) swaps on the way in and out. Only the syscall entry reads %gs: C code never does, so
 * an NMI that lands in the few instructions before a swapgs is harmless.
 */
#ifndef ARCH_X86_64_TASK_H
#define ARCH_X86_64_TASK_H

/* Offsets into struct cpu_local, for syscallentry.S. */
#define CPU_KSTACK_TOP 0
#define CPU_USER_RSP   8

/* trap_frame.vector of a frame built by the SYSCALL entry (no IDT vector),
 * and by its compatibility-mode twin (MSR_CSTAR), which refuses the call. */
#define VEC_SYSCALL   0x100
#define VEC_SYSCALL32 0x101

#define RFLAGS_USER 0x202 /* IF and the always-one bit 1 */

#ifndef __ASSEMBLY__
#include <stdbool.h>
#include <stdint.h>

#include <arch/arch.h>
#include <arch/trap.h>

struct cpu_local {
	uint64_t kstack_top; /* the current task's stack: SYSCALL switches to it */
	uint64_t user_rsp;   /* scratch: the user rsp during the switch */
	uint8_t uaccess_open; /* in arch_user_access_begin/end (nmi.c checks) */
};

/* Each CPU's (its GS base). C reaches its own by index, not through GS:
 * an NMI may run before the entry's swapgs. */
extern struct cpu_local cpu_locals[];
static inline struct cpu_local *this_cpu_local(void)
{
	return &cpu_locals[arch_cpu_id()];
}

struct arch_task {
	uint64_t ksp; /* kernel rsp saved by swtch while switched out */
	/* FXSAVE image: x87 and SSE state (the kernel never touches either,
	 * so this is always the user's). */
	uint8_t fpu[512] __attribute__((aligned(16)));
};

/* SYSCALL/SYSRET MSRs, GS bases, FPU/SSE enable, SMEP and SMAP: _cpu on
 * the CPU it names, arch_proc_init on the boot CPU (and says what it set). */
void arch_proc_init(void);
void arch_proc_init_cpu(unsigned cpu);

/* The MXCSR bits this CPU lets software set (FXRSTOR faults on others). */
uint32_t arch_mxcsr_mask(void);

/* The FPU state of a task that has not run yet. */
void arch_task_init(struct arch_task *a);
/* The running task's x87/SSE registers get that state (a new program, a
 * signal handler). */
void arch_fpu_load_initial(void);

/*
 * Prepares a new task's kernel stack (top at kstack_top) so that the first
 * switch to it enters ring 3 at rip with rsp and RFLAGS_USER, through the
 * common return-to-user path (kern/proc/entry.c); compat: in compatibility
 * mode, on the 32-bit code segment (docs/PROCESSES.md, "32-bit programs").
 */
void arch_task_start_user(struct arch_task *a, uint64_t kstack_top,
			  uint64_t rip, uint64_t rsp, bool compat);

/* exec: the running task's user frame (top at kstack_top) starts over at
 * rip with rsp, every other register zero, and so does its FPU state. */
void arch_task_exec_user(struct arch_task *a, uint64_t kstack_top,
			 uint64_t rip, uint64_t rsp, bool compat);

/*
 * Switches the CPU from prev to next: TSS rsp0 and the SYSCALL stack become
 * next's kstack_top, FPU state is saved and restored, then the callee-saved
 * registers and the stack. Returns when prev is switched back to.
 * Interrupts must be disabled.
 */
void arch_switch(struct arch_task *prev, struct arch_task *next,
		 uint64_t next_kstack_top);

/* The ring-3 register frame at the top of a task's kernel stack. */
static inline struct trap_frame *arch_user_frame(uint64_t kstack_top)
{
	return (struct trap_frame *)kstack_top - 1;
}

/* Whether the CPU has (and the kernel turned on) SMAP. */
bool arch_has_smap(void);

#endif

#endif
