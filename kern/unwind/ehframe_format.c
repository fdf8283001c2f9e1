#include "kern/unwind/ehframe_format.h"
#include "ehframe/ehframe.h"
#include "kern/unwind/ehframe_rows.h"
#include "kern/kernel.h"
#include "kern/lib/stats.h"
#include "stitch/syscall.h"

/*
 * A table is opened at its first use: the header's eh_frame_ptr must lie
 * in the segment registered with it, and .eh_frame is taken to run from
 * there to the segment's end (the header gives no size; the terminator or
 * the FDE lengths end it earlier). Each lookup then reads the search
 * table, one FDE, its CIE and their programs in place, every read
 * bounds-checked against its section by the library and done by one user
 * load in the walk's window.
 *
 * The walk's budget pays for both what the CFA programs run (one unit an
 * instruction, the library's budget) and what the lookup reads (one unit
 * per EH_BYTES_PER_UNIT bytes, through the sources' read_left), so a
 * table of any size or shape costs at most what is left.
 */
#define EH_BYTES_PER_UNIT 8

/* A table's own state: the library's open table, the error a lookup
 * found it damaged by (the drop counts it by reason), and the rows kept
 * of it (eh-convert, eh-rowcache: kern/unwind/ehframe_rows.h). */
struct eh_state {
	struct eh_table eh;
	int err;
	struct eh_rows_state rows;
};

static struct eh_state *eh_of(struct unwind_table *t)
{
	return (struct eh_state *)t->state;
}

/* The rules' ABI, for sf_step_rule and sf_quick_of: x86-64's registers,
 * or a compat process's i386 ones (its table read as EH_ABI_I386). */
static const struct sf_table amd64 = { .abi = SF_ABI_AMD64_LE };
static const struct sf_table i386 = { .abi = SF_ABI_I386_EH };

static const struct sf_table *rules_abi(const struct unwind_table *t)
{
	return t->compat ? &i386 : &amd64;
}

/* Boot: the rows' own switch (unwind.eh_rows, kern/unwind/ehframe_rows.c). */
static void init(void)
{
	eh_rows_setup();
}

/* Opens t's header and .eh_frame into *eh: eh_frame_ptr must lie in the
 * segment; its reads are charged to *read_left (NULL: not charged). */
static int open_eh(const struct unwind_table *t, struct eh_table *eh, uint64_t *read_left)
{
	uint8_t abi = t->compat ? EH_ABI_I386 : EH_ABI_X86_64;
	struct eh_src hdr = { .in_place = true, .size = t->len, .vaddr = t->addr,
			      .read_left = read_left, .abi = abi };
	struct eh_src frame = { .in_place = true, .read_left = read_left, .abi = abi };
	int err = eh_hdr_frame_ptr(&hdr, &frame.vaddr);
	if (err)
		return err;
	if (frame.vaddr < t->seg_start || frame.vaddr >= t->seg_end)
		return EH_E_HDR_FRAME_PTR;
	frame.size = t->seg_end - frame.vaddr;
	return eh_open(eh, &hdr, &frame);
}

/* A program's registration, read now: version 1 with a search table of
 * fixed-size entries, .eh_frame where the header says: -ENOEXEC, or
 * -EFAULT when unreadable. */
static int check_header(const struct unwind_table *t)
{
	struct eh_table eh;
	int err = open_eh(t, &eh, NULL);
	if (err == EH_E_FAULT)
		return -STITCH_EFAULT;
	return err ? -STITCH_ENOEXEC : 0;
}

/*
 * An opened table's index (eh_index_build, ehframe/index.c; its memory
 * and budget: kern/unwind/table.h, unwind_index_start): the search
 * table's entries read once, a chunk a walk, then each FDE and CIE a
 * lookup reads kept (the CIE with the row its initial instructions
 * leave), so that a lookup searches kernel memory, reads its table entry
 * again and runs only the FDE's instructions up to pc. The answers are
 * those of the lookup without it (test 28 holds the two against each
 * other at every pc of every program; test 59 the chains). Built with no
 * read budget; a table that does not read well or is not sorted gets no
 * index, and the lookups search the table as it is (and find what is
 * wrong with it themselves).
 */
static uint64_t index_size(struct unwind_table *t, uint64_t *entries)
{
	struct eh_table *eh = &eh_of(t)->eh;
	if (!eh->has_table || eh->count == 0)
		return 0;
	*entries = eh->count;
	return eh_index_size(eh);
}

static int index_begin(struct unwind_table *t, void *mem, uint64_t size)
{
	if (eh_index_begin(&eh_of(t)->eh, mem, size))
		return SF_E_NOSPACE;
	t->lazy = eh_index_lazy(mem);
	return SF_OK;
}

static int index_more(struct unwind_table *t, uint32_t *work)
{
	struct eh_table *eh = &eh_of(t)->eh;
	eh->hdr.read_left = eh->frame.read_left = NULL;
	int err = eh_index_more(eh, t->index, work);
	if (err == EH_OK)
		stat_inc(STAT_EHFRAME_INDEXED);
	return err == EH_OK ? SF_OK : err == EH_E_BUDGET ? SF_E_BUDGET : SF_E_NOSPACE;
}

/* The library's error in the registry's terms (SF_E_*); a damaged
 * table's error is kept for the drop's counters. Not inline: the common
 * answer is EH_OK (answer), and find_rule's path then stays short. */
