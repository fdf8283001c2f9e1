/*
 * The profile summary the kernel prints itself at the end of a run, for a
 * machine with a screen and no host: per process, the functions that took
 * the most samples by self and by total, named from the programs' own
 * ELF symbol tables in the initrd (kern/profile/elfsym.h), and the counters that
 * say whether the profile is whole. The record stream stays the full
 * profile; this is what can be read off the screen.
 *
 * Fed from two places, both in task context: the record writer hands it
 * the records that name processes and their files (summary_record), and
 * the sampler's answer (sframe, fp-deferred, guess and validate modes)
 * hands it a deferred user stack with the samples it answers.
 */
#ifndef KERN_PROFILE_SUMMARY_H
#define KERN_PROFILE_SUMMARY_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/unwind/deferred.h"

/* want: profile.summary (kern/profile/profile.h); off, every hook returns at once. */
void summary_init(bool want);
/* A record the host gets too (kern/profile/record.c, record_write):
 * REC_COMM names a process, REC_MMAP (a user one) maps a file whose
 * symbols it loads, REC_EXIT of its last thread ends the process (the
 * symbol tables only it used are freed); any other is ignored. */
void summary_record(uint32_t type, const void *rec);
/* Process pid's deferred user stack, for `user` samples taken in user
 * mode and `kernel` in kernel mode during the entry it belongs to. */
void summary_user_stack(uint32_t pid, const struct unwind_trace *trace,
			uint32_t user, uint32_t kernel);
/* On the console: per process, top functions by self and total. */
void summary_print(void);

#endif
