/* File system calls: descriptors over the console, initrd files, pipes. */
#include "kern/fs/file.h"
#include "kern/kernel.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "kern/mm/uaccess.h"
#include "stitch/syscall.h"

#define S_IFIFO 0010000
#define S_IFCHR 0020000
#define S_IFREG 0100000

#define SEEK_SET 0
#define SEEK_CUR 1
#define SEEK_END 2

long sys_read(const long *arg)
{
	struct file *f = fd_file((int)arg[0]);
	return f ? file_read(f, arg[1], arg[2]) : -STITCH_EBADF;
}

long sys_write(const long *arg)
{
	struct file *f = fd_file((int)arg[0]);
	return f ? file_write(f, arg[1], arg[2]) : -STITCH_EBADF;
}

long sys_open(const long *arg)
{
	char path[INITRD_PATH_MAX];
	long len = strncpy_from_user(path, arg[0], sizeof(path));
	if (len < 0)
		return len;
	if (arg[1] != STITCH_O_RDONLY)
		return -STITCH_EINVAL; /* the initrd is read-only */
	struct initrd_file ino;
	int err = initrd_lookup(path, &ino);
	if (err)
		return err;
	struct file *f = file_new(FILE_INITRD);
	if (!f)
		return -STITCH_ENOMEM;
	f->ino = ino;
	int fd = fd_install(f);
	if (fd < 0)
		file_put(f);
	return fd;
}

long sys_close(const long *arg)
{
	int fd = (int)arg[0];
	struct file *f = fd_file(fd);
	if (!f)
		return -STITCH_EBADF;
	current->files[fd] = NULL;
	file_put(f);
	return 0;
}

long sys_lseek(const long *arg)
{
	struct file *f = fd_file((int)arg[0]);
	long off = arg[1];
	if (!f)
		return -STITCH_EBADF;
	if (f->kind != FILE_INITRD)
		return -STITCH_ESPIPE;
	long base;
	switch (arg[2]) {
	case SEEK_SET: base = 0; break;
	case SEEK_CUR: base = (long)f->offset; break;
	case SEEK_END: base = (long)f->ino.size; break;
	default: return -STITCH_EINVAL;
	}
	if (off < -base || (off > 0 && base > __LONG_MAX__ - off))
		return -STITCH_EINVAL;
	f->offset = (uint64_t)(base + off);
	return base + off;
}

long sys_fstat(const long *arg)
{
	struct file *f = fd_file((int)arg[0]);
	if (!f)
		return -STITCH_EBADF;
	struct stitch_stat st = { 0 };
	switch (f->kind) {
	case FILE_CONSOLE:
		st.mode = S_IFCHR | 0666;
		break;
	case FILE_INITRD:
		st.mode = S_IFREG | 0444;
		st.size = f->ino.size;
		break;
	default:
		st.mode = S_IFIFO | 0600;
		break;
	}
	return copy_to_user(arg[1], &st, sizeof(st));
}

long sys_isatty(const long *arg)
{
	struct file *f = fd_file((int)arg[0]);
	if (!f)
		return -STITCH_EBADF;
	return f->kind == FILE_CONSOLE;
}

long sys_pipe(const long *arg)
{
	uint64_t ufds = arg[0];
	/* Check first: a pipe whose descriptors cannot be returned would
	 * leak into the table. */
	if (!user_range_ok(ufds, 2 * sizeof(int)))
		return -STITCH_EFAULT;
	struct file *rd, *wr;
	int err = pipe_new(&rd, &wr);
	if (err)
		return err;
	int fds[2] = { fd_install(rd), -1 };
	if (fds[0] >= 0)
		fds[1] = fd_install(wr);
	if (fds[1] < 0 || copy_to_user(ufds, fds, sizeof(fds))) {
		err = fds[1] < 0 ? -STITCH_EMFILE : -STITCH_EFAULT;
		for (int i = 0; i < 2; i++)
			if (fds[i] >= 0)
				current->files[fds[i]] = NULL;
		file_put(rd);
		file_put(wr);
		return err;
	}
	return 0;
}
