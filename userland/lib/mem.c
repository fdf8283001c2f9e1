/* Memory: the program break (malloc's arena) and anonymous mappings. */
#include <stddef.h>
#include <stitch.h>
#include <unistd.h>
#include "sys.h"

/* The kernel returns the old break; newlib's malloc wants (void *)-1 on error. */
void *sbrk(ptrdiff_t increment)
{
	long ret = sys1(SYS_sbrk, increment);

	if (ret < 0) {
		errno = (int)-ret;
		return (void *)-1;
	}
	return (void *)ret;
}

void *stitch_mmap(void *hint, size_t len, int prot, int fd, long off)
{
	long ret = sys5(SYS_mmap, (long)hint, (long)len, prot, fd, off);

	if (ret < 0) {
		errno = (int)-ret;
		return STITCH_MAP_FAILED;
	}
	return (void *)ret;
}

int stitch_munmap(void *addr, size_t len)
{
	return (int)sys_result(sys2(SYS_munmap, (long)addr, (long)len));
}
