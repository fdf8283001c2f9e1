/*
 * The stack-copy unwinder: what `perf --call-graph dwarf` does with
 * elfutils. The registers and the stack bytes the kernel copied at the
 * sample are handed to libdwfl, which unwinds with the .eh_frame (or
 * .debug_frame) of the mappings; memory reads are served from the copy only.
 */
#ifndef STITCH_UNWIND_H
#define STITCH_UNWIND_H

#include <stdint.h>

#include "symbols.h"

/* Fill out[] with the user pcs of s, leaf first; returns how many. */
uint32_t unwind_copy(struct symbols *sy, struct proc *p,
		     const struct sample_rec *s, uint64_t *out, uint32_t max);

#endif
