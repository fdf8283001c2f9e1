/*
 * Each question the unit test asks of the library, asked two ways (a heap
 * copy of exactly the section's bytes, and a bounds-counting reader), with
 * the answers compared.
 */
#include "build.h"

#include <stdlib.h>
#include <string.h>

unsigned oob_reads, way_mismatches;

struct reader {
	const uint8_t *bytes;
	uint64_t vaddr, size;
};

static bool read_cb(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	const struct reader *r = ctx;
	if (addr < r->vaddr || addr - r->vaddr > r->size || len > r->size - (addr - r->vaddr)) {
		oob_reads++;
		return false;
	}
	memcpy(dst, r->bytes + (addr - r->vaddr), len);
	return true;
}

/* The two sections of s, one way: way 0 heap copies, way 1 readers. */
struct way {
	uint8_t *fcopy, *hcopy;
	struct reader fr, hr;
	struct eh_src f, h;
};

static void way_open(struct way *w, const struct sec *s, int way)
{
	memset(w, 0, sizeof *w);
	/* malloc(0) may be NULL: a byte more is never read (size says). */
	w->fcopy = malloc(s->f.n ? s->f.n : 1);
	w->hcopy = malloc(s->h.n ? s->h.n : 1);
	memcpy(w->fcopy, s->f.b, s->f.n);
	memcpy(w->hcopy, s->h.b, s->h.n);
	w->f = (struct eh_src){ w->fcopy, NULL, NULL, s->f.n, s->f.vaddr, false, NULL, EH_ABI_X86_64 };
	w->h = (struct eh_src){ w->hcopy, NULL, NULL, s->h.n, s->h.vaddr, false, NULL, EH_ABI_X86_64 };
	if (way == 1) {
		w->fr = (struct reader){ s->f.b, s->f.vaddr, s->f.n };
		w->hr = (struct reader){ s->h.b, s->h.vaddr, s->h.n };
		w->f = (struct eh_src){ NULL, read_cb, &w->fr, s->f.n, s->f.vaddr, false, NULL, EH_ABI_X86_64 };
		w->h = (struct eh_src){ NULL, read_cb, &w->hr, s->h.n, s->h.vaddr, false, NULL, EH_ABI_X86_64 };
	}
}

static void way_close(struct way *w)
{
	free(w->fcopy);
	free(w->hcopy);
}

/* The table: with a header if s has one. */
static int open_table(struct way *w, const struct sec *s, struct eh_table *t)
{
	return s->h.n ? eh_open(t, &w->h, &w->f) : eh_open_frame(t, &w->f);
}

int lookup(const struct sec *s, uint64_t pc, struct sf_rule *r, uint32_t budget)
{
	int err[2];
	struct sf_rule got[2];

	memset(got, 0, sizeof got);
	for (int i = 0; i < 2; i++) {
		struct way w;
		struct eh_table t;
		uint32_t b = budget;
		way_open(&w, s, i);
		err[i] = open_table(&w, s, &t);
		if (!err[i])
			err[i] = eh_find_rule(&t, pc, &got[i], &b);
		way_close(&w);
	}
	if (err[0] != err[1] || memcmp(&got[0], &got[1], sizeof got[0]))
		way_mismatches++;
	if (r)
		*r = got[0];
	return err[0];
}

int lookup_fde(const struct sec *s, uint64_t pc, struct eh_fde *fde)
{
	int err[2];
	struct eh_fde got[2];

	memset(got, 0, sizeof got);
	for (int i = 0; i < 2; i++) {
		struct way w;
		struct eh_table t;
		way_open(&w, s, i);
		err[i] = open_table(&w, s, &t);
		if (!err[i])
			err[i] = eh_fde_find(&t, pc, &got[i]);
		way_close(&w);
	}
	if (err[0] != err[1] || memcmp(&got[0], &got[1], sizeof got[0]))
		way_mismatches++;
	*fde = got[0];
	return err[0];
}

int check_table(const struct sec *s)
{
	int err[2];
	for (int i = 0; i < 2; i++) {
		struct way w;
		struct eh_table t;
		way_open(&w, s, i);
		err[i] = open_table(&w, s, &t);
		if (!err[i])
			err[i] = eh_check_table(&t);
		way_close(&w);
	}
	way_mismatches += err[0] != err[1];
	return err[0];
}

int walk(const struct sec *s, uint32_t *fdes)
{
	int err[2];
	uint32_t n[2] = { 0, 0 };
	for (int i = 0; i < 2; i++) {
		struct way w;
		struct eh_table t;
		struct eh_fde fde;
		uint64_t off = 0;
		way_open(&w, s, i);
		err[i] = eh_open_frame(&t, &w.f);
		while (!err[i] && !(err[i] = eh_fde_next(&t, &off, &fde)))
			n[i]++;
		way_close(&w);
	}
	way_mismatches += err[0] != err[1] || n[0] != n[1];
	*fdes = n[0];
	return err[0];
}
