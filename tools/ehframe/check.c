/*
 * ehframe check FILE...: at every pc that an FDE of FILE covers, the rule
 * our library gives (looked up through .eh_frame_hdr when the file has
 * one) against the one elfutils' libdw reads from the same CFI. libdw's
 * answers are DWARF location expressions; the simple shapes it builds for
 * register rules are turned back into struct sf_rule and compared field by
 * field. A rule we refuse on purpose (expressions, instructions we do not
 * run, rules sf_rule cannot hold) is counted by reason, not as a
 * difference; any other error of ours means damaged input.
 */
#include <dwarf.h>
#include <elfutils/libdw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"
#include "input.h"

/* Differences printed per file before the rest are only counted. */
#define SHOW_DIFFS 10

struct counts {
	uint64_t fdes, pcs, agree, differ, libdw_none;
	uint64_t index_same, index_differ; /* through the index: answer, budget */
	uint64_t rows_same, rows_differ, rows_kept; /* rows: answer; answered by them */
	uint64_t rows_libdw;                 /* ... a rule from them libdw agrees with */
	uint64_t ours[EH_E_NERR];   /* our errors, by code */
};

/* Errors that refuse what the library chose not to support. */
static bool unsupported(int err)
{
	return err == EH_E_UNSUPPORTED || err == EH_E_EXPRESSION ||
	       err == EH_E_NOT_EXPRESSIBLE || err == EH_E_PTR_ENC ||
	       err == EH_E_LENGTH64 || err == EH_E_CIE_ADVANCE;
}

/* libdw's CFA: DW_OP_bregx reg, off (or a short bregN), alone or
 * followed by DW_OP_deref (a realigned stack's CFA, loaded). */
static bool libdw_cfa(Dwarf_Frame *f, struct sf_rule *r)
{
	Dwarf_Op *ops;
	size_t n;

	if (dwarf_frame_cfa(f, &ops, &n) || n < 1 || n > 2 ||
	    (n == 2 && ops[1].atom != DW_OP_deref))
		return false;
	r->cfa_deref = n == 2;
	if (ops[0].atom == DW_OP_bregx) {
		r->cfa_reg = (uint8_t)ops[0].number;
		r->cfa_off = (int32_t)(int64_t)ops[0].number2;
		return ops[0].number <= UINT8_MAX &&
		       (int64_t)ops[0].number2 == r->cfa_off;
	}
	if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31) {
		r->cfa_reg = (uint8_t)(ops[0].atom - DW_OP_breg0);
		r->cfa_off = (int32_t)(int64_t)ops[0].number;
		return (int64_t)ops[0].number == r->cfa_off;
	}
	return false;
}

/* The shapes dwarf_frame_register builds for the rules sf_where has. */
static bool libdw_where(Dwarf_Frame *f, int regno, struct sf_where *w)
{
	Dwarf_Op mem[3], *ops;
	size_t n;

	*w = (struct sf_where){ SF_SAME, 0, 0 };
	if (dwarf_frame_register(f, regno, mem, &ops, &n))
		return false;
	if (n == 0) {
		w->how = ops ? SF_UNDEFINED : SF_SAME;
		return true;
	}
	if (n == 1 && (ops[0].atom == DW_OP_regx ||
		       (ops[0].atom >= DW_OP_reg0 && ops[0].atom <= DW_OP_reg31))) {
		uint64_t reg = ops[0].atom == DW_OP_regx ? ops[0].number :
			       (uint64_t)(ops[0].atom - DW_OP_reg0);
		w->how = SF_REG;
		w->reg = (uint8_t)reg;
		return reg <= UINT8_MAX;
	}
	if (ops[0].atom != DW_OP_call_frame_cfa)
		return false;
	/* DW_CFA_expression's DW_OP_breg<reg> off, run with the CFA pushed
	 * first (DWARF 5, 6.4.2.3), which it leaves below: saved at reg + off. */
	if (n == 2 && ops[1].atom >= DW_OP_breg0 && ops[1].atom <= DW_OP_breg31) {
		w->how = SF_AT_REG;
		w->reg = (uint8_t)(ops[1].atom - DW_OP_breg0);
		w->off = (int32_t)(int64_t)ops[1].number;
		return (int64_t)ops[1].number == w->off;
	}
	size_t i = 1;
	int64_t off = 0;
	if (i < n && ops[i].atom == DW_OP_plus_uconst)
		off = (int64_t)ops[i++].number;
	w->how = SF_AT_CFA;
	if (i < n && ops[i].atom == DW_OP_stack_value) {
		w->how = SF_VAL_CFA;
		i++;
	}
	w->off = (int32_t)off;
	return i == n && off == w->off;
}

