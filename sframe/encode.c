/*
 * Re-encode a section in another version (sframe convert, tests).
 *
 * Output layout: header, auxiliary header (copied), FDE array, FRE
 * sub-section with each function's FREs (v3: after its attribute record)
 * in FDE order. FREs have the same encoding in every version, so their
 * bytes are copied as they are.
 */
#include "read.h"

/* Output that is written at random positions but never past cap; `end`
 * tracks the size the whole encoding needs. */
struct sink {
	uint8_t *buf;
	uint32_t cap;
	uint64_t end;
};

static void put(struct sink *s, uint64_t at, uint64_t v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++, v >>= 8)
		if (at + i < s->cap)
			s->buf[at + i] = (uint8_t)v;
	if (at + n > s->end)
		s->end = at + n;
}

struct enc {
	const struct sf_table *t;
	uint8_t version;
	bool pcrel;
	uint64_t vaddr;
	uint32_t fde_size;
	uint64_t fdes;     /* output offset of the FDE array */
	uint64_t fres;     /* output offset of the FRE sub-section */
	uint64_t next_fre; /* where the next function's FREs go */
	uint64_t num_fres;
	const uint64_t *signal_pc; /* the FDE covering it gets the signal mark */
	bool marked;
	struct sink out;
};

static int put_header(struct enc *e)
{
	const struct sf_table *t = e->t;
	uint8_t flags = t->flags & SF_F_FDE_SORTED;
	uint8_t aux[255];
	int err;

	if (e->version < 3)
		flags |= t->flags & SF_F_FRAME_POINTER; /* gone in v3 */
	if (e->pcrel)
		flags |= SF_F_FUNC_START_PCREL;
	put(&e->out, 0, SF_MAGIC, 2);
	put(&e->out, 2, e->version, 1);
	put(&e->out, 3, flags, 1);
	put(&e->out, 4, t->abi, 1);
	put(&e->out, 5, (uint8_t)t->fixed_fp, 1);
	put(&e->out, 6, (uint8_t)t->fixed_ra, 1);
	put(&e->out, 7, t->auxhdr_len, 1);
	put(&e->out, 8, t->num_fdes, 4);
	put(&e->out, 20, 0, 4); /* FDEs right after the headers */
	put(&e->out, 24, e->fres - e->fdes, 4);
	if ((err = sf_get(&t->src, SF_HEADER_SIZE, t->auxhdr_len, aux)))
		return err;
	for (uint32_t i = 0; i < t->auxhdr_len; i++)
		put(&e->out, SF_HEADER_SIZE + i, aux[i], 1);
	return SF_OK;
}

/* The start field: relative to the section or (pcrel) to the field. */
static int put_start(struct enc *e, uint64_t at, const struct sf_fde *fde)
{
	int64_t rel = (int64_t)(fde->start - e->vaddr - (e->pcrel ? at : 0));

	if (e->version == 3) {
		put(&e->out, at, (uint64_t)rel, 8);
		return SF_OK;
	}
	if (rel < INT32_MIN || rel > INT32_MAX)
		return SF_E_UNSUPPORTED;
	put(&e->out, at, (uint32_t)(int32_t)rel, 4);
	return SF_OK;
}

static uint8_t info_byte(const struct sf_fde *fde)
{
	return (uint8_t)(fde->fre_type | fde->pc_type << 4 |
			 fde->pauth_key_b << 5 | fde->signal << 7);
}

/* What versions 1 and 2 cannot say. */
static int expressible(const struct enc *e, const struct sf_fde *fde)
{
	if (e->version == 3)
		return fde->num_fres > 0xffff ? SF_E_UNSUPPORTED : SF_OK;
	if (fde->fde_type != SF_FDE_DEFAULT || fde->signal)
		return SF_E_UNSUPPORTED;
	if (e->version == 1 && fde->pc_type == SF_PC_MASK &&
	    fde->rep_size != SF_V1_PLT_REP_SIZE)
		return SF_E_UNSUPPORTED;
	return SF_OK;
}

/* The FDE as it is to be written: with the signal mark if it covers
 * signal_pc (a trampoline whose assembler cannot mark it, as gas before
 * 2.46 cannot). */
static struct sf_fde marked_fde(struct enc *e, const struct sf_fde *in)
{
	struct sf_fde fde = *in;
	if (e->signal_pc && *e->signal_pc - fde.start < fde.size) {
		fde.signal = true;
		e->marked = true;
	}
	return fde;
}

