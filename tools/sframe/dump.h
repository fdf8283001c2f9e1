#ifndef STITCH_TOOLS_SFRAME_DUMP_H
#define STITCH_TOOLS_SFRAME_DUMP_H

#include <stdio.h>

#include "sframe.h"

/* Print t as `readelf --sframe` does; stops at the first decoding error
 * and returns it. */
int dump_section(FILE *out, const struct sf_table *t);

#endif
