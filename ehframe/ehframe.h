/*
 * ehframe: look up the frame rule at a pc in .eh_frame, through the
 * sorted table of .eh_frame_hdr.
 *
 * One freestanding library, compiled into the kernel (its .eh_frame
 * format, kern/unwind/ehframe_format.c) and into the host tools, like
 * sframe/: no libc, no allocation, no globals, no recursion. Every byte of both sections is read through struct eh_src,
 * after a bounds check, so a section that lies about its sizes can only
 * make a call fail with an error code, never read outside the section.
 *
 * The answer is the SFrame library's struct sf_rule (sframe/sframe.h), so
 * that one rule cache and one unwind step serve both formats. DWARF call
 * frame information can say more than that struct holds; what it cannot
 * hold is refused with an error, never approximated (docs/EHFRAME.md).
 *
 * Typical use:
 *
 *	struct eh_table t;
 *	struct eh_src hdr = { .base = h, .size = hlen, .vaddr = hdr_addr };
 *	struct eh_src frame = { .base = f, .size = flen, .vaddr = frame_addr };
 *	uint32_t budget = 1000;
 *	struct sf_rule r;
 *	if (eh_open(&t, &hdr, &frame) == EH_OK &&
 *	    eh_find_rule(&t, pc, &r, &budget) == EH_OK)
 *		use(r);
 */
#ifndef STITCH_EHFRAME_H
#define STITCH_EHFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sframe.h"

/* Pointer encodings (LSB, "DWARF Exception Header Encoding"). */
#define EH_PE_ABSPTR  0x00
#define EH_PE_ULEB128 0x01
#define EH_PE_UDATA2  0x02
#define EH_PE_UDATA4  0x03
#define EH_PE_UDATA8  0x04
#define EH_PE_SLEB128 0x09
#define EH_PE_SDATA2  0x0a
#define EH_PE_SDATA4  0x0b
#define EH_PE_SDATA8  0x0c
#define EH_PE_PCREL   0x10
#define EH_PE_DATAREL 0x30
#define EH_PE_OMIT    0xff

/* remember_state may nest this deep; deeper is EH_E_STATE_OVERFLOW.
 * gcc nests one level (an epilogue in the middle of a function). */
#define EH_STATE_DEPTH 8

/* DWARF register numbers of the x86-64 psABI that the rule needs. */
#define EH_REG_RBP 6
#define EH_REG_RSP 7
#define EH_REG_RA  16
/* And of the i386 psABI (eax 0, ecx 1, edx 2, ebx 3, esp 4, ebp 5, esi 6,
 * edi 7, eip 8: the return-address column gcc's i386 CIEs name). */
#define EH_REG_I386_EBP 5
#define EH_REG_I386_ESP 4
#define EH_REG_I386_RA  8

/*
 * The ABI of the program a section describes (struct eh_src's abi): how
 * wide an absolute pointer is (EH_PE_absptr), where computed addresses
 * wrap, and which DWARF register is the frame pointer, the one register
 * besides the CFA and the return address the rule follows. The CFA
 * programs themselves carry the rest (register numbers, the data
 * alignment factor, the return-address column).
 */
enum eh_abi {
	EH_ABI_X86_64 = 0, /* 8-byte pointers; rbp is 6 */
	EH_ABI_I386,       /* 4-byte pointers, addresses wrap at 4 GiB; ebp is 5 */
};

/* The return-address column a CIE of abi names: the psABIs fix it (x86-64
 * 16, the RA pseudo-register; i386 8, eip), and every x86 compiler uses
 * it. */
static inline uint64_t eh_ra_reg(uint8_t abi)
{
	return abi == EH_ABI_I386 ? EH_REG_I386_RA : EH_REG_RA;
}

/* The frame pointer's DWARF number in abi. */
static inline uint64_t eh_fp_reg(uint8_t abi)
{
	return abi == EH_ABI_I386 ? EH_REG_I386_EBP : EH_REG_RBP;
}

