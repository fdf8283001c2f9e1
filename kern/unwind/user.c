#include "kern/unwind/user.h"
#include <arch/uaccess.h>
#include <arch/user_load.h>
#include <arch/unwind_user.h>
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/proc/sched.h"
#include "kern/mm/mm.h"
#include "kern/unwind/lookup.h"
#include "kern/unwind/table.h"
#include "kern/lib/stats.h"
#include "kern/proc/task.h"
#include "kern/mm/uaccess.h"
#include "kern/mm/uvm.h"

/* A step's outcome: the frame moved to its caller, or why the walk ends. */
#define STEPPED UNWIND_STOP_COUNT

/* How far the guess method scans above sp: a bound on its work. */
#define GUESS_SCAN_BYTES (16u << 10)

/* What one table walk may spend: FDE search probes plus FRE rows read
 * (unwind.budget). A chain of 512 frames of ordinary functions needs a
 * few thousand; a million-row function needs more than this per step. */
#define UNWIND_BUDGET_DEFAULT (1u << 16)
static uint32_t budget = UNWIND_BUDGET_DEFAULT;
static enum unwind_method method = UNWIND_METHOD_SFRAME;

void unwind_user_init(void)
{
	budget = (uint32_t)cmdline_int(&boot_args, "unwind.budget", UNWIND_BUDGET_DEFAULT,
				       1, UINT32_MAX);
	lookup_init();
}

/* A table walk: the lookup's state, and the walk's own. */
struct table_walk {
	struct rule_lookup lookup;
	/* sp in the signal trampoline the frame came out of, whose signal
	 * frame holds the frame's registers; 0 while the frame is the
	 * entry's. */
	uint64_t signal_sp;
};

void unwind_user_set_method(enum unwind_method m)
{
	method = m;
}

bool unwind_user_walks_tables(void)
{
	return method < UNWIND_METHOD_FP;
}

/* A little-endian stack word of size (4 or 8) bytes at uaddr into *val. */
typedef int (*read_word_fn)(uint64_t *val, uint64_t uaddr, uint32_t size);

static int read_faulting(uint64_t *val, uint64_t uaddr, uint32_t size)
{
	*val = 0;
	return size == sizeof *val ? get_user_u64(val, uaddr) : copy_from_user(val, uaddr, size);
}

static int read_present(uint64_t *val, uint64_t uaddr, uint32_t size)
{
	*val = 0;
	int err = copy_from_user_nofault(val, uaddr, size);
	if (err)
		stat_inc(STAT_NMI_USER_ABSENT);
	return err;
}

/* The frame-pointer frames a walk follows (arch/unwind_user.h): a 64-bit
 * program's, or a compat (i386) program's, of 4-byte words below 4 GiB. */
struct fp_layout {
	uint32_t word;           /* a stack word's bytes, an fp's alignment */
	uint32_t next, ra, cfa;  /* the caller's fp, the return address, the CFA: fp + these */
	uint64_t end;            /* no word of a frame reaches it */
};
static const struct fp_layout fp_native = {
	UNWIND_USER_WORD, UNWIND_USER_FP_NEXT, UNWIND_USER_FP_RA, UNWIND_USER_FP_CFA, USER_END,
};
static const struct fp_layout fp_compat = {
	UNWIND_COMPAT_WORD, UNWIND_COMPAT_FP_NEXT, UNWIND_COMPAT_FP_RA, UNWIND_COMPAT_FP_CFA,
	UNWIND_COMPAT_END,
};

static const struct fp_layout *fp_layout_of(const struct uvm *mm)
{
	return mm->compat ? &fp_compat : &fp_native;
}

/* One frame-pointer step. rbp 0 is how crt0 marks the outermost frame;
 * without frame pointers rbp is any register, and this reads garbage: the
 * checks keep the walk on an upward path through readable words, they
 * cannot make it right. A compat frame whose words would reach 4 GiB is
 * a lie its program cannot have told with 32-bit pushes: refused, and
 * counted. */