/* libdw's rule at pc: 1 found, 0 no answer (no frame), -1 an expression
 * or other shape sf_rule does not hold. libdw takes the ABI from the ELF
 * file (its i386 or x86-64 backend); abi names the same one, for the
 * return-address and frame-pointer columns. */
static int libdw_rule(Dwarf_CFI *cfi, uint8_t abi, uint64_t pc, struct sf_rule *r)
{
	Dwarf_Frame *f;
	bool signal;
	int found = -1;

	if (!cfi || dwarf_cfi_addrframe(cfi, pc, &f))
		return 0;
	*r = (struct sf_rule){ 0 };
	dwarf_frame_info(f, NULL, NULL, &signal);
	r->signal = signal;
	/* The psABIs' numbers, not the library's eh_fp_reg: a wrong one
	 * there must show as a difference. */
	bool i386 = abi == EH_ABI_I386;
	if (libdw_cfa(f, r) && libdw_where(f, i386 ? EH_REG_I386_RA : EH_REG_RA, &r->ra) &&
	    libdw_where(f, i386 ? EH_REG_I386_EBP : EH_REG_RBP, &r->fp))
		found = 1;
	free(f);
	return found;
}

static bool same_where(const struct sf_where *a, const struct sf_where *b)
{
	return a->how == b->how && a->reg == b->reg && a->off == b->off;
}

static bool same_rule(const struct sf_rule *a, const struct sf_rule *b)
{
	return a->cfa_reg == b->cfa_reg && a->cfa_off == b->cfa_off &&
	       a->cfa_deref == b->cfa_deref && a->signal == b->signal &&
	       same_where(&a->ra, &b->ra) && same_where(&a->fp, &b->fp);
}

/* A lookup's answer as text: its rule, or its error. */
static void answer_str(int err, const struct sf_rule *r, char *buf, size_t size)
{
	if (err)
		snprintf(buf, size, "%s", eh_strerror(err));
	else
		rule_str(r, buf, size);
}

static void show_diff(const char *path, uint64_t pc, int err, const struct sf_rule *ours,
		      int found, const struct sf_rule *theirs)
{
	char a[128], b[128];

	answer_str(err, ours, a, sizeof a);
	if (found > 0)
		rule_str(theirs, b, sizeof b);
	else
		snprintf(b, sizeof b, "an expression");
	printf("%s: DIFFER at 0x%" PRIx64 ": ours %s, libdw %s\n", path, pc, a, b);
}

/* Ours through the table when there is one, else in the walked FDE;
 * *budget is what the lookup left of EHFRAME_BUDGET. */
static int our_rule(const struct eh_table *t, const struct eh_fde *fde, uint64_t pc,
		    struct sf_rule *r, uint32_t *budget)
{
	*budget = EHFRAME_BUDGET;
	if (t->has_table)
		return eh_find_rule(t, pc, r, budget);
	return eh_rule_at(t, fde, pc, r, NULL, budget);
}

/* The same lookup through the table's index (eh_index_build): the same
 * error or rule, and the same instruction budget left, as the lookup
 * without it (eh_find_rule on the table: error ea, rule *a, budget ba
 * left), done once per pc by the caller. */
static void check_index(const char *path, const struct eh_table *xt, uint64_t pc, int ea,
			const struct sf_rule *a, uint32_t ba, struct counts *c)
{
	struct sf_rule b;
	uint32_t bb = EHFRAME_BUDGET;
	int eb = eh_find_rule(xt, pc, &b, &bb);

	if (ea == eb && ba == bb && (ea || same_rule(a, &b))) {
		c->index_same++;
	} else if (c->index_differ++ < SHOW_DIFFS) {
		char sa[128], sb[128];
		answer_str(ea, a, sa, sizeof sa);
		answer_str(eb, &b, sb, sizeof sb);
		printf("%s: INDEX DIFFERS at 0x%" PRIx64 ": %s (budget left %" PRIu32
		       "), indexed %s (%" PRIu32 ")\n", path, pc, sa, ba, sb, bb);
	}
}

/* The table's rows (eh_rows_add, as a conversion keeps them) and one
 * entry's (eh_rows_of_pc, as the row cache keeps them), built once. */
