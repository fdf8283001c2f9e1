/*
 * Kernel tests of the deferred-unwind core (kern/unwind/deferred.c), its
 * two consumers, irq work and the self-IPI, on a stand-in task: a task struct with a kernel
 * stack, an empty address space and a user frame whose rbp is 0, so that
 * its unwind is the user pc alone and reads no user memory. The test makes
 * it `current` with interrupts off, and puts the real one back.
 */
#include "kern/lib/ktest.h"
#include <arch/arch.h>
#include <arch/ktest.h>
#include "kern/proc/irq_work.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/profile/profile.h"
#include "kern/profile/record.h"
#include "kern/profile/sample.h"
#include "kern/lib/stats.h"
#include "kern/profile/strace.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/proc/task_work.h"
#include "kern/unwind/deferred.h"
#include "kern/mm/uvm.h"
#include "kern/proc/elf.h"
#include "stitch/syscall.h"

#define USER_PC 0x400123

/* The stand-in for a user task: a slot of the process table, like every
 * task (the sampler keeps its marks by slot); the tests run at boot,
 * before init, when every slot is free. It is never on the run queue. */
static struct task *stand_in, *saved;
static irqflags_t saved_flags;

/* Two consumers of the tests' own (bits after the sampler's and tracer's). */
static struct unwind_work work_a, work_b;
static struct {
	int calls;
	uint64_t cookie;
	uint32_t nr;
	uint64_t pc;
	enum unwind_stop stop;
} got[2];

static void note(struct unwind_work *w, const struct unwind_trace *tr, uint64_t cookie)
{
	int i = w == &work_b;
	got[i].calls++;
	got[i].cookie = cookie;
	got[i].nr = tr->nr;
	got[i].pc = tr->nr ? tr->entries[0] : 0;
	got[i].stop = tr->stop;
}

static bool begin(struct ktest *t)
{
	if (!work_a.func &&
	    (unwind_deferred_init(&work_a, note) || unwind_deferred_init(&work_b, note)))
		return false;
	stand_in = &tasks[NPROC - 1];
	if (!ktest_check(t, stand_in->state == TASK_FREE, __FILE__, __LINE__,
			 "a free slot of the process table"))
		return false;
	memset(stand_in, 0, sizeof *stand_in);
	memset(got, 0, sizeof got);
	stand_in->pid = stand_in->tid = 4242;
	stand_in->state = TASK_RUNNABLE;
	uint64_t pa = pmm_alloc_pages(KSTACK_PAGES);
	stand_in->mm = uvm_create();
	if (!ktest_check(t, pa && stand_in->mm && unwind_task_init(stand_in) == 0,
			 __FILE__, __LINE__, "a kernel stack, an mm, unwind state"))
		return false;
	stand_in->kstack = (uint64_t)p2v(pa);
	stand_in->kstack_top = stand_in->kstack + KSTACK_SIZE;
	struct trap_frame *tf = task_user_frame(stand_in);
	memset(tf, 0, sizeof *tf);
	tf->rip = USER_PC;
	tf->rsp = USER_END - 64;
	saved_flags = irq_save();
	saved = current;
	current = stand_in;
	return true;
}

static void end(void)
{
	current = saved;
	irq_restore(saved_flags);
	unwind_task_free(stand_in);
	uvm_destroy(stand_in->mm);
	pmm_free_pages(v2p((void *)stand_in->kstack), KSTACK_PAGES);
	memset(stand_in, 0, sizeof *stand_in); /* TASK_FREE */
}

/* One entry: one cookie for every request, one task work, one unwind for
 * two consumers; the return to user ends it, the next entry has another. */
KTEST(unwind_deferred_one_per_entry)
{
	uint64_t c1, c2, c3, c4;
	if (!begin(t))
		return;
	uint64_t runs = stat_total(STAT_UNWINDS_RUN), reused = stat_total(STAT_UNWIND_REUSED);
	uint64_t requests = stat_total(STAT_DEFERRED_REQUESTS);
	uint64_t coalesced = stat_total(STAT_REQUESTS_COALESCED);
	KEXPECT_EQ(t, unwind_deferred_request(&work_a, &c1), 0);
	KEXPECT(t, c1 != 0 && (c1 & 7) == arch_cpu_id());
	KEXPECT_EQ(t, unwind_deferred_request(&work_a, &c2), 1); /* coalesced */
	KEXPECT_EQ(t, unwind_deferred_request(&work_b, &c3), 0);
	KEXPECT(t, c2 == c1 && c3 == c1);
	KEXPECT(t, stand_in->works && !stand_in->works->next); /* queued once */
	KEXPECT(t, !unwind_exit_to_user(stand_in));          /* work pending */
	task_work_run();
	KEXPECT(t, got[0].calls == 1 && got[1].calls == 1);
	KEXPECT(t, got[0].cookie == c1 && got[1].cookie == c1);
	KEXPECT(t, got[0].nr == 1 && got[0].pc == USER_PC && got[0].stop == UNWIND_STOP_END);
	KEXPECT_EQ(t, stat_total(STAT_UNWINDS_RUN) - runs, 1);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_REUSED) - reused, 1);
	KEXPECT(t, unwind_exit_to_user(stand_in));
	KEXPECT_EQ(t, unwind_deferred_request(&work_a, &c4), 0);
	KEXPECT(t, c4 != 0 && c4 != c1);
	task_work_run();
	KEXPECT_EQ(t, got[0].calls, 2);
	KEXPECT(t, unwind_exit_to_user(stand_in));
	/* Every request that got a cookie counts, the repeat once more. */
	KEXPECT_EQ(t, stat_total(STAT_DEFERRED_REQUESTS) - requests, 4);
	KEXPECT_EQ(t, stat_total(STAT_REQUESTS_COALESCED) - coalesced, 1);
	end();
}

