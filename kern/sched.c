/*
 * Round-robin scheduling, sleep and wakeup, the tick, and the clock.
 */
#include "kern/sched.h"
#include "arch/x86_64/arch.h"
#include "kern/kernel.h"
#include "kern/task.h"
#include "kern/uvm.h"
#include "kern/vm.h"
#include "stitch/syscall.h"

struct task *current;

/* Runnable tasks other than current, oldest first. The idle task is never
 * queued: it runs when the queue is empty. */
static struct task *rq_head, *rq_tail;
static uint64_t boot_tsc;

void clock_init(void)
{
	boot_tsc = rdtsc();
}

uint64_t clock_ns(void)
{
	return tsc_to_ns(rdtsc() - boot_tsc);
}

void sched_add(struct task *t)
{
	irqflags_t f = irq_save();
	t->state = TASK_RUNNABLE;
	t->rq_next = NULL;
	if (rq_tail)
		rq_tail->rq_next = t;
	else
		rq_head = t;
	rq_tail = t;
	irq_restore(f);
}

static struct task *rq_pop(void)
{
	struct task *t = rq_head;
	if (t) {
		rq_head = t->rq_next;
		if (!rq_head)
			rq_tail = NULL;
		t->rq_next = NULL;
	}
	return t;
}

bool sched_has_runnable(void)
{
	return rq_head != NULL;
}

/* Charges the outgoing task's kernel time, loads the incoming task's
 * address space and CPU state. */
static void switch_to(struct task *prev, struct task *next)
{
	uint64_t now = clock_ns();
	prev->stime_ns += now - prev->acct_ts;
	next->acct_ts = now;
	const struct vm_space *as = next->mm ? &next->mm->vm : &kernel_space;
	if (!vm_is_current(as))
		vm_switch(as);
	current = next;
	/* The idle task runs on the boot stack, which kunwind knows. */
	kunwind_set_task_stack(next == &idle_task ? NULL : &next->kbounds);
	arch_switch(&prev->arch, &next->arch, next->kstack_top);
}

void schedule(void)
{
	irqflags_t f = irq_save();
	struct task *prev = current;
	task_clear_pending(prev, TIF_NEED_RESCHED);
	if (prev->state == TASK_RUNNABLE && prev != &idle_task)
		sched_add(prev);
	struct task *next = rq_pop();
	if (!next)
		next = &idle_task;
	if (next != prev) {
		switch_to(prev, next);
		/* Running as next now (as prev when it is switched back to). */
		proc_finish_switch();
	}
	irq_restore(f);
}

void task_wake(struct task *t)
{
	irqflags_t f = irq_save();
	if (t->state == TASK_SLEEPING) {
		t->chan = NULL;
		t->wake_ns = 0;
		sched_add(t);
	}
	irq_restore(f);
}

int sleep_on(const void *chan)
{
	struct task *t = current;
	irqflags_t f = irq_save();
	if (!task_killed(t)) {
		t->chan = chan;
		t->state = TASK_SLEEPING;
		schedule();
	}
	irq_restore(f);
	return task_killed(t) ? -STITCH_EINTR : 0;
}

void wakeup(const void *chan)
{
	irqflags_t f = irq_save();
	for (struct task *t = tasks; t < tasks + NPROC; t++)
		if (t->state == TASK_SLEEPING && t->chan == chan)
			task_wake(t);
	irq_restore(f);
}

/* The channel of timed sleeps: only the tick (or a kill) wakes them. */
static const char timer_chan;

int sleep_until(uint64_t deadline_ns)
{
	struct task *t = current;
	while (clock_ns() < deadline_ns) {
		irqflags_t f = irq_save();
		t->wake_ns = deadline_ns;
		int err = sleep_on(&timer_chan);
		t->wake_ns = 0;
		irq_restore(f);
		if (err)
			return err;
	}
	return 0;
}

void sched_tick(void)
{
	uint64_t now = clock_ns();
	for (struct task *t = tasks; t < tasks + NPROC; t++)
		if (t->state == TASK_SLEEPING && t->wake_ns && now >= t->wake_ns)
			task_wake(t);
	if (rq_head && current != &idle_task)
		task_set_pending(current, TIF_NEED_RESCHED);
}
