#include "kern/unwind/lookup.h"
#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/lib/cmdline.h"
#include "kern/mm/kmalloc.h"
#include "kern/mm/uvm.h"
#include "kern/lib/stats.h"

/* unwind.rule_cache=0 turns the pc -> rule cache off (docs/DEFERRED.md). */
static bool rule_cache_on = true;

void lookup_init(void)
{
	rule_cache_on = cmdline_int(&boot_args, "unwind.rule_cache", 1, 0, 1);
	unwind_tables_init();
}

struct rule_cache *rule_cache_new(void)
{
	return rule_cache_on ? kzalloc(sizeof(struct rule_cache)) : NULL;
}

void rule_cache_free(struct rule_cache *c)
{
	kfree(c);
}

void lookup_begin(struct rule_lookup *l, struct uvm *mm, enum unwind_format_id fmt,
		  struct rule_cache *cache, uint32_t budget)
{
	/* The counters and the allowance; the rest is written by the
	 * lookups before it is read. */
	l->mm = mm;
	l->fmt = fmt;
	l->cache = cache;
	l->budget = budget;
	l->lookups = l->cache_fills = l->last_hits = 0;
	l->r.finds = l->r.indexed = l->r.quick_finds = l->r.rows = 0;
	l->last = NULL;
	l->indexed_chunk = false;
	/* The threads using mm: current, and those it made; a thread that
	 * exits lets go of mm after its last walk. */
	l->alone = __atomic_load_n(&mm->users, __ATOMIC_ACQUIRE) == 1;
	/* A walk holds the tables it finds until it ends (another thread
	 * may remove them meanwhile: they are freed after it). */
	unwind_tables_hold(&mm->tables);
	/* Generation g tags its rules 2g + 2: never 0, a zeroed entry's. An
	 * address space that never had a table (g 0) shares its tag with
	 * others of g 0, which is right: none of them has a rule to cache.
	 * A generation that changes during the walk voids the cache for the
	 * next walks; this one's entries keep their old tag and serve rules
	 * of tables that it holds. */
	l->tag = unwind_tables_gen(&mm->tables) * 2 + 2;
}

void lookup_end(const struct rule_lookup *l, uint32_t frames)
{
	unsigned cpu = arch_cpu_id(); /* read once: any CPU's row adds to the sums */
	/* One step per frame, the last one too; a step the cache answered
	 * (a rule, or "none") took no lookup, and a walk the cache answered
	 * whole (the common case) moved no other counter. */
	stat_add_on(cpu, STAT_RULE_CACHE_HITS, frames - l->lookups);
	if (l->lookups) {
		stat_add_on(cpu, STAT_RULE_CACHE_MISSES, l->cache_fills);
		stat_add_on(cpu, STAT_UNWIND_LAST_HITS, l->last_hits);
	}
	/* The tables' counts: all of one format, the walk's (held: a table
	 * dropped meanwhile is not freed before the release below). */
	if (l->last)
		l->last->fmt->counted(&l->r, cpu);
	unwind_tables_release(&l->mm->tables);
}

/* A table's lookups one at a time: its first opens and indexes it, and a
 * lookup writes its index and state. Held only within one lookup, which
 * never reschedules: the other holder runs on another CPU. A walk of a
 * process of one thread takes no hold (l->alone): only its threads look
 * up its tables, and only this one could make another. */
static void table_hold(const struct rule_lookup *l, struct unwind_table *t)
{
	if (l->alone)
		return;
	while (__atomic_exchange_n(&t->busy, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&t->busy, __ATOMIC_RELAXED))
			arch_cpu_relax();
}

static void table_release(const struct rule_lookup *l, struct unwind_table *t)
{
	if (!l->alone)
		__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* The table covering pc: the last one used first (consecutive frames are
 * mostly in the same object). */
static struct unwind_table *table_for(struct rule_lookup *l, uint64_t pc)
{
	struct unwind_table *t = l->last;
	if (t && pc >= t->text_start && pc < t->text_end) {
		l->last_hits++;
		return t;
	}
	t = unwind_table_find(l->mm, l->fmt, pc);
	if (t)
		l->last = t;
	return t;
}

/* pc's rule in t, held: opened at its first use, then its index built a
 * chunk a walk (kern/unwind/table.h, unwind_index_more). */
static int find(struct rule_lookup *l, struct unwind_table *t, uint64_t pc)
{
	int err = SF_OK;
	table_hold(l, t);
	if (!t->opened && !(err = t->fmt->open(t, &l->budget))) {
		t->opened = true;
		unwind_index_start(t);
	}
	if (!err && t->indexing && !l->indexed_chunk) {
		l->indexed_chunk = true;
		err = unwind_index_more(t);
	}
	if (!err) {
		uint32_t fills = t->lazy ? t->lazy->fills : 0;
		err = t->fmt->find(t, pc, &l->r, &l->budget);
		if (t->lazy && t->lazy->fills != fills)
			stat_add(STAT_UNWIND_INDEX_FILLS, t->lazy->fills - fills);
	}
	table_release(l, t);
	return err;
}

/* Fills the newest way of pc's set; the oldest entry goes. q NULL: pc
 * has no rule. */
static void cache_put(struct rule_lookup *l, uint64_t pc, const struct sf_quick *q)
{
	struct rule_entry *set = rule_set(l->cache, pc);
	for (unsigned i = RULE_CACHE_WAYS - 1; i > 0; i--)
		set[i] = set[i - 1];
	set[0] = (struct rule_entry){ .pc = pc, .tag = l->tag | !q,
				      .q = q ? *q : (struct sf_quick){ 0 } };
	l->cache_fills++;
}

struct unwind_answer lookup_slow(struct rule_lookup *l, uint64_t pc)
{
	struct unwind_table *t = table_for(l, pc);
	struct unwind_answer a = { .err = t ? find(l, t, pc) : SF_E_NO_FDE };
	l->lookups++;
	if (a.err == SF_OK)
		a.quick = &l->r.quick;
	else if (a.err == SF_E_NOT_QUICK)
		a.err = SF_OK; /* lookup_other's rule */
	/* The cache keeps "no rule" and quick rules; a rule of another
	 * shape is looked up each time. */
	if (l->cache && (a.err == SF_E_NO_FDE || a.err == SF_E_NO_FRE))
		cache_put(l, pc, NULL);
	else if (l->cache && a.quick)
		cache_put(l, pc, a.quick);
	return a;
}