/* Every way a call can fail. 0 is success; eh_strerror() names them. */
enum eh_err {
	EH_OK = 0,
	EH_E_INVAL,          /* bad argument (NULL, empty section, unknown ABI) */
	EH_E_FAULT,          /* the section reader failed */
	EH_E_TRUNCATED,      /* a field runs past the end of its CIE, FDE or section */
	EH_E_LEB,            /* LEB128 number truncated or wider than 64 bits */
	EH_E_PTR_ENC,        /* pointer encoding not supported (textrel, indirect, ...) */
	EH_E_HDR_VERSION,    /* .eh_frame_hdr version is not 1 */
	EH_E_HDR_NO_TABLE,   /* .eh_frame_hdr has no search table */
	EH_E_HDR_TABLE_ENC,  /* table entries are not fixed-size: cannot be searched */
	EH_E_HDR_TABLE_SIZE, /* the table runs past the end of .eh_frame_hdr */
	EH_E_HDR_FRAME_PTR,  /* eh_frame_ptr is not the .eh_frame given */
	EH_E_HDR_UNSORTED,   /* table not sorted by initial location */
	EH_E_HDR_FDE_ADDR,   /* a table entry points outside .eh_frame */
	EH_E_HDR_MISMATCH,   /* the FDE a table entry names starts elsewhere */
	EH_E_LENGTH,         /* a CIE or FDE length runs past the end of the section */
	EH_E_LENGTH64,       /* 64-bit DWARF length: not used in .eh_frame */
	EH_E_TERMINATOR,     /* the zero terminator where an FDE was expected */
	EH_E_NOT_FDE,        /* a CIE where an FDE was expected */
	EH_E_CIE_POINTER,    /* an FDE's CIE pointer leads outside the section */
	EH_E_NOT_CIE,        /* an FDE's CIE pointer leads to an FDE */
	EH_E_CIE_VERSION,    /* CIE version is not 1 or 3 */
	EH_E_AUGMENTATION,   /* unknown augmentation, or string without its NUL */
	EH_E_AUG_LENGTH,     /* augmentation data past the end of its CIE or FDE */
	EH_E_CODE_ALIGN,     /* code alignment factor 0 */
	EH_E_FDE_RANGE,      /* an FDE's address range wraps around */
	EH_E_END,            /* end of .eh_frame (walks only) */
	EH_E_NO_FDE,         /* no FDE covers the pc */
	EH_E_UNSUPPORTED,    /* a CFA instruction this library does not run */
	EH_E_EXPRESSION,     /* CFA, RA or rbp given by a DWARF expression */
	EH_E_STATE_OVERFLOW, /* remember_state nested deeper than EH_STATE_DEPTH */
	EH_E_STATE_UNDERFLOW,/* restore_state with nothing remembered */
	EH_E_ADVANCE,        /* an advance past the end of the FDE's range */
	EH_E_CIE_ADVANCE,    /* an advance in a CIE's initial instructions */
	EH_E_BUDGET,         /* the instruction budget ran out */
	EH_E_NO_CFA,         /* CFA offset or register changed, or needed, before def_cfa */
	EH_E_OVERFLOW,       /* an offset overflows 64 bits */
	EH_E_NOT_EXPRESSIBLE,/* valid, but struct sf_rule cannot hold it */
	EH_E_FULL,           /* no room left for rows (eh_rows_add) */
	EH_E_RA_COLUMN,      /* a CIE's return-address column is not its ABI's */
	EH_E_NERR
};

/* Where the bytes of a section come from: a buffer in this address space,
 * or a callback per field (sframe.h's reader type: another process, user
 * memory that may fault). Every read is bounds-checked against size first. */
struct eh_src {
	const uint8_t *base; /* bytes readable directly, or NULL */
	sf_read_fn read;     /* used when base is NULL and not in_place */
	void *ctx;           /* passed to read */
	uint64_t size;       /* section length in bytes */
	uint64_t vaddr;      /* run-time address of the section's first byte */
	/* The bytes are at vaddr itself, read with the environment's load
	 * (-DEH_ENV_LOAD_H: the kernel's single user load, which may fault);
	 * without that header an in_place source fails every read. */
	bool in_place;
	/* Bytes the reads of this source may still take (NULL: no bound);
	 * a read past it fails with EH_E_BUDGET. The kernel points both
	 * sources of a table at one allowance. */
	uint64_t *read_left;
	/* enum eh_abi (0: x86-64); both sources of a table name the same. */
	uint8_t abi;
};

/* What eh_open checked: the two sections and the search table. */
struct eh_table {
	struct eh_src hdr;   /* .eh_frame_hdr (size 0 after eh_open_frame) */
	struct eh_src frame; /* .eh_frame */
	bool has_table;
	uint8_t table_enc;   /* encoding of both fields of a table entry */
	uint8_t field_size;  /* bytes of one field: an entry is two */
	uint64_t table;      /* .eh_frame_hdr offset of the table */
	uint64_t count;      /* table entries */
	/* NULL, or what eh_index_build wrote (ehframe/index.c): lookups
	 * (eh_find_rule) go through it and write to it. */
	struct eh_index *index;
};

/* A CIE: what its FDEs and the interpreter need. */
struct eh_cie {
	uint64_t off;        /* .eh_frame offset of the CIE */
	uint64_t insns;      /* offset of its initial instructions */
	uint64_t insns_end;  /* offset just past them (the CIE's end) */
	uint64_t code_align;
	int64_t data_align;
	uint64_t ra_reg;     /* the return-address column (x86-64: 16) */
	uint8_t version;
	uint8_t fde_enc;     /* 'R': how FDEs encode their addresses */
	uint8_t lsda_enc;    /* 'L', or EH_PE_OMIT */
	bool has_z;          /* 'z': augmentation data has a length */
	bool signal;         /* 'S': a signal trampoline's frame */
};

