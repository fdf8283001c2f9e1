/*
 * The processes a stream talks about, rebuilt from REC_COMM, REC_MMAP and
 * REC_EXIT. A pid that is reused after REC_EXIT gets a new struct proc, and
 * records are matched to the incarnation that was alive at their time
 * stamp, so a recycled pid never inherits the mappings or cookies of the
 * process that had it before.
 */
#ifndef STITCH_PROCS_H
#define STITCH_PROCS_H

#include <elfutils/libdwfl.h>
#include <stdint.h>

#include "stream.h"

struct proc {
	uint32_t pid;
	uint32_t index;     /* unique per incarnation: hash keys, perf pids */
	char comm[16];      /* ":<pid>" until a REC_COMM names it */
	int named;          /* a REC_COMM named it, first at t_comm */
	uint64_t t_comm;
	int exited;         /* exit, or the exec that ended this program */
	uint64_t t_exit;
	int exec;           /* an exec started it (COMM_EXEC) */
	int compat;         /* a 32-bit (i386) program: its mapping had MMAP_COMPAT */
	struct mmap_rec **maps;
	size_t nmaps;

	Dwfl *dwfl;         /* symbols.c: the mappings reported to libdwfl */
	int reported;
	int attached;       /* unwind.c: dwfl_attach_state done */
	const struct sample_rec *cur; /* unwind.c: the sample being unwound */
	int step_reads;     /* unwind.c: libdw's reads since the last frame it gave, */
	int step_missed;    /* ... those the copy does not hold (COPY_ bits) */
	int copy_past_end;  /* unwind.c: its last unwind stopped for stack past the copy, */
	int copy_below_sp;  /* ... or below sp, where the copy does not start */
};

struct procs {
	struct proc **v;
	size_t n;
	struct proc kernel; /* the MMAP_KERNEL mappings */
};

void procs_build(struct procs *p, const struct stream *s);
/* The incarnation of pid alive at time (created if the stream never named it). */
struct proc *proc_at(struct procs *p, uint32_t pid, uint64_t time);
/* The newest mapping of p that contains addr, or NULL. */
const struct mmap_rec *proc_map(const struct proc *p, uint64_t addr);
/* Add a mapping the stream did not carry (the kernel given by --kernel). */
void proc_add_map(struct proc *p, struct mmap_rec *m);
void procs_free(struct procs *p);

#endif
