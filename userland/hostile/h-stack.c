/*
 * h-stack CASE: user stacks that lie to the unwinder. The process spins
 * (so that sampling NMIs land there and ask for deferred unwinds) with a
 * stack pointer or a frame chain that no honest program has: in the
 * kernel, unmapped, misaligned, non-canonical; frame chains that loop,
 * climb forever or return into the kernel; a recursion deeper than any
 * unwind buffer; a recursion into the stack's guard page; signal frames
 * whose saved registers lie.
 *
 * The unwinder reads only user addresses through the fault-handling copy
 * helpers, and every walk ends, by reason (counted in REC_STATS,
 * unwind_stop_*, and written into each REC_DEFERRED): test/t/80-hostile.t checks the
 * records of each case's pid. The process itself must live on (exit 0),
 * except in stack-overflow, which the guard page kills (SIGSEGV).
 */
#include <stdlib.h>
#include <stitch/signal.h>
#include "hostile.h"

#define SPIN_MS 300

void spin_with_sp(uint64_t sp, uint64_t bp, uint64_t until_tsc);
void spin_with_frame(uint64_t fake_bp, uint64_t until_tsc);
extern char spin_with_frame_loop[];

/* A return address that leads back into spin_with_frame's frame rule. */
#define LOOP_RA ((uint64_t)spin_with_frame_loop + 1)

static int sp_at(uint64_t sp)
{
	printf("# %s: spinning %d ms with rsp = rbp = %#lx\n", hostile_case, SPIN_MS,
	       (unsigned long)sp);
	spin_with_sp(sp, sp, tsc_deadline(SPIN_MS));
	return 0;
}

static int sp_kernel(void) { return sp_at(KERNEL_TEXT + 0x2000); }
/* The direct map is all of RAM: a read there would leak anything. */
static int sp_direct_map(void) { return sp_at(KERNEL_DIRECT + 0x200000); }
static int sp_unmapped(void) { return sp_at(0x10000000); }
static int sp_noncanonical(void) { return sp_at(0x0000800000000000UL + 0x1000); }
static int sp_top(void) { return sp_at(STITCH_USER_TOP - 8); }
static int sp_null(void) { return sp_at(0); }

static int sp_misaligned(void)
{
	uint64_t buf[64];
	memset(buf, 0, sizeof buf);
	return sp_at((uint64_t)&buf[32] + 3);
}

static int with_frames(uint64_t *frames, const char *what)
{
	printf("# %s: spinning %d ms in a frame-pointer function, %s\n", hostile_case,
	       SPIN_MS, what);
	spin_with_frame((uint64_t)frames, tsc_deadline(SPIN_MS));
	return 0;
}

/* The chain must lie above the spinning stack pointer: on the stack. */
#define ON_STACK(n) uint64_t *f = __builtin_alloca((n) * 8 + 16); \
	f = (uint64_t *)(((uint64_t)f + 15) & ~15UL)

static int fp_self(void)
{
	ON_STACK(2);
	f[0] = (uint64_t)f;      /* the caller's frame is this frame */
	f[1] = LOOP_RA;
	return with_frames(f, "whose saved rbp points at itself");
}

static int fp_cycle(void)
{
	ON_STACK(8);
	uint64_t *a = f, *b = f + 4;
	a[0] = (uint64_t)b, a[1] = LOOP_RA;
	b[0] = (uint64_t)a, b[1] = LOOP_RA;
	return with_frames(f, "in a cycle of two frames");
}

static int fp_upward(void)
{
	enum { N = 2048 };
	ON_STACK(2 * N + 2);
	for (int i = 0; i < N; i++) {
		f[2 * i] = (uint64_t)&f[2 * i + 2];
		f[2 * i + 1] = LOOP_RA;
	}
	f[2 * N] = 0, f[2 * N + 1] = 0;
	return with_frames(f, "in a chain of 2048 frames going up");
}

static int fp_kernel(void) { return with_frames((uint64_t *)KERNEL_DIRECT, "rbp in the kernel"); }

static int fp_misaligned(void)
{
	ON_STACK(4);
	f[0] = (uint64_t)f + 20, f[1] = LOOP_RA;
	return with_frames((uint64_t *)((uint64_t)f + 4), "rbp misaligned");
}

static int ret_kernel(void)
{
	ON_STACK(2);
	f[0] = (uint64_t)f + 64, f[1] = KERNEL_TEXT + 0x1234;
	return with_frames(f, "whose return address is in kernel text");
}

