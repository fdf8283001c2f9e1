/*
 * The user part of a sample's callchain, per profile.mode (records.h):
 *
 *   sframe, eh-frame, fp-deferred, guess   PERF_CONTEXT_USER_DEFERRED + the cookie of
 *                                a deferred unwind (kern/unwind/deferred.h),
 *                                answered by the sampler's REC_DEFERRED
 *   fp                           PERF_CONTEXT_USER + a frame-pointer walk
 *                                inside the NMI, present pages only
 *   stack-copy                   PERF_CONTEXT_USER + the ip, and a struct
 *                                rec_stack_copy for the host to unwind
 *   validate                     sframe and stack-copy in one sample
 *   validate-eh                  eh-frame and stack-copy in one sample
 *
 * NMI context: nothing here faults, sleeps, locks or allocates. (The
 * system-call tracer's samples ask for their own unwind: kern/profile/strace.c.)
 */
#include "kern/profile/sample.h"
#include <arch/unwind_user.h>
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/profile/profile.h"
#include "kern/profile/record.h"
#include "kern/lib/stats.h"
#include "kern/profile/summary.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/mm/uaccess.h"
#include "kern/unwind/deferred.h"
#include "kern/unwind/user.h"
#include "kern/mm/uvm.h"

static struct unwind_work sampler_work;

/*
 * The sampler's marks on a task, from its samples (NMI) to its answer (the
 * task's way back to user mode): the cookie of the last entry it sampled,
 * the entries it sampled that its answers have not yet added to
 * entries_with_samples, and the samples (in user and in kernel mode)
 * waiting for the entry's user stack. One per slot of the process table,
 * here rather than in struct task, which knows nothing of the profiler.
 * Each is the sampler's alone: its NMIs on the CPU the task runs on, and
 * its answer in the task's context. Every request is answered, at the
 * latest when the task exits (unwind_deferred_task_exit), so the answer
 * empties the marks before the slot can hold another task.
 */
struct sampler_marks {
	uint64_t cookie;
	uint64_t entries;
	uint32_t user, kernel;
};
static struct sampler_marks marks[NPROC];

static struct sampler_marks *marks_of(const struct task *t)
{
	return &marks[t - tasks];
}

/* The answer to the sampler's requests of one entry: its REC_DEFERRED,
 * built from the trace, the entries the NMIs marked (see defer_sampler),
 * and the samples it answers, for the summary. */
static void sampler_deferred(struct unwind_work *work,
			     const struct unwind_trace *trace, uint64_t cookie)
{
	struct task *t = current;
	struct sampler_marks *m = marks_of(t);
	(void)work;
	stat_add(STAT_ENTRIES_WITH_SAMPLES, __atomic_exchange_n(&m->entries, 0, __ATOMIC_RELAXED));
	record_deferred((uint32_t)t->pid, (uint32_t)t->tid, REC_CONSUMER_SAMPLER,
			cookie, trace->stop, trace->entries, trace->nr);
	summary_user_stack((uint32_t)t->pid, trace,
			   __atomic_exchange_n(&m->user, 0, __ATOMIC_RELAXED),
			   __atomic_exchange_n(&m->kernel, 0, __ATOMIC_RELAXED));
}

/* The deferred modes' unwinding methods. */
static enum unwind_method method_of(uint32_t mode)
{
	return mode == MODE_FP_DEFERRED ? UNWIND_METHOD_FP :
	       mode == MODE_GUESS       ? UNWIND_METHOD_GUESS :
	       mode == MODE_EH_FRAME || mode == MODE_VALIDATE_EH ? UNWIND_METHOD_EH_FRAME :
					  UNWIND_METHOD_SFRAME;
}

void sample_user_init(void)
{
	unwind_deferred_init(&sampler_work, sampler_deferred);
	/* One unwind per entry serves every consumer, so its method and
	 * bound are the profile's, not the sampler's alone: profile.frames
	 * (the stream's max_frames), as much as one record holds. */
	unwind_user_set_method(method_of(profile.mode));
	unwind_deferred_setup(MIN(profile.frames, RECORD_DEFERRED_MAX_ENTRIES));
}

/*
 * PERF_CONTEXT_USER_DEFERRED and the cookie of this entry's unwind. The
 * sampler marks the entry with that cookie: the first sample of an entry
 * (the cookie is the entry's, unique) counts it in the marks' entries,
 * which its answer adds to entries_with_samples; the tests hold that
 * count against the sampler's records. (Added there, not here: the
 * counters are per CPU, and arch_cpu_id() would cost the NMI more than
 * the mark does.) A sample whose cookie made it into the record waits in
 * the marks for the answer, which hands it to the summary.
 */
