/*
 * Function descriptor entries: decode one, find the one covering a pc.
 *
 *   v1: i32 start, u32 size, u32 fre_off, u32 num_fres, u8 info       (17 B)
 *   v2: v1 + u8 rep_size + u16 padding                                (20 B)
 *   v3: i64 start, u32 size, u32 fre_off                              (16 B)
 *       and at FRE sub-section + fre_off an attribute record:
 *       u16 num_fres, u8 info, u8 info2, u8 rep_size                   (5 B)
 *
 * The start is relative to the section, or with SF_F_FUNC_START_PCREL to
 * the start field itself (the first field of the FDE).
 */
#include "internal.h"

static uint64_t fde_offset(const struct sf_table *t, uint32_t idx)
{
	return t->fdes + (uint64_t)idx * t->fde_size;
}

static uint64_t absolute(const struct sf_table *t, uint64_t at, int64_t raw)
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
static SF_INLINE int decode_info(const struct sf_table *t, struct sf_fde *fde)
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
	return decode_info(t, fde);
}

int sf_fde_get(const struct sf_table *t, uint32_t idx, struct sf_fde *fde)
{
	if (idx >= t->num_fdes)
		return SF_E_FDE_INDEX;
	switch (sf_kind(&t->src)) {
	case SF_KIND_BASE:
		return fde_get(t, SF_KIND_BASE, idx, fde);
	case SF_KIND_IN_PLACE:
		return fde_get(t, SF_KIND_IN_PLACE, idx, fde);
	default:
		return fde_get(t, SF_KIND_READ, idx, fde);
	}
}

static bool covers(const struct sf_fde *fde, uint64_t pc)
{
	return pc >= fde->start && pc - fde->start < fde->size;
}

/*
 * Functions of size 0. The SFrame format describes a function's code as
 * [start, start + size) (binutils' "The SFrame Format", "SFrame Function
 * Descriptor Entries"); gas 2.40 emits an FDE of size 0, with one row,
 * for an empty .cfi_startproc/.cfi_endproc region, and libsframe takes
 * it. It covers no pc, so it is never the answer; sf_validate lets it
 * start anywhere, at the start of another function or inside one. The
 * last FDE starting at or before pc may then be one: the lookups go back
 * to the last one before it of a size other than 0 (back_over_empty),
 * and the check that a function does not overlap the FDEs after it
 * passes over those of size 0 (check_next). Both read FDEs only where
 * one of size 0 is, each read charged to the lookup's allowance.
 */

/* FDE fde's function against the FDEs from j on that start inside it:
 * all of size 0, their starts increasing. */
static int check_next(const struct sf_table *t, enum sf_kind k, const struct sf_fde *fde,
		      uint32_t j, uint32_t *work)
{
	uint64_t prev = fde->start;
	struct sf_fde next;
	int err;

	for (; j < t->num_fdes; j++) {
		if (!*work)
			return SF_E_BUDGET;
		--*work;
		if ((err = fde_get(t, k, j, &next)))
			return err;
		if (next.start < prev)
			return SF_E_FDE_UNSORTED;
		if (next.start - fde->start >= fde->size)
			return SF_OK;
		if (next.size)
			return SF_E_FDE_OVERLAP;
		prev = next.start;
	}
	return SF_OK;
}

/* *fde of size 0: replaced by the last FDE before it of another size
 * (SF_E_NO_FDE: none), the starts on the way not increasing. */
static int back_over_empty(const struct sf_table *t, enum sf_kind k, struct sf_fde *fde,
			   uint32_t *work)
{
	uint64_t start = fde->start;
	int err;

	while (fde->size == 0) {
		if (fde->index == 0)
			return SF_E_NO_FDE;
		if (!*work)
			return SF_E_BUDGET;
		--*work;
		if ((err = fde_get(t, k, fde->index - 1, fde)))
			return err;
		if (fde->start > start)
			return SF_E_FDE_UNSORTED;
		start = fde->start;
	}
	return SF_OK;
}

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
			return check_next(t, k, fde, s->hi, work);
	}
	return SF_OK;
}

/* With the index: its piece at pc (sframe/index.c), charged as one probe. */
static int find_indexed(const struct sf_table *t, uint64_t pc, struct sf_fde *fde,
			uint32_t *work)
{
	if (*work < 1)
		return SF_E_BUDGET;
	*work -= 1;
	return sf_index_fde(t, pc, fde);
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
	uint32_t lo = sf_buckets_find(start, x->n, x->shift, sf_fde_index_buckets(x), pc);
	s->lo = lo * x->step;
	s->hi = s->lo + x->step < num_fdes ? s->lo + x->step : num_fdes;
	s->lo_known = true;
	s->lo_start = start[lo];
	s->hi_start = lo + 1 < x->n ? start[lo + 1] : UINT64_MAX;
	return true;
}

/* An entry costs its start and its bucket, and with an entry per FDE
 * the FDE kept. */
#define ENTRY_BYTES (sizeof(uint64_t) + sizeof(uint32_t))

