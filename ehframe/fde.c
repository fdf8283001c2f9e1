/*
 * FDEs: the CIE pointer, the address range in the CIE's 'R' encoding, the
 * augmentation data (its LSDA skipped), and the instructions. Also the
 * walk over all of .eh_frame, for tools and full checks.
 */
#include "internal.h"

/* The CIE an FDE's id field (at section offset idoff) points back to:
 * back, so only a distance past the section's start leaves it. */
static int cie_of(const struct eh_table *t, uint64_t idoff, uint32_t id, struct eh_cie *cie)
{
	if (id > idoff)
		return EH_E_CIE_POINTER;
	return eh_cie_at(t, idoff - id, cie);
}

/* pc_begin, then pc_range: the same format, but a length, so without the
 * application (pcrel...) part. */
static int range(struct eh_cur *c, const struct eh_cie *cie, struct eh_fde *fde)
{
	fde->start = eh_ptr(c, cie->fde_enc, 0);
	fde->size = eh_ptr(c, EH_PE_FMT(cie->fde_enc), 0);
	if (c->err)
		return c->err;
	/* start + size is the end the interpreter advances towards, no
	 * further than the ABI's last address. */
	if (fde->size > eh_addr_max(c->s) - fde->start)
		return EH_E_FDE_RANGE;
	return EH_OK;
}

int eh_fde_at(const struct eh_table *t, uint64_t off, struct eh_fde *fde)
{
	uint64_t end;
	uint32_t id = 0;
	bool term;
	int err = eh_entry(t, off, &end, &term, &id);

	if (err)
		return err;
	if (term)
		return EH_E_TERMINATOR;
	if (id == EH_CIE_ID)
		return EH_E_NOT_FDE;
	*fde = (struct eh_fde){ .off = off, .next = end };
	if ((err = cie_of(t, off + 4, id, &fde->cie)))
		return err;
	struct eh_cur c = eh_cur(&t->frame, off + 8, end, EH_E_TRUNCATED);
	if ((err = range(&c, &fde->cie, fde)))
		return err;
	if (fde->cie.has_z) {
		uint64_t len = eh_uleb(&c);
		if (c.err)
			return c.err;
		if (len > eh_left(&c))
			return EH_E_AUG_LENGTH;
		eh_skip(&c, len); /* the LSDA pointer: exceptions, not unwinding */
	}
	fde->insns = c.pos;
	fde->insns_end = end;
	return EH_OK;
}

int eh_fde_next(const struct eh_table *t, uint64_t *off, struct eh_fde *fde)
{
	/* Each entry is at least 8 bytes, so the walk ends. */
	while (*off < t->frame.size) {
		uint64_t end;
		uint32_t id = 0;
		bool term;
		int err = eh_entry(t, *off, &end, &term, &id);
		if (err)
			return err;
		if (term)
			return EH_E_END;
		if (id == EH_CIE_ID) {
			struct eh_cie cie;
			if ((err = eh_cie_at(t, *off, &cie)))
				return err;
			*off = end;
			continue;
		}
		if ((err = eh_fde_at(t, *off, fde)))
			return err;
		*off = end;
		return EH_OK;
	}
	return EH_E_END;
}
