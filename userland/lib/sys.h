/*
 * Raw system calls (include/stitch/syscall.h) and the errno convention.
 * Internal to the glue: programs call the libc names or <stitch.h>.
 *
 * The trap itself is the one thing that differs between 64-bit programs
 * and 32-bit (i386) ones: each has its sys5() and sys6(); the numbers,
 * the results and everything above them are shared.
 */
#ifndef STITCH_LIB_SYS_H
#define STITCH_LIB_SYS_H

#include <errno.h>
#include <stitch/syscall.h>

#if defined(__x86_64__)
#include "sys_x86_64.h"
#elif defined(__i386__)
#include "sys_i386.h"
#else
#error "the SDK's system calls are for x86_64 and i386 programs"
#endif

static inline long sys0(long nr) { return sys5(nr, 0, 0, 0, 0, 0); }
static inline long sys1(long nr, long a) { return sys5(nr, a, 0, 0, 0, 0); }
static inline long sys2(long nr, long a, long b) { return sys5(nr, a, b, 0, 0, 0); }
static inline long sys3(long nr, long a, long b, long c) { return sys5(nr, a, b, c, 0, 0); }

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
