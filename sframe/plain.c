/*
 * The reference lookup: the FDE, the row and the rule at a pc, found the
 * plainest way, through the readers of sframe.h only. Read this first.
 *
 * A section's FDEs describe functions [start, start + size); each
 * function's rows (FREs) are sorted by start, an offset from the
 * function's start (or, in a PLT block, from the start of each repeated
 * block), and the last row starting at or before pc applies. With
 * SF_F_FDE_SORTED the FDEs are sorted by start, and the function that
 * covers pc is the last one starting at or before pc; the format allows
 * functions of size 0 (sframe/fde.c), which cover nothing, so the search
 * steps back over them.
 *
 * It trusts what sf_validate checks (starts sorted, functions apart,
 * rows increasing and inside their function): on a section that
 * passes, sframe/fast.c, the lookup the kernel and the tools use, must
 * give the same answers at every pc, and the tests check that it does.
 * On any other section every read is still bounds-checked, so the
 * answer is safe, not necessarily right.
 */
#include "sframe.h"

/* fde covers pc, and lies in the text the section describes. */
static int found(const struct sf_table *t, const struct sf_fde *fde, uint64_t pc)
{
	if (pc < fde->start || pc - fde->start >= fde->size)
		return SF_E_NO_FDE;
	if (fde->start < t->text_start || fde->start + fde->size - 1 >= t->text_end)
		return SF_E_FDE_TEXT;
	return SF_OK;
}

/* Unsorted FDEs: the first one that covers pc. */
static int find_linear(const struct sf_table *t, uint64_t pc, struct sf_fde *fde)
{
	int err;

	for (uint32_t i = 0; i < t->num_fdes; i++) {
		if ((err = sf_fde_get(t, i, fde)))
			return err;
		if (found(t, fde, pc) != SF_E_NO_FDE)
			return found(t, fde, pc);
	}
	return SF_E_NO_FDE;
}

int sf_plain_fde_find(const struct sf_table *t, uint64_t pc, struct sf_fde *fde)
{
	uint32_t lo = 0, hi = t->num_fdes;
	int err;

	if (t->num_fdes == 0)
		return SF_E_NO_FDE;
	if (!(t->flags & SF_F_FDE_SORTED))
		return find_linear(t, pc, fde);
	/* Binary search: FDE lo is the last candidate known to start at or
	 * before pc (or FDE 0), FDE hi the first known to start after it. */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if ((err = sf_fde_get(t, mid, fde)))
			return err;
		if (fde->start <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if ((err = sf_fde_get(t, lo, fde)))
		return err;
	while (fde->size == 0 && fde->index > 0)
		if ((err = sf_fde_get(t, fde->index - 1, fde)))
			return err;
	return found(t, fde, pc);
}

int sf_plain_fre_find(const struct sf_table *t, const struct sf_fde *fde, uint64_t pc,
		      struct sf_fre *fre)
{
	struct sf_fre row;
	uint32_t off = fde->first_fre;
	bool any = false;
	int err;

	if (pc < fde->start || pc - fde->start >= fde->size)
		return SF_E_NO_FDE;
	uint64_t key = pc - fde->start;
	if (fde->pc_type == SF_PC_MASK) {
		if (fde->rep_size == 0)
			return SF_E_FDE_SIZE;
		key %= fde->rep_size;
	}
	for (uint32_t i = 0; i < fde->num_fres; i++, off += row.size) {
		if ((err = sf_fre_read(t, fde, off, &row)))
			return err;
		if (row.start > key)
			break;
		*fre = row;
		any = true;
	}
	return any ? SF_OK : SF_E_NO_FRE;
}

int sf_plain_find_rule(const struct sf_table *t, uint64_t pc, struct sf_rule *rule)
{
	struct sf_fde fde;
	struct sf_fre fre;
	int err;

	if ((err = sf_plain_fde_find(t, pc, &fde)) ||
	    (err = sf_plain_fre_find(t, &fde, pc, &fre)))
		return err;
	return sf_rule_of(t, &fde, &fre, rule);
}
