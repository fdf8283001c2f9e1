/*
 * Test 22: conversions keep the rules. Usage:
 *
 *   conv_check FILE BLOB...
 *
 * FILE is a linked ELF file (its .sframe gives the run-time address); each
 * BLOB is a re-encoding of that section, assumed at the same address. For
 * every pc from 16 bytes before the first function to 16 bytes after the
 * last, all sections must give the same lookup result: the same error, or
 * the same function, row start and rule, and one unwind step from a
 * synthetic stack must give the same caller. Prints a summary; exits 1 on
 * the first few differences.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "input.h"
#include "sframe.h"

#define MAX_SECTIONS 8

struct loaded {
	uint8_t *copy; /* the section bytes, owned */
	struct sf_table t;
};

static struct loaded secs[MAX_SECTIONS];
static int nsecs;
static uint64_t vaddr;

static int load(void *arg, const char *member, const struct section *sec)
{
	const char *path = arg;
	struct loaded *l = &secs[nsecs];

	if (member || !sec || nsecs == MAX_SECTIONS) {
		fprintf(stderr, "%s: need one .sframe section\n", path);
		return 1;
	}
	if (nsecs == 0)
		vaddr = sec->addr;
	l->copy = malloc(sec->size ? sec->size : 1);
	memcpy(l->copy, sec->data, sec->size);
	struct sf_src src = { l->copy, NULL, NULL, (uint32_t)sec->size, vaddr, false };
	int err = sf_open(&l->t, &src);
	if (!err)
		err = sf_validate(&l->t);
	if (err) {
		fprintf(stderr, "%s: %s\n", path, sf_strerror(err));
		return 1;
	}
	nsecs++;
	return 0;
}

/* A stack whose every word is a function of its address. */
static bool fake_stack(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	(void)ctx;
	uint64_t v = addr * 0x9e3779b97f4a7c15ull;
	memcpy(dst, &v, len < 8 ? len : 8);
	return true;
}

struct answer {
	int err;
	struct sf_fde fde;
	struct sf_fre fre;
	struct sf_rule rule;
	int step_err;
	struct sf_frame caller;
};

static void look_up(const struct sf_table *t, uint64_t pc, struct answer *a)
{
	memset(a, 0, sizeof *a);
	a->err = sf_fde_find(t, pc, &a->fde);
	if (!a->err)
		a->err = sf_fre_find(t, &a->fde, pc, &a->fre);
	if (!a->err)
		a->err = sf_rule_of(t, &a->fde, &a->fre, &a->rule);
	a->caller = (struct sf_frame){ pc, 0x7ffff000, 0x7ffff800, false };
	a->step_err = sf_step(t, &a->caller, fake_stack, NULL);
}

static bool same_where(const struct sf_where *x, const struct sf_where *y)
{
	return x->how == y->how && x->reg == y->reg && x->off == y->off;
}

static bool same(const struct answer *x, const struct answer *y)
{
	if (x->err != y->err || x->step_err != y->step_err)
		return false;
	if (!x->step_err && (x->caller.pc != y->caller.pc || x->caller.sp != y->caller.sp ||
			     x->caller.fp != y->caller.fp))
		return false;
	if (x->err)
		return true;
	const struct sf_rule *a = &x->rule, *b = &y->rule;
	return x->fde.start == y->fde.start && x->fde.size == y->fde.size &&
	       x->fde.pc_type == y->fde.pc_type && x->fde.rep_size == y->fde.rep_size &&
	       x->fre.start == y->fre.start && x->fre.info == y->fre.info &&
	       a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off &&
	       a->cfa_deref == b->cfa_deref && same_where(&a->ra, &b->ra) &&
	       same_where(&a->fp, &b->fp) && a->mangled_ra == b->mangled_ra &&
	       a->signal == b->signal;
}

int main(int argc, char **argv)
{
	struct sf_fde first, last;
	uint64_t pcs = 0, ruled = 0, stepped = 0;
	int bad = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: conv_check FILE BLOB...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		if (each_section(argv[i], vaddr, false, load, argv[i]))
			return 1;
	const struct sf_table *ref = &secs[0].t;
	if (ref->num_fdes == 0 || sf_fde_get(ref, 0, &first) ||
	    sf_fde_get(ref, ref->num_fdes - 1, &last))
		return 1;
	for (uint64_t pc = first.start - 16; pc < last.start + last.size + 16; pc++) {
		struct answer want, got;
		look_up(ref, pc, &want);
		pcs++;
		ruled += want.err == 0;
		stepped += want.step_err == 0;
		for (int s = 1; s < nsecs; s++) {
			look_up(&secs[s].t, pc, &got);
			if (!same(&want, &got) && bad++ < 10)
				printf("DIFFERENT %s at pc 0x%" PRIx64 ": %s / %s\n", argv[s + 1],
				       pc, sf_strerror(want.err), sf_strerror(got.err));
		}
	}
	printf("%s: %d sections, %" PRIu64 " pcs, %" PRIu64 " with a rule, %" PRIu64
	       " stepped, %d differences\n", argv[1], nsecs, pcs, ruled, stepped, bad);
	return bad != 0;
}
