#include "kern/unwind/sframe_registry.h"
#include <arch/uaccess.h>
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/profile/stats.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "stitch/syscall.h"

/*
 * The registry: each address space's sections, newest first, their text
 * ranges disjoint. A registration is checked once, here, whichever way it
 * came (sframe_register); nothing further down checks it again. What the
 * header check does not see (the section is user memory and may change
 * meanwhile) is checked where the unwinder reads it, and in full at first
 * use with sframe.validate (open_section).
 */

/* SFrame's header and function descriptors sit at their natural
 * boundaries (the SFrame specification, "Overview"): a section starts at
 * a 4-byte boundary. */
#define SFRAME_ALIGN 4

/* A registration refused with -err: sframe_dropped and its reason. */
static void count_refused(int err)
{
	stat_inc(STAT_SFRAME_DROPPED);
	switch (err) {
	case -STITCH_EFAULT:
		stat_inc(STAT_SFRAME_REFUSED_RANGE);
		break;
	case -STITCH_EINVAL:
		stat_inc(STAT_SFRAME_REFUSED_LENGTH);
		break;
	case -STITCH_ENOEXEC:
		stat_inc(STAT_SFRAME_REFUSED_HEADER);
		break;
	case -STITCH_EEXIST:
		stat_inc(STAT_SFRAME_REFUSED_OVERLAP);
		break;
	default: /* -ENOMEM */
		stat_inc(STAT_SFRAME_REFUSED_FULL);
		break;
	}
}

/*
 * The header, read now from the caller's memory, so that a loader that
 * registers something that is not SFrame hears it at once: -ENOEXEC (bad
 * magic, version, ABI, layout) or -EFAULT (unreadable).
 */
static int check_header(uint64_t sframe, uint64_t len)
{
	struct sf_table t;
	struct sf_src src = { .in_place = true, .size = (uint32_t)len, .vaddr = sframe };
	arch_user_access_begin();
	int err = sf_open(&t, &src);
	arch_user_access_end();
	if (err == SF_E_FAULT)
		return -STITCH_EFAULT;
	return err ? -STITCH_ENOEXEC : 0;
}

static bool text_taken(const struct uvm *mm, uint64_t start, uint64_t end)
{
	for (const struct sframe_section *s = mm->sframes; s; s = s->next)
		if (s->text_start < end && start < s->text_end)
			return true;
	return false;
}

/* The one check of a registration (sframe_registry.h gives the order). */
static int check(const struct uvm *mm, uint64_t sframe, uint64_t len,
		 uint64_t text, uint64_t text_len, enum sframe_origin from)
{
	int err;
	if (!user_range_ok(sframe, len) || !user_range_ok(text, text_len))
		return -STITCH_EFAULT;
	/* struct sf_src counts a section's bytes in 32 bits. */
	if (len == 0 || len > UINT32_MAX || text_len == 0)
		return -STITCH_EINVAL;
	if (sframe % SFRAME_ALIGN)
		return -STITCH_ENOEXEC;
	if (from == SFRAME_FROM_USER && (err = check_header(sframe, len)))
		return err;
	if (text_taken(mm, text, text + text_len))
		return -STITCH_EEXIST;
	return mm->nsframes < SFRAME_MAX_SECTIONS ? 0 : -STITCH_ENOMEM;
}

static int insert(struct uvm *mm, uint64_t sframe, uint64_t len, uint64_t text,
		  uint64_t text_len)
{
	struct sframe_section *s = kzalloc(sizeof(*s));
	if (!s)
		return -STITCH_ENOMEM;
	*s = (struct sframe_section){
		.next = mm->sframes, .sframe_addr = sframe, .sframe_len = len,
		.text_start = text, .text_end = text + text_len,
	};
	mm->sframes = s;
	mm->nsframes++;
	mm->sframe_gen++;
	return 0;
}

int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len, enum sframe_origin from)
{
	int err = check(mm, sframe, len, text, text_len, from);
	if (!err)
		err = insert(mm, sframe, len, text, text_len);
	if (err)
		count_refused(err);
	else
		stat_inc(STAT_SFRAME_REGISTERED);
	return err;
}

