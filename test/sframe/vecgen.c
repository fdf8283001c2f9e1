#include "vecgen.h"

#include <string.h>

#include "sframe.h"

struct out {
	uint8_t *p;
	size_t cap;
	size_t end;
};

static void put(struct out *o, size_t at, uint64_t v, int n)
{
	for (int i = 0; i < n; i++, v >>= 8)
		if (at + (size_t)i < o->cap)
			o->p[at + (size_t)i] = (uint8_t)v;
	if (at + (size_t)n > o->end)
		o->end = at + (size_t)n;
}

void vec_put16(uint8_t *p, size_t off, uint16_t v)
{
	p[off] = (uint8_t)v;
	p[off + 1] = (uint8_t)(v >> 8);
}

void vec_put32(uint8_t *p, size_t off, uint32_t v)
{
	for (int i = 0; i < 4; i++)
		p[off + (size_t)i] = (uint8_t)(v >> (8 * i));
}

size_t vec_fde_size(uint8_t v)
{
	return v == 1 ? 17 : v == 2 ? 20 : 16;
}

static size_t put_fre(struct out *o, size_t at, const struct vfde *f, const struct vfre *r)
{
	int asz = f->fre_type == 0 ? 1 : f->fre_type == 1 ? 2 : 4;
	int wsz = 1 << r->size;
	put(o, at, r->start, asz);
	at += (size_t)asz;
	put(o, at++, (uint64_t)(r->base | r->nwords << 1 | r->size << 5 | r->mangled << 7), 1);
	for (int i = 0; i < r->nwords; i++, at += (size_t)wsz)
		put(o, at, (uint64_t)(int64_t)r->w[i], wsz);
	return at;
}

size_t vec_build(const struct vsec *s, uint8_t *out, size_t cap)
{
	struct out o = { out, cap, 0 };
	size_t fsz = vec_fde_size(s->version);
	size_t fres = 28 + (size_t)s->nfdes * fsz, cur = fres;
	uint32_t nfres = 0;

	if (out)
		memset(out, 0, cap);
	for (int i = 0; i < s->nfdes; i++) {
		const struct vfde *f = &s->fdes[i];
		size_t at = 28 + (size_t)i * fsz;
		uint8_t info = (uint8_t)(f->fre_type | f->pc_mask << 4 | f->key_b << 5 |
					 f->signal << 7);
		put(&o, at + (s->version == 3 ? 12 : 8), cur - fres, 4);
		if (s->version == 3) {
			put(&o, at, (uint64_t)f->start, 8);
			put(&o, at + 8, f->size, 4);
			put(&o, cur, (uint64_t)f->nfres, 2);
			put(&o, cur + 2, info, 1);
			put(&o, cur + 3, f->flex, 1);
			put(&o, cur + 4, f->rep, 1);
			cur += 5;
		} else {
			put(&o, at, (uint64_t)f->start, 4);
			put(&o, at + 4, f->size, 4);
			put(&o, at + 12, (uint64_t)f->nfres, 4);
			put(&o, at + 16, info, 1);
			if (s->version == 2)
				put(&o, at + 17, f->rep, 1), put(&o, at + 18, 0, 2);
		}
		for (int j = 0; j < f->nfres; j++)
			cur = put_fre(&o, cur, f, &f->fres[j]);
		nfres += (uint32_t)f->nfres;
	}
	put(&o, 0, 0xdee2, 2);
	put(&o, 2, s->version, 1);
	put(&o, 3, s->flags, 1);
	put(&o, 4, s->abi, 1);
	put(&o, 5, (uint8_t)s->fixed_fp, 1);
	put(&o, 6, (uint8_t)s->fixed_ra, 1);
	put(&o, 7, 0, 1);
	put(&o, 8, (uint64_t)s->nfdes, 4);
	put(&o, 12, nfres, 4);
	put(&o, 16, cur - fres, 4);
	put(&o, 20, 0, 4);
	put(&o, 24, fres - 28, 4);
	return o.end > cur ? o.end : cur;
}

