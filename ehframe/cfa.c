/*
 * The CFA program interpreter (DWARF 5, 6.4.2): runs a CIE's initial
 * instructions, then an FDE's, until the row that covers pc. Only the
 * columns Stitch's unwinder uses are kept (CFA, return address, frame
 * pointer: rbp, or an i386 program's ebp);
 * instructions for other registers are decoded, bounds-checked and
 * dropped. Each instruction costs one unit of the caller's budget, so a
 * hostile program costs what the caller allows.
 */
#include "internal.h"

/* DW_CFA_* opcodes: the high two bits, then the low six. */
#define OP_ADVANCE_LOC  0x1
#define OP_OFFSET       0x2
#define OP_RESTORE      0x3

enum {
	CFA_NOP = 0x00, CFA_SET_LOC = 0x01, CFA_ADVANCE_LOC1 = 0x02,
	CFA_ADVANCE_LOC2 = 0x03, CFA_ADVANCE_LOC4 = 0x04,
	CFA_OFFSET_EXTENDED = 0x05, CFA_RESTORE_EXTENDED = 0x06,
	CFA_UNDEFINED = 0x07, CFA_SAME_VALUE = 0x08, CFA_REGISTER = 0x09,
	CFA_REMEMBER_STATE = 0x0a, CFA_RESTORE_STATE = 0x0b, CFA_DEF_CFA = 0x0c,
	CFA_DEF_CFA_REGISTER = 0x0d, CFA_DEF_CFA_OFFSET = 0x0e,
	CFA_DEF_CFA_EXPRESSION = 0x0f, CFA_EXPRESSION = 0x10,
	CFA_OFFSET_EXTENDED_SF = 0x11, CFA_DEF_CFA_SF = 0x12,
	CFA_DEF_CFA_OFFSET_SF = 0x13, CFA_VAL_OFFSET = 0x14,
	CFA_VAL_OFFSET_SF = 0x15, CFA_VAL_EXPRESSION = 0x16,
	CFA_GNU_ARGS_SIZE = 0x2e,
};

/* What one run needs besides the cursor. */
struct run {
	const struct eh_cie *cie;
	const struct eh_row *init;   /* NULL in the CIE */
	struct eh_row *row;
	struct eh_row stack[EH_STATE_DEPTH];
	uint32_t depth;
	uint64_t *loc;
	uint64_t loc_end;
	uint64_t pc;
	uint64_t fp_reg;             /* the ABI's frame pointer (eh_fp_reg) */
	bool done;                   /* advanced past pc */
};

/* The tracked columns reg names (RA and the frame pointer may not be the
 * same, but if a CIE says so, both follow it). */
static void set_col(struct run *r, uint64_t reg, uint8_t how, uint64_t base, int64_t off)
{
	uint64_t cols[2] = { r->cie->ra_reg, r->fp_reg };
	for (int i = 0; i < 2; i++) {
		if (cols[i] == reg) {
			r->row->col[i].how = how;
			r->row->col[i].reg = base;
			r->row->col[i].off = off;
		}
	}
}

/* DW_CFA_restore: the rule the CIE left; in the CIE itself, none yet. */
static void restore(struct run *r, uint64_t reg)
{
	uint64_t cols[2] = { r->cie->ra_reg, r->fp_reg };
	for (int i = 0; i < 2; i++) {
		if (cols[i] != reg)
			continue;
		if (r->init)
			r->row->col[i] = r->init->col[i];
		else
			r->row->col[i] = (struct eh_col){ EH_SAME, 0, 0 };
	}
}

/* A factored offset: n times the data alignment factor, which must not
 * overflow. */
static int64_t factored(struct eh_cur *c, const struct run *r, int64_t n)
{
	int64_t v;
	if (__builtin_mul_overflow(n, r->cie->data_align, &v))
		eh_fail(c, EH_E_OVERFLOW);
	return c->err ? 0 : v;
}

/* An unsigned operand that must fit a signed offset. */
static int64_t uoff(struct eh_cur *c)
{
	uint64_t v = eh_uleb(c);
	if (v > INT64_MAX)
		eh_fail(c, EH_E_OVERFLOW);
	return c->err ? 0 : (int64_t)v;
}

