/*
 * System calls: one table indexed by number (include/stitch/syscall.h),
 * as in xv6, with each call's handler and name. Each handler gets the six argument registers as longs and
 * returns the result or -errno; syscall_dispatch is the one place every
 * call passes through (for a tracer, too).
 */
#ifndef KERN_PROC_SYSCALL_H
#define KERN_PROC_SYSCALL_H

#include <stdint.h>

typedef long (*syscall_fn)(const long *arg);

long syscall_dispatch(long nr, const long *arg);
/* int $0x80 (docs/PROCESSES.md, "32-bit programs"): the six 32-bit
 * argument registers widened as each call's arguments want, then
 * syscall_dispatch; the calls a compat program cannot make are -ENOSYS. */
long syscall_dispatch_compat(long nr, const uint32_t reg[6]);
/* The call's name ("write"), or NULL for a number no call has. */
const char *syscall_name(long nr);

/* kern/proc/sys_file.c */
long sys_read(const long *arg);
long sys_write(const long *arg);
long sys_open(const long *arg);
long sys_close(const long *arg);
long sys_lseek(const long *arg);
long sys_fstat(const long *arg);
long sys_isatty(const long *arg);
long sys_pipe(const long *arg);
/* kern/proc/sys_mem.c */
long sys_sbrk(const long *arg);
long sys_mmap(const long *arg);
long sys_munmap(const long *arg);
long sys_stacktrace_setup(const long *arg);
/* kern/proc/sys_proc.c */
long sys_exit(const long *arg);
long sys_getpid(const long *arg);
long sys_getppid(const long *arg);
long sys_kill(const long *arg);
long sys_spawn(const long *arg);
long sys_exec(const long *arg);
/* kern/proc/sys_signal.c */
long sys_sigaction(const long *arg);
long sys_sigprocmask(const long *arg);
long sys_sigreturn(const long *arg);
long sys_setitimer(const long *arg);
long sys_thread_spawn(const long *arg);
long sys_thread_exit(const long *arg);
long sys_futex(const long *arg);
long sys_gettid(const long *arg);
long sys_wait(const long *arg);
long sys_yield(const long *arg);
long sys_sleep(const long *arg);
long sys_gettimeofday(const long *arg);
long sys_times(const long *arg);

#endif
