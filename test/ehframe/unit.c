/*
 * What the library answers on hand-built sections whose meaning is known:
 * prologues and epilogues as gcc describes them, remember/restore_state,
 * restore to the CIE's rules, every register rule sf_rule holds, factored
 * and signed offsets, long advances, augmentations (personality, LSDA,
 * signal frames), CIE version 3, table searches over many functions and in
 * several encodings, the instruction budget; then the malformed sections
 * (malformed.c). Each answer is asked from a heap copy and through a reader
 * (ways.c), which must agree and never read outside a section. Prints TAP.
 */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "build.h"

static int tests, failed;

void ok(bool cond, const char *fmt, ...)
{
	va_list ap;
	tests++;
	printf("%s %d - ", cond ? "ok" : "not ok", tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	failed += !cond;
}

#define BIG 100000 /* a budget no test here reaches */

static struct sec S;

static bool where_is(const struct sf_where *w, uint8_t how, int32_t off)
{
	return w->how == how && w->off == off;
}

/* The rule at pc is CFA = reg + off, RA and rbp as given. */
static bool rule_at(uint64_t pc, uint8_t reg, int32_t off, uint8_t ra, int32_t ra_off,
		    uint8_t fp, int32_t fp_off)
{
	struct sf_rule r;
	int err = lookup(&S, pc, &r, BIG);
	if (err) {
		printf("# 0x%llx: %s\n", (unsigned long long)pc, eh_strerror(err));
		return false;
	}
	return r.cfa_reg == reg && r.cfa_off == off && !r.cfa_deref &&
	       where_is(&r.ra, ra, ra_off) && where_is(&r.fp, fp, fp_off);
}

/* One function at 0x1000 with these instructions, and its header. */
static void one_function(const uint8_t *insns, uint32_t len, uint64_t size)
{
	sec_begin(&S);
	uint32_t off = put_fde(&S.f, 0, 0x1b, 0x1000, size, insns, len);
	sec_hdr(&S, 1, &off);
}

static void prologue(void)
{
	/* push rbp; mov rsp,rbp; ...; pop rbp; ret */
	static const uint8_t p[] = {
		0x41, 0x0e, 16, 0x86, 2,      /* +1: CFA rsp+16, rbp at CFA-16 */
		0x43, 0x0d, 6,                /* +4: CFA rbp+16 */
		0x02, 0x30, 0x0c, 7, 8, 0xc6, /* +0x34: CFA rsp+8, rbp restored */
	};
	one_function(p, sizeof p, 0x40);
	ok(rule_at(0x1000, 7, 8, SF_AT_CFA, -8, SF_SAME, 0), "entry: CFA rsp+8, RA at CFA-8 (the CIE)");
	ok(rule_at(0x1001, 7, 16, SF_AT_CFA, -8, SF_AT_CFA, -16) &&
	   rule_at(0x1003, 7, 16, SF_AT_CFA, -8, SF_AT_CFA, -16), "after push rbp: CFA rsp+16, rbp at CFA-16");
	ok(rule_at(0x1004, 6, 16, SF_AT_CFA, -8, SF_AT_CFA, -16) &&
	   rule_at(0x1033, 6, 16, SF_AT_CFA, -8, SF_AT_CFA, -16), "body: CFA rbp+16 (def_cfa_register)");
	ok(rule_at(0x1034, 7, 8, SF_AT_CFA, -8, SF_SAME, 0) &&
	   rule_at(0x103f, 7, 8, SF_AT_CFA, -8, SF_SAME, 0), "after pop: def_cfa and restore back to the CIE's rule");
	ok(lookup(&S, 0x1040, NULL, BIG) == EH_E_NO_FDE && lookup(&S, 0xfff, NULL, BIG) == EH_E_NO_FDE,
	   "pcs just past and just before the function: no FDE");

	struct eh_fde fde;
	ok(lookup_fde(&S, 0x1020, &fde) == EH_OK && fde.start == 0x1000 && fde.size == 0x40 &&
	   fde.off == 24 && fde.cie.code_align == 1 && fde.cie.data_align == -8 &&
	   fde.cie.ra_reg == 16 && fde.cie.fde_enc == 0x1b, "the FDE and its CIE as parsed");
}

static void remember_restore(void)
{
	/* An early return: remember, unwind for the ret, restore after it. */
	static const uint8_t p[] = {
		0x41, 0x0e, 16, 0x86, 2,
		0x44, 0x0a, 0x0e, 8, 0xc6,    /* +5: remember; CFA rsp+8; restore rbp */
		0x41, 0x0b,                   /* +6: restore_state */
		0x45, 0x0e, 8,                /* +0xb: CFA rsp+8 */
	};
	one_function(p, sizeof p, 0x10);
	ok(rule_at(0x1005, 7, 8, SF_AT_CFA, -8, SF_SAME, 0), "remember_state, then the epilogue's rule");
	ok(rule_at(0x1006, 7, 16, SF_AT_CFA, -8, SF_AT_CFA, -16) &&
	   rule_at(0x100a, 7, 16, SF_AT_CFA, -8, SF_AT_CFA, -16), "restore_state brings back CFA and rbp");
	ok(rule_at(0x100b, 7, 8, SF_AT_CFA, -8, SF_AT_CFA, -16), "later rows build on the restored one");
}

static void cie_rules(void)
{
	/* A CIE that saves rbp too; the FDE changes it, then restores it. */
	static const uint8_t ci[] = { 0x0c, 7, 8, 0x90, 1, 0x86, 2 };
	static const uint8_t p[] = { 0x41, 0x08, 6, 0x41, 0x06, 6, 0x41, 0x07, 6, 0x41, 0xc6 };
	struct cie_spec c = cie_gcc();
	c.insns = ci;
	c.insns_len = sizeof ci;
	S.f.n = 0, S.f.vaddr = FV;
	put_cie(&S.f, &c);
	uint32_t off = put_fde(&S.f, 0, 0x1b, 0x1000, 0x10, p, sizeof p);
	sec_hdr(&S, 1, &off);
	ok(rule_at(0x1000, 7, 8, SF_AT_CFA, -8, SF_AT_CFA, -16), "the CIE's rule for rbp");
	ok(rule_at(0x1001, 7, 8, SF_AT_CFA, -8, SF_SAME, 0), "same_value");
	ok(rule_at(0x1002, 7, 8, SF_AT_CFA, -8, SF_AT_CFA, -16), "restore_extended: back to the CIE's rule");
	ok(rule_at(0x1003, 7, 8, SF_AT_CFA, -8, SF_UNDEFINED, 0), "undefined rbp");
	ok(rule_at(0x1004, 7, 8, SF_AT_CFA, -8, SF_AT_CFA, -16), "restore (short form)");
}

static void register_rules(void)
{
	static const uint8_t p[] = {
		0x07, 16,                     /* +0: RA undefined: outermost */
		0x41, 0x09, 6, 3,             /* +1: rbp in rbx */
		0x41, 0x14, 6, 2,             /* +2: rbp = CFA-16 (val_offset) */
		0x41, 0x15, 6, 0x7d,          /* +3: rbp = CFA+24 (val_offset_sf -3) */
		0x41, 0x90, 1,                /* +4: RA back at CFA-8 */
	};
	struct sf_rule r;
	one_function(p, sizeof p, 0x10);
	ok(rule_at(0x1000, 7, 8, SF_UNDEFINED, 0, SF_SAME, 0), "undefined RA: the outermost frame");
	ok(lookup(&S, 0x1001, &r, BIG) == EH_OK && r.fp.how == SF_REG && r.fp.reg == 3 &&
	   r.fp.off == 0, "register: rbp's value is in rbx (SF_REG)");
	ok(rule_at(0x1002, 7, 8, SF_UNDEFINED, 0, SF_VAL_CFA, -16), "val_offset: SF_VAL_CFA");
	ok(rule_at(0x1003, 7, 8, SF_UNDEFINED, 0, SF_VAL_CFA, 24), "val_offset_sf, factored");
	ok(rule_at(0x1004, 7, 8, SF_AT_CFA, -8, SF_VAL_CFA, 24), "offset for the RA column");
}

static void signed_offsets(void)
{
	static const uint8_t p[] = {
		0x41, 0x12, 6, 0x7e,          /* +1: def_cfa_sf rbp, -2 * -8 = 16 */
		0x41, 0x13, 0x7c,             /* +2: def_cfa_offset_sf -4 * -8 = 32 */
		0x41, 0x11, 6, 0x03,          /* +3: rbp at 3 * -8 */
		0x41, 0x05, 16, 2,            /* +4: RA at 2 * -8 (offset_extended) */
		0x41, 0x11, 6, 0x7f,          /* +5: rbp at -1 * -8 = +8 */
	};
	one_function(p, sizeof p, 0x10);
	ok(rule_at(0x1001, 6, 16, SF_AT_CFA, -8, SF_SAME, 0), "def_cfa_sf: factored, signed");
	ok(rule_at(0x1002, 6, 32, SF_AT_CFA, -8, SF_SAME, 0), "def_cfa_offset_sf");
	ok(rule_at(0x1003, 6, 32, SF_AT_CFA, -8, SF_AT_CFA, -24), "offset_extended_sf");
	ok(rule_at(0x1004, 6, 32, SF_AT_CFA, -16, SF_AT_CFA, -24), "offset_extended");
	ok(rule_at(0x1005, 6, 32, SF_AT_CFA, -16, SF_AT_CFA, 8), "offset_extended_sf, positive");
}

static void long_advances(void)
{
	uint64_t row;
	static const uint8_t p[] = {
		0x03, 0x00, 0x03, 0x0e, 16,           /* +0x300 (advance_loc2) */
		0x00, 0x2e, 0x20,                     /* nop, GNU_args_size 32 */
		0x04, 0x00, 0x00, 0x01, 0x00, 0x0e, 24, /* +0x10300 (advance_loc4) */
	};
	one_function(p, sizeof p, 0x20000);
	ok(rule_at(0x12ff, 7, 8, SF_AT_CFA, -8, SF_SAME, 0) &&
	   rule_at(0x1300, 7, 16, SF_AT_CFA, -8, SF_SAME, 0), "advance_loc2");
	ok(rule_at(0x1300 + 0xffff, 7, 16, SF_AT_CFA, -8, SF_SAME, 0) &&
	   rule_at(0x11300, 7, 24, SF_AT_CFA, -8, SF_SAME, 0) &&
	   rule_at(0x20fff, 7, 24, SF_AT_CFA, -8, SF_SAME, 0), "nop and GNU_args_size skipped; advance_loc4");

	/* The row's start, through eh_rule_at. */
	struct eh_table t;
	struct eh_fde fde;
	struct sf_rule r;
	struct eh_src f = src_of(&S.f);
	uint32_t b = BIG;
	bool found = !eh_open_frame(&t, &f) && !eh_fde_at(&t, 24, &fde) &&
		     !eh_rule_at(&t, &fde, 0x12345, &r, &row, &b);
	ok(found && row == 0x11300, "eh_rule_at gives the row's start (0x%llx)",
	   found ? (unsigned long long)row : 0);

	/* An advance to the function's end itself is no error (CFI after
	 * its last instruction); one further is (test/ehframe/malformed.c). */
	static const uint8_t to_end[] = { 0x0e, 16, 0x50 }; /* def_cfa_offset 16, +0x10 */
	one_function(to_end, sizeof to_end, 0x10);
	ok(rule_at(0x100f, 7, 16, SF_AT_CFA, -8, SF_SAME, 0), "an advance to the function's end");
}

static void augmentations(void)
{
	/* gcc with a personality: "zPLR", personality indirect|pcrel|sdata4,
	 * LSDA and FDEs pcrel|sdata4; the FDE carries a 4-byte LSDA. */
	static const uint8_t aug[] = { 0x9b, 1, 2, 3, 4, 0x1b, 0x1b };
	static const uint8_t p[] = { 0x41, 0x0e, 16 };
	struct cie_spec c = cie_gcc();
	c.aug = "zPLR";
	c.augdata = aug;
	c.augdata_len = sizeof aug;
	S.f.n = 0, S.f.vaddr = FV;
	put_cie(&S.f, &c);
	uint32_t at = begin_entry(&S.f);
	put32(&S.f, S.f.n);
	put32(&S.f, (uint32_t)(0x1000 - (FV + S.f.n)));
	put32(&S.f, 0x10);
	putuleb(&S.f, 4);
	put32(&S.f, 0xdeadbeef); /* LSDA */
	putbytes(&S.f, p, sizeof p);
	end_entry(&S.f, at);
	sec_hdr(&S, 1, &at);
	struct eh_fde fde;
	ok(lookup_fde(&S, 0x1000, &fde) == EH_OK && fde.cie.lsda_enc == 0x1b && fde.cie.fde_enc == 0x1b &&
	   rule_at(0x1001, 7, 16, SF_AT_CFA, -8, SF_SAME, 0), "zPLR: personality and LSDA skipped");

	/* A signal trampoline's CIE ("zRS"), in version 3 (ULEB128 column). */
	c = cie_gcc();
	c.aug = "zRS";
	c.version = 3;
	S.f.n = 0;
	put_cie(&S.f, &c);
	at = put_fde(&S.f, 0, 0x1b, 0x1000, 0x10, p, sizeof p);
	sec_hdr(&S, 1, &at);
	struct sf_rule r;
	ok(lookup(&S, 0x1001, &r, BIG) == EH_OK && r.signal && r.cfa_off == 16,
	   "zRS, version 3: the rule says signal frame");
	ok(lookup_fde(&S, 0x1000, &fde) == EH_OK && fde.cie.version == 3 && fde.cie.ra_reg == 16,
	   "version 3: return-address column as ULEB128");

	/* FDE addresses as absptr and as udata4 ('R' 0x00, 0x03). */
	uint8_t encs[] = { 0x00, 0x03 };
	for (int i = 0; i < 2; i++) {
		c = cie_gcc();
		c.fde_enc = encs[i];
		S.f.n = 0;
		put_cie(&S.f, &c);
		at = put_fde(&S.f, 0, encs[i], 0x1000, 0x10, p, sizeof p);
		put_hdr(&S.h, FV, 1, (const uint64_t[]){ 0x1000 }, &at);
		ok(rule_at(0x1001, 7, 16, SF_AT_CFA, -8, SF_SAME, 0) &&
		   lookup(&S, 0x1010, NULL, BIG) == EH_E_NO_FDE, "FDE addresses encoded 0x%02x", encs[i]);
	}
}

/* n functions of 16 bytes, 32 apart from 0x1000; function i's body has
 * CFA offset 8 (i + 1), so that a lookup shows which FDE it found. */
#define MANY 300
static uint32_t many_off[MANY];

static void many(void)
{
	sec_begin(&S);
	for (uint32_t i = 0; i < MANY; i++) {
		struct buf p = { .n = 0 };
		put8(&p, 0x41);
		put8(&p, 0x0e);
		putuleb(&p, 8 * (i + 1));
		many_off[i] = put_fde(&S.f, 0, 0x1b, 0x1000 + 32 * i, 16, p.b, p.n);
	}
	sec_hdr(&S, MANY, many_off);
}

static void searches(void)
{
	many();
	unsigned wrong = 0, pcs = 0;
	for (uint64_t pc = 0xf00; pc < 0x1000 + 32 * MANY + 64; pc++, pcs++) {
		struct sf_rule r;
		int err = lookup(&S, pc, &r, BIG);
		uint64_t i = (pc - 0x1000) / 32, in = (pc - 0x1000) % 32;
		bool inside = pc >= 0x1000 && i < MANY && in < 16;
		if (!inside)
			wrong += err != EH_E_NO_FDE;
		else
			wrong += err || r.cfa_off != (in ? (int32_t)(8 * (i + 1)) : 8);
	}
	ok(wrong == 0, "%d functions: each of %u pcs finds its function, or none in the gaps", MANY, pcs);
	ok(check_table(&S) == EH_OK, "eh_check_table: %d entries sorted, each naming its FDE", MANY);
	uint32_t n;
	int err = walk(&S, &n);
	ok(err == EH_E_END && n == MANY, "the walk finds %u FDEs, then the end", n);
	put32(&S.f, 0); /* the terminator ld writes */
	err = walk(&S, &n);
	ok(err == EH_E_END && n == MANY, "... and stops at a zero terminator");

	/* The same table in other fixed-size encodings. */
	static const uint8_t encs[] = { 0x03, 0x1b, 0x04, 0x00, 0x0b };
	for (unsigned e = 0; e < sizeof encs; e++) {
		struct buf *h = &S.h;
		h->n = 0;
		put8(h, 1), put8(h, 0x1b), put8(h, 0x03), put8(h, encs[e]);
		put32(h, (uint32_t)(FV - (HV + 4)));
		put32(h, MANY);
		for (uint32_t i = 0; i < MANY; i++) {
			uint64_t v[2] = { 0x1000 + 32 * i, FV + many_off[i] };
			for (int k = 0; k < 2; k++) {
				uint64_t x = v[k];
				if ((encs[e] & 0x70) == 0x10)
					x -= HV + h->n;
				if ((encs[e] & 0x0f) == 0x03 || (encs[e] & 0x0f) == 0x0b)
					put32(h, (uint32_t)x);
				else
					put64(h, x);
			}
		}
		wrong = 0;
		for (uint64_t pc = 0x1000; pc < 0x1000 + 32 * MANY; pc += 7) {
			struct sf_rule r;
			int err = lookup(&S, pc, &r, BIG);
			bool inside = (pc - 0x1000) % 32 < 16;
			wrong += inside ? err != EH_OK : err != EH_E_NO_FDE;
		}
		ok(wrong == 0 && check_table(&S) == EH_OK, "search table encoded 0x%02x", encs[e]);
	}
}

static void expressions(void)
{
	static const uint8_t p[] = {
		0x10, 12, 2, 0x77, 0x00,            /* +0: r12 by expression: not ours to care */
		0x41, 0x10, 6, 3, 0x76, 0x00, 0x06, /* +1: rbp by breg6 0; deref */
		0x41, 0x86, 2,                      /* +2: rbp at CFA-16 again */
		0x41, 0x0f, 2, 0x77, 0x08,          /* +3: CFA by breg7 8 (no deref) */
		0x41, 0x0f, 3, 0x76, 0x78, 0x06,    /* +4: CFA by breg6 -8; deref */
		0x10, 6, 2, 0x76, 0x00,             /*     and rbp saved at breg6 0 */
	};
	struct sf_rule r;
	one_function(p, sizeof p, 0x10);
	ok(rule_at(0x1000, 7, 8, SF_AT_CFA, -8, SF_SAME, 0), "an expression for r12 is skipped");
	ok(lookup(&S, 0x1001, NULL, BIG) == EH_E_EXPRESSION,
	   "another expression for rbp: EH_E_EXPRESSION");
	ok(rule_at(0x1002, 7, 8, SF_AT_CFA, -8, SF_AT_CFA, -16), "... until a later rule replaces it");
	ok(lookup(&S, 0x1003, NULL, BIG) == EH_E_EXPRESSION,
	   "def_cfa_expression of another shape: EH_E_EXPRESSION");
	/* gcc's stack realignment (DRAP): the CFA loaded, rbp at rbp + 0. */
	ok(lookup(&S, 0x1004, &r, BIG) == EH_OK && r.cfa_deref && r.cfa_reg == 6 &&
	   r.cfa_off == -8 && r.fp.how == SF_AT_REG && r.fp.reg == 6 && r.fp.off == 0,
	   "breg6 -8; deref: a loaded CFA, and breg6 0: rbp saved at rbp");
}

static void budget(void)
{
	/* CIE: 2 instructions and 2 nops of padding; FDE: 6 to the last row. */
	static const uint8_t p[] = { 0x41, 0x0e, 16, 0x41, 0x0e, 24, 0x41, 0x0e, 32 };
	one_function(p, sizeof p, 0x10);
	struct eh_table t;
	struct eh_src h = src_of(&S.h), f = src_of(&S.f);
	struct sf_rule r;
	uint32_t b = 10;
	ok(!eh_open(&t, &h, &f) && eh_find_rule(&t, 0x1003, &r, &b) == EH_OK && b == 0 &&
	   r.cfa_off == 32, "10 instructions to the last row: a budget of 10 suffices, all spent");
	b = 9;
	ok(eh_find_rule(&t, 0x1003, &r, &b) == EH_E_BUDGET, "a budget of 9: EH_E_BUDGET");
	b = 5;
	ok(eh_find_rule(&t, 0x1000, &r, &b) == EH_OK && b == 0 && r.cfa_off == 8,
	   "the first row costs the CIE's 4 and the advance that passes pc");
}

static void not_expressible(void)
{
	struct buf p = { .n = 0 };
	put8(&p, 0x0c), put8(&p, 7), putuleb(&p, 1ull << 33);     /* +0: CFA rsp + 2^33 */
	put8(&p, 0x41), put8(&p, 0x0c), putuleb(&p, 300), put8(&p, 8); /* +1: CFA r300+8 */
	put8(&p, 0x41), put8(&p, 0x0c), put8(&p, 7), put8(&p, 8);
	put8(&p, 0x09), put8(&p, 6), putuleb(&p, 300);             /* +2: rbp in r300 */
	put8(&p, 0x41), put8(&p, 0x0c), put8(&p, 10), put8(&p, 0); /* +3: CFA r10 (DRAP) */
	put8(&p, 0x86), put8(&p, 2);
	one_function(p.b, p.n, 0x10);
	ok(lookup(&S, 0x1000, NULL, BIG) == EH_E_NOT_EXPRESSIBLE, "CFA offset past 32 bits: not expressible");
	ok(lookup(&S, 0x1001, NULL, BIG) == EH_E_NOT_EXPRESSIBLE, "CFA register 300: not expressible");
	ok(lookup(&S, 0x1002, NULL, BIG) == EH_E_NOT_EXPRESSIBLE, "rbp in register 300: not expressible");
	ok(rule_at(0x1003, 10, 0, SF_AT_CFA, -8, SF_AT_CFA, -16),
	   "CFA in r10 is expressible (the step decides whether it knows r10)");
}

int main(void)
{
	prologue();
	remember_restore();
	cie_rules();
	register_rules();
	signed_offsets();
	long_advances();
	augmentations();
	searches();
	expressions();
	budget();
	not_expressible();
	malformed();
	ok(oob_reads == 0, "no read outside a section, in any test (%u)", oob_reads);
	ok(way_mismatches == 0, "heap copy and reader gave the same answers (%u mismatches)",
	   way_mismatches);
	printf("1..%d\n", tests);
	return failed != 0;
}
