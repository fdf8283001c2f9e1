/*
 * The deferred-unwind core (kern/unwind_deferred.h, docs/DEFERRED.md).
 *
 * Each task has one state word that NMIs, interrupt handlers and the task
 * itself update only with atomic read-modify-writes:
 *
 *   63                                   8  7         6         5      3    0
 *   +-------------------------------------+---------+---------+-------+--+----+
 *   | cookie (56 bits, 0: none yet)       | PENDING | SAMPLED |EXITING|  |bits|
 *   +-------------------------------------+---------+---------+-------+--+----+
 *
 *   cookie   assigned by the first request after the entry, kept until the
 *            return to user mode: counter << 3 | cpu, from a per-CPU
 *            counter that starts at 1. So never 0, unique across CPUs
 *            (the CPU index) and over time (2^53 cookies per CPU).
 *   bits     the consumers (unwind_work.bit) that asked for this cookie.
 *   PENDING  a task work is on its way (irq work, IPI, task work queued)
 *            and has not yet read the bits.
 *   SAMPLED  the sampler took a sample of this entry (the counter
 *            entries_with_samples, which the tests compare with records).
 *   EXITING  the task is exiting and has settled what it owed: requests
 *            are refused from then on (unwind_deferred_task_exit).
 *
 * Keeping all of it in one word makes the return to user mode exact: it
 * clears the word with one compare-and-swap, and only if PENDING is clear.
 * A request that an NMI makes in between is either before the swap (the
 * swap fails, the request is served in this entry) or after it (a fresh
 * cookie for the next entry); no request is lost or answered twice.
 */
#include "kern/unwind_deferred.h"
#include <arch/arch.h>
#include "kern/irq_work.h"
#include "kern/kernel.h"
#include "kern/kmalloc.h"
#include "kern/profile.h"
#include "kern/record.h"
#include "kern/stats.h"
#include "kern/task.h"
#include "kern/task_work.h"
#include "kern/unwind_user.h"
#include "stitch/syscall.h"

#define WORK_BITS     ((1u << UNWIND_MAX_WORKS) - 1)
#define STATE_EXITING (1ull << 5)
#define STATE_SAMPLED (1ull << 6)
#define STATE_PENDING (1ull << 7)
#define COOKIE_SHIFT  8
#define COOKIE_CPU_BITS 3

_Static_assert(ARCH_MAX_CPUS <= 1 << COOKIE_CPU_BITS, "cookie: CPU bits");
_Static_assert(UNWIND_MAX_WORKS <= 5, "consumer bits below EXITING");

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
	struct unwind_trace trace;   /* entries point into rec->ips */
	uint32_t max;                /* profile.frames, as it fits a record */
	struct rec_deferred *rec;    /* the record the consumers write */
};

static struct unwind_work *works[UNWIND_MAX_WORKS];
static enum unwind_method method = UNWIND_METHOD_SFRAME;
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

void unwind_deferred_set_method(uint32_t mode)
{
	method = mode == MODE_FP_DEFERRED ? UNWIND_METHOD_FP :
		 mode == MODE_GUESS       ? UNWIND_METHOD_GUESS :
					    UNWIND_METHOD_SFRAME;
}

static uint64_t new_cookie(void)
{
	unsigned cpu = arch_cpu_id();
	uint64_t n = __atomic_add_fetch(&cookie_counter[cpu], 1, __ATOMIC_RELAXED);
	return n << COOKIE_CPU_BITS | cpu;
}

/* The irq work, in the self-IPI handler: hand the unwind to the task the
 * NMI interrupted. That is usually current; not if the NMI came while
 * interrupts were off in schedule() and the IPI waited for the next task. */
static void unwind_irq_work(struct irq_work *iw)
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

static void queue_task_work(struct unwind_task_info *info)
{
	if (arch_in_nmi())
		irq_work_queue(&info->irq);
	else
		task_work_add(info->task, &info->work);
}

int unwind_deferred_request(struct unwind_work *work, uint64_t *cookie)
{
	struct task *t = current;
	struct unwind_task_info *info = t ? t->unwind : NULL;
	if (!info || !__atomic_load_n(&t->mm, __ATOMIC_RELAXED))
		return -STITCH_EINVAL;

	uint64_t bit = 1ull << work->bit;
	uint64_t old = __atomic_load_n(&info->state, __ATOMIC_RELAXED), new;
	do {
		if (old & STATE_EXITING)
			return -STITCH_EINVAL;
		new = old | bit;
		if (!(old >> COOKIE_SHIFT))
			new |= new_cookie() << COOKIE_SHIFT;
		if (!(old & bit))
			new |= STATE_PENDING;
	} while (!__atomic_compare_exchange_n(&info->state, &old, new, false,
					      __ATOMIC_SEQ_CST, __ATOMIC_RELAXED));
	stat_inc(STAT_DEFERRED_REQUESTS);
	*cookie = new >> COOKIE_SHIFT;
	if (old & bit) {
		stat_inc(STAT_REQUESTS_COALESCED);
		return 1;
	}
	if (!(old & STATE_PENDING))
		queue_task_work(info);
	return 0;
}

