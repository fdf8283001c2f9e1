/*
 * sframe: read (and re-encode) SFrame stack-trace sections, versions 1-3.
 *
 * One freestanding library, compiled into the kernel and into the host
 * tools. No libc, no allocation, no globals, no recursion. Every byte of
 * the section is read through struct sf_src, after a bounds check, so a
 * section in user memory that faults or lies about its sizes can only make
 * a call fail with an error code, never read outside the section.
 *
 * Typical use (docs/SFRAME.md has a longer example):
 *
 *	struct sf_table t;
 *	struct sf_src src = { .base = buf, .size = len, .vaddr = sec_addr };
 *	if (sf_open(&t, &src) || sf_validate(&t))
 *		reject;
 *	struct sf_frame f = { .pc = ip, .sp = sp, .fp = bp };
 *	while (sf_step(&t, &f, read_user, ctx) == SF_OK)
 *		record(f.pc);
 *
 * Addresses: the section is assumed to live at run-time address src.vaddr;
 * every function start address the library returns is absolute (vaddr
 * plus whatever offset the format encodes).
 */
#ifndef STITCH_SFRAME_H
#define STITCH_SFRAME_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "lazy_index.h"

/* On-disk constants (binutils include/sframe.h). */
#define SF_MAGIC        0xdee2
#define SF_HEADER_SIZE  28

#define SF_F_FDE_SORTED      0x1 /* FDEs sorted by start address */
#define SF_F_FRAME_POINTER   0x2 /* v1/v2: all functions keep a frame pointer */
#define SF_F_FUNC_START_PCREL 0x4 /* v2 erratum, v3: start is relative to the field */

#define SF_ABI_AARCH64_BE 1
#define SF_ABI_AARCH64_LE 2
#define SF_ABI_AMD64_LE   3
/* Not an SFrame ABI: SFrame defines none for i386, and sf_open refuses
 * this one. The .eh_frame unwinder hands the step i386 rules under it
 * (a struct sf_table with only abi set): esp 4 and ebp 5 by DWARF
 * number, 4-byte stack words, the CFA 4-byte aligned and strictly above
 * sp. */
#define SF_ABI_I386_EH    0x80

#define SF_FRE_ADDR1 0 /* FRE start addresses are 1, 2 or 4 bytes */
#define SF_FRE_ADDR2 1
#define SF_FRE_ADDR4 2

#define SF_PC_INC  0 /* FRE start = offset from the function start */
#define SF_PC_MASK 1 /* FRE start = offset within a repeated block (PLT) */

#define SF_FDE_DEFAULT 0 /* data words are CFA, [RA], [FP] offsets */
#define SF_FDE_FLEX    1 /* v3: data words are (control, offset) pairs */

#define SF_BASE_FP 0 /* default FDEs: CFA is based on the frame pointer */
#define SF_BASE_SP 1 /* ... or on the stack pointer */

/* The most data words a valid FRE carries (flex FDE: CFA, RA and FP pairs). */
#define SF_MAX_WORDS 6

