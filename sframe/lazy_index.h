/*
 * A lazily filled index over a table's n entries whose starts (addresses)
 * increase: the part both formats' FDE indexes share (ehframe/index.c,
 * sframe/fde_index.c). The format reads its entry i: its start, and
 * whatever it keeps of it beside (read(ctx, i, &start)).
 *
 * The entries are in blocks of LZ_BLOCK. The top level, each block's
 * first start, is read first (lz_top_more, a part at a time if the
 * caller bounds it): n / LZ_BLOCK reads. A block's other entries are
 * read the first time a lookup lands in it (lz_find, lz_entry), once,
 * checked increasing and within the block's bounds (the next block's
 * first start), their reads charged to the lookup's *work: so a lookup
 * never reads more than one block (two if it steps back into the one
 * before), and a program that reaches few functions reads few entries.
 *
 * The memory, the format's: start[n] (entries of blocks not yet filled
 * hold only their block's first start) and filled[lz_blocks(n)].
 * Lookups write it: one at a time per index.
 */
#ifndef STITCH_SFRAME_LAZY_INDEX_H
#define STITCH_SFRAME_LAZY_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#define LZ_BLOCK_SHIFT 6
#define LZ_BLOCK (1u << LZ_BLOCK_SHIFT)

typedef int (*lz_read_fn)(const void *ctx, uint32_t i, uint64_t *start);

struct lz_index {
	uint32_t n;           /* entries */
	uint32_t top_built;   /* blocks whose first start is read */
	uint32_t fills;       /* blocks filled by lookups, ever */
	int unsorted_err;     /* the format's error for starts that decrease */
	int budget_err;       /* ... for *work spent */
	uint64_t *start;      /* [n] */
	uint8_t *filled;      /* [lz_blocks(n)]: all the block's entries read */
};

static inline uint32_t lz_blocks(uint32_t n)
{
	return (n + LZ_BLOCK - 1) >> LZ_BLOCK_SHIFT;
}

static inline void lz_init(struct lz_index *x, uint32_t n, uint64_t *start, uint8_t *filled,
			   int unsorted_err, int budget_err)
{
	*x = (struct lz_index){ .n = n, .start = start, .filled = filled,
				.unsorted_err = unsorted_err, .budget_err = budget_err };
}

/* Whether the top level is whole (lookups may begin). */
static inline bool lz_ready(const struct lz_index *x)
{
	return x->top_built == lz_blocks(x->n);
}

/* The next block firsts, one unit of *work each: budget_err while some
 * are left, 0 once the last is read, or a read's error. A block of one
 * entry is filled by its first. */
static inline int lz_top_more(struct lz_index *x, lz_read_fn read, const void *ctx,
			      uint32_t *work)
{
	uint32_t nb = lz_blocks(x->n);
	int err;

	for (; x->top_built < nb; x->top_built++) {
		uint32_t b = x->top_built, i = b << LZ_BLOCK_SHIFT;
		if (!*work)
			return x->budget_err;
		--*work;
		if ((err = read(ctx, i, &x->start[i])))
			return err;
		if (b > 0 && x->start[i] < x->start[i - LZ_BLOCK])
			return x->unsorted_err;
		x->filled[b] = i + 1 == x->n;
	}
	return 0;
}

/* Block b's entries after its first, read and checked between its first
 * start and the next block's: the reads charged to *work (budget_err,
 * nothing charged, when it cannot pay them all). Filled once it all
 * reads well; a block that does not is read again by the next lookup
 * (and fails the same way, or reads well once the table does). */
static inline int lz_fill(struct lz_index *x, uint32_t b, lz_read_fn read, const void *ctx,
			  uint32_t *work)
{
	uint32_t first = b << LZ_BLOCK_SHIFT;
	uint32_t end = x->n - first > LZ_BLOCK ? first + LZ_BLOCK : x->n;
	int err;

	if (*work < end - first - 1)
		return x->budget_err;
	*work -= end - first - 1;
	for (uint32_t i = first + 1; i < end; i++) {
		if ((err = read(ctx, i, &x->start[i])))
			return err;
		if (x->start[i] < x->start[i - 1])
			return x->unsorted_err;
	}
	if (end < x->n && x->start[end] < x->start[end - 1])
		return x->unsorted_err;
	x->filled[b] = true;
	x->fills++;
	return 0;
}

/* Makes entry i's start there (its block filled if it was not). */
static inline int lz_entry(struct lz_index *x, uint32_t i, lz_read_fn read, const void *ctx,
			   uint32_t *work)
{
	uint32_t b = i >> LZ_BLOCK_SHIFT;
	return x->filled[b] ? 0 : lz_fill(x, b, read, ctx, work);
}

/* The last entry at or before pc (pc >= start[0]) in *idx: the last
 * block whose first start is at or before pc, by a search of the top
 * level, then filled if it was not and searched. The index must be
 * ready (lz_ready). */
static inline int lz_find(struct lz_index *x, uint64_t pc, lz_read_fn read, const void *ctx,
			  uint32_t *work, uint32_t *idx)
{
	uint32_t lo = 0, hi = lz_blocks(x->n); /* block lo's first <= pc, hi's > pc */
	int err;

	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x->start[mid << LZ_BLOCK_SHIFT] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	if (!x->filled[lo] && (err = lz_fill(x, lo, read, ctx, work)))
		return err;
	hi = x->n - (lo << LZ_BLOCK_SHIFT) > LZ_BLOCK ? (lo + 1) << LZ_BLOCK_SHIFT : x->n;
	lo <<= LZ_BLOCK_SHIFT;
	while (hi - lo > 1) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (x->start[mid] <= pc)
			lo = mid;
		else
			hi = mid;
	}
	*idx = lo;
	return 0;
}

#endif /* STITCH_SFRAME_LAZY_INDEX_H */