static enum unwind_stop fp_step(struct sf_frame *f, read_word_fn read,
				const struct fp_layout *l)
{
	uint64_t next, ra;
	if (f->fp == 0)
		return UNWIND_STOP_END;
	if (f->fp > l->end - l->cfa) {
		if (l == &fp_compat)
			stat_inc(STAT_UNWIND_COMPAT_FP_REFUSED);
		return UNWIND_STOP_BAD_FRAME;
	}
	if (f->fp % l->word || f->fp < f->sp)
		return UNWIND_STOP_BAD_FRAME;
	if (read(&next, f->fp + l->next, l->word) || read(&ra, f->fp + l->ra, l->word))
		return UNWIND_STOP_FAULT;
	if (ra == 0)
		return UNWIND_STOP_END;
	f->pc = ra;
	f->sp = f->fp + l->cfa;
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
	return fp_step(f, read_faulting, fp_layout_of(current->mm));
}

/* A table that read wrong: dropped (counted by reason), and the step
 * ends with the stop that says why. */
static enum unwind_stop drop(struct unwind_table *t, int err)
{
	unwind_table_drop(t, err);
	return err == SF_E_FAULT ? UNWIND_STOP_FAULT : UNWIND_STOP_BAD_SFRAME;
}

/* A stack word of size bytes (8, or a compat program's 4), read in the
 * walk's window (sf_quick_step's loader). Each load has a constant size,
 * so that it is one instruction (arch_user_load), not a switch on it. */
static inline __attribute__((always_inline)) bool
user_word(void *ctx, uint64_t addr, uint32_t size, uint64_t *v)
{
	(void)ctx;
	if (size == sizeof *v)
		return arch_user_load(addr, sizeof *v, v);
	/* A compat stack's words lie below 4 GiB, whatever else is mapped. */
	uint32_t w;
	if (addr > UNWIND_COMPAT_END - UNWIND_COMPAT_WORD ||
	    !arch_user_load(addr, UNWIND_COMPAT_WORD, &w))
		return false;
	*v = w;
	return true;
}

/* What ends a table step other than the step itself; runs with the
 * user-access window closed (it may call the faulting helpers, free). */
static enum unwind_stop step_failed(struct sf_frame *f, struct unwind_table *t,
				    int err)
{
	switch (err) {
	case SF_E_END:
		return UNWIND_STOP_END;
	case SF_E_NO_FDE:
	case SF_E_NO_FRE:
		return fp_fallback(f);
	case SF_E_STACK_READ:
		return UNWIND_STOP_FAULT;
	case SF_E_BAD_FRAME:
		return UNWIND_STOP_BAD_FRAME;
	case SF_E_BUDGET:
		return UNWIND_STOP_BUDGET;
	case SF_E_REG:    /* a rule this unwinder cannot follow */
		return UNWIND_STOP_NO_INFO;
	default:          /* the table faulted, or is damaged */
		return drop(t, err);
	}
}

/*
 * A frame of the signal page's trampoline (its FDE has the signal mark):
 * the interrupted context is in the signal frame the kernel wrote at sp
 * (include/stitch/signal.h), where the arch header says. Its pc is where
 * the signal came, not a return address: the next lookup is at pc itself
 * (f->caller false), and a flexible rule there finds the other registers
 * in the same frame (signal_sp). A signal-marked FDE anywhere else
 * describes a frame the kernel did not write, of a layout it does not
 * know: the walk ends there. A frame that lies about the interrupted sp
 * cannot send the walk down the stack. Word by word with the faulting
 * loads (window closed): signal frames are rare, and their page may be out.
 */
static enum unwind_stop signal_step(struct sf_frame *f, uint64_t *signal_sp)
{
	uint64_t pc, sp, fp;
	if (!unwind_user_in_sigpage(f->pc))
		return UNWIND_STOP_SIGNAL_FRAME;
	if (read_faulting(&pc, f->sp + UNWIND_USER_SIG_RIP, sizeof pc) ||
	    read_faulting(&sp, f->sp + UNWIND_USER_SIG_RSP, sizeof sp) ||
	    read_faulting(&fp, f->sp + UNWIND_USER_SIG_RBP, sizeof fp))
		return UNWIND_STOP_FAULT;
	if (sp < f->sp + UNWIND_USER_SIG_MIN_GAP)
		return UNWIND_STOP_BAD_FRAME;
	stat_inc(STAT_UNWIND_SIGNAL_FRAMES);
	if (signal_sp)
		*signal_sp = f->sp;
	*f = (struct sf_frame){ .pc = pc, .sp = sp, .fp = fp, .caller = false };
	return STEPPED;
}

/* The registers by DWARF number of the frame a walk is in while it is not
 * a caller: the entry's, or a signal frame's (single loads in the walk's
 * window). */
