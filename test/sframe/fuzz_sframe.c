/*
 * Test 24: libFuzzer target for decode, validate, lookup, step and encode.
 * The input is a section. Besides "no crash, no sanitizer report":
 *
 * - through the reader callback, no request may leave the section;
 * - the buffer and the callback accessors must agree on every answer;
 * - a section that validates and re-encodes (v1, v2, v3) must still
 *   validate and give the same rule at every sampled pc;
 * - on a valid section the reference lookup (sf_plain_find_rule and its
 *   parts) gives the accelerated one's answers, and the FDE index
 *   changes none; lookups through an FDE index of any section stay safe.
 *
 * Any violation traps, which libFuzzer reports as a crash.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "sframe.h"

#define VADDR 0x400000ull

#define CHECK(c) do { if (!(c)) __builtin_trap(); } while (0)

struct reader {
	const uint8_t *bytes;
	uint32_t size;
};

static bool read_cb(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	const struct reader *r = ctx;
	CHECK(addr >= VADDR && addr - VADDR <= r->size && len <= r->size - (addr - VADDR));
	memcpy(dst, r->bytes + (addr - VADDR), len);
	return true;
}

static bool stack_cb(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	(void)ctx;
	uint64_t v = (addr * 0x9e3779b97f4a7c15ull) >> 8;
	memcpy(dst, &v, len < 8 ? len : 8);
	return true;
}

/* One lookup and one step, as a comparable value. */
struct answer {
	int err, step_err;
	struct sf_rule rule;
	struct sf_frame f;
};

static void answer(const struct sf_table *t, uint64_t pc, struct answer *a)
{
	memset(a, 0, sizeof *a);
	a->err = sf_find_rule(t, pc, &a->rule);
	a->f = (struct sf_frame){ pc, 0x7fff0000, 0x7fff0040, false };
	a->step_err = sf_step(t, &a->f, stack_cb, NULL);
}

static bool same(const struct answer *x, const struct answer *y)
{
	if (x->err != y->err || x->step_err != y->step_err)
		return false;
	if (!x->step_err && (x->f.pc != y->f.pc || x->f.sp != y->f.sp || x->f.fp != y->f.fp))
		return false;
	if (x->err)
		return true;
	const struct sf_rule *a = &x->rule, *b = &y->rule;
	return a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off &&
	       a->cfa_deref == b->cfa_deref && a->ra.how == b->ra.how &&
	       a->ra.off == b->ra.off && a->ra.reg == b->ra.reg && a->fp.how == b->fp.how &&
	       a->fp.off == b->fp.off && a->fp.reg == b->fp.reg &&
	       a->mangled_ra == b->mangled_ra && a->signal == b->signal;
}

/* Pcs worth asking about: around each function's start and end. */
static int sample_pcs(const struct sf_table *t, uint64_t *pcs, int max)
{
	struct sf_fde fde;
	int n = 0;
	for (uint32_t i = 0; i < t->num_fdes && n + 5 <= max; i++) {
		if (sf_fde_get(t, i, &fde))
			continue;
		pcs[n++] = fde.start;
		pcs[n++] = fde.start + 1;
		pcs[n++] = fde.start + fde.size / 2;
		pcs[n++] = fde.start + fde.size - 1;
		pcs[n++] = fde.start + fde.size;
	}
	return n;
}

/* Walk every FDE and FRE the way dump does. */
static void walk(const struct sf_table *t)
{
	struct sf_fde fde;
	struct sf_fre fre;
	struct sf_rule rule;
	for (uint32_t i = 0; i < t->num_fdes && i < 256; i++) {
		if (sf_fde_get(t, i, &fde))
			continue;
		uint32_t off = fde.first_fre;
		for (uint32_t j = 0; j < fde.num_fres && j < 256; j++, off += fre.size)
			if (sf_fre_read(t, &fde, off, &fre) || sf_rule_of(t, &fde, &fre, &rule))
				break;
	}
}

