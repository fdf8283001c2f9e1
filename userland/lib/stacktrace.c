/* SFrame and .eh_frame registration for code that the kernel's ELF loader
 * did not map. */
#include <stitch.h>
#include "sys.h"

int stacktrace_setup(int op, const void *sframe, size_t len,
		     const void *text_start, size_t text_len)
{
	return (int)sys_result(sys6(SYS_stacktrace_setup, op, (long)sframe,
				    (long)len, (long)text_start, (long)text_len, 0));
}

int stacktrace_setup_eh_frame(int op, const void *hdr, size_t len,
			      const void *text_start, size_t text_len,
			      const void *seg_end)
{
	return (int)sys_result(sys6(SYS_stacktrace_setup, op, (long)hdr, (long)len,
				    (long)text_start, (long)text_len, (long)seg_end));
}
