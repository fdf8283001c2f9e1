#include "kern/unwind/sframe_lookup.h"
#include <arch/arch.h>
#include <arch/uaccess.h>
#include "kern/kernel.h"
#include "kern/lib/cmdline.h"
#include "kern/mm/kmalloc.h"
#include "kern/lib/stats.h"

/* The switches (docs/DEFERRED.md): sframe.validate runs the full
 * validation when a section is first opened; unwind.rule_cache=0 turns
 * the pc -> rule cache off, unwind.fde_index=0 the sections' FDE index
 * (SFrame's and .eh_frame's). */
static bool validate_all;
static bool rule_cache_on = true;
static bool fde_index_on = true;

void sframe_lookup_init(void)
{
	validate_all = cmdline_flag(&boot_args, "sframe.validate");
	rule_cache_on = cmdline_int(&boot_args, "unwind.rule_cache", 1, 0, 1);
	fde_index_on = cmdline_int(&boot_args, "unwind.fde_index", 1, 0, 1);
}

/* The most FDEs a section may have to get an index: an entry per FDE,
 * 32 bytes each with the FDE kept (64 KiB at most). A sparser index of a
 * bigger section would still fault in every page of its FDE array at the
 * first use (funcs-100000's first unwind: 832 K instructions instead of
 * 142 K), for a few search probes a lookup. */
#define FDE_INDEX_MAX 2048

/*
 * A sorted section's FDE index (sf_fde_index_build, an entry per FDE),
 * built at its first use into kernel memory the section owns: the lookups
 * then find their function's FDE through the index's bucket directory in
 * kernel memory and read from the section only that FDE, the first time,
 * and after that only its rows (the index keeps it). Lookups write the
 * index, which is safe: only the task that owns the address space looks
 * up its sections (its deferred unwinds, its exit's). Building reads
 * each FDE's start once (and takes the FDE array's page faults). The
 * memory is allocated with the walk's user-access window closed; the
 * registry frees it with the section. Without memory, off, or for a
 * bigger section, the section is searched as it is; a section whose
 * starts decrease is not valid.
 */
static int index_section(struct sframe_section *s)
{
	struct sf_table *t = &s->table;
	if (!fde_index_on || !(t->flags & SF_F_FDE_SORTED) || t->num_fdes == 0 ||
	    t->num_fdes > FDE_INDEX_MAX)
		return SF_OK;
	uint64_t size = sf_fde_index_size(t, FDE_INDEX_MAX);
	arch_user_access_end();
	void *mem = kmalloc(size);
	arch_user_access_begin();
	if (!mem)
		return SF_OK;
	int err = sf_fde_index_build(t, mem, size);
	if (err) {
		kfree(mem);
		return err;
	}
	stat_inc(STAT_SFRAME_INDEXED);
	return SF_OK;
}

/* Header and layout, read in place (the walk holds the window). The
 * section's own checks happen on each lookup path; the full pass is
 * opt-in. ld 2.40 makes PT_GNU_SFRAME larger than the merged section
 * (docs/KERNEL.md): reading past the header's end would read other data. */
static int open_section(struct sframe_section *s)
{
	struct sf_src src = { .in_place = true, .size = (uint32_t)s->sframe_len,
			      .vaddr = s->sframe_addr };
	int err = sf_open(&s->table, &src);
	if (!err) {
		src.size = sf_used_size(&s->table);
		err = sf_open(&s->table, &src);
	}
	if (!err)
		err = sf_check_layout(&s->table);
	if (!err && validate_all)
		err = sf_validate(&s->table);
	s->table.text_start = s->text_start;
	s->table.text_end = s->text_end;
	return err ? err : index_section(s);
}

/* A section's lookups one at a time: its first opens and indexes it, and
 * an .eh_frame lookup charges its reads to the walk through the section.
 * Held only within one lookup, which never reschedules: the other holder
 * runs on another CPU. */
static void section_hold(struct sframe_section *s)
{
	while (__atomic_exchange_n(&s->busy, 1, __ATOMIC_ACQUIRE))
		while (__atomic_load_n(&s->busy, __ATOMIC_RELAXED))
			arch_cpu_relax();
}

static void section_release(struct sframe_section *s)
{
	__atomic_store_n(&s->busy, 0, __ATOMIC_RELEASE);
}

/* The section covering pc, held: the last one used first (consecutive
 * frames are mostly in the same object), opened at its first use. */
static struct sframe_section *section_for(struct sframe_walk *w, uint64_t pc, int *err)
{
	struct sframe_section *s = w->last;
	*err = SF_OK;
	if (s && s->kind == SECTION_SFRAME && pc >= s->text_start && pc < s->text_end) {
		w->last_hits++;
	} else {
		s = sframe_find(w->mm, pc);
		if (!s)
			return NULL;
		w->last = s;
	}
	section_hold(s);
	if (!s->checked) {
		if ((*err = open_section(s)))
			return s;
		s->checked = true;
	}
	return s;
}