/* Every way a call can fail. 0 is success; sf_strerror() names them. */
enum sf_err {
	SF_OK = 0,
	SF_E_INVAL,          /* bad argument (NULL, zero-sized source) */
	SF_E_FAULT,          /* the section reader failed (page fault) */
	SF_E_SHORT,          /* section shorter than the header */
	SF_E_MAGIC,          /* not an SFrame section */
	SF_E_ENDIAN,         /* SFrame of the other byte order */
	SF_E_VERSION,        /* version not 1, 2 or 3 */
	SF_E_ABI,            /* unknown ABI/arch */
	SF_E_FLAGS,          /* flag bits undefined for this version */
	SF_E_HDR_BOUNDS,     /* FDE array or FRE sub-section outside the section */
	SF_E_HDR_LAYOUT,     /* FDE array not before the FRE sub-section */
	SF_E_FDE_INDEX,      /* FDE index >= number of FDEs */
	SF_E_FDE_TYPE,       /* bad FRE type, PC type or FDE type in an FDE */
	SF_E_FDE_SIZE,       /* PCMASK block of size 0 */
	SF_E_FDE_UNSORTED,   /* SORTED flag set but start addresses decrease */
	SF_E_FDE_OVERLAP,    /* SORTED flag set but two functions overlap */
	SF_E_FDE_RANGE,      /* function wraps around the address space */
	SF_E_FRE_BOUNDS,     /* FRE (or v3 attribute record) past the FRE sub-section */
	SF_E_FRE_INFO,       /* bad data word size or count in an FRE */
	SF_E_FRE_ORDER,      /* FRE start addresses not increasing */
	SF_E_FRE_OUTSIDE,    /* FRE starts at or beyond the end of its function */
	SF_E_FRE_COUNT,      /* FDE FRE counts do not add up to the header's */
	SF_E_NO_FDE,         /* no function covers the pc */
	SF_E_NO_FRE,         /* the pc precedes the function's first FRE */
	SF_E_RULE,           /* FRE data words do not form a valid rule */
	SF_E_REG,            /* rule needs a register the unwinder does not have */
	SF_E_SIGNAL,         /* signal frame: the step needs the sigcontext */
	SF_E_END,            /* outermost frame (RA undefined or 0): stop */
	SF_E_STACK_READ,     /* the memory reader failed on the user stack */
	SF_E_BAD_FRAME,      /* CFA not above sp, or misaligned */
	SF_E_UNSUPPORTED,    /* cannot be expressed in the target version */
	SF_E_NOSPACE,        /* encoder output buffer too small */
	SF_E_FDE_TEXT,       /* function outside the text the section describes */
	SF_E_BUDGET,         /* the lookup ran out of its work allowance */
	SF_E_NOT_QUICK,      /* sf_find_quick cannot answer: ask sf_find_rule_bounded */
	SF_E_NERR
};

/*
 * Reads len bytes at run-time address addr into dst; returns false on a
 * fault. The same type serves both the section (addr = vaddr + offset) and
 * the stack.
 */
typedef bool (*sf_read_fn)(void *ctx, uint64_t addr, void *dst, uint32_t len);

/*
 * Where the section bytes come from, one of three ways:
 *   base      a buffer in this address space: plain loads;
 *   in_place  the bytes are at vaddr itself, in memory that may fault:
 *             each field is one load of 1, 2, 4 or 8 bytes through the
 *             environment's checked load (sframe/internal.h: a kernel
 *             build plugs in single user loads with exception fixups,
 *             elsewhere it is a plain load), no call per read;
 *   read      a callback per field (a file, another process).
 * Every read is bounds-checked against size first, whichever way.
 */
struct sf_src {
	const uint8_t *base; /* bytes readable directly, or NULL */
	sf_read_fn read;     /* used when base is NULL and not in_place */
	void *ctx;           /* passed to read */
	uint32_t size;       /* section length in bytes */
	uint64_t vaddr;      /* run-time address of the section's first byte */
	bool in_place;       /* base and read NULL: load at vaddr + offset */
};

/* A checked header: what sf_open() fills in and every other call reads. */
struct sf_table {
	struct sf_src src;
	uint8_t version;
	uint8_t flags;
	uint8_t abi;
	int8_t fixed_fp;     /* CFA-relative FP slot when fixed, else 0 */
	int8_t fixed_ra;     /* CFA-relative RA slot when fixed (AMD64: -8) */
	uint8_t auxhdr_len;
	uint8_t fde_size;    /* 17 (v1), 20 (v2) or 16 (v3 index entry) */
	uint32_t num_fdes;
	uint32_t num_fres;
	uint32_t fre_len;
	uint32_t fdes;       /* section offset of the FDE array */
	uint32_t fres;       /* section offset of the FRE sub-section */
	/* The code the section describes: a found function must lie inside
	 * (sf_open sets the whole address space; a caller that knows the
	 * registered text narrows it). */
	uint64_t text_start, text_end;
	/* NULL, or what sf_fde_index_build wrote. */
	const struct sf_fde_index *fde_index;
};