/* Advance the location by delta code units; a row past pc ends the run
 * (the current row covers pc), one past the function is an error. */
static void advance(struct eh_cur *c, struct run *r, uint64_t delta)
{
	if (c->err)
		return;
	if (!r->init) {
		eh_fail(c, EH_E_CIE_ADVANCE); /* gcc and gas never do this */
		return;
	}
	uint64_t room = r->loc_end - *r->loc;
	if (delta > room / r->cie->code_align) {
		eh_fail(c, EH_E_ADVANCE);
		return;
	}
	uint64_t next = *r->loc + delta * r->cie->code_align;
	if (next > r->pc)
		r->done = true;
	else
		*r->loc = next;
}

static void def_cfa(struct run *r, uint64_t reg, int64_t off)
{
	r->row->cfa_how = EH_CFA_REG;
	r->row->cfa_reg = reg;
	r->row->cfa_off = off;
}

/* def_cfa_register and def_cfa_offset change half of a register rule. */
static void need_cfa_reg(struct eh_cur *c, const struct run *r)
{
	if (r->row->cfa_how != EH_CFA_REG)
		eh_fail(c, EH_E_NO_CFA);
}

/* DWARF expression opcodes of the two shapes the interpreter follows. */
#define OP_BREG0  0x70
#define OP_BREG31 0x8f
#define OP_DEREF  0x06

/*
 * A DWARF expression block, bounded by the program: 1 when it is
 * DW_OP_breg<reg> off, then DW_OP_deref when deref (*reg, *off filled),
 * else 0; the cursor ends past the block either way. Any other
 * expression is not interpreted.
 */
static int breg_block(struct eh_cur *c, bool deref, uint64_t *reg, int64_t *off)
{
	uint64_t len = eh_uleb(c);
	if (c->err || len > eh_left(c)) {
		eh_skip(c, len);
		return 0;
	}
	struct eh_cur b = eh_cur(c->s, c->pos, c->pos + len, EH_E_TRUNCATED);
	uint8_t op = eh_u8(&b);
	*reg = (uint64_t)(op - OP_BREG0);
	*off = eh_sleb(&b);
	bool shape = !b.err && op >= OP_BREG0 && op <= OP_BREG31 &&
		     (!deref || eh_u8(&b) == OP_DEREF) && !b.err && b.pos == b.end;
	c->pos += len;
	return shape;
}

static void remember(struct eh_cur *c, struct run *r)
{
	if (r->depth == EH_STATE_DEPTH)
		eh_fail(c, EH_E_STATE_OVERFLOW);
	else
		r->stack[r->depth++] = *r->row;
}

static void restore_state(struct eh_cur *c, struct run *r)
{
	if (r->depth == 0)
		eh_fail(c, EH_E_STATE_UNDERFLOW);
	else
		*r->row = r->stack[--r->depth];
}

