/*
 * Pipes: a 16 KiB ring buffer between a read end and a write end
 * (docs/USERLAND.md). Reads block while the pipe is empty and a writer
 * exists; writes block while it is full and a reader exists, and may be
 * partial. nread and nwrite count bytes forever, so nwrite - nread is the
 * fill level and each modulo the size is a position, as in xv6.
 */
#include "kern/file.h"
#include "kern/kernel.h"
#include "kern/kmalloc.h"
#include "kern/mm.h"
#include "kern/pmm.h"
#include "kern/sched.h"
#include "kern/uaccess.h"
#include "stitch/syscall.h"

#define PIPE_PAGES 4
#define PIPE_SIZE  (PIPE_PAGES * PAGE_SIZE)

struct pipe {
	uint8_t *buf;
	uint64_t nread, nwrite;
	int readers, writers; /* open ends (struct files, not descriptors) */
};

int pipe_new(struct file **rd, struct file **wr)
{
	struct pipe *p = kzalloc(sizeof(*p));
	uint64_t pa = pmm_alloc_pages(PIPE_PAGES);
	*rd = file_new(FILE_PIPE_READ);
	*wr = file_new(FILE_PIPE_WRITE);
	if (!p || !pa || !*rd || !*wr) {
		kfree(p);
		if (pa)
			pmm_free_pages(pa, PIPE_PAGES);
		kfree(*rd);
		kfree(*wr);
		return -STITCH_ENOMEM;
	}
	p->buf = p2v(pa);
	p->readers = p->writers = 1;
	(*rd)->pipe = (*wr)->pipe = p;
	return 0;
}

void pipe_close(struct pipe *p, enum file_kind end)
{
	if (end == FILE_PIPE_READ) {
		p->readers--;
		wakeup(&p->nwrite); /* writers get -EPIPE */
	} else {
		p->writers--;
		wakeup(&p->nread);  /* readers get end of file */
	}
	if (p->readers == 0 && p->writers == 0) {
		pmm_free_pages(v2p(p->buf), PIPE_PAGES);
		kfree(p);
	}
}

/* Copies between user memory and the ring at position pos, in at most two
 * pieces (the ring wraps); 0 or -EFAULT. */
static int ring_copy(struct pipe *p, uint64_t pos, uint64_t ubuf, uint64_t n,
		     bool to_user)
{
	while (n) {
		uint64_t at = pos % PIPE_SIZE, chunk = MIN(n, PIPE_SIZE - at);
		int err = to_user ? copy_to_user(ubuf, p->buf + at, chunk)
				  : copy_from_user(p->buf + at, ubuf, chunk);
		if (err)
			return err;
		pos += chunk;
		ubuf += chunk;
		n -= chunk;
	}
	return 0;
}

long pipe_read(struct pipe *p, uint64_t ubuf, uint64_t n)
{
	if (!user_range_ok(ubuf, n))
		return -STITCH_EFAULT;
	if (n == 0)
		return 0;
	while (p->nread == p->nwrite && p->writers > 0) {
		int err = sleep_on(&p->nread);
		if (err)
			return err;
	}
	n = MIN(n, p->nwrite - p->nread);
	if (n && ring_copy(p, p->nread, ubuf, n, true))
		return -STITCH_EFAULT;
	p->nread += n;
	wakeup(&p->nwrite);
	return (long)n;
}

long pipe_write(struct pipe *p, uint64_t ubuf, uint64_t n)
{
	if (!user_range_ok(ubuf, n))
		return -STITCH_EFAULT;
	if (n == 0)
		return 0;
	for (;;) {
		if (p->readers == 0)
			return -STITCH_EPIPE;
		if (p->nwrite - p->nread < PIPE_SIZE)
			break;
		int err = sleep_on(&p->nwrite);
		if (err)
			return err;
	}
	n = MIN(n, PIPE_SIZE - (p->nwrite - p->nread));
	if (ring_copy(p, p->nwrite, ubuf, n, false))
		return -STITCH_EFAULT;
	p->nwrite += n;
	wakeup(&p->nread);
	return (long)n;
}