/*
 * The two consumers as the kernel has them, from the stand-in: the
 * sampler's NMI hook and the tracer ask in one entry and get its cookie;
 * the sampler counts the entry once however many samples it has (its own
 * mark); the one unwind answers each with its own REC_DEFERRED; the next
 * entry has another cookie and counts again.
 */
KTEST(unwind_deferred_sampler_and_tracer)
{
	static uint64_t buf[32];
	struct rec_sample *rec = (struct rec_sample *)buf;
	struct nmi_regs regs = { .user = false };
	struct sample_ctx ctx = { .regs = &regs, .rec = rec, .len = sizeof *rec,
				  .cap = sizeof buf };
	if (profile.mode != MODE_SFRAME) {
		ktest_skip(t, "profile.mode is not sframe");
		return;
	}
	if (!begin(t))
		return;
	uint64_t entries = stat_total(STAT_ENTRIES_WITH_SAMPLES);
	uint64_t records = stat_total(STAT_DEFERRED_RECORDS);
	uint64_t runs = stat_total(STAT_UNWINDS_RUN);
	memset(buf, 0, sizeof buf);
	sample_user_callchain(&ctx);
	sample_user_callchain(&ctx);
	uint64_t cookie = strace_request();
	KEXPECT_EQ(t, rec->nr, 4);
	KEXPECT(t, rec->ips[0] == PERF_CONTEXT_USER_DEFERRED && rec->ips[1] != 0);
	KEXPECT(t, rec->ips[2] == PERF_CONTEXT_USER_DEFERRED && rec->ips[3] == rec->ips[1]);
	KEXPECT_EQ(t, cookie, rec->ips[1]);
	task_work_run();
	KEXPECT_EQ(t, stat_total(STAT_ENTRIES_WITH_SAMPLES) - entries, 1);
	KEXPECT(t, record_ready());
	KEXPECT_EQ(t, stat_total(STAT_DEFERRED_RECORDS) - records, 2);
	KEXPECT_EQ(t, stat_total(STAT_UNWINDS_RUN) - runs, 1);
	KEXPECT(t, unwind_exit_to_user(stand_in));

	rec->nr = 0;
	ctx.len = sizeof *rec;
	sample_user_callchain(&ctx);
	KEXPECT(t, rec->nr == 2 && rec->ips[1] != 0 && rec->ips[1] != cookie);
	task_work_run();
	KEXPECT_EQ(t, stat_total(STAT_ENTRIES_WITH_SAMPLES) - entries, 2);
	KEXPECT_EQ(t, stat_total(STAT_DEFERRED_RECORDS) - records, 3);
	KEXPECT(t, unwind_exit_to_user(stand_in));
	end();
}

/* A task that exits with a request pending (exit() itself, a kill): its
 * consumers get the unwind of its last entry, taken now, while its
 * address space is there; later requests are refused. */
KTEST(unwind_deferred_task_exit)
{
	uint64_t c, c2;
	if (!begin(t))
		return;
	uint64_t runs = stat_total(STAT_UNWINDS_RUN);
	uint64_t exited = stat_total(STAT_UNWIND_STOP_TASK_EXITED);
	KEXPECT_EQ(t, unwind_deferred_request(&work_a, &c), 0);
	KEXPECT_EQ(t, unwind_deferred_request(&work_b, &c2), 0);
	stand_in->works = NULL; /* task_work_exit drops the queued work */
	unwind_deferred_task_exit(stand_in);
	KEXPECT(t, got[0].calls == 1 && got[0].cookie == c && got[1].calls == 1);
	KEXPECT(t, got[0].nr == 1 && got[0].pc == USER_PC && got[1].pc == USER_PC);
	KEXPECT(t, got[0].stop != UNWIND_STOP_TASK_EXITED);
	KEXPECT_EQ(t, stat_total(STAT_UNWINDS_RUN) - runs, 1); /* one, shared */
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_STOP_TASK_EXITED) - exited, 0);
	KEXPECT_EQ(t, unwind_deferred_request(&work_a, &c), -STITCH_EINVAL);
	KEXPECT_EQ(t, got[0].calls, 1);
	end();
}

