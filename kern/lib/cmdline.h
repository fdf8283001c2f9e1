/*
 * The kernel command line: space-separated words, each `key` or
 * `key=value`. A later word overrides an earlier one with the same key.
 */
#ifndef KERN_LIB_CMDLINE_H
#define KERN_LIB_CMDLINE_H

#include <stdbool.h>

#include "stitch/boot_info.h"

#define CMDLINE_MAX_ARGS 64

struct cmdline {
	char buf[BOOT_CMDLINE_MAX];
	int argc;
	const char *key[CMDLINE_MAX_ARGS];
	const char *val[CMDLINE_MAX_ARGS]; /* "" for a bare key */
};

extern struct cmdline boot_args; /* the command line the loader passed */

/* Splits s (truncated to BOOT_CMDLINE_MAX - 1 bytes, and to
 * CMDLINE_MAX_ARGS words, saying so); returns the number of words. */
int cmdline_parse(struct cmdline *c, const char *s);
/* The value of key ("" when given without '='), NULL when absent. */
const char *cmdline_get(const struct cmdline *c, const char *key);
/* True for a bare `key` and for key=1|on|yes|true, false for
 * key=0|off|no|false; def when absent, def with a warning otherwise. */
bool cmdline_bool(const struct cmdline *c, const char *key, bool def);
/* cmdline_bool with def false: a switch that is off unless given. */
bool cmdline_flag(const struct cmdline *c, const char *key);
/* The integer value of key (decimal or 0x hex, optional '-'), def when
 * absent; def with a warning when malformed or outside [min, max]. */
long cmdline_int(const struct cmdline *c, const char *key, long def,
		 long min, long max);

#endif
