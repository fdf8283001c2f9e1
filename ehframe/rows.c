/*
 * Rows (ehframe.h, eh_rows_add): what the interpreter would answer at
 * every pc of a table, worked out once. An entry's FDE is run by the
 * interpreter's own loop (eh_run_rows, cfa.c), which tells each row as an
 * advance ends it; each row is translated as a lookup translates it
 * (eh_translate, rule.c) and packed into 16 bytes. So the rows cannot
 * disagree with a lookup: they are its answers, kept.
 *
 * The rows are one array sorted by pc, searched in one binary search.
 * An entry first cuts the rows at its initial location (eh_rows_cut: the
 * table's search gives the pcs from there to it, whatever an earlier,
 * overlapping FDE said), then adds its rows and a "no FDE" row where its
 * function ends.
 */
#include "internal.h"

void eh_rows_init(struct eh_rows *x, uint64_t base, struct eh_krow *mem, uint32_t cap)
{
	*x = (struct eh_rows){ .base = base, .row = mem, .cap = cap };
}

static bool same_row(const struct eh_krow *a, const struct eh_krow *b)
{
	return a->kind == b->kind && a->cfa_reg == b->cfa_reg && a->ra_how == b->ra_how &&
	       a->fp_how == b->fp_how && a->cfa_off == b->cfa_off && a->ra == b->ra &&
	       a->fp == b->fp;
}

/* Appends r (its pc not below the last row's): a row at the last row's pc
 * replaces it, a row equal to the one before is no new row. */
static int push(struct eh_rows *x, const struct eh_krow *r)
{
	if (x->n && x->row[x->n - 1].pc == r->pc)
		x->n--;
	if (x->n && same_row(&x->row[x->n - 1], r))
		return EH_OK;
	if (x->n == x->cap)
		return EH_E_FULL;
	x->row[x->n++] = *r;
	return EH_OK;
}

/* A row of kind at loc (inside base's 4 GiB: the caller checked). */
static int mark(struct eh_rows *x, uint64_t loc, uint8_t kind)
{
	struct eh_krow r = { .pc = (uint32_t)(loc - x->base), .kind = kind };
	return push(x, &r);
}

/* Drops the rows from loc on: a later entry answers there. */
static int drop_from(struct eh_rows *x, uint64_t loc)
{
	if (loc < x->base || loc - x->base > UINT32_MAX)
		return EH_E_NOT_EXPRESSIBLE;
	while (x->n && x->row[x->n - 1].pc >= loc - x->base)
		x->n--;
	return EH_OK;
}

int eh_rows_cut(struct eh_rows *x, uint64_t loc)
{
	int err = drop_from(x, loc);
	return err ? err : mark(x, loc, EH_KROW_INTERPRET);
}

/* A where of the rule in 16 bits; false when it does not fit. */
static bool pack_where(const struct sf_where *w, uint8_t *how, int16_t *v)
{
	*how = w->how;
	if (w->how == SF_REG || w->how == SF_AT_REG) {
		*v = (int16_t)(uint16_t)((uint16_t)(uint8_t)(int8_t)w->off << 8 | w->reg);
		return w->off >= INT8_MIN && w->off <= INT8_MAX;
	}
	*v = (int16_t)w->off;
	return *v == w->off;
}

static struct sf_where unpack_where(uint8_t how, int16_t v)
{
	if (how == SF_REG || how == SF_AT_REG)
		return (struct sf_where){ how, (uint8_t)v, (int8_t)((uint16_t)v >> 8) };
	return (struct sf_where){ how, 0, v };
}

/* One row, as the lookup at its pcs would answer. */
static void pack(const struct eh_row *row, bool signal, uint32_t pc, struct eh_krow *k)
{
	struct sf_rule rule;
	int err = eh_translate(row, signal, &rule);

	*k = (struct eh_krow){ .pc = pc, .kind = EH_KROW_REFUSED, .cfa_off = err };
	if (err)
		return;
	k->kind = EH_KROW_RULE | (signal ? EH_KROW_SIGNAL : 0) |
		  (rule.cfa_deref ? EH_KROW_DEREF : 0);
	k->cfa_reg = rule.cfa_reg;
	k->cfa_off = rule.cfa_off;
	if (!pack_where(&rule.ra, &k->ra_how, &k->ra) || !pack_where(&rule.fp, &k->fp_how, &k->fp))
		*k = (struct eh_krow){ .pc = pc, .kind = EH_KROW_INTERPRET };
}

/* What eh_run_rows tells a run of eh_rows_add. */
struct sink {
	struct eh_rows *x;
	bool signal;
};

