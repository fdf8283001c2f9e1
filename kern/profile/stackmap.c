/*
 * The stack map (kern/profile/stackmap.h, docs/DEFERRED.md "The third
 * consumer").
 *
 * Three tables of one kind, lock-free, fixed at boot: the kernel stacks,
 * the user stacks, and the keys (three words each) with a count beside
 * each key. A table interns a run of words and returns its id (slot + 1):
 * the NMI interns kernel stacks and keys, the deferred callback user
 * stacks and keys, on any CPU at once. A slot goes empty -> busy (claimed
 * by one compare-and-swap) -> ready (its hash stored with release, after
 * the words); nobody waits for a busy slot: it is passed over, so two
 * CPUs interning the same stack at the same moment may give it two ids
 * (the reader adds up by content; it costs room, never a count).
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
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/mm/uvm.h"
#include "kern/profile/record.h"
#include "kern/profile/sample.h"
#include "kern/profile/stats.h"
#include "kern/proc/task.h"
#include "kern/unwind/deferred.h"
#include "kern/unwind/kernel.h"
#include "stitch/syscall.h"

/* Room for a user stack in the user table: on average this many words a
 * stack (a pool shared by all; a stack that does not fit is a full table). */
#define USER_WORDS_AVERAGE 32
#define KEY_WORDS 3
#define WAITING 32 /* distinct (kernel stack, ip) a task's entry may hold */

#define SLOT_EMPTY 0ull
#define SLOT_BUSY  1ull
#define SLOT_READY (1ull << 63) /* in every ready slot's hash: never 0 or 1 */

struct table {
	uint64_t *hash;     /* per slot: SLOT_EMPTY, SLOT_BUSY, or hash | SLOT_READY */
	uint32_t *start;    /* per slot: its first word in words[] */
	uint32_t *len;      /* per slot: its words */
	uint8_t *written;   /* per slot: the read-out wrote it (reader only) */
	uint64_t *words;
	uint32_t mask;      /* slots - 1: twice the capacity, a power of two */
	uint32_t cap;       /* ids it gives at most */
	uint32_t ids;       /* ids given (atomic) */
	uint32_t nwords;
	uint32_t used;      /* words given (atomic) */
};

static struct table kstacks, ustacks, keys;
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

/* ---- tables ---- */

static void *alloc_zeroed(uint64_t bytes)
{
	uint64_t pages = PAGE_ROUND_UP(bytes) / PAGE_SIZE;
	uint64_t pa = pmm_alloc_pages(pages);
	if (!pa)
		return NULL;
	memset(p2v(pa), 0, pages * PAGE_SIZE);
	return p2v(pa);
}

static int table_init(struct table *t, uint32_t cap, uint32_t nwords)
{
	uint32_t slots = 2;
	while (slots < 2 * cap)
		slots <<= 1;
	t->hash = alloc_zeroed(slots * sizeof *t->hash);
	t->start = alloc_zeroed(slots * sizeof *t->start);
	t->len = alloc_zeroed(slots * sizeof *t->len);
	t->written = alloc_zeroed(slots);
	t->words = alloc_zeroed((uint64_t)nwords * sizeof *t->words);
	t->mask = slots - 1;
	t->cap = cap;
	t->nwords = nwords;
	return t->hash && t->start && t->len && t->written && t->words ? 0 : -STITCH_ENOMEM;
}

static uint64_t hash_words(const uint64_t *w, uint32_t n)
{
	uint64_t h = 0x9e3779b97f4a7c15ull ^ n;
	for (uint32_t i = 0; i < n; i++) {
		h = (h ^ w[i]) * 0xbf58476d1ce4e5b9ull;
		h ^= h >> 31;
	}
	return h | SLOT_READY;
}

static bool same(const struct table *t, uint32_t slot, uint64_t h,
		 const uint64_t *w, uint32_t n)
{
	return __atomic_load_n(&t->hash[slot], __ATOMIC_ACQUIRE) == h &&
	       t->len[slot] == n && memcmp(&t->words[t->start[slot]], w, n * 8) == 0;
}

/* An id for a place in the table: false when it gives no more. */
static bool reserve(struct table *t, uint32_t n, uint32_t *start)
{
	if (__atomic_fetch_add(&t->ids, 1, __ATOMIC_RELAXED) >= t->cap) {
		__atomic_fetch_sub(&t->ids, 1, __ATOMIC_RELAXED);
		return false;
	}
	/* Words are never given back: one that a lost race leaves unused
	 * stays so (rare: two CPUs claiming one slot). */
	*start = __atomic_fetch_add(&t->used, n, __ATOMIC_RELAXED);
	if (*start + n > t->nwords || *start + n < *start) {
		__atomic_fetch_sub(&t->ids, 1, __ATOMIC_RELAXED);
		return false;
	}
	return true;
}

