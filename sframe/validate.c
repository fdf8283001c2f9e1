/*
 * The optional full check, run once when a section is registered, so that
 * later lookups meet only well-formed data. Lookups stay bounds-checked
 * either way; validation is about getting right answers, not safety.
 */
#include "read.h"

/* FDE fde after prev, and after last, the last one before it of a size
 * other than 0 (NULL: none). */
static int check_fde(const struct sf_table *t, const struct sf_fde *fde,
		     const struct sf_fde *prev, const struct sf_fde *last)
{
	int err = sf_fde_check_shape(fde);
	if (err)
		return err;
	if (!(t->flags & SF_F_FDE_SORTED) || !prev)
		return SF_OK;
	if (fde->start < prev->start)
		return SF_E_FDE_UNSORTED;
	/* A binary search finds one function per pc: no two may share one.
	 * A function of size 0 covers none: it may start anywhere, inside
	 * another one too (the lookups pass over it, sframe/fde.c). */
	if (fde->size && last && fde->start - last->start < last->size)
		return SF_E_FDE_OVERLAP;
	return SF_OK;
}

/* Every row starts after the previous one and inside its function (or
 * inside one repeated block for PCMASK), and forms a valid rule. A
 * function of size 0 has no inside: its rows (gas gives an empty
 * .cfi_startproc/.cfi_endproc region one, at 0) describe no pc, and
 * only the rest is checked. */
static int check_fres(const struct sf_table *t, const struct sf_fde *fde)
{
	uint32_t limit = fde->pc_type == SF_PC_MASK ? fde->rep_size : fde->size;
	uint32_t off = fde->first_fre, prev_start = 0;
	struct sf_fre fre;
	struct sf_rule rule;
	int err;

	for (uint32_t i = 0; i < fde->num_fres; i++) {
		if ((err = sf_fre_read(t, fde, off, &fre)))
			return err;
		if (i > 0 && fre.start <= prev_start)
			return SF_E_FRE_ORDER;
		if (fde->size && fre.start >= limit)
			return SF_E_FRE_OUTSIDE;
		if ((err = sf_rule_of(t, fde, &fre, &rule)))
			return err;
		prev_start = fre.start;
		off += fre.size;
	}
	return SF_OK;
}

int sf_validate(const struct sf_table *t)
{
	struct sf_fde fde, prev, last;
	bool have_last = false;
	uint64_t fres = 0;
	int err;

	if (!t)
		return SF_E_INVAL;
	if ((err = sf_check_layout(t)))
		return err;
	for (uint32_t i = 0; i < t->num_fdes; i++) {
		if ((err = sf_fde_get(t, i, &fde)))
			return err;
		if ((err = check_fde(t, &fde, i ? &prev : NULL, have_last ? &last : NULL)))
			return err;
		fres += fde.num_fres;
		if (fres > t->num_fres)
			return SF_E_FRE_COUNT;
		if ((err = check_fres(t, &fde)))
			return err;
		prev = fde;
		if (fde.size) {
			last = fde;
			have_last = true;
		}
	}
	return fres == t->num_fres ? SF_OK : SF_E_FRE_COUNT;
}
