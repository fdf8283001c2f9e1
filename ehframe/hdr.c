/*
 * .eh_frame_hdr (LSB "The .eh_frame_hdr section"): version, three
 * encodings, eh_frame_ptr, fde_count, then fde_count pairs (initial
 * location, FDE address) sorted by initial location. ld writes the pairs
 * as datarel|sdata4, relative to the start of .eh_frame_hdr; any
 * fixed-size format is accepted, since binary search needs fixed-size
 * entries.
 */
#include "internal.h"

#define HDR_VERSION 1

static bool src_ok(const struct eh_src *s)
{
	return s && s->size && (s->base || s->read || s->in_place) &&
	       (s->abi == EH_ABI_X86_64 || s->abi == EH_ABI_I386);
}

int eh_hdr_frame_ptr(const struct eh_src *hdr, uint64_t *frame)
{
	if (!src_ok(hdr) || !frame)
		return EH_E_INVAL;
	struct eh_cur c = eh_cur(hdr, 0, hdr->size, EH_E_TRUNCATED);
	uint8_t version = eh_u8(&c), frame_enc = eh_u8(&c);
	eh_skip(&c, 2);
	if (c.err)
		return c.err;
	if (version != HDR_VERSION)
		return EH_E_HDR_VERSION;
	if (frame_enc == EH_PE_OMIT)
		return EH_E_HDR_FRAME_PTR;
	*frame = eh_ptr(&c, frame_enc, hdr->vaddr);
	return c.err;
}

int eh_open_frame(struct eh_table *t, const struct eh_src *frame)
{
	if (!t || !src_ok(frame))
		return EH_E_INVAL;
	*t = (struct eh_table){ .frame = *frame };
	return EH_OK;
}

/* The table's encoding: fixed size, and relative to something a
 * freestanding reader knows (nothing, the field, the header). */
static int table_enc(const struct eh_src *hdr, uint8_t enc, uint8_t *size)
{
	uint32_t n = eh_fmt_size(hdr, enc);
	uint8_t app = EH_PE_APP(enc);
	if (enc == EH_PE_OMIT)
		return EH_E_HDR_NO_TABLE;
	if (!n || (enc & EH_PE_INDIRECT) ||
	    (app != 0 && app != EH_PE_PCREL && app != EH_PE_DATAREL))
		return EH_E_HDR_TABLE_ENC;
	*size = (uint8_t)n;
	return EH_OK;
}

int eh_open(struct eh_table *t, const struct eh_src *hdr, const struct eh_src *frame)
{
	int err = eh_open_frame(t, frame);
	if (err)
		return err;
	if (!src_ok(hdr) || hdr->abi != frame->abi)
		return EH_E_INVAL;
	t->hdr = *hdr;
	struct eh_cur c = eh_cur(&t->hdr, 0, hdr->size, EH_E_TRUNCATED);
	uint8_t version = eh_u8(&c), frame_enc = eh_u8(&c);
	uint8_t count_enc = eh_u8(&c), tenc = eh_u8(&c);
	if (c.err)
		return c.err;
	if (version != HDR_VERSION)
		return EH_E_HDR_VERSION;
	if (frame_enc == EH_PE_OMIT)
		return EH_E_HDR_FRAME_PTR;
	uint64_t fp = eh_ptr(&c, frame_enc, hdr->vaddr);
	if (c.err)
		return c.err;
	if (fp != frame->vaddr)
		return EH_E_HDR_FRAME_PTR;
	if (count_enc == EH_PE_OMIT)
		return EH_E_HDR_NO_TABLE;
	t->count = eh_ptr(&c, count_enc, hdr->vaddr);
	if (c.err)
		return c.err;
	if ((err = table_enc(hdr, tenc, &t->field_size)))
		return err;
	t->table_enc = tenc;
	t->table = c.pos;
	/* count * 2 * field_size bytes, without overflow. */
	if (t->count > eh_left(&c) / (2u * t->field_size))
		return EH_E_HDR_TABLE_SIZE;
	t->has_table = true;
	return EH_OK;
}

/* Entry i: its initial location, and the FDE's offset in .eh_frame. */
int eh_hdr_entry(const struct eh_table *t, uint64_t i, uint64_t *loc, uint64_t *fde_off)
{
	uint64_t at = t->table + i * 2u * t->field_size;
	struct eh_cur c = eh_cur(&t->hdr, at, at + 2u * t->field_size, EH_E_HDR_TABLE_SIZE);
	*loc = eh_ptr(&c, t->table_enc, t->hdr.vaddr);
	uint64_t addr = eh_ptr(&c, t->table_enc, t->hdr.vaddr);
	if (c.err)
		return c.err;
	if (fde_off) {
		*fde_off = addr - t->frame.vaddr;
		if (addr < t->frame.vaddr || *fde_off >= t->frame.size)
			return EH_E_HDR_FDE_ADDR;
	}
	return EH_OK;
}

/* The entry's FDE, which must begin where the entry says. */
static int entry_fde(const struct eh_table *t, uint64_t i, struct eh_fde *fde)
{
	uint64_t loc, off;
	int err = eh_hdr_entry(t, i, &loc, &off);

	if (err || (err = eh_fde_at(t, off, fde)))
		return err;
	return fde->start == loc ? EH_OK : EH_E_HDR_MISMATCH;
}

int eh_check_table(const struct eh_table *t)
{
	uint64_t prev = 0;
	struct eh_fde fde;

	if (!t || !t->has_table)
		return t ? EH_E_HDR_NO_TABLE : EH_E_INVAL;
	for (uint64_t i = 0; i < t->count; i++) {
		int err = entry_fde(t, i, &fde);
		if (err)
			return err;
		if (i > 0 && fde.start < prev)
			return EH_E_HDR_UNSORTED;
		prev = fde.start;
	}
	return EH_OK;
}

/*
 * The last entry at or before pc. Each probe is checked against the
 * entries that bound the range still searched: a probe below the lower
 * bound's location or above the upper one's shows the table unsorted.
 * (A table sorted everywhere but on the search path is still searched
 * right; eh_check_table checks every entry.)
 */
static int search(const struct eh_table *t, uint64_t pc, uint64_t *found)
{
	uint64_t lo = 0, hi = t->count;     /* answer in [lo, hi) */
	uint64_t lo_loc = 0, hi_loc = UINT64_MAX, loc;
	bool any = false;
	int err;

	while (lo < hi) {
		uint64_t mid = lo + (hi - lo) / 2;
		if ((err = eh_hdr_entry(t, mid, &loc, NULL)))
			return err;
		if (loc < lo_loc || loc > hi_loc)
			return EH_E_HDR_UNSORTED;
		if (loc <= pc) {
			lo = mid + 1, lo_loc = loc;
			*found = mid, any = true;
		} else {
			hi = mid, hi_loc = loc;
		}
	}
	return any ? EH_OK : EH_E_NO_FDE;
}

int eh_fde_find(const struct eh_table *t, uint64_t pc, struct eh_fde *fde)
{
	uint64_t i;
	int err;

	if (!t || !fde)
		return EH_E_INVAL;
	if (!t->has_table)
		return EH_E_HDR_NO_TABLE;
	if ((err = search(t, pc, &i)) || (err = entry_fde(t, i, fde)))
		return err;
	return pc - fde->start < fde->size ? EH_OK : EH_E_NO_FDE;
}
