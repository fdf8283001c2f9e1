/*
 * The deferred-unwind core (kern/unwind/deferred.h, docs/DEFERRED.md):
 * request -> irq work -> task work -> unwind -> each consumer's callback.
 *
 * Each task has one state word that NMIs, interrupt handlers and the task
 * itself update only with atomic read-modify-writes:
 *
 *   63                                   8  7         6         4    0
 *   +-------------------------------------+---------+---------+--+----+
 *   | cookie (56 bits, 0: none yet)       | PENDING | EXITING |  |bits|
 *   +-------------------------------------+---------+---------+--+----+
 *
 *   cookie   assigned by the first request after the entry, kept until the
 *            return to user mode: counter << 3 | cpu, from a per-CPU
 *            counter that starts at 1. So never 0, unique across CPUs
 *            (the CPU index) and over time (2^53 cookies per CPU).
 *   bits     the consumers (unwind_work.bit) that asked for this cookie.
 *   PENDING  a task work is on its way (irq work, IPI, task work queued)
 *            and has not yet read the bits.
 *   EXITING  the task's user context is going and it has settled what it
 *            owed: requests are refused, for good at exit
 *            (unwind_deferred_task_exit), until the return to user mode
 *            after an exec or a signal frame (unwind_deferred_settle).
 *
 * Keeping all of it in one word makes the return to user mode exact: it
 * clears the word with one compare-and-swap, and only if PENDING is clear.
 * A request that an NMI makes in between is either before the swap (the
 * swap fails, the request is served in this entry) or after it (a fresh
 * cookie for the next entry); no request is lost or answered twice.
 */
#include "kern/unwind/deferred.h"
#include <arch/arch.h>
#include "kern/proc/irq_work.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/lib/stats.h"
#include "kern/proc/task.h"
#include "kern/proc/task_work.h"
#include "kern/unwind/lookup.h"
#include "stitch/syscall.h"

#define WORK_BITS     ((1u << UNWIND_MAX_WORKS) - 1)
#define STATE_EXITING (1ull << 6)
#define STATE_PENDING (1ull << 7)
#define COOKIE_SHIFT  8
#define COOKIE_CPU_BITS 3

_Static_assert(ARCH_MAX_CPUS <= 1 << COOKIE_CPU_BITS, "cookie: CPU bits");
_Static_assert(UNWIND_MAX_WORKS <= 6, "consumer bits below EXITING");

#define container_of(p, type, member) \
	((type *)((char *)(p) - __builtin_offsetof(type, member)))

struct unwind_task_info {
	uint64_t state;              /* see above */
	struct task *task;
	struct irq_work irq;         /* NMI -> self-IPI -> task_work_add */
	struct task_work work;       /* the unwind, on the way back to ring 3 */
	/* Task context only (the task work, the return to user, exit): */
	unsigned completed;          /* consumers called for this cookie */
	bool taken;                  /* trace holds this entry's unwind */
	struct unwind_trace trace;   /* entries: max of them, after the info */
	uint32_t max;                /* max_entries when the task was made */
	/* The walks' rule cache (kern/unwind/lookup.h): made at the first
	 * unwind (most tasks never take one), freed with the info. */
	struct rule_cache *cache;
	bool cache_made;             /* tried: cache is it, or NULL for good */
};

static struct unwind_work *works[UNWIND_MAX_WORKS];
static uint32_t max_entries = 1;
static uint64_t cookie_counter[ARCH_MAX_CPUS];

int unwind_deferred_init(struct unwind_work *work, unwind_callback_t func)
{
	for (int b = 0; b < UNWIND_MAX_WORKS; b++)
		if (!works[b]) {
			work->func = func;
			work->bit = b;
			works[b] = work;
			return 0;
		}
	return -STITCH_EBUSY;
}

void unwind_deferred_setup(uint32_t max)
{
	max_entries = MAX(max, 1u);
}

static uint64_t new_cookie(unsigned cpu)
{
	uint64_t n = __atomic_add_fetch(&cookie_counter[cpu], 1, __ATOMIC_RELAXED);
	return n << COOKIE_CPU_BITS | cpu;
}

/* The request's way to the task work: from an NMI through irq work (an
 * NMI returns to ring 3 without the return-to-user work; the self-IPI's
 * return does it), from anywhere else directly. */
static void queue_task_work(struct unwind_task_info *info, unsigned cpu)
{
	if (arch_in_nmi_on(cpu))
		irq_work_queue(&info->irq);
	else
		task_work_add(info->task, &info->work);
}

