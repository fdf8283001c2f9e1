/*
 * Function descriptor entries: the reader of one (its layout and inline
 * decoder are in sframe/read.h), and what every lookup must know of the
 * functions of size 0.
 */
#include "read.h"

int sf_fde_get(const struct sf_table *t, uint32_t idx, struct sf_fde *fde)
{
	if (idx >= t->num_fdes)
		return SF_E_FDE_INDEX;
	switch (sf_kind(&t->src)) {
	case SF_KIND_BASE:
		return fde_get(t, SF_KIND_BASE, idx, fde);
	case SF_KIND_IN_PLACE:
		return fde_get(t, SF_KIND_IN_PLACE, idx, fde);
	default:
		return fde_get(t, SF_KIND_READ, idx, fde);
	}
}

/*
 * Functions of size 0. The SFrame format describes a function's code as
 * [start, start + size) (binutils' "The SFrame Format", "SFrame Function
 * Descriptor Entries"); gas 2.40 emits an FDE of size 0, with one row,
 * for an empty .cfi_startproc/.cfi_endproc region, and libsframe takes
 * it. It covers no pc, so it is never the answer; sf_validate lets it
 * start anywhere, at the start of another function or inside one. The
 * last FDE starting at or before pc may then be one: the lookups go back
 * to the last one before it of a size other than 0 (sf_fde_back_over_empty),
 * and the check that a function does not overlap the FDEs after it
 * passes over those of size 0 (sf_fde_check_next). Both read FDEs only where
 * one of size 0 is, each read charged to the lookup's allowance.
 */

/* FDE fde's function against the FDEs from j on that start inside it:
 * all of size 0, their starts increasing. */
int sf_fde_check_next(const struct sf_table *t, const struct sf_fde *fde, uint32_t j,
		      uint32_t *work)
{
	uint64_t prev = fde->start;
	struct sf_fde next;
	int err;

	for (; j < t->num_fdes; j++) {
		if (!*work)
			return SF_E_BUDGET;
		--*work;
		if ((err = sf_fde_get(t, j, &next)))
			return err;
		if (next.start < prev)
			return SF_E_FDE_UNSORTED;
		if (next.start - fde->start >= fde->size)
			return SF_OK;
		if (next.size)
			return SF_E_FDE_OVERLAP;
		prev = next.start;
	}
	return SF_OK;
}

/* *fde of size 0: replaced by the last FDE before it of another size
 * (SF_E_NO_FDE: none), the starts on the way not increasing. */
int sf_fde_back_over_empty(const struct sf_table *t, struct sf_fde *fde, uint32_t *work)
{
	uint64_t start = fde->start;
	int err;

	while (fde->size == 0) {
		if (fde->index == 0)
			return SF_E_NO_FDE;
		if (!*work)
			return SF_E_BUDGET;
		--*work;
		if ((err = sf_fde_get(t, fde->index - 1, fde)))
			return err;
		if (fde->start > start)
			return SF_E_FDE_UNSORTED;
		start = fde->start;
	}
	return SF_OK;
}
