/*
 * Entries of .eh_frame (LSB "The .eh_frame section"): a 4-byte length, a
 * 4-byte id (0 for a CIE, the distance back to its CIE for an FDE), then
 * the body; a length of 0 terminates the section. This file reads the
 * length and the CIEs.
 */
#include "internal.h"

int eh_entry(const struct eh_table *t, uint64_t off, uint64_t *end, bool *terminator,
	     uint32_t *id)
{
	struct eh_cur c = eh_cur(&t->frame, off, t->frame.size, EH_E_TRUNCATED);
	uint32_t len = eh_u32(&c);

	*terminator = false;
	if (c.err)
		return c.err;
	if (len == 0) {
		*terminator = true;
		*end = c.pos;
		return EH_OK;
	}
	/* gcc and gas never write the 64-bit form into .eh_frame. */
	if (len == EH_LEN64)
		return EH_E_LENGTH64;
	if (len > eh_left(&c) || len < 4)
		return EH_E_LENGTH;
	*end = c.pos + len;
	*id = eh_u32(&c);
	return c.err;
}

/* The augmentation string: "" or 'z' then letters from "RPLS". */
static int aug_string(struct eh_cur *c, char *aug, uint32_t cap)
{
	uint32_t n = 0;

	for (;;) {
		if (!c->err && c->pos == c->end)
			return EH_E_AUGMENTATION; /* no NUL before the end */
		char ch = (char)eh_u8(c);
		if (c->err)
			return c->err;
		if (ch == 0)
			break;
		if (n + 1 == cap || (n == 0 && ch != 'z') ||
		    (n > 0 && ch != 'R' && ch != 'P' && ch != 'L' && ch != 'S'))
			return EH_E_AUGMENTATION;
		aug[n++] = ch;
	}
	aug[n] = 0;
	return EH_OK;
}

/* The personality pointer is skipped: only its size matters here. */
static void skip_ptr(struct eh_cur *c, uint8_t enc)
{
	if (EH_PE_APP(enc) == 0x50) /* aligned: padding we do not model */
		eh_fail(c, EH_E_PTR_ENC);
	else if (EH_PE_FMT(enc) == EH_PE_ULEB128)
		eh_uleb(c);
	else if (EH_PE_FMT(enc) == EH_PE_SLEB128)
		eh_sleb(c);
	else if (eh_fmt_size(c->s, enc))
		eh_skip(c, eh_fmt_size(c->s, enc));
	else
		eh_fail(c, EH_E_PTR_ENC);
}

/* The augmentation data, in the order of the string's letters; it must
 * fit in the length 'z' gave, which bounds the reads. */
static int aug_data(struct eh_cur *c, const char *aug, struct eh_cie *cie)
{
	uint64_t len = eh_uleb(c);
	if (c->err)
		return c->err;
	if (len > eh_left(c))
		return EH_E_AUG_LENGTH;
	struct eh_cur d = eh_cur(c->s, c->pos, c->pos + len, EH_E_AUG_LENGTH);
	for (const char *p = aug + 1; *p && !d.err; p++) {
		if (*p == 'R')
			cie->fde_enc = eh_u8(&d);
		else if (*p == 'L')
			cie->lsda_enc = eh_u8(&d);
		else if (*p == 'P')
			skip_ptr(&d, eh_u8(&d));
		else if (*p == 'S')
			cie->signal = true;
	}
	c->pos += len;
	return d.err;
}

int eh_cie_at(const struct eh_table *t, uint64_t off, struct eh_cie *cie)
{
	uint64_t end;
	uint32_t id = 0;
	bool term;
	char aug[8];
	int err = eh_entry(t, off, &end, &term, &id);

	if (err)
		return err;
	if (term || id != EH_CIE_ID)
		return EH_E_NOT_CIE;
	struct eh_cur c = eh_cur(&t->frame, off + 8, end, EH_E_TRUNCATED);
	*cie = (struct eh_cie){ .off = off, .fde_enc = EH_PE_ABSPTR, .lsda_enc = EH_PE_OMIT };
	cie->version = eh_u8(&c);
	if (!c.err && cie->version != 1 && cie->version != 3)
		return EH_E_CIE_VERSION;
	if ((err = aug_string(&c, aug, sizeof aug)))
		return err;
	cie->code_align = eh_uleb(&c);
	cie->data_align = eh_sleb(&c);
	/* Version 1 stores the column in a byte, version 3 as ULEB128. */
	cie->ra_reg = cie->version == 1 ? eh_u8(&c) : eh_uleb(&c);
	if (c.err)
		return c.err;
	if (cie->code_align == 0)
		return EH_E_CODE_ALIGN;
	/* No rule would ever say where the return address is. */
	if (cie->ra_reg != eh_ra_reg(t->frame.abi))
		return EH_E_RA_COLUMN;
	cie->has_z = aug[0] == 'z';
	if (cie->has_z && (err = aug_data(&c, aug, cie)))
		return err;
	cie->insns = c.pos;
	cie->insns_end = end;
	return EH_OK;
}