/* Without an address space there is nothing to unwind: the consumers
 * hear it, with no frames and stop task-exited, counted. */
KTEST(unwind_deferred_task_exit_no_mm)
{
	uint64_t c;
	if (!begin(t))
		return;
	uint64_t exited = stat_total(STAT_UNWIND_STOP_TASK_EXITED);
	KEXPECT_EQ(t, unwind_deferred_request(&work_a, &c), 0);
	stand_in->works = NULL;
	struct uvm *mm = stand_in->mm;
	stand_in->mm = NULL;
	unwind_deferred_task_exit(stand_in);
	KEXPECT(t, got[0].calls == 1 && got[0].cookie == c);
	KEXPECT(t, got[0].nr == 0 && got[0].stop == UNWIND_STOP_TASK_EXITED);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_STOP_TASK_EXITED) - exited, 1);
	KEXPECT_EQ(t, unwind_deferred_request(&work_a, &c), -STITCH_EINVAL);
	stand_in->mm = mm;
	end();
}

static struct unwind_work *nmi_work;
static int nmi_ret;
static uint64_t nmi_cookie;

static void request_in_nmi(struct trap_frame *tf)
{
	(void)tf;
	__atomic_store_n(&nmi_ret, unwind_deferred_request(nmi_work, &nmi_cookie),
			 __ATOMIC_RELEASE);
}

/* From a real NMI: irq work and a self-IPI that waits for interrupts,
 * then the task work. */
KTEST(unwind_deferred_from_nmi)
{
	if (!begin(t))
		return;
	nmi_work = &work_a;
	nmi_ret = -1000;
	trap_set_handler(VEC_NMI, request_in_nmi);
	/* Sent by this write, not by a timer: no wall-clock wait (the bound
	 * counts iterations and only keeps a lost NMI from hanging the run). */
	arch_self_nmi();
	for (int i = 0; i < 1000000 && __atomic_load_n(&nmi_ret, __ATOMIC_ACQUIRE) == -1000; i++)
		arch_cpu_relax();
	trap_set_handler(VEC_NMI, NULL);
	KEXPECT_EQ(t, nmi_ret, 0);
	KEXPECT(t, nmi_cookie != 0);
	KEXPECT(t, stand_in->works == NULL); /* the IPI waits: interrupts are off */
	KEXPECT(t, !unwind_exit_to_user(stand_in));
	uint64_t ipis = stat_total(STAT_SELF_IPIS);
	irq_enable();
	arch_delay_us(100);
	irq_disable();
	KEXPECT_EQ(t, stat_total(STAT_SELF_IPIS) - ipis, 1);
	KEXPECT(t, stand_in->works != NULL);
	task_work_run();
	KEXPECT(t, got[0].calls == 1 && got[0].cookie == nmi_cookie);
	KEXPECT(t, unwind_exit_to_user(stand_in));
	end();
}

static int irq_ran;

static void count_run(struct irq_work *w)
{
	(void)w;
	irq_ran++;
}

/* Queued once while pending; runs from the IPI as soon as interrupts are
 * on, or when the owner runs the list itself. */
KTEST(irq_work_queue_and_run)
{
	struct irq_work w = { .func = count_run };
	irqflags_t f = irq_save();
	irq_ran = 0;
	KEXPECT(t, irq_work_queue(&w));
	KEXPECT(t, !irq_work_queue(&w));
	irq_work_run();
	KEXPECT_EQ(t, irq_ran, 1);
	KEXPECT(t, irq_work_queue(&w));
	irq_enable();
	arch_delay_us(100);
	irq_disable();
	KEXPECT_EQ(t, irq_ran, 2);
	irq_restore(f);
}

/*
 * Across CPUs: the stand-in runs on CPU 1 (current there, interrupts off
 * in an arch_smp_call) when a real NMI asks for its unwind, so the irq work is
 * queued on CPU 1's list; then it "moves" to CPU 0, where the test runs
 * it. CPU 1 takes its self-IPI as soon as the call returns. With exiting
 * set on CPU 1 first, the task has begun to exit by the time the irq work
 * runs there; and a 1 ms work queued after it runs before it (the list
 * runs newest first), so that CPU 0 gets to the exit while the task's irq
 * work is still queued on CPU 1.
 */
static void busy_1ms(struct irq_work *w)
{
	(void)w;
	arch_delay_us(1000);
}