/* Re-encoding a valid section must keep it valid and keep its rules. */
static void reencode(const struct sf_table *t, const uint64_t *pcs, int n)
{
	for (uint8_t v = 1; v <= 3; v++) {
		uint32_t len = 0;
		bool pcrel = v > 1;
		int err = sf_encode(t, v, pcrel, VADDR, NULL, 0, &len);
		if (err != SF_E_NOSPACE && err != SF_OK)
			continue;
		uint8_t *out = malloc(len ? len : 1);
		CHECK(sf_encode(t, v, pcrel, VADDR, out, len, &len) == SF_OK);
		struct sf_table u;
		struct sf_src src = { out, NULL, NULL, len, VADDR, false };
		CHECK(sf_open(&u, &src) == SF_OK && sf_validate(&u) == SF_OK);
		for (int i = 0; i < n; i++) {
			struct answer a, b;
			answer(t, pcs[i], &a);
			answer(&u, pcs[i], &b);
			CHECK(same(&a, &b));
		}
		free(out);
	}
}

/* The reference lookup on a valid section: the accelerated one's FDE,
 * row and rule, or its error, at every sampled pc (sframe/plain.c). */
static void reference(const struct sf_table *t, const uint64_t *pcs, int n)
{
	for (int i = 0; i < n; i++) {
		struct sf_fde fa, fb;
		struct sf_fre ra, rb;
		struct answer a, b;
		int ea = sf_fde_find(t, pcs[i], &fa), eb = sf_plain_fde_find(t, pcs[i], &fb);
		CHECK(ea == eb && (ea || (fa.index == fb.index && fa.start == fb.start)));
		if (!ea) {
			ea = sf_fre_find(t, &fa, pcs[i], &ra);
			eb = sf_plain_fre_find(t, &fb, pcs[i], &rb);
			CHECK(ea == eb && (ea || (ra.off == rb.off && ra.start == rb.start)));
		}
		answer(t, pcs[i], &a);
		b = a;
		b.err = sf_plain_find_rule(t, pcs[i], &b.rule);
		CHECK(same(&a, &b));
	}
}

/* The FDE index, on any section (with one entry, three, or as many
 * as there are FDEs): refused only for a section not sorted, every lookup
 * safe, and on a valid section the same answers as without it. */
static void sampled(const struct sf_table *t, const uint64_t *pcs, int n, bool valid)
{
	static const uint32_t maxes[] = { 1, 3, 1u << 20 };
	for (unsigned m = 0; m < sizeof maxes / sizeof maxes[0]; m++) {
		struct sf_table x = *t;
		uint64_t need = sf_fde_index_size(&x, maxes[m]);
		uint64_t *mem = malloc(need);
		int err = sf_fde_index_build(&x, mem, need);
		CHECK(err == SF_OK || err == SF_E_FDE_UNSORTED);
		CHECK(err || (t->flags & SF_F_FDE_SORTED));
		for (int i = 0; !err && i < n; i++) {
			struct answer a, b;
			answer(t, pcs[i], &a);
			answer(&x, pcs[i], &b);
			CHECK(!valid || same(&a, &b));
		}
		free(mem);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static uint64_t pcs[512];
	struct sf_table t, c;
	if (size > UINT32_MAX)
		return 0;
	struct reader r = { data, (uint32_t)size };
	struct sf_src direct = { data, NULL, NULL, (uint32_t)size, VADDR, false };
	struct sf_src cb = { NULL, read_cb, &r, (uint32_t)size, VADDR, false };

	int err = sf_open(&t, &direct);
	CHECK(err == sf_open(&c, &cb));
	if (err)
		return 0;
	bool valid = sf_validate(&t) == SF_OK;
	CHECK(valid == (sf_validate(&c) == SF_OK));
	walk(&c);
	int n = sample_pcs(&t, pcs, 512);
	for (int i = 0; i < n; i++) {
		struct answer a, b;
		answer(&t, pcs[i], &a);
		answer(&c, pcs[i], &b);
		CHECK(same(&a, &b));
	}
	sampled(&t, pcs, n, valid);
	if (valid) {
		reencode(&t, pcs, n);
		reference(&t, pcs, n);
	}
	return 0;
}
