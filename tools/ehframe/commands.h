#ifndef STITCH_TOOLS_EHFRAME_COMMANDS_H
#define STITCH_TOOLS_EHFRAME_COMMANDS_H

#include <stddef.h>

#include "sframe.h"

/* Instructions one lookup may run: far above what gcc writes for one
 * function, low enough that a looping section stops at once. */
#define EHFRAME_BUDGET 100000

int cmd_lookup(int argc, char **argv);
int cmd_check(int argc, char **argv);

/* A rule as `sframe lookup` prints it: "cfa=r7+8 ra=[cfa-8] fp=same". */
void rule_str(const struct sf_rule *r, char *buf, size_t n);

#endif
