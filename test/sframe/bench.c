/*
 * make bench-sframe: nanoseconds per lookup (FDE + FRE + rule), and of
 * that the FDE search alone (sf_fde_find), of the reference lookup
 * (sf_plain_find_rule, sframe/plain.c), with the FDE index
 * (sf_fde_index_build, an entry per FDE, as the kernel builds it for a
 * section of up to 1 024 FDEs), and per unwind step, against libsframe's
 * sframe_find_fre on the same pcs.
 *
 *   bench FILE...   one table row per file (linked ELF with .sframe)
 *
 * The pcs are 2^19 addresses drawn uniformly (fixed seed) from the span
 * the FDEs cover, the same list for every contender. Each figure is the
 * best of 5 passes over the list. Before timing, both libraries' answers,
 * and ours by the reference, with and without the FDE index, are compared
 * on every pc, so a broken path cannot look fast.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <sframe-api.h>

#include "input.h"
#include "sframe.h"

#define NPCS (1u << 19)
#define ROUNDS 5
#define STACK 0x7fff0000ull

struct bench {
	struct sf_table direct;  /* section read in place */
	struct sf_table viacb;   /* section read through a callback */
	struct sf_table fde_indexed; /* section in memory, with an FDE index */
	void *fde_index;
	sframe_decoder_ctx *d;
	uint64_t vaddr;
	uint64_t *pcs;
	const uint8_t *bytes;
	uint32_t size;
};

static bool copy_cb(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	const struct bench *b = ctx;
	memcpy(dst, b->bytes + (addr - b->vaddr), len);
	return true;
}

static bool stack_cb(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	(void)ctx;
	uint64_t v = addr + 0x1000;
	memcpy(dst, &v, len);
	return true;
}

typedef uint64_t (*op_fn)(struct bench *b, uint64_t pc);

static uint64_t op_lookup(struct bench *b, uint64_t pc)
{
	struct sf_rule r;
	return (uint64_t)sf_find_rule(&b->direct, pc, &r) + (uint64_t)r.cfa_off;
}

static uint64_t op_fde(struct bench *b, uint64_t pc)
{
	struct sf_fde fde;
	return (uint64_t)sf_fde_find(&b->direct, pc, &fde) + fde.start;
}

static uint64_t op_lookup_plain(struct bench *b, uint64_t pc)
{
	struct sf_rule r;
	return (uint64_t)sf_plain_find_rule(&b->direct, pc, &r) + (uint64_t)r.cfa_off;
}

static uint64_t op_lookup_fde_index(struct bench *b, uint64_t pc)
{
	struct sf_rule r;
	return (uint64_t)sf_find_rule(&b->fde_indexed, pc, &r) + (uint64_t)r.cfa_off;
}

static uint64_t op_lookup_cb(struct bench *b, uint64_t pc)
{
	struct sf_rule r;
	return (uint64_t)sf_find_rule(&b->viacb, pc, &r) + (uint64_t)r.cfa_off;
}

static uint64_t op_step(struct bench *b, uint64_t pc)
{
	struct sf_frame f = { pc, STACK, STACK + 64, false };
	return (uint64_t)sf_step(&b->direct, &f, stack_cb, NULL) + f.pc;
}

static uint64_t op_libsframe(struct bench *b, uint64_t pc)
{
	sframe_frame_row_entry fre;
	return (uint64_t)sframe_find_fre(b->d, (int32_t)(pc - b->vaddr), &fre) +
	       fre.fre_start_addr;
}

static double ns_per_pc(struct bench *b, op_fn op)
{
	double best = 1e30;
	volatile uint64_t sink = 0;
	for (int r = 0; r < ROUNDS; r++) {
		struct timespec t0, t1;
		uint64_t acc = 0;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t0);
		for (uint32_t i = 0; i < NPCS; i++)
			acc += op(b, b->pcs[i]);
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &t1);
		sink += acc;
		double ns = (double)(t1.tv_sec - t0.tv_sec) * 1e9 + (double)(t1.tv_nsec - t0.tv_nsec);
		if (ns / NPCS < best)
			best = ns / NPCS;
	}
	(void)sink;
	return best;
}

static bool same_where(const struct sf_where *a, const struct sf_where *b)
{
	return a->how == b->how && a->off == b->off && a->reg == b->reg;
}

static bool same_rule(const struct sf_rule *a, const struct sf_rule *b)
{
	return a->cfa_reg == b->cfa_reg && a->cfa_deref == b->cfa_deref &&
	       a->cfa_off == b->cfa_off && same_where(&a->ra, &b->ra) &&
	       same_where(&a->fp, &b->fp) && a->mangled_ra == b->mangled_ra &&
	       a->signal == b->signal;
}

