/*
 * What the library answers on hand-made sections whose meaning is known:
 * lookups (sorted and linear, PC-relative starts, PLT blocks, 2-byte rows),
 * rules (default, AArch64, flexible, outermost, signal) and unwind steps
 * against a small fake stack, including the ways a step ends; the
 * optional index gives the same answers. Prints TAP.
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "sframe.h"
#include "vecgen.h"

#define V 0x10000ull /* where every section is assumed to live */

static int tests, failed;

static void ok(int cond, const char *name)
{
	tests++;
	printf("%s %d - %s\n", cond ? "ok" : "not ok", tests, name);
	failed += !cond;
}

static uint8_t bytes[16][4096];

static struct sf_table open_vec(const char *name)
{
	struct sf_table t;
	memset(&t, 0, sizeof t);
	for (int i = 0; vec_valid[i].name; i++) {
		if (strcmp(vec_valid[i].name, name))
			continue;
		size_t n = vec_build(&vec_valid[i], bytes[i], sizeof bytes[i]);
		struct sf_src src = { bytes[i], NULL, NULL, (uint32_t)n, V, false };
		if (sf_open(&t, &src) || sf_validate(&t))
			printf("# %s does not validate\n", name);
	}
	return t;
}

/* A fake stack of 64 words from STACK; reads elsewhere fault. */
#define STACK 0x7fff0000ull
static uint64_t stack[64];

static bool read_stack(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	(void)ctx;
	if (addr < STACK || addr + len > STACK + sizeof stack)
		return false;
	memcpy(dst, (uint8_t *)stack + (addr - STACK), len);
	return true;
}

static bool where_is(const struct sf_where *w, int how, int32_t off)
{
	return w->how == how && w->off == off;
}

static void lookups(void)
{
	struct sf_table t = open_vec("v1-sorted-fp");
	struct sf_fde fde;
	struct sf_fre fre;
	struct sf_rule r;

	ok(!sf_fde_find(&t, V - 4096 + 0x3f, &fde) && fde.index == 0 && fde.start == V - 4096 &&
	   fde.size == 0x40, "sorted: pc in the first function finds FDE 0");
	ok(sf_fde_find(&t, V - 4096 + 0x40, &fde) == SF_E_NO_FDE, "sorted: pc between functions: no FDE");
	ok(sf_fde_find(&t, V - 4097, &fde) == SF_E_NO_FDE, "sorted: pc before all functions: no FDE");
	ok(!sf_fde_find(&t, V - 2048 + 0x200, &fde) && fde.index == 1 &&
	   !sf_fre_find(&t, &fde, V - 2048 + 0x200, &fre) && fre.start == 0x1ff &&
	   !sf_rule_of(&t, &fde, &fre, &r) && r.cfa_off == 0x1010 && r.cfa_reg == 7 &&
	   where_is(&r.fp, SF_AT_CFA, -16), "2-byte row start and 2-byte offsets");

	t = open_vec("v1-none-addr4");
	ok(!sf_fde_find(&t, V + 4, &fde) && fde.index == 1, "unsorted: linear search finds FDE 1");
	ok(!sf_find_rule(&t, V + 100 + 0x10005, &r) && r.cfa_off == 0x100008 &&
	   where_is(&r.fp, SF_AT_CFA, -0x10000), "4-byte row start and 4-byte offsets");

	t = open_vec("v1-plt");
	ok(!sf_fde_find(&t, V - 48 + 16 + 11, &fde) && fde.pc_type == SF_PC_MASK &&
	   fde.rep_size == 16, "v1 PLT FDE: PCMASK with the implied 16-byte block");
	ok(!sf_find_rule(&t, V - 48 + 16 + 11, &r) && r.cfa_off == 16 &&
	   !sf_find_rule(&t, V - 48 + 32 + 10, &r) && r.cfa_off == 8,
	   "PLT rows repeat every 16 bytes");

	t = open_vec("v2-plt-pcrel");
	ok(!sf_fde_get(&t, 0, &fde) && fde.start == V + 28 - 64 &&
	   !sf_fde_get(&t, 1, &fde) && fde.start == V + 48 - 68,
	   "PC-relative starts count from the FDE's start field");
}

/*
 * Sections of n functions for the searches: function i at vaddr + F0 +
 * 16 i, 12 bytes long (4-byte gaps), one row each. Version 1 is laid out
 * here, 2 (PC-relative starts) and 3 by the encoder.
 */
#define MANY 5000 /* FDE arrays above 64 KiB: the prefetching search */
#define F0 0x1000
static uint8_t many[3][28 + MANY * 24];

