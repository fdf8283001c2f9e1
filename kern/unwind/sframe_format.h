/*
 * SFrame tables (the SFrame specification, version 2; sframe/sframe.h):
 * one format of the unwind-table registry (kern/unwind/table.h). A table
 * is an .sframe section, read in place, opened at its first use and then
 * given an FDE index in kernel memory.
 */
#ifndef KERN_UNWIND_SFRAME_FORMAT_H
#define KERN_UNWIND_SFRAME_FORMAT_H

#include "kern/unwind/table.h"

extern const struct unwind_format sframe_format;

#endif
