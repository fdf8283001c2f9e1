/*
 * A frame rule in text, as `sframe lookup` and `ehframe lookup` print it
 * ("cfa=r7+8 ra=[cfa-8] fp=same"): one spelling for both formats, so that
 * their lookups compare line by line.
 */
#ifndef STITCH_TOOLS_RULE_STR_H
#define STITCH_TOOLS_RULE_STR_H

#include <stddef.h>

#include "sframe.h"

void sf_rule_str(const struct sf_rule *r, char *buf, size_t n);

#endif