static uint32_t many_v1(uint8_t *b, uint32_t n)
{
	uint32_t fres = 28 + 17 * n;

	memset(b, 0, sizeof many[0]);
	vec_put16(b, 0, SF_MAGIC);
	b[2] = 1;
	b[3] = SF_F_FDE_SORTED;
	b[4] = SF_ABI_AMD64_LE;
	b[6] = (uint8_t)-8;
	vec_put32(b, 8, n);
	vec_put32(b, 12, n);
	vec_put32(b, 16, 3 * n);
	vec_put32(b, 24, 17 * n);
	for (uint32_t i = 0; i < n; i++) {
		vec_put32(b, 28 + 17 * i, F0 + 16 * i);
		vec_put32(b, 28 + 17 * i + 4, 12);
		vec_put32(b, 28 + 17 * i + 8, 3 * i);
		vec_put32(b, 28 + 17 * i + 12, 1);
		b[fres + 3 * i + 1] = 1 | 1 << 1; /* CFA = sp + 1-byte word */
		b[fres + 3 * i + 2] = 8;
	}
	return fres + 3 * n;
}

/* The same bytes read three ways: in the buffer, through a reader, and
 * in place (at their own address). */
struct place {
	const uint8_t *p;
	uint64_t vaddr;
};

static bool read_place(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	const struct place *pl = ctx;
	memcpy(dst, pl->p + (addr - pl->vaddr), len);
	return true;
}

static bool open_way(struct sf_table *t, int way, const uint8_t *b, uint32_t size,
		     struct place *pl)
{
	pl->p = b;
	pl->vaddr = way == 2 ? (uint64_t)(uintptr_t)b : V;
	struct sf_src src = { way == 0 ? b : NULL, way == 1 ? read_place : NULL, pl, size,
			      pl->vaddr, way == 2 };
	return !sf_open(t, &src);
}

/* What a lookup at pc must answer in a many_v1 section whose FDE `moved`
 * was corrupted (-1: none): the function its address names, or none in
 * a gap; `fail` is the error for the pcs in [fail_lo, fail_hi). */
struct want {
	uint32_t n;
	int64_t fail_lo, fail_hi; /* offsets from function 0's start */
	int fail;
};

static uint32_t wrong_answers(const struct sf_table *t, const struct want *w)
{
	uint64_t first = t->src.vaddr + F0;
	uint32_t bad = 0;

	for (uint64_t pc = first - 20; pc < first + 16ull * w->n + 40; pc++) {
		struct sf_fde fde;
		int64_t d = (int64_t)(pc - first);
		int err = sf_fde_find(t, pc, &fde), want = SF_OK;
		if (d >= w->fail_lo && d < w->fail_hi)
			want = w->fail;
		else if (d < 0 || d / 16 >= w->n || d % 16 >= 12)
			want = SF_E_NO_FDE;
		bad += err != want || (!err && fde.index != d / 16);
	}
	return bad;
}

/* The search over sorted sections of 1 to 5 000 functions, every version
 * and source, answers what the addresses say at every pc around them. */
static void searches(void)
{
	static const uint32_t sizes[] = { 1, 2, 3, 5, 64, 1000, MANY };
	uint32_t bad[3] = { 0 }, opened = 0;
	struct sf_table t;
	struct place pl;

	for (unsigned i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
		uint32_t len[3], n = sizes[i];
		struct want w = { n, 0, 0, SF_OK };
		len[0] = many_v1(many[0], n);
		bool built = open_way(&t, 0, many[0], len[0], &pl) &&
			     !sf_encode(&t, 2, true, V, many[1], sizeof many[1], &len[1]) &&
			     !sf_encode(&t, 3, false, V, many[2], sizeof many[2], &len[2]);
		for (int v = 0; v < 3 && built; v++)
			for (int way = 0; way < 3; way++) {
				opened += open_way(&t, way, many[v], len[v], &pl);
				bad[v] += wrong_answers(&t, &w);
			}
	}
	char name[160];
	snprintf(name, sizeof name, "sorted sections of 1 to %d functions, v1, v2 PC-relative, "
		 "v3, in a buffer, through a reader, in place: every pc's FDE (%u, %u, %u wrong)",
		 MANY, bad[0], bad[1], bad[2]);
	ok(opened == 3 * 3 * sizeof sizes / sizeof sizes[0] && !bad[0] && !bad[1] && !bad[2], name);
}

/*
 * Sections that claim sorted FDEs and are not, or overlap: the lookups
 * that read the damage fail, every other one still answers right, in each
 * of the three sources.
 */
