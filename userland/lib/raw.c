/* The raw system call, for programs (tests) that must see the kernel's answer. */
#include <stitch.h>
#include "sys.h"

long stitch_syscall(long nr, long a1, long a2, long a3, long a4, long a5, long a6)
{
	return sys6(nr, a1, a2, a3, a4, a5, a6);
}