/* An FDE index of a sorted section: the start address of FDEs 0,
 * step, 2 step, ... (n of them), increasing. With step 1 (an entry per
 * FDE) the starts are filled lazily (lz, sframe/lazy_index.h), then come
 * each FDE as a lookup first read it (struct sf_kept_fde) and the
 * blocks' filled flags; with a greater step, a directory of n 32-bit
 * bucket entries (sframe/fde_index.h) over 2^shift-byte buckets. */
struct sf_fde_index {
	uint32_t step;
	uint32_t n;
	uint32_t built;      /* step > 1: the starts read so far (sf_fde_index_more) */
	uint8_t shift;
	struct lz_index lz;  /* step 1 */
	uint64_t start[];
};

/* An FDE of an index with an entry per FDE, as a lookup first read it (its start is
 * the entry's): a lookup reads an FDE from the section once, when it
 * first lands on it and the FDE reads well, and from here after that.
 * found_err: what a lookup that finds the pc in it says (sf_fde_check_shape,
 * outside the text). */
struct sf_kept_fde {
	uint32_t size;
	uint32_t first_fre;  /* section offset of the first FRE */
	uint32_t num_fres;
	uint8_t info, info2, rep_size;
	uint8_t found_err;
	uint8_t quick_type;  /* its FRE type if sf_find_quick may take it, else 0xff */
	bool read;           /* false: not read yet */
};

/* One function descriptor, whatever the version. */
struct sf_fde {
	uint64_t start;      /* absolute start address of the function */
	uint32_t size;       /* function length in bytes */
	uint32_t index;      /* position in the FDE array */
	uint32_t first_fre;  /* section offset of the first FRE */
	uint32_t num_fres;
	uint8_t info;        /* raw info byte (FRE type, PC type, ...) */
	uint8_t info2;       /* v3: raw second info byte (FDE type) */
	uint8_t fre_type;    /* SF_FRE_ADDR1/2/4 */
	uint8_t pc_type;     /* SF_PC_INC or SF_PC_MASK */
	uint8_t fde_type;    /* SF_FDE_DEFAULT or SF_FDE_FLEX */
	uint8_t rep_size;    /* SF_PC_MASK: size of the repeated block */
	bool pauth_key_b;    /* AArch64: RA signed with key B */
	bool signal;         /* v3: a signal trampoline */
	int64_t raw_start;   /* the start field as stored (dump, tests) */
};

/* One frame row entry. */
struct sf_fre {
	uint32_t start;      /* offset from the function (or block) start */
	uint32_t off;        /* section offset of this FRE */
	uint8_t size;        /* encoded length in bytes */
	uint8_t info;        /* raw info byte */
	uint8_t base;        /* SF_BASE_FP or SF_BASE_SP (default FDEs) */
	uint8_t nwords;      /* number of data words */
	uint8_t word_size;   /* 1, 2 or 4 bytes */
	bool mangled_ra;     /* AArch64: RA is signed */
	int32_t word[SF_MAX_WORDS]; /* data words, sign-extended */
};

/* How a register of the caller is recovered. */
enum sf_how {
	SF_SAME,      /* not saved: the caller's value is the current value */
	SF_UNDEFINED, /* RA only: outermost frame */
	SF_AT_CFA,    /* saved at CFA + off */
	SF_VAL_CFA,   /* value = CFA + off (flex FDEs) */
	SF_REG,       /* value = reg + off (flex FDEs) */
	SF_AT_REG,    /* saved at reg + off (flex FDEs) */
};

struct sf_where {
	uint8_t how;  /* enum sf_how */
	uint8_t reg;  /* DWARF register number (SF_REG, SF_AT_REG) */
	int32_t off;
};

/* The frame rule at one pc: CFA = [*](reg + off); RA and FP from `where`. */
struct sf_rule {
	uint8_t cfa_reg;     /* DWARF number: AMD64 rsp 7 / rbp 6, AArch64 sp 31 / x29 */
	bool cfa_deref;      /* CFA = *(reg + off) (flex FDEs) */
	int32_t cfa_off;
	struct sf_where ra;
	struct sf_where fp;
	bool mangled_ra;
	bool signal;
};

