/*
 * The accelerated lookup, the one the kernel and the tools call: the
 * answers of the reference (sframe/plain.c, read it first), which the
 * tests check this gives at every pc, found with fewer instructions and
 * cache misses, and checked as it goes instead of trusting a validation:
 *
 *   - the FDE by a branch-free binary search, instantiated per source
 *     kind and start width, prefetching in a buffer larger than a cache;
 *     or through the FDE index (sframe/fde_index.h), in ordinary memory;
 *   - what it read checked against its neighbours, so that a section
 *     that lies about being sorted fails instead of answering wrong;
 *   - the row by a walk that reads only each row's start and info byte;
 *   - sf_find_quick: the common case's whole lookup in one function.
 */
#include "fde_index.h"

/* What a search starts from, and where it ended: the candidates [lo, hi)
 * and the starts of FDEs lo and hi (lo_start known when it was read,
 * hi_start when hi < num_fdes). */
struct span {
	uint32_t lo, hi;
	bool lo_known;
	uint64_t lo_start, hi_start;
};

/*
 * The binary search, instantiated per source kind and start width (v3:
 * 8 bytes, else 4), so that neither is decided per probe. Each probe reads
 * the start field only. Along the search the starts must stay between
 * those of the probes that bound it (Linux's sframe.c checks the same):
 * a section that claims sorted FDEs and is not fails here, whatever pc.
 * Narrows *s to the last FDE starting at or before pc (or s->lo). Its
 * probes, at most the bit length of the span, are charged to *work
 * before it starts.
 *
 * Without jumps: which half a probe keeps is a conditional move (the
 * compiler is told the test is a coin toss), so that random pcs cost no
 * mispredicted branch per probe; a start out of order only marks the
 * search, which fails at its end (what it read after that is never
 * used). Each probe halves n rounding up, whatever it finds, so the one
 * below stays in the range when n is odd: the probe that last went
 * above is then lo + n or lo + n - 1 (never lo: lo moves only to starts
 * at or before pc), and at the end lo + 1, whose start check_neighbours
 * takes from hi_start. In a buffer larger than a first-level cache the
 * probes two levels down are prefetched while this one is read:
 * otherwise each probe of a search over 100 000 FDEs waits for a cache
 * miss of the one before.
 */
static SF_INLINE int search(const struct sf_table *t, enum sf_kind k, uint32_t width,
			    uint64_t pc, struct span *s, uint32_t *work)
{
	uint32_t lo = s->lo, n = s->hi - s->lo; /* candidates: [lo, lo + n) */
	uint32_t probes = n > 1 ? (uint32_t)(32 - __builtin_clz(n - 1)) : 0;
	uint64_t lo_start = s->lo_start, hi_start = s->hi_start, rel = pcrel_mask(t);
	uint64_t stride = t->fde_size, at = t->fdes + lo * stride;
	/* Prefetching pays only where the probes miss the cache. */
	bool far = k == SF_KIND_BASE && n * stride > 65536, bad = false;
	int err;

	if (*work < probes)
		return SF_E_BUDGET;
	*work -= probes;
	while (n > 1) {
		uint32_t half = n / 2;
		uint64_t mid = at + half * stride, start;
		uint8_t b[8] = { 0 };
		n -= half;
		if (far) {
			/* The four probes two levels down (the next one's two
			 * were prefetched a level ago): the halvings are the
			 * same whatever the probes find. */
			uint64_t h1 = (n / 2) * stride, h2 = ((n - n / 2) / 2) * stride;
			__builtin_prefetch(t->src.base + at + h2);
			__builtin_prefetch(t->src.base + at + h1 + h2);
			__builtin_prefetch(t->src.base + mid + h2);
			__builtin_prefetch(t->src.base + mid + h1 + h2);
		}
		if (far && n == 2) {
			/* Two probes from the end, the four FDEs it may end
			 * at are known (and in the candidates): their rows,
			 * which the lookup reads next, are prefetched from
			 * the row offset in each (v3 has it after an 8-byte
			 * start, v1 and v2 after two 4-byte fields). */
			uint32_t o = width == 8 ? 12 : 8;
			__builtin_prefetch(t->src.base + t->fres + sf_le32(t->src.base + at + o));
			__builtin_prefetch(t->src.base + t->fres + sf_le32(t->src.base + at + stride + o));
			__builtin_prefetch(t->src.base + t->fres + sf_le32(t->src.base + mid + o));
			__builtin_prefetch(t->src.base + t->fres + sf_le32(t->src.base + mid + stride + o));
		}
		/* In bounds: sf_open checked the FDE array against the size. */
		if ((err = sf_load(&t->src, k, mid, width, b)))
			return err;
		start = start_of(t, b, width, mid, rel);
		/* start < lo_start or > hi_start, in one test (lo_start <=
		 * hi_start holds along a search not yet marked). */
		bad |= start - lo_start > hi_start - lo_start;
		lo += half & -(uint32_t)(start <= pc);
		if (__builtin_expect_with_probability(start <= pc, 1, 0.5)) {
			at = mid;
			lo_start = start;
		} else {
			hi_start = start;
		}
	}
	if (bad)
		return SF_E_FDE_UNSORTED;
	s->lo_known |= lo != s->lo;
	s->lo = lo;
	s->hi = lo + 1;
	s->lo_start = lo_start;
	s->hi_start = hi_start;
	return SF_OK;
}