struct rowsets {
	struct eh_rows all, one;
	struct eh_krow *one_mem;
};

/* pc's answer from rows x: the rows', or the interpreter's where they
 * leave it; *kept says which. */
static int rows_answer(const struct eh_table *t, const struct eh_rows *x, uint64_t pc,
		       struct sf_rule *r, bool *kept)
{
	uint32_t budget = EHFRAME_BUDGET;
	int err = eh_rows_find(x, pc, r);
	*kept = err != EH_E_END;
	return *kept ? err : eh_find_rule(t, pc, r, &budget);
}

static void rows_differ(const char *path, const char *which, uint64_t pc, int ea,
			const struct sf_rule *a, int eb, const struct sf_rule *b, struct counts *c)
{
	char sa[128], sb[128];

	if (c->rows_differ++ >= SHOW_DIFFS)
		return;
	answer_str(ea, a, sa, sizeof sa);
	answer_str(eb, b, sb, sizeof sb);
	printf("%s: ROWS (%s) DIFFER at 0x%" PRIx64 ": interpreter %s, rows %s\n", path,
	       which, pc, sa, sb);
}

/* Both rows against the interpreter at pc (its answer ea, *a); a rule of
 * the table's rows against libdw's (found, *theirs). */
static void check_rows(const char *path, const struct eh_table *t, struct rowsets *rs,
		       uint64_t pc, int ea, const struct sf_rule *a, int found,
		       const struct sf_rule *theirs, struct counts *c)
{
	struct sf_rule b;
	bool kept;
	int eb = rows_answer(t, &rs->all, pc, &b, &kept);

	c->rows_kept += kept;
	if (ea != eb || (!ea && !same_rule(a, &b)))
		rows_differ(path, "table", pc, ea, a, eb, &b, c);
	else
		c->rows_same++;
	if (!eb && found > 0 && same_rule(&b, theirs))
		c->rows_libdw++;
	/* One entry's rows, built again when pc leaves them. */
	eb = eh_rows_find(&rs->one, pc, &b);
	if (eb == EH_E_END || rs->one.n == 0 || pc < rs->one.base + rs->one.row[0].pc) {
		uint32_t budget = EHFRAME_BUDGET;
		eh_rows_init(&rs->one, rs->all.base, rs->one_mem, rs->all.cap);
		eb = eh_rows_of_pc(t, pc, &rs->one, &budget);
		if (!eb)
			eb = rows_answer(t, &rs->one, pc, &b, &kept);
	}
	if (ea != eb || (!ea && !same_rule(a, &b)))
		rows_differ(path, "entry", pc, ea, a, eb, &b, c);
}

/* The table's rows, all entries added in order; false, said, when they
 * cannot be built (the table is then damaged). */
static bool build_rows(const char *path, const struct eh_table *t, struct rowsets *rs)
{
	uint64_t base = 0;
	uint32_t cap = 1u << 22;
	struct eh_krow *mem = malloc(cap * sizeof *mem);
	int err = mem ? eh_rows_base(t, &base) : EH_E_INVAL;

	rs->one_mem = malloc(cap * sizeof *mem);
	eh_rows_init(&rs->all, base, mem, cap);
	eh_rows_init(&rs->one, base, rs->one_mem, cap);
	for (uint64_t i = 0; !err && i < t->count; i++) {
		uint32_t budget = EHFRAME_BUDGET;
		err = eh_rows_add(t, i, &rs->all, &budget);
	}
	if (err || !rs->one_mem)
		printf("%s: DAMAGED: rows: %s\n", path, eh_strerror(err));
	return !err && rs->one_mem;
}

static void check_pc(const char *path, const struct eh_table *t, const struct eh_table *xt,
		     struct rowsets *rs, Dwarf_CFI *cfi, const struct eh_fde *fde, uint64_t pc,
		     struct counts *c)
{
	struct sf_rule ours, theirs;
	uint32_t budget;
	int err = our_rule(t, fde, pc, &ours, &budget);
	int found = libdw_rule(cfi, t->frame.abi, pc, &theirs);

	/* With an index there is a table: ours came from eh_find_rule. */
	if (xt)
		check_index(path, xt, pc, err, &ours, budget, c);
	if (rs)
		check_rows(path, t, rs, pc, err, &ours, found, &theirs, c);
	c->pcs++;
	if (found == 0) {
		c->libdw_none++;
	} else if (err) {
		c->ours[err]++;
	} else if (found > 0 && same_rule(&ours, &theirs)) {
		c->agree++;
	} else if (c->differ++ < SHOW_DIFFS) {
		show_diff(path, pc, err, &ours, found, &theirs);
	}
}

