/*
 * The common return-to-user path (kern/entry.h). docs/PROCESSES.md has the
 * picture; the deferred unwinder hangs its work here.
 */
#include "kern/entry.h"
#include "arch/x86_64/arch.h"
#include "kern/console.h"
#include "kern/sched.h"
#include "kern/task.h"
#include "kern/task_work.h"
#include "kern/irq_work.h"
#include "kern/unwind_deferred.h"

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

/* A condemned task dies here, in its own context, with its user frame at
 * hand for the report line. */
__attribute__((noreturn)) static void die(struct task *t, struct trap_frame *tf)
{
	int sig = t->kill_sig;
	uint64_t rip = t->kill_rip ? t->kill_rip : tf->rip;
	kprintf("stitch: pid %d (%s) killed: %s rip=0x%lx addr=0x%lx status %d\n",
		t->pid, t->name, t->kill_reason, rip, t->kill_addr, 128 + sig);
	task_exit(sig);
}

void exit_to_user_mode(struct trap_frame *tf)
{
	struct task *t = current;
	for (;;) {
		cli();
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
			sti();
			pause();
			continue;
		}
		sti();
		if (work & (1ul << TIF_KILLED))
			die(t, tf);
		if (work & (1ul << TIF_NEED_RESCHED))
			schedule();
		/* sched.migrate: the unwind that is due runs on another CPU
		 * than the one that asked for it (docs/SMP.md). */
		if (work & (1ul << TIF_TASK_WORK) && !sched_migrate())
			task_work_run();
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