/* Shorthands: an FRE based on SP or FP with 1-byte words. */
#define SP1(at, cfa)        { at, 1, 1, 0, 0, { cfa } }
#define SP2(at, cfa, fp)    { at, 1, 2, 0, 0, { cfa, fp } }
#define FP2(at, cfa, fp)    { at, 0, 2, 0, 0, { cfa, fp } }
/* Flex control words: register-based (reg_p), dereferenced, CFA slot. */
#define REG(r)    ((r) << 3 | 1)
#define DEREF(r)  ((r) << 3 | 3)
#define AT_CFA    2

const struct vsec vec_valid[] = {
	{ "v1-sorted-fp", 1, 3, 3, 0, -8, 2, {
		{ -4096, 0x40, 0, 0, 0, 0, 0, 0, 4, {
			SP1(0, 8), SP2(1, 16, -16), FP2(4, 16, -16), SP1(0x3f, 8) } },
		{ -2048, 0x300, 1, 0, 0, 0, 0, 0, 3, {
			SP1(0, 8), { 0x1ff, 1, 2, 1, 0, { 0x1010, -16 } },
			{ 0x2ff, 0, 1, 0, 0, { -8 } } } } } },
	{ "v1-none-addr4", 1, 0, 3, 0, -8, 2, {
		{ 100, 0x20000, 2, 0, 0, 0, 0, 0, 2, {
			SP1(0, 8), { 0x10005, 1, 2, 2, 0, { 0x100008, -0x10000 } } } },
		{ 0, 8, 0, 0, 0, 0, 0, 0, 1, { SP1(0, 8) } } } },
	{ "v1-fixed-fp", 1, 1, 3, -16, -8, 1, {
		{ 0, 0x20, 0, 0, 0, 0, 0, 0, 2, { SP1(0, 8), FP2(8, 16, -16) } } } },
	{ "v1-aarch64", 1, 1, 2, 0, 0, 2, {
		{ 0, 0x40, 0, 0, 1, 0, 0, 0, 3, {
			{ 0, 1, 1, 0, 0, { 0 } },
			{ 4, 1, 3, 0, 1, { 16, -8, -16 } },
			{ 8, 0, 3, 0, 1, { 16, -8, -16 } } } },
		{ 0x40, 0x10, 0, 0, 0, 0, 0, 0, 2, {
			{ 0, 1, 1, 0, 0, { 0 } }, { 4, 1, 2, 0, 0, { 32, -24 } } } } } },
	{ "v1-plt", 1, 1, 3, 0, -8, 2, {
		{ -64, 16, 0, 0, 0, 0, 0, 0, 2, { SP1(0, 16), SP1(6, 24) } },
		{ -48, 64, 0, 1, 0, 0, 0, 0, 2, { SP1(0, 8), SP1(11, 16) } } } },
	{ "v1-empty", 1, 0, 3, 0, -8, 0, { { 0 } } },
	{ "v2-plt-pcrel", 2, 5, 3, 0, -8, 2, {
		{ -64, 16, 0, 0, 0, 0, 0, 16, 2, { SP1(0, 16), SP1(6, 24) } },
		{ -68, 64, 0, 1, 0, 0, 0, 16, 2, { SP1(0, 8), SP1(11, 16) } } } },
	{ "v3-flex-signal", 3, 1, 3, 0, -8, 3, {
		{ -256, 0x20, 0, 0, 0, 0, 0, 0, 2, { SP1(0, 8), SP2(1, 16, -16) } },
		{ -224, 0x40, 0, 0, 0, 0, 1, 0, 3, {
			{ 0, 1, 6, 0, 0, { REG(7), 8, AT_CFA, -8, AT_CFA, -16 } },
			{ 4, 1, 5, 0, 0, { DEREF(10), 0, 0, AT_CFA, -16 } },
			{ 9, 1, 0, 0, 0, { 0 } } } },
		{ -160, 0x10, 0, 0, 0, 1, 0, 0, 1, { SP1(0, 160) } } } },
	/* AArch64, an RA word of 0 (padding: RA not saved) before an FP word. */
	{ "v1-aarch64-ra-pad", 1, 1, 2, 0, 0, 1, {
		{ 0, 0x10, 0, 0, 0, 0, 0, 0, 2, {
			SP1(0, 0), { 4, 1, 3, 0, 0, { 16, 0, -16 } } } } } },
	/* v1-sorted-fp's two functions among FDEs of size 0 (gas's FDE for an
	 * empty .cfi_startproc/.cfi_endproc region: one row at 0): at the
	 * first one's start, sorted before and after it, inside it, at its
	 * end, and between the two. They cover no pc. */
	{ "v1-empty-functions", 1, 3, 3, 0, -8, 7, {
		{ -4096, 0, 0, 0, 0, 0, 0, 0, 1, { SP1(0, 8) } },
		{ -4096, 0x40, 0, 0, 0, 0, 0, 0, 4, {
			SP1(0, 8), SP2(1, 16, -16), FP2(4, 16, -16), SP1(0x3f, 8) } },
		{ -4096, 0, 0, 0, 0, 0, 0, 0, 1, { SP1(0, 8) } },
		{ -4096 + 0x20, 0, 0, 0, 0, 0, 0, 0, 1, { SP1(0, 8) } },
		{ -4096 + 0x40, 0, 0, 0, 0, 0, 0, 0, 1, { SP1(0, 8) } },
		{ -2048, 0x300, 1, 0, 0, 0, 0, 0, 3, {
			SP1(0, 8), { 0x1ff, 1, 2, 1, 0, { 0x1010, -16 } },
			{ 0x2ff, 0, 1, 0, 0, { -8 } } } },
		{ -1024, 0, 0, 0, 0, 0, 0, 0, 1, { SP1(0, 8) } } } },
	{ NULL, 0, 0, 0, 0, 0, 0, { { 0 } } },
};

