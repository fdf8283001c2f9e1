/*
 * Signals: the ABI between Stitch's kernel and its ring-3 programs
 * (docs/PROCESSES.md, "Signals"). Signal numbers are the SDK's, newlib's
 * <sys/signal.h>; the SDK maps newlib's struct sigaction onto
 * struct stitch_sigaction.
 *
 * A handler runs on the program's stack, below the interrupted rsp less
 * the red zone, on a frame the kernel writes there (struct
 * stitch_sigframe): the handler's return address is the signal page's
 * trampoline (STITCH_SIGPAGE_ADDR), which calls SYS_sigreturn with rsp
 * pointing at the frame's info. The trampoline's unwind tables (SFrame v3
 * with the signal mark, .eh_frame with the 'S' augmentation) describe the
 * frame, so an unwinder can step from the handler into the interrupted
 * function.
 */
#ifndef STITCH_SIGNAL_H
#define STITCH_SIGNAL_H

/* Offsets into struct stitch_sigframe, for the trampoline's CFI (the C
 * part below checks them). */
#define STITCH_SIGFRAME_INFO 8   /* rsp in the trampoline */
#define STITCH_SIGFRAME_SC   40
#define STITCH_SIGFRAME_CFA  192 /* the end of sc, rip just below it */

/* Where the kernel maps the signal page (the initrd's /lib/sigpage, an
 * ELF linked to run there): at 15 TiB, below the highest address a
 * program may load at (16 TiB, the kernel's ELF_LOAD_MAX), far from the
 * heap and from the mmap area, which grows down from 127 TiB. It starts
 * with a one-byte nop before the trampoline, so that a lookup at the
 * handler's return address less one lands in the trampoline's unwind
 * entry and symbol (userland/sigpage/sigreturn.S). */
#define STITCH_SIGPAGE_ADDR       0x00000f0000000000
#define STITCH_SIGPAGE_TRAMPOLINE (STITCH_SIGPAGE_ADDR + 1)

#ifndef __ASSEMBLER__
#include <stddef.h>
#include <stdint.h>

#define STITCH_NSIG 32 /* signals 1 .. 31; a mask is bit (sig - 1) */

/* stitch_sigaction.handler values other than a function's address. */
#define STITCH_SIG_DFL 0
#define STITCH_SIG_IGN 1

/* stitch_sigaction.flags (newlib's values). */
#define STITCH_SA_SIGINFO   0x2
#define STITCH_SA_NODEFER   0x40000000 /* the signal is not blocked in its handler */
#define STITCH_SA_RESETHAND 0x80000000 /* back to SIG_DFL once delivered */

struct stitch_sigaction {
	uint64_t handler;  /* void (*)(int) or, with SA_SIGINFO,
			    * void (*)(int, siginfo_t *, void *) */
	uint64_t mask;     /* blocked while the handler runs (bit sig - 1) */
	uint32_t flags;
	uint32_t pad;
};

/* SYS_sigprocmask how (newlib's). */
#define STITCH_SIG_SETMASK 0
#define STITCH_SIG_BLOCK   1
#define STITCH_SIG_UNBLOCK 2

/* SYS_setitimer which; only the real-time timer (SIGALRM). */
#define STITCH_ITIMER_REAL 0

struct stitch_itimerval {
	uint64_t interval_us; /* 0: one shot */
	uint64_t value_us;    /* 0: disarm */
};
/* One layout for 64-bit and 32-bit programs (stitch/syscall.h): SYS_setitimer
 * and SYS_sigprocmask (a uint64_t set) serve both. */
_Static_assert(sizeof(struct stitch_itimerval) == 16, "stitch_itimerval: one layout");

/* The siginfo a SA_SIGINFO handler receives: newlib's siginfo_t (signo,
 * code, value) followed by what the kernel adds. */
struct stitch_siginfo {
	int32_t signo;
	int32_t code;   /* STITCH_SI_* */
	uint64_t value; /* union sigval */
	int32_t pid;    /* the sender, for kill() */
	int32_t pad;
	uint64_t addr;  /* the faulting address, for a fault */
};

#define STITCH_SI_USER  1 /* kill(), raise() (newlib's SI_USER) */
#define STITCH_SI_TIMER 3 /* setitimer() expired (newlib's SI_TIMER) */

/*
 * The interrupted context: every general register, as the entry saved
 * it, and the signal mask to restore. The order is fixed by the
 * trampoline's CFI (userland/sigpage/sigreturn.S), which names where
 * rip, rsp, rbp and the others are: change both or neither.
 */
struct stitch_sigcontext {
	uint64_t r8, r9, r10, r11, r12, r13, r14, r15;
	uint64_t rdi, rsi, rbx, rdx, rax, rcx;
	uint64_t rflags;
	uint64_t blocked; /* the mask before the handler */
	uint64_t rsp, rbp, rip;
};

/* The rflags bits sigreturn takes from sc.rflags (CF PF AF ZF SF DF OF
 * and AC); the others keep the kernel's values, and IF is set. */
#define STITCH_SIGRETURN_RFLAGS 0x40cd5ull

/*
 * The frame on the user stack. It starts 16-byte aligned plus 8, as rsp
 * is at a function's first instruction after a call: restorer is the
 * handler's return address, and `fpu`, the FXSAVE image of the
 * interrupted context's x87/SSE state, falls on a 16-byte boundary (the
 * kernel checks its MXCSR before restoring it).
 */
struct stitch_sigframe {
	uint64_t restorer;               /* STITCH_SIGPAGE_TRAMPOLINE */
	struct stitch_siginfo info;      /* rsp in the trampoline points here */
	struct stitch_sigcontext sc;
	uint64_t pad;
	uint8_t fpu[512];
};

/* MXCSR's byte offset in the FXSAVE image fpu. */
#define STITCH_FPU_MXCSR 24

_Static_assert(offsetof(struct stitch_sigframe, info) == STITCH_SIGFRAME_INFO, "info");
_Static_assert(offsetof(struct stitch_sigframe, sc) == STITCH_SIGFRAME_SC, "sc");
_Static_assert(offsetof(struct stitch_sigframe, sc.rip) + 8 == STITCH_SIGFRAME_CFA, "cfa");
_Static_assert(offsetof(struct stitch_sigframe, fpu) % 16 == 8, "fpu alignment");

#endif /* __ASSEMBLER__ */
#endif
