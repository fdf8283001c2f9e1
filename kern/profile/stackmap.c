/*
 * The stack map (kern/profile/stackmap.h, docs/DEFERRED.md "The third
 * consumer").
 *
 * Three lock-free tables fixed at boot (kern/profile/stacktable.h): the
 * kernel stacks, the user stacks, and the keys (three words each) with a
 * count beside each key. The NMI interns kernel stacks and keys, the
 * deferred callback user stacks and keys, on any CPU at once.
 *
 * Each task has a waiting room for the samples of its current kernel
 * entry: (cookie, kernel stack id, user ip) and how many. Only two parties
 * touch it, both for the task that runs: the NMI on its CPU, which
 * interrupts the other, and the task itself in the deferred callback.
 * The callback first publishes its answer (the cookie and the user stack
 * id), then empties the room; an NMI that finds its cookie answered counts
 * at once and leaves the room alone. So an NMI never meets the callback
 * half-way through the room, and no sample of an answered entry waits.
 */
#include "kern/profile/stackmap.h"
#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/lib/cmdline.h"
#include "kern/lib/string.h"
#include "kern/mm/kmalloc.h"
#include "kern/mm/uvm.h"
#include "kern/profile/record.h"
#include "kern/profile/sample.h"
#include "kern/profile/stacktable.h"
#include "kern/lib/stats.h"
#include "kern/proc/task.h"
#include "kern/unwind/deferred.h"
#include "kern/unwind/kernel.h"
#include "stitch/syscall.h"

/* Room for a user stack in the user table: on average this many words a
 * stack (a pool shared by all; a stack that does not fit is a full table). */
#define USER_WORDS_AVERAGE 32
#define KEY_WORDS 3
#define WAITING 32 /* distinct (kernel stack, ip) a task's entry may hold */

static struct stack_table kstacks, ustacks, keys;
static uint64_t *counts; /* beside keys: counts[id - 1], one per slot */

/* A task's samples waiting for their user half. */
struct waiting {
	uint64_t cookie;    /* 0: a free place; stored last, with release */
	uint32_t pid, program, kstack, n;
	uint64_t ip;        /* the user pc of an NMI in ring 3, else 0 */
};

struct task_room {
	uint64_t answered;  /* the cookie last answered; stored last, with release */
	uint32_t ustack;    /* ... its user stack id */
	uint32_t user;      /* ... enum map_user or the stop reason */
	bool dropped;       /* ... the user table had no room for it */
	struct waiting w[WAITING];
};

static struct task_room *rooms; /* one per process-table slot */
static struct unwind_work map_work;
static uint64_t sample_period_ns, readout_period;
static bool ready;

/* The read-out: one at a time (the tick, the end). */
static int reading;
static bool finishing;
static uint64_t next_readout;
static struct {
	int phase;         /* 0 kernel stacks, 1 user stacks, 2 counts, 3 done */
	uint32_t slot;
} cursor = { 3, 0 };
static uint64_t out_buf[RECORD_MAX / sizeof(uint64_t)];

/* ---- counting ---- */

/* The counter a key's user half is accounted under. */
static enum stat how_counted(uint32_t user)
{
	switch (user) {
	case UNWIND_STOP_END:         return STAT_MAP_WHOLE;
	case UNWIND_STOP_TASK_EXITED:
	case MAP_USER_NO_MM:          return STAT_MAP_USER_EXIT;
	case MAP_USER_REFUSED:        return STAT_MAP_USER_REFUSED;
	case MAP_USER_UNANSWERED:     return STAT_MAP_USER_UNANSWERED;
	case MAP_USER_KERNEL_ONLY:    return STAT_MAP_KERNEL_ONLY;
	default:                      return STAT_MAP_USER_STOPPED;
	}
}

/* Any context: n samples under the key. */
static void count(unsigned cpu, uint32_t pid, uint32_t program, uint32_t kstack,
		  uint32_t ustack, uint32_t user, uint32_t n)
{
	uint64_t key[KEY_WORDS] = { (uint64_t)pid << 32 | program,
				    (uint64_t)kstack << 32 | ustack, user };
	uint32_t id;
	if (!stack_table_intern(&keys, key, KEY_WORDS, &id)) {
		stat_add_on(cpu, STAT_MAP_DROPPED_KEYS, n);
		return;
	}
	__atomic_fetch_add(&counts[id - 1], n, __ATOMIC_RELAXED);
	stat_add_on(cpu, how_counted(user), n);
}

