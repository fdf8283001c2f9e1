/*
 * The index of a table (ehframe.h, eh_index_build): what a lookup would
 * otherwise read and work out again each time, kept in the caller's
 * memory. The build reads every LZ_BLOCK-th entry of .eh_frame_hdr's
 * table (sframe/lazy_index.h), the first lookup in a block the block's
 * other entries, once; the first lookup that lands on an FDE keeps its
 * range and where its instructions are, and the first that needs a CIE keeps its fields and
 * the row its initial instructions leave (a row that does not depend on
 * the pc: an advance in a CIE is an error). After that a lookup of the
 * function costs a binary search in ordinary memory, one table entry
 * read again, and the FDE's own instructions up to pc.
 *
 * Each answer is the one eh_find_rule gives without the index: the same
 * entry (the last one at or before pc, which is what the table's search
 * finds in a sorted table; the build and the fills refuse any other), the same
 * checks in the same order, the same budget spent on instructions. What
 * is not read again: the entries the search would have probed on the
 * way, and an FDE or CIE once kept (a snapshot). The one entry a lookup
 * uses is read again, so that a table rewritten since the build is
 * looked up as without the index (EH_E_END to the caller).
 */
#include "internal.h"

uint64_t eh_index_size(const struct eh_table *t)
{
	/* count fits: eh_open bounded it by the header's size. */
	return sizeof(struct eh_index) + lz_bytes((uint32_t)t->count) +
	       t->count * sizeof(struct eh_kept_fde);
}

/* What the lazy index reads of an entry: its initial location, and its
 * FDE's offset kept (not read yet). */
struct entry_reader {
	const struct eh_table *t;
	struct eh_index *x;
};

static int read_entry(const void *ctx, uint32_t i, uint64_t *loc)
{
	const struct entry_reader *r = ctx;
	uint64_t off;
	int err = eh_hdr_entry(r->t, i, loc, &off);
	if (!err)
		eh_index_fdes(r->x)[i] = (struct eh_kept_fde){ .off = (uint32_t)off }; /* < frame.size */
	return err;
}

int eh_index_begin(const struct eh_table *t, void *mem, uint64_t size)
{
	struct eh_index *x = mem;

	if (!t || !mem || (uintptr_t)mem % 8 || !t->has_table || t->count == 0 ||
	    t->count > UINT32_MAX || t->frame.size > UINT32_MAX || size < eh_index_size(t))
		return EH_E_INVAL;
	x->n = (uint32_t)t->count;
	x->ncies = 0;
	lz_init(&x->lz, x->n, x->loc, EH_E_HDR_UNSORTED, EH_E_BUDGET);
	return EH_OK;
}

const struct lz_index *eh_index_lazy(const void *mem)
{
	return &((const struct eh_index *)mem)->lz;
}

/* The top level only: the other entries are read as lookups reach them. */
int eh_index_more(struct eh_table *t, void *mem, uint32_t *work)
{
	struct eh_index *x = mem;
	struct entry_reader r = { t, x };
	int err = lz_top_more(&x->lz, read_entry, &r, work);

	if (err)
		return err;
	t->index = x;
	return EH_OK;
}

int eh_index_build(struct eh_table *t, void *mem, uint64_t size)
{
	uint32_t work = UINT32_MAX;
	int err = eh_index_begin(t, mem, size);
	return err ? err : eh_index_more(t, mem, &work);
}

/* The kept CIE at .eh_frame offset off, or false. */
static bool kept_cie(const struct eh_index *x, uint64_t off, uint8_t *slot)
{
	for (uint32_t c = 0; c < x->ncies; c++) {
		if (x->cies[c].cie.off == off) {
			*slot = (uint8_t)c;
			return true;
		}
	}
	return false;
}

/* Charges what the kept CIE's instructions cost when they ran, as
 * eh_run would have: EH_E_BUDGET (the budget spent) if they no longer
 * fit. */