/* The chosen FDE against what the search read and its neighbours: its
 * start the one the search saw, starts increasing and functions not
 * overlapping there, so that the answer is the only one. (The search may
 * never have read the one before; the one after it read, if any.) */
static SF_INLINE int check_neighbours(const struct sf_table *t, enum sf_kind k,
				      const struct sf_fde *fde, const struct span *s,
				      uint32_t *work)
{
	uint64_t start;
	int err;

	if (s->lo_known && s->lo_start != fde->start)
		return SF_E_FDE_UNSORTED;
	if (fde->index > 0) {
		if ((err = fde_start(t, k, fde->index - 1, &start)))
			return err;
		if (start > fde->start)
			return SF_E_FDE_UNSORTED;
	}
	if (s->hi < t->num_fdes) {
		if (s->hi_start < fde->start)
			return SF_E_FDE_UNSORTED;
		if (s->hi_start - fde->start < fde->size)
			return sf_fde_check_next(t, fde, s->hi, work);
	}
	return SF_OK;
}

/*
 * The FDE index: the start of every step-th FDE, in memory of the
 * caller's (sf_fde_index_build), checked increasing when they were read, and
 * a directory of n buckets over the entries' address range, each bucket
 * 2^shift bytes: bucket b holds the last entry at or before its first
 * address. A lookup takes pc's bucket and searches only the entries
 * between its entry and the next one's (mostly none or one). The chosen
 * entry narrows the search to one block of step FDEs; with step 1 to
 * the FDE itself (find_by_fde_index). False when pc precedes the first
 * function.
 */
static SF_INLINE bool index_span(const struct sf_fde_index *x, uint32_t num_fdes, uint64_t pc,
				  struct span *s)
{
	const uint64_t *start = x->start;

	if (pc < start[0])
		return false;
	uint32_t lo = lz_buckets_find(start, x->n, x->shift, sf_fde_index_buckets(x), pc);
	s->lo = lo * x->step;
	s->hi = s->lo + x->step < num_fdes ? s->lo + x->step : num_fdes;
	s->lo_known = true;
	s->lo_start = start[lo];
	s->hi_start = lo + 1 < x->n ? start[lo + 1] : UINT64_MAX;
	return true;
}

/* An entry per FDE (sf_fde_index_at): pc's FDE as kept. */
static SF_INLINE int find_by_fde_index(const struct sf_table *t, uint64_t pc,
				       struct sf_fde *fde, uint32_t *work)
{
	uint32_t i;
	int err = sf_fde_index_at(t, pc, &i, work);

	if (err)
		return err;
	sf_fde_index_get(t, i, fde);
	return sf_fde_index_kept(t->fde_index)[i].found_err;
}

/* Sorted: the last FDE starting at or before pc is the only candidate.
 * The search, the candidate's fields and its neighbour's start, each
 * instantiated per source kind and start width. */
static SF_INLINE int find_sorted_k(const struct sf_table *t, enum sf_kind k, uint32_t width,
				   uint64_t pc, struct sf_fde *fde, uint32_t *work)
{
	struct span s = { 0, t->num_fdes, false, 0, UINT64_MAX };
	int err;

	if (t->fde_index && t->fde_index->step == 1)
		return find_by_fde_index(t, pc, fde, work);
	if (t->fde_index && !index_span(t->fde_index, t->num_fdes, pc, &s))
		return SF_E_NO_FDE;
	if ((err = search(t, k, width, pc, &s, work)) || (err = fde_get(t, k, s.lo, fde)) ||
	    (err = check_neighbours(t, k, fde, &s, work)))
		return err;
	if (fde->size == 0 && (err = sf_fde_back_over_empty(t, fde, work)))
		return err;
	if (!sf_covers(fde, pc))
		return SF_E_NO_FDE;
	/* Gone back: what check_neighbours did for FDE lo, for this one. */
	if (fde->index != s.lo && (err = sf_fde_check_next(t, fde, fde->index + 1, work)))
		return err;
	return sf_fde_check_found(t, fde);
}

