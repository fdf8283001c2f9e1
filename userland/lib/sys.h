/*
 * Raw system calls (include/stitch/syscall.h) and the errno convention.
 * Internal to the glue: programs call the libc names or <stitch.h>.
 */
#ifndef STITCH_LIB_SYS_H
#define STITCH_LIB_SYS_H

#include <errno.h>
#include <stitch/syscall.h>

/*
 * The SYSCALL instruction clobbers rcx (return rip) and r11 (rflags); the
 * kernel may read any user memory we pass, hence "memory".
 */
static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	register long r10 __asm__("r10") = d;
	register long r8 __asm__("r8") = e;
	register long r9 __asm__("r9") = f;
	long ret;

	__asm__ volatile("syscall"
			 : "=a"(ret)
			 : "a"(nr), "D"(a), "S"(b), "d"(c), "r"(r10), "r"(r8), "r"(r9)
			 : "rcx", "r11", "memory");
	return ret;
}

static inline long sys0(long nr) { return sys6(nr, 0, 0, 0, 0, 0, 0); }
static inline long sys1(long nr, long a) { return sys6(nr, a, 0, 0, 0, 0, 0); }
static inline long sys2(long nr, long a, long b) { return sys6(nr, a, b, 0, 0, 0, 0); }
static inline long sys3(long nr, long a, long b, long c) { return sys6(nr, a, b, c, 0, 0, 0); }

/* -errno from the kernel becomes errno and -1, as POSIX callers expect. */
static inline long sys_result(long ret)
{
	if (ret < 0) {
		errno = (int)-ret;
		return -1;
	}
	return ret;
}

#endif