static __attribute__((noinline)) int answer_error(struct eh_state *s, int err)
{
	switch (err) {
	case EH_E_NO_FDE:
		return SF_E_NO_FDE;
	case EH_E_BUDGET:
		return SF_E_BUDGET;
	case EH_E_EXPRESSION:     /* the PLT's CFA */
	case EH_E_UNSUPPORTED:    /* DW_CFA_set_loc, vendor opcodes */
	case EH_E_NOT_EXPRESSIBLE:
		stat_inc(STAT_EHFRAME_UNSUPPORTED);
		return SF_E_REG; /* valid, not followed: stop no-info */
	default:                  /* the table faulted or is damaged: drop it */
		s->err = err;
		return err == EH_E_FAULT ? SF_E_FAULT : SF_E_MAGIC;
	}
}

static inline int answer(struct eh_state *s, int err)
{
	return err == EH_OK ? SF_OK : answer_error(s, err);
}

/* Charges what a call read (start - left bytes) and ran (insns units
 * spent) to *budget. */
static void charge(uint32_t *budget, uint32_t insns, uint64_t start, uint64_t left)
{
	uint64_t spent = (*budget - insns) + (start - left + EH_BYTES_PER_UNIT - 1) / EH_BYTES_PER_UNIT;
	*budget = spent >= *budget ? 0 : *budget - (uint32_t)spent;
}

static int open_table(struct unwind_table *t, uint32_t *budget)
{
	struct eh_state *s = eh_of(t);
	uint64_t left = (uint64_t)*budget * EH_BYTES_PER_UNIT, start = left;
	int err = open_eh(t, &s->eh, &left);
	charge(budget, *budget, start, left);
	return answer(s, err);
}

static int find_rule(struct unwind_table *t, uint64_t pc, struct unwind_rule *r,
		     uint32_t *budget)
{
	struct eh_state *s = eh_of(t);
	uint32_t insns = *budget;
	uint64_t left = (uint64_t)*budget * EH_BYTES_PER_UNIT, start = left;
	s->eh.hdr.read_left = s->eh.frame.read_left = &left;
	r->finds++;
	r->indexed += s->eh.index != NULL;
	/* The rows answer if they can; else the interpreter, in place. */
	int err = eh_rows_answer(&s->rows, &s->eh, pc, &r->rule, r);
	if (err == EH_E_END)
		err = eh_find_rule(&s->eh, pc, &r->rule, &insns);
	err = answer(s, err);
	charge(budget, insns, start, left);
	if (err || sf_quick_of(rules_abi(t), &r->rule, &r->quick))
		return err;
	r->abi = rules_abi(t);
	return SF_E_NOT_QUICK;
}

static void counted(const struct unwind_rule *r, unsigned cpu)
{
	stat_add_on(cpu, STAT_EHFRAME_LOOKUPS, r->finds);
	stat_add_on(cpu, STAT_EHFRAME_INDEX_LOOKUPS, r->indexed);
	stat_add_on(cpu, STAT_EHROWS_LOOKUPS, r->rows);
}

static void free_state(struct unwind_table *t)
{
	eh_rows_free(&eh_of(t)->rows);
}

/* The counter of the reason a table was dropped. */
static enum stat bad_reason(int err)
{
	switch (err) {
	case EH_E_FAULT:
		return STAT_EHFRAME_BAD_FAULT;
	case EH_E_INVAL: case EH_E_HDR_VERSION: case EH_E_HDR_NO_TABLE:
	case EH_E_HDR_TABLE_ENC: case EH_E_HDR_TABLE_SIZE: case EH_E_HDR_FRAME_PTR:
		return STAT_EHFRAME_BAD_HEADER;
	case EH_E_HDR_UNSORTED: case EH_E_HDR_FDE_ADDR: case EH_E_HDR_MISMATCH:
		return STAT_EHFRAME_BAD_TABLE;
	case EH_E_CIE_POINTER: case EH_E_NOT_CIE: case EH_E_CIE_VERSION:
	case EH_E_AUGMENTATION: case EH_E_AUG_LENGTH: case EH_E_CODE_ALIGN:
	case EH_E_CIE_ADVANCE: case EH_E_RA_COLUMN:
		return STAT_EHFRAME_BAD_CIE;
	case EH_E_STATE_OVERFLOW: case EH_E_STATE_UNDERFLOW: case EH_E_ADVANCE:
	case EH_E_NO_CFA: case EH_E_OVERFLOW:
		return STAT_EHFRAME_BAD_PROGRAM;
	default: /* lengths, terminator, ranges, encodings, LEB128, truncation */
		return STAT_EHFRAME_BAD_FDE;
	}
}

static void count(enum unwind_table_event ev, const struct unwind_table *t, int err)
{
	(void)err;
	switch (ev) {
	case TABLE_REGISTERED:
		stat_inc(STAT_EHFRAME_REGISTERED);
		break;
	case TABLE_REFUSED:
		stat_inc(STAT_EHFRAME_REFUSED);
		break;
	case TABLE_REMOVED:
		stat_inc(STAT_EHFRAME_REMOVED);
		break;
	case TABLE_DROPPED:
		stat_inc(STAT_EHFRAME_DROPPED);
		stat_inc(bad_reason(((const struct eh_state *)t->state)->err));
		break;
	}
}

const struct unwind_format ehframe_format = {
	.id = UNWIND_EH_FRAME,
	.state_size = sizeof(struct eh_state),
	.init = init,
	.check = check_header,
	.open = open_table,
	.index_size = index_size,
	.index_begin = index_begin,
	.index_more = index_more,
	.find = find_rule,
	.counted = counted,
	.free = free_state,
	.count = count,
};
