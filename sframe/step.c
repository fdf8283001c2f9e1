/*
 * One unwind step: from (pc, sp, fp) of a frame to those of its caller.
 *
 * Only sp and fp are known beyond the first frame, so a rule that needs any
 * other register (a flex FDE's DRAP register, AArch64's link register)
 * fails with SF_E_REG rather than guess. The interrupted frame's registers
 * are all known: sf_step_first() takes them.
 */
#include "read.h"

/* The first frame's registers by DWARF number, or none. */
struct regs {
	const uint64_t *v;
	uint32_t n;
};

static int reg_value(const struct sf_table *t, const struct sf_frame *f,
		     const struct regs *regs, uint8_t reg, uint64_t *v)
{
	if (reg == sf_sp_reg(t))
		*v = f->sp;
	else if (reg == sf_fp_reg(t))
		*v = f->fp;
	else if (reg < regs->n)
		*v = regs->v[reg];
	else
		return SF_E_REG;
	return SF_OK;
}

/* Stacks hold little-endian words of size bytes (sf_word: 8 on both
 * SFrame ABIs, 4 on i386). Without a reader, one checked load in place. */
static inline int load(sf_read_fn read, void *ctx, uint64_t addr, uint32_t size, uint64_t *v)
{
	uint8_t b[8];

	if (read ? !read(ctx, addr, b, size) : !sf_env_load(addr, size, b))
		return SF_E_STACK_READ;
	*v = size == 4 ? sf_le32(b) : sf_le64(b);
	return SF_OK;
}

/* The caller's value of one register; cur is its value in this frame. */
static int recover(const struct sf_table *t, const struct sf_frame *f,
		   const struct regs *regs, sf_read_fn read, void *ctx, uint64_t cfa,
		   const struct sf_where *w, uint64_t cur, uint64_t *out)
{
	uint64_t off = (uint64_t)(int64_t)w->off, base;
	int err;

	switch (w->how) {
	case SF_SAME:
		*out = cur;
		return SF_OK;
	case SF_AT_CFA:
		return load(read, ctx, cfa + off, sf_word(t), out);
	case SF_VAL_CFA:
		*out = cfa + off;
		return SF_OK;
	case SF_REG:
	case SF_AT_REG:
		if ((err = reg_value(t, f, regs, w->reg, &base)))
			return err;
		if (w->how == SF_AT_REG)
			return load(read, ctx, base + off, sf_word(t), out);
		*out = base + off;
		return SF_OK;
	}
	return SF_E_RULE;
}

static int cfa_of(const struct sf_table *t, const struct sf_frame *f,
		  const struct regs *regs, const struct sf_rule *r,
		  sf_read_fn read, void *ctx, uint64_t *cfa)
{
	int err;

	if ((err = reg_value(t, f, regs, r->cfa_reg, cfa)))
		return err;
	*cfa += (uint64_t)(int64_t)r->cfa_off;
	if (r->cfa_deref && (err = load(read, ctx, *cfa, sf_word(t), cfa)))
		return err;
	return sf_cfa_ok(*cfa, f->sp, sf_strict(t), sf_word(t)) ? SF_OK : SF_E_BAD_FRAME;
}

bool sf_quick_of(const struct sf_table *t, const struct sf_rule *r, struct sf_quick *q)
{
	return sf_quick_from(t, r, q);
}

/* The stack reader of the quick path: read, or in place. */
struct stack_reader {
	sf_read_fn read;
	void *ctx;
};

static bool quick_load(void *ctx, uint64_t addr, uint32_t size, uint64_t *v)
{
	const struct stack_reader *r = ctx;
	return load(r->read, r->ctx, addr, size, v) == SF_OK;
}

/* The rule r applied to *f: the quick path for the common shape. */
static int apply(const struct sf_table *t, const struct sf_rule *r, struct sf_frame *f,
		 const struct regs *regs, sf_read_fn read, void *ctx)
{
	uint64_t cfa, ra, fp;
	int err;

	struct sf_quick q;
	if (sf_quick_of(t, r, &q)) {
		struct stack_reader sr = { read, ctx };
		return sf_quick_step(&q, f, quick_load, &sr);
	}
	if (r->signal)
		return SF_E_SIGNAL;
	if (r->ra.how == SF_UNDEFINED)
		return SF_E_END;
	if (r->ra.how == SF_SAME)
		return SF_E_REG; /* RA still in a link register we do not have */
	if ((err = cfa_of(t, f, regs, r, read, ctx, &cfa)))
		return err;
	if ((err = recover(t, f, regs, read, ctx, cfa, &r->ra, 0, &ra)))
		return err;
	if ((err = recover(t, f, regs, read, ctx, cfa, &r->fp, f->fp, &fp)))
		return err;
	return sf_frame_up(f, ra, cfa, fp);
}

/* The interrupted frame's registers, when f is that frame. */
static struct regs first_regs(const struct sf_frame *f, const uint64_t *regs,
			      uint32_t nregs)
{
	struct regs known = { regs, f && regs && !f->caller ? nregs : 0 };
	return known;
}

int sf_step_rule(const struct sf_table *t, const struct sf_rule *r,
		 struct sf_frame *f, const uint64_t *regs, uint32_t nregs,
		 sf_read_fn read, void *ctx)
{
	struct regs known = first_regs(f, regs, nregs);
	return apply(t, r, f, &known, read, ctx);
}

int sf_step_first(const struct sf_table *t, struct sf_frame *f,
		  const uint64_t *regs, uint32_t nregs, sf_read_fn read, void *ctx)
{
	struct sf_rule r;
	int err;

	if (!t || !f)
		return SF_E_INVAL;
	/* A return address may be one past a call at the very end of a
	 * function (noreturn callee): look up the call instruction. */
	if ((err = sf_find_rule(t, f->caller ? f->pc - 1 : f->pc, &r)))
		return err;
	return sf_step_rule(t, &r, f, regs, nregs, read, ctx);
}

int sf_step(const struct sf_table *t, struct sf_frame *f,
	    sf_read_fn read, void *ctx)
{
	return sf_step_first(t, f, NULL, 0, read, ctx);
}
