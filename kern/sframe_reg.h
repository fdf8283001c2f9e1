/*
 * SFrame registration: which user text ranges have which SFrame section.
 *
 * Two ways in, one function: the kernel's ELF loader registers the
 * executable's PT_GNU_SFRAME at spawn, and a user-space loader registers
 * the sections of what it loads with SYS_stacktrace_setup (after Linux's
 * proposal: op, addr, len, text_start, text_len). The sections stay in
 * user memory: nothing is pinned or copied. The unwinder opens and fully
 * validates a section at its first use, through the faulting user-copy
 * helper, and drops it (counted) if that fails.
 */
#ifndef KERN_SFRAME_REG_H
#define KERN_SFRAME_REG_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/uvm.h"

/* Registers [sframe, +len) for the code [text, +text_len) of mm; counts
 * sframe_registered, or sframe_dropped on failure. 0, -EFAULT (outside the
 * user range), -EINVAL (a zero or > 4 GiB length), -EEXIST (the text
 * overlaps a registered range), -ENOMEM; each refusal also counts its
 * reason (sframe_refused_*). */
int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len,
		    uint64_t text, uint64_t text_len);

/*
 * The section covering pc in current's address space, opened and
 * validated (on first use: may take page faults), or NULL. *err is SF_OK,
 * or why the covering section was just dropped: SF_E_FAULT if reading it
 * faulted, another SF_E_* if it is not valid SFrame (counted as
 * sframe_dropped; later lookups find nothing there).
 */
struct sframe_section *sframe_lookup(uint64_t pc, int *err);

/* Unregisters a section the unwinder found unusable at run time: err is
 * SF_E_FAULT (a read faulted) or why it is not valid SFrame. Counted in
 * sframe_dropped and sframe_dropped_fault / sframe_dropped_invalid. */
void sframe_drop(struct sframe_section *s, int err);

/* The faulting reader for sections and stacks of current (sf_read_fn):
 * copy_from_user, so it may take page faults; false on -EFAULT. */
bool sframe_user_read(void *ctx, uint64_t addr, void *dst, uint32_t len);

#endif
