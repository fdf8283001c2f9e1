#include "kern/unwind/ehframe_rows.h"
#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/lib/cmdline.h"
#include "kern/lib/stats.h"
#include "kern/lib/string.h"
#include "kern/mm/kmalloc.h"
#include "kern/mm/uvm.h"
#include "kern/proc/task.h"

/*
 * When a table converts (eh-convert): lazily, at its first lookups, in
 * chunks. Not at registration: the loader registers a program's tables
 * before its address space runs (nothing of it can be read then), and a
 * registration by system call should not run an unbounded conversion. A
 * lookup of a table not yet whole adds entries until a chunk's
 * instructions are spent, then interprets as eh-frame does: each walk
 * pays at most a chunk per table (the walk runs in task work, preemptible
 * between walks), and a table of 100 000 FDEs converts over as many
 * walks as it takes. Each FDE's program may run EH_ROWS_FDE_INSNS
 * instructions; one that needs more, or fails, is left to the
 * interpreter, exactly as the interpreter would answer it.
 */
#define EH_ROWS_FDE_INSNS 1024
#define EH_CONVERT_CHUNK (4 * EH_ROWS_FDE_INSNS)
/* The most rows a table may hold (1 MiB), and a process's tables
 * together (eh-convert and eh-rowcache alike): past them the table falls
 * back to interpreting, counted (ehframe_rows_fallback). */
#define EH_CONVERT_MAX_ROWS (1u << 16)
#define EH_ROWS_PROCESS_BYTES (2ull << 20)
/* The first allocation's rows; it doubles as it fills. */
#define EH_CONVERT_FIRST_ROWS 256

/* The row cache (eh-rowcache): FDEs per table, rows per FDE. An FDE of
 * more rows is interpreted each time (ehframe_rows_uncached). */
#define EH_CACHE_FDES 64
#define EH_CACHE_ROWS 32

enum eh_design { EH_INTERPRET, EH_ROWCACHE, EH_CONVERT };
static enum eh_design design = EH_INTERPRET;

/* eh-convert's phases of a table. */
enum { CONVERT_NONE, CONVERT_PART, CONVERT_WHOLE, CONVERT_FALLBACK };

/* One FDE's rows in the cache: an entry's (eh_rows_of_pc), cut where the
 * next entry begins. lo: the first row's pc. */
struct eh_slot {
	struct eh_rows rows;
	uint64_t lo;
	struct eh_krow mem[EH_CACHE_ROWS];
};

struct eh_rowcache {
	uint32_t used;                 /* slots filled */
	uint32_t seed;                 /* the victims' pseudo-random sequence */
	uint8_t order[EH_CACHE_FDES];  /* the filled slots by lo */
	struct eh_slot slot[EH_CACHE_FDES];
};

void eh_rows_setup(void)
{
	const char *mode = cmdline_get(&boot_args, "profile.mode");
	const char *rows = cmdline_get(&boot_args, "unwind.eh_rows");
	if (mode && strcmp(mode, "eh-convert") == 0)
		design = EH_CONVERT;
	else if (mode && strcmp(mode, "eh-rowcache") == 0)
		design = EH_ROWCACHE;
	if (!rows)
		return;
	if (strcmp(rows, "interpret") == 0)
		design = EH_INTERPRET;
	else if (strcmp(rows, "rowcache") == 0)
		design = EH_ROWCACHE;
	else if (strcmp(rows, "convert") == 0)
		design = EH_CONVERT;
	else
		kprintf("unwind: unknown unwind.eh_rows=%s (interpret rowcache convert); "
			"keeping the mode's\n", rows);
}

/* Kernel memory for rows, within the process's budget: NULL when over it
 * or out of memory. */
static void *rows_alloc(struct eh_rows_state *s, uint64_t size)
{
	if (!s->charged)
		s->charged = &current->mm->tables.eh_rows_held;
	if (__atomic_add_fetch(s->charged, size, __ATOMIC_RELAXED) > EH_ROWS_PROCESS_BYTES) {
		__atomic_sub_fetch(s->charged, size, __ATOMIC_RELAXED);
		return NULL;
	}
	void *mem = unwind_table_alloc(size);
	if (!mem) {
		__atomic_sub_fetch(s->charged, size, __ATOMIC_RELAXED);
		return NULL;
	}
	s->held += size;
	stat_add(STAT_EHROWS_BYTES, size);
	return mem;
}

static void rows_free(struct eh_rows_state *s, void *mem, uint64_t size)
{
	if (!mem)
		return;
	kfree(mem);
	s->held -= size;
	__atomic_sub_fetch(s->charged, size, __ATOMIC_RELAXED);
	stat_add(STAT_EHROWS_FREED, size);
}