/* Registers an unwind step reads and updates. */
struct sf_frame {
	uint64_t pc;
	uint64_t sp;
	uint64_t fp;
	bool caller; /* pc is a return address: look up pc - 1 (set by sf_step) */
};

/* Check the header and fill *t. Reads only the header. */
int sf_open(struct sf_table *t, const struct sf_src *src);

/* The header's cross-checks that need no walk: the FDE array before the
 * FRE sub-section, no more FREs than its bytes can hold. Constant time. */
int sf_check_layout(const struct sf_table *t);

/* The bytes the header accounts for (FDE array and FRE sub-section): a
 * section's real size when the container's is larger (ld 2.40's
 * PT_GNU_SFRAME, docs/KERNEL.md). */
uint32_t sf_used_size(const struct sf_table *t);

/* Full pass: every FDE and FRE in bounds and well formed, FDEs sorted if
 * flagged, FREs increasing and inside their function, counts consistent.
 * Lookups do not need it: they check what they read (docs/SFRAME.md). */
int sf_validate(const struct sf_table *t);

/*
 * An FDE index, for a section read in place (the kernel's): the starts
 * of at most max FDEs, every step-th one, in sf_fde_index_size(t, max) bytes
 * of the caller's memory (8-byte aligned). Building it reads those starts
 * only (bounded work, no validation: they must increase); a lookup then
 * searches them in ordinary memory and reads from the section only the
 * FDEs of one block of step, checking all it reads against the entries
 * and its neighbours. With an entry per FDE (num_fdes <= max) the build
 * reads every 64th start only, and the first lookup in a block of 64
 * its other starts, checked increasing within the block's bounds, once
 * (sframe/lazy_index.h); the index also keeps each FDE a lookup read
 * well (struct sf_kept_fde), so that
 * the next lookup of that function reads only its rows: such lookups
 * write to the index, and must not run at the same time on one table
 * unless sf_fde_index_read_all() has read every FDE. It is a snapshot: a
 * lookup that finds the section's start of an indexed FDE changed since
 * its block was filled says SF_E_FDE_UNSORTED (an FDE kept is not read again).
 * sf_fde_index_build sets t->fde_index; SF_E_FDE_UNSORTED for a section without
 * SF_F_FDE_SORTED (or empty) or whose starts the build reads decrease,
 * SF_E_NOSPACE when size holds no entry, SF_E_INVAL for misaligned
 * memory, SF_E_FAULT when a read fails.
 */
uint64_t sf_fde_index_size(const struct sf_table *t, uint32_t max);
int sf_fde_index_build(struct sf_table *t, void *mem, uint64_t size);

/* The same build in parts, for a caller that bounds each part's work:
 * sf_fde_index_begin lays the index out in mem (the errors of the build
 * but the reads'), then each sf_fde_index_more reads up to *work more
 * starts (of the top level with an entry per FDE; one unit each, taken from *work): SF_E_BUDGET while starts are
 * left, SF_OK once the last is read (t->fde_index is set then, not
 * before: lookups meanwhile search the section), or the build's error. */
int sf_fde_index_begin(const struct sf_table *t, void *mem, uint64_t size);
int sf_fde_index_more(struct sf_table *t, void *mem, uint32_t *work);

/* With an entry per FDE: read and keep every FDE now (bounded by
 * num_fdes), so that lookups only read the index; the first FDE that
 * does not read well is the error. With step > 1, nothing to do. */
int sf_fde_index_read_all(const struct sf_table *t);

/* The idx-th FDE. */
int sf_fde_get(const struct sf_table *t, uint32_t idx, struct sf_fde *fde);

/* The FDE whose function covers pc: binary search if sorted, else linear.
 * This and the lookups below are the accelerated ones (sframe/fast.c),
 * which check what they read: the same answers as the reference
 * (sf_plain_fde_find and the others, below) on a valid section. */
int sf_fde_find(const struct sf_table *t, uint64_t pc, struct sf_fde *fde);

/* Decode the FRE at section offset off of fde (off = fde->first_fre for
 * the first one, then previous.off + previous.size). */