static bool frame_regs(const struct table_walk *w, uint64_t regs[UNWIND_USER_DWARF_REGS],
		       uint32_t *nregs)
{
	*nregs = UNWIND_USER_DWARF_REGS;
	if (!w->signal_sp && current->mm->compat) {
		*nregs = UNWIND_COMPAT_DWARF_REGS; /* i386's numbers */
		unwind_compat_dwarf_regs(task_user_frame(current), regs);
		return true;
	}
	if (!w->signal_sp) {
		unwind_user_dwarf_regs(task_user_frame(current), regs);
		return true;
	}
	for (int i = 0; i < UNWIND_USER_DWARF_REGS; i++)
		if (!arch_user_load(w->signal_sp + unwind_user_sig_dwarf_reg(i), 8, &regs[i]))
			return false;
	return true;
}

/* One table step that is not a quick one, in the user-access window
 * the walk holds open: the lookup failed (a.err), or its rule has
 * another shape. In a frame that is not a caller's a flexible FDE may
 * name any register, by DWARF number (frame_regs). A signal trampoline's
 * rule hands the frame to signal_step. The window closes around a
 * failure. Not inline: rare, and its frame is large. */
static __attribute__((noinline)) enum unwind_stop
rule_step(struct sf_frame *f, struct unwind_answer a, struct table_walk *w)
{
	uint64_t regs[UNWIND_USER_DWARF_REGS];
	uint32_t nregs = 0;
	int err = a.err;
	if (!err && !f->caller && !frame_regs(w, regs, &nregs))
		err = SF_E_STACK_READ;
	const struct unwind_rule *r = lookup_other(&w->lookup);
	if (!err)
		err = sf_step_rule(r->abi, &r->rule, f, f->caller ? NULL : regs, nregs, NULL, NULL);
	if (!err)
		return STEPPED;
	arch_user_access_end();
	enum unwind_stop why = err == SF_E_SIGNAL ? signal_step(f, &w->signal_sp) :
			       step_failed(f, lookup_table(&w->lookup), err);
	arch_user_access_begin();
	return why;
}

/*
 * Between two steps: the unwind may take long (a deep stack, a function
 * of many rows, page faults), and the kernel is not preemptible, so this
 * is where it lets others run when the tick asked for it (closing the
 * table walk's window, window), and ends when the task was killed
 * meanwhile. The walk's state (frame, trace, what is left of the budget)
 * is on this task's stack and survives the switch.
 */
static __attribute__((noinline)) void reschedule(bool window)
{
	stat_inc(STAT_UNWIND_PREEMPTED);
	if (window)
		arch_user_access_end();
	schedule();
	if (window)
		arch_user_access_begin();
}

static inline bool preempt_point(struct task *t, bool window)
{
	if (__atomic_load_n(&t->pending, __ATOMIC_RELAXED) & (1ul << TIF_NEED_RESCHED))
		reschedule(window);
	return !task_killed(t);
}

/* Josh Poimboeuf's idea ("Re: [PATCH v3 00/10] x86: ORC unwinder", LKML,
 * 13 Jul 2017): every stack word that points into
 * registered text is taken for a return address. Needs no unwind data, and
 * is wrong both ways: stale return addresses of finished calls show up, and
 * nothing tells a saved function pointer from a return address. */
static bool in_text(const struct uvm *mm, uint64_t addr)
{
	/* A compat process registers no SFrame: its .eh_frame says. */
	return addr && unwind_table_find(mm, mm->compat ? UNWIND_EH_FRAME : UNWIND_SFRAME,
					 addr - 1) != NULL;
}

/* A compat process's stack holds 4-byte words, below its stack's top. */
static uint32_t guess(const struct sf_frame *f, uint64_t *ips, uint32_t max,
		      enum unwind_stop *stop)
{
	const struct uvm *mm = current->mm;
	uint64_t words[64];
	uint32_t word = fp_layout_of(mm)->word;
	uint64_t top = uvm_stack_end(mm);
	uint64_t at = ROUND_UP(f->sp, word);
	uint64_t end = at < top ? MIN(top, at + GUESS_SCAN_BYTES) : at;
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
		for (uint64_t i = 0; i < len / word; i++) {
			uint64_t w = word == sizeof words[0] ? words[i] : ((const uint32_t *)words)[i];
			if (!in_text(mm, w))
				continue;
			if (n == max) {
				*stop = UNWIND_STOP_MAX_FRAMES;
				return n;
			}
			ips[n++] = w;
		}
		at += len;
	}
	return n;
}

