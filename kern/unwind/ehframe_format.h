/*
 * .eh_frame tables (profile.mode=eh-frame; the .eh_frame library,
 * ehframe/ehframe.h, docs/EHFRAME.md): one format of the unwind-table
 * registry (kern/unwind/table.h). A table is an .eh_frame_hdr with its
 * binary-search table, and the .eh_frame it points into, which runs at
 * most to the end of the segment registered with it.
 */
#ifndef KERN_UNWIND_EHFRAME_FORMAT_H
#define KERN_UNWIND_EHFRAME_FORMAT_H

#include "kern/unwind/table.h"

extern const struct unwind_format ehframe_format;

#endif