static void hostile_searches(void)
{
	uint32_t n = MANY, len = many_v1(many[0], n), at = 28 + 17 * 1250;
	uint32_t bad[3] = { 0 };
	struct sf_table t;
	struct place pl;
	/* The search's first probe is FDE n / 2, its second in the lower
	 * half FDE n / 4: that one starting above the first fails every
	 * lookup below it (before function 0 too), in the search. */
	struct want w = { n, -20, 16 * (int64_t)n / 2, SF_E_FDE_UNSORTED };
	vec_put32(many[0], at, F0 + 16 * 3000);
	for (int way = 0; way < 3; way++)
		bad[0] += !open_way(&t, way, many[0], len, &pl) + wrong_answers(&t, &w);
	vec_put32(many[0], at, F0 + 16 * 1250);

	/* FDE 3777 starting before FDE 3776: the lookups that end next to
	 * it see it out of order; pcs of FDE 3777 itself find nothing. */
	at = 28 + 17 * 3777;
	vec_put32(many[0], at, F0 + 16 * 3775);
	for (int way = 0; way < 3; way++) {
		bad[1] += !open_way(&t, way, many[0], len, &pl);
		for (uint64_t pc = t.src.vaddr + F0 + 16 * 3776; pc < t.src.vaddr + F0 + 16 * 3778; pc++) {
			struct sf_fde fde;
			int err = sf_fde_find(&t, pc, &fde);
			bad[1] += err != SF_E_FDE_UNSORTED && err != SF_E_NO_FDE;
			bad[1] += pc < t.src.vaddr + F0 + 16 * 3776 + 12 && err != SF_E_FDE_UNSORTED;
		}
	}
	vec_put32(many[0], at, F0 + 16 * 3777);

	/* FDE 1234 20 bytes long: it overlaps 1235, 16 bytes on. */
	at = 28 + 17 * 1234 + 4;
	vec_put32(many[0], at, 20);
	w = (struct want){ n, 16 * 1234, 16 * 1234 + 16, SF_E_FDE_OVERLAP };
	for (int way = 0; way < 3; way++)
		bad[2] += !open_way(&t, way, many[0], len, &pl) + wrong_answers(&t, &w);

	char name[200];
	snprintf(name, sizeof name, "a start above the first probe's fails every lookup below "
		 "it, and only those (%u wrong)", bad[0]);
	ok(!bad[0], name);
	snprintf(name, sizeof name, "a start below its predecessor's: SF_E_FDE_UNSORTED for "
		 "the predecessor's pcs, no answer for its own (%u wrong)", bad[1]);
	ok(!bad[1], name);
	snprintf(name, sizeof name, "two functions overlapping: SF_E_FDE_OVERLAP for the "
		 "first one's pcs, every other pc answered (%u wrong)", bad[2]);
	ok(!bad[2], name);
}

/* The same rule (or the same error) at pc from the accelerated lookup
 * over a and, over b, the accelerated one or with ref the reference. */
static bool same_rule_at(const struct sf_table *a, const struct sf_table *b, bool ref,
			 uint64_t pc)
{
	struct sf_rule x, y;
	int ex = sf_find_rule(a, pc, &x), ey = ref ? sf_plain_find_rule(b, pc, &y) :
						      sf_find_rule(b, pc, &y);
	return ex == ey && (ex || (x.cfa_reg == y.cfa_reg && x.cfa_off == y.cfa_off &&
				   x.ra.how == y.ra.how && x.ra.off == y.ra.off &&
				   x.fp.how == y.fp.how && x.fp.off == y.fp.off));
}

static bool same_answer(const struct sf_table *a, const struct sf_table *b, uint64_t pc)
{
	return same_rule_at(a, b, false, pc);
}

/* The reference lookup over sections of 1 000 functions, every version
 * and source: the same FDE and rule, or the same error, as the
 * accelerated one at every pc, with a function whose row starts 5 bytes
 * in (SF_E_NO_FRE before it) and the text narrowed to functions 10 to
 * 949 (SF_E_FDE_TEXT). */