/*
 * Any context: the id of w[0 .. n), interned if new. False when the table
 * is full. Linear probing from the hash; at most every slot once.
 */
static bool intern(struct table *t, const uint64_t *w, uint32_t n, uint32_t *id)
{
	uint64_t h = hash_words(w, n);
	uint32_t start = 0, i = (uint32_t)h & t->mask;
	bool reserved = false, found = false;
	for (uint32_t probe = 0; probe <= t->mask && !found; probe++, i = (i + 1) & t->mask) {
		uint64_t s = __atomic_load_n(&t->hash[i], __ATOMIC_ACQUIRE);
		if (s == h && same(t, i, h, w, n)) {
			found = true;
			break;
		}
		if (s != SLOT_EMPTY)
			continue; /* another stack, or one being written */
		if (!reserved && !(reserved = reserve(t, n, &start)))
			return false;
		if (!__atomic_compare_exchange_n(&t->hash[i], &s, SLOT_BUSY, false,
						 __ATOMIC_ACQUIRE, __ATOMIC_RELAXED)) {
			found = same(t, i, h, w, n);
			if (found)
				break;
			continue;
		}
		memcpy(&t->words[start], w, n * 8);
		t->start[i] = start;
		t->len[i] = n;
		__atomic_store_n(&t->hash[i], h, __ATOMIC_RELEASE);
		*id = i + 1;
		return true;
	}
	/* Found (its place was not needed), or the table is full. */
	if (reserved)
		__atomic_fetch_sub(&t->ids, 1, __ATOMIC_RELAXED);
	*id = i + 1;
	return found;
}

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
	if (!intern(&keys, key, KEY_WORDS, &id)) {
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

void stackmap_nmi(unsigned cpu, const struct sample_regs *regs,
		  const uint64_t *kips, uint32_t nk)
{
	struct task *t = cpu_current[cpu];
	uint32_t kstack = 0;
	if (!ready)
		return;
	stat_inc_on(cpu, STAT_MAP_SAMPLES);
	if (nk && !intern(&kstacks, kips, nk, &kstack)) {
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
	r->dropped = trace->nr && !intern(&ustacks, trace->entries, trace->nr, &ustack);
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
			if (w->ip && !intern(&ustacks, &w->ip, 1, &ustack))
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

static bool write_stack(struct table *t, uint32_t slot, uint16_t kind, bool final)
{
	struct rec_map_stack *s = (struct rec_map_stack *)out_buf;
	uint32_t n = t->len[slot];
	s->time = record_time();
	s->id = slot + 1;
	s->kind = kind;
	s->nr = (uint16_t)n;
	memcpy(s->ips, &t->words[t->start[slot]], n * 8);
	if (!put(REC_MAP_STACK, s, sizeof *s + n * 8, final))
		return false;
	t->written[slot] = 1;
	return true;
}

/* Stacks not yet written, from the cursor; false if it must stop. */
static bool write_stacks(struct table *t, uint16_t kind, uint32_t *budget, bool final)
{
	for (; cursor.slot <= t->mask; cursor.slot++) {
		uint32_t s = cursor.slot;
		if (t->written[s] || !(__atomic_load_n(&t->hash[s], __ATOMIC_ACQUIRE) & SLOT_READY))
			continue;
		if (!final && *budget < sizeof(struct rec_map_stack) + t->len[s] * 8)
			return false;
		if (!write_stack(t, s, kind, final))
			return false;
		*budget -= MIN(*budget, sizeof(struct rec_map_stack) + t->len[s] * 8);
	}
	return true;
}

static bool written(const struct table *t, uint32_t id)
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
		uint32_t s = cursor.slot;
		if (!(__atomic_load_n(&keys.hash[s], __ATOMIC_ACQUIRE) & SLOT_READY))
			continue;
		const uint64_t *k = &keys.words[keys.start[s]];
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
		cpu_relax();
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
	rooms = alloc_zeroed(NPROC * sizeof *rooms);
	if (!rooms || table_init(&kstacks, cap, cap * KUNWIND_MAX_FRAMES) ||
	    table_init(&ustacks, cap, cap * USER_WORDS_AVERAGE) ||
	    table_init(&keys, nkeys, nkeys * KEY_WORDS) ||
	    !(counts = alloc_zeroed(((uint64_t)keys.mask + 1) * sizeof *counts)))
		return -STITCH_ENOMEM;
	if (!registered && unwind_deferred_init(&map_work, map_deferred))
		return -STITCH_EBUSY;
	registered = true;
	sample_period_ns = period_ns;
	readout_period = ms * tsc_hz / 1000;
	next_readout = record_time() + readout_period;
	ready = true;
	kprintf("stackmap: %u stacks a table, %u keys, read out every %lu ms "
		"(0: at the end only)\n", cap, nkeys, ms);
	return 0;
}