/* NMI: into the task's waiting room, merged with a sample of the same
 * entry, kernel stack and ip. False when it is full. */
static bool wait_for_answer(struct task_room *r, uint64_t cookie, uint32_t pid,
			    uint32_t program, uint32_t kstack, uint64_t ip)
{
	struct waiting *free = NULL;
	for (struct waiting *w = r->w; w < r->w + WAITING; w++) {
		uint64_t c = __atomic_load_n(&w->cookie, __ATOMIC_RELAXED);
		if (c == cookie && w->kstack == kstack && w->ip == ip) {
			__atomic_fetch_add(&w->n, 1, __ATOMIC_RELAXED);
			return true;
		}
		if (!c && !free)
			free = w;
	}
	if (!free)
		return false;
	free->pid = pid;
	free->program = program;
	free->kstack = kstack;
	free->ip = ip;
	free->n = 1;
	__atomic_store_n(&free->cookie, cookie, __ATOMIC_RELEASE);
	return true;
}

void stackmap_nmi(unsigned cpu, const struct nmi_regs *regs,
		  const uint64_t *kips, uint32_t nk)
{
	struct task *t = cpu_current[cpu];
	uint32_t kstack = 0;
	if (!ready)
		return;
	stat_inc_on(cpu, STAT_MAP_SAMPLES);
	if (nk && !stack_table_intern(&kstacks, kips, nk, &kstack)) {
		stat_inc_on(cpu, STAT_MAP_DROPPED_KSTACKS);
		return;
	}
	if (!t || t->pid == 0 || t < tasks || t >= tasks + NPROC) {
		count(cpu, t ? (uint32_t)t->pid : 0, 0, kstack, 0, MAP_USER_KERNEL_ONLY, 1);
		return;
	}
	uint32_t pid = (uint32_t)t->pid;
	struct uvm *mm = __atomic_load_n(&t->mm, __ATOMIC_RELAXED);
	if (!mm) {
		count(cpu, pid, 0, kstack, 0, MAP_USER_NO_MM, 1);
		return;
	}
	uint32_t program = mm->execs;
	uint64_t cookie;
	if (unwind_deferred_request(&map_work, &cookie) < 0) {
		count(cpu, pid, program, kstack, 0, MAP_USER_REFUSED, 1);
		return;
	}
	struct task_room *r = &rooms[t - tasks];
	if (__atomic_load_n(&r->answered, __ATOMIC_ACQUIRE) == cookie) {
		/* This entry's answer came already (the NMI hit the task
		 * after its callback, on its way out): count it now. */
		if (r->dropped)
			stat_inc_on(cpu, STAT_MAP_DROPPED_USTACKS);
		else
			count(cpu, pid, program, kstack, r->ustack, r->user, 1);
		return;
	}
	if (!wait_for_answer(r, cookie, pid, program, kstack, regs->user ? regs->ip : 0))
		stat_inc_on(cpu, STAT_MAP_DROPPED_PENDING);
}

/* The answer to this task's entry: its user stack completes the keys of
 * the samples waiting for it. Task context. */
static void map_deferred(struct unwind_work *work, const struct unwind_trace *trace,
			 uint64_t cookie)
{
	struct task *t = current;
	struct task_room *r = &rooms[t - tasks];
	unsigned cpu = arch_cpu_id();
	uint32_t ustack = 0;
	(void)work;
	r->dropped = trace->nr && !stack_table_intern(&ustacks, trace->entries, trace->nr, &ustack);
	r->ustack = ustack;
	r->user = trace->stop;
	__atomic_store_n(&r->answered, cookie, __ATOMIC_RELEASE);
	for (struct waiting *w = r->w; w < r->w + WAITING; w++) {
		if (__atomic_load_n(&w->cookie, __ATOMIC_ACQUIRE) != cookie)
			continue;
		if (r->dropped)
			stat_add_on(cpu, STAT_MAP_DROPPED_USTACKS, w->n);
		else
			count(cpu, w->pid, w->program, w->kstack, ustack, r->user, w->n);
		__atomic_store_n(&w->cookie, 0, __ATOMIC_RELEASE);
	}
}

/* The end: samples whose answer never came (the run ended first, or
 * the task's entry outlived it) are counted so, with the ip an NMI in
 * ring 3 saw as their user stack. */