/* An FDE: one function's address range and instructions. */
struct eh_fde {
	uint64_t off;        /* .eh_frame offset of the FDE */
	uint64_t next;       /* offset of the entry after it */
	uint64_t start;      /* the function's first address */
	uint64_t size;       /* its length in bytes */
	uint64_t insns;      /* offset of its instructions */
	uint64_t insns_end;
	struct eh_cie cie;
};

/*
 * Check .eh_frame_hdr (version 1, a table of fixed-size entries that fits
 * in the section, eh_frame_ptr naming frame->vaddr) and fill *t. Reads only
 * the header's fields: the table is checked as lookups walk it (or all at
 * once by eh_check_table).
 */
int eh_open(struct eh_table *t, const struct eh_src *hdr, const struct eh_src *frame);

/* The address of .eh_frame that the header's eh_frame_ptr names (read
 * alone: the caller may need it to bound .eh_frame before eh_open). */
int eh_hdr_frame_ptr(const struct eh_src *hdr, uint64_t *frame);

/* A table of .eh_frame alone, for walks (eh_fde_next) and eh_rule_at;
 * eh_fde_find then says EH_E_HDR_NO_TABLE. */
int eh_open_frame(struct eh_table *t, const struct eh_src *frame);

/* The whole table: sorted, and each entry's FDE starting where it says. */
int eh_check_table(const struct eh_table *t);

/* The FDE that covers pc, by binary search of the table: EH_E_NO_FDE when
 * none does; an unsorted stretch the search crosses is EH_E_HDR_UNSORTED. */
int eh_fde_find(const struct eh_table *t, uint64_t pc, struct eh_fde *fde);

/* Parse the FDE at .eh_frame offset off (and its CIE). */
int eh_fde_at(const struct eh_table *t, uint64_t off, struct eh_fde *fde);

/* Walk .eh_frame: the first FDE at or after *off (CIEs are parsed and
 * skipped), *off moved past it; EH_E_END at the terminator or the end. */
int eh_fde_next(const struct eh_table *t, uint64_t *off, struct eh_fde *fde);

/*
 * The rule at pc in fde: the CIE's initial instructions, then the FDE's up
 * to pc. *budget drops by one per instruction run; EH_E_BUDGET when it
 * would go below zero. row (may be NULL) receives the address where the
 * row that applies at pc begins.
 */
int eh_rule_at(const struct eh_table *t, const struct eh_fde *fde, uint64_t pc,
	       struct sf_rule *rule, uint64_t *row, uint32_t *budget);

/* eh_fde_find then eh_rule_at; through t->index when there is one (the
 * same answers, and the same instruction budget spent). */
int eh_find_rule(const struct eh_table *t, uint64_t pc, struct sf_rule *rule,
		 uint32_t *budget);

/*
 * An index of a table (ehframe/index.c), in the caller's memory (8-byte
 * aligned, eh_index_size(t) bytes): every entry's initial location and
 * FDE offset, read once and checked sorted, every 64th by the build
 * (the top level), the others a block of 64 at a time by the first
 * lookup in it (sframe/lazy_index.h); then, as lookups land on them, each FDE's
 * parsed facts (its range, where its instructions are) and each CIE's
 * (its fields, and the row its initial instructions leave), at most
 * EH_INDEX_CIES of them. A lookup then finds the entry in ordinary
 * memory, reads that one entry again from .eh_frame_hdr (a table
 * rewritten since is looked up as without the index), and interprets
 * only the FDE's instructions up to pc, every read still checked
 * against the section. The budget is charged the CIE's instructions as
 * if they ran, so that an answer is the one eh_find_rule gives without
 * the index (the bytes a lookup no longer reads are not charged). A
 * snapshot, like SFrame's FDE index: an FDE or CIE changed in place
 * after a lookup kept it is not read again. Lookups write to the index:
 * one at a time per table.
 *
 * eh_index_build sets t->index, or fails (the table is then searched as
 * it is): EH_E_INVAL (no table, no entry, too big for 32-bit offsets,
 * size short, mem misaligned), EH_E_HDR_UNSORTED, EH_E_HDR_FDE_ADDR, or
 * a read's error. The build reads 2 * ceil(count / 64) fields of the
 * table, a fill 2 * 63 at most.
 */
#define EH_INDEX_CIES 4
uint64_t eh_index_size(const struct eh_table *t);
int eh_index_build(struct eh_table *t, void *mem, uint64_t size);

