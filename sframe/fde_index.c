/*
 * Building the FDE index (its layout and lookup: sframe/fde_index.h), and
 * keeping the FDEs lookups read through it.
 */
#include "fde_index.h"

/* An entry costs its start and its bucket; with an entry per FDE, the
 * lazy index's blocks too, and the FDE kept. */
#define ENTRY_BYTES (sizeof(uint64_t) + sizeof(uint32_t))

static uint64_t kept_size(uint32_t n)
{
	return sizeof(struct sf_fde_index) + lz_bytes(n) + (uint64_t)n * sizeof(struct sf_kept_fde);
}

uint64_t sf_fde_index_size(const struct sf_table *t, uint32_t max)
{
	uint32_t n = t->num_fdes < max ? t->num_fdes : max;
	return n == t->num_fdes ? kept_size(n) : sizeof(struct sf_fde_index) + (uint64_t)n * ENTRY_BYTES;
}

/* With a step greater than 1: starts from..to - 1 of the index, increasing from the one before them;
 * instantiated per source kind and start width (v3: 8 bytes, else 4), the
 * pcrel flag read once: a load, an add and a compare an entry. */
static SF_INLINE int read_starts(const struct sf_table *t, enum sf_kind k, uint32_t width,
				  struct sf_fde_index *x, uint32_t from, uint32_t to)
{
	uint64_t rel = pcrel_mask(t), stride = (uint64_t)x->step * t->fde_size;
	uint64_t at = t->fdes + from * stride, prev = from ? x->start[from - 1] : 0;
	int err;

	for (uint32_t i = from; i < to; i++, at += stride) {
		uint8_t b[8] = { 0 };
		/* In bounds: sf_open checked the FDE array against the size. */
		if ((err = sf_load(&t->src, k, at, width, b)))
			return err;
		uint64_t start = start_of(t, b, width, at, rel);
		if (start < prev)
			return SF_E_FDE_UNSORTED;
		x->start[i] = prev = start;
	}
	return SF_OK;
}

/* What the lazy index reads of entry i (an entry per FDE): its start,
 * its FDE not kept yet. */
int sf_fde_index_read_entry(const void *ctx, uint32_t i, uint64_t *start)
{
	const struct sf_fde_entry_reader *r = ctx;
	sf_fde_index_kept(r->x)[i].read = false;
	return fde_start(r->t, sf_kind(&r->t->src), i, start);
}
int sf_fde_index_begin(const struct sf_table *t, void *mem, uint64_t size)
{
	struct sf_fde_index *x = mem;
	uint64_t room = size < sizeof *x ? 0 : size - sizeof *x;
	uint64_t max = t->num_fdes;

	if ((uintptr_t)mem % 8)
		return SF_E_INVAL;
	if (!(t->flags & SF_F_FDE_SORTED) || t->num_fdes == 0)
		return SF_E_FDE_UNSORTED;
	/* An entry per FDE when the FDEs kept fit too, else as many
	 * entries as fit without them, fewer than the FDEs. */
	if (size < kept_size(t->num_fdes)) {
		max = room / ENTRY_BYTES;
		if (max >= t->num_fdes)
			max = t->num_fdes - 1;
	}
	if (max == 0)
		return SF_E_NOSPACE;
	x->step = (uint32_t)((t->num_fdes + max - 1) / max);
	x->n = (t->num_fdes + x->step - 1) / x->step;
	x->built = 0;
	if (x->step == 1)
		lz_init(&x->lz, x->n, x->start, SF_E_FDE_UNSORTED, SF_E_BUDGET);
	return SF_OK;
}

/* The next starts up to to, by the source's kind (read in place: by the
 * start's width too). */
static int read_some(const struct sf_table *t, struct sf_fde_index *x, uint32_t to)
{
	enum sf_kind k = sf_kind(&t->src);
	uint32_t width = t->version == 3 ? 8 : 4, from = x->built;

	return k == SF_KIND_BASE ? read_starts(t, SF_KIND_BASE, width, x, from, to) :
	       k == SF_KIND_IN_PLACE ? (width == 8 ? read_starts(t, SF_KIND_IN_PLACE, 8, x, from, to) :
						     read_starts(t, SF_KIND_IN_PLACE, 4, x, from, to)) :
				     read_starts(t, SF_KIND_READ, width, x, from, to);
}

