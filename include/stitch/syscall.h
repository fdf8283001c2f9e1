/*
 * The system-call ABI between Stitch's kernel and its ring-3 programs.
 *
 * Entry is the SYSCALL instruction: rax = number, arguments in rdi, rsi,
 * rdx, r10, r8, r9 (as on Linux; rcx and r11 are clobbered by the
 * instruction). The result comes back in rax: a value >= 0 on success,
 * -errno on failure. The errno values are newlib's (<sys/errno.h>), so the
 * user-side glue stores -rax into errno unchanged.
 */
#ifndef STITCH_SYSCALL_H
#define STITCH_SYSCALL_H

#define SYS_exit          1  /* (int status) -> no return */
#define SYS_write         2  /* (int fd, const void *buf, size_t n) */
#define SYS_read          3  /* (int fd, void *buf, size_t n) */
#define SYS_open          4  /* (const char *path, int flags) initrd files */
#define SYS_close         5  /* (int fd) */
#define SYS_lseek         6  /* (int fd, long off, int whence) */
#define SYS_fstat         7  /* (int fd, struct stitch_stat *st) */
#define SYS_isatty        8  /* (int fd) -> 1 or 0 */
#define SYS_sbrk          9  /* (long increment) -> old break */
#define SYS_mmap          10 /* (void *hint, size_t len, int prot, int fd, long off) */
#define SYS_munmap        11 /* (void *addr, size_t len) */
#define SYS_getpid        12 /* () */
#define SYS_kill          13 /* (int pid, int sig) sends sig to pid (stitch/signal.h) */
#define SYS_gettimeofday  14 /* (struct stitch_timeval *tv) */
#define SYS_times         15 /* (struct stitch_tms *t) -> ticks since boot */
#define SYS_yield         16 /* () */
#define SYS_sleep         17 /* (unsigned long microseconds) */
#define SYS_spawn         18 /* (const char *path, char *const argv[]) -> pid */
#define SYS_wait          19 /* (int pid, int *status) -> pid; pid -1: any child */
#define SYS_pipe          20 /* (int fds[2]) */
#define SYS_stacktrace_setup 21 /* (int op, addr, len, text_start, text_len[, seg_end]): SFrame / .eh_frame registration */
#define SYS_getppid       22 /* () */
#define SYS_sigaction     23 /* (int sig, const struct stitch_sigaction *act, struct stitch_sigaction *old) */
#define SYS_sigprocmask   24 /* (int how, const uint64_t *set, uint64_t *old): stitch/signal.h */
#define SYS_sigreturn     25 /* () from the signal page's trampoline only */
#define SYS_setitimer     26 /* (int which, const struct stitch_itimerval *new, struct stitch_itimerval *old) */
#define SYS_thread_spawn  27 /* (entry, sp, int *clear_tid) -> tid: a thread of the caller's process */
#define SYS_thread_exit   28 /* (int status) -> no return; the last thread's is the process's exit */
#define SYS_futex         29 /* (int op, uint32_t *addr, uint32_t val, uint64_t timeout_ns) */
#define SYS_gettid        30 /* () */
#define SYS_exec          31 /* (const char *path, char *const argv[]) -> no return, or -errno */
#define SYS_COUNT         32

/* SYS_futex operations: WAIT sleeps while *addr == val (timeout_ns 0:
 * none); 0 once woken, -EAGAIN (the word differs), -ETIMEDOUT, -EINTR.
 * WAKE wakes up to val waiters on addr and returns how many. */
#define STITCH_FUTEX_WAIT 0
#define STITCH_FUTEX_WAKE 1

/* SYS_stacktrace_setup operations (after Linux's proposal). */
#define STACKTRACE_SFRAME_ADD    1
#define STACKTRACE_SFRAME_REMOVE 2
/* (op, eh_frame_hdr, len, text_start, text_len, seg_end): .eh_frame is
 * where the header says, bounded by seg_end, the end of its segment. */
#define STACKTRACE_EH_FRAME_ADD    3
#define STACKTRACE_EH_FRAME_REMOVE 4

#ifndef __ASSEMBLER__
#include <stdint.h>

/* SYS_open flags (the subset the initrd supports: it is read-only). */
#define STITCH_O_RDONLY 0

/*
 * SYS_mmap: fd -1 maps anonymous zeroed memory; an initrd file descriptor
 * maps a private copy of the file from page-aligned offset `off` (pages are
 * filled on first touch). An executable file mapping is reported to the
 * profiler as a load event (REC_MMAP with the file's path), which is how
 * the host finds a shared object loaded by a user-space loader.
 */
#define STITCH_PROT_READ  1
#define STITCH_PROT_WRITE 2
#define STITCH_PROT_EXEC  4

/*
 * The structures below have one layout for 64-bit programs and for 32-bit
 * (compat, int $0x80) ones: fixed-width fields, 8-byte ones at 8-byte
 * offsets. The asserts hold in both builds (the kernel's, and the 32-bit
 * programs' that include this header with gcc -m32: mk/compat32.mk).
 */
struct stitch_stat {
	uint64_t size;
	uint32_t mode; /* S_IFREG | 0444, S_IFCHR | 0666 for the console */
	uint32_t pad;
};
_Static_assert(sizeof(struct stitch_stat) == 16, "stitch_stat: one layout");

struct stitch_timeval {
	int64_t sec;
	int64_t usec;
};
_Static_assert(sizeof(struct stitch_timeval) == 16, "stitch_timeval: one layout");

struct stitch_tms {
	uint64_t utime, stime, cutime, cstime; /* in ticks, see times() */
};
_Static_assert(sizeof(struct stitch_tms) == 32, "stitch_tms: one layout");

/* The clock tick unit of SYS_times (sysconf(_SC_CLK_TCK) in the SDK). */
#define STITCH_CLK_TCK 100

/* Error numbers returned as -errno (newlib's values). */
#define STITCH_EPERM        1
#define STITCH_ENOENT       2
#define STITCH_ESRCH        3
#define STITCH_EINTR        4
#define STITCH_EIO          5
#define STITCH_ENOEXEC      8
#define STITCH_EBADF        9
#define STITCH_ECHILD       10
#define STITCH_EAGAIN       11
#define STITCH_ENOMEM       12
#define STITCH_EFAULT       14
#define STITCH_EBUSY        16
#define STITCH_EEXIST       17
#define STITCH_EINVAL       22
#define STITCH_EMFILE       24
#define STITCH_ENOTTY       25
#define STITCH_ESPIPE       29
#define STITCH_EPIPE        32
#define STITCH_ENOSYS       88
#define STITCH_ENAMETOOLONG 91
#define STITCH_ETIMEDOUT    116
#endif /* __ASSEMBLER__ */

#endif
