/*
 * Test 23: malformed sections give errors, never crashes, never a read
 * outside the section. Built with AddressSanitizer and UBSan (which
 * aborts on undefined behaviour); every section sits in a heap block of
 * exactly its size, so a read one byte past it is caught. Prints TAP.
 *
 * 1. Each hand-made malformed section (test/sframe/vecgen.c) gives its
 *    own error code, at sf_open or sf_validate, both through a plain
 *    buffer and through a reader callback.
 * 2. Every truncation of every valid section is rejected.
 * 3. Every single-byte corruption of every valid section: whatever open
 *    and validate say, lookups, steps and re-encoding return normally and
 *    the callback never sees a request outside the section.
 * 4. A reader that faults on its k-th call, for every k: open, validate
 *    and lookups return SF_E_FAULT, never a wrong success.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sframe.h"
#include "vecgen.h"

static int tests, failed;

static void ok(int cond, const char *fmt, const char *name)
{
	tests++;
	printf("%s %d - ", cond ? "ok" : "not ok", tests);
	printf(fmt, name);
	printf("\n");
	failed += !cond;
}

/* A reader that checks every request against the section and can be
 * told to fail its k-th call (a page fault in a kernel). */
struct reader {
	const uint8_t *bytes;
	uint64_t vaddr;
	uint32_t size;
	long calls;
	long fail_at;    /* 0: never */
	long outside;    /* requests not inside [vaddr, vaddr + size) */
};

static bool read_cb(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	struct reader *r = ctx;
	if (++r->calls == r->fail_at)
		return false;
	if (addr < r->vaddr || addr - r->vaddr > r->size || len > r->size - (addr - r->vaddr)) {
		r->outside++;
		return false;
	}
	memcpy(dst, r->bytes + (addr - r->vaddr), len);
	return true;
}

static bool stack_cb(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	(void)ctx;
	uint64_t v = addr ^ 0x123456789abcdefull;
	memcpy(dst, &v, len < 8 ? len : 8);
	return true;
}

/* A heap copy of exactly n bytes: ASan's redzone starts right after it. */
static uint8_t *exact(const uint8_t *b, size_t n)
{
	uint8_t *p = malloc(n ? n : 1);
	memcpy(p, b, n);
	return n ? p : p + 1; /* size 0: a pointer with nothing readable */
}

static void release(uint8_t *p, size_t n)
{
	free(n ? p : p - 1);
}

/* Open and validate; returns the first error. */
static int open_validate(struct sf_table *t, const struct sf_src *src, int *stage)
{
	int err = sf_open(t, src);
	*stage = STAGE_OPEN;
	if (err)
		return err;
	*stage = STAGE_VALIDATE;
	return sf_validate(t);
}

/* Everything a user of the library might call, on data that may be bad. */
static void exercise(const struct sf_table *t)
{
	static uint8_t out[8192];
	struct sf_fde fde;
	struct sf_fre fre;
	struct sf_rule rule;
	uint32_t len;

	for (uint32_t i = 0; i < t->num_fdes && i < 64; i++) {
		if (sf_fde_get(t, i, &fde))
			continue;
		uint32_t off = fde.first_fre;
		for (uint32_t j = 0; j < fde.num_fres && j < 64; j++, off += fre.size)
			if (sf_fre_read(t, &fde, off, &fre) || sf_rule_of(t, &fde, &fre, &rule))
				break;
	}
	for (int64_t d = -4200; d < 4200; d += 5) {
		uint64_t pc = t->src.vaddr + (uint64_t)d;
		struct sf_frame f = { pc, 0x7fff0000, 0x7fff0100, false };
		if (!sf_fde_find(t, pc, &fde) && !sf_fre_find(t, &fde, pc, &fre))
			sf_rule_of(t, &fde, &fre, &rule);
		for (int k = 0; k < 4 && !sf_step(t, &f, stack_cb, NULL); k++)
			;
	}
	for (uint8_t v = 1; v <= 3; v++) {
		sf_encode(t, v, v > 1, t->src.vaddr, NULL, 0, &len);
		sf_encode(t, v, v > 1, t->src.vaddr, out, sizeof out, &len);
	}
}

