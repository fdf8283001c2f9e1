/*
 * The lockup detector: kern/watchdog.h says what it checks, docs/SMP.md
 * ("The watchdog") why so.
 *
 * NMI side: no lock, per-CPU state only, but for the one-shot `firing`
 * flag that elects the CPU that reports. The report itself runs in that
 * CPU's NMI (a stuck CPU) or in the PIT tick (a starved task): it asks
 * every other CPU for its stack with an NMI and waits for each, bounded,
 * then prints the run queue without sched_lock (the holder may be the
 * stuck CPU: the walk reads the process table as it is, a fixed array, so
 * it ends), then panics, which ends the run with a failure verdict.
 */
#include "kern/watchdog.h"
#include <arch/arch.h>
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/unwind/kernel.h"
#include "kern/proc/sched.h"
#include "kern/proc/task.h"

static bool armed;                    /* checks on */
static uint64_t irqoff_bound;         /* cycles */
static uint64_t runnable_bound_ns;
static watchdog_action_fn test_action; /* a test's, instead of the report */

static uint64_t progress[ARCH_MAX_CPUS];
static struct watchdog_cpu view[ARCH_MAX_CPUS];
static uint64_t queued_ns[NPROC];     /* clock_ns() when tasks[i] was queued */

static int firing;                    /* a CPU is reporting (once per run) */
static bool dump_wanted[ARCH_MAX_CPUS];

bool watchdog_judge(struct watchdog_cpu *w, uint64_t prog, bool irqs_off,
		    uint64_t now, uint64_t bound)
{
	if (!irqs_off || prog != w->seen_progress) {
		w->seen_progress = prog;
		w->off_since = 0;
		return false;
	}
	if (!w->off_since) {
		w->off_since = now ? now : 1;
		return false;
	}
	return now - w->off_since > bound;
}

static bool is_current(const struct task *t)
{
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
		if (__atomic_load_n(&cpu_current[cpu], __ATOMIC_RELAXED) == t)
			return true;
	return false;
}

struct task *watchdog_starved(struct task *ts, unsigned n, const uint64_t *queued,
			      uint64_t now_ns, uint64_t bound_ns)
{
	for (unsigned i = 0; i < n; i++)
		if (ts[i].state == TASK_RUNNABLE && queued[i] && queued[i] < now_ns &&
		    !is_current(&ts[i]) && now_ns - queued[i] > bound_ns)
			return &ts[i];
	return NULL;
}

void watchdog_touch(void)
{
	__atomic_fetch_add(&progress[arch_cpu_id()], 1, __ATOMIC_RELAXED);
}

void watchdog_queued(struct task *t)
{
	if (t >= tasks && t < tasks + NPROC)
		queued_ns[t - tasks] = clock_ns();
}

static void print_stack(unsigned cpu, const struct nmi_regs *r)
{
	struct task *t = __atomic_load_n(&cpu_current[cpu], __ATOMIC_RELAXED);
	kprintf("watchdog: cpu %u: pid %d (%s), %s, interrupts %s, ip 0x%lx\n", cpu,
		t ? t->pid : -1, t ? t->name : "?", r->user ? "user mode" : "kernel mode",
		r->irqs_off ? "off" : "on", r->ip);
	if (!r->user)
		kunwind_print_from(r->ip, r->sp, r->fp);
}

static const char *const state_names[] = {
	[TASK_FREE] = "free", [TASK_EMBRYO] = "embryo", [TASK_RUNNABLE] = "runnable",
	[TASK_SLEEPING] = "sleeping", [TASK_ZOMBIE] = "zombie",
};

/* Every other CPU prints its stack from an NMI; this one from r (NULL:
 * from here); then the tasks, without sched_lock. */
static void report(unsigned self, const struct nmi_regs *r)
{
	if (r)
		print_stack(self, r);
	else {
		kprintf("watchdog: cpu %u (the reporter): pid %d\n", self,
			cpu_current[self] ? cpu_current[self]->pid : -1);
		kunwind_print_here(KUNWIND_CALLER);
	}
	for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++) {
		if (cpu == self)
			continue;
		__atomic_store_n(&dump_wanted[cpu], true, __ATOMIC_SEQ_CST);
		arch_nmi_cpu(cpu);
		/* One second at most: a CPU inside a long NMI of its own
		 * answers late or never. */
		uint64_t until = arch_cycles() + arch_tsc_hz;
		while (__atomic_load_n(&dump_wanted[cpu], __ATOMIC_SEQ_CST) && arch_cycles() < until)
			arch_cpu_relax();
		if (__atomic_load_n(&dump_wanted[cpu], __ATOMIC_SEQ_CST))
			kprintf("watchdog: cpu %u did not answer its NMI\n", cpu);
	}
	uint64_t now = clock_ns();
	kprintf("watchdog: run queue and tasks at %lu ms:\n", now / 1000000);
	for (unsigned i = 0; i < NPROC; i++) {
		struct task *t = &tasks[i];
		enum task_state st = t->state;
		if (st == TASK_FREE)
			continue;
		int on = -1;
		for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
			if (cpu_current[cpu] == t)
				on = (int)cpu;
		if (on >= 0)
			kprintf("watchdog:   pid %d (%s) running on cpu %d\n", t->pid, t->name, on);
		else if (st == TASK_RUNNABLE)
			kprintf("watchdog:   pid %d (%s) runnable, queued %lu ms ago\n", t->pid,
				t->name, queued_ns[i] ? (now - queued_ns[i]) / 1000000 : 0);
		else
			kprintf("watchdog:   pid %d (%s) %s\n", t->pid, t->name,
				st <= TASK_ZOMBIE ? state_names[st] : "?");
	}
}

