/*
 * Frame row entries: decode one, find the one that applies at a pc.
 *
 * An FRE is a start address (1, 2 or 4 bytes, per the FDE's FRE type), an
 * info byte (bit 0 base register, bits 1-4 word count, bits 5-6 word size,
 * bit 7 mangled RA), then count words of 1, 2 or 4 bytes. FREs are
 * variable-sized, so a function's FREs can only be walked in order.
 *
 * sf_find_quick, the whole lookup of the common case in one function,
 * is here too, beside the row walk it inlines.
 */
#include "internal.h"

static SF_INLINE int32_t sign_extend(const uint8_t *p, uint8_t size)
{
	if (size == 1)
		return (int8_t)p[0];
	if (size == 2)
		return (int16_t)sf_le16(p);
	return (int32_t)sf_le32(p);
}

static uint32_t start_addr(const uint8_t *p, uint8_t fre_type)
{
	if (fre_type == SF_FRE_ADDR1)
		return p[0];
	if (fre_type == SF_FRE_ADDR2)
		return sf_le16(p);
	return sf_le32(p);
}

/* Split the info byte; SF_E_FRE_INFO for the reserved size or a count
 * larger than any valid FRE carries. */
static SF_INLINE int decode_info(struct sf_fre *fre, uint8_t info)
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

	if ((err = decode_info(fre, info)))
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

int sf_fre_read(const struct sf_table *t, const struct sf_fde *fde,
		uint32_t off, struct sf_fre *fre)
{
	uint64_t end = (uint64_t)t->fres + t->fre_len;
	uint32_t asz = sf_addr_size(fde->fre_type);
	uint8_t b[5] = { 0 };
	int err;

	if (off < t->fres || (uint64_t)off + asz + 1 > end)
		return SF_E_FRE_BOUNDS;
	if ((err = sf_get(&t->src, off, asz, b)) ||
	    (err = sf_get(&t->src, (uint64_t)off + asz, 1, b + asz)))
		return err;
	return fill(t, sf_kind(&t->src), asz, off, start_addr(b, fde->fre_type), b[asz], fre);
}

/* The offset the FREs' start addresses are compared with. */
static int lookup_key(const struct sf_fde *fde, uint64_t pc, uint32_t *key)
{
	if (pc < fde->start || pc - fde->start >= fde->size)
		return SF_E_NO_FDE;
	uint64_t rel = pc - fde->start;
	if (fde->pc_type == SF_PC_MASK) {
		/* Each repeated block (PLT entry) has the same rows. */
		if (fde->rep_size == 0)
			return SF_E_FDE_SIZE;
		rel %= fde->rep_size;
	}
	*key = (uint32_t)rel;
	return SF_OK;
}

/* The row found by a scan: where it is, its start and info byte. */
struct row {
	uint32_t off, start;
	uint8_t info;
};

/*
 * The walk over a function's rows, instantiated per source kind and start
 * width asz (1, 2, 4): rows are sorted by start, the last one starting at
 * or before key applies. It reads each row's start and info byte only,
 * and checks on the way what a validation would for these rows: starts
 * increasing, inside the function (limit), each row inside the FRE
 * sub-section, a defined word size. It ends at num_fres or at the
 * sub-section's end, whatever num_fres claims, and at *work.
 */
static SF_INLINE int scan(const struct sf_table *t, enum sf_kind k, uint32_t asz,
			  bool trusted, uint32_t first_fre, uint32_t num_fres, uint32_t key,
			  uint32_t limit, struct row *best, uint32_t *work)
{
	uint64_t end = (uint64_t)t->fres + t->fre_len, off = first_fre;
	/* Rows this scan may read: the allowance ends it like num_fres. */
	uint32_t n = num_fres < *work ? num_fres : *work;
	uint32_t i;
	int64_t prev = -1; /* the start of the row before: the next one's is greater */
	uint64_t best_off = 0;
	uint8_t best_info = 0;
	int err = SF_OK;

	if (off < t->fres)
		return SF_E_FRE_BOUNDS;
	for (i = 0; i < n; i++) {
		uint8_t b[5] = { 0 }, info;
		if (off + asz + 1 > end)
			return SF_E_FRE_BOUNDS;
		/* A 1-byte start and the info byte: one 2-byte load. */
		if (asz == 1)
			err = sf_load(&t->src, k, off, 2, b);
		else if (!(err = sf_load(&t->src, k, off, asz, b)))
			err = sf_load(&t->src, k, off + asz, 1, b + asz);
		if (err)
			return err;
		info = b[asz];
		uint32_t start = asz == 1 ? b[0] : asz == 2 ? sf_le16(b) : sf_le32(b);
		uint32_t code = (info >> 5) & 3; /* word size 1 << code */
		/* Rows an index's validation checked need no second look
		 * (their bounds still get one, like every read). */
		if (start > key) {
			/* Past pc (key < limit): only here can a row start
			 * beyond its function; it starts after the one before
			 * (start > key >= prev). */
			if (!trusted && (code == 3 || start >= limit))
				return code == 3 ? SF_E_FRE_INFO : SF_E_FRE_OUTSIDE;
			break;
		}
		if (!trusted && (code == 3 || (int64_t)start <= prev))
			return code == 3 ? SF_E_FRE_INFO : SF_E_FRE_ORDER;
		prev = start;
		best_off = off;
		best_info = info;
		off += asz + 1 + (((uint32_t)info >> 1 & 0xf) << code);
	}
	if (i == n && n < num_fres)
		return SF_E_BUDGET;
	*work -= i < n ? i + 1 : n;
	if (i == 0)
		return SF_E_NO_FRE;
	best->off = (uint32_t)best_off;
	best->start = (uint32_t)prev;
	best->info = best_info;
	return SF_OK;
}

