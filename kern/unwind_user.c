#include "kern/unwind_user.h"
#include "arch/x86_64/unwind_user.h"
#include "kern/kernel.h"
#include "kern/mm.h"
#include "kern/sframe_reg.h"
#include "kern/stats.h"
#include "kern/task.h"
#include "kern/uaccess.h"
#include "kern/uvm.h"

/* A step's outcome: the frame moved to its caller, or why the walk ends. */
#define STEPPED UNWIND_STOP_COUNT

/* How far the guess method scans above sp: a bound on its work. */
#define GUESS_SCAN_BYTES (16u << 10)

typedef int (*read_word_fn)(uint64_t *val, uint64_t uaddr);

static int read_faulting(uint64_t *val, uint64_t uaddr)
{
	return get_user_u64(val, uaddr);
}

static int read_present(uint64_t *val, uint64_t uaddr)
{
	int err = copy_from_user_nofault(val, uaddr, sizeof *val);
	if (err)
		stat_inc(STAT_NMI_USER_ABSENT);
	return err;
}

/* One frame-pointer step. rbp 0 is how crt0 marks the outermost frame;
 * without frame pointers rbp is any register, and this reads garbage: the
 * checks keep the walk on an upward path through readable words, they
 * cannot make it right. */
static enum unwind_stop fp_step(struct sf_frame *f, read_word_fn read)
{
	uint64_t next, ra;
	if (f->fp == 0)
		return UNWIND_STOP_END;
	if (f->fp % UNWIND_USER_WORD || f->fp < f->sp || f->fp >= USER_END)
		return UNWIND_STOP_BAD_FRAME;
	if (read(&next, f->fp + UNWIND_USER_FP_NEXT) ||
	    read(&ra, f->fp + UNWIND_USER_FP_RA))
		return UNWIND_STOP_FAULT;
	if (ra == 0)
		return UNWIND_STOP_END;
	f->pc = ra;
	f->sp = f->fp + UNWIND_USER_FP_CFA;
	f->fp = next;
	f->caller = true;
	return STEPPED;
}

/* A pc that no section covers, or that its section has no row for: the
 * frame pointer is the only hope (counted, whatever it gives; rbp 0 is no
 * frame pointer but the outermost frame, as at _start). */
static enum unwind_stop fp_fallback(struct sf_frame *f)
{
	if (f->fp)
		stat_inc(STAT_UNWIND_FP_FALLBACK);
	return fp_step(f, read_faulting);
}

/* regs: the interrupted frame's registers by DWARF number, which a
 * flexible FDE may name in that frame (sf_step_first ignores them after). */
static enum unwind_stop sframe_step(struct sf_frame *f, const uint64_t *regs)
{
	int err;
	struct sframe_section *s = sframe_lookup(f->caller ? f->pc - 1 : f->pc, &err);
	if (err) /* the covering section was just dropped */
		return err == SF_E_FAULT ? UNWIND_STOP_FAULT : UNWIND_STOP_BAD_SFRAME;
	if (!s)
		return fp_fallback(f);
	switch ((err = sf_step_first(&s->table, f, regs, UNWIND_USER_DWARF_REGS,
				     sframe_user_read, NULL))) {
	case SF_OK:
		return STEPPED;
	case SF_E_END:
		return UNWIND_STOP_END;
	case SF_E_NO_FDE:
	case SF_E_NO_FRE:
		return fp_fallback(f);
	case SF_E_STACK_READ:
		return UNWIND_STOP_FAULT;
	case SF_E_BAD_FRAME:
		return UNWIND_STOP_BAD_FRAME;
	case SF_E_SIGNAL:
		/* The caller's registers are in the signal frame, whose layout
		 * SFrame does not give (and Stitch delivers no signals). */
		return UNWIND_STOP_SIGNAL_FRAME;
	case SF_E_FAULT:
		/* Validated once, unreadable now (unmapped since): it goes. */
		sframe_drop(s, SF_E_FAULT);
		return UNWIND_STOP_FAULT;
	default: /* a rule this unwinder cannot follow (SF_E_REG, ...) */
		return UNWIND_STOP_NO_INFO;
	}
}

/* Josh Poimboeuf's idea ("Re: [PATCH v3 00/10] x86: ORC unwinder", LKML,
 * 13 Jul 2017): every stack word that points into
 * registered text is taken for a return address. Needs no unwind data, and
 * is wrong both ways: stale return addresses of finished calls show up, and
 * nothing tells a saved function pointer from a return address. */
static bool in_text(const struct uvm *mm, uint64_t addr)
{
	return addr && uvm_sframe_find(mm, addr - 1) != NULL;
}

static uint32_t guess(const struct sf_frame *f, uint64_t *ips, uint32_t max,
		      enum unwind_stop *stop)
{
	const struct uvm *mm = current->mm;
	uint64_t words[64];
	uint64_t at = ROUND_UP(f->sp, UNWIND_USER_WORD);
	uint64_t end = at < USER_END ? MIN(USER_END, at + GUESS_SCAN_BYTES) : at;
	uint32_t n = 0;

	ips[n++] = f->pc;
	*stop = UNWIND_STOP_END;
	while (at < end) {
		/* Never across a page: a hole must not hide the words before it. */
		uint64_t len = MIN(MIN(sizeof words, end - at),
				   PAGE_ROUND_DOWN(at) + PAGE_SIZE - at);
		if (copy_from_user(words, at, len)) {
			*stop = UNWIND_STOP_FAULT;
			break;
		}
		for (uint64_t i = 0; i < len / sizeof words[0]; i++) {
			if (!in_text(mm, words[i]))
				continue;
			if (n == max) {
				*stop = UNWIND_STOP_MAX_FRAMES;
				return n;
			}
			ips[n++] = words[i];
		}
		at += len;
	}
	return n;
}

uint32_t unwind_user(enum unwind_method m, uint64_t *ips, uint32_t max,
		     enum unwind_stop *stop)
{
	struct sf_frame f;
	uint64_t regs[UNWIND_USER_DWARF_REGS];
	unwind_user_start(task_user_frame(current), &f);
	unwind_user_dwarf_regs(task_user_frame(current), regs);
	if (max == 0) {
		*stop = UNWIND_STOP_MAX_FRAMES;
		return 0;
	}
	if (m == UNWIND_METHOD_GUESS)
		return guess(&f, ips, max, stop);

	uint32_t n = 0;
	ips[n++] = f.pc;
	for (;;) {
		enum unwind_stop why = m == UNWIND_METHOD_SFRAME ?
			sframe_step(&f, regs) : fp_step(&f, read_faulting);
		if (why == STEPPED && f.pc >= USER_END)
			why = UNWIND_STOP_BAD_FRAME;
		if (why == STEPPED && n == max)
			why = UNWIND_STOP_MAX_FRAMES;
		if (why != STEPPED) {
			*stop = why;
			return n;
		}
		ips[n++] = f.pc;
	}
}

uint32_t unwind_user_fp_nmi(const struct sf_frame *start, uint64_t *ips,
			    uint32_t max)
{
	struct sf_frame f = *start;
	uint32_t n = 0;
	if (max == 0)
		return 0;
	ips[n++] = f.pc;
	while (n < max && fp_step(&f, read_present) == STEPPED && f.pc < USER_END)
		ips[n++] = f.pc;
	return n;
}