/* One line of counts; true when the file passes. */
static bool report(const char *path, const struct eh_table *t, const struct counts *c,
		   int walk_err)
{
	bool damaged = walk_err != EH_E_END;

	printf("%s: %s%s, %" PRIu64 " FDEs, %" PRIu64 " pcs: %" PRIu64 " agree, %" PRIu64
	       " differ, %" PRIu64 " libdw-no-answer", path,
	       t->frame.abi == EH_ABI_I386 ? "i386 " : "",
	       t->has_table ? "table" : "no .eh_frame_hdr", c->fdes, c->pcs, c->agree,
	       c->differ, c->libdw_none);
	for (int e = 1; e < EH_E_NERR; e++) {
		if (!c->ours[e])
			continue;
		printf(", %" PRIu64 " ours-%s (%s)", c->ours[e],
		       unsupported(e) ? "unsupported" : "error", eh_strerror(e));
		damaged |= !unsupported(e);
	}
	if (t->has_table)
		printf("; index: %" PRIu64 " same, %" PRIu64 " differ; rows: %" PRIu64 " same, %"
		       PRIu64 " differ, %" PRIu64 " from rows, %" PRIu64 " libdw-agree",
		       c->index_same, c->index_differ, c->rows_same, c->rows_differ, c->rows_kept,
		       c->rows_libdw);
	printf("\n");
	if (walk_err != EH_E_END)
		printf("%s: DAMAGED: .eh_frame walk stopped: %s\n", path, eh_strerror(walk_err));
	return !damaged && c->differ == 0 && c->index_differ == 0 && c->rows_differ == 0;
}

static bool check_file(const char *path)
{
	struct input in;
	struct eh_table t;
	struct eh_fde fde;
	struct counts c = { 0 };
	uint64_t off = 0;
	int err;

	if (!input_open(path, &in)) {
		perror(path);
		return false;
	}
	if (input_table(path, &in, true, &t) ||
	    (t.has_table && (err = eh_check_table(&t)) &&
	     printf("%s: DAMAGED: .eh_frame_hdr: %s\n", path, eh_strerror(err)))) {
		input_close(&in);
		return false;
	}
	/* A second table with an index, looked up at every pc after the
	 * first (which fills it as the pcs come). */
	struct eh_table xt = t;
	void *mem = NULL;
	if (t.has_table && t.count) {
		mem = malloc(eh_index_size(&t));
		if (!mem || (err = eh_index_build(&xt, mem, eh_index_size(&t)))) {
			printf("%s: DAMAGED: index: %s\n", path, mem ? eh_strerror(err) : "no memory");
			free(mem);
			input_close(&in);
			return false;
		}
	}
	struct rowsets rows = { 0 };
	bool rows_ok = !mem || build_rows(path, &t, &rows);
	Dwarf_CFI *cfi = dwarf_getcfi_elf(in.elf);
	while (rows_ok && (err = eh_fde_next(&t, &off, &fde)) == EH_OK) {
		c.fdes++;
		for (uint64_t pc = fde.start; pc - fde.start < fde.size; pc++)
			check_pc(path, &t, mem ? &xt : NULL, mem ? &rows : NULL, cfi, &fde, pc, &c);
		/* Also the pcs just outside: before the function, past its end. */
		for (int k = 0; mem && k < 2; k++) {
			uint64_t pc = k ? fde.start + fde.size : fde.start - 1;
			struct sf_rule r;
			uint32_t budget = EHFRAME_BUDGET;
			int e = eh_find_rule(&t, pc, &r, &budget);
			check_index(path, &xt, pc, e, &r, budget, &c);
			check_rows(path, &t, &rows, pc, e, &r, 0, NULL, &c);
		}
	}
	bool ok = rows_ok && report(path, &t, &c, err);
	free(rows.all.row);
	free(rows.one_mem);
	free(mem);
	if (cfi)
		dwarf_cfi_end(cfi);
	input_close(&in);
	return ok;
}

int cmd_check(int argc, char **argv)
{
	int status = 0;

	if (argc < 1) {
		fprintf(stderr, "usage: ehframe check FILE...\n");
		return 2;
	}
	for (int i = 0; i < argc; i++)
		status |= !check_file(argv[i]);
	return status;
}