static void reference_many(void)
{
	uint32_t n = 1000, len[3], diff = 0, no_fre = 0, text = 0;
	struct sf_table t;
	struct place pl;

	len[0] = many_v1(many[0], n);
	many[0][28 + 17 * n + 3 * 17] = 5; /* FDE 17's row */
	bool encoded = open_way(&t, 0, many[0], len[0], &pl) &&
		       !sf_encode(&t, 2, true, V, many[1], sizeof many[1], &len[1]) &&
		       !sf_encode(&t, 3, false, V, many[2], sizeof many[2], &len[2]);
	for (int v = 0; v < 3 && encoded; v++)
		for (int way = 0; way < 3; way++) {
			open_way(&t, way, many[v], len[v], &pl);
			uint64_t first = t.src.vaddr + F0;
			t.text_start = first + 16 * 10;
			t.text_end = first + 16 * 950;
			for (uint64_t pc = first - 20; pc < first + 16 * n + 40; pc++) {
				struct sf_fde a, b;
				int ea = sf_fde_find(&t, pc, &a), eb = sf_plain_fde_find(&t, pc, &b);
				struct sf_rule r;
				int er = sf_plain_find_rule(&t, pc, &r);
				diff += !same_rule_at(&t, &t, true, pc) || ea != eb ||
					(!ea && (a.index != b.index || a.start != b.start));
				no_fre += er == SF_E_NO_FRE;
				text += er == SF_E_FDE_TEXT;
			}
		}
	char name[200];
	snprintf(name, sizeof name, "reference lookup on 1 000 functions, v1-v3, three sources: "
		 "the accelerated one's FDE and rule at every pc, SF_E_NO_FRE and SF_E_FDE_TEXT "
		 "too (%u differ)", diff);
	ok(encoded && diff == 0 && no_fre == 9 * 5 && text == 9 * 60 * 12, name);
}

/* Builds t's index of an entry per FDE into mem a read at a time:
 * the error of the last part, the parts it took in *parts; false in
 * *early if the index was set before the last read. */
static int build_by_one(struct sf_table *t, void *mem, uint32_t *parts, bool *early)
{
	int err = sf_fde_index_begin(t, mem, sf_fde_index_size(t, t->num_fdes));
	for (*parts = 0, *early = false; !err || err == SF_E_BUDGET; ++*parts) {
		uint32_t work = 1;
		err = sf_fde_index_more(t, mem, &work);
		if (err == SF_E_BUDGET)
			*early |= t->fde_index != NULL || work != 0;
		else
			return (void)++*parts, err;
	}
	return err;
}

/* The build in parts (the kernel's, a chunk a walk) reads the top level
 * only (a start a block: sframe/lazy_index.h): the index is set with the
 * last and not before, answers as one built at once, its block filled
 * once by the first lookup; an FDE whose start decreases is caught by
 * the first lookup in its block, which stays unfilled. */
static void in_parts(void)
{
	static uint64_t mem[64];
	struct sf_table plain = open_vec("v2-plt-pcrel"), t = plain;
	uint32_t parts, diff = 0;
	bool early;
	int err = build_by_one(&t, mem, &parts, &early);
	bool unfilled = !err && t.fde_index->lz.fills == 0 && !t.fde_index->lz.filled[0];
	for (uint64_t pc = V - 8192; pc < V + 8192 && !err; pc++)
		diff += !same_answer(&plain, &t, pc);
	char name[200];
	snprintf(name, sizeof name, "FDE index in parts of one read: %u parts for %u FDEs, set "
		 "with the last, same answers (%u differ), its block filled once (%u)", parts,
		 plain.num_fdes, diff, err ? 0 : t.fde_index->lz.fills);
	ok(!err && parts == lz_blocks(plain.num_fdes) && plain.num_fdes >= 2 && !early &&
	   t.fde_index == (void *)mem && unfilled && diff == 0 && t.fde_index->lz.fills == 1 &&
	   t.fde_index->lz.filled[0], name);

	/* The last FDE's start field made smaller than the one before. */
	t = open_vec("v1-sorted-fp");
	struct sf_fde last;
	struct sf_rule r;
	uint8_t *field = (uint8_t *)t.src.base + t.fdes + (t.num_fdes - 1) * t.fde_size;
	int got = sf_fde_get(&t, t.num_fdes - 1, &last);
	field[1] -= 0x40;
	err = build_by_one(&t, mem, &parts, &early);
	if (!got && !err)
		got = sf_find_rule(&t, last.start, &r);
	field[1] += 0x40;
	ok(!err && got == SF_E_FDE_UNSORTED && t.fde_index->lz.fills == 0 &&
	   !t.fde_index->lz.filled[0],
	   "a start that decreases: the build of the top level does not read it, the first "
	   "lookup in its block does: SF_E_FDE_UNSORTED, the block not filled");
}

/* The FDE index: refused misaligned, short or unsorted; with one
 * sample (every FDE in one block), two, or one per FDE, the same answers
 * as without it; and a sampled FDE whose start changed after the build
 * is caught. */