static void count_unanswered(void)
{
	unsigned cpu = arch_cpu_id();
	for (struct task_room *r = rooms; r < rooms + NPROC; r++)
		for (struct waiting *w = r->w; w < r->w + WAITING; w++) {
			if (!__atomic_load_n(&w->cookie, __ATOMIC_ACQUIRE))
				continue;
			uint32_t ustack = 0;
			if (w->ip && !stack_table_intern(&ustacks, &w->ip, 1, &ustack))
				stat_add_on(cpu, STAT_MAP_DROPPED_USTACKS, w->n);
			else
				count(cpu, w->pid, w->program, w->kstack, ustack,
				      MAP_USER_UNANSWERED, w->n);
			__atomic_store_n(&w->cookie, 0, __ATOMIC_RELEASE);
		}
}

/* ---- read-out ---- */

/* One record; when the ring has no room, the end drains it first, the
 * tick stops (its step goes on at the next tick). */
static bool put(uint32_t type, void *rec, uint32_t size, bool final)
{
	irqflags_t f = irq_save();
	bool room = record_room() >= size;
	irq_restore(f);
	if (!room && final)
		room = (record_drain(RECORD_DRAIN_ALL), true);
	if (!room || record_write(type, rec, size))
		return false;
	stat_add(STAT_MAP_BYTES, size);
	return true;
}

static bool write_stack(struct stack_table *t, uint32_t slot, const uint64_t *ips,
			uint32_t n, uint16_t kind, bool final)
{
	struct rec_map_stack *s = (struct rec_map_stack *)out_buf;
	s->time = record_time();
	s->id = slot + 1;
	s->kind = kind;
	s->nr = (uint16_t)n;
	memcpy(s->ips, ips, n * 8);
	if (!put(REC_MAP_STACK, s, sizeof *s + n * 8, final))
		return false;
	t->written[slot] = 1;
	return true;
}

/* Stacks not yet written, from the cursor; false if it must stop. */
static bool write_stacks(struct stack_table *t, uint16_t kind, uint32_t *budget, bool final)
{
	for (; cursor.slot <= t->mask; cursor.slot++) {
		uint32_t s = cursor.slot, n;
		const uint64_t *ips = stack_table_slot(t, s, &n);
		if (t->written[s] || !ips)
			continue;
		uint32_t bytes = (uint32_t)sizeof(struct rec_map_stack) + n * 8;
		if (!final && *budget < bytes)
			return false;
		if (!write_stack(t, s, ips, n, kind, final))
			return false;
		*budget -= MIN(*budget, bytes);
	}
	return true;
}

static bool written(const struct stack_table *t, uint32_t id)
{
	return !id || t->written[id - 1];
}

/* What the counts record in out_buf holds; written when full or done. */
static bool flush_counts(struct rec_map_counts *c, bool final)
{
	if (!c->n)
		return true;
	c->time = record_time();
	c->period = sample_period_ns;
	if (!put(REC_MAP_COUNTS, c, sizeof *c + c->n * sizeof c->c[0], final))
		return false;
	c->n = 0;
	return true;
}

#define COUNTS_PER_RECORD \
	((RECORD_MAX - sizeof(struct rec_map_counts)) / sizeof(struct rec_map_count))

/*
 * The counts since the last read-out, of the keys whose stacks are
 * written (a key whose stack was interned after the stacks' pass waits
 * for the next). A count taken is put back if its record cannot go. The
 * tick writes one record, of its budget, a step.
 */
static bool write_counts(uint32_t budget, bool final)
{
	struct rec_map_counts *c = (struct rec_map_counts *)out_buf;
	static uint32_t taken_from[COUNTS_PER_RECORD];
	uint32_t most = final ? COUNTS_PER_RECORD :
		MAX(1u, MIN(COUNTS_PER_RECORD, budget / (uint32_t)sizeof c->c[0]));
	c->n = 0;
	c->pad = 0;
	for (; cursor.slot <= keys.mask; cursor.slot++) {
		uint32_t s = cursor.slot, nk;
		const uint64_t *k = stack_table_slot(&keys, s, &nk);
		if (!k)
			continue;
		uint32_t kstack = (uint32_t)(k[1] >> 32), ustack = (uint32_t)k[1];
		if (!written(&kstacks, kstack) || !written(&ustacks, ustack))
			continue;
		uint64_t n = __atomic_exchange_n(&counts[s], 0, __ATOMIC_RELAXED);
		if (!n)
			continue;
		c->c[c->n] = (struct rec_map_count){
			.pid = (uint32_t)(k[0] >> 32), .program = (uint32_t)k[0],
			.kstack = kstack, .ustack = ustack, .user = (uint32_t)k[2],
			.count = n };
		taken_from[c->n++] = s;
		if (c->n < most)
			continue;
		if (!flush_counts(c, final))
			goto put_back;
		if (!final) {
			cursor.slot++;
			return false;
		}
	}
	if (flush_counts(c, final))
		return true;
put_back:
	for (uint32_t i = 0; i < c->n; i++)
		__atomic_fetch_add(&counts[taken_from[i]], c->c[i].count, __ATOMIC_RELAXED);
	c->n = 0;
	return false;
}