/* ---- Malformed sections: a valid base with one thing broken. ---- */

/* Index in vec_valid of the base sections. */
enum { V1 = 0, V1_PLT = 4, V2 = 6, V3 = 7 };

static size_t base(int which, uint8_t *buf, size_t cap)
{
	return vec_build(&vec_valid[which], buf, cap);
}

/* Byte offsets in a v1/v2 section built from vec_valid[V1]. */
#define FDE(i, v)   (28 + (size_t)(i) * vec_fde_size(v))
#define FRES(n, v)  (28 + (size_t)(n) * vec_fde_size(v))

const struct vbad vec_bad[] = {
	{ "empty", STAGE_OPEN, SF_E_SHORT },
	{ "short-header", STAGE_OPEN, SF_E_SHORT },
	{ "bad-magic", STAGE_OPEN, SF_E_MAGIC },
	{ "other-endian", STAGE_OPEN, SF_E_ENDIAN },
	{ "version-0", STAGE_OPEN, SF_E_VERSION },
	{ "version-4", STAGE_OPEN, SF_E_VERSION },
	{ "abi-unknown", STAGE_OPEN, SF_E_ABI },
	{ "abi-aarch64-be", STAGE_OPEN, SF_E_ENDIAN },
	{ "flags-v1-pcrel", STAGE_OPEN, SF_E_FLAGS },
	{ "flags-v3-frame-pointer", STAGE_OPEN, SF_E_FLAGS },
	{ "flags-unknown", STAGE_OPEN, SF_E_FLAGS },
	{ "auxhdr-past-end", STAGE_OPEN, SF_E_HDR_BOUNDS },
	{ "fdeoff-past-end", STAGE_OPEN, SF_E_HDR_BOUNDS },
	{ "freoff-past-end", STAGE_OPEN, SF_E_HDR_BOUNDS },
	{ "fre-len-huge", STAGE_OPEN, SF_E_HDR_BOUNDS },
	{ "num-fdes-huge", STAGE_OPEN, SF_E_HDR_BOUNDS },
	{ "truncated-by-one", STAGE_OPEN, SF_E_HDR_BOUNDS },
	{ "fdes-overlap-fres", STAGE_VALIDATE, SF_E_HDR_LAYOUT },
	{ "num-fres-huge", STAGE_VALIDATE, SF_E_FRE_COUNT },
	{ "fre-count-mismatch", STAGE_VALIDATE, SF_E_FRE_COUNT },
	{ "fde-num-fres-huge", STAGE_VALIDATE, SF_E_FRE_COUNT },
	{ "fde-fre-off-past-end", STAGE_VALIDATE, SF_E_FRE_BOUNDS },
	{ "fre-len-short", STAGE_VALIDATE, SF_E_FRE_BOUNDS },
	{ "v3-attr-past-end", STAGE_VALIDATE, SF_E_FRE_BOUNDS },
	{ "unsorted", STAGE_VALIDATE, SF_E_FDE_UNSORTED },
	{ "overlapping", STAGE_VALIDATE, SF_E_FDE_OVERLAP },
	{ "zero-rep-size", STAGE_VALIDATE, SF_E_FDE_SIZE },
	{ "function-wraps", STAGE_VALIDATE, SF_E_FDE_RANGE },
	{ "fre-type-bad", STAGE_VALIDATE, SF_E_FDE_TYPE },
	{ "v3-fde-type-bad", STAGE_VALIDATE, SF_E_FDE_TYPE },
	{ "fre-beyond-function", STAGE_VALIDATE, SF_E_FRE_OUTSIDE },
	{ "fre-beyond-block", STAGE_VALIDATE, SF_E_FRE_OUTSIDE },
	{ "fre-order", STAGE_VALIDATE, SF_E_FRE_ORDER },
	{ "fre-word-size-3", STAGE_VALIDATE, SF_E_FRE_INFO },
	{ "fre-word-count-15", STAGE_VALIDATE, SF_E_FRE_INFO },
	{ "default-three-words-amd64", STAGE_VALIDATE, SF_E_RULE },
	{ "flex-cfa-not-register", STAGE_VALIDATE, SF_E_RULE },
	{ "flex-padding-alone", STAGE_VALIDATE, SF_E_RULE },
	{ "flex-reserved-bit", STAGE_VALIDATE, SF_E_RULE },
	{ NULL, 0, 0 },
};

