/*
 * The profile summary the kernel prints itself at the end of a run, for a
 * machine with a screen and no host: per process, the functions that took
 * the most samples by self and by total, named from the programs' own
 * ELF symbol tables in the initrd (kern/profile/elfsym.h), and the counters that
 * say whether the profile is whole. The record stream stays the full
 * profile; this is what can be read off the screen.
 *
 * Fed by the deferred unwinder's sampler (sframe, fp-deferred, guess and
 * validate modes): every sample is noted in NMI context against its task,
 * and when the task's deferred user stack arrives, the samples it answers
 * are counted on that stack.
 */
#ifndef KERN_SUMMARY_H
#define KERN_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/unwind/deferred.h"

struct task;

/* want: profile.summary (kern/profile/profile.h); off, every hook returns at once. */
void summary_init(bool want);
/* From the records the host gets too (kern/profile/record.c). */
void summary_comm(uint32_t pid, const char *name);
void summary_mmap(uint32_t pid, uint64_t start, uint64_t len, uint64_t pgoff,
		  const char *path);
/* The task is gone: its waiting samples (if any) are not counted, and
 * the symbol tables only it used are freed. */
void summary_exit(uint32_t pid, uint32_t tid);
/* NMI context: one sample of task t, taken in user or kernel mode, whose
 * user stack was requested from the deferred unwinder. */
void summary_note_sample(const struct task *t, bool user);
/* Task context: the current task's deferred user stack. */
void summary_user_stack(const struct unwind_trace *trace);
/* On the console: per process, top functions by self and total. */
void summary_print(void);

#endif