/* The scan, then only the row that applies decoded, once: instantiated
 * per source kind, start width and trust. */
static SF_INLINE int find_k(const struct sf_table *t, enum sf_kind k, uint32_t asz,
			    bool trusted, const struct sf_fde *fde, uint32_t key,
			    uint32_t limit, struct sf_fre *fre, uint32_t *work)
{
	struct row best;
	int err = scan(t, k, asz, trusted, fde->first_fre, fde->num_fres, key, limit, &best, work);
	return err ? err : fill(t, k, asz, best.off, best.start, best.info, fre);
}

int sf_fre_find_bounded(const struct sf_table *t, const struct sf_fde *fde,
			uint64_t pc, struct sf_fre *fre, uint32_t *work)
{
	uint32_t key, limit = fde->pc_type == SF_PC_MASK ? fde->rep_size : fde->size;
	int err;

	if ((err = lookup_key(fde, pc, &key)))
		return err;
#define FIND(kind, trusted) \
	(fde->fre_type == SF_FRE_ADDR1 ? find_k(t, kind, 1, trusted, fde, key, limit, fre, work) : \
	 fde->fre_type == SF_FRE_ADDR2 ? find_k(t, kind, 2, trusted, fde, key, limit, fre, work) : \
					 find_k(t, kind, 4, trusted, fde, key, limit, fre, work))
	switch (sf_kind(&t->src)) {
	case SF_KIND_BASE:
		/* A buffer the caller owns, indexed (validated): trusted. */
		return t->index ? FIND(SF_KIND_BASE, true) : FIND(SF_KIND_BASE, false);
	case SF_KIND_IN_PLACE:
		return FIND(SF_KIND_IN_PLACE, false);
	default:
		return FIND(SF_KIND_READ, false);
	}
#undef FIND
}

int sf_fre_find(const struct sf_table *t, const struct sf_fde *fde,
		uint64_t pc, struct sf_fre *fre)
{
	uint32_t work = UINT32_MAX;
	return sf_fre_find_bounded(t, fde, pc, fre, &work);
}

/*
 * sf_find_quick's rows, instantiated per source kind and start width:
 * the scan and the chosen row's fields as sf_fre_find_bounded has them,
 * then the default rule and its quick form, all inline, so that the
 * compiler keeps the row and the rule in registers.
 */
static SF_INLINE int quick_rows(const struct sf_table *t, enum sf_kind k, uint32_t asz,
				const struct sf_kept_fde *e, uint32_t key,
				struct sf_quick *q, uint32_t *work)
{
	struct row best;
	struct sf_fre fre;
	struct sf_rule r;
	int err;

	if ((err = scan(t, k, asz, false, e->first_fre, e->num_fres, key, e->size, &best, work)) ||
	    (err = fill(t, k, asz, best.off, best.start, best.info, &fre)))
		return err;
	if (fre.nwords == 0)
		return SF_E_END; /* the outermost frame's row */
	r.cfa_deref = false;
	r.signal = false;
	r.mangled_ra = fre.mangled_ra;
	if ((err = sf_default_rule(t, &fre, &r)))
		return err;
	return sf_quick_from(t, &r, q) ? SF_OK : SF_E_NOT_QUICK;
}

/* sf_find_quick per source kind: the function through the FDE
 * starts' directory and its FDE, kept at the first lookup that lands on
 * it (what find_by_fde_index in fde.c does, without building a struct
 * sf_fde), then its rows. */
static SF_INLINE int quick_k(const struct sf_table *t, enum sf_kind k, uint64_t pc,
			     struct sf_quick *q, uint32_t *work)
{
	const struct sf_fde_index *x = t->fde_index;
	uint32_t i;
	int err = sf_fde_index_at(t, pc, &i, work);

	if (err)
		return err;
	const struct sf_kept_fde *e = &sf_fde_index_kept(x)[i];
	uint64_t rel = pc - x->start[i];
	if (e->found_err)
		return e->found_err;
	switch (e->quick_type) {
	case SF_FRE_ADDR1:
		return quick_rows(t, k, 1, e, (uint32_t)rel, q, work);
	case SF_FRE_ADDR2:
		return quick_rows(t, k, 2, e, (uint32_t)rel, q, work);
	case SF_FRE_ADDR4:
		return quick_rows(t, k, 4, e, (uint32_t)rel, q, work);
	default:
		return SF_E_NOT_QUICK;
	}
}

int sf_find_quick(const struct sf_table *t, uint64_t pc, struct sf_quick *q,
		  uint32_t *work)
{
	if (!t->fde_index || t->fde_index->step != 1)
		return SF_E_NOT_QUICK;
	switch (sf_kind(&t->src)) {
	case SF_KIND_IN_PLACE:
		return quick_k(t, SF_KIND_IN_PLACE, pc, q, work);
	case SF_KIND_BASE:
		return quick_k(t, SF_KIND_BASE, pc, q, work);
	default:
		return SF_E_NOT_QUICK;
	}
}
