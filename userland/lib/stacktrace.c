/* SFrame registration for code that the kernel's ELF loader did not map. */
#include <stitch.h>
#include "sys.h"

int stacktrace_setup(int op, const void *sframe, size_t len,
		     const void *text_start, size_t text_len)
{
	return (int)sys_result(sys6(SYS_stacktrace_setup, op, (long)sframe,
				    (long)len, (long)text_start, (long)text_len, 0));
}
