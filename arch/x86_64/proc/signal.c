/*
 * Signal frames on x86_64 (arch/x86_64/include/arch/signal.h): the layout
 * is struct stitch_sigframe, which the signal page's CFI and the
 * unwinder's arch header (arch/unwind_user.h) describe too.
 */
#include <arch/signal.h>
#include <arch/arch.h>
#include <arch/task.h>
#include "arch/x86_64/x86.h"
#include "kern/lib/string.h"
#include "kern/mm/uaccess.h"
#include "kern/mm/uvm.h"
#include "stitch/syscall.h"

#define RED_ZONE 128

static void save_regs(const struct trap_frame *tf, struct stitch_sigcontext *sc)
{
	*sc = (struct stitch_sigcontext){
		.r8 = tf->r8, .r9 = tf->r9, .r10 = tf->r10, .r11 = tf->r11,
		.r12 = tf->r12, .r13 = tf->r13, .r14 = tf->r14, .r15 = tf->r15,
		.rdi = tf->rdi, .rsi = tf->rsi, .rbx = tf->rbx, .rdx = tf->rdx,
		.rax = tf->rax, .rcx = tf->rcx, .rflags = tf->rflags,
		.rsp = tf->rsp, .rbp = tf->rbp, .rip = tf->rip,
	};
}

static void load_regs(struct trap_frame *tf, const struct stitch_sigcontext *sc)
{
	tf->r8 = sc->r8, tf->r9 = sc->r9, tf->r10 = sc->r10, tf->r11 = sc->r11;
	tf->r12 = sc->r12, tf->r13 = sc->r13, tf->r14 = sc->r14, tf->r15 = sc->r15;
	tf->rdi = sc->rdi, tf->rsi = sc->rsi, tf->rbx = sc->rbx, tf->rdx = sc->rdx;
	tf->rax = sc->rax, tf->rcx = sc->rcx;
	tf->rflags = (tf->rflags & ~STITCH_SIGRETURN_RFLAGS) |
		     (sc->rflags & STITCH_SIGRETURN_RFLAGS) | RFLAGS_IF;
	tf->rsp = sc->rsp, tf->rbp = sc->rbp, tf->rip = sc->rip;
}

int arch_signal_frame(struct trap_frame *tf, uint64_t handler, uint64_t restorer,
		      const struct stitch_siginfo *info, uint64_t blocked)
{
	/* Built on the kernel stack (fxsave wants 16-byte alignment: the
	 * copy starts 8 bytes in), then copied out. On the user stack the
	 * frame starts at 16n + 8, as rsp does at a function's entry, which
	 * puts its fpu on a 16-byte boundary too. */
	struct { uint64_t pad; struct stitch_sigframe f; } __attribute__((aligned(16))) buf;
	struct stitch_sigframe *f = &buf.f;
	uint64_t at = ((tf->rsp - RED_ZONE - sizeof(*f)) & ~15ull) - 8;

	if (tf->rsp > USER_END || at >= tf->rsp)
		return -STITCH_EFAULT;
	memset(f, 0, sizeof(*f));
	f->restorer = restorer;
	f->info = *info;
	save_regs(tf, &f->sc);
	f->sc.blocked = blocked;
	__asm__ volatile("fxsave64 %0" : "=m"(*(uint8_t (*)[512])f->fpu));
	if (copy_to_user(at, f, sizeof(*f)))
		return -STITCH_EFAULT;
	/* The handler starts with the FPU a called function may assume (x87
	 * stack empty, default control words; psABI 3.2.1), not with the
	 * interrupted code's: that one is in the frame, for sigreturn. */
	arch_fpu_load_initial();
	tf->rip = handler;
	tf->rdi = (uint64_t)info->signo;
	tf->rsi = at + STITCH_SIGFRAME_INFO;
	tf->rdx = at + STITCH_SIGFRAME_SC;
	tf->rsp = at;
	/* The handler starts with DF clear, as the ABI wants at a call. */
	tf->rflags &= ~RFLAGS_DF;
	return 0;
}

int arch_sigreturn(struct trap_frame *tf, uint64_t *blocked)
{
	struct { uint64_t pad; struct stitch_sigframe f; } __attribute__((aligned(16))) buf;
	struct stitch_sigframe *f = &buf.f;
	uint64_t at = tf->rsp - STITCH_SIGFRAME_INFO;

	if (at > tf->rsp || copy_from_user(f, at, sizeof(*f)))
		return -STITCH_EFAULT;
	if (f->sc.rip >= USER_END || f->sc.rsp > USER_END)
		return -STITCH_EFAULT;
	/* fxrstor takes a #GP for an MXCSR bit the CPU does not have: the
	 * CPU's own mask decides, not the one the frame holds. */
	uint32_t mxcsr;
	memcpy(&mxcsr, f->fpu + STITCH_FPU_MXCSR, 4);
	if (mxcsr & ~arch_mxcsr_mask())
		return -STITCH_EFAULT;
	__asm__ volatile("fxrstor64 %0" : : "m"(*(const uint8_t (*)[512])f->fpu));
	load_regs(tf, &f->sc);
	*blocked = f->sc.blocked;
	return 0;
}