void sframe_walk_begin(struct sframe_walk *w, struct uvm *mm,
		       struct sframe_rule_cache **cache, uint32_t budget)
{
	/* The counters and the allowance; the rest is written by the
	 * lookups before it is read. */
	w->mm = mm;
	w->budget = budget;
	w->lookups = w->cache_misses = w->last_hits = 0;
	w->index_lookups = w->quick_lookups = 0;
	/* Allocated here, outside the walk's user-access window. Without
	 * memory the walk simply looks every rule up. */
	if (rule_cache_on && !*cache)
		*cache = kzalloc(sizeof **cache);
	/* A walk holds the sections it finds until it ends (another thread
	 * may remove them meanwhile: they are freed after it). */
	sframe_read_begin(mm);
	w->last = NULL;
	w->cache = *cache;
	/* A generation 0 (nothing ever registered) would match a zeroed
	 * entry: such an address space is given a generation. */
	if (!__atomic_load_n(&mm->sframe_gen, __ATOMIC_SEQ_CST))
		sframe_unmapped(mm);
	/* A generation that changes during the walk voids the cache for the
	 * next walks; this one's entries keep their old tag and serve rules
	 * of sections that it holds. */
	w->tag = __atomic_load_n(&mm->sframe_gen, __ATOMIC_SEQ_CST) * 2;
}

void sframe_walk_done(const struct sframe_walk *w, uint32_t frames)
{
	unsigned cpu = arch_cpu_id(); /* read once: any CPU's row adds to the sums */
	/* One step per frame, the last one too; a step the cache answered
	 * (a rule, or "none") took no lookup. */
	stat_add_on(cpu, STAT_RULE_CACHE_HITS, frames - w->lookups);
	stat_add_on(cpu, STAT_RULE_CACHE_MISSES, w->cache_misses);
	stat_add_on(cpu, STAT_SFRAME_LAST_HITS, w->last_hits);
	stat_add_on(cpu, STAT_FDE_INDEX_LOOKUPS, w->index_lookups);
	stat_add_on(cpu, STAT_QUICK_LOOKUPS, w->quick_lookups);
	sframe_read_end(w->mm);
}


/* Fills the newest way of pc's set; the oldest entry goes. q NULL: pc
 * has no rule. */
static void cache_put(struct sframe_walk *w, uint64_t pc, const struct sf_quick *q)
{
	struct sframe_rule_entry *set = sframe_rule_set(w->cache, pc);
	for (unsigned i = RULE_CACHE_WAYS - 1; i > 0; i--)
		set[i] = set[i - 1];
	set[0] = (struct sframe_rule_entry){ .pc = pc, .tag = w->tag | !q,
					     .q = q ? *q : (struct sf_quick){ 0 } };
	w->cache_misses++;
}

/* pc's rule in t: in one pass through the index when pc's FDE and row
 * are of the common kind (sf_find_quick: w->quick), else by the whole
 * lookup (w->rule, and w->quick when it has that shape). */
static int lookup(const struct sf_table *t, uint64_t pc, struct sframe_walk *w)
{
	w->index_lookups += t->fde_index != NULL;
	int err = sf_find_quick(t, pc, &w->quick, &w->budget);
	if (err != SF_E_NOT_QUICK) {
		w->quick_lookups++;
		w->quick_ok = !err;
		return err;
	}
	err = sf_find_rule_bounded(t, pc, &w->rule, &w->budget);
	w->quick_ok = !err && sf_quick_of(t, &w->rule, &w->quick);
	return err;
}

int sframe_lookup_slow(struct sframe_walk *w, uint64_t pc)
{
	int err;
	w->sec = section_for(w, pc, &err);
	if (!w->sec)
		err = SF_E_NO_FDE;
	else if (!err)
		err = lookup(&w->sec->table, pc, w);
	if (w->sec)
		section_release(w->sec);
	/* The cache keeps "no rule" and quick rules; a rule of another
	 * shape is looked up each time. */
	if (w->cache && (err == SF_E_NO_FDE || err == SF_E_NO_FRE))
		cache_put(w, pc, NULL);
	else if (w->cache && !err && w->quick_ok)
		cache_put(w, pc, &w->quick);
	return err;
}

/*
 * .eh_frame sections (profile.mode=eh-frame). Opened at their first use:
 * the header's eh_frame_ptr must lie in the segment registered with the
 * section, and .eh_frame is taken to run from there to the segment's end
 * (the header gives no size; the terminator or the FDE lengths end it
 * earlier). Each lookup then reads the table, one FDE, its CIE and their
 * programs in place, every read bounds-checked against its section by the
 * library and done by one user load in the walk's window.
 *
 * The walk's budget pays for both what the CFA programs run (one unit an
 * instruction, the library's budget) and what the lookup reads (one unit
 * per EH_BYTES_PER_UNIT bytes, through the sources' read_left), so a
 * section of any size or shape costs at most what is left.
 */
#define EH_BYTES_PER_UNIT 8

