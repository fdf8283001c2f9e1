/*
 * Helpers shared by the library's files; not part of the API.
 */
#ifndef STITCH_EHFRAME_INTERNAL_H
#define STITCH_EHFRAME_INTERNAL_H

#include "ehframe.h"
#include "lazy_index.h"

/* The LSB's CIE id in .eh_frame (.debug_frame uses all ones). */
#define EH_CIE_ID 0
/* A 32-bit length of all ones announces a 64-bit length. */
#define EH_LEN64 0xffffffffu

/* The application bits of an encoding (high nibble less indirect). */
#define EH_PE_APP(enc) ((enc) & 0x70)
#define EH_PE_FMT(enc) ((enc) & 0x0f)
#define EH_PE_INDIRECT 0x80

/*
 * A cursor over [pos, end) of one section. Reads are bounds-checked against
 * end (itself inside the section) and fail with oob, so that a field past
 * the end of a CIE, of its augmentation data or of the section gives the
 * error that names it. The first error sticks: later reads do nothing and
 * return 0, so a parser may read several fields and check err once.
 */
struct eh_cur {
	const struct eh_src *s;
	uint64_t pos;
	uint64_t end;
	int err;
	int oob;   /* the error for a read past end */
};

/* A cursor over [pos, end) of s, clipped to the section. */
static inline struct eh_cur eh_cur(const struct eh_src *s, uint64_t pos, uint64_t end,
				   int oob)
{
	struct eh_cur c = { s, pos, end < s->size ? end : s->size, EH_OK, oob };
	if (c.pos > c.end)
		c.err = oob;
	return c;
}

static inline uint64_t eh_left(const struct eh_cur *c)
{
	return c->err ? 0 : c->end - c->pos;
}

/* Run-time address of the cursor's next byte. */
static inline uint64_t eh_addr(const struct eh_cur *c)
{
	return c->s->vaddr + c->pos;
}

/* Stick the first error; returns err. */
static inline int eh_fail(struct eh_cur *c, int err)
{
	if (!c->err)
		c->err = err;
	return c->err;
}

/* Little-endian fixed-size fields (read.c). */
void eh_bytes(struct eh_cur *c, void *dst, uint32_t len);
uint8_t eh_u8(struct eh_cur *c);
uint16_t eh_u16(struct eh_cur *c);
uint32_t eh_u32(struct eh_cur *c);
uint64_t eh_u64(struct eh_cur *c);
void eh_skip(struct eh_cur *c, uint64_t len);

/* LEB128 numbers: EH_E_LEB when truncated or wider than 64 bits. */
uint64_t eh_uleb(struct eh_cur *c);
int64_t eh_sleb(struct eh_cur *c);

/*
 * An encoded pointer. datarel is the base of EH_PE_DATAREL (the start of
 * .eh_frame_hdr), or 0 where that application has no meaning (.eh_frame
 * itself): EH_E_PTR_ENC. EH_PE_OMIT is the caller's to handle.
 */
uint64_t eh_ptr(struct eh_cur *c, uint8_t enc, uint64_t datarel);

/* Bytes a fixed-size format takes in s's ABI, or 0 (LEB128, unknown). */
uint32_t eh_fmt_size(const struct eh_src *s, uint8_t enc);

/* One past the highest address of s's ABI, less one: addresses are
 * computed modulo it plus one. */
static inline uint64_t eh_addr_max(const struct eh_src *s)
{
	return s->abi == EH_ABI_I386 ? UINT32_MAX : UINT64_MAX;
}

/* Parse the CIE at .eh_frame offset off (cie.c). */
int eh_cie_at(const struct eh_table *t, uint64_t off, struct eh_cie *cie);

/* The length field of the entry at off: its end in *end, and whether the
 * section ends there (the zero terminator). */
int eh_entry(const struct eh_table *t, uint64_t off, uint64_t *end, bool *terminator,
	     uint32_t *id);

/* How one tracked register is recovered, while the program runs. */
enum eh_how {
	EH_SAME,       /* unchanged (also: no rule yet, psABI's callee-saved) */
	EH_UNDEF,      /* not recoverable; for RA: outermost frame */
	EH_OFFSET,     /* saved at CFA + off */
	EH_VAL_OFFSET, /* value is CFA + off */
	EH_REGISTER,   /* value is in register reg */
	EH_AT_REG,     /* saved at reg + off: the expression DW_OP_breg<reg> off */
	EH_EXPR,       /* any other DWARF expression: not interpreted */
};

struct eh_col {
	uint8_t how;
	uint64_t reg;
	int64_t off;
};

