#include "kern/unwind/sframe_format.h"
#include "kern/kernel.h"
#include "kern/lib/cmdline.h"
#include "kern/lib/stats.h"
#include "stitch/syscall.h"

/* A table's own state: the SFrame library's open table. */
static struct sf_table *sf_of(struct unwind_table *t)
{
	return (struct sf_table *)t->state;
}

/* The switch (docs/DEFERRED.md): sframe.validate runs the full
 * validation when a table is first opened. */
static bool validate_all;

static void init(void)
{
	validate_all = cmdline_flag(&boot_args, "sframe.validate");
}

/*
 * The header, read now from the caller's memory, so that a loader that
 * registers something that is not SFrame hears it at once: -ENOEXEC (bad
 * magic, version, ABI, layout) or -EFAULT (unreadable).
 */
static int check_header(const struct unwind_table *t)
{
	struct sf_table sf;
	struct sf_src src = { .in_place = true, .size = (uint32_t)t->len, .vaddr = t->addr };
	int err = sf_open(&sf, &src);
	if (err == SF_E_FAULT)
		return -STITCH_EFAULT;
	return err ? -STITCH_ENOEXEC : 0;
}

/*
 * A sorted table's FDE index (sf_fde_index_build, an entry per FDE; its
 * memory and budget: kern/unwind/table.h, unwind_index_start): the
 * lookups then find their function's FDE through the index's bucket
 * directory in kernel memory and read from the table only that FDE, the
 * first time, and after that only its rows (the index keeps it). Lookups
 * write the index: the threads of a process may look up the same table
 * on several CPUs at once, so the lookup holds the table
 * (kern/unwind/lookup.c). Building reads each FDE's start once, a chunk
 * a walk (and takes the FDE array's page faults); a table whose starts
 * decrease is not valid.
 */
static uint64_t index_size(struct unwind_table *t, uint64_t *entries)
{
	struct sf_table *sf = sf_of(t);
	if (!(sf->flags & SF_F_FDE_SORTED) || sf->num_fdes == 0)
		return 0;
	*entries = sf->num_fdes;
	return sf_fde_index_size(sf, sf->num_fdes);
}

static int index_begin(struct unwind_table *t, void *mem, uint64_t size)
{
	int err = sf_fde_index_begin(sf_of(t), mem, size);
	if (!err && ((struct sf_fde_index *)mem)->step == 1)
		t->lazy = &((struct sf_fde_index *)mem)->lz;
	return err;
}

static int index_more(struct unwind_table *t, uint32_t *work)
{
	int err = sf_fde_index_more(sf_of(t), t->index, work);
	if (err == SF_OK)
		stat_inc(STAT_SFRAME_INDEXED);
	return err;
}

/* Header and layout, read in place (the walk holds the window). The
 * table's own checks happen on each lookup path; the full pass is
 * opt-in. ld 2.40 makes PT_GNU_SFRAME larger than the merged section
 * (docs/KERNEL.md): reading past the header's end would read other data.
 * Its reads are not charged to the budget. */
static int open_table(struct unwind_table *t, uint32_t *budget)
{
	struct sf_table *sf = sf_of(t);
	struct sf_src src = { .in_place = true, .size = (uint32_t)t->len, .vaddr = t->addr };
	(void)budget;
	int err = sf_open(sf, &src);
	if (!err) {
		src.size = sf_used_size(sf);
		err = sf_open(sf, &src);
	}
	if (!err)
		err = sf_check_layout(sf);
	if (!err && validate_all)
		err = sf_validate(sf);
	sf->text_start = t->text_start;
	sf->text_end = t->text_end;
	return err;
}

/* The whole lookup, for a rule sf_find_quick does not give. Not inline:
 * rare, and find_rule's common path then keeps fewer registers. */
static __attribute__((noinline)) int find_whole(const struct sf_table *sf, uint64_t pc,
						struct unwind_rule *r, uint32_t *budget)
{
	r->indexed += sf->fde_index != NULL;
	int err = sf_find_rule_bounded(sf, pc, &r->rule, budget);
	if (err || sf_quick_of(sf, &r->rule, &r->quick))
		return err;
	r->abi = sf;
	return SF_E_NOT_QUICK;
}

/* pc's rule: in one pass through the index when pc's FDE and row are of
 * the common kind (sf_find_quick, which needs the index: a one-pass
 * lookup is an indexed one), else by the whole lookup. */
static int find_rule(struct unwind_table *t, uint64_t pc, struct unwind_rule *r,
		     uint32_t *budget)
{
	const struct sf_table *sf = sf_of(t);
	int err = sf_find_quick(sf, pc, &r->quick, budget);
	if (err == SF_E_NOT_QUICK)
		return find_whole(sf, pc, r, budget);
	r->quick_finds++;
	return err;
}

static void counted(const struct unwind_rule *r, unsigned cpu)
{
	stat_add_on(cpu, STAT_FDE_INDEX_LOOKUPS, r->indexed + r->quick_finds);
	stat_add_on(cpu, STAT_QUICK_LOOKUPS, r->quick_finds);
}

/* A registration refused with -err: sframe_dropped and its reason. */
static enum stat refused_reason(int err)
{
	switch (err) {
	case -STITCH_EFAULT:
		return STAT_SFRAME_REFUSED_RANGE;
	case -STITCH_EINVAL:
		return STAT_SFRAME_REFUSED_LENGTH;
	case -STITCH_ENOEXEC:
		return STAT_SFRAME_REFUSED_HEADER;
	case -STITCH_EEXIST:
		return STAT_SFRAME_REFUSED_OVERLAP;
	default: /* -ENOMEM */
		return STAT_SFRAME_REFUSED_FULL;
	}
}

static void count(enum unwind_table_event ev, const struct unwind_table *t, int err)
{
	(void)t;
	switch (ev) {
	case TABLE_REGISTERED:
		stat_inc(STAT_SFRAME_REGISTERED);
		break;
	case TABLE_REFUSED:
		stat_inc(STAT_SFRAME_DROPPED);
		stat_inc(refused_reason(err));
		break;
	case TABLE_REMOVED:
		stat_inc(STAT_SFRAME_REMOVED);
		break;
	case TABLE_DROPPED:
		stat_inc(STAT_SFRAME_DROPPED);
		stat_inc(err == SF_E_FAULT ? STAT_SFRAME_DROPPED_FAULT :
					     STAT_SFRAME_DROPPED_INVALID);
		break;
	}
}

const struct unwind_format sframe_format = {
	.id = UNWIND_SFRAME,
	.state_size = sizeof(struct sf_table),
	.self_contained = true,
	.init = init,
	.check = check_header,
	.open = open_table,
	.index_size = index_size,
	.index_begin = index_begin,
	.index_more = index_more,
	.find = find_rule,
	.counted = counted,
	.count = count,
};