void watchdog_nmi(unsigned cpu, const struct nmi_regs *r)
{
	if (__atomic_load_n(&dump_wanted[cpu], __ATOMIC_SEQ_CST)) {
		print_stack(cpu, r);
		__atomic_store_n(&dump_wanted[cpu], false, __ATOMIC_SEQ_CST);
		return;
	}
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) || cpu >= ARCH_MAX_CPUS)
		return;
	uint64_t prog = __atomic_load_n(&progress[cpu], __ATOMIC_RELAXED);
	if (!watchdog_judge(&view[cpu], prog, r->irqs_off, arch_cycles(), irqoff_bound))
		return;
	view[cpu].off_since = 0;
	watchdog_action_fn fn = test_action;
	if (fn) {
		fn(cpu, r);
		return;
	}
	if (__atomic_exchange_n(&firing, 1, __ATOMIC_SEQ_CST))
		return;
	kprintf("watchdog: cpu %u stuck with interrupts off for more than %lu ms "
		"(no interrupt handled, no schedule)\n", cpu,
		(unsigned long)((irqoff_bound * 1000 + arch_tsc_hz / 2) / arch_tsc_hz));
	report(cpu, r);
	panic("watchdog: cpu %u locked up", cpu);
}

void watchdog_tick(void)
{
	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) || test_action)
		return;
	/* Now, under sched_lock: a task queued by another CPU while the
	 * tick waited for the lock is not from the future. */
	uint64_t now_ns = clock_ns();
	struct task *t = watchdog_starved(tasks, NPROC, queued_ns, now_ns, runnable_bound_ns);
	if (!t || __atomic_exchange_n(&firing, 1, __ATOMIC_SEQ_CST))
		return;
	kprintf("watchdog: pid %d (%s) runnable and not run for more than %lu ms\n",
		t->pid, t->name, runnable_bound_ns / 1000000);
	report(arch_cpu_id(), NULL);
	panic("watchdog: pid %d starved", t->pid);
}

void watchdog_init(bool nmis_running)
{
	const char *on = cmdline_get(&boot_args, "watchdog");
	if (on && !cmdline_flag(&boot_args, "watchdog")) {
		kprintf("watchdog: off (watchdog=%s)\n", on);
		return;
	}
	long irqoff = cmdline_int(&boot_args, "watchdog.irqoff_ms", WATCHDOG_IRQOFF_MS_DEFAULT,
				  10, 3600000);
	long runnable = cmdline_int(&boot_args, "watchdog.runnable_ms",
				    WATCHDOG_RUNNABLE_MS_DEFAULT, 10, 3600000);
	long hz = cmdline_int(&boot_args, "watchdog.hz", WATCHDOG_HZ_DEFAULT, 1, 1000);
	irqoff_bound = (uint64_t)irqoff * arch_tsc_hz / 1000;
	runnable_bound_ns = (uint64_t)runnable * 1000000;
	bool own_nmis = !nmis_running;
	__atomic_store_n(&armed, true, __ATOMIC_RELEASE);
	if (own_nmis)
		arch_watchdog_start_all((unsigned)hz);
	kprintf("watchdog: interrupts off %ld ms, runnable %ld ms; checked in %s\n",
		irqoff, runnable, own_nmis ? "its own NMIs" : "the sampling NMIs");
}

void watchdog_stop(void)
{
	__atomic_store_n(&armed, false, __ATOMIC_RELEASE);
}

void watchdog_test_arm(watchdog_action_fn fn, uint64_t irqoff_cycles)
{
	for (unsigned cpu = 0; cpu < ARCH_MAX_CPUS; cpu++)
		view[cpu] = (struct watchdog_cpu){ 0 };
	test_action = fn;
	irqoff_bound = irqoff_cycles;
	__atomic_store_n(&armed, true, __ATOMIC_RELEASE);
}

void watchdog_test_disarm(void)
{
	__atomic_store_n(&armed, false, __ATOMIC_RELEASE);
	test_action = NULL;
}
