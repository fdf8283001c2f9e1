/*
 * The rule at a pc, as struct sf_rule: the row the CIE and FDE programs
 * give at pc, translated. A row sf_rule cannot hold (a register number
 * past 255, an offset past 32 bits) is EH_E_NOT_EXPRESSIBLE; one with a
 * DWARF expression in a column Stitch needs is EH_E_EXPRESSION, but for
 * the two shapes cfa.c follows (a loaded CFA, a register saved at
 * breg + off).
 */
#include "internal.h"

static bool fits32(int64_t v)
{
	return v >= INT32_MIN && v <= INT32_MAX;
}

static int where_of(const struct eh_col *col, struct sf_where *w)
{
	*w = (struct sf_where){ SF_SAME, 0, 0 };
	switch (col->how) {
	case EH_SAME:
		return EH_OK;
	case EH_UNDEF:
		w->how = SF_UNDEFINED;
		return EH_OK;
	case EH_OFFSET:
	case EH_VAL_OFFSET:
		if (!fits32(col->off))
			return EH_E_NOT_EXPRESSIBLE;
		w->how = col->how == EH_OFFSET ? SF_AT_CFA : SF_VAL_CFA;
		w->off = (int32_t)col->off;
		return EH_OK;
	case EH_REGISTER:
		if (col->reg > UINT8_MAX)
			return EH_E_NOT_EXPRESSIBLE;
		w->how = SF_REG;
		w->reg = (uint8_t)col->reg;
		return EH_OK;
	case EH_AT_REG:
		if (!fits32(col->off))
			return EH_E_NOT_EXPRESSIBLE;
		w->how = SF_AT_REG;
		w->reg = (uint8_t)col->reg; /* breg0..31 */
		w->off = (int32_t)col->off;
		return EH_OK;
	}
	return EH_E_EXPRESSION;
}

static int translate(const struct eh_row *row, bool signal, struct sf_rule *rule)
{
	int err;

	*rule = (struct sf_rule){ .signal = signal };
	if (row->cfa_how == EH_CFA_EXPR)
		return EH_E_EXPRESSION;
	if (row->cfa_how == EH_CFA_NONE)
		return EH_E_NO_CFA;
	if (row->cfa_reg > UINT8_MAX || !fits32(row->cfa_off))
		return EH_E_NOT_EXPRESSIBLE;
	rule->cfa_reg = (uint8_t)row->cfa_reg;
	rule->cfa_off = (int32_t)row->cfa_off;
	rule->cfa_deref = row->cfa_how == EH_CFA_DEREF;
	if ((err = where_of(&row->col[0], &rule->ra)))
		return err;
	return where_of(&row->col[1], &rule->fp);
}

int eh_rule_from(const struct eh_table *t, const struct eh_cie *cie, const struct eh_row *init,
		 uint64_t start, uint64_t size, uint64_t insns, uint64_t insns_end,
		 uint64_t pc, struct sf_rule *rule, uint64_t *row_start, uint32_t *budget)
{
	struct eh_row row = *init;
	uint64_t loc = start;
	int err = eh_run(t, cie, insns, insns_end, init, &loc, start + size, pc, &row, budget);

	if (err)
		return err;
	if (row_start)
		*row_start = loc;
	return translate(&row, cie->signal, rule);
}

int eh_rule_at(const struct eh_table *t, const struct eh_fde *fde, uint64_t pc,
	       struct sf_rule *rule, uint64_t *row_start, uint32_t *budget)
{
	const struct eh_cie *cie;
	struct eh_row init = { .cfa_how = EH_CFA_NONE };
	uint64_t loc;
	int err;

	if (!t || !fde || !rule || !budget)
		return EH_E_INVAL;
	if (pc - fde->start >= fde->size)
		return EH_E_NO_FDE;
	cie = &fde->cie;
	loc = fde->start;
	uint64_t end = fde->start + fde->size;
	if ((err = eh_run(t, cie, cie->insns, cie->insns_end, NULL, &loc, end, pc,
			  &init, budget)))
		return err;
	return eh_rule_from(t, cie, &init, fde->start, fde->size, fde->insns, fde->insns_end,
			    pc, rule, row_start, budget);
}

int eh_find_rule(const struct eh_table *t, uint64_t pc, struct sf_rule *rule,
		 uint32_t *budget)
{
	struct eh_fde fde;
	int err;

	if (t && t->index && rule && budget &&
	    (err = eh_index_find_rule(t, pc, rule, budget)) != EH_E_END)
		return err;
	err = eh_fde_find(t, pc, &fde);
	return err ? err : eh_rule_at(t, &fde, pc, rule, NULL, budget);
}
