/*
 * The capture programs: host programs that take "samples" of themselves at
 * fixed points, so that the tests have real registers, real stacks and
 * real return addresses of real ELF files to build record streams from.
 */
#ifndef CAPTURE_H
#define CAPTURE_H

/* Open the snapshot file and write the executable mappings of the files of
 * this tree (the program and its shared object, not the host's libraries);
 * stack_top is the top of the stack the workload runs on. */
void snap_begin(const char *path, void *stack_top);
/* Record the caller as if an NMI had hit right after this call returns:
 * its registers, its stack from sp upward, and the true callchain. */
void snap(void);
void snap_end(void);

/* The workload (work.c). */
int run_all(int n);

#endif
