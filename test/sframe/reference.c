/*
 * The accelerated lookups (sframe/fast.c, the FDE index, sf_find_quick)
 * against the reference (sframe/plain.c) at every pc of the files named:
 * for each section sf_validate accepts, every pc from 16 bytes before
 * each function to 16 after it, looked up in six ways (the section in a
 * buffer, through a reader, in place; in a buffer with an FDE index of
 * an entry per FDE and of one every fourth FDE; in place with an entry
 * per FDE built in parts of 1000 starts, every FDE read first, as the
 * kernel does). Each must give
 * the reference's FDE, row and rule, or its error; sf_find_quick, where
 * it answers, the quick form of the reference's rule.
 *
 *   reference FILE...   one line per file; exit 1 on any difference
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "sframe.h"

#define MAX_REPORTS 10

struct stats {
	const char *path;
	uint64_t sections, invalid, pcs, found;
	int bad;
};

static bool copy_cb(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	const struct section *sec = ctx;
	memcpy(dst, sec->data + (addr - sec->addr), len);
	return true;
}

/* One lookup's answer, whichever way it was found. */
struct answer {
	int fde_err, fre_err, rule_err;
	struct sf_fde fde;
	struct sf_fre fre;
	struct sf_rule rule;
};

static void accelerated(const struct sf_table *t, uint64_t pc, struct answer *a)
{
	memset(a, 0, sizeof *a);
	if (!(a->fde_err = sf_fde_find(t, pc, &a->fde)))
		a->fre_err = sf_fre_find(t, &a->fde, pc, &a->fre);
	a->rule_err = sf_find_rule(t, pc, &a->rule);
}

static void reference(const struct sf_table *t, uint64_t pc, struct answer *a)
{
	memset(a, 0, sizeof *a);
	if (!(a->fde_err = sf_plain_fde_find(t, pc, &a->fde)))
		a->fre_err = sf_plain_fre_find(t, &a->fde, pc, &a->fre);
	a->rule_err = sf_plain_find_rule(t, pc, &a->rule);
}

static bool same_where(const struct sf_where *x, const struct sf_where *y)
{
	return x->how == y->how && x->reg == y->reg && x->off == y->off;
}

static bool same_rule(const struct sf_rule *x, const struct sf_rule *y)
{
	return x->cfa_reg == y->cfa_reg && x->cfa_deref == y->cfa_deref &&
	       x->cfa_off == y->cfa_off && same_where(&x->ra, &y->ra) &&
	       same_where(&x->fp, &y->fp) && x->mangled_ra == y->mangled_ra &&
	       x->signal == y->signal;
}

static bool same(const struct answer *x, const struct answer *y)
{
	if (x->fde_err != y->fde_err || x->fre_err != y->fre_err || x->rule_err != y->rule_err)
		return false;
	if (!x->fde_err && (x->fde.index != y->fde.index || x->fde.start != y->fde.start ||
			    x->fde.size != y->fde.size))
		return false;
	if (!x->fde_err && !x->fre_err &&
	    (x->fre.off != y->fre.off || x->fre.start != y->fre.start ||
	     x->fre.info != y->fre.info || x->fre.nwords != y->fre.nwords ||
	     memcmp(x->fre.word, y->fre.word, x->fre.nwords * sizeof x->fre.word[0])))
		return false;
	return x->rule_err || same_rule(&x->rule, &y->rule);
}

/* sf_find_quick where it answers: the reference's rule in quick form,
 * SF_E_END for its outermost rows, or its error. */
static bool same_quick(const struct sf_table *t, uint64_t pc, const struct answer *want)
{
	struct sf_quick q, wq;
	uint32_t work = UINT32_MAX;
	int err = sf_find_quick(t, pc, &q, &work);

	if (err == SF_E_NOT_QUICK)
		return true;
	if (want->rule_err)
		return err == want->rule_err;
	if (want->rule.ra.how == SF_UNDEFINED)
		return err == SF_E_END;
	return !err && sf_quick_of(t, &want->rule, &wq) && q.cfa_off == wq.cfa_off &&
	       q.ra_off == wq.ra_off && q.fp_off == wq.fp_off && q.cfa_fp == wq.cfa_fp &&
	       q.fp_saved == wq.fp_saved && q.strict == wq.strict;
}