static int emit(void *ctx, uint64_t loc, const struct eh_row *row)
{
	struct sink *s = ctx;
	struct eh_krow k;
	pack(row, s->signal, (uint32_t)(loc - s->x->base), &k); /* loc inside the FDE */
	return push(s->x, &k);
}

/* The rows of fde: its CIE's initial instructions, then its program. */
static int fde_rows(const struct eh_table *t, const struct eh_fde *fde, struct eh_rows *x,
		    uint32_t *budget)
{
	struct eh_row init = { .cfa_how = EH_CFA_NONE };
	uint64_t loc = fde->start, end = fde->start + fde->size;
	struct sink s = { x, fde->cie.signal };
	int err = eh_run(t, &fde->cie, fde->cie.insns, fde->cie.insns_end, NULL, &loc, end,
			 fde->start, &init, budget);
	if (err)
		return err;
	return eh_run_rows(t, &fde->cie, fde->insns, fde->insns_end, &init, fde->start, end,
			   emit, &s, budget);
}

int eh_rows_add(const struct eh_table *t, uint64_t i, struct eh_rows *x, uint32_t *budget)
{
	struct eh_fde fde;
	uint64_t loc;
	int err;

	if ((err = eh_hdr_entry(t, i, &loc, NULL)))
		return err;
	if (x->entries && loc < x->last_loc)
		return EH_E_HDR_UNSORTED;
	if ((err = drop_from(x, loc)))
		return err;
	uint32_t start = x->n; /* rows from here are the entry's */
	err = eh_hdr_entry_fde(t, i, &fde);
	if (!err && fde.start + fde.size - x->base > UINT32_MAX)
		err = EH_E_NOT_EXPRESSIBLE;
	if (!err && fde.size)
		err = fde_rows(t, &fde, x, budget);
	if (!err)
		err = mark(x, fde.start + fde.size, EH_KROW_NONE);
	bool interpreted = err && err != EH_E_FULL;
	if (interpreted) {
		/* The interpreter answers the entry's pcs, as it would. */
		x->n = start;
		err = mark(x, loc, EH_KROW_INTERPRET);
	}
	if (err) { /* EH_E_FULL */
		x->n = start;
		return err;
	}
	x->interpreted += interpreted;
	x->entries++;
	x->last_loc = loc;
	return EH_OK;
}

int eh_rows_base(const struct eh_table *t, uint64_t *base)
{
	if (!t->has_table || t->count == 0)
		return t->has_table ? EH_E_NO_FDE : EH_E_HDR_NO_TABLE;
	return eh_hdr_entry(t, 0, base, NULL);
}

int eh_rows_of_pc(const struct eh_table *t, uint64_t pc, struct eh_rows *x, uint32_t *budget)
{
	uint64_t i, next;
	int err;

	if (!t->has_table)
		return EH_E_HDR_NO_TABLE;
	if ((err = eh_hdr_search(t, pc, &i)) || (err = eh_rows_add(t, i, x, budget)))
		return err;
	if (i + 1 == t->count)
		return EH_OK;
	if ((err = eh_hdr_entry(t, i + 1, &next, NULL)))
		return err;
	return next <= pc ? EH_E_HDR_UNSORTED : eh_rows_cut(x, next);
}

int eh_rows_find(const struct eh_rows *x, uint64_t pc, struct sf_rule *rule)
{
	if (x->n == 0 || pc < x->base || pc - x->base < x->row[0].pc)
		return EH_E_NO_FDE;
	uint64_t off = pc - x->base;
	uint32_t lo = 0, hi = x->n; /* row[lo].pc <= off, row[hi..].pc > off */
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x->row[mid].pc <= off)
			lo = mid;
		else
			hi = mid;
	}
	const struct eh_krow *k = &x->row[lo];
	switch (k->kind & ~EH_KROW_FLAGS) {
	case EH_KROW_NONE:
		return EH_E_NO_FDE;
	case EH_KROW_REFUSED:
		return k->cfa_off;
	case EH_KROW_INTERPRET:
		return EH_E_END;
	}
	*rule = (struct sf_rule){
		.cfa_reg = k->cfa_reg, .cfa_off = k->cfa_off,
		.cfa_deref = (k->kind & EH_KROW_DEREF) != 0,
		.ra = unpack_where(k->ra_how, k->ra),
		.fp = unpack_where(k->fp_how, k->fp),
		.signal = (k->kind & EH_KROW_SIGNAL) != 0,
	};
	return EH_OK;
}
