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
 * Each level has a bucket directory (lz_buckets_fill): the top level's
 * built with its last start, a block's when it is filled, so that a
 * lookup takes two buckets and mostly no search step.
 *
 * The memory, the format's, lz_bytes(n): start[n] (entries of blocks not
 * yet filled hold only their block's first start), a u32 bucket an
 * entry, and 14 bytes a block (its first start and bucket again, for the
 * top level; its filled flag and directory's shift). Lookups write it:
 * one at a time per index.
 */
#ifndef STITCH_SFRAME_LAZY_INDEX_H
#define STITCH_SFRAME_LAZY_INDEX_H

#include <stdbool.h>
#include <stdint.h>

#define LZ_BLOCK_SHIFT 6
#define LZ_BLOCK (1u << LZ_BLOCK_SHIFT)

/* Every lookup takes the search, inlined; a fill is rare, out of line. */
#define LZ_FAST inline __attribute__((always_inline))
#define LZ_SLOW __attribute__((noinline, unused))

/*
 * A directory over n increasing starts, so that a search takes a bucket
 * and mostly no step: bucket b, 2^shift bytes from start[0] + (b << shift),
 * holds the last start at or before its first address. lz_buckets_fill:
 * the least shift that puts the last start in bucket n - 1 or below, then
 * each bucket by one pass over the starts (start j is the last at or
 * before the first address of the buckets from ceil(d_j / 2^shift) to
 * the next start's first bucket, d_j = start[j] - start[0]).
 * lz_buckets_find: the last start at or before pc (pc >= start[0]), by
 * pc's bucket and a search of the starts between its entry and the next
 * one's.
 */
static inline uint8_t lz_buckets_fill(const uint64_t *start, uint32_t n, uint32_t *bucket)
{
	uint64_t span = start[n - 1] - start[0];
	uint8_t shift = 0;
	uint32_t b = 0;

	while (shift < 63 && (span >> shift) >= n)
		shift++;
	uint64_t mask = ((uint64_t)1 << shift) - 1;
	for (uint32_t j = 0; j + 1 < n; j++) {
		uint64_t d = start[j + 1] - start[0];
		uint64_t first = (d >> shift) + ((d & mask) != 0);
		for (; b < first && b < n; b++)
			bucket[b] = j;
	}
	for (; b < n; b++)
		bucket[b] = n - 1;
	return shift;
}

static LZ_FAST uint32_t lz_buckets_find(const uint64_t *start, uint32_t n, uint8_t shift,
				       const uint32_t *bucket, uint64_t pc)
{
	uint64_t b = (pc - start[0]) >> shift;
	if (b >= n)
		b = n - 1;
	uint32_t lo = bucket[b];
	uint32_t k = (b + 1 < n ? bucket[b + 1] : n - 1) - lo + 1;
	while (k > 1) {
		uint32_t half = k / 2;
		lo = start[lo + half] <= pc ? lo + half : lo;
		k -= half;
	}
	return lo;
}

typedef int (*lz_read_fn)(const void *ctx, uint32_t i, uint64_t *start);

/* The index; its arrays in the format's memory, lz_bytes(n) of it
 * (lz_init lays them out). */
struct lz_index {
	uint32_t n;           /* entries */
	uint32_t top_built;   /* blocks whose first start is read */
	uint32_t fills;       /* blocks filled by lookups, ever */
	int unsorted_err;     /* the format's error for starts that decrease */
	int budget_err;       /* ... for *work spent */
	uint8_t top_shift;    /* top_bucket's, once the top level is whole */
	uint64_t *start;      /* [n] */
	uint64_t *top;        /* [blocks]: each block's first start */
	uint32_t *bucket;     /* [n]: each filled block's directory, over its starts */
	uint32_t *top_bucket; /* [blocks]: the directory over top */
	uint8_t *filled;      /* [blocks]: all the block's entries read */
	uint8_t *shift;       /* [blocks]: a filled block's directory's */
	void *after;          /* the format's, after the arrays (lz_bytes(n) on) */
};

static inline uint32_t lz_blocks(uint32_t n)
{
	return (n + LZ_BLOCK - 1) >> LZ_BLOCK_SHIFT;
}

/* The arrays' bytes, a multiple of 8 (what follows stays aligned). */
static inline uint64_t lz_bytes(uint32_t n)
{
	uint64_t b = lz_blocks(n);
	return ((uint64_t)n * 12 + b * 14 + 7) & ~(uint64_t)7;
}

/* Lays the arrays out from mem (8-byte aligned), start first. */
static inline void lz_init(struct lz_index *x, uint32_t n, void *mem, int unsorted_err,
			   int budget_err)
{
	uint32_t nb = lz_blocks(n);
	uint64_t *start = mem;
	uint32_t *bucket = (uint32_t *)(start + n + nb);
	uint8_t *filled = (uint8_t *)(bucket + n + nb);

	*x = (struct lz_index){ .n = n, .start = start, .top = start + n, .bucket = bucket,
				.top_bucket = bucket + n, .filled = filled, .shift = filled + nb,
				.after = (uint8_t *)mem + lz_bytes(n),
				.unsorted_err = unsorted_err, .budget_err = budget_err };
}

/* Whether the top level is whole (lookups may begin). */
static inline bool lz_ready(const struct lz_index *x)
{
	return x->top_built == lz_blocks(x->n);
}

/* Block b's directory, over its filled starts. */
static inline void lz_block_done(struct lz_index *x, uint32_t b)
{
	uint32_t first = b << LZ_BLOCK_SHIFT;
	uint32_t cnt = x->n - first > LZ_BLOCK ? LZ_BLOCK : x->n - first;
	x->shift[b] = lz_buckets_fill(x->start + first, cnt, x->bucket + first);
	x->filled[b] = true;
}

/* The next block firsts, one unit of *work each: budget_err while some
 * are left, 0 once the last is read (the top level's directory filled),
 * or a read's error. A block of one entry is filled by its first. */
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
		if (b > 0 && x->start[i] < x->top[b - 1])
			return x->unsorted_err;
		x->top[b] = x->start[i];
		x->filled[b] = false;
		if (i + 1 == x->n)
			lz_block_done(x, b);
		if (b + 1 == nb)
			x->top_shift = lz_buckets_fill(x->top, nb, x->top_bucket);
	}
	return 0;
}