/* The same build in parts, for a caller that bounds each part's work:
 * eh_index_begin checks and lays out (EH_E_INVAL as above), then each
 * eh_index_more reads up to *work more top-level entries (one unit each, taken
 * from *work): EH_E_BUDGET while entries are left, EH_OK once the last is
 * read (t->index is set then, not before: lookups meanwhile search the
 * table), or the build's error. */
int eh_index_begin(const struct eh_table *t, void *mem, uint64_t size);
/* The lazily filled part of the index eh_index_begin laid out in mem
 * (sframe/lazy_index.h): its counters. */
const struct lz_index *eh_index_lazy(const void *mem);
int eh_index_more(struct eh_table *t, void *mem, uint32_t *work);
/*
 * Rows (ehframe/rows.c): the table a CFA program describes, computed
 * once and kept in the caller's memory, so that a lookup is a binary
 * search instead of a program run. Each row holds what eh_find_rule
 * answers at every pc from its own to the next row's: a rule (in 16
 * bytes, SFrame's information: CFA register and offset, how RA and rbp
 * are recovered, the signal flag), "no FDE", the error that refuses a
 * rule there (an expression...), or "interpret": the rows do not know
 * (an FDE whose program failed or ran out of its budget, a rule whose
 * offsets need more than 16 bits), and the caller asks eh_find_rule.
 * Rows are added search-table entry by entry, in the table's order, by
 * eh_run_rows: the interpreter's own run, told each row as it ends.
 * Equal neighbours are merged. A pc before the first row is "no FDE".
 */
enum eh_krow_kind { EH_KROW_RULE, EH_KROW_NONE, EH_KROW_REFUSED, EH_KROW_INTERPRET };

struct eh_krow {
	uint32_t pc;         /* from the rows' base */
	uint8_t kind;        /* enum eh_krow_kind | EH_KROW_SIGNAL | EH_KROW_DEREF */
	uint8_t cfa_reg;
	uint8_t ra_how, fp_how;  /* enum sf_how */
	int32_t cfa_off;     /* EH_KROW_REFUSED: the error */
	int16_t ra, fp;      /* the offset; or, by a register (SF_REG,
			      * SF_AT_REG), the register in the low byte
			      * and an offset of -128..127 in the high */
};
#define EH_KROW_SIGNAL 0x80
#define EH_KROW_DEREF  0x40 /* CFA = *(reg + off): i386's realigned frames */
#define EH_KROW_FLAGS  (EH_KROW_SIGNAL | EH_KROW_DEREF)

struct eh_rows {
	uint64_t base;       /* pcs from here to base + 4 GiB */
	struct eh_krow *row; /* the caller's, cap of them */
	uint32_t n, cap;
	uint64_t last_loc;   /* the last entry added: the next may not be lower */
	uint32_t entries, interpreted; /* entries added; left to the interpreter */
};

/* Empty rows in mem (cap rows) for pcs from base. */
void eh_rows_init(struct eh_rows *x, uint64_t base, struct eh_krow *mem, uint32_t cap);

/*
 * Adds search-table entry i (entries in increasing order; a later entry
 * takes the pcs from its initial location on, as the table's search
 * does). The FDE's program runs whole, spending from *budget; when it
 * fails, or the budget runs out, the entry's pcs are left to the
 * interpreter (counted in x->interpreted). EH_OK; EH_E_FULL: no room
 * (x unchanged but for rows of earlier entries past the entry's start,
 * which it takes anyway: call again with more room); or the table's own
 * error (an entry that cannot be read, out of order or out of reach of
 * base): the table cannot be converted.
 */
int eh_rows_add(const struct eh_table *t, uint64_t i, struct eh_rows *x, uint32_t *budget);

/* Ends what the rows answer at loc: pcs from loc on are the
 * interpreter's (a later entry's rows, kept apart). EH_E_FULL, or EH_OK. */
int eh_rows_cut(struct eh_rows *x, uint64_t loc);

/* The lowest pc a sorted table's rows hold: its first entry's location
 * (a base for eh_rows_init). */
int eh_rows_base(const struct eh_table *t, uint64_t *base);

/* Adds to empty rows x those of the entry the table's search gives for
 * pc, cut where the next entry begins: EH_OK, EH_E_NO_FDE (no entry at
 * or before pc), or eh_rows_add's error. */
int eh_rows_of_pc(const struct eh_table *t, uint64_t pc, struct eh_rows *x, uint32_t *budget);

/* pc's answer from the rows: EH_OK and *rule, EH_E_NO_FDE, the error the
 * interpreter gives there, or EH_E_END: ask eh_find_rule. */
int eh_rows_find(const struct eh_rows *x, uint64_t pc, struct sf_rule *rule);

/* A short English name for an error code. */
const char *eh_strerror(int err);

#endif /* STITCH_EHFRAME_H */