void unwind_deferred_note_sample(struct task *t)
{
	if (t && t->unwind)
		__atomic_fetch_or(&t->unwind->state, STATE_SAMPLED, __ATOMIC_SEQ_CST);
}

/* The one unwind of this entry, into the task's own buffer. */
static void take_trace(struct unwind_task_info *info)
{
	struct task *t = info->task;
	uint64_t faults = t->kernel_page_faults, t0 = arch_cycles();
	info->trace.nr = unwind_user(method, info->trace.entries, info->max,
				     &info->trace.stop);
	uint64_t cycles = arch_cycles() - t0;
	info->taken = true;
	stat_inc(STAT_UNWINDS_RUN);
	stat_add(STAT_FRAMES_UNWOUND, info->trace.nr);
	stat_add(STAT_UNWIND_PAGE_FAULTS, t->kernel_page_faults - faults);
	stat_unwind_stop(info->trace.stop);
	stat_add(STAT_UNWIND_CYCLES_TOTAL, cycles);
	stat_max(STAT_UNWIND_CYCLES_MAX, cycles);
}

/* Calls each consumer in bits not yet called for this cookie, with the
 * entry's one trace: taken for the first, shared by the others. */
static void call_works(struct unwind_task_info *info, unsigned bits, uint64_t cookie)
{
	for (int b = 0; b < UNWIND_MAX_WORKS; b++) {
		if (!(bits & ~info->completed & (1u << b)) || !works[b])
			continue;
		if (info->taken)
			stat_inc(STAT_UNWIND_REUSED);
		else
			take_trace(info);
		info->completed |= 1u << b;
		works[b]->func(works[b], &info->trace, cookie);
	}
}

/* The task work: task context, interrupts on, faults allowed. */
static void unwind_task_work(struct task_work *w)
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
	call_works(info, bits, s >> COOKIE_SHIFT);
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
	if (s & STATE_SAMPLED)
		stat_inc(STAT_ENTRIES_WITH_SAMPLES);
	info->completed = 0;
	info->taken = false;
	return true;
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

	if (s & STATE_SAMPLED)
		stat_inc(STAT_ENTRIES_WITH_SAMPLES);
	unsigned bits = s & WORK_BITS & ~info->completed;
	if (!bits)
		return;
	/* The address space, and in it the user stack of the last entry,
	 * is still there: the unwind it owes is done now, as on the way
	 * back to user mode. Without one nothing can be read, and the
	 * consumers learn that there will be no stack. */
	if (!t->mm && !info->taken) {
		info->trace.nr = 0;
		info->trace.stop = UNWIND_STOP_TASK_EXITED;
		stat_unwind_stop(UNWIND_STOP_TASK_EXITED);
		for (int b = 0; b < UNWIND_MAX_WORKS; b++)
			if (bits & (1u << b) && works[b])
				works[b]->func(works[b], &info->trace, s >> COOKIE_SHIFT);
		return;
	}
	call_works(info, bits, s >> COOKIE_SHIFT);
}

int unwind_deferred_record(const struct unwind_trace *trace, uint64_t cookie,
			   uint32_t consumer)
{
	struct unwind_task_info *info = container_of(trace, struct unwind_task_info, trace);
	struct rec_deferred *r = info->rec;
	r->time = record_time();
	r->cpu = arch_cpu_id();
	r->pid = (uint32_t)info->task->pid;
	r->tid = (uint32_t)info->task->tid;
	r->stop = trace->stop;
	r->cookie = cookie;
	r->period = 0;
	r->nr = 1 + trace->nr; /* PERF_CONTEXT_USER, then the entries */
	r->consumer = consumer;
	r->ips[0] = PERF_CONTEXT_USER;
	int err = record_write(REC_DEFERRED, r, sizeof *r + r->nr * sizeof r->ips[0]);
	if (!err)
		stat_inc(STAT_DEFERRED_RECORDS);
	return err;
}

/* profile.frames entries, at most what fits one record with its marker. */
static uint32_t max_frames(void)
{
	uint32_t fit = (RECORD_MAX - sizeof(struct rec_deferred)) / sizeof(uint64_t) - 1;
	return MIN(MAX(profile.frames, 1u), fit);
}

int unwind_task_init(struct task *t)
{
	uint32_t max = max_frames();
	size_t rec_size = sizeof(struct rec_deferred) + (1 + max) * sizeof(uint64_t);
	struct unwind_task_info *info = kzalloc(sizeof *info + rec_size);
	if (!info)
		return -STITCH_ENOMEM;
	info->task = t;
	info->irq.func = unwind_irq_work;
	info->work.func = unwind_task_work;
	info->max = max;
	info->rec = (struct rec_deferred *)(info + 1);
	info->trace.entries = info->rec->ips + 1;
	t->unwind = info;
	return 0;
}

void unwind_task_free(struct task *t)
{
	kfree(t->unwind);
	t->unwind = NULL;
}
