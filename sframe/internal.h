/*
 * Helpers shared by the library's files; not part of the API.
 */
#ifndef STITCH_SFRAME_INTERNAL_H
#define STITCH_SFRAME_INTERNAL_H

#include "sframe.h"

/* Encoded sizes, per version. */
#define SF_FDE_V1_SIZE  17
#define SF_FDE_V2_SIZE  20
#define SF_FDE_V3_SIZE  16
#define SF_ATTR_V3_SIZE 5 /* v3 attribute record before a function's FREs */

/* binutils 2.40 only emits PCMASK FDEs for AMD64 PLTs, whose entries are
 * 16 bytes; version 1 has no field for it, so it is implied. */
#define SF_V1_PLT_REP_SIZE 16

/* DWARF register numbers the default FDE's base registers stand for. */
#define SF_AMD64_SP  7
#define SF_AMD64_FP  6
#define SF_AARCH64_SP 31
#define SF_AARCH64_FP 29

#define SF_INLINE inline __attribute__((always_inline))

/*
 * The environment's checked load, for in_place sources and in-place stack
 * reads: sf_env_load(addr, len, dst) copies len bytes (a constant 1, 2, 4
 * or 8 at every call site) at run-time address addr, false on a fault.
 * sf_env_range_ok(addr, len) says whether a whole range may be read that
 * way (sf_open asks it of an in_place section), and
 * sf_env_load_in_range is sf_env_load inside such a range, without
 * checking the range again. A build may supply its own with
 * -DSF_ENV_LOAD_H='"header"' (the kernel's: one user load with an
 * exception-table fixup, arch/x86_64/include/arch/sframe_load.h); by
 * default the memory is this program's own and the load a plain one.
 */
#ifdef SF_ENV_LOAD_H
#include SF_ENV_LOAD_H
#else
static SF_INLINE bool sf_env_load(uint64_t addr, uint32_t len, void *dst)
{
	__builtin_memcpy(dst, (const void *)(uintptr_t)addr, len);
	return true;
}

static SF_INLINE bool sf_env_range_ok(uint64_t addr, uint64_t len)
{
	(void)addr, (void)len;
	return true;
}

static SF_INLINE bool sf_env_load_in_range(uint64_t addr, uint32_t len, void *dst)
{
	return sf_env_load(addr, len, dst);
}
#endif

/* How a source is read; hot loops are instantiated once per kind, so the
 * choice is made once per lookup, not once per field. */
enum sf_kind { SF_KIND_BASE, SF_KIND_IN_PLACE, SF_KIND_READ };

static inline enum sf_kind sf_kind(const struct sf_src *s)
{
	return s->base ? SF_KIND_BASE : s->in_place ? SF_KIND_IN_PLACE : SF_KIND_READ;
}

/* len bytes at section offset off, which the caller has proved lie in the
 * section. With constant kind and len this is one load. */
static SF_INLINE int sf_load(const struct sf_src *s, enum sf_kind k,
			     uint64_t off, uint32_t len, void *dst)
{
	if (k == SF_KIND_BASE) {
		__builtin_memcpy(dst, s->base + off, len);
		return SF_OK;
	}
	if (k == SF_KIND_IN_PLACE) /* in the range sf_open checked */
		return sf_env_load_in_range(s->vaddr + off, len, dst) ? SF_OK : SF_E_FAULT;
	return s->read(s->ctx, s->vaddr + off, dst, len) ? SF_OK : SF_E_FAULT;
}

/* Copy len bytes at section offset off into dst; SF_E_HDR_BOUNDS if any
 * byte lies outside the section, SF_E_FAULT if the reader fails. In place,
 * a record (an FDE, the header) is read in 8-byte loads and a 4, 2, 1-byte
 * tail: three loads for a 17-byte FDE. sf_get_kind is the same for a
 * source kind the caller already knows (a constant in a hot path). */
static SF_INLINE int sf_get_kind(const struct sf_src *s, enum sf_kind k, uint64_t off,
				 uint32_t len, void *dst)
{
	/* No sum can overflow: off and len are each checked against size
	 * before they are combined. */
	if (off > s->size || len > s->size - off)
		return SF_E_HDR_BOUNDS;
	if (k != SF_KIND_IN_PLACE)
		return sf_load(s, k, off, len, dst);
	uint8_t *d = dst;
	int err = SF_OK;
	for (; len >= 8 && !err; len -= 8, off += 8, d += 8)
		err = sf_load(s, k, off, 8, d);
	if (len >= 4 && !err) {
		err = sf_load(s, k, off, 4, d);
		len -= 4, off += 4, d += 4;
	}
	if (len >= 2 && !err) {
		err = sf_load(s, k, off, 2, d);
		len -= 2, off += 2, d += 2;
	}
	if (len && !err)
		err = sf_load(s, k, off, 1, d);
	return err;
}

