/*
 * The FDE index of a sorted section (sf_fde_index_build, sframe.h): the
 * accelerator the kernel's lookups go through. Its layout in the
 * caller's memory, 8-byte aligned:
 *
 *   struct sf_fde_index   step, n entries, bucket shift, lazy index
 * then with step 1:
 *   lz_bytes(n)           the lazy index's (sframe/lazy_index.h), the
 *                         start of each FDE first
 *   sf_kept_fde[n]        each FDE as a lookup first read it
 * or with a greater step:
 *   u64 start[n]          the start of FDEs 0, step, 2 step, ..., increasing
 *   u32 bucket[n]         a directory over the starts (lz_buckets_find)
 */
#ifndef STITCH_SFRAME_FDE_INDEX_H
#define STITCH_SFRAME_FDE_INDEX_H

#include "read.h"

/* After the starts: with a step greater than 1 the bucket directory,
 * with an entry per FDE the lazy index's arrays then the FDEs kept
 * (sframe/fde_index.c). Lookups write
 * those: the caller's memory, as sf_fde_index_build says. */
static SF_INLINE const uint32_t *sf_fde_index_buckets(const struct sf_fde_index *x)
{
	return (const uint32_t *)(x->start + x->n);
}

static SF_INLINE struct sf_kept_fde *sf_fde_index_kept(const struct sf_fde_index *x)
{
	return x->lz.after;
}

/* The lazy index's reader of an entry per FDE (lz_read_fn): its start,
 * its FDE marked not kept. */
struct sf_fde_entry_reader {
	const struct sf_table *t;
	const struct sf_fde_index *x;
};
int sf_fde_index_read_entry(const void *ctx, uint32_t i, uint64_t *start);

/* FDE i of an entry per FDE, read from the section and kept (sframe/fde_index.c),
 * or why it cannot be; FDEs read to check it charged to *work. */
int sf_fde_index_keep(const struct sf_table *t, uint32_t i, uint32_t *work);

/* An entry per FDE: the entry is the FDE, and its neighbours' starts are
 * the entries beside it (increasing: checked at the build), so that the
 * checks of the search and of the neighbours need no read but the
 * chosen FDE's, and none once it is kept. The last entry at or before
 * pc, or the last one before it of a size other than 0 (sframe/fde.c,
 * "Functions of size 0"), kept: its index *idx when it covers pc. */
static SF_INLINE int sf_fde_index_at(const struct sf_table *t, uint64_t pc, uint32_t *idx,
				     uint32_t *work)
{
	struct sf_fde_index *x = (struct sf_fde_index *)(uintptr_t)t->fde_index;
	const struct sf_kept_fde *kept = sf_fde_index_kept(x);
	struct sf_fde_entry_reader r = { t, x };
	/* A block's reads are bounded (LZ_BLOCK a block) and counted
	 * (lz.fills), not charged to *work: a lookup spends what it spends
	 * without the index. */
	uint32_t i, block = LZ_BLOCK;
	int err;

	if (pc < x->start[0])
		return SF_E_NO_FDE;
	if ((err = lz_find(&x->lz, pc, sf_fde_index_read_entry, &r, &block, &i)))
		return err;
	for (;;) {
		if (!kept[i].read && (err = sf_fde_index_keep(t, i, work)))
			return err;
		if (kept[i].size)
			break;
		if (i == 0)
			return SF_E_NO_FDE;
		if (!*work)
			return SF_E_BUDGET;
		--*work;
		i--;
		/* The block before, when i crossed into it (once in LZ_BLOCK
		 * steps back at most, each charged). */
		block = LZ_BLOCK;
		if ((err = lz_entry(&x->lz, i, sf_fde_index_read_entry, &r, &block)))
			return err;
	}
	*idx = i;
	return pc - x->start[i] < kept[i].size ? SF_OK : SF_E_NO_FDE;
}

/* FDE i as kept: no read from the section. */
static SF_INLINE void sf_fde_index_get(const struct sf_table *t, uint32_t i, struct sf_fde *fde)
{
	const struct sf_fde_index *x = t->fde_index;
	const struct sf_kept_fde *e = &sf_fde_index_kept(x)[i];
	uint64_t at = fde_offset(t, i);

	fde->start = x->start[i];
	fde->raw_start = (int64_t)(fde->start - absolute(t, at, 0));
	fde->size = e->size;
	fde->index = i;
	fde->first_fre = e->first_fre;
	fde->num_fres = e->num_fres;
	fde->info = e->info;
	fde->info2 = e->info2;
	fde->rep_size = e->rep_size;
	(void)fde_decode_info(t, fde); /* it decoded well when kept */
}

/* sf_kept_fde.quick_type of an FDE sf_find_quick leaves to the others. */
#define SF_QUICK_NONE 0xff

#endif /* STITCH_SFRAME_FDE_INDEX_H */
