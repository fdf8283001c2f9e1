/*
 * The system call of 32-bit (i386) programs: int $0x80, the number in eax,
 * the arguments in ebx, ecx, edx, esi, edi, ebp, the result in eax; every
 * other register comes back unchanged (include/stitch/syscall.h).
 */
#ifndef STITCH_LIB_SYS_I386_H
#define STITCH_LIB_SYS_I386_H

static inline long sys5(long nr, long a, long b, long c, long d, long e)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e)
			 : "memory");
	return ret;
}

/*
 * The sixth argument goes in ebp, which gcc cannot be asked for (it may be
 * the frame pointer), and every other register holds an argument already:
 * f is pushed while the compiler's addressing still holds, ebp saved above
 * it and loaded from it. The pushes move esp, so the CFI says so: a sample
 * taken in the system call unwinds through .eh_frame from the pc after
 * the int. (The CFA is esp-based here: the glue is built without frame
 * pointers, NEWLIB32_CFLAGS in mk/newlib.mk.)
 */
static inline long sys6(long nr, long a, long b, long c, long d, long e, long f)
{
	long ret;

	__asm__ volatile("pushl %[f]\n\t"
			 ".cfi_adjust_cfa_offset 4\n\t"
			 ".cfi_remember_state\n\t"
			 "pushl %%ebp\n\t"
			 ".cfi_adjust_cfa_offset 4\n\t"
			 ".cfi_rel_offset %%ebp, 0\n\t"
			 "movl 4(%%esp), %%ebp\n\t"
			 "int $0x80\n\t"
			 "popl %%ebp\n\t"
			 ".cfi_restore_state\n\t"
			 "addl $4, %%esp\n\t"
			 ".cfi_adjust_cfa_offset -4"
			 : "=a"(ret)
			 : "a"(nr), "b"(a), "c"(b), "d"(c), "S"(d), "D"(e), [f] "g"(f)
			 : "memory");
	return ret;
}

#endif
