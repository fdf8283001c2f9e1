/*
 * The hooks that architecture-neutral code (kern/, sframe/) calls. This
 * directory (arch/x86_64/include/arch/, reached as <arch/...> through the
 * include path the Makefile chooses by ARCH) is the whole interface: kern/
 * includes nothing else from arch/ and writes no instruction of its own;
 * tools/check-arch, run by every build, holds it to that.
 *
 * One header a chapter, named for the folder of arch/x86_64/ that
 * implements it; this one includes those below. Their names start with
 * arch_ (ARCH_ for a macro), but for the interrupt flag's irq_ (and
 * irqflags_t); the other interface headers each keep one prefix too
 * (trap_ and VEC_ in <arch/trap.h>, unwind_user_ in <arch/unwind_user.h>):
 *
 *   <arch/boot.h>           bring-up order, the console, shutdown
 *   <arch/cpu.h>            CPU indices, spin-wait
 *   <arch/irq.h>            the interrupt flag
 *   <arch/time.h>           the TSC: cycles, its rate, delays
 *   <arch/smp.h>            the other CPUs, cross-CPU calls and IPIs
 *   <arch/nmi.h>            sampling and watchdog NMIs, NMI context
 *   <arch/channel.h>        the record channel to the host
 *   <arch/unwind_kernel.h>  what the kernel unwinder needs
 *
 * Nothing here includes x86.h: the instructions kern/ needs are named for
 * what they do (irq_disable, arch_cycles), not for the x86 instruction.
 */
#ifndef ARCH_ARCH_H
#define ARCH_ARCH_H

#include <arch/boot.h>
#include <arch/channel.h>
#include <arch/cpu.h>
#include <arch/irq.h>
#include <arch/nmi.h>
#include <arch/smp.h>
#include <arch/time.h>
#include <arch/unwind_kernel.h>

#endif