/* eh-convert gives up on the table: its lookups interpret from now on. */
static void fall_back(struct eh_rows_state *s)
{
	rows_free(s, s->rows.row, (uint64_t)s->rows.cap * sizeof(struct eh_krow));
	s->rows.row = NULL;
	s->phase = CONVERT_FALLBACK;
	stat_inc(STAT_EHROWS_FALLBACK);
}

/* Twice the room, copied; false over the table's or process's budget. */
static bool grow(struct eh_rows_state *s)
{
	uint32_t cap = s->rows.cap * 2;
	if (cap > EH_CONVERT_MAX_ROWS)
		return false;
	struct eh_krow *mem = rows_alloc(s, (uint64_t)cap * sizeof *mem);
	if (!mem)
		return false;
	memcpy(mem, s->rows.row, (uint64_t)s->rows.n * sizeof *mem);
	rows_free(s, s->rows.row, (uint64_t)s->rows.cap * sizeof *mem);
	s->rows.row = mem;
	s->rows.cap = cap;
	return true;
}

/* A table converted whole keeps only the rows it has (the doubling left
 * up to half of its room empty); without memory for the copy, the room. */
static void shrink(struct eh_rows_state *s)
{
	uint32_t n = s->rows.n ? s->rows.n : 1;
	if (n == s->rows.cap)
		return;
	struct eh_krow *mem = rows_alloc(s, (uint64_t)n * sizeof *mem);
	if (!mem)
		return;
	memcpy(mem, s->rows.row, (uint64_t)s->rows.n * sizeof *mem);
	rows_free(s, s->rows.row, (uint64_t)s->rows.cap * sizeof *mem);
	s->rows.row = mem;
	s->rows.cap = n;
}

static bool convert_start(struct eh_rows_state *s, const struct eh_table *eh)
{
	uint64_t base;
	if (!eh->has_table || eh->count == 0 || eh_rows_base(eh, &base))
		return false;
	/* Each FDE adds a row unless its first equals the row before it,
	 * which a function's entry rule hardly ever does after another's
	 * end: a table of more FDEs than its budget of rows would be
	 * converted as far as the budget, at a chunk a walk, to be thrown
	 * away. It falls back at once. */
	if (eh->count > EH_CONVERT_MAX_ROWS)
		return false;
	struct eh_krow *mem = rows_alloc(s, EH_CONVERT_FIRST_ROWS * sizeof *mem);
	if (!mem)
		return false;
	eh_rows_init(&s->rows, base, mem, EH_CONVERT_FIRST_ROWS);
	s->phase = CONVERT_PART;
	return true;
}

/* One chunk of a table's conversion: entries added until the chunk's
 * instructions are spent. */
static void convert_chunk(struct eh_rows_state *s, struct eh_table *eh)
{
	uint64_t t0 = arch_cycles();
	uint32_t chunk = EH_CONVERT_CHUNK;

	if (s->phase == CONVERT_NONE && !convert_start(s, eh)) {
		fall_back(s);
		return;
	}
	while (s->next < eh->count && chunk >= EH_ROWS_FDE_INSNS) {
		uint32_t budget = EH_ROWS_FDE_INSNS, interpreted = s->rows.interpreted;
		int err = eh_rows_add(eh, s->next, &s->rows, &budget);
		if (err == EH_E_FULL && grow(s))
			continue;
		if (err) {
			fall_back(s);
			break;
		}
		stat_add(STAT_EHROWS_INTERPRETED, s->rows.interpreted - interpreted);
		chunk -= EH_ROWS_FDE_INSNS - budget;
		s->next++;
	}
	uint64_t cycles = arch_cycles() - t0;
	stat_inc(STAT_EHROWS_CHUNKS);
	stat_add(STAT_EHROWS_CYCLES, cycles);
	stat_max(STAT_EHROWS_CHUNK_MAX, cycles);
	if (s->phase == CONVERT_PART && s->next == eh->count) {
		shrink(s);
		s->phase = CONVERT_WHOLE;
		stat_inc(STAT_EHROWS_CONVERTED);
		stat_add(STAT_EHROWS_ROWS, s->rows.n);
		stat_add(STAT_EHROWS_WHOLE_BYTES, s->held);
		stat_add(STAT_EHROWS_FDES, eh->count);
	}
}

/* The filled slot whose rows may hold pc (the last with lo <= pc), or
 * -1; k receives its place in order. */
static int slot_of(const struct eh_rowcache *c, uint64_t pc, uint32_t *k)
{
	uint32_t lo = 0, hi = c->used; /* order[..lo) have lo <= pc */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (c->slot[c->order[mid]].lo <= pc)
			lo = mid + 1;
		else
			hi = mid;
	}
	*k = lo;
	return lo ? c->order[lo - 1] : -1;
}