static struct irq_work delay_work = { .func = busy_1ms };

static void request_on_cpu1(void *exiting)
{
	struct task *idle = current;
	current = stand_in;
	nmi_work = &work_a;
	nmi_ret = -1000;
	trap_set_handler(VEC_NMI, request_in_nmi);
	arch_nmi_after(100000);
	for (uint64_t end_tsc = arch_cycles() + arch_tsc_hz; arch_cycles() < end_tsc &&
	     __atomic_load_n(&nmi_ret, __ATOMIC_ACQUIRE) == -1000;)
		arch_cpu_relax();
	trap_set_handler(VEC_NMI, NULL);
	if (exiting) {
		task_work_exit(stand_in);
		irq_work_queue(&delay_work);
	}
	current = idle;
}

static bool begin_on_cpu1(struct ktest *t, bool exiting)
{
	if (arch_ncpus() < 2) {
		ktest_skip(t, "one CPU (boot with --cpus N)");
		return false;
	}
	if (!begin(t))
		return false;
	arch_smp_call(1, request_on_cpu1, exiting ? stand_in : NULL);
	return KEXPECT_EQ(t, nmi_ret, 0) && KEXPECT_EQ(t, nmi_cookie & 7, 1);
}

/* NMI on CPU 1, unwound on CPU 0: the irq work on CPU 1 queues the task
 * work for a task that now runs on CPU 0, whose return to user waits. */
KTEST(unwind_deferred_nmi_on_other_cpu)
{
	uint64_t remote = stat_total(STAT_UNWIND_IPI_REMOTE_TASK);
	uint64_t cross = stat_total(STAT_UNWIND_CROSS_CPU);
	if (!begin_on_cpu1(t, false))
		return;
	KEXPECT(t, !unwind_exit_to_user(stand_in)); /* PENDING until it ran */
	for (uint64_t end_tsc = arch_cycles() + arch_tsc_hz; arch_cycles() < end_tsc &&
	     !__atomic_load_n(&stand_in->works, __ATOMIC_ACQUIRE);)
		arch_cpu_relax();
	KEXPECT(t, stand_in->works != NULL);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_IPI_REMOTE_TASK) - remote, 1);
	task_work_run();
	KEXPECT(t, got[0].calls == 1 && got[0].cookie == nmi_cookie);
	KEXPECT(t, got[0].nr == 1 && got[0].pc == USER_PC);
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_CROSS_CPU) - cross, 1);
	KEXPECT(t, unwind_exit_to_user(stand_in));
	end();
}

/* NMI on CPU 1, the task exits on CPU 0 while that irq work may still be
 * queued or running on CPU 1: answered once, task-exited, and the irq
 * work is over before the unwind state could go. */
KTEST(unwind_deferred_exit_with_work_on_other_cpu)
{
	uint64_t other = stat_total(STAT_UNWIND_IPI_OTHER_TASK);
	if (!begin_on_cpu1(t, true))
		return;
	struct uvm *mm = stand_in->mm;
	stand_in->mm = NULL;
	unwind_deferred_task_exit(stand_in);
	/* The irq work has run on CPU 1 by now (it counts the task as not
	 * current there), and found the task exiting. */
	KEXPECT_EQ(t, stat_total(STAT_UNWIND_IPI_OTHER_TASK) - other, 1);
	/* Its task_work_add was refused, and the list stays closed. */
	static struct task_work late;
	KEXPECT_EQ(t, task_work_add(stand_in, &late), -STITCH_ESRCH);
	KEXPECT(t, got[0].calls == 1 && got[0].cookie == nmi_cookie);
	KEXPECT(t, got[0].nr == 0 && got[0].stop == UNWIND_STOP_TASK_EXITED);
	stand_in->mm = mm;
	end();
}

/* SYS_mmap's hint: taken when its range is free mmap space, else not. */
KTEST(uvm_mmap_hint)
{
	struct uvm *mm = uvm_create();
	struct elf_image img = { 0 };
	KASSERT(t, mm && elf_load(mm, &img, "none") == 0);
	uint64_t at = 0x50000000;
	KEXPECT_EQ(t, uvm_mmap(mm, at, 2 * PAGE_SIZE, 0, NULL, 0), (long)at);
	long other = uvm_mmap(mm, at + PAGE_SIZE, PAGE_SIZE, 0, NULL, 0);
	KEXPECT(t, other > 0 && (uint64_t)other != at + PAGE_SIZE);
	KEXPECT(t, uvm_mmap(mm, at + 1, PAGE_SIZE, 0, NULL, 0) != (long)at + 1);
	KEXPECT(t, uvm_mmap(mm, 0x1000, PAGE_SIZE, 0, NULL, 0) != 0x1000); /* heap's room */
	uvm_destroy(mm);
}
