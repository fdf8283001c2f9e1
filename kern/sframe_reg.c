#include "kern/sframe_reg.h"
#include "arch/x86_64/uaccess.h"
#include "kern/cmdline.h"
#include "kern/kernel.h"
#include "kern/kmalloc.h"
#include "kern/stats.h"
#include "kern/syscall.h"
#include "kern/task.h"
#include "kern/uaccess.h"
#include "stitch/syscall.h"

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

int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len)
{
	/* struct sf_src counts a section's bytes in 32 bits. */
	int err = len > UINT32_MAX ? -STITCH_EINVAL :
				     uvm_sframe_add(mm, sframe, len, text, text_len);
	if (err)
		count_refused(err);
	else
		stat_inc(STAT_SFRAME_REGISTERED);
	return err;
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
 * 12 bytes each (24 KiB at most). A sparser index of a bigger section
 * would still fault in every page of its FDE array at the first use
 * (funcs-100000's first unwind: 832 K instructions instead of 142 K),
 * for a few search probes a lookup. */
#define FDE_INDEX_MAX 2048

/*
 * A sorted section's FDE index (sf_sample_build, a sample per FDE), built
 * at its first use into kernel memory the section owns: the lookups then
 * find their function's FDE through the index's bucket directory in
 * kernel memory and read from the section only that FDE. Building reads
 * each FDE's start once (and takes the FDE array's page faults). The
 * memory is allocated with the walk's user-access window closed;
 * kern/uvm.c frees it with the section. Without memory, off, or for a
 * bigger section, the section is searched as it is; a section whose
 * starts decrease is not valid.
 */
static int index_section(struct sframe_section *s)
{
	struct sf_table *t = &s->table;
	if (!fde_index_on || !(t->flags & SF_F_FDE_SORTED) || t->num_fdes == 0 ||
	    t->num_fdes > FDE_INDEX_MAX)
		return SF_OK;
	uint64_t size = sf_sample_size(t, FDE_INDEX_MAX);
	arch_user_access_end();
	void *mem = kmalloc(size);
	arch_user_access_begin();
	if (!mem)
		return SF_OK;
	int err = sf_sample_build(t, mem, size);
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
		s = uvm_sframe_find(mm, pc);
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

void sframe_walk_begin(struct sframe_walk *w, uint32_t budget)
{
	struct uvm *mm = current->mm;
	*w = (struct sframe_walk){ .work = budget };
	/* Allocated here, outside the walk's user-access window. Without
	 * memory the walk simply looks every rule up. */
	if (rule_cache_on && !mm->rule_cache) {
		mm->rule_cache = kzalloc(sizeof *mm->rule_cache);
		mm->sframe_gen++; /* a zeroed entry (generation 0) is empty */
	}
}

void sframe_walk_done(const struct sframe_walk *w)
{
	stat_add(STAT_RULE_CACHE_HITS, w->cache_hits);
	stat_add(STAT_RULE_CACHE_MISSES, w->cache_misses);
	stat_add(STAT_SFRAME_LAST_HITS, w->last_hits);
	stat_add(STAT_FDE_INDEX_LOOKUPS, w->index_lookups);
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

int sframe_find_rule(uint64_t pc, const struct sf_rule **rule,
		     struct sframe_section **sec, struct sframe_walk *w)
{
	struct uvm *mm = current->mm;
	struct sframe_rule_cache *c = mm->rule_cache;
	int err;

	*sec = NULL;
	if (c && sframe_rule_find(c, pc, sframe_rule_tag(mm, true))) {
		w->cache_hits++; /* known to have no rule: the frame pointer's turn */
		return SF_E_NO_FDE;
	}
	*sec = section_for(mm, pc, w, &err);
	if (*sec && !err) {
		w->index_lookups += (*sec)->table.sample != NULL;
		err = sf_find_rule_bounded(&(*sec)->table, pc, &w->rule, &w->work);
	} else if (!*sec) {
		err = SF_E_NO_FDE;
	}
	if (c && (err == SF_E_NO_FDE || err == SF_E_NO_FRE)) {
		w->cache_misses++;
		cache_put(c, pc, sframe_rule_tag(mm, true), NULL);
	}
	if (err)
		return err;
	*rule = &w->rule;
	w->quick_ok = sf_quick_of(&(*sec)->table, &w->rule, &w->quick);
	if (c && w->quick_ok) {
		w->cache_misses++;
		cache_put(c, pc, sframe_rule_tag(mm, false), &w->quick);
	}
	return SF_OK;
}

void sframe_drop(struct sframe_section *s, int err)
{
	uvm_sframe_remove(current->mm, s->text_start);
	stat_inc(STAT_SFRAME_DROPPED);
	stat_inc(err == SF_E_FAULT ? STAT_SFRAME_DROPPED_FAULT : STAT_SFRAME_DROPPED_INVALID);
}

/*
 * The system call's ADD also reads the header now, from the caller's
 * memory, so that a loader that registers something that is not SFrame
 * hears it at once: -ENOEXEC (not an SFrame section: bad magic, version,
 * ABI, layout) or -EFAULT (unreadable). The rest is checked where the
 * unwinder reads it (and in full at first use with sframe.validate): the
 * section is user memory and may change meanwhile.
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

static long add(const long *arg)
{
	uint64_t sframe = arg[1], len = arg[2];
	int err = 0;
	if (!user_range_ok(sframe, len) || !user_range_ok(arg[3], arg[4]))
		err = -STITCH_EFAULT;
	else if (len == 0 || len > UINT32_MAX)
		err = -STITCH_EINVAL;
	else
		err = check_header(sframe, len);
	if (err) {
		count_refused(err);
		return err;
	}
	return sframe_register(current->mm, sframe, len, arg[3], arg[4]);
}

/* (op, sframe, len, text_start, text_len). REMOVE names the section by
 * the start of its text (text_start), as the registry is keyed. */
long sys_stacktrace_setup(const long *arg)
{
	switch (arg[0]) {
	case STACKTRACE_SFRAME_ADD:
		return add(arg);
	case STACKTRACE_SFRAME_REMOVE: {
		int err = uvm_sframe_remove(current->mm, arg[3]);
		if (!err)
			stat_inc(STAT_SFRAME_REMOVED);
		return err;
	}
	default:
		return -STITCH_EINVAL;
	}
}