/* 1. Each malformed section, both accessors. */
static void malformed(void)
{
	static uint8_t buf[4096];
	char name[200];

	for (int i = 0; vec_bad[i].name; i++) {
		size_t n = vec_bad_build(i, buf, sizeof buf);
		uint8_t *p = exact(buf, n);
		struct sf_table t;
		struct reader r = { p, VEC_VADDR, (uint32_t)n, 0, 0, 0 };
		struct sf_src direct = { p, NULL, NULL, (uint32_t)n, VEC_VADDR, false };
		struct sf_src cb = { NULL, read_cb, &r, (uint32_t)n, r.vaddr, false };
		int stage, stage2;
		int err = open_validate(&t, &direct, &stage);
		if (stage == STAGE_VALIDATE)
			exercise(&t);
		int err2 = open_validate(&t, &cb, &stage2);
		if (stage2 == STAGE_VALIDATE)
			exercise(&t);
		snprintf(name, sizeof name, "%s: %s at %s (got %s at %s; callback: %s)",
			 vec_bad[i].name, sf_strerror(vec_bad[i].err),
			 vec_bad[i].stage == STAGE_OPEN ? "open" : "validate",
			 sf_strerror(err), stage == STAGE_OPEN ? "open" : "validate",
			 sf_strerror(err2));
		ok(err == vec_bad[i].err && stage == vec_bad[i].stage && err2 == err &&
		   stage2 == stage && r.outside == 0, "%s", name);
		release(p, n);
	}
}

/* 2. Truncations. */
static void truncations(void)
{
	static uint8_t buf[4096];
	char name[200];

	for (const struct vsec *s = vec_valid; s->name; s++) {
		size_t n = vec_build(s, buf, sizeof buf);
		int accepted = 0;
		for (size_t len = 0; len < n; len++) {
			uint8_t *p = exact(buf, len);
			struct sf_table t;
			struct sf_src src = { p, NULL, NULL, (uint32_t)len, 0x10000, false };
			int stage;
			accepted += open_validate(&t, &src, &stage) == SF_OK;
			if (stage == STAGE_VALIDATE)
				exercise(&t);
			release(p, len);
		}
		snprintf(name, sizeof name, "%s: all %zu truncations rejected", s->name, n);
		ok(accepted == 0, "%s", name);
	}
}

/* 3. Single-byte corruptions: no crash, no outside read. */
static void corruptions(void)
{
	static uint8_t buf[4096];
	static const uint8_t values[] = { 0x00, 0xff, 0x7f, 0x80 };
	char name[200];

	for (const struct vsec *s = vec_valid; s->name; s++) {
		size_t n = vec_build(s, buf, sizeof buf);
		long outside = 0, cases = 0, rejected = 0;
		for (size_t at = 0; at < n; at++) {
			for (size_t v = 0; v < sizeof values; v++) {
				uint8_t *p = exact(buf, n);
				p[at] = values[v];
				struct reader r = { p, 0x10000, (uint32_t)n, 0, 0, 0 };
				struct sf_src cb = { NULL, read_cb, &r, (uint32_t)n, r.vaddr, false };
				struct sf_table t;
				int stage;
				rejected += open_validate(&t, &cb, &stage) != SF_OK;
				if (stage == STAGE_VALIDATE)
					exercise(&t);
				outside += r.outside;
				cases++;
				release(p, n);
			}
		}
		snprintf(name, sizeof name, "%s: %ld corruptions (%ld rejected), no read "
			 "outside the section", s->name, cases, rejected);
		ok(outside == 0, "%s", name);
	}
}

/* 4. A fault at each read in turn. */
static void faults(void)
{
	static uint8_t buf[4096];
	char name[200];

	for (const struct vsec *s = vec_valid; s->name; s++) {
		size_t n = vec_build(s, buf, sizeof buf);
		uint8_t *p = exact(buf, n);
		long wrong = 0, k;
		for (k = 1;; k++) {
			struct reader r = { p, 0x10000, (uint32_t)n, 0, k, 0 };
			struct sf_src cb = { NULL, read_cb, &r, (uint32_t)n, r.vaddr, false };
			struct sf_table t;
			int stage;
			int err = open_validate(&t, &cb, &stage);
			if (r.calls < k) {
				wrong += err != SF_OK; /* no fault happened: must pass */
				break;
			}
			wrong += err != SF_E_FAULT;
		}
		snprintf(name, sizeof name, "%s: a fault at each of %ld reads gives SF_E_FAULT",
			 s->name, k - 1);
		ok(wrong == 0 && k > 1, "%s", name);
		release(p, n);
	}
}

int main(void)
{
	malformed();
	truncations();
	corruptions();
	faults();
	printf("1..%d\n", tests);
	return failed != 0;
}