/* One difference, at pc looked up one way; the first few are printed. */
static void mismatch(struct stats *st, const char *member, const char *way, uint64_t pc,
		     const char *what)
{
	if (st->bad++ < MAX_REPORTS)
		printf("MISMATCH %s%s%s%s: %s: pc 0x%" PRIx64 ": %s\n", st->path,
		       member ? "(" : "", member ? member : "", member ? ")" : "", way, pc, what);
}

enum { WAYS = 6 };
static const char *const way_name[WAYS] = {
	"buffer", "reader", "in place", "FDE index", "FDE index of every 4th",
	"in place, FDE index in parts, read",
};

/* The kernel's build: in parts of 1000 reads, the index unused (NULL)
 * until the last is read; with an entry per FDE the parts read the top
 * level only (sframe/lazy_index.h). */
static bool build_in_parts(struct sf_table *t, void *mem, uint64_t size)
{
	int err = sf_fde_index_begin(t, mem, size);
	uint32_t parts = 0;
	while (!err) {
		uint32_t work = 1000;
		err = sf_fde_index_more(t, mem, &work);
		parts++;
		if (err != SF_E_BUDGET)
			break;
		if (t->fde_index || work)
			return false; /* used before it is whole, or a part not whole */
		err = SF_OK;
	}
	uint32_t reads = t->fde_index && t->fde_index->step == 1 ? lz_blocks(t->num_fdes) : t->num_fdes;
	return !err && t->fde_index == mem && parts == (reads + 999) / 1000;
}

/* Table `way` of the section; its pcs are shifted by *delta (in place:
 * the section's bytes are where this program has them). */
static bool open_way(struct sf_table *t, int way, const struct section *sec, void **mem,
		     uint64_t *delta)
{
	uint32_t size = (uint32_t)sec->size;
	struct sf_src src = { sec->data, NULL, NULL, size, sec->addr, false };

	*delta = 0;
	if (way == 1)
		src = (struct sf_src){ NULL, copy_cb, (void *)sec, size, sec->addr, false };
	if (way == 2 || way == 5) {
		src = (struct sf_src){ NULL, NULL, NULL, size, (uintptr_t)sec->data, true };
		*delta = (uintptr_t)sec->data - sec->addr;
	}
	if (sf_open(t, &src))
		return false;
	if (way < 3 || !(t->flags & SF_F_FDE_SORTED))
		return true;
	uint32_t max = way == 4 ? t->num_fdes / 4 + 1 : t->num_fdes;
	uint64_t need = sf_fde_index_size(t, max);
	*mem = malloc(need);
	if (way == 5)
		return *mem && build_in_parts(t, *mem, need) && !sf_fde_index_read_all(t);
	return *mem && !sf_fde_index_build(t, *mem, need);
}

/* The source each way reads: the buffer (ways 0, 3, 4), the reader (1),
 * the bytes in place (2, 5). The reference reads FDEs and rows through
 * sf_fde_get and sf_fre_read alone, never an FDE index, so its answer at
 * a pc is the same in every way of a source: found once a source. */
enum { SOURCES = 3 };
static const int source_of[WAYS] = { 0, 1, 2, 0, 0, 2 };

/* pc (of the section's addresses) looked up each way open, against the
 * reference in that way's source. */