/* Takes slot out of order (it is refilled). */
static void unorder(struct eh_rowcache *c, uint32_t slot)
{
	for (uint32_t k = 0; k < c->used; k++) {
		if (c->order[k] == slot) {
			memmove(&c->order[k], &c->order[k + 1], c->used - k - 1);
			c->used--;
			return;
		}
	}
}

/* Puts slot, just filled, into order. */
static void order(struct eh_rowcache *c, uint32_t slot)
{
	uint32_t k;
	slot_of(c, c->slot[slot].lo, &k);
	memmove(&c->order[k + 1], &c->order[k], c->used - k);
	c->order[k] = (uint8_t)slot;
	c->used++;
}

/* Runs pc's FDE whole and keeps its rows in a free slot, or the victim's:
 * the answer at pc, or EH_E_END when the rows do not hold it (too many
 * rows, the FDE left to the interpreter, the table's own error: nothing
 * kept, and the interpreter answers). */
static int cache_fill(struct eh_rowcache *c, const struct eh_table *eh, uint64_t pc,
		      struct sf_rule *rule)
{
	struct eh_slot new;
	uint32_t budget = EH_ROWS_FDE_INSNS;
	/* Rows reach 4 GiB from their base: the FDE's 2 either side of pc. */
	uint64_t base = pc > (1ull << 31) ? pc - (1ull << 31) : 0;

	eh_rows_init(&new.rows, base, new.mem, EH_CACHE_ROWS);
	int err = eh_rows_of_pc(eh, pc, &new.rows, &budget);
	if (err == EH_E_NO_FDE)
		return err; /* no entry at or before pc: nothing to keep */
	if (!err)
		err = eh_rows_find(&new.rows, pc, rule);
	else
		err = EH_E_END; /* too many rows, or the table's own error */
	if (err == EH_E_END) {
		stat_inc(STAT_EHROWS_UNCACHED);
		return err;
	}
	/* A victim at random: a walk visits its functions in the same order
	 * each time, and one deeper than the slots would miss every one of
	 * them under round robin or LRU; at random most stay. */
	bool evict = c->used == EH_CACHE_FDES;
	c->seed = c->seed * 1664525u + 1013904223u;
	uint32_t victim = evict ? (c->seed >> 16) % EH_CACHE_FDES : c->used;
	if (evict) {
		unorder(c, victim);
		stat_inc(STAT_EHROWS_EVICTED);
	}
	struct eh_slot *sl = &c->slot[victim];
	*sl = new;
	sl->rows.row = sl->mem;
	sl->lo = base + sl->rows.row[0].pc;
	order(c, victim);
	stat_inc(STAT_EHROWS_CACHE_FILLS);
	return err;
}

static int cache_find(struct eh_rows_state *s, const struct eh_table *eh, uint64_t pc,
		      struct sf_rule *rule)
{
	uint32_t k;
	if (!s->cache) {
		s->cache = rows_alloc(s, sizeof *s->cache);
		if (!s->cache)
			return EH_E_END;
		s->cache->used = s->cache->seed = 0;
		stat_inc(STAT_EHROWS_CACHES);
	}
	int slot = slot_of(s->cache, pc, &k);
	if (slot >= 0) {
		int err = eh_rows_find(&s->cache->slot[slot].rows, pc, rule);
		if (err != EH_E_END) {
			stat_inc(STAT_EHROWS_CACHE_HITS);
			return err;
		}
	}
	return cache_fill(s->cache, eh, pc, rule);
}

int eh_rows_answer(struct eh_rows_state *s, struct eh_table *eh, uint64_t pc,
		   struct sf_rule *rule, struct unwind_rule *r)
{
	if (design == EH_INTERPRET)
		return EH_E_END;
	/* What the rows read is bounded by their budget of instructions (as
	 * the index's build): not charged to the walk's reads. */
	uint64_t *hdr_left = eh->hdr.read_left, *frame_left = eh->frame.read_left;
	int err = EH_E_END;
	eh->hdr.read_left = eh->frame.read_left = NULL;
	if (design == EH_ROWCACHE) {
		err = cache_find(s, eh, pc, rule);
	} else {
		if (s->phase == CONVERT_NONE || s->phase == CONVERT_PART)
			convert_chunk(s, eh);
		if (s->phase == CONVERT_WHOLE)
			err = eh_rows_find(&s->rows, pc, rule);
	}
	eh->hdr.read_left = hdr_left;
	eh->frame.read_left = frame_left;
	r->rows += err != EH_E_END;
	return err;
}

void eh_rows_free(struct eh_rows_state *s)
{
	if (s->rows.row)
		rows_free(s, s->rows.row, (uint64_t)s->rows.cap * sizeof(struct eh_krow));
	rows_free(s, s->cache, sizeof *s->cache);
}