/* The first FRE info byte of FDE 0 of vec_valid[V1] (1-byte address). */
#define V1_FRE0_INFO (FRES(2, 1) + 1)
/* In vec_valid[V3]: FDE 0's attribute record (5) and FREs (3 + 4), FDE 1's
 * attribute record (5), then its first FRE: start, info, CFA control word;
 * that FRE has 6 words, so the second FRE's info byte is 8 bytes later. */
#define V3_FLEX_CFA_CTL   (FRES(3, 3) + 5 + 7 + 5 + 2)
#define V3_FLEX_FRE1_INFO (V3_FLEX_CFA_CTL + 6 + 1)

size_t vec_bad_build(int i, uint8_t *b, size_t cap)
{
	const char *name = vec_bad[i].name;
	size_t n;

#define IS(s) (strcmp(name, s) == 0)
	if (IS("empty"))
		return 0;
	if (IS("short-header"))
		return base(V1, b, cap) > 27 ? 27 : 0;
	n = base(IS("flags-v3-frame-pointer") || IS("v3-attr-past-end") ||
		 IS("v3-fde-type-bad") || IS("function-wraps") ||
		 IS("flex-cfa-not-register") || IS("flex-padding-alone") ||
		 IS("flex-reserved-bit") ? V3 :
		 IS("zero-rep-size") || IS("fre-beyond-block") ? V2 : V1, b, cap);

	if (IS("bad-magic"))                 vec_put16(b, 0, 0x1234);
	else if (IS("other-endian"))         vec_put16(b, 0, 0xe2de);
	else if (IS("version-0"))            b[2] = 0;
	else if (IS("version-4"))            b[2] = 4;
	else if (IS("abi-unknown"))          b[4] = 9;
	else if (IS("abi-aarch64-be"))       b[4] = 1;
	else if (IS("flags-v1-pcrel"))       b[3] |= 4;
	else if (IS("flags-v3-frame-pointer")) b[3] |= 2;
	else if (IS("flags-unknown"))        b[3] |= 0x80;
	else if (IS("auxhdr-past-end"))      b[7] = 255;
	else if (IS("fdeoff-past-end"))      vec_put32(b, 20, 0xfffffff0u);
	else if (IS("freoff-past-end"))      vec_put32(b, 24, 0xfffffff0u);
	else if (IS("fre-len-huge"))         vec_put32(b, 16, 0xffffffffu);
	else if (IS("num-fdes-huge"))        vec_put32(b, 8, 0xffffffffu);
	else if (IS("truncated-by-one"))     n--;
	else if (IS("fdes-overlap-fres"))    vec_put32(b, 24, 20); /* FREs start inside FDE 1 */
	else if (IS("num-fres-huge"))        vec_put32(b, 12, 0xffffffffu);
	else if (IS("fre-count-mismatch"))   vec_put32(b, 12, 6);
	else if (IS("fde-num-fres-huge"))    vec_put32(b, FDE(1, 1) + 12, 0xffffffffu);
	else if (IS("fde-fre-off-past-end")) vec_put32(b, FDE(1, 1) + 8, 0x1000);
	else if (IS("fre-len-short"))        vec_put32(b, 16, (uint32_t)(n - FRES(2, 1) - 1));
	else if (IS("v3-attr-past-end"))     vec_put32(b, FDE(2, 3) + 12, (uint32_t)(n - FRES(3, 3) - 2));
	else if (IS("unsorted"))             vec_put32(b, FDE(1, 1), (uint32_t)-8192);
	else if (IS("overlapping"))          vec_put32(b, FDE(1, 1), (uint32_t)(-4096 + 0x20));
	else if (IS("zero-rep-size"))        b[FDE(1, 2) + 17] = 0;
	else if (IS("function-wraps")) {
		/* start = VEC_VADDR - VEC_VADDR - 16: 16 bytes below 2^64 */
		vec_put32(b, FDE(0, 3), (uint32_t)-(VEC_VADDR + 16));
		vec_put32(b, FDE(0, 3) + 4, 0xffffffffu);
	}
	else if (IS("fre-type-bad"))         b[FDE(1, 1) + 16] = 3;
	else if (IS("v3-fde-type-bad"))      b[FRES(3, 3) + 3] = 5;
	else if (IS("fre-beyond-function"))  vec_put32(b, FDE(0, 1) + 4, 0x3f);
	else if (IS("fre-beyond-block"))     b[FDE(1, 2) + 17] = 11;
	else if (IS("fre-order"))            b[FRES(2, 1) + 3] = 0; /* FRE 1 starts at 0 too */
	else if (IS("fre-word-size-3"))      b[V1_FRE0_INFO] |= 3 << 5;
	else if (IS("fre-word-count-15"))    b[V1_FRE0_INFO] |= 15 << 1;
	else if (IS("default-three-words-amd64")) {
		/* FRE 1 of FDE 0: 2 words -> 3 words; the next FRE's start byte
		 * becomes the third word, so the rows stay parseable. */
		b[FRES(2, 1) + 3 + 1] = (uint8_t)(1 | 3 << 1);
	}
	else if (IS("flex-cfa-not-register")) b[V3_FLEX_CFA_CTL] = AT_CFA;
	else if (IS("flex-padding-alone"))   b[V3_FLEX_FRE1_INFO] = (uint8_t)(1 | 3 << 1);
	else if (IS("flex-reserved-bit"))    b[V3_FLEX_CFA_CTL] |= 4;
#undef IS
	return n;
}