/* One step of the table walk from pc (the frame's pc, less one in a
 * caller): look the rule up (lookup_rule: the rule cache, else the
 * table), then step by it. A rule in the quick form is stepped inline
 * (sf_quick_step); anything else goes to rule_step on a copy of the
 * frame, so that the walk's frame stays in registers. A quick step fails
 * only on the stack (a bad frame, a fault, the end), never on its
 * table. */
static inline __attribute__((always_inline)) enum unwind_stop
walk_step(struct sf_frame *f, uint64_t pc, struct table_walk *w, bool cached)
{
	struct unwind_answer a = lookup_rule(&w->lookup, pc, cached);
	struct sf_frame copy;
	enum unwind_stop why;

	if (!a.quick) {
		/* No rule in a frame whose frame pointer is 0: the outermost
		 * frame (_start's, every unwind's last), as the fallback to
		 * the frame pointer would find (fp_fallback), without a call. */
		if (a.err == SF_E_NO_FDE && f->fp == 0)
			return UNWIND_STOP_END;
		copy = *f;
		why = rule_step(&copy, a, w);
		*f = copy;
		return why;
	}
	int err = sf_quick_step(a.quick, f, user_word, NULL);
	if (!err)
		return STEPPED;
	copy = *f;
	arch_user_access_end();
	why = step_failed(&copy, NULL, err);
	arch_user_access_begin();
	*f = copy;
	return why;
}

/* The table walk's preemption point comes every this many frames: each
 * step is bounded (a cached rule's about 55 instructions, a lookup by
 * what is left of the unwind's budget), so eight of them bound the time
 * between two checks as well, and a cached step does not pay for
 * reading the two flags each time. */
#define PREEMPT_EVERY 8

/*
 * The walk by the tables of format fmt (ips[0] is the interrupted pc):
 * one user-access window for all its steps (walk_step). Every frame
 * passes every check of a step and the walk's bounds, one in
 * PREEMPT_EVERY (the entry it fills starts a run of that many in
 * memory) its preemption point and its kill check. A step looks
 * its rule up at the frame's pc less one in a caller (a return address),
 * at the pc itself in the interrupted frame and in the frame a signal
 * frame leads to. The format matters only to a lookup the rule cache
 * does not answer. A walk with a cache and one without (cache NULL:
 * every step looks up) are two copies of the loop (cached a constant:
 * walk_cached, walk_uncached), so that neither tests for the cache at
 * every step.
 */
static inline __attribute__((always_inline)) uint32_t
walk(struct sf_frame f, uint64_t *ips, uint32_t max, enum unwind_stop *stop, bool killable,
     enum unwind_format_id fmt, struct rule_cache *cache, bool cached)
{
	struct task *t = current;
	struct table_walk w;
	/* The next entry and the end, not an index: one register less in
	 * the loop. */
	uint64_t *out = ips + 1, *end = ips + max;
	enum unwind_stop why;

	w.signal_sp = 0; /* not an initializer: the lookup's part is lookup_begin's */
	lookup_begin(&w.lookup, t->mm, fmt, cache, budget);
	arch_user_access_begin();
	why = walk_step(&f, f.pc - f.caller, &w, cached);
	while (why == STEPPED) {
		if (f.pc >= USER_END) {
			why = UNWIND_STOP_BAD_FRAME;
		} else if (out == end) {
			why = UNWIND_STOP_MAX_FRAMES;
		} else if ((uintptr_t)out % (PREEMPT_EVERY * sizeof *out) == 0 &&
			   !preempt_point(t, true) && killable) {
			why = UNWIND_STOP_KILLED;
		} else {
			*out++ = f.pc;
			why = walk_step(&f, f.pc - f.caller, &w, cached);
		}
	}
	arch_user_access_end();
	uint32_t n = (uint32_t)(out - ips);
	lookup_end(&w.lookup, n);
	*stop = why;
	return n;
}

static __attribute__((noinline)) uint32_t
walk_cached(struct sf_frame f, uint64_t *ips, uint32_t max, enum unwind_stop *stop,
	    bool killable, enum unwind_format_id fmt, struct rule_cache *cache)
{
	return walk(f, ips, max, stop, killable, fmt, cache, true);
}

