/*
 * Frame row entries: decode one, find the one that applies at a pc.
 *
 * An FRE is a start address (1, 2 or 4 bytes, per the FDE's FRE type), an
 * info byte (bit 0 base register, bits 1-4 word count, bits 5-6 word size,
 * bit 7 mangled RA), then count words of 1, 2 or 4 bytes. FREs are
 * variable-sized, so a function's FREs can only be walked in order.
 */
#include "internal.h"

static int32_t sign_extend(const uint8_t *p, uint8_t size)
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
static int decode_info(struct sf_fre *fre, uint8_t info)
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

/* Start address, info and size of the FRE at off: all a walk needs.
 * Checks that the whole FRE, words included, lies in the sub-section. */
static inline int read_head(const struct sf_table *t, const struct sf_fde *fde,
			    uint32_t off, struct sf_fre *fre)
{
	uint64_t end = (uint64_t)t->fres + t->fre_len; /* FRE sub-section end */
	uint32_t asz = sf_addr_size(fde->fre_type);
	uint8_t b[5];
	int err;

	if (off < t->fres || (uint64_t)off + asz + 1 > end)
		return SF_E_FRE_BOUNDS;
	/* Constant lengths: from an in-memory section each is one load. */
	err = asz == 1 ? sf_get(&t->src, off, 2, b) :
	      asz == 2 ? sf_get(&t->src, off, 3, b) : sf_get(&t->src, off, 5, b);
	if (err)
		return err;
	if ((err = decode_info(fre, b[asz])))
		return err;
	uint32_t size = asz + 1 + (uint32_t)fre->nwords * fre->word_size;
	if ((uint64_t)off + size > end)
		return SF_E_FRE_BOUNDS;
	fre->start = start_addr(b, fde->fre_type);
	fre->off = off;
	fre->size = (uint8_t)size;
	return SF_OK;
}

int sf_fre_read(const struct sf_table *t, const struct sf_fde *fde,
		uint32_t off, struct sf_fre *fre)
{
	uint8_t b[SF_MAX_WORDS * 4];
	int err;

	if ((err = read_head(t, fde, off, fre)))
		return err;
	uint32_t head = sf_addr_size(fde->fre_type) + 1;
	if ((err = sf_get(&t->src, (uint64_t)off + head, fre->size - head, b)))
		return err;
	for (uint8_t i = 0; i < fre->nwords; i++)
		fre->word[i] = sign_extend(b + i * fre->word_size, fre->word_size);
	return SF_OK;
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

int sf_fre_find(const struct sf_table *t, const struct sf_fde *fde,
		uint64_t pc, struct sf_fre *fre)
{
	struct sf_fre cur;
	uint32_t key, off = fde->first_fre, best = 0;
	bool found = false;
	int err;

	if ((err = lookup_key(fde, pc, &key)))
		return err;
	/* Rows are sorted by start: the last one starting at or before key
	 * applies. The walk reads only each row's head; it ends at num_fres
	 * or at the sub-section's end, whatever num_fres claims. */
	for (uint32_t i = 0; i < fde->num_fres; i++) {
		if ((err = read_head(t, fde, off, &cur)))
			return err;
		if (cur.start > key)
			break;
		best = off;
		found = true;
		off += cur.size;
	}
	return found ? sf_fre_read(t, fde, best, fre) : SF_E_NO_FRE;
}