static void sampled(void)
{
	static uint64_t mem[64];
	const char *sorted[] = { "v1-sorted-fp", "v1-plt", "v2-plt-pcrel" };
	for (unsigned v = 0; v < sizeof sorted / sizeof sorted[0]; v++) {
		struct sf_table plain = open_vec(sorted[v]), t = plain;
		bool refused = sf_fde_index_build(&t, (uint8_t *)mem + 4, sizeof mem - 8) == SF_E_INVAL &&
			       sf_fde_index_build(&t, mem, sizeof(struct sf_fde_index)) == SF_E_NOSPACE &&
			       !t.fde_index;
		uint32_t diff = 0, built = 0;
		for (uint32_t max = 1; max <= 3; max++) {
			t = plain;
			uint64_t need = sf_fde_index_size(&t, max);
			built += need <= sizeof mem && !sf_fde_index_build(&t, mem, need) &&
				 t.fde_index == (void *)mem &&
				 t.fde_index->n == (plain.num_fdes < max ? plain.num_fdes : max);
			for (uint64_t pc = V - 8192; pc < V + 8192; pc++)
				diff += !same_answer(&plain, &t, pc);
		}
		char name[128];
		snprintf(name, sizeof name, "FDE index on %s: refused misaligned and short, "
			 "built with 1-3 samples, same answers (%u differ)", sorted[v], diff);
		ok(refused && built == 3 && diff == 0, name);
	}
	struct sf_table t = open_vec("v1-none-addr4");
	ok(sf_fde_index_build(&t, mem, sizeof mem) == SF_E_FDE_UNSORTED && !t.fde_index,
	   "no FDE index for a section without sorted FDEs");

	/* FDE 1's start field moved after its block was filled (a lookup
	 * in FDE 0): the lookup sees it. */
	t = open_vec("v1-sorted-fp");
	struct sf_fde fde, fde0;
	struct sf_rule r;
	ok(!sf_fde_index_build(&t, mem, sf_fde_index_size(&t, 8)) && !sf_fde_get(&t, 1, &fde) &&
	   !sf_fde_get(&t, 0, &fde0) && !sf_find_rule(&t, fde0.start, &r),
	   "v1-sorted-fp: sampled, FDE 1 read");
	uint8_t *field = (uint8_t *)t.src.base + t.fdes + t.fde_size;
	field[0] ^= 1;
	ok(sf_find_rule(&t, fde.start + 2, &r) == SF_E_FDE_UNSORTED,
	   "a sampled FDE whose start changed since the build: SF_E_FDE_UNSORTED");
	field[0] ^= 1;
	ok(!sf_find_rule(&t, fde.start + 2, &r), "... and found again once restored");
	in_parts();
}

/* The same quick rule from sf_find_quick as from sf_find_rule and
 * sf_quick_of on the same table (the FDE index gives the answers
 * of the plain one: sampled()), with the same charge to the allowance
 * (SF_E_END where the rule's RA is undefined: the outermost row);
 * SF_E_NOT_QUICK only where the rule has another shape, or its FDE is
 * one sf_find_quick leaves to sf_find_rule (PC mask, flexible, signal). */
static bool same_quick(const struct sf_table *plain, const struct sf_table *t, uint64_t pc,
		       bool *answered)
{
	struct sf_rule r;
	struct sf_quick want, got;
	struct sf_fde f;
	uint32_t w1 = 1000, w2 = 1000;
	int e2 = sf_find_quick(t, pc, &got, &w2); /* first: it keeps pc's FDE itself */
	int e1 = sf_find_rule_bounded(t, pc, &r, &w1);
	bool quick = !e1 && sf_quick_of(t, &r, &want);
	*answered = e2 != SF_E_NOT_QUICK;
	if (e2 == SF_E_NOT_QUICK)
		return !quick || sf_fde_find(plain, pc, &f) || f.fde_type != SF_FDE_DEFAULT ||
		       f.pc_type != SF_PC_INC || f.signal;
	if (e2 == SF_E_END) /* the outermost row: RA undefined */
		return !e1 && r.ra.how == SF_UNDEFINED && w1 == w2;
	if (e1 || e2)
		return e1 == e2 && w1 == w2;
	return quick && w1 == w2 && want.cfa_off == got.cfa_off && want.ra_off == got.ra_off &&
	       want.fp_off == got.fp_off && want.cfa_fp == got.cfa_fp &&
	       want.fp_saved == got.fp_saved && want.strict == got.strict;
}

/* sf_find_quick on every pc of each sorted vector: the answers of the
 * whole lookup, from a fresh index and after sf_fde_index_read_all kept
 * every FDE; none without an entry per FDE; and a kept FDE is a
 * snapshot (its size changed in the section afterwards changes no
 * answer). */