/* How the CFA is computed. */
/* How the CFA is computed: reg + off; *(reg + off), the expression
 * DW_OP_breg<reg> off; DW_OP_deref that gcc's stack realignment writes
 * (its DRAP: main on i386); or another expression, not interpreted. */
enum eh_cfa_how { EH_CFA_NONE, EH_CFA_REG, EH_CFA_DEREF, EH_CFA_EXPR };

/* One row of the table the program describes, for the columns Stitch
 * needs: the CFA, the return address (col[0]) and rbp (col[1]). */
struct eh_row {
	uint8_t cfa_how;
	uint64_t cfa_reg;
	int64_t cfa_off;
	struct eh_col col[2];
};

/* Run instructions [insns, end) of cie's program from *loc towards pc
 * (cfa.c). init is the row the CIE leaves (restore's target), NULL while
 * the CIE's own instructions run. */
int eh_run(const struct eh_table *t, const struct eh_cie *cie, uint64_t insns,
	   uint64_t end, const struct eh_row *init, uint64_t *loc, uint64_t loc_end,
	   uint64_t pc, struct eh_row *row, uint32_t *budget);

/* What eh_run_rows tells of each row: it begins at loc (and runs to the
 * next row's loc, or the function's end). Non-zero stops the run with
 * that error. */
typedef int (*eh_row_fn)(void *ctx, uint64_t loc, const struct eh_row *row);

/* Every row of the program [insns, end) of an FDE whose CIE left init,
 * for the function [loc, loc_end), in order (cfa.c): the interpreter's
 * run, told each row as an advance ends it. */
int eh_run_rows(const struct eh_table *t, const struct eh_cie *cie, uint64_t insns,
		uint64_t end, const struct eh_row *init, uint64_t loc, uint64_t loc_end,
		eh_row_fn emit, void *ctx, uint32_t *budget);

/* A row as struct sf_rule (rule.c): EH_OK, or why it has none. */
int eh_translate(const struct eh_row *row, bool signal, struct sf_rule *rule);

/* The last entry of the search table at or before pc (hdr.c). */
int eh_hdr_search(const struct eh_table *t, uint64_t pc, uint64_t *found);

/* Entry i's FDE, which must begin where the entry says (hdr.c). */
int eh_hdr_entry_fde(const struct eh_table *t, uint64_t i, struct eh_fde *fde);

/* The row at pc of an FDE whose CIE left init: the FDE's instructions
 * [insns, insns_end) from start towards pc, translated (rule.c). */
int eh_rule_from(const struct eh_table *t, const struct eh_cie *cie, const struct eh_row *init,
		 uint64_t start, uint64_t size, uint64_t insns, uint64_t insns_end,
		 uint64_t pc, struct sf_rule *rule, uint64_t *row_start, uint32_t *budget);

/* A CIE an index keeps: its fields, the row its initial instructions
 * leave and how many instructions that took (charged to each lookup). */
struct eh_kept_cie {
	struct eh_cie cie;
	struct eh_row init;
	uint32_t insns_run;
};

/* An FDE an index keeps (read: false until a lookup first reads it
 * well): offsets in .eh_frame, which eh_index_build bounds to 32 bits. */
struct eh_kept_fde {
	uint64_t size;       /* the function's length */
	uint32_t off;        /* the FDE (the table entry's) */
	uint32_t insns, insns_end;
	uint8_t cie;         /* its CIE: kept_cie[cie] */
	bool read;
};

/* The index (ehframe.h, eh_index_build): n entries, their initial
 * locations increasing, filled lazily (lz_bytes(n): sframe/lazy_index.h,
 * the locations first), then the FDEs kept, one per entry. */
struct eh_index {
	uint32_t n;
	uint32_t ncies;
	struct eh_kept_cie cies[EH_INDEX_CIES];
	struct lz_index lz;
	uint64_t loc[];
};

static inline struct eh_kept_fde *eh_index_fdes(const struct eh_index *x)
{
	return x->lz.after;
}

/* Table entry i: its initial location, and its FDE's .eh_frame offset
 * (checked inside .eh_frame) unless fde_off is NULL (hdr.c). */
int eh_hdr_entry(const struct eh_table *t, uint64_t i, uint64_t *loc, uint64_t *fde_off);

/* The lookup through t->index (index.c): EH_E_END when the index cannot
 * answer (the table changed under it): look up as without it. */
int eh_index_find_rule(const struct eh_table *t, uint64_t pc, struct sf_rule *rule,
		       uint32_t *budget);

#endif /* STITCH_EHFRAME_INTERNAL_H */