static void compare_pc(struct stats *st, const char *member, struct sf_table *t,
		       const bool *open, const uint64_t *delta, uint64_t pc)
{
	struct answer r[SOURCES];
	bool have[SOURCES] = { false };

	for (int way = 0; way < WAYS; way++) {
		int s = source_of[way];
		struct answer a;
		if (!open[way])
			continue;
		if (!have[s]) {
			reference(&t[way], pc + delta[way], &r[s]);
			have[s] = true;
		}
		accelerated(&t[way], pc + delta[way], &a);
		st->pcs += way == 0;
		st->found += way == 0 && !r[s].rule_err;
		char what[160];
		if (!same(&a, &r[s])) {
			snprintf(what, sizeof what, "%s / %s, reference %s / %s",
				 sf_strerror(a.fde_err), sf_strerror(a.rule_err),
				 sf_strerror(r[s].fde_err), sf_strerror(r[s].rule_err));
			mismatch(st, member, way_name[way], pc, what);
		} else if (t[way].fde_index && !same_quick(&t[way], pc + delta[way], &r[s]))
			mismatch(st, member, way_name[way], pc, "sf_find_quick differs");
	}
}

/* Every pc within 16 bytes of a function, each way: the ways side by
 * side, each still looking the pcs up in increasing order. */
static void compare(struct stats *st, const char *member, const struct section *sec,
		    const struct sf_table *base)
{
	struct sf_table t[WAYS];
	void *mem[WAYS] = { NULL };
	uint64_t delta[WAYS];
	bool open[WAYS];

	for (int way = 0; way < WAYS; way++)
		if (!(open[way] = open_way(&t[way], way, sec, &mem[way], &delta[way])))
			mismatch(st, member, way_name[way], 0, "cannot open");
	uint64_t next = 0; /* the pcs so far: each looked up once */
	for (uint32_t i = 0; i < base->num_fdes; i++) {
		struct sf_fde fde;
		if (sf_fde_get(base, i, &fde))
			continue;
		uint64_t from = fde.start < 16 ? 0 : fde.start - 16;
		uint64_t pc = from > next ? from : next;
		for (; pc < fde.start + fde.size + 16; pc++)
			compare_pc(st, member, t, open, delta, pc);
		next = pc > next ? pc : next;
	}
	/* Every FDE's start looked up, so every block of a lazily
	 * filled index reached: each filled once. */
	const struct sf_fde_index *x = open[3] ? t[3].fde_index : NULL;
	if (x && x->step == 1 && x->lz.fills != lz_blocks(x->n)) {
		char what[96];
		snprintf(what, sizeof what, "%u blocks filled for %u blocks", x->lz.fills,
			 lz_blocks(x->n));
		mismatch(st, member, way_name[3], 0, what);
	}
	for (int way = 0; way < WAYS; way++)
		free(mem[way]);
}

static int visit(void *arg, const char *member, const struct section *sec)
{
	struct stats *st = arg;
	struct sf_table t;
	int err;

	if (!sec)
		return 0;
	struct sf_src src = { sec->data, NULL, NULL, (uint32_t)sec->size, sec->addr, false };
	st->sections++;
	if ((err = sf_open(&t, &src)) || (err = sf_validate(&t))) {
		printf("%s%s%s%s: not valid (%s), not compared\n", st->path, member ? "(" : "",
		       member ? member : "", member ? ")" : "", sf_strerror(err));
		st->invalid++;
		return 0;
	}
	compare(st, member, sec, &t);
	return 0;
}

int main(int argc, char **argv)
{
	int status = 0;

	for (int i = 1; i < argc; i++) {
		struct stats st = { argv[i], 0, 0, 0, 0, 0 };
		if (each_section(argv[i], 0, true, visit, &st) < 0) {
			perror(argv[i]);
			status = 1;
			continue;
		}
		printf("%s: %" PRIu64 " sections (%" PRIu64 " not valid), %" PRIu64 " pcs (%" PRIu64
		       " with a rule), %d mismatches\n", argv[i], st.sections, st.invalid, st.pcs,
		       st.found, st.bad);
		status |= st.bad != 0;
	}
	return status;
}
