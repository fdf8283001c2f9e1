/*
 * The user-stack unwinder: the callchain of the current task's user
 * context at its latest kernel entry, read from user memory now.
 *
 * Runs in task context on the way back to ring 3 (the deferred unwind's
 * task work), so it may take page faults: an SFrame walk holds one
 * user-access window open across its steps and reads the section and the
 * stack with single user loads (only addresses below USER_END), and a page
 * that was never touched is simply faulted in. Every read is checked, every loop bounded by the buffer,
 * every way to stop counted (unwind_stop_<reason>).
 *
 * The frame-pointer walk also exists in an NMI-safe form, which reads
 * only pages that are present (the `fp` mode's baseline).
 */
#ifndef KERN_UNWIND_USER_H
#define KERN_UNWIND_USER_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/unwind/table.h"
#include "sframe/sframe.h"
#include "stitch/records.h"

struct rule_cache;

/* How unwind_user walks. A walk by tables (the methods before
 * UNWIND_METHOD_FP) is named by their format, so that the walk hands its
 * method to the lookup as it is. */
enum unwind_method {
	UNWIND_METHOD_SFRAME = UNWIND_SFRAME,     /* SFrame, frame pointer where a pc has none */
	UNWIND_METHOD_EH_FRAME = UNWIND_EH_FRAME, /* .eh_frame, likewise */
	UNWIND_METHOD_FP = UNWIND_FORMATS,        /* frame pointers only */
	UNWIND_METHOD_GUESS,  /* scan the stack for addresses in registered text */
};

/* Reads the command-line switches (unwind.budget, and the lookup's:
 * kern/unwind/lookup.h). Boot, before the first process. */
void unwind_user_init(void);

/* The method unwind_user() walks with (the profile's mode says which);
 * boot, before the first process. Until then UNWIND_METHOD_SFRAME. */
void unwind_user_set_method(enum unwind_method m);

/* Whether that method walks by tables, and so uses a rule cache. */
bool unwind_user_walks_tables(void);

/*
 * Task context, faults allowed: ips[0] = the user pc at the latest kernel
 * entry, then return addresses, leaf first; at most max. Returns how many,
 * and why it stopped in *stop (enum unwind_stop: the stop reasons the
 * record stream carries, include/stitch/records.h). A walk by tables
 * spends at most unwind.budget probes and rows (stop budget), reschedules
 * between steps when the tick asked for it, and ends when the task is
 * killed (stop killed). It walks by the method set above, with the
 * task's rule cache (NULL: none; kern/unwind/lookup.h).
 */
uint32_t unwind_user(uint64_t *ips, uint32_t max, enum unwind_stop *stop,
		     struct rule_cache *cache);
/* The table walk of unwind_user (SFrame's, or in eh-frame mode
 * .eh_frame's) for the report of a task that is being killed
 * (kern/proc/entry.c), without a rule cache: the kill, its reason to be,
 * does not end it. */
uint32_t unwind_user_dying(uint64_t *ips, uint32_t max, enum unwind_stop *stop);

/*
 * NMI context: a frame-pointer walk from *start that reads only pages
 * already present in current's address space (copy_from_user_nofault).
 * ips[0] = start->pc. A refused read ends the walk and counts
 * nmi_user_absent.
 */
uint32_t unwind_user_fp_nmi(const struct sf_frame *start, uint64_t *ips,
			    uint32_t max);

#endif