/* The ops whose high two bits are 0. */
static void extended(struct eh_cur *c, struct run *r, uint8_t op)
{
	uint64_t reg, reg2;
	int64_t off;

	switch (op) {
	case CFA_NOP:
		return;
	case CFA_ADVANCE_LOC1:
		advance(c, r, eh_u8(c));
		return;
	case CFA_ADVANCE_LOC2:
		advance(c, r, eh_u16(c));
		return;
	case CFA_ADVANCE_LOC4:
		advance(c, r, eh_u32(c));
		return;
	case CFA_OFFSET_EXTENDED:
		reg = eh_uleb(c);
		off = factored(c, r, uoff(c));
		if (!c->err)
			set_col(r, reg, EH_OFFSET, 0, off);
		return;
	case CFA_OFFSET_EXTENDED_SF:
	case CFA_VAL_OFFSET:
	case CFA_VAL_OFFSET_SF:
		reg = eh_uleb(c);
		off = factored(c, r, op == CFA_VAL_OFFSET ? uoff(c) : eh_sleb(c));
		if (!c->err)
			set_col(r, reg, op == CFA_OFFSET_EXTENDED_SF ? EH_OFFSET : EH_VAL_OFFSET, 0, off);
		return;
	case CFA_RESTORE_EXTENDED:
		reg = eh_uleb(c);
		if (!c->err)
			restore(r, reg);
		return;
	case CFA_UNDEFINED:
	case CFA_SAME_VALUE:
		reg = eh_uleb(c);
		if (!c->err)
			set_col(r, reg, op == CFA_UNDEFINED ? EH_UNDEF : EH_SAME, 0, 0);
		return;
	case CFA_REGISTER:
		reg = eh_uleb(c);
		reg2 = eh_uleb(c);
		if (!c->err)
			set_col(r, reg, EH_REGISTER, reg2, 0);
		return;
	case CFA_REMEMBER_STATE:
		remember(c, r);
		return;
	case CFA_RESTORE_STATE:
		restore_state(c, r);
		return;
	case CFA_DEF_CFA:
	case CFA_DEF_CFA_SF:
		reg = eh_uleb(c);
		off = op == CFA_DEF_CFA ? uoff(c) : factored(c, r, eh_sleb(c));
		if (!c->err)
			def_cfa(r, reg, off);
		return;
	case CFA_DEF_CFA_REGISTER:
		reg = eh_uleb(c);
		need_cfa_reg(c, r);
		if (!c->err)
			r->row->cfa_reg = reg;
		return;
	case CFA_DEF_CFA_OFFSET:
	case CFA_DEF_CFA_OFFSET_SF:
		off = op == CFA_DEF_CFA_OFFSET ? uoff(c) : factored(c, r, eh_sleb(c));
		need_cfa_reg(c, r);
		if (!c->err)
			r->row->cfa_off = off;
		return;
	case CFA_DEF_CFA_EXPRESSION:
		if (breg_block(c, true, &reg2, &off))
			r->row->cfa_how = EH_CFA_DEREF, r->row->cfa_reg = reg2, r->row->cfa_off = off;
		else
			r->row->cfa_how = EH_CFA_EXPR;
		return;
	case CFA_EXPRESSION:
	case CFA_VAL_EXPRESSION:
		/* Fails a lookup only if RA or the frame pointer still has
		 * it at pc; but a register saved at breg + off is followed. */
		reg = eh_uleb(c);
		if (breg_block(c, false, &reg2, &off) && op == CFA_EXPRESSION)
			set_col(r, reg, EH_AT_REG, reg2, off);
		else if (!c->err)
			set_col(r, reg, EH_EXPR, 0, 0);
		return;
	case CFA_GNU_ARGS_SIZE:
		eh_uleb(c); /* for exception landing pads, not for unwinding */
		return;
	}
	/* set_loc, GNU_window_save, negative_offset_extended, vendor ops. */
	eh_fail(c, EH_E_UNSUPPORTED);
}

static void one(struct eh_cur *c, struct run *r)
{
	uint8_t op = eh_u8(c);
	uint8_t low = op & 0x3f;

	if (c->err)
		return;
	switch (op >> 6) {
	case OP_ADVANCE_LOC:
		advance(c, r, low);
		return;
	case OP_OFFSET: {
		int64_t off = factored(c, r, uoff(c));
		if (!c->err)
			set_col(r, low, EH_OFFSET, 0, off);
		return;
	}
	case OP_RESTORE:
		restore(r, low);
		return;
	}
	extended(c, r, op);
}

int eh_run(const struct eh_table *t, const struct eh_cie *cie, uint64_t insns,
	   uint64_t end, const struct eh_row *init, uint64_t *loc, uint64_t loc_end,
	   uint64_t pc, struct eh_row *row, uint32_t *budget)
{
	/* An operand cut off by the end of the program is a truncated
	 * instruction, whatever entry holds it. */
	struct eh_cur c = eh_cur(&t->frame, insns, end, EH_E_TRUNCATED);
	struct run r = { .cie = cie, .init = init, .row = row, .loc = loc,
			 .loc_end = loc_end, .pc = pc, .fp_reg = eh_fp_reg(t->frame.abi) };

	while (!c.err && !r.done && c.pos < c.end) {
		if (*budget == 0)
			return EH_E_BUDGET;
		--*budget;
		one(&c, &r);
	}
	return c.err;
}
