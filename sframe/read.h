/*
 * The readers' inline forms: an FDE, an FRE and a default rule decoded
 * from the section, for the readers' entry points (sframe/fde.c,
 * sframe/fre.c, sframe/rule.c) and for the searches above them, which
 * instantiate them per source kind (sframe/fast.c, sframe/fde_index.c).
 * Layer 1 of the library: they read through sframe/internal.h and call
 * nothing above them.
 *
 *   FDE v1: i32 start, u32 size, u32 fre_off, u32 num_fres, u8 info   (17 B)
 *       v2: v1 + u8 rep_size + u16 padding                            (20 B)
 *       v3: i64 start, u32 size, u32 fre_off                          (16 B)
 *           and at FRE sub-section + fre_off an attribute record:
 *           u16 num_fres, u8 info, u8 info2, u8 rep_size               (5 B)
 *
 * The start is relative to the section, or with SF_F_FUNC_START_PCREL to
 * the start field itself (the first field of the FDE).
 *
 *   FRE: a start address (1, 2 or 4 bytes, per the FDE's FRE type), an
 *   info byte (bit 0 base register, bits 1-4 word count, bits 5-6 word
 *   size, bit 7 mangled RA), then count words of 1, 2 or 4 bytes.
 */
#ifndef STITCH_SFRAME_READ_H
#define STITCH_SFRAME_READ_H

#include "internal.h"

/* --- FDEs ------------------------------------------------------------------ */

static inline uint64_t fde_offset(const struct sf_table *t, uint32_t idx)
{
	return t->fdes + (uint64_t)idx * t->fde_size;
}

static inline uint64_t absolute(const struct sf_table *t, uint64_t at, int64_t raw)
{
	uint64_t base = t->src.vaddr;
	if (t->flags & SF_F_FUNC_START_PCREL)
		base += at;
	return base + (uint64_t)raw;
}

/* The mask of a start field's offset that its value counts from: all of
 * it with SF_F_FUNC_START_PCREL (relative to the field), none without
 * (relative to the section). Read once per search or build. */
static SF_INLINE uint64_t pcrel_mask(const struct sf_table *t)
{
	return t->flags & SF_F_FUNC_START_PCREL ? UINT64_MAX : 0;
}

/* The absolute start a start field of width bytes (v3: 8, else 4) at
 * section offset at holds, b its bytes as loaded. */
static SF_INLINE uint64_t start_of(const struct sf_table *t, const uint8_t *b, uint32_t width,
				   uint64_t at, uint64_t rel)
{
	int64_t raw = width == 8 ? (int64_t)sf_le64(b) : (int32_t)sf_le32(b);
	return t->src.vaddr + (at & rel) + (uint64_t)raw;
}

/* Only the start address of FDE idx < num_fdes (in bounds: sf_open
 * checked the FDE array against the section's size), in one load. */
static SF_INLINE int fde_start(const struct sf_table *t, enum sf_kind k, uint32_t idx,
			       uint64_t *start)
{
	uint64_t at = fde_offset(t, idx);
	uint32_t width = t->version == 3 ? 8 : 4;
	uint8_t b[8] = { 0 };
	/* A constant length each: one load in place. */
	int err = width == 8 ? sf_load(&t->src, k, at, 8, b) : sf_load(&t->src, k, at, 4, b);

	if (err)
		return err;
	*start = start_of(t, b, width, at, pcrel_mask(t));
	return SF_OK;
}

/* v3 keeps the FRE count and info bytes in front of the FREs. */
static SF_INLINE int read_attr(const struct sf_table *t, enum sf_kind k, uint32_t fre_off,
			       struct sf_fde *fde)
{
	uint8_t a[SF_ATTR_V3_SIZE];
	int err;

	if ((uint64_t)fre_off + SF_ATTR_V3_SIZE > t->fre_len)
		return SF_E_FRE_BOUNDS;
	if ((err = sf_get_kind(&t->src, k, (uint64_t)t->fres + fre_off, sizeof a, a)))
		return err;
	fde->num_fres = sf_le16(a);
	fde->info = a[2];
	fde->info2 = a[3];
	fde->rep_size = a[4];
	fde->first_fre = t->fres + fre_off + SF_ATTR_V3_SIZE;
	return SF_OK;
}

/* Split the info bytes into their fields and check them. */
static SF_INLINE int fde_decode_info(const struct sf_table *t, struct sf_fde *fde)
{
	fde->fre_type = fde->info & 0xf;
	fde->pc_type = (fde->info >> 4) & 1;
	fde->pauth_key_b = (fde->info >> 5) & 1;
	fde->signal = t->version == 3 && (fde->info >> 7);
	fde->fde_type = t->version == 3 ? (fde->info2 & 0x1f) : SF_FDE_DEFAULT;

	if (fde->fre_type > SF_FRE_ADDR4 || fde->fde_type > SF_FDE_FLEX)
		return SF_E_FDE_TYPE;
	if (t->version == 1 && fde->pc_type == SF_PC_MASK)
		fde->rep_size = SF_V1_PLT_REP_SIZE;
	return SF_OK;
}

