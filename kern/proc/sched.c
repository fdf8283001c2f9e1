/*
 * Round-robin scheduling over one run queue shared by every CPU, sleep and
 * wakeup, the tick, and the clock.
 *
 * sched_lock guards the run queue, every task's state, chan and wake_ns,
 * and the process table (kern/proc/proc.c). As in xv6, it is held across the
 * switch: schedule() takes it, switch_to() hands the CPU to the next task,
 * and that task releases it when it resumes (in schedule(), or in
 * sched_first_run() the first time). So a task that is put back on the
 * queue cannot be picked by another CPU before its registers are saved:
 * that CPU cannot take the lock until the switch is over. For the same
 * reason the task that resumes can free a task that exited for good
 * (proc_finish_switch): the CPU has left its stack, and no other CPU can
 * have picked it.
 */
#include "kern/proc/sched.h"
#include <arch/arch.h>
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/lib/spinlock.h"
#include "kern/lib/stats.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/mm/uvm.h"
#include "kern/mm/vm.h"
#include "kern/watchdog.h"
#include "stitch/syscall.h"

struct spinlock sched_lock = SPINLOCK_INIT("sched");
struct task *cpu_current[ARCH_MAX_CPUS];

/* Runnable tasks not running on any CPU, oldest first. Idle tasks are
 * never queued: a CPU runs its own when the queue is empty. */
static struct task *rq_head, *rq_tail;
static uint64_t boot_tsc;
static bool force_migrate;

void clock_init(void)
{
	boot_tsc = arch_cycles();
	force_migrate = cmdline_flag(&boot_args, "sched.migrate");
}

uint64_t clock_ns(void)
{
	return arch_tsc_to_ns(arch_cycles() - boot_tsc);
}

static bool is_idle(unsigned cpu)
{
	return cpu_current[cpu] == &idle_tasks[cpu];
}

/* Idle CPUs sent a wake-up that have not looked at the queue since. */
static bool kicked[ARCH_MAX_CPUS];

/* A CPU that idles halts until an interrupt: tell one that a task is
 * waiting (the first idle CPU after this one not told already, so that
 * tasks queued together go to different CPUs). sched_lock held. */
static void kick_idle_cpu(void)
{
	unsigned self = arch_cpu_id(), n = arch_ncpus();
	for (unsigned i = 1; i < n; i++) {
		unsigned cpu = (self + i) % n;
		if (is_idle(cpu) && !__atomic_load_n(&kicked[cpu], __ATOMIC_RELAXED)) {
			__atomic_store_n(&kicked[cpu], true, __ATOMIC_RELAXED);
			arch_resched_ipi(cpu);
			return;
		}
	}
}

static void rq_push(struct task *t)
{
	t->state = TASK_RUNNABLE;
	t->rq_next = NULL;
	if (rq_tail)
		rq_tail->rq_next = t;
	else
		rq_head = t;
	rq_tail = t;
	watchdog_queued(t);
}

void sched_add(struct task *t)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	rq_push(t);
	kick_idle_cpu();
	spin_unlock_irqrestore(&sched_lock, f);
}

/* The first queued task that may run here: a task being forced to migrate
 * skips the CPU it left (sched_migrate). */
static struct task *rq_pop(void)
{
	unsigned self = arch_cpu_id();
	struct task **link = &rq_head, *prev = NULL;
	for (struct task *t = rq_head; t; prev = t, link = &t->rq_next, t = t->rq_next) {
		if (t->avoid_cpu == self + 1)
			continue;
		*link = t->rq_next;
		if (rq_tail == t)
			rq_tail = prev;
		t->rq_next = NULL;
		t->avoid_cpu = 0;
		return t;
	}
	return NULL;
}

bool sched_has_runnable(void)
{
	return __atomic_load_n(&rq_head, __ATOMIC_RELAXED) != NULL;
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
	if (next->last_cpu != arch_cpu_id() + 1 && next->last_cpu)
		stat_inc(STAT_SCHED_MIGRATIONS);
	next->last_cpu = arch_cpu_id() + 1;
	current = next;
	/* An idle task runs on its CPU's start stack, which kunwind knows. */
	kunwind_set_task_stack(next == &idle_task ? NULL : &next->kbounds);
	arch_switch(&prev->arch, &next->arch, next->kstack_top);
}

/* With sched_lock held (interrupts off): run the next task, come back
 * when current is picked again. False if current just goes on. */
static bool sched_locked(void)
{
	struct task *prev = current;
	watchdog_touch();
	__atomic_store_n(&kicked[arch_cpu_id()], false, __ATOMIC_RELAXED);
	task_clear_pending(prev, TIF_NEED_RESCHED);
	if (prev->state == TASK_RUNNABLE && prev != &idle_task)
		rq_push(prev);
	struct task *next = rq_pop();
	if (!next)
		next = &idle_task;
	/* Still others waiting (the slice ended with more tasks than busy
	 * CPUs): an idle CPU takes one. */
	if (rq_head)
		kick_idle_cpu();
	if (next == prev)
		return false;
	switch_to(prev, next);
	/* Running as next now (as prev when it is switched back to), on
	 * whatever CPU, still under the lock. */
	proc_finish_switch();
	return true;
}

void schedule(void)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	sched_locked();
	spin_unlock_irqrestore(&sched_lock, f);
}

bool sched_run_next(void)
{
	/* Awake: a kick from now on needs a new IPI. */
	__atomic_store_n(&kicked[arch_cpu_id()], false, __ATOMIC_RELAXED);
	if (!sched_has_runnable())
		return false;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	bool ran = sched_locked();
	spin_unlock_irqrestore(&sched_lock, f);
	return ran;
}