static int open_eh(struct sframe_section *s, uint64_t *read_left)
{
	struct eh_src hdr = { .in_place = true, .size = s->sframe_len,
			      .vaddr = s->sframe_addr, .read_left = read_left };
	struct eh_src frame = { .in_place = true, .read_left = read_left };
	int err = eh_hdr_frame_ptr(&hdr, &frame.vaddr);
	if (err)
		return err;
	if (frame.vaddr < s->seg_start || frame.vaddr >= s->seg_end)
		return EH_E_HDR_FRAME_PTR;
	frame.size = s->seg_end - frame.vaddr;
	return eh_open(&s->eh, &hdr, &frame);
}

/*
 * An opened .eh_frame section's index (eh_index_build, ehframe/index.c),
 * built at its first use into kernel memory the section owns, as SFrame's
 * FDE index is (index_section): the table's entries read once, then each
 * FDE and CIE a lookup reads kept (the CIE with the row its initial
 * instructions leave), so that a lookup searches kernel memory, reads its
 * table entry again and runs only the FDE's instructions up to pc. The
 * answers are those of the lookup without it (test 28 holds the two
 * against each other at every pc of every program; test 59 the chains).
 * Built with no read budget (at most FDE_INDEX_MAX entries: 16 KiB of
 * table); a table that does not read well, or is not sorted, or a
 * section too big, or no memory: no index, and the lookups search the
 * table as they did (and find what is wrong with it themselves).
 */
static void index_eh(struct sframe_section *s)
{
	struct eh_table *t = &s->eh;
	if (!fde_index_on || t->count == 0 || t->count > FDE_INDEX_MAX)
		return;
	uint64_t size = eh_index_size(t);
	arch_user_access_end();
	void *mem = kmalloc(size);
	arch_user_access_begin();
	if (!mem)
		return;
	t->hdr.read_left = t->frame.read_left = NULL;
	if (eh_index_build(t, mem, size)) {
		kfree(mem);
		return;
	}
	stat_inc(STAT_EHFRAME_INDEXED);
}

/* The .eh_frame section covering pc: the last one used first. */
static struct sframe_section *eh_section_for(struct sframe_walk *w, uint64_t pc)
{
	struct sframe_section *s = w->last;
	if (s && s->kind == SECTION_EH_FRAME && pc >= s->text_start && pc < s->text_end) {
		w->last_hits++;
		return s;
	}
	s = ehframe_find(w->mm, pc);
	if (s)
		w->last = s;
	return s;
}

/* The library's answer in the walk's terms (sframe_lookup's). */
static int eh_answer(struct sframe_section *s, int err)
{
	switch (err) {
	case EH_OK:
		return SF_OK;
	case EH_E_NO_FDE:
		return SF_E_NO_FDE;
	case EH_E_BUDGET:
		return SF_E_BUDGET;
	case EH_E_EXPRESSION:     /* the PLT's CFA; a realignment's rbp */
	case EH_E_UNSUPPORTED:    /* DW_CFA_set_loc, vendor opcodes */
	case EH_E_NOT_EXPRESSIBLE:
		stat_inc(STAT_EHFRAME_UNSUPPORTED);
		return SF_E_REG; /* valid, not followed: stop no-info */
	default:                  /* the section faulted or is damaged: drop it */
		s->eh_err = err;
		return err == EH_E_FAULT ? SF_E_FAULT : SF_E_MAGIC; /* not SF_E_NO_*: dropped */
	}
}

int ehframe_lookup_slow(struct sframe_walk *w, uint64_t pc)
{
	struct sframe_section *s = eh_section_for(w, pc);
	int err;
	w->sec = s;
	if (!s) {
		err = SF_E_NO_FDE;
	} else {
		uint32_t insns = w->budget;
		uint64_t left = (uint64_t)w->budget * EH_BYTES_PER_UNIT, start = left;
		int e = EH_OK;
		section_hold(s);
		if (!s->checked && !(e = open_eh(s, &left))) {
			s->checked = true;
			index_eh(s);
		}
		if (!e) {
			s->eh.hdr.read_left = s->eh.frame.read_left = &left;
			if (s->eh.index)
				stat_inc(STAT_EHFRAME_INDEX_LOOKUPS);
			e = eh_find_rule(&s->eh, pc, &w->rule, &insns);
		}
		uint64_t spent = (w->budget - insns) +
				 (start - left + EH_BYTES_PER_UNIT - 1) / EH_BYTES_PER_UNIT;
		w->budget = spent >= w->budget ? 0 : w->budget - (uint32_t)spent;
		stat_inc(STAT_EHFRAME_LOOKUPS);
		err = eh_answer(s, e);
		w->quick_ok = !err && sf_quick_of(&s->table, &w->rule, &w->quick);
		section_release(s);
	}
	if (w->cache && err == SF_E_NO_FDE)
		cache_put(w, pc, NULL);
	else if (w->cache && !err && w->quick_ok)
		cache_put(w, pc, &w->quick);
	return err;
}