/*
 * FDE idx < num_fdes (in bounds: sf_open checked the FDE array),
 * instantiated per source kind: every version's first 16 bytes as two
 * 8-byte words, then v1's info byte or v2's info and block size, or v3's
 * attribute record; in place that is three loads, no call, no copy.
 */
static SF_INLINE int fde_get(const struct sf_table *t, enum sf_kind k, uint32_t idx,
			     struct sf_fde *fde)
{
	uint64_t at = fde_offset(t, idx), w0, w1;
	uint8_t b[8], tail[2] = { 0 };
	uint32_t fre_off;
	int err;

	if ((err = sf_load(&t->src, k, at, 8, b)))
		return err;
	w0 = sf_le64(b);
	if ((err = sf_load(&t->src, k, at + 8, 8, b)))
		return err;
	w1 = sf_le64(b);
	fde->index = idx;
	fre_off = (uint32_t)(w1 >> (t->version == 3 ? 32 : 0));
	if (t->version == 3) {
		fde->raw_start = (int64_t)w0;
		fde->size = (uint32_t)w1;
		err = read_attr(t, k, fre_off, fde);
	} else {
		fde->raw_start = (int32_t)(uint32_t)w0;
		fde->size = (uint32_t)(w0 >> 32);
		fde->num_fres = (uint32_t)(w1 >> 32);
		err = t->version == 1 ? sf_load(&t->src, k, at + 16, 1, tail) :
					sf_load(&t->src, k, at + 16, 2, tail);
		fde->info = tail[0];
		fde->info2 = 0;
		fde->rep_size = tail[1]; /* v2; 0 in v1 */
		fde->first_fre = t->fres + fre_off;
		if (!err && fre_off > t->fre_len)
			err = SF_E_FRE_BOUNDS;
	}
	if (err)
		return err;
	fde->start = absolute(t, at, fde->raw_start);
	return fde_decode_info(t, fde);
}

/* pc inside fde's function. */
static SF_INLINE bool sf_covers(const struct sf_fde *fde, uint64_t pc)
{
	return pc >= fde->start && pc - fde->start < fde->size;
}

/* A function's own shape, checked by lookups and by sf_validate alike:
 * no PCMASK block of size 0, not wrapping around. A function of size 0
 * has no shape to check: it covers no pc (sframe/fde.c, "Functions of
 * size 0"). */
static inline int sf_fde_check_shape(const struct sf_fde *fde)
{
	/* Written as a choice, not as pc_type == MASK && rep_size == 0:
	 * compilers read that as one word over both bytes, which stalls on
	 * a struct just filled byte by byte. */
	uint8_t block = fde->pc_type == SF_PC_MASK ? fde->rep_size : 1;
	if (fde->size == 0)
		return SF_OK;
	if (block == 0)
		return SF_E_FDE_SIZE;
	if (fde->start + fde->size - 1 < fde->start)
		return SF_E_FDE_RANGE;
	return SF_OK;
}

/* What a lookup checks of the function that covers pc, instead of a
 * validation of all: no wrap, and inside the text the section describes
 * (covering pc, its size is not 0). */
static SF_INLINE int sf_fde_check_found(const struct sf_table *t, const struct sf_fde *fde)
{
	int err = sf_fde_check_shape(fde);
	if (err)
		return err;
	if (fde->start < t->text_start || fde->start + fde->size - 1 >= t->text_end)
		return SF_E_FDE_TEXT;
	return SF_OK;
}

/* Functions of size 0 (sframe/fde.c): fde's function against the FDEs
 * from j on that start inside it, and an FDE of size 0 replaced by the
 * last one before it of another size; each FDE read charged to *work. */
int sf_fde_check_next(const struct sf_table *t, const struct sf_fde *fde, uint32_t j,
		      uint32_t *work);
int sf_fde_back_over_empty(const struct sf_table *t, struct sf_fde *fde, uint32_t *work);

/* --- FREs ------------------------------------------------------------------ */

static SF_INLINE int32_t sign_extend(const uint8_t *p, uint8_t size)
{
	if (size == 1)
		return (int8_t)p[0];
	if (size == 2)
		return (int16_t)sf_le16(p);
	return (int32_t)sf_le32(p);
}

static inline uint32_t start_addr(const uint8_t *p, uint8_t fre_type)
{
	if (fre_type == SF_FRE_ADDR1)
		return p[0];
	if (fre_type == SF_FRE_ADDR2)
		return sf_le16(p);
	return sf_le32(p);
}

/* Split the info byte; SF_E_FRE_INFO for the reserved size or a count
 * larger than any valid FRE carries. */