int sf_fre_read(const struct sf_table *t, const struct sf_fde *fde,
		uint32_t off, struct sf_fre *fre);

/* The FRE of fde that applies at pc. */
int sf_fre_find(const struct sf_table *t, const struct sf_fde *fde,
		uint64_t pc, struct sf_fre *fre);

/* The frame rule an FRE describes. */
int sf_rule_of(const struct sf_table *t, const struct sf_fde *fde,
	       const struct sf_fre *fre, struct sf_rule *rule);

/* FDE, FRE and rule for pc in one call. */
int sf_find_rule(const struct sf_table *t, uint64_t pc, struct sf_rule *rule);

/* The same with a work allowance: *work drops by one per FDE probe and
 * per FRE row read; SF_E_BUDGET when it would run out (a valid section
 * with a million rows in one function costs what the caller allows). */
int sf_find_rule_bounded(const struct sf_table *t, uint64_t pc,
			 struct sf_rule *rule, uint32_t *work);

/*
 * The reference lookups (sframe/plain.c): sf_fde_find, sf_fre_find and
 * sf_find_rule the plainest way, through the readers above only. On a
 * section sf_validate accepts they give the same answers (the tests
 * check every pc of every program the build has); on any other they are
 * safe, not checked: the accelerated ones are the ones to use.
 */
int sf_plain_fde_find(const struct sf_table *t, uint64_t pc, struct sf_fde *fde);
int sf_plain_fre_find(const struct sf_table *t, const struct sf_fde *fde, uint64_t pc,
		      struct sf_fre *fre);
int sf_plain_find_rule(const struct sf_table *t, uint64_t pc, struct sf_rule *rule);

/* Unwind one frame: replace *f by its caller's pc, sp and fp, reading the
 * stack through read (which may fail), or with read NULL in place, through
 * the environment's checked load. Returns SF_E_END at the outermost
 * frame. */
int sf_step(const struct sf_table *t, struct sf_frame *f,
	    sf_read_fn read, void *ctx);

/* sf_step for the interrupted frame, whose other registers are known:
 * regs[i] is DWARF register i, for i < nregs (AMD64: 0-16, rax to rip).
 * A flexible FDE may base the CFA, RA or FP on one of them (x86-64 DRAP:
 * r10 around a stack realignment); beyond the first frame only sp and fp
 * are known, so regs is ignored when f->caller is set. */
int sf_step_first(const struct sf_table *t, struct sf_frame *f,
		  const uint64_t *regs, uint32_t nregs, sf_read_fn read, void *ctx);

/* The second half of sf_step_first: apply a rule sf_find_rule gave for
 * f->pc (or f->pc - 1 when f->caller); regs as for sf_step_first (NULL:
 * none). */
int sf_step_rule(const struct sf_table *t, const struct sf_rule *rule,
		 struct sf_frame *f, const uint64_t *regs, uint32_t nregs,
		 sf_read_fn read, void *ctx);

/*
 * A rule in the shape almost every compiled frame has (CFA = sp or fp +
 * offset, RA saved at the CFA, FP kept or saved at the CFA), reduced to
 * what its step needs, so that a caller that caches rules can apply one
 * with a few instructions (sf_quick_step); sf_step_rule uses it too.
 */
struct sf_quick {
	int32_t cfa_off;
	int32_t ra_off;
	int32_t fp_off;
	bool cfa_fp;    /* CFA from fp, else from sp */
	bool fp_saved;  /* FP at CFA + fp_off, else unchanged */
	bool strict;    /* the CFA must lie strictly above sp (AMD64, i386) */
	uint8_t word;   /* a stack word's bytes: 8, or 4 (i386): the CFA's
			 * alignment, and what sf_quick_step's load reads */
};

/* Fills *q and returns true when rule has that shape. */
bool sf_quick_of(const struct sf_table *t, const struct sf_rule *rule,
		 struct sf_quick *q);