int sf_fde_index_more(struct sf_table *t, void *mem, uint32_t *work)
{
	struct sf_fde_index *x = mem;
	int err;

	if (x->step == 1) {
		struct sf_fde_entry_reader r = { t, x };
		if ((err = lz_top_more(&x->lz, sf_fde_index_read_entry, &r, work)))
			return err;
		t->fde_index = x;
		return SF_OK;
	}
	uint32_t to = x->n - x->built > *work ? x->built + *work : x->n;
	if ((err = read_some(t, x, to)))
		return err;
	*work -= to - x->built;
	x->built = to;
	if (x->built < x->n)
		return SF_E_BUDGET;
	x->shift = lz_buckets_fill(x->start, x->n, (uint32_t *)(x->start + x->n));
	t->fde_index = x;
	return SF_OK;
}

int sf_fde_index_build(struct sf_table *t, void *mem, uint64_t size)
{
	uint32_t work = UINT32_MAX;
	int err = sf_fde_index_begin(t, mem, size);
	return err ? err : sf_fde_index_more(t, mem, &work);
}

/* FDE i of an entry per FDE, read from the section: checked against its
 * entry and the next one (the starts increase: checked at the build, so
 * that the FDE is the only one that can cover a pc between the two) and
 * kept when it reads well. An FDE that does not is read again next time:
 * it fails the same way, or reads well once the section does. */
static SF_INLINE int read_kept(const struct sf_table *t, enum sf_kind k, uint32_t i,
			       struct sf_fde *fde, uint32_t *work)
{
	const struct sf_fde_index *x = t->fde_index;
	struct sf_kept_fde *e = &sf_fde_index_kept(x)[i];
	int err;

	if ((err = fde_get(t, k, i, fde)))
		return err;
	if (fde->start != x->start[i])
		return SF_E_FDE_UNSORTED; /* the section changed since the build */
	if (i + 1 < x->n && x->start[i + 1] - fde->start < fde->size &&
	    (err = sf_fde_check_next(t, fde, i + 1, work)))
		return err;
	*e = (struct sf_kept_fde){
		.size = fde->size, .first_fre = fde->first_fre, .num_fres = fde->num_fres,
		.info = fde->info, .info2 = fde->info2, .rep_size = fde->rep_size,
		.found_err = (uint8_t)sf_fde_check_found(t, fde), .read = true,
		/* sf_find_quick's: rows from the function start, default
		 * rules, not a signal trampoline (whose step says so). */
		.quick_type = fde->fde_type == SF_FDE_DEFAULT && fde->pc_type == SF_PC_INC &&
			      !fde->signal ? fde->fre_type : SF_QUICK_NONE,
	};
	return SF_OK;
}

int sf_fde_index_keep(const struct sf_table *t, uint32_t i, uint32_t *work)
{
	struct sf_fde fde;

	switch (sf_kind(&t->src)) {
	case SF_KIND_BASE:
		return read_kept(t, SF_KIND_BASE, i, &fde, work);
	case SF_KIND_IN_PLACE:
		return read_kept(t, SF_KIND_IN_PLACE, i, &fde, work);
	default:
		return read_kept(t, SF_KIND_READ, i, &fde, work);
	}
}

int sf_fde_index_read_all(const struct sf_table *t)
{
	/* Each FDE of size 0 is read again by the one of another size
	 * before it at most: the reads stay in proportion to the FDEs. */
	struct sf_fde_index *x = (struct sf_fde_index *)(uintptr_t)t->fde_index;
	struct sf_fde_entry_reader r = { t, x };
	uint32_t work = UINT32_MAX;
	int err;

	if (!x || x->step != 1)
		return SF_OK;
	for (uint32_t i = 0; i < t->num_fdes; i++)
		if ((err = lz_entry(&x->lz, i, sf_fde_index_read_entry, &r, &work)) ||
		    (!sf_fde_index_kept(x)[i].read && (err = sf_fde_index_keep(t, i, &work))))
			return err;
	return SF_OK;
}
