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

static uint8_t bytes[9][4096];

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

/* The same rule (or the same error) at pc, with and without the index. */
static bool same_answer(const struct sf_table *a, const struct sf_table *b, uint64_t pc)
{
	struct sf_rule x, y;
	int ex = sf_find_rule(a, pc, &x), ey = sf_find_rule(b, pc, &y);
	return ex == ey && (ex || (x.cfa_reg == y.cfa_reg && x.cfa_off == y.cfa_off &&
				   x.ra.how == y.ra.how && x.ra.off == y.ra.off &&
				   x.fp.how == y.fp.how && x.fp.off == y.fp.off));
}

/* The optional index: in memory the caller gives, refused when short or
 * misaligned or the section is unsorted, and every lookup over the span
 * of each sorted vector gives the answer it gives without it. */
static void indexed(void)
{
	static uint64_t mem[1024];
	const char *sorted[] = { "v1-sorted-fp", "v1-plt", "v2-plt-pcrel" };
	for (unsigned v = 0; v < sizeof sorted / sizeof sorted[0]; v++) {
		struct sf_table plain = open_vec(sorted[v]), t = plain;
		uint64_t need = sf_index_size(&t);
		bool refused = sf_index_build(&t, mem, need - 1) == SF_E_NOSPACE &&
			       sf_index_build(&t, (uint8_t *)mem + 4, need) == SF_E_INVAL &&
			       !t.index;
		bool built = need <= sizeof mem && !sf_index_build(&t, mem, need) &&
			     t.index == mem;
		uint32_t diff = 0;
		for (uint64_t pc = V - 8192; pc < V + 8192; pc++)
			diff += !same_answer(&plain, &t, pc);
		char name[128];
		snprintf(name, sizeof name, "index on %s: refused short and misaligned, "
			 "built, same answers at 16384 pcs (%u differ)", sorted[v], diff);
		ok(refused && built && diff == 0, name);
	}
	struct sf_table t = open_vec("v1-none-addr4");
	ok(sf_index_build(&t, mem, sizeof mem) == SF_E_FDE_UNSORTED && !t.index,
	   "no index for a section without sorted FDEs");
}

/* The sampled index: refused misaligned, short or unsorted; with one
 * sample (every FDE in one block), two, or one per FDE, the same answers
 * as without it; and a sampled FDE whose start changed after the build
 * is caught. */
static void sampled(void)
{
	static uint64_t mem[64];
	const char *sorted[] = { "v1-sorted-fp", "v1-plt", "v2-plt-pcrel" };
	for (unsigned v = 0; v < sizeof sorted / sizeof sorted[0]; v++) {
		struct sf_table plain = open_vec(sorted[v]), t = plain;
		bool refused = sf_sample_build(&t, (uint8_t *)mem + 4, sizeof mem - 8) == SF_E_INVAL &&
			       sf_sample_build(&t, mem, sizeof(struct sf_sample)) == SF_E_NOSPACE &&
			       !t.sample;
		uint32_t diff = 0, built = 0;
		for (uint32_t max = 1; max <= 3; max++) {
			t = plain;
			uint64_t need = sf_sample_size(&t, max);
			built += need <= sizeof mem && !sf_sample_build(&t, mem, need) &&
				 t.sample == (void *)mem &&
				 t.sample->n == (plain.num_fdes < max ? plain.num_fdes : max);
			for (uint64_t pc = V - 8192; pc < V + 8192; pc++)
				diff += !same_answer(&plain, &t, pc);
		}
		char name[128];
		snprintf(name, sizeof name, "sampled index on %s: refused misaligned and short, "
			 "built with 1-3 samples, same answers (%u differ)", sorted[v], diff);
		ok(refused && built == 3 && diff == 0, name);
	}
	struct sf_table t = open_vec("v1-none-addr4");
	ok(sf_sample_build(&t, mem, sizeof mem) == SF_E_FDE_UNSORTED && !t.sample,
	   "no sampled index for a section without sorted FDEs");

	/* FDE 1's start field moved after the build: the lookup sees it. */
	t = open_vec("v1-sorted-fp");
	struct sf_fde fde;
	ok(!sf_sample_build(&t, mem, sf_sample_size(&t, 8)) && !sf_fde_get(&t, 1, &fde),
	   "v1-sorted-fp: sampled, FDE 1 read");
	uint8_t *field = (uint8_t *)t.src.base + t.fdes + t.fde_size;
	field[0] ^= 1;
	struct sf_rule r;
	ok(sf_find_rule(&t, fde.start + 2, &r) == SF_E_FDE_UNSORTED,
	   "a sampled FDE whose start changed since the build: SF_E_FDE_UNSORTED");
	field[0] ^= 1;
	ok(!sf_find_rule(&t, fde.start + 2, &r), "... and found again once restored");
}