static int ret_noncanonical(void)
{
	ON_STACK(2);
	f[0] = (uint64_t)f + 64, f[1] = NONCANONICAL | 0x401000;
	return with_frames(f, "whose return address is non-canonical");
}

/*
 * Signal frames that lie: the frame-pointer function's return address is
 * the signal page's trampoline, and above it lies a signal frame (from
 * its info on, where the trampoline's sp points) whose saved registers
 * the unwinder reads (kern/unwind/user.c, signal_step).
 */
#define SIG_WORDS ((sizeof(struct stitch_sigframe) - STITCH_SIGFRAME_INFO) / 8)
static int with_sigframe(uint64_t *f, struct stitch_sigcontext sc, const char *what)
{
	f[0] = 0;
	f[1] = STITCH_SIGPAGE_TRAMPOLINE;
	memcpy(&f[2 + (STITCH_SIGFRAME_SC - STITCH_SIGFRAME_INFO) / 8], &sc, sizeof sc);
	return with_frames(f, what);
}

static int sig_rsp_below(void)
{
	ON_STACK(2 + SIG_WORDS);
	struct stitch_sigcontext sc = { .rip = LOOP_RA, .rsp = (uint64_t)f, .rbp = 0 };
	return with_sigframe(f, sc, "under a signal frame whose rsp lies below it");
}

static int sig_rip_kernel(void)
{
	ON_STACK(2 + SIG_WORDS + 64);
	struct stitch_sigcontext sc = { .rip = KERNEL_TEXT + 0x1234,
					.rsp = (uint64_t)&f[2 + SIG_WORDS + 48] };
	return with_sigframe(f, sc, "under a signal frame whose rip is in the kernel");
}

static int sig_loop(void)
{
	ON_STACK(2 + SIG_WORDS + 64);
	/* Back into the frame-pointer function with rbp = this frame: its
	 * CFA would lie below the interrupted rsp the frame claims. */
	struct stitch_sigcontext sc = { .rip = LOOP_RA, .rbp = (uint64_t)f,
					.rsp = (uint64_t)&f[2 + SIG_WORDS + 48] };
	return with_sigframe(f, sc, "under a signal frame that leads back into itself");
}

/* Deeper than any unwind buffer: the walk stops at its bound. */
/* The bottom of the recursion (test/t/80-hostile.t picks the samples taken here). */
__attribute__((noipa)) void deep_bottom(void)
{
	for (uint64_t end = tsc_deadline(SPIN_MS); rdtsc() < end;)
		;
}

__attribute__((noipa)) static int recurse(int n)
{
	volatile int here = n; /* read after the call: no tail call, a real frame each */
	if (n == 0) {
		deep_bottom();
		return 0;
	}
	return recurse(n - 1) + (here == n);
}

static int deep(void)
{
	printf("# %s: spinning %d ms under 5000 frames\n", hostile_case, SPIN_MS);
	return recurse(5000) == 5000 ? 0 : 1;
}

/* Recursion until the guard page: the kill happens with samples (and
 * deferred unwinds) of a 1 MiB deep stack in flight. */
static volatile long overflow_limit = 1L << 40;
__attribute__((noipa)) static long overflow(long n)
{
	volatile char pad[64];
	pad[0] = (char)n;
	if (n == overflow_limit)
		return 0;
	return overflow(n + 1) + pad[0];
}

static int stack_overflow(void)
{
	overflow(0);
	return 99;
}

static const struct hcase cases[] = {
	{ "sp-kernel", sp_kernel }, { "sp-direct-map", sp_direct_map },
	{ "sp-unmapped", sp_unmapped }, { "sp-noncanonical", sp_noncanonical },
	{ "sp-top", sp_top }, { "sp-null", sp_null }, { "sp-misaligned", sp_misaligned },
	{ "fp-self", fp_self }, { "fp-cycle", fp_cycle }, { "fp-upward", fp_upward },
	{ "fp-kernel", fp_kernel }, { "fp-misaligned", fp_misaligned },
	{ "ret-kernel", ret_kernel }, { "ret-noncanonical", ret_noncanonical },
	{ "deep", deep }, { "stack-overflow", stack_overflow },
	{ "sig-rsp-below", sig_rsp_below }, { "sig-rip-kernel", sig_rip_kernel },
	{ "sig-loop", sig_loop },
};
HOSTILE_MAIN(cases)