static int find_sorted(const struct sf_table *t, uint64_t pc, struct sf_fde *fde,
		       uint32_t *work)
{
	bool v3 = t->version == 3;

	switch (sf_kind(&t->src)) {
	case SF_KIND_BASE:
		return v3 ? find_sorted_k(t, SF_KIND_BASE, 8, pc, fde, work) :
			    find_sorted_k(t, SF_KIND_BASE, 4, pc, fde, work);
	case SF_KIND_IN_PLACE:
		return v3 ? find_sorted_k(t, SF_KIND_IN_PLACE, 8, pc, fde, work) :
			    find_sorted_k(t, SF_KIND_IN_PLACE, 4, pc, fde, work);
	default:
		return v3 ? find_sorted_k(t, SF_KIND_READ, 8, pc, fde, work) :
			    find_sorted_k(t, SF_KIND_READ, 4, pc, fde, work);
	}
}

static int find_linear(const struct sf_table *t, uint64_t pc, struct sf_fde *fde,
		       uint32_t *work)
{
	uint64_t start;
	int err;

	for (uint32_t i = 0; i < t->num_fdes; i++) {
		if (!*work)
			return SF_E_BUDGET;
		--*work;
		if ((err = fde_start(t, sf_kind(&t->src), i, &start)))
			return err;
		if (pc < start)
			continue;
		if ((err = sf_fde_get(t, i, fde)))
			return err;
		if (sf_covers(fde, pc))
			return sf_fde_check_found(t, fde);
	}
	return SF_E_NO_FDE;
}

static int fde_find_bounded(const struct sf_table *t, uint64_t pc, struct sf_fde *fde,
			    uint32_t *work)
{
	if (t->num_fdes == 0)
		return SF_E_NO_FDE;
	if (t->flags & SF_F_FDE_SORTED)
		return find_sorted(t, pc, fde, work);
	return find_linear(t, pc, fde, work);
}

int sf_fde_find(const struct sf_table *t, uint64_t pc, struct sf_fde *fde)
{
	uint32_t work = UINT32_MAX;
	return fde_find_bounded(t, pc, fde, &work);
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
			  uint32_t first_fre, uint32_t num_fres, uint32_t key, uint32_t limit,
			  struct row *best, uint32_t *work)
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
		if (start > key) {
			/* Past pc (key < limit): only here can a row start
			 * beyond its function; it starts after the one before
			 * (start > key >= prev). */
			if (code == 3 || start >= limit)
				return code == 3 ? SF_E_FRE_INFO : SF_E_FRE_OUTSIDE;
			break;
		}
		if (code == 3 || (int64_t)start <= prev)
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
 * per source kind and start width. */
static SF_INLINE int find_k(const struct sf_table *t, enum sf_kind k, uint32_t asz,
			    const struct sf_fde *fde, uint32_t key, uint32_t limit,
			    struct sf_fre *fre, uint32_t *work)
{
	struct row best;
	int err = scan(t, k, asz, fde->first_fre, fde->num_fres, key, limit, &best, work);
	return err ? err : fill(t, k, asz, best.off, best.start, best.info, fre);
}

static int fre_find_bounded(const struct sf_table *t, const struct sf_fde *fde,
			    uint64_t pc, struct sf_fre *fre, uint32_t *work)
{
	uint32_t key, limit = fde->pc_type == SF_PC_MASK ? fde->rep_size : fde->size;
	int err;

	if ((err = lookup_key(fde, pc, &key)))
		return err;
#define FIND(kind) \
	(fde->fre_type == SF_FRE_ADDR1 ? find_k(t, kind, 1, fde, key, limit, fre, work) : \
	 fde->fre_type == SF_FRE_ADDR2 ? find_k(t, kind, 2, fde, key, limit, fre, work) : \
					 find_k(t, kind, 4, fde, key, limit, fre, work))
	switch (sf_kind(&t->src)) {
	case SF_KIND_BASE:
		return FIND(SF_KIND_BASE);
	case SF_KIND_IN_PLACE:
		return FIND(SF_KIND_IN_PLACE);
	default:
		return FIND(SF_KIND_READ);
	}
#undef FIND
}

int sf_fre_find(const struct sf_table *t, const struct sf_fde *fde,
		uint64_t pc, struct sf_fre *fre)
{
	uint32_t work = UINT32_MAX;
	return fre_find_bounded(t, fde, pc, fre, &work);
}

/*
 * sf_find_quick's rows, instantiated per source kind and start width:
 * the scan and the chosen row's fields as fre_find_bounded has them,
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

	if ((err = scan(t, k, asz, e->first_fre, e->num_fres, key, e->size, &best, work)) ||
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
 * it (what find_by_fde_index does, without building a struct
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

int sf_find_rule_bounded(const struct sf_table *t, uint64_t pc,
			 struct sf_rule *rule, uint32_t *work)
{
	struct sf_fde fde;
	struct sf_fre fre;
	int err;

	if ((err = fde_find_bounded(t, pc, &fde, work)) ||
	    (err = fre_find_bounded(t, &fde, pc, &fre, work)))
		return err;
	return sf_rule_of(t, &fde, &fre, rule);
}

int sf_find_rule(const struct sf_table *t, uint64_t pc, struct sf_rule *rule)
{
	uint32_t work = UINT32_MAX;
	return sf_find_rule_bounded(t, pc, rule, &work);
}