static __attribute__((noinline)) uint32_t
walk_uncached(struct sf_frame f, uint64_t *ips, uint32_t max, enum unwind_stop *stop,
	      bool killable, enum unwind_format_id fmt)
{
	return walk(f, ips, max, stop, killable, fmt, NULL, false);
}

/* SFrame defines no i386 ABI (its ABI ids: AArch64 and AMD64), so a
 * compat process has no section an SFrame walk could use, whatever it
 * registered: such a walk goes by frame pointers, as an SFrame walk does
 * where no section covers a pc, and is counted. */
static enum unwind_method method_for(const struct uvm *mm, enum unwind_method m)
{
	if (m != UNWIND_METHOD_SFRAME || !mm->compat)
		return m;
	stat_inc(STAT_UNWIND_COMPAT_NO_SFRAME);
	return UNWIND_METHOD_FP;
}

/* The frame-pointer walk of the task work (ips[0] is the interrupted
 * pc; the frames laid out as the process's kind lays them), which a kill
 * ends when killable. */
static uint32_t fp_walk(struct sf_frame f, uint64_t *ips, uint32_t max, enum unwind_stop *stop,
			bool killable)
{
	uint32_t n = 1;
	const struct fp_layout *l = fp_layout_of(current->mm);
	for (;;) {
		/* The frame pointers lead into the signal page's trampoline,
		 * which has none: its signal frame leads out. */
		enum unwind_stop why = unwind_user_in_sigpage(f.pc) ? signal_step(&f, NULL) :
				       fp_step(&f, read_faulting, l);
		if (why == STEPPED && f.pc >= USER_END)
			why = UNWIND_STOP_BAD_FRAME;
		if (why == STEPPED && n == max)
			why = UNWIND_STOP_MAX_FRAMES;
		if (why == STEPPED && !preempt_point(current, false) && killable)
			why = UNWIND_STOP_KILLED;
		if (why != STEPPED) {
			*stop = why;
			return n;
		}
		ips[n++] = f.pc;
	}
}

uint32_t unwind_user(uint64_t *ips, uint32_t max, enum unwind_stop *stop,
		     struct rule_cache *cache)
{
	enum unwind_method m = method_for(current->mm, method);
	struct sf_frame f;
	unwind_user_start(task_user_frame(current), &f);
	if (max == 0) {
		*stop = UNWIND_STOP_MAX_FRAMES;
		return 0;
	}
	if (m == UNWIND_METHOD_GUESS) {
		/* It asks the lists whether an address is text: held, as a
		 * walk holds them, against another thread's removal. */
		struct uvm *mm = current->mm;
		unwind_tables_hold(&mm->tables);
		uint32_t n = guess(&f, ips, max, stop);
		unwind_tables_release(&mm->tables);
		return n;
	}

	ips[0] = f.pc;
	if (m < UNWIND_METHOD_FP && cache)
		return walk_cached(f, ips, max, stop, true, (enum unwind_format_id)m, cache);
	if (m < UNWIND_METHOD_FP)
		return walk_uncached(f, ips, max, stop, true, (enum unwind_format_id)m);
	return fp_walk(f, ips, max, stop, true);
}

uint32_t unwind_user_dying(uint64_t *ips, uint32_t max, enum unwind_stop *stop)
{
	struct sf_frame f;
	unwind_user_start(task_user_frame(current), &f);
	if (max == 0) {
		*stop = UNWIND_STOP_MAX_FRAMES;
		return 0;
	}
	ips[0] = f.pc;
	enum unwind_method m = method < UNWIND_METHOD_FP ? method : UNWIND_METHOD_SFRAME;
	if (method_for(current->mm, m) == UNWIND_METHOD_FP)
		return fp_walk(f, ips, max, stop, false);
	return walk_uncached(f, ips, max, stop, false, (enum unwind_format_id)m);
}

uint32_t unwind_user_fp_nmi(const struct sf_frame *start, uint64_t *ips,
			    uint32_t max)
{
	struct sf_frame f = *start;
	uint32_t n = 0;
	if (max == 0)
		return 0;
	const struct fp_layout *l = fp_layout_of(current->mm);
	ips[n++] = f.pc;
	while (n < max && fp_step(&f, read_present, l) == STEPPED && f.pc < USER_END)
		ips[n++] = f.pc;
	return n;
}