void sched_first_run(void)
{
	proc_finish_switch(); /* the end of the switch that started it */
	spin_unlock(&sched_lock);
}

__attribute__((noreturn)) void sched_exit_locked(void)
{
	sched_locked();
	panic("sched_exit_locked: zombie %d was scheduled", current->pid);
}

bool sched_migrate(void)
{
	struct task *t = current;
	/* Once per kernel entry: the task work then runs where it landed. */
	if (!force_migrate || arch_ncpus() < 2 || t->migrated_entry == t->kernel_entries)
		return false;
	t->migrated_entry = t->kernel_entries;
	stat_inc(STAT_SCHED_FORCED_MIGRATIONS);
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	t->avoid_cpu = arch_cpu_id() + 1;
	kick_idle_cpu();
	sched_locked();
	spin_unlock_irqrestore(&sched_lock, f);
	return true;
}

void task_wake_locked(struct task *t)
{
	if (t->state == TASK_SLEEPING) {
		t->chan = NULL;
		t->wake_ns = 0;
		rq_push(t);
		kick_idle_cpu();
	}
}

void task_kick_locked(struct task *t)
{
	task_wake_locked(t);
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		if (cpu_current[cpu] == t && cpu != arch_cpu_id())
			arch_resched_ipi(cpu);
}

void task_wake(struct task *t)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	task_wake_locked(t);
	spin_unlock_irqrestore(&sched_lock, f);
}

int sleep_on_locked(const void *chan, struct spinlock *lk)
{
	struct task *t = current;
	if (lk != &sched_lock) {
		spin_lock(&sched_lock);
		spin_unlock(lk);
	}
	if (!task_interrupted(t)) {
		t->chan = chan;
		t->state = TASK_SLEEPING;
		sched_locked();
	}
	if (lk != &sched_lock) {
		spin_unlock(&sched_lock);
		spin_lock(lk);
	}
	return task_interrupted(t) ? -STITCH_EINTR : 0;
}

int sleep_on(const void *chan)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	int err = sleep_on_locked(chan, &sched_lock);
	spin_unlock_irqrestore(&sched_lock, f);
	return err;
}

void wakeup_locked(const void *chan)
{
	for (struct task *t = tasks; t < tasks + NPROC; t++)
		if (t->state == TASK_SLEEPING && t->chan == chan)
			task_wake_locked(t);
}

void wakeup(const void *chan)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	wakeup_locked(chan);
	spin_unlock_irqrestore(&sched_lock, f);
}

/* The channel of timed sleeps: only the tick (or a kill) wakes them. The
 * deadline is set under the lock the tick takes, so a deadline that passes
 * between the check and the sleep is seen by the next tick. */
static const char timer_chan;

#define SLICE_TICKS 10 /* 10 ms at the 1000 Hz tick */
static uint64_t ticks; /* sched_tick's, under sched_lock */

int sleep_until(uint64_t deadline_ns)
{
	struct task *t = current;
	while (clock_ns() < deadline_ns) {
		irqflags_t f = spin_lock_irqsave(&sched_lock);
		t->wake_ns = deadline_ns;
		int err = sleep_on_locked(&timer_chan, &sched_lock);
		t->wake_ns = 0;
		spin_unlock_irqrestore(&sched_lock, f);
		if (err)
			return err;
	}
	return 0;
}

/* The PIT tick, on the boot CPU: wakes timed sleepers and ends the time
 * slice of every CPU's task when others wait (the other CPUs through an
 * IPI, whose return path reschedules). */
void sched_tick(void)
{
	uint64_t now = clock_ns();
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	bool woke = false;
	for (struct task *t = tasks; t < tasks + NPROC; t++) {
		if (t->state == TASK_SLEEPING && t->wake_ns && now >= t->wake_ns) {
			task_wake_locked(t);
			woke = true;
		}
		signal_tick_locked(t, now);
	}
	unsigned self = arch_cpu_id();
	/* The time slice is SLICE_TICKS ticks; the tick is finer for the
	 * timed sleeps and interval timers. A sleeper this tick woke ends the
	 * slices now, as a slice's end would: otherwise a timed sleep next to
	 * a spinner would last up to a slice longer than asked. */
	bool slice_over = ++ticks % SLICE_TICKS == 0 || woke;
	for (unsigned cpu = 0; slice_over && rq_head && cpu < arch_ncpus(); cpu++) {
		if (is_idle(cpu))
			continue;
		task_set_pending(cpu_current[cpu], TIF_NEED_RESCHED);
		if (cpu != self)
			arch_resched_ipi(cpu);
	}
	watchdog_tick();
	spin_unlock_irqrestore(&sched_lock, f);
}

void sched_init_idle(void)
{
	struct task *idle = &idle_task;
	strlcpy(idle->name, "idle", sizeof(idle->name));
	idle->state = TASK_RUNNABLE;
	idle->last_cpu = arch_cpu_id() + 1;
	arch_task_init(&idle->arch);
	current = idle;
}

/* An AP's life after bring-up: its idle task, then the idle loop. */
void sched_idle_cpu(void)
{
	sched_init_idle();
	sched_idle_loop(NULL);
	panic("sched_idle_cpu: the idle loop ended");
}

__attribute__((noinline)) void sched_idle_loop(bool (*done)(void))
{
	for (;;) {
		irq_disable();
		if (done) {
			spin_lock(&sched_lock);
			bool stop = done();
			spin_unlock(&sched_lock);
			if (stop)
				return;
		}
		if (!sched_run_next())
			irq_wait();
	}
}