/* Both libraries must find the same row before either is timed, and ours
 * the same rule with and without either index. */
static uint32_t disagreements(struct bench *b)
{
	uint32_t bad = 0;
	for (uint32_t i = 0; i < NPCS; i++) {
		struct sf_fde fde;
		struct sf_fre fre;
		sframe_frame_row_entry lf;
		int mine = sf_fde_find(&b->direct, b->pcs[i], &fde);
		if (!mine)
			mine = sf_fre_find(&b->direct, &fde, b->pcs[i], &fre);
		int theirs = sframe_find_fre(b->d, (int32_t)(b->pcs[i] - b->vaddr), &lf);
		bad += !!mine != !!theirs || (!mine && lf.fre_start_addr != fre.start);
		struct sf_rule r1, r2;
		int e1 = sf_find_rule(&b->direct, b->pcs[i], &r1);
		int e2 = sf_plain_find_rule(&b->direct, b->pcs[i], &r2);
		bad += e1 != e2 || (!e1 && !same_rule(&r1, &r2));
		e2 = sf_find_rule(&b->fde_indexed, b->pcs[i], &r2);
		bad += e1 != e2 || (!e1 && !same_rule(&r1, &r2));
	}
	return bad;
}

static void pick_pcs(struct bench *b)
{
	struct sf_fde first, last;
	uint64_t x = 88172645463325252ull; /* xorshift64 */
	sf_fde_get(&b->direct, 0, &first);
	sf_fde_get(&b->direct, b->direct.num_fdes - 1, &last);
	uint64_t span = last.start + last.size - first.start;
	b->pcs = malloc(NPCS * sizeof *b->pcs);
	for (uint32_t i = 0; i < NPCS; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		b->pcs[i] = first.start + x % span;
	}
}

static int run(void *arg, const char *member, const struct section *sec)
{
	const char *path = arg;
	struct bench b = { 0 };
	int err = 0;

	if (member || !sec || sec->relocatable) {
		fprintf(stderr, "%s: need a linked file with .sframe\n", path);
		return 1;
	}
	b.vaddr = sec->addr;
	b.bytes = sec->data;
	b.size = (uint32_t)sec->size;
	struct sf_src direct = { b.bytes, NULL, NULL, b.size, b.vaddr, false };
	struct sf_src viacb = { NULL, copy_cb, &b, b.size, b.vaddr, false };
	if (sf_open(&b.direct, &direct) || sf_validate(&b.direct) || sf_open(&b.viacb, &viacb) ||
	    sf_open(&b.fde_indexed, &direct) ||
	    !(b.fde_index = malloc(sf_fde_index_size(&b.fde_indexed, UINT32_MAX))) ||
	    sf_fde_index_build(&b.fde_indexed, b.fde_index, sf_fde_index_size(&b.fde_indexed, UINT32_MAX)) ||
	    !(b.d = sframe_decode((const char *)b.bytes, b.size, &err))) {
		fprintf(stderr, "%s: cannot open its .sframe\n", path);
		return 1;
	}
	pick_pcs(&b);
	uint32_t bad = disagreements(&b);
	double mine = ns_per_pc(&b, op_lookup), fde = ns_per_pc(&b, op_fde);
	double plain = ns_per_pc(&b, op_lookup_plain);
	double fde_indexed = ns_per_pc(&b, op_lookup_fde_index), theirs = ns_per_pc(&b, op_libsframe);
	printf("| %7" PRIu32 " | %7" PRIu32 " | %9" PRIu32 " | %8.1f | %8.1f | %8.1f | %8.1f | %8.1f | "
	       "%8.1f | %9.1f | %5.2f | %5.2f | %5.2f |%s\n",
	       b.direct.num_fdes, b.direct.num_fres, b.size, mine, fde, plain, fde_indexed,
	       ns_per_pc(&b, op_lookup_cb), ns_per_pc(&b, op_step), theirs,
	       theirs / mine, theirs / plain, theirs / fde_indexed, bad ? " DISAGREE" : "");
	sframe_decoder_free(&b.d);
	free(b.fde_index);
	free(b.pcs);
	return bad != 0;
}

int main(int argc, char **argv)
{
	int status = 0;
	printf("| FDEs    | FREs    | .sframe B | lookup ns | of which FDE ns | reference ns | "
	       "with FDE index ns | via callback ns | step ns | libsframe sframe_find_fre ns | "
	       "speedup | reference | with FDE index |\n");
	printf("|--------:|--------:|----------:|---------:|---------:|---------:|---------:|---------:|"
	       "---------:|----------:|------:|------:|------:|\n");
	for (int i = 1; i < argc; i++)
		status |= each_section(argv[i], 0, false, run, argv[i]) != 0;
	return status;
}
