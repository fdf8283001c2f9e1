/*
 * The x86_64 half of signal delivery (kern/proc/signal.c): writing the
 * signal frame of include/stitch/signal.h on the user stack and taking it
 * back at sigreturn.
 */
#ifndef ARCH_X86_64_SIGNAL_H
#define ARCH_X86_64_SIGNAL_H

#include <stdbool.h>
#include <stdint.h>

#include <arch/trap.h>
#include "stitch/signal.h"

/*
 * Writes the frame below tf's user rsp (past the red zone), with the
 * interrupted registers of tf, the live FPU state, *info and blocked (the
 * mask to restore), and points tf at the handler: rip = handler, rdi =
 * signal, rsi = &info, rdx = &sc, rsp = the frame (its first word, the
 * return address, is restorer). 0, or -EFAULT when the stack cannot take
 * it (tf unchanged).
 */
int arch_signal_frame(struct trap_frame *tf, uint64_t handler, uint64_t restorer,
		      const struct stitch_siginfo *info, uint64_t blocked);

/*
 * sigreturn: takes the frame back from the trampoline's rsp (the frame's
 * info) into tf and the FPU, *blocked the mask it holds. Only what ring 3
 * may set is taken: the arithmetic and direction flags (and AC) of
 * rflags, IF always on; a rip or rsp outside the user range, or a frame
 * that cannot be read, is -EFAULT (tf and the FPU unchanged); an MXCSR
 * with reserved bits set is refused the same way.
 */
int arch_sigreturn(struct trap_frame *tf, uint64_t *blocked);

#endif
