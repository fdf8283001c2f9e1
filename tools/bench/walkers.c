/*
 * The two unwinders that need no library: ours (the sframe/ library, as
 * the kernel's deferred unwinder uses it) and a frame-pointer walk (as the
 * kernel's fp modes do). Both read only the stack copy, and both record
 * return addresses, as the kernel does.
 */
#include <string.h>

#include "hostunwind.h"
#include "unwind.h" /* stitch's unwind_copy */

static bool stack_read(void *ctx, uint64_t addr, void *dst, uint32_t len)
{
	const struct snap *sn = ctx;
	if (addr < sn->sp || addr - sn->sp > sn->size || len > sn->size - (addr - sn->sp))
		return false;
	memcpy(dst, sn->stack + (addr - sn->sp), len);
	return true;
}

/* SFrame of the image that covers each pc (pc - 1 for a return address);
 * the walk ends where a pc has no SFrame (the return address into _start,
 * which has none on purpose) or a step fails. */
uint32_t unwind_sframe(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx)
{
	(void)ctx;
	struct sf_frame f = { .pc = sn->regs[REC_REG_IP], .sp = sn->regs[REC_REG_SP],
			      .fp = sn->regs[REC_REG_BP] };
	uint32_t n = 0;
	if (max)
		out[n++] = f.pc;
	while (n < max) {
		const struct image *im = snap_image(sn, f.caller ? f.pc - 1 : f.pc);
		if (!im || !im->has_sframe ||
		    sf_step(&im->sframe, &f, stack_read, (void *)sn) != SF_OK)
			break;
		out[n++] = f.pc;
	}
	return n;
}

/* rbp chains: [rbp] is the caller's rbp, [rbp + 8] the return address.
 * rbp 0 ends it (crt0 clears it); so does an rbp below sp or misaligned. */
uint32_t unwind_fp(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx)
{
	(void)ctx;
	uint64_t sp = sn->regs[REC_REG_SP], fp = sn->regs[REC_REG_BP], w[2];
	uint32_t n = 0;
	if (max)
		out[n++] = sn->regs[REC_REG_IP];
	while (n < max && fp && fp % 8 == 0 && fp >= sp &&
	       stack_read((void *)sn, fp, w, sizeof w) && w[1]) {
		out[n++] = w[1];
		sp = fp + 16;
		fp = w[0];
	}
	return n;
}

/* libdw exactly as stitch uses it for stack-copy mode (tools/stitch/unwind.c). */
uint32_t unwind_libdw(const struct snap *sn, uint64_t *out, uint32_t max, void *ctx)
{
	return unwind_copy(ctx, sn->proc, sn->s, out, max);
}
