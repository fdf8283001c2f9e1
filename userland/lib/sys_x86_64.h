/* The system call of 64-bit programs: SYSCALL (include/stitch/syscall.h). */
#ifndef STITCH_LIB_SYS_X86_64_H
#define STITCH_LIB_SYS_X86_64_H

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

static inline long sys5(long nr, long a, long b, long c, long d, long e)
{
	return sys6(nr, a, b, c, d, e, 0);
}

#endif