static SF_INLINE int fre_decode_info(struct sf_fre *fre, uint8_t info)
{
	uint8_t size_code = (info >> 5) & 3; /* 0, 1, 2: 1, 2, 4 bytes */

	fre->info = info;
	fre->base = info & 1;
	fre->nwords = (info >> 1) & 0xf;
	fre->word_size = (uint8_t)(1u << size_code);
	fre->mangled_ra = info >> 7;
	if (size_code == 3 || fre->nwords > SF_MAX_WORDS)
		return SF_E_FRE_INFO;
	return SF_OK;
}

/* n data words of ws bytes at section offset at, sign-extended, each in
 * one load; instantiated per source kind and word size. */
static SF_INLINE int words(const struct sf_table *t, enum sf_kind k, uint32_t ws,
			   uint64_t at, uint8_t n, int32_t *word)
{
	int err;

	for (uint8_t i = 0; i < n; i++, at += ws) {
		uint8_t b[4] = { 0 };
		if ((err = sf_load(&t->src, k, at, ws, b)))
			return err;
		word[i] = sign_extend(b, (uint8_t)ws);
	}
	return SF_OK;
}

/* The data words of the FRE at off, whose start and info byte the caller
 * read: its size, its fields, each word in one load. Checks that the whole
 * FRE lies in the sub-section. */
static SF_INLINE int fill(const struct sf_table *t, enum sf_kind k, uint32_t asz,
			  uint32_t off, uint32_t start, uint8_t info, struct sf_fre *fre)
{
	uint64_t end = (uint64_t)t->fres + t->fre_len; /* FRE sub-section end */
	int err;

	if ((err = fre_decode_info(fre, info)))
		return err;
	uint32_t size = asz + 1 + (uint32_t)fre->nwords * fre->word_size;
	if ((uint64_t)off + size > end)
		return SF_E_FRE_BOUNDS;
	fre->start = start;
	fre->off = off;
	fre->size = (uint8_t)size;
	/* In bounds: the whole FRE was checked above. */
	uint64_t at = (uint64_t)off + asz + 1;
	switch (fre->word_size) {
	case 1:
		return words(t, k, 1, at, fre->nwords, fre->word);
	case 2:
		return words(t, k, 2, at, fre->nwords, fre->word);
	default:
		return words(t, k, 4, at, fre->nwords, fre->word);
	}
}

/* --- Default rules and their quick form ----------------------------------- */

/* The entity is at its fixed CFA slot, if the header gives one. */
static SF_INLINE struct sf_where sf_fixed_or_same(int8_t fixed)
{
	struct sf_where w = { SF_SAME, 0, 0 };
	if (fixed) {
		w.how = SF_AT_CFA;
		w.off = fixed;
	}
	return w;
}

static SF_INLINE struct sf_where sf_at_cfa(int32_t off)
{
	struct sf_where w = { SF_AT_CFA, 0, off };
	return w;
}

static SF_INLINE int sf_default_rule(const struct sf_table *t, const struct sf_fre *fre,
				  struct sf_rule *r)
{
	uint8_t fp_idx = 1;

	r->cfa_reg = fre->base == SF_BASE_SP ? sf_sp_reg(t) : sf_fp_reg(t);
	r->cfa_off = fre->word[0];
	if (t->fixed_ra) {
		r->ra = sf_at_cfa(t->fixed_ra);
	} else {
		/* AArch64: no RA word means RA is still in the link register;
		 * so does an RA word of 0, the padding that lets an FP word
		 * follow (SFRAME_FRE_RA_OFFSET_INVALID: RA is never at the CFA). */
		bool saved = fre->nwords > 1 && fre->word[1] != 0;
		r->ra = saved ? sf_at_cfa(fre->word[1]) : sf_fixed_or_same(0);
		fp_idx = 2;
	}
	r->fp = fre->nwords > fp_idx ? sf_at_cfa(fre->word[fp_idx]) :
				       sf_fixed_or_same(t->fixed_fp);
	return fre->nwords > fp_idx + 1 ? SF_E_RULE : SF_OK;
}

/* sf_quick_of, inline for sf_find_quick (sframe/fast.c). */
static SF_INLINE bool sf_quick_from(const struct sf_table *t, const struct sf_rule *r,
				    struct sf_quick *q)
{
	if (r->signal || r->cfa_deref || r->ra.how != SF_AT_CFA ||
	    (r->fp.how != SF_SAME && r->fp.how != SF_AT_CFA) ||
	    (r->cfa_reg != sf_sp_reg(t) && r->cfa_reg != sf_fp_reg(t)))
		return false;
	q->cfa_off = r->cfa_off;
	q->ra_off = r->ra.off;
	q->fp_off = r->fp.off;
	q->cfa_fp = r->cfa_reg == sf_fp_reg(t);
	q->fp_saved = r->fp.how == SF_AT_CFA;
	q->strict = sf_strict(t);
	q->word = (uint8_t)sf_word(t);
	return true;
}

#endif /* STITCH_SFRAME_READ_H */