/*
 * The quick rule at pc in one pass, for the common case only: a table
 * with an entry per FDE (sf_fde_index_build), pc's FDE of the default type,
 * its row at pc of the quick shape. It reads from the section pc's FDE
 * once (then the index keeps it, as any lookup through it does) and
 * pc's function's rows, and builds no struct sf_fde, sf_fre or sf_rule
 * (the kernel's unwinder calls it on each rule cache miss). SF_OK and
 * *q; SF_E_END when pc's row marks the outermost frame (where
 * sf_find_rule_bounded gives a rule whose RA is undefined, which
 * sf_step_rule answers SF_E_END); SF_E_NOT_QUICK when this is not the
 * common case, and the caller asks sf_find_rule_bounded; else the error
 * sf_find_rule_bounded would give, with the same charge to *work.
 */
int sf_find_quick(const struct sf_table *t, uint64_t pc, struct sf_quick *q,
		  uint32_t *work);

/* The caller's frame lies above this one (on x86 strictly: the return
 * address sits between), and frames are aligned to the stack's words
 * (word bytes, a power of 2). A step that breaks this would loop or
 * wander, so it ends the walk. */
static inline bool sf_cfa_ok(uint64_t cfa, uint64_t sp, bool strict, uint32_t word)
{
	return (strict ? cfa > sp : cfa >= sp) && !(cfa & (word - 1));
}

/*
 * The end of every step: the caller's frame is (ra, cfa, fp), unless the
 * return address is 0, which marks the outermost frame (SF_E_END).
 */
static inline int sf_frame_up(struct sf_frame *f, uint64_t ra, uint64_t cfa,
			      uint64_t fp)
{
	if (ra == 0)
		return SF_E_END;
	f->pc = ra;
	f->sp = cfa;
	f->fp = fp;
	f->caller = true;
	return SF_OK;
}

/*
 * One step by a quick rule: the checks of sf_step_rule (the CFA above sp
 * and word-aligned, SF_E_END for a return address 0), each stack word
 * read with load(ctx, addr, q->word, &v) (a little-endian word of that
 * many bytes, zero-extended), false on a fault (SF_E_STACK_READ). Always
 * inline, so that a constant load is inlined too: the kernel's walk
 * steps by it at every cached frame (a call costs more than the step).
 */
static inline __attribute__((always_inline)) int sf_quick_step(const struct sf_quick *q, struct sf_frame *f,
				bool (*load)(void *ctx, uint64_t addr, uint32_t size, uint64_t *v),
				void *ctx)
{
	/* The rule's fields read once, before the loads (which a compiler
	 * may not move reads across). */
	const struct sf_quick r = *q;
	uint64_t cfa = (r.cfa_fp ? f->fp : f->sp) + (uint64_t)(int64_t)r.cfa_off;
	uint64_t ra, fp = f->fp;

	if (!sf_cfa_ok(cfa, f->sp, r.strict, r.word))
		return SF_E_BAD_FRAME;
	if (!load(ctx, cfa + (uint64_t)(int64_t)r.ra_off, r.word, &ra) ||
	    (r.fp_saved && !load(ctx, cfa + (uint64_t)(int64_t)r.fp_off, r.word, &fp)))
		return SF_E_STACK_READ;
	return sf_frame_up(f, ra, cfa, fp);
}

/* Encode the section t describes as version `version` (2 or 3), to live at
 * run-time address vaddr. pcrel selects SF_F_FUNC_START_PCREL. Writes at
 * most cap bytes to out; *len receives the size needed (also on
 * SF_E_NOSPACE, so a caller may ask with cap 0 first). */
int sf_encode(const struct sf_table *t, uint8_t version, bool pcrel,
	      uint64_t vaddr, uint8_t *out, uint32_t cap, uint32_t *len);
/* The same, and the FDE that covers *signal_pc gets the signal mark
 * (version 3 only: SF_E_UNSUPPORTED for 1 and 2; SF_E_NO_FDE when no FDE
 * covers it). */
int sf_encode_signal(const struct sf_table *t, uint8_t version, bool pcrel,
		     uint64_t vaddr, const uint64_t *signal_pc, uint8_t *out,
		     uint32_t cap, uint32_t *len);

/* A short English name for an error code. */
const char *sf_strerror(int err);

#endif /* STITCH_SFRAME_H */
