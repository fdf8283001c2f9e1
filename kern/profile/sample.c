#include "kern/profile/sample.h"
#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/unwind/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/profile/profile.h"
#include "kern/profile/record.h"
#include "kern/lib/stats.h"
#include "kern/profile/stackmap.h"
#include "kern/proc/task.h"
#include "stitch/syscall.h"

/*
 * Each CPU builds its samples in two buffers of its own: one for the NMI
 * handler (NMIs do not nest, so one is enough) and one for normal context
 * with interrupts disabled. The NMI never touches the second.
 */
static uint8_t *nmi_buf[ARCH_MAX_CPUS], *normal_buf[ARCH_MAX_CPUS];
static unsigned ncpus;
static bool armed;
static uint64_t clock_period; /* ns per NMI */

static uint8_t *alloc_buf(void)
{
	uint64_t pa = pmm_alloc_pages(RECORD_MAX / PAGE_SIZE);
	return pa ? p2v(pa) : NULL;
}

int sample_init(void)
{
	ncpus = MIN(arch_ncpus(), ARCH_MAX_CPUS);
	for (unsigned c = 0; c < ncpus; c++)
		if (!(nmi_buf[c] = alloc_buf()) || !(normal_buf[c] = alloc_buf()))
			return -STITCH_ENOMEM;
	return 0;
}

void sample_enable(uint64_t period_ns)
{
	clock_period = period_ns;
	__atomic_store_n(&armed, true, __ATOMIC_RELEASE);
}

void sample_disable(void)
{
	__atomic_store_n(&armed, false, __ATOMIC_RELEASE);
}

/* The fixed part of a sample. cpu's current task is a plain pointer (no
 * GS), to a task that outlives the NMI: safe to read here; the idle task
 * is pid 0. */
static void begin(struct sample_ctx *ctx, uint8_t *buf, unsigned cpu,
		  uint64_t time, uint16_t event, uint32_t aux, uint64_t period)
{
	struct rec_sample *s = (struct rec_sample *)buf;
	const struct task *t = cpu_current[cpu];
	/* Field by field: a compound literal is cleared with rep stosq first,
	 * an instruction per word under -icount, in every NMI. The header is
	 * record_write's to fill. */
	s->time = time;
	s->cpu = cpu;
	s->pid = t ? (uint32_t)t->pid : 0;
	s->tid = t ? (uint32_t)t->tid : 0;
	s->event = event;
	s->flags = 0;
	s->ip = 0;
	s->period = period;
	s->aux = aux;
	s->nr = 0;
	*ctx = (struct sample_ctx){ .rec = s,
				    .len = sizeof *s, .cap = RECORD_MAX };
}

/* PERF_CONTEXT_KERNEL and n kernel frames already in ips[1 ..]. */
static void add_kernel_chain(struct sample_ctx *ctx, int n)
{
	ctx->rec->ips[0] = PERF_CONTEXT_KERNEL;
	ctx->rec->nr = 1 + n;
	ctx->len += (1 + n) * sizeof(uint64_t);
}

void sample_nmi(const struct nmi_regs *regs)
{
	struct sample_ctx ctx;
	unsigned cpu;
	uint64_t now = arch_tsc_cpu(&cpu);
	int n = 0;

	if (!__atomic_load_n(&armed, __ATOMIC_ACQUIRE) || cpu >= ncpus) {
		stat_inc_on(cpu, STAT_NMI_IGNORED);
		return;
	}
	begin(&ctx, nmi_buf[cpu], cpu, now, SAMPLE_EVENT_CPU_CLOCK, 0, clock_period);
	ctx.regs = regs;
	ctx.rec->ip = regs->ip;
	if (regs->user) {
		ctx.rec->flags |= SAMPLE_USER;
	} else {
		n = kunwind_from(regs->ip, regs->sp, regs->fp, ctx.rec->ips + 1,
				 KUNWIND_MAX_FRAMES);
		add_kernel_chain(&ctx, n);
	}
	/* One kernel unwind for both consumers: the map counts by stack,
	 * the stream writes the sample. */
	if (profile.consumer & PROFILE_CONSUMER_MAP)
		stackmap_nmi(cpu, regs, ctx.rec->ips + 1, (uint32_t)n);
	if (!(profile.consumer & PROFILE_CONSUMER_STREAM))
		return;
	sample_user_callchain(&ctx);
	if (record_write_nmi(cpu, REC_SAMPLE, ctx.rec, ctx.len) == 0) {
		stat_inc_on(cpu, STAT_SAMPLES);
		if (n)
			stat_add_on(cpu, STAT_KERNEL_FRAMES, n);
	} else {
		stat_inc_on(cpu, STAT_SAMPLES_LOST);
	}
}

int sample_software(uint16_t event, uint32_t aux, uint64_t period, uint64_t cookie)
{
	struct sample_ctx ctx;
	unsigned cpu;

	if (!record_ready())
		return -1;
	irqflags_t f = irq_save(); /* this CPU's normal buffer is ours */
	uint64_t now = arch_tsc_cpu(&cpu);
	begin(&ctx, normal_buf[cpu], cpu, now, event, aux, period);
	int n = kunwind_here(KUNWIND_CALLER, ctx.rec->ips + 1, KUNWIND_MAX_FRAMES);
	add_kernel_chain(&ctx, n);
	ctx.rec->ip = n ? ctx.rec->ips[1] : 0;
	if (cookie && sample_push(&ctx, PERF_CONTEXT_USER_DEFERRED))
		sample_push(&ctx, cookie);
	int err = record_write(REC_SAMPLE, ctx.rec, ctx.len);
	if (!err)
		stat_add(STAT_KERNEL_FRAMES, n);
	irq_restore(f);
	return err;
}
