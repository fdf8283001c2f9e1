/*
 * The optional index (sf_index_build): the section validated once, then
 * cut into pieces, each a stretch of a function's code under one row,
 * with that row's rule already worked out. A lookup finds pc's piece
 * through a bucket directory (sf_buckets_find) and copies its rule: one
 * directory entry, one or two starts, one piece, no row read, no branch
 * that depends on the section's contents but "is there a piece here".
 *
 * In the caller's memory, 8-byte aligned, for cap = num_fres + num_fdes
 * pieces at most (a piece per row, and one before a function's first row
 * when that row does not start at the function's start):
 *
 *   struct sf_index   n pieces used, bucket shift, cap
 *   u64 start[cap]    where each piece starts, increasing
 *   piece[cap]        what each piece answers (struct piece)
 *   sf_fde[num_fdes]  every FDE decoded, for sf_fde_find
 *   u32 bucket[cap]   the directory over start[0..n)
 */
#include "internal.h"

/* A piece of a function: [start, start + left) of the text. */
struct piece {
	uint32_t left;   /* bytes from the piece's start to the function's end */
	uint32_t fde;    /* the function's FDE */
	int32_t status;  /* SF_OK: rule applies; or the lookup's error; or WALK */
	struct sf_rule rule;
};

/* A PLT block (SF_PC_MASK): its rows repeat, so its piece sends the
 * lookup to the row walk of its FDE. */
#define WALK (-1)

static uint64_t cap_of(const struct sf_table *t)
{
	return (uint64_t)t->num_fres + t->num_fdes;
}

static SF_INLINE struct piece *pieces(const struct sf_index *x)
{
	return (struct piece *)(x->start + x->cap);
}

static SF_INLINE struct sf_fde *fdes(const struct sf_index *x)
{
	return (struct sf_fde *)(pieces(x) + x->cap);
}

static SF_INLINE uint32_t *buckets(const struct sf_index *x, uint32_t num_fdes)
{
	return (uint32_t *)(fdes(x) + num_fdes);
}

uint64_t sf_index_size(const struct sf_table *t)
{
	return sizeof(struct sf_index) +
	       cap_of(t) * (sizeof(uint64_t) + sizeof(struct piece) + sizeof(uint32_t)) +
	       (uint64_t)t->num_fdes * sizeof(struct sf_fde);
}

static void add(struct sf_index *x, uint64_t start, uint32_t left, uint32_t fde, int status,
		const struct sf_rule *rule)
{
	struct piece *p = &pieces(x)[x->n];
	x->start[x->n++] = start;
	p->left = left;
	p->fde = fde;
	p->status = status;
	p->rule = rule ? *rule : (struct sf_rule){ 0 };
}

/* The pieces of one validated function: a PLT block whole, else one
 * per row, and one before the first row if that starts late (or there
 * is none); none for a function of size 0, which covers no pc. A
 * function outside the text answers SF_E_FDE_TEXT, as the lookup
 * without the index would. */
static int add_function(const struct sf_table *t, struct sf_index *x, const struct sf_fde *fde)
{
	int text = sf_fde_check_found(t, fde);
	uint32_t off = fde->first_fre;
	struct sf_fre fre;
	struct sf_rule rule;
	int err;

	if (fde->size == 0)
		return SF_OK;
	if (text || fde->pc_type == SF_PC_MASK) {
		add(x, fde->start, fde->size, fde->index, text ? text : WALK, NULL);
		return SF_OK;
	}
	for (uint32_t i = 0; i < fde->num_fres; i++, off += fre.size) {
		if ((err = sf_fre_read(t, fde, off, &fre)))
			return err;
		if (i == 0 && fre.start > 0)
			add(x, fde->start, fde->size, fde->index, SF_E_NO_FRE, NULL);
		add(x, fde->start + fre.start, fde->size - fre.start, fde->index,
		    sf_rule_of(t, fde, &fre, &rule), &rule);
	}
	if (fde->num_fres == 0)
		add(x, fde->start, fde->size, fde->index, SF_E_NO_FRE, NULL);
	return SF_OK;
}

int sf_index_build(struct sf_table *t, void *mem, uint64_t size)
{
	struct sf_index *x = mem;
	int err;

	if (!t || !mem || ((uintptr_t)mem & 7))
		return SF_E_INVAL;
	if (size < sf_index_size(t))
		return SF_E_NOSPACE;
	if (!(t->flags & SF_F_FDE_SORTED) && t->num_fdes > 1)
		return SF_E_FDE_UNSORTED;
	if ((err = sf_validate(t)))
		return err;
	/* Validated: the counts add up, cap fits in 32 bits (each row takes
	 * 2 bytes, each FDE 16 of a section below 4 GiB). */
	x->n = 0;
	x->shift = 0;
	x->cap = (uint32_t)cap_of(t);
	for (uint32_t i = 0; i < t->num_fdes; i++) {
		struct sf_fde *fde = &fdes(x)[i];
		if ((err = sf_fde_get(t, i, fde)) || (err = add_function(t, x, fde)))
			return err;
	}
	if (x->n)
		x->shift = sf_buckets_fill(x->start, x->n, buckets(x, t->num_fdes));
	t->index = x;
	return SF_OK;
}

/* pc's piece, or NULL where no function is. */
static SF_INLINE const struct piece *piece_at(const struct sf_table *t, uint64_t pc)
{
	const struct sf_index *x = t->index;

	if (x->n == 0 || pc < x->start[0])
		return NULL;
	uint32_t i = sf_buckets_find(x->start, x->n, x->shift, buckets(x, t->num_fdes), pc);
	return pc - x->start[i] < pieces(x)[i].left ? &pieces(x)[i] : NULL;
}

int sf_index_fde(const struct sf_table *t, uint64_t pc, struct sf_fde *fde)
{
	const struct piece *p = piece_at(t, pc);

	if (!p)
		return SF_E_NO_FDE;
	if (p->status == SF_E_FDE_TEXT)
		return p->status;
	*fde = fdes(t->index)[p->fde];
	return SF_OK;
}

int sf_index_rule(const struct sf_table *t, uint64_t pc, struct sf_rule *rule,
		  const struct sf_fde **walk)
{
	const struct piece *p = piece_at(t, pc);

	*walk = NULL;
	if (!p)
		return SF_E_NO_FDE;
	if (p->status == WALK) {
		*walk = &fdes(t->index)[p->fde];
		return SF_OK;
	}
	*rule = p->rule;
	return p->status;
}