/* Block b's entries after its first, read and checked between its first
 * start and the next block's: the reads charged to *work (budget_err,
 * nothing charged, when it cannot pay them all). Filled once it all
 * reads well; a block that does not is read again by the next lookup
 * (and fails the same way, or reads well once the table does). */
static LZ_SLOW int lz_fill(struct lz_index *x, uint32_t b, lz_read_fn read, const void *ctx,
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
	lz_block_done(x, b);
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
 * block whose first start is at or before pc, through the top level's
 * directory, then filled if it was not and searched through its own.
 * The index must be ready (lz_ready). */
static LZ_FAST int lz_find(struct lz_index *x, uint64_t pc, lz_read_fn read, const void *ctx,
			  uint32_t *work, uint32_t *idx)
{
	uint32_t b = lz_buckets_find(x->top, lz_blocks(x->n), x->top_shift, x->top_bucket, pc);
	uint32_t first = b << LZ_BLOCK_SHIFT;
	int err;

	if (!x->filled[b] && (err = lz_fill(x, b, read, ctx, work)))
		return err;
	uint32_t cnt = x->n - first > LZ_BLOCK ? LZ_BLOCK : x->n - first;
	*idx = first + lz_buckets_find(x->start + first, cnt, x->shift[b], x->bucket + first, pc);
	return 0;
}

#endif /* STITCH_SFRAME_LAZY_INDEX_H */