static void quick(void)
{
	static uint64_t mem[256];
	const char *sorted[] = { "v1-sorted-fp", "v1-fixed-fp", "v1-aarch64", "v1-aarch64-ra-pad",
				 "v1-plt", "v2-plt-pcrel", "v3-flex-signal" };
	uint32_t answered = 0;
	for (unsigned v = 0; v < sizeof sorted / sizeof sorted[0]; v++) {
		struct sf_table plain = open_vec(sorted[v]), t = plain, all = plain;
		uint32_t diff = 0;
		bool built = !sf_fde_index_build(&t, mem, sf_fde_index_size(&t, t.num_fdes)) &&
			     t.fde_index->step == 1;
		for (uint64_t pc = V - 8192; pc < V + 8192; pc++) {
			bool a;
			diff += !same_quick(&plain, &t, pc, &a);
			answered += a;
		}
		bool read_all = !sf_fde_index_build(&all, mem + 128, sf_fde_index_size(&all, all.num_fdes)) &&
				!sf_fde_index_read_all(&all);
		uint32_t all_diff = 0;
		for (uint64_t pc = V - 8192; pc < V + 8192; pc++) {
			bool a;
			all_diff += !same_quick(&plain, &all, pc, &a);
		}
		char name[160];
		snprintf(name, sizeof name, "sf_find_quick on %s: the whole lookup's answer at "
			 "16384 pcs (%u differ; after sf_fde_index_read_all %u differ)", sorted[v],
			 diff, all_diff);
		ok(built && diff == 0 && read_all && all_diff == 0, name);
	}
	char name[80];
	snprintf(name, sizeof name, "... of which %u answered in one pass", answered);
	ok(answered > 1000, name);

	struct sf_table plain = open_vec("v1-sorted-fp"), t = plain;
	struct sf_quick q;
	uint32_t work = 1000;
	ok(sf_find_quick(&t, V - 4096 + 0x10, &q, &work) == SF_E_NOT_QUICK,
	   "sf_find_quick without a FDE index: SF_E_NOT_QUICK");
	ok(!sf_fde_index_build(&t, mem, sf_fde_index_size(&t, 1)) && t.fde_index->step > 1 &&
	   sf_find_quick(&t, V - 4096 + 0x10, &q, &work) == SF_E_NOT_QUICK,
	   "... nor with a sample for several FDEs");

	/* FDE 0's size field (bytes 4-7 of a v1 FDE) shrinks to 1 once kept. */
	t = plain;
	struct sf_rule r;
	ok(!sf_fde_index_build(&t, mem, sf_fde_index_size(&t, t.num_fdes)) &&
	   !sf_find_quick(&t, V - 4096 + 0x10, &q, &work), "v1-sorted-fp: FDE 0 kept");
	uint8_t *size = (uint8_t *)t.src.base + t.fdes + 4, saved = size[0];
	size[0] = 1;
	ok(!sf_find_rule(&t, V - 4096 + 0x10, &r) && !sf_find_quick(&t, V - 4096 + 0x10, &q, &work) &&
	   sf_find_rule(&plain, V - 4096 + 0x10, &r) == SF_E_NO_FDE,
	   "a kept FDE is a snapshot: a size changed since answers as before (without the index: no FDE)");
	size[0] = saved;
}

/* FDEs of size 0 (sframe/fde.c, "Functions of size 0"): accepted, and
 * never the answer. At every pc, each way of looking up over
 * v1-empty-functions (the search; the FDE index with one sample, two,
 * one per FDE; the reference lookup) gives the FDE (its start and size) and the rule
 * that v1-sorted-fp, the same two functions without them, gives, and
 * sf_find_quick what the whole lookup gives. A function of size 1 in
 * place of the one inside the first function is an overlap that they
 * do not hide from sf_validate nor from the lookups. */