static int charge(const struct eh_kept_cie *c, uint32_t *budget)
{
	if (*budget < c->insns_run) {
		*budget = 0;
		return EH_E_BUDGET;
	}
	*budget -= c->insns_run;
	return EH_OK;
}

/* The FDE just read, kept with its CIE's slot. */
static void keep(struct eh_kept_fde *k, const struct eh_fde *fde, uint8_t slot)
{
	k->size = fde->size;
	k->insns = (uint32_t)fde->insns;         /* < frame.size <= UINT32_MAX */
	k->insns_end = (uint32_t)fde->insns_end;
	k->cie = slot;
	k->read = true;
}

/* The first lookup of entry k's FDE (at off, for initial location loc):
 * read as eh_fde_find and eh_rule_at would, kept once its CIE is. */
static int first_read(const struct eh_table *t, struct eh_index *x, struct eh_kept_fde *k,
		      uint64_t off, uint64_t loc, uint64_t pc, struct sf_rule *rule,
		      uint32_t *budget)
{
	struct eh_fde fde;
	uint8_t slot;
	int err = eh_fde_at(t, off, &fde);

	if (err)
		return err;
	if (fde.start != loc)
		return EH_E_HDR_MISMATCH;
	bool have = kept_cie(x, fde.cie.off, &slot);
	if (pc - fde.start >= fde.size) {
		if (have)
			keep(k, &fde, slot);
		return EH_E_NO_FDE;
	}
	if (have) {
		keep(k, &fde, slot);
		if ((err = charge(&x->cies[slot], budget)))
			return err;
	} else if (x->ncies == EH_INDEX_CIES) {
		return eh_rule_at(t, &fde, pc, rule, NULL, budget); /* no room: as it is */
	} else {
		/* The CIE's instructions run now, as eh_rule_at runs them. */
		struct eh_kept_cie *c = &x->cies[x->ncies];
		uint32_t before = *budget;
		uint64_t at = fde.start;
		c->init = (struct eh_row){ .cfa_how = EH_CFA_NONE };
		if ((err = eh_run(t, &fde.cie, fde.cie.insns, fde.cie.insns_end, NULL, &at,
				  fde.start + fde.size, pc, &c->init, budget)))
			return err;
		c->cie = fde.cie;
		c->insns_run = before - *budget;
		slot = (uint8_t)x->ncies++;
		keep(k, &fde, slot);
	}
	const struct eh_kept_cie *c = &x->cies[slot];
	return eh_rule_from(t, &c->cie, &c->init, loc, k->size, k->insns, k->insns_end, pc,
			    rule, NULL, budget);
}

int eh_index_find_rule(const struct eh_table *t, uint64_t pc, struct sf_rule *rule,
		       uint32_t *budget)
{
	struct eh_index *x = t->index;
	uint64_t loc, off;
	int err;

	struct entry_reader r = { t, x };
	/* A block's reads are bounded (LZ_BLOCK) and counted (lz.fills), not
	 * charged to the instruction budget: the budget a lookup spends is
	 * the one it spends without the index. */
	uint32_t i, block = LZ_BLOCK;

	if (pc < x->loc[0])
		return EH_E_NO_FDE;
	/* A block that does not read well: the table as it is says why. */
	if ((err = lz_find(&x->lz, pc, read_entry, &r, &block, &i)))
		return EH_E_END;
	struct eh_kept_fde *k = &eh_index_fdes(x)[i];
	/* The entry as the table says it now. */
	if ((err = eh_hdr_entry(t, i, &loc, &off)))
		return err;
	if (loc != x->loc[i] || off != k->off)
		return EH_E_END;
	if (!k->read)
		return first_read(t, x, k, off, loc, pc, rule, budget);
	if (pc - loc >= k->size)
		return EH_E_NO_FDE;
	const struct eh_kept_cie *c = &x->cies[k->cie];
	if ((err = charge(c, budget)))
		return err;
	return eh_rule_from(t, &c->cie, &c->init, loc, k->size, k->insns, k->insns_end, pc,
			    rule, NULL, budget);
}
