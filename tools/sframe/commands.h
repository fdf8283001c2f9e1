#ifndef STITCH_TOOLS_SFRAME_COMMANDS_H
#define STITCH_TOOLS_SFRAME_COMMANDS_H

#include <stdbool.h>
#include <stdint.h>

struct options {
	uint64_t vaddr;     /* run-time address of a raw blob */
	int version;        /* convert, rewrite --to */
	bool pcrel;         /* convert: SFRAME_F_FDE_FUNC_START_PCREL */
	uint64_t at;        /* convert --at: run-time address of the output */
	bool at_set;
	uint64_t signal;    /* convert --signal: mark the FDE covering it */
	bool signal_set;
	const char *output; /* convert -o */
	bool style246;      /* dump --style=2.46: readelf 2.46's text */
	bool fde_set;       /* lookup --fde N: only FDE number fde */
	uint32_t fde;
	char **args;        /* positional arguments */
	int nargs;
};

int cmd_dump(const struct options *o);
int cmd_convert(const struct options *o);
int cmd_rewrite(const struct options *o);
int cmd_check(const struct options *o);
int cmd_lookup(const struct options *o);

#endif