uint64_t sf_fde_index_size(const struct sf_table *t, uint32_t max)
{
	uint32_t n = t->num_fdes < max ? t->num_fdes : max;
	uint64_t each = ENTRY_BYTES + (n == t->num_fdes ? sizeof(struct sf_kept_fde) : 0);
	return sizeof(struct sf_fde_index) + (uint64_t)n * each;
}

/* The least shift that puts the last start in bucket n - 1 or below,
 * then each bucket's last start at or before it, by one pass over the
 * starts: start j is the last at or before the first address of the
 * buckets from ceil(d_j / 2^shift) to the next start's first bucket
 * (d_j = start[j] - start[0]), the last one of the buckets after that. */
uint8_t sf_buckets_fill(const uint64_t *start, uint32_t n, uint32_t *bucket)
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

/* The starts of the index, increasing; instantiated per source kind and start
 * width (v3: 8 bytes, else 4), the pcrel flag read once: a load, an add
 * and a compare an entry. */
static SF_INLINE int read_starts(const struct sf_table *t, enum sf_kind k, uint32_t width,
				  struct sf_fde_index *x)
{
	uint64_t rel = pcrel_mask(t), at = t->fdes, stride = (uint64_t)x->step * t->fde_size;
	uint64_t prev = 0;
	int err;

	for (uint32_t i = 0; i < x->n; i++, at += stride) {
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

int sf_fde_index_build(struct sf_table *t, void *mem, uint64_t size)
{
	struct sf_fde_index *x = mem;
	uint64_t room = size < sizeof *x ? 0 : size - sizeof *x;
	uint64_t max = room / (ENTRY_BYTES + sizeof(struct sf_kept_fde));
	enum sf_kind k = sf_kind(&t->src);
	int err;

	if ((uintptr_t)mem % 8)
		return SF_E_INVAL;
	if (!(t->flags & SF_F_FDE_SORTED) || t->num_fdes == 0)
		return SF_E_FDE_UNSORTED;
	/* An entry per FDE when the FDEs kept fit too, else as many
	 * entries as fit without them, fewer than the FDEs. */
	if (max < t->num_fdes) {
		max = room / ENTRY_BYTES;
		if (max >= t->num_fdes)
			max = t->num_fdes - 1;
	}
	if (max == 0)
		return SF_E_NOSPACE;
	if (max > t->num_fdes)
		max = t->num_fdes;
	x->step = (uint32_t)((t->num_fdes + max - 1) / max);
	x->n = (t->num_fdes + x->step - 1) / x->step;
	uint32_t width = t->version == 3 ? 8 : 4;
	err = k == SF_KIND_BASE ? read_starts(t, SF_KIND_BASE, width, x) :
	      k == SF_KIND_IN_PLACE ? (width == 8 ? read_starts(t, SF_KIND_IN_PLACE, 8, x) :
						    read_starts(t, SF_KIND_IN_PLACE, 4, x)) :
				      read_starts(t, SF_KIND_READ, width, x);
	if (err)
		return err;
	x->shift = sf_buckets_fill(x->start, x->n, (uint32_t *)(x->start + x->n));
	if (x->step == 1)
		for (uint32_t i = 0; i < x->n; i++)
			sf_fde_index_kept(x)[i].read = false;
	t->fde_index = x;
	return SF_OK;
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
	    (err = check_next(t, k, fde, i + 1, work)))
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

/* FDE i as kept: no read from the section. */
static SF_INLINE void from_kept(const struct sf_table *t, uint32_t i, struct sf_fde *fde)
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
	(void)decode_info(t, fde); /* it decoded well when kept */
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
	uint32_t work = UINT32_MAX;
	int err;

	if (!t->fde_index || t->fde_index->step != 1)
		return SF_OK;
	for (uint32_t i = 0; i < t->num_fdes; i++)
		if (!sf_fde_index_kept(t->fde_index)[i].read &&
		    (err = sf_fde_index_keep(t, i, &work)))
			return err;
	return SF_OK;
}

/* An entry per FDE (sf_fde_index_at): pc's FDE as kept. */
static SF_INLINE int find_by_fde_index(const struct sf_table *t, uint64_t pc,
				       struct sf_fde *fde, uint32_t *work)
{
	uint32_t i;
	int err = sf_fde_index_at(t, pc, &i, work);

	if (err)
		return err;
	from_kept(t, i, fde);
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
	if (fde->size == 0 && (err = back_over_empty(t, k, fde, work)))
		return err;
	if (!covers(fde, pc))
		return SF_E_NO_FDE;
	/* Gone back: what check_neighbours did for FDE lo, for this one. */
	if (fde->index != s.lo && (err = check_next(t, k, fde, fde->index + 1, work)))
		return err;
	return sf_fde_check_found(t, fde);
}

static int find_sorted(const struct sf_table *t, uint64_t pc, struct sf_fde *fde,
		       uint32_t *work)
{
	bool v3 = t->version == 3;

	if (t->index)
		return find_indexed(t, pc, fde, work);
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
		if (covers(fde, pc))
			return sf_fde_check_found(t, fde);
	}
	return SF_E_NO_FDE;
}

int sf_fde_find_bounded(const struct sf_table *t, uint64_t pc, struct sf_fde *fde,
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
	return sf_fde_find_bounded(t, pc, fde, &work);
}
