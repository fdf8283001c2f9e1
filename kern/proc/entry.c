/*
 * The common return-to-user path (kern/proc/entry.h). docs/PROCESSES.md has the
 * picture; the deferred unwinder hangs its work here.
 */
#include "kern/proc/entry.h"
#include <arch/arch.h>
#include "kern/lib/console.h"
#include "kern/proc/sched.h"
#include "kern/lib/stats.h"
#include "kern/proc/task.h"
#include "kern/proc/task_work.h"
#include "kern/proc/irq_work.h"
#include "kern/unwind/deferred.h"
#include "kern/unwind/user.h"
#include "kern/mm/uvm.h"

void enter_from_user_mode(struct trap_frame *tf)
{
	(void)tf;
	struct task *t = current;
	uint64_t now = clock_ns();
	t->utime_ns += now - t->acct_ts;
	t->acct_ts = now;
	t->kernel_entries++;
	t->in_kernel = true;
}

#define KILL_FRAMES 32 /* frames of a kill report's user stack */

/* Where a user address lies, for the host to symbolise: an ELF segment by
 * its link address (the address itself), a mapped file by its offset. */
static void print_where(struct uvm *mm, uint64_t pc)
{
	struct region *r = mm ? uvm_find(mm, pc) : NULL;
	if (r && r->path && r->kind == REGION_ELF)
		kprintf(" %s\n", r->path);
	else if (r && r->path)
		kprintf(" %s+0x%lx\n", r->path, pc - r->file_vaddr + r->file_offset);
	else
		kprintf(" ?\n");
}

/* The user stack of a task being killed, unwound as the profiler would
 * (SFrame, frame-pointer fallback), one frame a line; `make run`
 * symbolises the lines on the host (tools/symbolise-kills). */
static void print_user_stack(struct task *t)
{
	uint64_t ips[KILL_FRAMES];
	enum unwind_stop stop;
	uint32_t n = unwind_user_dying(ips, KILL_FRAMES, &stop);
	/* The stop's name is its counter's, "unwind_stop_<reason>". */
	kprintf("stitch: pid %d user stack (%u frames, stop %s):\n", t->pid, n,
		stat_name(STAT_UNWIND_STOP_END + stop) + sizeof "unwind_stop_" - 1);
	for (uint32_t i = 0; i < n; i++) {
		kprintf("  #%u 0x%016lx", i, ips[i]);
		print_where(t->mm, i ? ips[i] - 1 : ips[i]);
	}
}

/* A condemned task dies here, in its own context, with its user frame at
 * hand for the report: every kill shows where the program was, its user
 * stack from the latest kernel entry (the fault; for a kill(), the
 * system call or interrupt that brought it here). */
__attribute__((noreturn)) static void die(struct task *t, struct trap_frame *tf)
{
	int sig = t->kill_sig;
	if (t->kill_quiet) /* its process ends: another thread's exit or fault */
		task_exit(t->exit_status);
	uint64_t rip = t->kill_rip ? t->kill_rip : tf->rip;
	kprintf("stitch: pid %d (%s) killed: %s rip=0x%lx addr=0x%lx status %d\n",
		t->pid, t->name, t->kill_reason, rip, t->kill_addr, 128 + sig);
	print_user_stack(t);
	task_exit(sig);
}

void exit_to_user_mode(struct trap_frame *tf)
{
	struct task *t = current;
	for (;;) {
		irq_disable();
		unsigned long work = __atomic_load_n(&t->pending, __ATOMIC_SEQ_CST) &
				     TIF_WORK_MASK;
		/* No work left: end the entry's deferred-unwind context (its
		 * cookie). An NMI may have asked for an unwind since the last
		 * check; its self-IPI waits for interrupts: run its irq work
		 * now, which queues the task work, and go round again. If the
		 * NMI was on another CPU (this task ran there then), the work
		 * is on that CPU's list: open a window for interrupts and wait
		 * for that CPU to run it. */
		if (!work && unwind_exit_to_user(t))
			break;
		if (!work) {
			irq_work_run();
			irq_enable();
			arch_cpu_relax();
			continue;
		}
		irq_enable();
		if (work & (1ul << TIF_KILLED))
			die(t, tf);
		if (work & (1ul << TIF_NEED_RESCHED))
			schedule();
		/* sched.migrate: the unwind that is due runs on another CPU
		 * than the one that asked for it (docs/SMP.md). */
		if (work & (1ul << TIF_TASK_WORK) && !sched_migrate())
			task_work_run();
		/* Last: the task work above has run the deferred unwinds this
		 * entry owed, from the registers the frame is about to hide. */
		if (work & (1ul << TIF_SIGNAL))
			signal_deliver(t, tf);
	}
	uint64_t now = clock_ns();
	t->stime_ns += now - t->acct_ts;
	t->acct_ts = now;
	t->in_kernel = false;
}

/* A new task's first way to ring 3 (switch.S: task_first_entry). */
void task_first_return(struct trap_frame *tf)
{
	sched_first_run();
	exit_to_user_mode(tf);
}