static void defer_sampler(struct sample_ctx *ctx, struct task *t)
{
	struct sampler_marks *m = marks_of(t);
	uint64_t cookie;
	if (unwind_deferred_request(&sampler_work, &cookie) < 0)
		return;
	if (__atomic_exchange_n(&m->cookie, cookie, __ATOMIC_RELAXED) != cookie)
		__atomic_fetch_add(&m->entries, 1, __ATOMIC_RELAXED);
	if (sample_push(ctx, PERF_CONTEXT_USER_DEFERRED) && sample_push(ctx, cookie))
		__atomic_fetch_add(ctx->regs->user ? &m->user : &m->kernel, 1, __ATOMIC_RELAXED);
}

/*
 * The user registers of this sample in enum rec_reg order: the NMI's own
 * frame when it hit ring 3; else those the task's latest entry saved,
 * which are complete only while in_kernel (an NMI in the entry code may
 * find them half written). False when there are none to trust.
 */
static bool user_regs(const struct sample_ctx *ctx, struct task *t,
		      uint64_t r[REC_NREGS])
{
	if (ctx->regs->user) {
		unwind_user_regs(ctx->regs->frame, r);
		return true;
	}
	if (!t->in_kernel)
		return false;
	unwind_user_regs(task_user_frame(t), r);
	return true;
}

static void fp_chain(struct sample_ctx *ctx, const uint64_t r[REC_NREGS])
{
	if (!sample_push(ctx, PERF_CONTEXT_USER))
		return;
	struct sf_frame f = { .pc = r[REC_REG_IP], .sp = r[REC_REG_SP],
			      .fp = r[REC_REG_BP] };
	uint32_t room = (ctx->cap - ctx->len) / sizeof(uint64_t);
	uint32_t n = unwind_user_fp_nmi(&f, ctx->rec->ips + ctx->rec->nr,
					MIN(room, profile.frames));
	ctx->rec->nr += n;
	ctx->len += n * sizeof(uint64_t);
}

/* Present pages only, page by page, no further than the top of the user
 * stack (a compat process's is a page below 4 GiB): the first page that
 * is not present ends the copy (counted). Returns the bytes copied. */
static uint64_t copy_present(uint8_t *dst, uint64_t sp, uint64_t max)
{
	uint64_t done = 0, end = uvm_stack_end(current->mm);
	max = sp < end ? MIN(max, end - sp) : 0;
	while (done < max) {
		uint64_t at = sp + done;
		uint64_t n = MIN(max - done, PAGE_ROUND_DOWN(at) + PAGE_SIZE - at);
		if (copy_from_user_nofault(dst + done, at, n)) {
			stat_inc(STAT_STACK_COPY_TRUNCATED);
			break;
		}
		done += n;
	}
	return done;
}

static void stack_copy(struct sample_ctx *ctx, const uint64_t r[REC_NREGS])
{
	struct rec_stack_copy *c = (void *)((uint8_t *)ctx->rec + ctx->len);
	if (ctx->len + sizeof *c > ctx->cap)
		return;
	memcpy(c->regs, r, sizeof c->regs);
	uint64_t room = ROUND_DOWN(ctx->cap - ctx->len - sizeof *c, 8);
	/* The stack-copy mode carries profile.stack_copy bytes at most (perf's
	 * default for --call-graph dwarf is 8 KiB too). The validate modes copy
	 * the whole stack in use, as far as the record has room: what they
	 * compare the deferred chain with must reach the outermost frame. */
	if (profile.mode == MODE_STACK_COPY)
		room = MIN(room, profile.stack_copy);
	c->size = copy_present(c->stack, r[REC_REG_SP], room);
	memset(c->stack + c->size, 0, ROUND_UP(c->size, 8) - c->size);
	ctx->len += sizeof *c + ROUND_UP(c->size, 8);
	ctx->rec->flags |= SAMPLE_STACK_COPY;
}

/* The modes that read user memory inside the NMI: the frame-pointer
 * chain, or a copy of the stack for the host. */
static void read_user_now(struct sample_ctx *ctx, struct task *t)
{
	uint64_t r[REC_NREGS];
	if (!user_regs(ctx, t, r))
		return;
	if (profile.mode == MODE_FP) {
		fp_chain(ctx, r);
		return;
	}
	/* The host unwinds the copy; the chain says only where it was. */
	if (profile.mode == MODE_STACK_COPY && sample_push(ctx, PERF_CONTEXT_USER))
		sample_push(ctx, r[REC_REG_IP]);
	stack_copy(ctx, r);
}

void sample_user_callchain(struct sample_ctx *ctx)
{
	struct task *t = current;
	/* No user context: the idle task, or a task whose address space is
	 * gone (exiting). */
	if (!t || !__atomic_load_n(&t->mm, __ATOMIC_RELAXED))
		return;
	switch (profile.mode) {
	case MODE_FP:
	case MODE_STACK_COPY:
		read_user_now(ctx, t);
		break;
	case MODE_VALIDATE:
	case MODE_VALIDATE_EH:
		defer_sampler(ctx, t);
		read_user_now(ctx, t);
		break;
	default: /* sframe, eh-frame, fp-deferred, guess */
		defer_sampler(ctx, t);
		break;
	}
}