/* One step of the read-out from the cursor, about budget bytes (final:
 * all of it). True when the pass is over. */
static bool readout_step(uint32_t budget, bool final)
{
	while (cursor.phase < 3) {
		bool done = cursor.phase == 0 ? write_stacks(&kstacks, MAP_STACK_KERNEL, &budget, final) :
			    cursor.phase == 1 ? write_stacks(&ustacks, MAP_STACK_USER, &budget, final) :
						write_counts(budget, final);
		if (!done)
			return false;
		cursor.phase++;
		cursor.slot = 0;
	}
	return true;
}

void stackmap_tick(void)
{
	if (!ready || !readout_period || __atomic_load_n(&finishing, __ATOMIC_ACQUIRE))
		return;
	uint64_t now = record_time();
	if (cursor.phase == 3 && now < next_readout)
		return;
	if (__atomic_exchange_n(&reading, 1, __ATOMIC_ACQUIRE))
		return;
	if (cursor.phase == 3) {
		cursor.phase = 0;
		cursor.slot = 0;
		next_readout = now + readout_period;
	}
	readout_step((uint32_t)MIN(arch_channel_tick_bytes(), RECORD_MAX), false);
	__atomic_store_n(&reading, 0, __ATOMIC_RELEASE);
}

void stackmap_finish(void)
{
	if (!ready)
		return;
	__atomic_store_n(&finishing, true, __ATOMIC_RELEASE);
	/* A tick's step on another CPU ends soon: it is bounded. */
	while (__atomic_exchange_n(&reading, 1, __ATOMIC_ACQUIRE))
		arch_cpu_relax();
	count_unanswered();
	cursor.phase = 0;
	cursor.slot = 0;
	if (!readout_step(UINT32_MAX, true))
		kprintf("stackmap: the channel refused the map's read-out (records_lost)\n");
	ready = false;
}

int stackmap_init(uint64_t period_ns)
{
	uint32_t cap = (uint32_t)cmdline_int(&boot_args, "profile.map_stacks",
					     STACKMAP_STACKS_DEFAULT, 1, STACKMAP_CAP_MAX);
	uint32_t nkeys = (uint32_t)cmdline_int(&boot_args, "profile.map_keys",
					       STACKMAP_KEYS_DEFAULT, 1, STACKMAP_CAP_MAX);
	uint64_t ms = (uint64_t)cmdline_int(&boot_args, "profile.map_period", 0, 0, 3600000);
	static bool registered;
	if (ready)
		return 0;
	rooms = kzalloc(NPROC * sizeof *rooms);
	if (!rooms || stack_table_init(&kstacks, cap, cap * KUNWIND_MAX_FRAMES) ||
	    stack_table_init(&ustacks, cap, cap * USER_WORDS_AVERAGE) ||
	    stack_table_init(&keys, nkeys, nkeys * KEY_WORDS) ||
	    !(counts = kzalloc(((uint64_t)keys.mask + 1) * sizeof *counts)))
		return -STITCH_ENOMEM;
	if (!registered && unwind_deferred_init(&map_work, map_deferred))
		return -STITCH_EBUSY;
	registered = true;
	sample_period_ns = period_ns;
	readout_period = ms * arch_tsc_hz / 1000;
	next_readout = record_time() + readout_period;
	ready = true;
	kprintf("stackmap: the stack map counts the samples (profile.consumer=%s): "
		"%u stacks a table, %u keys, read out every %lu ms (0: at the end only)\n",
		cmdline_get(&boot_args, "profile.consumer"), cap, nkeys, ms);
	return 0;
}