/* The same quick rule from sf_find_quick as from sf_find_rule and
 * sf_quick_of on the same table (the sampled index gives the answers
 * of the plain one: sampled()), with the same charge to the allowance;
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
	if (e1 || e2)
		return e1 == e2 && w1 == w2;
	return quick && w1 == w2 && want.cfa_off == got.cfa_off && want.ra_off == got.ra_off &&
	       want.fp_off == got.fp_off && want.cfa_fp == got.cfa_fp &&
	       want.fp_saved == got.fp_saved && want.strict == got.strict;
}

/* sf_find_quick on every pc of each sorted vector: the answers of the
 * whole lookup, from a fresh index and after sf_sample_read_all kept
 * every FDE; none without a sample per FDE; and a kept FDE is a
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
		bool built = !sf_sample_build(&t, mem, sf_sample_size(&t, t.num_fdes)) &&
			     t.sample->step == 1;
		for (uint64_t pc = V - 8192; pc < V + 8192; pc++) {
			bool a;
			diff += !same_quick(&plain, &t, pc, &a);
			answered += a;
		}
		bool read_all = !sf_sample_build(&all, mem + 128, sf_sample_size(&all, all.num_fdes)) &&
				!sf_sample_read_all(&all);
		uint32_t all_diff = 0;
		for (uint64_t pc = V - 8192; pc < V + 8192; pc++) {
			bool a;
			all_diff += !same_quick(&plain, &all, pc, &a);
		}
		char name[160];
		snprintf(name, sizeof name, "sf_find_quick on %s: the whole lookup's answer at "
			 "16384 pcs (%u differ; after sf_sample_read_all %u differ)", sorted[v],
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
	   "sf_find_quick without a sampled index: SF_E_NOT_QUICK");
	ok(!sf_sample_build(&t, mem, sf_sample_size(&t, 1)) && t.sample->step > 1 &&
	   sf_find_quick(&t, V - 4096 + 0x10, &q, &work) == SF_E_NOT_QUICK,
	   "... nor with a sample for several FDEs");

	/* FDE 0's size field (bytes 4-7 of a v1 FDE) shrinks to 1 once kept. */
	t = plain;
	struct sf_rule r;
	ok(!sf_sample_build(&t, mem, sf_sample_size(&t, t.num_fdes)) &&
	   !sf_find_quick(&t, V - 4096 + 0x10, &q, &work), "v1-sorted-fp: FDE 0 kept");
	uint8_t *size = (uint8_t *)t.src.base + t.fdes + 4, saved = size[0];
	size[0] = 1;
	ok(!sf_find_rule(&t, V - 4096 + 0x10, &r) && !sf_find_quick(&t, V - 4096 + 0x10, &q, &work) &&
	   sf_find_rule(&plain, V - 4096 + 0x10, &r) == SF_E_NO_FDE,
	   "a kept FDE is a snapshot: a size changed since answers as before (without the index: no FDE)");
	size[0] = saved;
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
	indexed();
	sampled();
	quick();
	rules();
	steps();
	encoding();
	printf("1..%d\n", tests);
	return failed != 0;
}
