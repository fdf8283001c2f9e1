#include "kern/fs/file.h"
#include "kern/lib/console.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/proc/task.h"
#include "kern/mm/uaccess.h"
#include "stitch/syscall.h"

struct file console_file = { .kind = FILE_CONSOLE, .refs = 1 };

struct file *file_new(enum file_kind kind)
{
	struct file *f = kzalloc(sizeof(*f));
	if (f) {
		f->kind = kind;
		f->refs = 1;
	}
	return f;
}

struct file *file_dup(struct file *f)
{
	__atomic_fetch_add(&f->refs, 1, __ATOMIC_RELAXED);
	return f;
}

void file_put(struct file *f)
{
	if (__atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) > 0)
		return;
	if (f->kind == FILE_PIPE_READ || f->kind == FILE_PIPE_WRITE)
		pipe_close(f->pipe, f->kind);
	kfree(f);
}

struct file *fd_file(int fd)
{
	if (fd < 0 || fd >= NOFILE)
		return NULL;
	return current->files[fd];
}

int fd_install(struct file *f)
{
	for (int fd = 0; fd < NOFILE; fd++)
		if (!current->files[fd]) {
			current->files[fd] = f;
			return fd;
		}
	return -STITCH_EMFILE;
}

void fd_inherit(struct task *child, const struct task *parent)
{
	for (int fd = 0; fd < NOFILE; fd++)
		if (parent->files[fd])
			child->files[fd] = file_dup(parent->files[fd]);
}

void fd_close_all(struct task *t)
{
	for (int fd = 0; fd < NOFILE; fd++)
		if (t->files[fd]) {
			file_put(t->files[fd]);
			t->files[fd] = NULL;
		}
}

/* The console writes what it can copy, a bounce buffer at a time. */
static long console_write_user(uint64_t ubuf, uint64_t n)
{
	char buf[256];
	/* A range that leaves the user range fails before anything is
	 * printed, as for pipes and files: otherwise write(1, p, LONG_MAX)
	 * prints the caller's memory up to its first hole. */
	if (!user_range_ok(ubuf, n))
		return -STITCH_EFAULT;
	for (uint64_t done = 0; done < n;) {
		uint64_t chunk = MIN(n - done, sizeof(buf));
		if (copy_from_user(buf, ubuf + done, chunk))
			return -STITCH_EFAULT;
		irqflags_t f = console_lock();
		console_write(buf, chunk);
		console_unlock(f);
		done += chunk;
	}
	return (long)n;
}

static long initrd_read(struct file *f, uint64_t ubuf, uint64_t n)
{
	if (!user_range_ok(ubuf, n))
		return -STITCH_EFAULT;
	if (f->offset >= f->ino.size)
		return 0;
	n = MIN(n, f->ino.size - f->offset);
	if (copy_to_user(ubuf, f->ino.data + f->offset, n))
		return -STITCH_EFAULT;
	f->offset += n;
	return (long)n;
}

long file_read(struct file *f, uint64_t ubuf, uint64_t n)
{
	switch (f->kind) {
	case FILE_CONSOLE:
		/* There is no keyboard: the console is always at end of file. */
		return user_range_ok(ubuf, n) ? 0 : -STITCH_EFAULT;
	case FILE_INITRD:
		return initrd_read(f, ubuf, n);
	case FILE_PIPE_READ:
		return pipe_read(f->pipe, ubuf, n);
	default:
		return -STITCH_EBADF;
	}
}

long file_write(struct file *f, uint64_t ubuf, uint64_t n)
{
	switch (f->kind) {
	case FILE_CONSOLE:
		return console_write_user(ubuf, n);
	case FILE_PIPE_WRITE:
		return pipe_write(f->pipe, ubuf, n);
	default:
		return -STITCH_EBADF;
	}
}
