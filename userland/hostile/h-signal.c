/*
 * h-signal CASE: signal frames that lie to sigreturn. A program may write
 * anything into its signal frame before its handler returns, or call
 * sigreturn with no handler at all; the kernel must take back only what
 * ring 3 may set, and kill the process (SIGSEGV) rather than return to a
 * context it cannot build: a rip or rsp outside the user range, a frame
 * it cannot read, an MXCSR the CPU refuses; nor write a frame where the
 * stack cannot take one. Surviving is a failure
 * (exit 99); the cases that must survive say so.
 */
#include <stitch/signal.h>
#include "hostile.h"

/* sigreturn with rsp at f's info, as the trampoline calls it. */
static void sigreturn_at(uint64_t info)
{
	__asm__ volatile("mov %0, %%rsp\n\tmov %1, %%eax\n\tsyscall\n\tud2"
			 :: "r"(info), "i"(SYS_sigreturn) : "memory");
}

static struct stitch_sigframe frame __attribute__((aligned(16)));
static uint64_t stack[512] __attribute__((aligned(16)));

/* Where a frame that is let through goes on: cli, which a rflags with
 * IOPL 3 would allow and IOPL 0 faults. */
static void after_iopl(void)
{
	__asm__ volatile("cli");
	_exit(99);
}

/* A frame that would be taken back: the current FPU state, a stack. */
static struct stitch_sigframe *good_frame(void (*rip)(void))
{
	static uint8_t fpu[512] __attribute__((aligned(16)));
	__asm__ volatile("fxsave64 %0" : "=m"(fpu));
	memcpy(frame.fpu, fpu, sizeof(fpu));
	frame.sc.rip = (uint64_t)rip;
	frame.sc.rsp = (uint64_t)&stack[500];
	frame.sc.rflags = 0x202;
	return &frame;
}

static uint64_t info_of(struct stitch_sigframe *f)
{
	return (uint64_t)f + STITCH_SIGFRAME_INFO;
}

static int rip_kernel(void)
{
	good_frame(after_iopl)->sc.rip = KERNEL_TEXT + 0x1000;
	sigreturn_at(info_of(&frame));
	return 99;
}

static int rip_noncanonical(void)
{
	good_frame(after_iopl)->sc.rip = NONCANONICAL | 0x401000;
	sigreturn_at(info_of(&frame));
	return 99;
}

static int rsp_kernel(void)
{
	good_frame(after_iopl)->sc.rsp = KERNEL_DIRECT;
	sigreturn_at(info_of(&frame));
	return 99;
}

static int frame_unmapped(void)
{
	sigreturn_at(0x10000000);
	return 99;
}

static int frame_in_kernel(void)
{
	sigreturn_at(KERNEL_DIRECT + 0x100000);
	return 99;
}

static int bad_mxcsr(void)
{
	struct stitch_sigframe *f = good_frame(after_iopl);
	uint32_t mxcsr = 0xffffffff; /* reserved bits set */
	memcpy(f->fpu + 24, &mxcsr, 4);
	sigreturn_at(info_of(f));
	return 99;
}

/* IOPL 3 (and the trap flag) asked for: rflags keeps IOPL 0, so cli
 * faults (SIGSEGV), as it would without the frame. */
static int iopl(void)
{
	good_frame(after_iopl)->sc.rflags = 0x3202;
	sigreturn_at(info_of(&frame));
	return 99;
}

/* A handler that rewrites its own frame's rip into the kernel. */
static void corrupting_handler(int sig, void *info, void *uc)
{
	(void)sig, (void)info;
	((struct stitch_sigcontext *)uc)->rip = KERNEL_TEXT;
}

static int handler_corrupts(void)
{
	struct sigaction sa = { .sa_flags = SA_SIGINFO };
	sa.sa_handler = (void (*)(int))(void (*)(void))corrupting_handler;
	EXPECT(sigaction(SIGUSR1, &sa, NULL) == 0, "sigaction: errno %d", errno);
	raise(SIGUSR1);
	return 99;
}

/* A caught signal owed while rsp points where no frame can go: kill()
 * of itself, from that stack. The delivery writes nothing and kills with
 * SIGSEGV; the ud2 after the system call would be SIGILL. */
static void ignore(int sig)
{
	(void)sig;
}

static int raise_on_stack(uint64_t sp)
{
	EXPECT(signal(SIGUSR1, ignore) != SIG_ERR, "signal: errno %d", errno);
	__asm__ volatile("mov %0, %%rsp\n\tmov %1, %%eax\n\tsyscall\n\tud2"
			 :: "r"(sp), "i"(SYS_kill), "D"((long)getpid()), "S"((long)SIGUSR1)
			 : "memory");
	return 99;
}

static int stack_unmapped(void)
{
	return raise_on_stack(0x10000000);
}

static int stack_kernel(void)
{
	return raise_on_stack(KERNEL_DIRECT);
}

/* Below the red zone and the frame lies address 0 and then the top of
 * the address space. */
static int stack_wraps(void)
{
	return raise_on_stack(0x100);
}

static const struct hcase cases[] = {
	{ "sigreturn-rip-kernel", rip_kernel }, { "sigreturn-rip-noncanonical", rip_noncanonical },
	{ "sigreturn-rsp-kernel", rsp_kernel }, { "sigreturn-unmapped", frame_unmapped },
	{ "sigreturn-in-kernel", frame_in_kernel }, { "sigreturn-mxcsr", bad_mxcsr },
	{ "sigreturn-iopl", iopl }, { "handler-corrupts-frame", handler_corrupts },
	{ "signal-stack-unmapped", stack_unmapped }, { "signal-stack-kernel", stack_kernel },
	{ "signal-stack-wraps", stack_wraps },
};
HOSTILE_MAIN(cases)
