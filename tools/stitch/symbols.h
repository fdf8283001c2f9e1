/*
 * Symbolization with libdwfl: each process's mappings (from REC_MMAP) are
 * reported to one Dwfl at the address they were loaded at; the kernel has
 * its own. Lookups are cached per (process, address).
 */
#ifndef STITCH_SYMBOLS_H
#define STITCH_SYMBOLS_H

#include <stdint.h>

#include "counters.h"
#include "hash.h"
#include "procs.h"

struct frame {
	uint64_t addr;
	const char *name;   /* interned; "[unknown]" without a symbol */
	const char *module; /* interned guest path of the mapping; NULL if unmapped */
	const char *file;   /* source file (interned), NULL without line info */
	int line;
	uint64_t off;       /* addr - start of the symbol */
	int kernel;
	int known;          /* name comes from a symbol */
};

struct symbols {
	const char *symfs;       /* host directory holding the guest paths */
	const char *kernel_file; /* --kernel: overrides the kernel mapping's path */
	struct procs *procs;
	struct counters *c;
	struct strset strings;
	struct hmap cache;
	struct mmap_rec *kernel_map; /* made up from --kernel when the stream had none */
	struct frame missing;        /* stands for a user part that never came */
	struct frame cut;            /* the outer end of a user part cut short */
};

void symbols_init(struct symbols *sy, struct procs *procs, const char *symfs,
		  const char *kernel_file, struct counters *c);
/*
 * The frame for addr in p (or in the kernel when kernel is set). caller:
 * addr is a return address, so the call instruction is at addr - 1; using
 * it keeps a call that ends a function attributed to that function (perf
 * looks up addr itself, and names the next function there). When addr - 1
 * has no symbol, addr is used: an interrupted ip at a function's entry.
 */
const struct frame *symbols_frame(struct symbols *sy, struct proc *p,
				  uint64_t addr, int kernel, int caller);
/* The build id of a mapping's file (the stream's, else read from the file). */
int symbols_build_id(struct symbols *sy, struct proc *p,
		     const struct mmap_rec *m, uint8_t id[20]);
/* p's Dwfl with every mapping reported (for the stack-copy unwinder). */
Dwfl *symbols_dwfl(struct symbols *sy, struct proc *p);
/* The host path of a mapping (caller frees). */
char *symbols_host_path(const struct symbols *sy, const struct proc *p,
			const struct mmap_rec *m);
const char *symbols_intern(struct symbols *sy, const char *s);
/* The frame "[user stack missing]". */
const struct frame *symbols_missing(struct symbols *sy);
/* The frame "[cut at the frame bound]": the unwind stopped at its bound,
 * so the frames shown are not the outermost ones. */
const struct frame *symbols_cut(struct symbols *sy);
void symbols_free(struct symbols *sy);

#endif
