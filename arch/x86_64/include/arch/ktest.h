/*
 * What the portable kernel self-tests (the _test.c files of kern/) ask of the
 * architecture beyond <arch/arch.h>: an NMI at a known place or a known
 * time on this CPU. The handler is the one set for VEC_NMI (<arch/trap.h>).
 */
#ifndef ARCH_KTEST_H
#define ARCH_KTEST_H

#include <stdint.h>

/* Sends an NMI to this CPU; it arrives right after the instruction that
 * sends it (no timer). */
void arch_self_nmi(void);

/* One NMI on this CPU after ns nanoseconds (the CPU's local timer, which
 * the caller must not be using). */
void arch_nmi_after(uint64_t ns);

#endif
