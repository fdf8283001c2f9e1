/*
 * <stitch.h>: the Stitch-specific calls of the user SDK.
 *
 * The POSIX-shaped ones come from newlib's headers and are implemented by
 * the SDK's glue: write/read/open/close/lseek/fstat/isatty, sbrk, _exit,
 * getpid/getppid, kill, sleep/usleep, pipe (<unistd.h>), wait/waitpid
 * (<sys/wait.h>: the kernel stores a POSIX wait status, so WIFEXITED,
 * WEXITSTATUS, WIFSIGNALED and WTERMSIG work), gettimeofday, times.
 * Everything returns -1 and sets errno on failure.
 */
#ifndef STITCH_H
#define STITCH_H

#include <stddef.h>
#include <stitch/syscall.h>

/* Start the initrd program at path with a NULL-terminated argv; its pid. */
int spawn(const char *path, char *const argv[]);

/*
 * sigaction flags newlib's <signal.h> lacks for this target (the kernel's
 * values; SA_SIGINFO is newlib's own where it has it). newlib's struct
 * sigaction here has no sa_sigaction member either: a SA_SIGINFO handler
 * void h(int, siginfo_t *, void *) goes into sa_handler with a cast
 * (through void (*)(void), which gcc's -Wcast-function-type allows). The
 * kernel passes every handler the signal, the siginfo and the
 * sigcontext (struct stitch_sigcontext) all the same.
 */
#ifndef SA_SIGINFO
#define SA_SIGINFO   0x2
#endif
#ifndef SA_NODEFER
#define SA_NODEFER   0x40000000 /* the signal is not blocked in its own handler */
#define SA_RESETHAND 0x80000000 /* the default action again once delivered */
#endif

/* Give the CPU to another runnable process. */
int yield(void);

/*
 * Map len bytes: zero-filled memory when fd is -1, else a private copy of
 * the initrd file fd from the page-aligned offset off. prot is a mix of
 * STITCH_PROT_READ, _WRITE, _EXEC; hint is only a hint.
 */
#define STITCH_MAP_FAILED ((void *)-1)
void *stitch_mmap(void *hint, size_t len, int prot, int fd, long off);
int stitch_munmap(void *addr, size_t len);

/*
 * Register (STACKTRACE_SFRAME_ADD) or drop (STACKTRACE_SFRAME_REMOVE) the
 * SFrame section [sframe, sframe + len) that describes the code in
 * [text_start, text_start + text_len), for code the kernel did not load.
 */
int stacktrace_setup(int op, const void *sframe, size_t len,
		     const void *text_start, size_t text_len);

/*
 * Register (STACKTRACE_EH_FRAME_ADD) the .eh_frame_hdr [hdr, hdr + len)
 * for the code [text_start, text_start + text_len): .eh_frame is where the
 * header's eh_frame_ptr says, at or after hdr, and ends at most at
 * seg_end (the end of the segment that holds it; the header gives no
 * size). STACKTRACE_EH_FRAME_REMOVE drops it (by text_start).
 */
int stacktrace_setup_eh_frame(int op, const void *hdr, size_t len,
			      const void *text_start, size_t text_len,
			      const void *seg_end);

/*
 * The system call nr with its arguments, without the glue: returns the
 * kernel's rax unchanged (-errno on failure) and leaves errno alone. For
 * tests that must reach the kernel with exactly the pointers they chose.
 */
long stitch_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6);

/* The end of the user range (docs/USERLAND.md): the stack ends here. */
#define STITCH_USER_TOP 0x00007ffffffff000UL

#endif