/* Unlinks and frees the section registered for text_start, with the FDE
 * index built at its first use (index_section), if any: 0 or -EINVAL. */
static int remove_section(struct uvm *mm, uint64_t text_start)
{
	for (struct sframe_section **pp = &mm->sframes; *pp; pp = &(*pp)->next) {
		struct sframe_section *s = *pp;
		if (s->text_start == text_start) {
			*pp = s->next;
			mm->nsframes--;
			if (mm->sframe_last == s)
				mm->sframe_last = NULL;
			mm->sframe_gen++;
			kfree((void *)s->table.fde_index);
			kfree(s);
			return 0;
		}
	}
	return -STITCH_EINVAL;
}

struct sframe_section *sframe_find(const struct uvm *mm, uint64_t pc)
{
	for (struct sframe_section *s = mm->sframes; s; s = s->next)
		if (pc >= s->text_start && pc < s->text_end)
			return s;
	return NULL;
}

void sframe_unmapped(struct uvm *mm)
{
	mm->sframe_gen++;
}

void sframe_free(struct uvm *mm)
{
	while (mm->sframes)
		remove_section(mm, mm->sframes->text_start);
	kfree(mm->rule_cache);
	mm->rule_cache = NULL;
}

/* The unwinder's switches (docs/DEFERRED.md): sframe.validate runs the
 * full validation when a section is first opened; unwind.rule_cache=0
 * turns the pc -> rule cache off, unwind.fde_index=0 the sections' FDE
 * index. */
static bool validate_all;
static bool rule_cache_on = true;
static bool fde_index_on = true;

void sframe_reg_init(void)
{
	validate_all = cmdline_flag(&boot_args, "sframe.validate");
	rule_cache_on = cmdline_int(&boot_args, "unwind.rule_cache", 1, 0, 1);
	fde_index_on = cmdline_int(&boot_args, "unwind.fde_index", 1, 0, 1);
}

/* The most FDEs a section may have to get an index: one sample per FDE,
 * 32 bytes each with the FDE kept (64 KiB at most). A sparser index of a bigger section
 * would still fault in every page of its FDE array at the first use
 * (funcs-100000's first unwind: 832 K instructions instead of 142 K),
 * for a few search probes a lookup. */
#define FDE_INDEX_MAX 2048

/*
 * A sorted section's FDE index (sf_fde_index_build, a sample per FDE), built
 * at its first use into kernel memory the section owns: the lookups then
 * find their function's FDE through the index's bucket directory in
 * kernel memory and read from the section only that FDE, the first time,
 * and after that only its rows (the index keeps it). Lookups write the
 * index, which is safe: only the task that owns the address space looks
 * up its sections (its deferred unwinds, its exit's). Building reads
 * each FDE's start once (and takes the FDE array's page faults). The
 * memory is allocated with the walk's user-access window closed;
 * remove_section frees it with the section. Without memory, off, or for a
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

/* Header and layout, read in place (sframe_find_rule holds the window).
 * The section's own checks happen on each lookup path; the full pass is
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

/* The section covering pc: the last one used first (consecutive frames
 * are mostly in the same object), opened at its first use. */
static struct sframe_section *section_for(struct uvm *mm, uint64_t pc,
					 struct sframe_walk *w, int *err)
{
	struct sframe_section *s = mm->sframe_last;
	*err = SF_OK;
	if (s && pc >= s->text_start && pc < s->text_end) {
		w->last_hits++;
	} else {
		s = sframe_find(mm, pc);
		if (!s)
			return NULL;
		mm->sframe_last = s;
	}
	if (!s->checked) {
		if ((*err = open_section(s)))
			return s;
		s->checked = true;
	}
	return s;
}

void sframe_walk_begin(struct sframe_walk *w, struct uvm *mm, uint32_t budget)
{
	/* The counters and the allowance; the rest is written by the
	 * lookups before it is read. */
	w->mm = mm;
	w->work = budget;
	w->lookups = w->cache_hits = w->cache_misses = w->last_hits = 0;
	w->index_lookups = w->quick_lookups = 0;
	/* Allocated here, outside the walk's user-access window. Without
	 * memory the walk simply looks every rule up. */
	if (rule_cache_on && !mm->rule_cache) {
		mm->rule_cache = kzalloc(sizeof *mm->rule_cache);
		mm->sframe_gen++; /* a zeroed entry (generation 0) is empty */
	}
}

