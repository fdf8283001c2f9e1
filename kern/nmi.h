/*
 * What an NMI interrupted, as the architecture's NMI path hands it to the
 * kernel's two NMI hooks: the sampler (kern/profile/sample.c) and the
 * lockup detector (kern/watchdog.c). The three registers every user reads,
 * and the frame, from which a mode that records them all takes the rest
 * (unwind_user_regs), so that the NMI copies no more than it uses.
 */
#ifndef KERN_NMI_H
#define KERN_NMI_H

#include <stdbool.h>
#include <stdint.h>

struct trap_frame; /* <arch/trap.h> */

struct nmi_regs {
	const struct trap_frame *frame;
	uint64_t ip, sp, fp;
	bool user;     /* ring 3 */
	bool irqs_off; /* the interrupted context had interrupts off */
};

#endif