int unwind_deferred_request(struct unwind_work *work, uint64_t *cookie)
{
	/* First a line of this function, not the inlined arch_cpu_id():
	 * the function's first instruction takes the first statement's
	 * line, and `break unwind_deferred_request` in gdb reports it. */
	uint64_t bit = 1ull << work->bit;
	/* The CPU index once, for current, the cookie, the counters and
	 * the NMI check: the sampling NMI calls this for every sample. */
	unsigned cpu = arch_cpu_id();
	struct task *t = cpu_current[cpu];
	struct unwind_task_info *info = t ? t->unwind : NULL;
	if (!info || !__atomic_load_n(&t->mm, __ATOMIC_RELAXED))
		return -STITCH_EINVAL;

	uint64_t old = __atomic_load_n(&info->state, __ATOMIC_RELAXED), new;
	do {
		if (old & STATE_EXITING)
			return -STITCH_EINVAL;
		new = old | bit;
		if (!(old >> COOKIE_SHIFT))
			new |= new_cookie(cpu) << COOKIE_SHIFT;
		if (!(old & bit))
			new |= STATE_PENDING;
	} while (!__atomic_compare_exchange_n(&info->state, &old, new, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	stat_inc_on(cpu, STAT_DEFERRED_REQUESTS);
	*cookie = new >> COOKIE_SHIFT;
	if (old & bit) {
		stat_inc_on(cpu, STAT_REQUESTS_COALESCED);
		return 1;
	}
	if (!(old & STATE_PENDING))
		queue_task_work(info, cpu);
	return 0;
}

/* The irq work, in the self-IPI handler: hand the unwind to the task the
 * NMI interrupted. That is usually current; not if the NMI came while
 * interrupts were off in schedule() and the IPI waited for the next task. */
static void unwind_deferred_irq_work(struct irq_work *iw)
{
	struct unwind_task_info *info = container_of(iw, struct unwind_task_info, irq);
	if (info->task != current) {
		stat_inc(STAT_UNWIND_IPI_OTHER_TASK);
		/* It moved on to another CPU (after the NMI, while interrupts
		 * were off here): the task work still reaches it there, and
		 * its return to user waits for it (PENDING). */
		for (unsigned cpu = 0; cpu < arch_ncpus(); cpu++)
			if (cpu_current[cpu] == info->task)
				stat_inc(STAT_UNWIND_IPI_REMOTE_TASK);
	}
	/* -ESRCH: the task is exiting; unwind_deferred_task_exit
	 * answers the request. */
	task_work_add(info->task, &info->work);
}

/* The entry's one unwind: taken for its first consumer, in the task's own
 * buffer, and reused for the others (Linux's unwind_user_faultable with
 * its cache). Task context: it may fault and reschedule. */
static const struct unwind_trace *unwind_user_faultable(struct unwind_task_info *info)
{
	if (info->taken) {
		stat_inc(STAT_UNWIND_REUSED);
		return &info->trace;
	}
	struct task *t = info->task;
	if (!info->cache_made && unwind_user_walks_tables()) {
		info->cache = rule_cache_new();
		info->cache_made = true;
	}
	uint64_t faults = t->kernel_page_faults, t0 = arch_cycles();
	info->trace.nr = unwind_user(info->trace.entries, info->max,
				     &info->trace.stop, info->cache);
	uint64_t cycles = arch_cycles() - t0;
	info->taken = true;
	/* The CPU once for the six counters (after the unwind, which may
	 * have been preempted and moved; each add is atomic anyway). */
	unsigned cpu = arch_cpu_id();
	stat_inc_on(cpu, STAT_UNWINDS_RUN);
	stat_add_on(cpu, STAT_FRAMES_UNWOUND, info->trace.nr);
	stat_add_on(cpu, STAT_UNWIND_PAGE_FAULTS, t->kernel_page_faults - faults);
	stat_unwind_stop_on(cpu, info->trace.stop);
	stat_add_on(cpu, STAT_UNWIND_CYCLES_TOTAL, cycles);
	stat_max_on(cpu, STAT_UNWIND_CYCLES_MAX, cycles);
	return &info->trace;
}

/* Calls each consumer in bits not yet called for this cookie, once, with
 * the entry's trace. */
static void process_unwind_deferred(struct unwind_task_info *info, unsigned bits,
				    uint64_t cookie)
{
	/* Only the bits that are set: usually one consumer asked. */
	for (unsigned todo = bits & ~info->completed; todo; todo &= todo - 1) {
		int b = __builtin_ctz(todo);
		if (!works[b])
			continue;
		const struct unwind_trace *trace = unwind_user_faultable(info);
		info->completed |= 1u << b;
		works[b]->func(works[b], trace, cookie);
	}
}

/* The task work: task context, interrupts on, faults allowed. */
static void unwind_deferred_task_work(struct task_work *w)
{
	struct unwind_task_info *info = container_of(w, struct unwind_task_info, work);
	/* Clear PENDING first: a request from here on queues the work again
	 * and is served by the next turn of the return-to-user loop. */
	uint64_t s = __atomic_fetch_and(&info->state, ~STATE_PENDING, __ATOMIC_SEQ_CST);
	unsigned bits = s & WORK_BITS & ~info->completed;
	if (!bits)
		return;
	if (((s >> COOKIE_SHIFT) & ((1u << COOKIE_CPU_BITS) - 1)) != arch_cpu_id())
		stat_inc(STAT_UNWIND_CROSS_CPU);
	process_unwind_deferred(info, bits, s >> COOKIE_SHIFT);
	/* No tail call: this frame stays on the stack, so that a debugger's
	 * backtrace from the unwind shows the task work (docs/DEFERRED.md,
	 * step 5). It costs a return, once per unwind. */
	arch_compiler_barrier();
}

bool unwind_exit_to_user(struct task *t)
{
	struct unwind_task_info *info = t->unwind;
	if (!info)
		return true;
	uint64_t s = __atomic_load_n(&info->state, __ATOMIC_RELAXED);
	do {
		if (!s)
			return true;
		if (s & STATE_PENDING)
			return false;
	} while (!__atomic_compare_exchange_n(&info->state, &s, 0, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	info->completed = 0;
	info->taken = false;
	return true;
}

/* No address space, nothing to read: each consumer that asked hears that
 * there will be no stack (an empty trace, stop task-exited, counted once). */
static void answer_task_exited(struct unwind_task_info *info, unsigned bits,
			       uint64_t cookie)
{
	info->trace.nr = 0;
	info->trace.stop = UNWIND_STOP_TASK_EXITED;
	stat_unwind_stop(UNWIND_STOP_TASK_EXITED);
	for (int b = 0; b < UNWIND_MAX_WORKS; b++)
		if (bits & (1u << b) && works[b])
			works[b]->func(works[b], &info->trace, cookie);
}

void unwind_deferred_task_exit(struct task *t)
{
	struct unwind_task_info *info = t->unwind;
	if (!info)
		return;
	/* Settle what is owed: no request gets in after this swap. */
	uint64_t s = __atomic_exchange_n(&info->state, STATE_EXITING, __ATOMIC_SEQ_CST);
	/* The task's irq work may still be queued (its IPI not taken yet),
	 * here or on a CPU the task ran on before: run it or wait for it,
	 * before the info can go away with the task. Its task_work_add
	 * fails (the task is exiting): served below. */
	if (irq_work_wait(&info->irq))
		stat_inc(STAT_UNWIND_EXIT_WAITS);

	unsigned bits = s & WORK_BITS & ~info->completed;
	if (!bits)
		return;
	/* The address space, and in it the user stack of the last entry,
	 * is still there: the unwind it owes is done now, as on the way
	 * back to user mode. */
	if (!t->mm && !info->taken)
		answer_task_exited(info, bits, s >> COOKIE_SHIFT);
	else
		process_unwind_deferred(info, bits, s >> COOKIE_SHIFT);
}

void unwind_deferred_settle(struct task *t)
{
	struct unwind_task_info *info = t->unwind;
	/* EXITING refuses new requests until the return to user mode clears
	 * the word (unwind_exit_to_user). A request already made may have
	 * queued the task work, which then finds nothing left to do. */
	uint64_t s = __atomic_fetch_or(&info->state, STATE_EXITING, __ATOMIC_SEQ_CST);
	irq_work_wait(&info->irq);
	unsigned bits = s & WORK_BITS & ~info->completed;
	if (bits)
		process_unwind_deferred(info, bits, s >> COOKIE_SHIFT);
}

int unwind_task_init(struct task *t)
{
	struct unwind_task_info *info =
		kzalloc(sizeof *info + max_entries * sizeof(uint64_t));
	if (!info)
		return -STITCH_ENOMEM;
	info->task = t;
	info->max = max_entries;
	info->irq.func = unwind_deferred_irq_work;
	info->work.func = unwind_deferred_task_work;
	info->trace.entries = (uint64_t *)(info + 1);
	t->unwind = info;
	return 0;
}

void unwind_task_free(struct task *t)
{
	if (t->unwind)
		rule_cache_free(t->unwind->cache);
	kfree(t->unwind);
	t->unwind = NULL;
}