static int put_fde(struct enc *e, const struct sf_fde *in)
{
	struct sf_fde f = marked_fde(e, in);
	const struct sf_fde *fde = &f;
	uint64_t at = e->fdes + (uint64_t)fde->index * e->fde_size;
	uint64_t fre_off = e->next_fre - e->fres;
	int err;

	if ((err = expressible(e, fde)) || (err = put_start(e, at, fde)))
		return err;
	if (fre_off > UINT32_MAX)
		return SF_E_UNSUPPORTED;
	if (e->version == 3) {
		put(&e->out, at + 8, fde->size, 4);
		put(&e->out, at + 12, fre_off, 4);
		put(&e->out, e->next_fre, fde->num_fres, 2);
		put(&e->out, e->next_fre + 2, info_byte(fde), 1);
		put(&e->out, e->next_fre + 3, fde->fde_type, 1);
		put(&e->out, e->next_fre + 4, fde->rep_size, 1);
		e->next_fre += SF_ATTR_V3_SIZE;
		return SF_OK;
	}
	put(&e->out, at + 4, fde->size, 4);
	put(&e->out, at + 8, fre_off, 4);
	put(&e->out, at + 12, fde->num_fres, 4);
	put(&e->out, at + 16, info_byte(fde), 1);
	if (e->version == 2) {
		put(&e->out, at + 17, fde->rep_size, 1);
		put(&e->out, at + 18, 0, 2);
	}
	return SF_OK;
}

/* Copy the function's FREs byte for byte. */
static int put_fres(struct enc *e, const struct sf_fde *fde)
{
	uint32_t off = fde->first_fre;
	uint8_t raw[4 + 1 + SF_MAX_WORDS * 4];
	struct sf_fre fre;
	int err;

	for (uint32_t i = 0; i < fde->num_fres; i++) {
		if ((err = sf_fre_read(e->t, fde, off, &fre)) ||
		    (err = sf_get(&e->t->src, off, fre.size, raw)))
			return err;
		for (uint32_t b = 0; b < fre.size; b++)
			put(&e->out, e->next_fre + b, raw[b], 1);
		e->next_fre += fre.size;
		off += fre.size;
	}
	e->num_fres += fde->num_fres;
	return SF_OK;
}

int sf_encode(const struct sf_table *t, uint8_t version, bool pcrel,
	      uint64_t vaddr, uint8_t *out, uint32_t cap, uint32_t *len)
{
	return sf_encode_signal(t, version, pcrel, vaddr, NULL, out, cap, len);
}

int sf_encode_signal(const struct sf_table *t, uint8_t version, bool pcrel,
		     uint64_t vaddr, const uint64_t *signal_pc, uint8_t *out,
		     uint32_t cap, uint32_t *len)
{
	struct enc e = { t, version, pcrel, vaddr, 0, 0, 0, 0, 0, signal_pc, false,
			 { out, cap, 0 } };
	struct sf_fde fde;
	int err;

	if (!t || !len || (!out && cap) || version < 1 || version > 3)
		return SF_E_INVAL;
	if (pcrel && version == 1)
		return SF_E_UNSUPPORTED;
	e.fde_size = version == 1 ? SF_FDE_V1_SIZE :
		     version == 2 ? SF_FDE_V2_SIZE : SF_FDE_V3_SIZE;
	e.fdes = SF_HEADER_SIZE + t->auxhdr_len;
	e.fres = e.fdes + (uint64_t)t->num_fdes * e.fde_size;
	e.next_fre = e.fres;
	if ((err = put_header(&e)))
		return err;
	for (uint32_t i = 0; i < t->num_fdes; i++) {
		if ((err = sf_fde_get(t, i, &fde)) || (err = put_fde(&e, &fde)) ||
		    (err = put_fres(&e, &fde)))
			return err;
	}
	if (signal_pc && !e.marked)
		return SF_E_NO_FDE;
	if (e.num_fres > UINT32_MAX || e.next_fre - e.fres > UINT32_MAX)
		return SF_E_UNSUPPORTED;
	put(&e.out, 12, e.num_fres, 4);
	put(&e.out, 16, e.next_fre - e.fres, 4);
	if (e.out.end > UINT32_MAX)
		return SF_E_UNSUPPORTED;
	*len = (uint32_t)e.out.end;
	return e.out.end > cap ? SF_E_NOSPACE : SF_OK;
}