static void empty_functions(void)
{
	static uint64_t mem[2048];
	struct sf_table want = open_vec("v1-sorted-fp"), plain = open_vec("v1-empty-functions");
	struct sf_fde f;
	uint32_t zero = 0;

	for (uint32_t i = 0; i < plain.num_fdes; i++)
		zero += !sf_fde_get(&plain, i, &f) && f.size == 0;
	ok(plain.num_fdes == 7 && zero == 5 && !sf_validate(&plain),
	   "v1-empty-functions: 7 FDEs, 5 of size 0, validate");
	const char *ways[] = { "search", "FDE index of 1 sample", "FDE index of 2 samples",
			       "FDE index of an entry per FDE", "reference lookup" };
	for (uint32_t way = 0; way < 5; way++) {
		struct sf_table t = plain;
		bool built = way == 0 ||
			     way == 4 ||
			     !sf_fde_index_build(&t, mem, sf_fde_index_size(&t, way == 3 ? 7 : way));
		uint32_t diff = 0, found = 0, quick_diff = 0;
		for (uint64_t pc = V - 8192; pc < V + 8192; pc++) {
			struct sf_fde a, b;
			int ea = sf_fde_find(&want, pc, &a);
			int eb = way == 4 ? sf_plain_fde_find(&t, pc, &b) : sf_fde_find(&t, pc, &b);
			diff += !same_rule_at(&want, &t, way == 4, pc) || ea != eb ||
				(!ea && (a.start != b.start || a.size != b.size));
			found += !ea;
			bool answered;
			quick_diff += way == 3 && !same_quick(&want, &t, pc, &answered);
		}
		char name[160];
		snprintf(name, sizeof name, "v1-empty-functions, %s: the FDE and rule of v1-sorted-fp "
			 "at 16384 pcs (%u differ, %u in a function; sf_find_quick: %u differ)",
			 ways[way], diff, found, quick_diff);
		ok(built && diff == 0 && found == 0x340 && quick_diff == 0, name);
	}

	/* FDE 3 (v1: 17 bytes each after the 28-byte header; the size at 4)
	 * from 0 to 1: inside FDE 1's function. */
	struct sf_table t = plain;
	struct sf_rule r;
	uint8_t *size = (uint8_t *)t.src.base + 28 + 3 * 17 + 4;
	size[0] = 1;
	bool refused = sf_validate(&t) == SF_E_FDE_OVERLAP &&
		       sf_find_rule(&t, V - 4096 + 0x10, &r) == SF_E_FDE_OVERLAP;
	bool indexed = !sf_fde_index_build(&t, mem, sf_fde_index_size(&t, 7)) &&
		       sf_find_rule(&t, V - 4096 + 0x10, &r) == SF_E_FDE_OVERLAP;
	size[0] = 0;
	ok(refused && indexed, "a function of size 1 inside another among those of size 0: "
	   "SF_E_FDE_OVERLAP from sf_validate, the search and the FDE index");
}

static void rules(void)
{
	struct sf_table t = open_vec("v1-aarch64");
	struct sf_fde fde;
	struct sf_rule r;

	ok(!sf_fde_get(&t, 0, &fde) && fde.pauth_key_b, "AArch64: FDE signed with key B");
	ok(!sf_find_rule(&t, V + 4, &r) && r.cfa_reg == 31 && r.cfa_off == 16 &&
	   where_is(&r.ra, SF_AT_CFA, -8) && where_is(&r.fp, SF_AT_CFA, -16) && r.mangled_ra,
	   "AArch64: RA and FP from the row, RA signed");
	ok(!sf_find_rule(&t, V + 8, &r) && r.cfa_reg == 29, "AArch64: FP-based CFA is x29");
	ok(!sf_find_rule(&t, V, &r) && r.ra.how == SF_SAME,
	   "AArch64: no RA offset means RA is still in the link register");

	t = open_vec("v1-aarch64-ra-pad");
	ok(!sf_find_rule(&t, V + 4, &r) && r.ra.how == SF_SAME && where_is(&r.fp, SF_AT_CFA, -16),
	   "AArch64: an RA word of 0 is padding: RA in the link register, FP from the next word");

	t = open_vec("v1-fixed-fp");
	ok(!sf_find_rule(&t, V, &r) && where_is(&r.fp, SF_AT_CFA, -16),
	   "header's fixed FP offset applies when the row has none");

	t = open_vec("v3-flex-signal");
	ok(!sf_find_rule(&t, V - 224, &r) && r.cfa_reg == 7 && r.cfa_off == 8 && !r.cfa_deref &&
	   where_is(&r.ra, SF_AT_CFA, -8) && where_is(&r.fp, SF_AT_CFA, -16),
	   "flex: CFA = rsp+8, RA and FP at CFA slots");
	ok(!sf_find_rule(&t, V - 224 + 4, &r) && r.cfa_reg == 10 && r.cfa_deref && r.cfa_off == 0 &&
	   where_is(&r.ra, SF_AT_CFA, -8) && where_is(&r.fp, SF_AT_CFA, -16),
	   "flex: CFA = *(r10), padding leaves RA at the fixed slot");
	ok(!sf_find_rule(&t, V - 224 + 9, &r) && r.ra.how == SF_UNDEFINED,
	   "a row without data words is the outermost frame");
	ok(!sf_find_rule(&t, V - 160, &r) && r.signal, "v3 signal-frame bit");
}