static inline int sf_get(const struct sf_src *s, uint64_t off, uint32_t len, void *dst)
{
	return sf_get_kind(s, sf_kind(s), off, len, dst);
}

static SF_INLINE uint16_t sf_le16(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static SF_INLINE uint32_t sf_le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static SF_INLINE uint64_t sf_le64(const uint8_t *p)
{
	return (uint64_t)sf_le32(p) | (uint64_t)sf_le32(p + 4) << 32;
}

/* The two base registers of a default FDE, as DWARF numbers. */
static inline uint8_t sf_sp_reg(const struct sf_table *t)
{
	return t->abi == SF_ABI_AMD64_LE ? SF_AMD64_SP : SF_AARCH64_SP;
}

static inline uint8_t sf_fp_reg(const struct sf_table *t)
{
	return t->abi == SF_ABI_AMD64_LE ? SF_AMD64_FP : SF_AARCH64_FP;
}

/* Width in bytes of an FRE start address of the given FRE type. */
static inline uint32_t sf_addr_size(uint8_t fre_type)
{
	return fre_type == SF_FRE_ADDR1 ? 1 : fre_type == SF_FRE_ADDR2 ? 2 : 4;
}

/* sf_fde_find and sf_fre_find with a work allowance (sf_find_rule_bounded). */
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

/*
 * A directory of n buckets over n increasing starts, for both indexes:
 * bucket b, 2^shift bytes from start[0] + (b << shift), holds the last
 * start at or before its first address. sf_buckets_fill returns shift.
 * sf_buckets_find: the last start at or before pc (pc >= start[0]), by
 * pc's bucket and a search of the starts between its entry and the next
 * one's (mostly none or one).
 */
uint8_t sf_buckets_fill(const uint64_t *start, uint32_t n, uint32_t *bucket);

static SF_INLINE uint32_t sf_buckets_find(const uint64_t *start, uint32_t n, uint8_t shift,
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

/* The FDE index's bucket directory, after the starts; with an entry
 * per FDE, the FDEs kept after it (sframe/fde.c). Lookups write those:
 * the caller's memory, as sf_fde_index_build says. */
static SF_INLINE const uint32_t *sf_fde_index_buckets(const struct sf_fde_index *x)
{
	return (const uint32_t *)(x->start + x->n);
}

static SF_INLINE struct sf_kept_fde *sf_fde_index_kept(const struct sf_fde_index *x)
{
	return (struct sf_kept_fde *)(uintptr_t)(sf_fde_index_buckets(x) + x->n);
}

/* FDE i of an entry per FDE, read from the section and kept (sframe/fde.c),
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
	const struct sf_fde_index *x = t->fde_index;
	const struct sf_kept_fde *kept = sf_fde_index_kept(x);
	int err;

	if (pc < x->start[0])
		return SF_E_NO_FDE;
	uint32_t i = sf_buckets_find(x->start, x->n, x->shift, sf_fde_index_buckets(x), pc);
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
	}
	*idx = i;
	return pc - x->start[i] < kept[i].size ? SF_OK : SF_E_NO_FDE;
}


/* sf_kept_fde.quick_type of an FDE sf_find_quick leaves to the others. */
#define SF_QUICK_NONE 0xff

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

/* sf_quick_of, inline for sf_find_quick (sframe/fre.c). */
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
	q->strict = t->abi == SF_ABI_AMD64_LE;
	return true;
}

int sf_fde_find_bounded(const struct sf_table *t, uint64_t pc, struct sf_fde *fde,
			uint32_t *work);

/* Lookups through the optional index (sframe/index.c): the FDE at pc;
 * the rule at pc, or in *walk the FDE whose rows the lookup must walk
 * (PLT blocks). */
int sf_index_fde(const struct sf_table *t, uint64_t pc, struct sf_fde *fde);
int sf_index_rule(const struct sf_table *t, uint64_t pc, struct sf_rule *rule,
		  const struct sf_fde **walk);
int sf_fre_find_bounded(const struct sf_table *t, const struct sf_fde *fde,
			uint64_t pc, struct sf_fre *fre, uint32_t *work);

#endif /* STITCH_SFRAME_INTERNAL_H */
