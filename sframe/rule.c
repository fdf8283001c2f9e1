/*
 * From an FRE's data words to a frame rule.
 *
 * Default FDEs: word 0 is the CFA offset from the base register (SP or FP).
 * Where the header fixes the RA slot (AMD64: CFA-8), word 1 is the FP slot;
 * otherwise (AArch64) word 1 is the RA slot (0: padding, RA not saved) and
 * word 2 the FP slot. An entity without a word is at its fixed slot, if the
 * header has one, or not saved. An FRE without words marks the outermost
 * frame.
 *
 * Flexible FDEs (v3): each of CFA, RA and FP takes a pair (control word,
 * offset), in that order; a single zero word stands for an absent RA when
 * FP follows. Control word: bit 0 reg_p (base is register `regnum`, else
 * the CFA), bit 1 deref_p (the value is loaded from base + offset), bit 2
 * reserved, bits 3.. regnum (DWARF).
 */
#include "read.h"

#define CTL_REG_P   0x1
#define CTL_DEREF_P 0x2
#define CTL_RESERVED 0x4

/* The control word as stored: unsigned, of the FRE's word size. */
static uint32_t control(const struct sf_fre *fre, uint8_t i)
{
	uint32_t mask = fre->word_size == 4 ? 0xffffffffu :
			(1u << (fre->word_size * 8)) - 1;
	return (uint32_t)fre->word[i] & mask;
}

/* Reserved bit clear and a register number that fits a DWARF column. */
static bool control_ok(uint32_t ctl)
{
	return !(ctl & CTL_RESERVED) && (ctl >> 3) <= 0xff;
}

/* RA or FP from a (control, offset) pair: base is the register when
 * reg_p, else the CFA; deref_p loads the value from base + offset. */
static int flex_where(uint32_t ctl, int32_t off, struct sf_where *w)
{
	bool deref = ctl & CTL_DEREF_P;

	if (!control_ok(ctl))
		return SF_E_RULE;
	w->off = off;
	w->reg = (uint8_t)(ctl >> 3);
	if (ctl & CTL_REG_P) {
		w->how = deref ? SF_AT_REG : SF_REG;
		return SF_OK;
	}
	if (w->reg != 0)
		return SF_E_RULE; /* a register number without reg_p */
	w->how = ctl == 0 && off == 0 ? SF_SAME : deref ? SF_AT_CFA : SF_VAL_CFA;
	return SF_OK;
}

static int flex_rule(const struct sf_table *t, const struct sf_fre *fre,
		     struct sf_rule *r)
{
	uint8_t n = fre->nwords, i = 2;
	uint32_t ctl = control(fre, 0);
	bool padded = false;
	int err;

	/* The CFA cannot be based on itself: reg_p is required. */
	if (n < 2 || !(ctl & CTL_REG_P) || !control_ok(ctl))
		return SF_E_RULE;
	r->cfa_reg = (uint8_t)(ctl >> 3);
	r->cfa_deref = ctl & CTL_DEREF_P;
	r->cfa_off = fre->word[1];

	r->ra = sf_fixed_or_same(t->fixed_ra);
	if (i < n && control(fre, i) == 0) {
		padded = true; /* RA untracked; an FP pair must follow */
		i++;
	} else if (i < n) {
		if (i + 1 >= n)
			return SF_E_RULE;
		if ((err = flex_where(control(fre, i), fre->word[i + 1], &r->ra)))
			return err;
		i += 2;
	}
	r->fp = sf_fixed_or_same(t->fixed_fp);
	if (i == n)
		return padded ? SF_E_RULE : SF_OK;
	if (i + 2 != n)
		return SF_E_RULE;
	return flex_where(control(fre, i), fre->word[i + 1], &r->fp);
}

int sf_rule_of(const struct sf_table *t, const struct sf_fde *fde,
	       const struct sf_fre *fre, struct sf_rule *r)
{
	r->cfa_deref = false;
	r->mangled_ra = fre->mangled_ra;
	r->signal = fde->signal;
	if (fre->nwords == 0) {
		/* Outermost frame: nothing to recover. */
		r->cfa_reg = sf_sp_reg(t);
		r->cfa_off = 0;
		r->ra.how = SF_UNDEFINED;
		r->ra.reg = 0;
		r->ra.off = 0;
		r->fp = sf_fixed_or_same(0);
		return SF_OK;
	}
	if (fde->fde_type == SF_FDE_FLEX)
		return flex_rule(t, fre, r);
	return sf_default_rule(t, fre, r);
}