void sframe_walk_done(const struct sframe_walk *w)
{
	unsigned cpu = arch_cpu_id(); /* read once: any CPU's row adds to the sums */
	stat_add_on(cpu, STAT_RULE_CACHE_HITS, w->cache_hits);
	stat_add_on(cpu, STAT_RULE_CACHE_MISSES, w->cache_misses);
	stat_add_on(cpu, STAT_SFRAME_LAST_HITS, w->last_hits);
	stat_add_on(cpu, STAT_FDE_INDEX_LOOKUPS, w->index_lookups);
	stat_add_on(cpu, STAT_QUICK_LOOKUPS, w->quick_lookups);
}

/* Fills the newest way of pc's set; the oldest entry goes. */
static void cache_put(struct sframe_rule_cache *c, uint64_t pc, uint64_t tag,
		      const struct sf_quick *q)
{
	struct sframe_rule_entry *set = sframe_rule_set(c, pc);
	for (unsigned i = RULE_CACHE_WAYS - 1; i > 0; i--)
		set[i] = set[i - 1];
	set[0] = (struct sframe_rule_entry){ .pc = pc, .tag = tag, .q = q ? *q : (struct sf_quick){ 0 } };
}

/* pc's rule in t: in one pass through the index when pc's FDE and row
 * are of the common kind (sf_find_quick: w->quick), else by the whole
 * lookup (w->rule, and w->quick when it has that shape). */
static int lookup(const struct sf_table *t, uint64_t pc, struct sframe_walk *w)
{
	w->index_lookups += t->fde_index != NULL;
	int err = sf_find_quick(t, pc, &w->quick, &w->work);
	if (err != SF_E_NOT_QUICK) {
		w->quick_lookups++;
		w->quick_ok = !err;
		return err;
	}
	err = sf_find_rule_bounded(t, pc, &w->rule, &w->work);
	w->quick_ok = !err && sf_quick_of(t, &w->rule, &w->quick);
	return err;
}

int sframe_find_rule(uint64_t pc, struct sframe_walk *w)
{
	struct uvm *mm = w->mm;
	struct sframe_rule_cache *c = mm->rule_cache;
	int err;

	w->sec = NULL;
	if (c && sframe_rule_find(c, pc, sframe_rule_tag(mm, true))) {
		w->cache_hits++; /* known to have no rule: the frame pointer's turn */
		return SF_E_NO_FDE;
	}
	w->sec = section_for(mm, pc, w, &err);
	if (!w->sec)
		err = SF_E_NO_FDE;
	else if (!err)
		err = lookup(&w->sec->table, pc, w);
	if (c && (err == SF_E_NO_FDE || err == SF_E_NO_FRE)) {
		w->cache_misses++;
		cache_put(c, pc, sframe_rule_tag(mm, true), NULL);
	}
	if (err)
		return err;
	if (c && w->quick_ok) {
		w->cache_misses++;
		cache_put(c, pc, sframe_rule_tag(mm, false), &w->quick);
	}
	return SF_OK;
}

void sframe_drop(struct sframe_section *s, int err)
{
	remove_section(current->mm, s->text_start);
	stat_inc(STAT_SFRAME_DROPPED);
	stat_inc(err == SF_E_FAULT ? STAT_SFRAME_DROPPED_FAULT : STAT_SFRAME_DROPPED_INVALID);
}

/* (op, sframe, len, text_start, text_len). REMOVE names the section by
 * the start of its text (text_start), as the registry is keyed. */
long sys_stacktrace_setup(const long *arg)
{
	switch (arg[0]) {
	case STACKTRACE_SFRAME_ADD:
		return sframe_register(current->mm, arg[1], arg[2], arg[3], arg[4],
				       SFRAME_FROM_USER);
	case STACKTRACE_SFRAME_REMOVE: {
		int err = remove_section(current->mm, arg[3]);
		if (!err)
			stat_inc(STAT_SFRAME_REMOVED);
		return err;
	}
	default:
		return -STITCH_EINVAL;
	}
}