static void steps(void)
{
	struct sf_table t = open_vec("v1-sorted-fp");
	uint64_t fn = V - 4096;
	struct sf_frame f;

	memset(stack, 0, sizeof stack);
	stack[0] = 0x401234; /* return address at the entry sp */
	f = (struct sf_frame){ fn, STACK, 0xabc, false };
	ok(!sf_step(&t, &f, read_stack, NULL) && f.pc == 0x401234 && f.sp == STACK + 8 &&
	   f.fp == 0xabc && f.caller, "step at function entry: RA at sp, fp unchanged");

	stack[8] = 0x7fff0100; /* saved rbp at CFA-16 */
	stack[9] = 0x405678;   /* RA at CFA-8 */
	f = (struct sf_frame){ fn + 4, STACK + 0x30, STACK + 0x40, false };
	ok(!sf_step(&t, &f, read_stack, NULL) && f.pc == 0x405678 && f.sp == STACK + 0x50 &&
	   f.fp == 0x7fff0100, "step in an rbp frame: CFA = rbp+16, rbp restored");

	f = (struct sf_frame){ fn + 0x40, STACK, 0, true };
	ok(!sf_step(&t, &f, read_stack, NULL) && f.pc == 0x401234,
	   "a return address just past the function's end is looked up at pc-1");
	f = (struct sf_frame){ fn + 0x40, STACK, 0, false };
	ok(sf_step(&t, &f, read_stack, NULL) == SF_E_NO_FDE, "... but not for the first frame");

	f = (struct sf_frame){ fn, STACK + sizeof stack, 0, false };
	ok(sf_step(&t, &f, read_stack, NULL) == SF_E_STACK_READ, "a faulting stack read ends the step");

	stack[0] = 0;
	f = (struct sf_frame){ fn, STACK, 0, false };
	ok(sf_step(&t, &f, read_stack, NULL) == SF_E_END, "return address 0 ends the walk");

	f = (struct sf_frame){ V - 2048 + 0x2ff, STACK + 0x100, STACK, false };
	ok(sf_step(&t, &f, read_stack, NULL) == SF_E_BAD_FRAME, "a CFA below sp is refused");

	t = open_vec("v3-flex-signal");
	f = (struct sf_frame){ V - 224 + 4, STACK, STACK, false };
	ok(sf_step(&t, &f, read_stack, NULL) == SF_E_REG, "flex rule on r10: SF_E_REG");
	uint64_t regs[17] = { 0 };
	regs[10] = STACK + 0x20;  /* r10 points at the CFA's slot */
	stack[4] = STACK + 0x60;  /* *(r10) = CFA */
	stack[10] = 0x7fff0200;   /* FP at CFA-16 */
	stack[11] = 0x40aaaa;     /* RA at CFA-8 */
	ok(!sf_step_first(&t, &f, regs, 17, read_stack, NULL) && f.pc == 0x40aaaa &&
	   f.sp == STACK + 0x60 && f.fp == 0x7fff0200 && f.caller,
	   "flex: the interrupted frame's r10 gives the CFA (sf_step_first)");
	f = (struct sf_frame){ V - 224 + 5, STACK, STACK, true };
	ok(sf_step_first(&t, &f, regs, 17, read_stack, NULL) == SF_E_REG,
	   "... a caller's frame has no r10 (SF_E_REG)");
	f = (struct sf_frame){ V - 224 + 4, STACK, STACK, false };
	ok(sf_step_first(&t, &f, regs, 10, read_stack, NULL) == SF_E_REG,
	   "... nor has a first frame with fewer registers");
	f = (struct sf_frame){ V - 224 + 9, STACK, STACK, false };
	ok(sf_step(&t, &f, read_stack, NULL) == SF_E_END, "outermost row: SF_E_END");
	f = (struct sf_frame){ V - 160, STACK, STACK, false };
	ok(sf_step(&t, &f, read_stack, NULL) == SF_E_SIGNAL, "signal frame: SF_E_SIGNAL");
}

static void encoding(void)
{
	struct sf_table t = open_vec("v3-flex-signal");
	uint8_t out[512];
	uint32_t len = 0, need = 0;

	ok(sf_encode(&t, 2, true, V, out, sizeof out, &len) == SF_E_UNSUPPORTED,
	   "flex FDEs cannot be written as version 2");
	t = open_vec("v1-sorted-fp");
	ok(sf_encode(&t, 1, true, V, out, sizeof out, &len) == SF_E_UNSUPPORTED,
	   "version 1 has no PC-relative starts");
	ok(sf_encode(&t, 3, true, V, NULL, 0, &need) == SF_E_NOSPACE && need > 28 &&
	   sf_encode(&t, 3, true, V, out, need - 1, &len) == SF_E_NOSPACE &&
	   sf_encode(&t, 3, true, V, out, need, &len) == SF_OK && len == need,
	   "encoder reports the size it needs and never writes past cap");
}

int main(void)
{
	lookups();
	searches();
	hostile_searches();
	reference_many();
	sampled();
	quick();
	empty_functions();
	rules();
	steps();
	encoding();
	printf("1..%d\n", tests);
	return failed != 0;
}
