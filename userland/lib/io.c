/* File descriptors: newlib's plain-name stubs over the Stitch calls. */
#include <sys/stat.h>
#include <sys/types.h>
#include <string.h>
#include <unistd.h>
#include <fcntl.h>
#include "sys.h"

/* newlib declares read/write returning int on this target, not ssize_t. */
_READ_WRITE_RETURN_TYPE write(int fd, const void *buf, size_t n)
{
	return sys_result(sys3(SYS_write, fd, (long)buf, (long)n));
}

_READ_WRITE_RETURN_TYPE read(int fd, void *buf, size_t n)
{
	return sys_result(sys3(SYS_read, fd, (long)buf, (long)n));
}

/* The initrd is read-only: any flag beyond O_RDONLY is refused here. */
int open(const char *path, int flags, ...)
{
	if ((flags & O_ACCMODE) != O_RDONLY || (flags & (O_CREAT | O_TRUNC))) {
		errno = EROFS;
		return -1;
	}
	return (int)sys_result(sys2(SYS_open, (long)path, STITCH_O_RDONLY));
}

int close(int fd)
{
	return (int)sys_result(sys1(SYS_close, fd));
}

off_t lseek(int fd, off_t off, int whence)
{
	return sys_result(sys3(SYS_lseek, fd, off, whence));
}

int fstat(int fd, struct stat *st)
{
	struct stitch_stat kst;
	long ret = sys2(SYS_fstat, fd, (long)&kst);

	if (ret < 0)
		return (int)sys_result(ret);
	memset(st, 0, sizeof(*st));
	st->st_size = (off_t)kst.size;
	st->st_mode = kst.mode;
	st->st_nlink = 1;
	/* stdio sizes its buffer from st_blksize: large reads suit the initrd. */
	st->st_blksize = 4096;
	return 0;
}

/* newlib treats 0 as "not a tty" and reads errno only when it cares. */
int isatty(int fd)
{
	long ret = sys1(SYS_isatty, fd);

	if (ret < 0) {
		errno = (int)-ret;
		return 0;
	}
	return ret == 1;
}

/* No stat system call: a path is stat'ed through a descriptor. */
int stat(const char *path, struct stat *st)
{
	int fd = open(path, O_RDONLY);
	int ret;

	if (fd < 0)
		return -1;
	ret = fstat(fd, st);
	close(fd);
	return ret;
}
