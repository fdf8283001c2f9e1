/*
 * Pipes: a 16 KiB ring buffer between a read end and a write end
 * (docs/USERLAND.md). Reads block while the pipe is empty and a writer
 * exists; writes block while it is full and a reader exists, and may be
 * partial. nread and nwrite count bytes forever, so nwrite - nread is the
 * fill level and each modulo the size is a position, as in xv6.
 *
 * Each pipe has a lock over its counts and buffer; sleeping and waking go
 * through sched_lock, taken under it (pipe, then sched). The copies to
 * and from user memory run under the pipe's lock: they may fault in pages
 * (pmm_lock, taken after), never sleep.
 */
#include "kern/fs/file.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/proc/sched.h"
#include "kern/lib/spinlock.h"
#include "kern/mm/uaccess.h"
#include "stitch/syscall.h"

#define PIPE_PAGES 4
#define PIPE_SIZE  (PIPE_PAGES * PAGE_SIZE)

struct pipe {
	struct spinlock lock;
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
	p->lock = (struct spinlock)SPINLOCK_INIT("pipe");
	p->buf = p2v(pa);
	p->readers = p->writers = 1;
	(*rd)->pipe = (*wr)->pipe = p;
	return 0;
}

void pipe_close(struct pipe *p, enum file_kind end)
{
	irqflags_t f = spin_lock_irqsave(&p->lock);
	if (end == FILE_PIPE_READ) {
		p->readers--;
		wakeup(&p->nwrite); /* writers get -EPIPE */
	} else {
		p->writers--;
		wakeup(&p->nread);  /* readers get end of file */
	}
	bool gone = p->readers == 0 && p->writers == 0;
	spin_unlock_irqrestore(&p->lock, f);
	if (gone) {
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
	irqflags_t f = spin_lock_irqsave(&p->lock);
	while (p->nread == p->nwrite && p->writers > 0) {
		int err = sleep_on_locked(&p->nread, &p->lock);
		if (err) {
			spin_unlock_irqrestore(&p->lock, f);
			return err;
		}
	}
	n = MIN(n, p->nwrite - p->nread);
	long ret = (long)n;
	if (n && ring_copy(p, p->nread, ubuf, n, true))
		ret = -STITCH_EFAULT;
	else
		p->nread += n;
	wakeup(&p->nwrite);
	spin_unlock_irqrestore(&p->lock, f);
	return ret;
}

long pipe_write(struct pipe *p, uint64_t ubuf, uint64_t n)
{
	if (!user_range_ok(ubuf, n))
		return -STITCH_EFAULT;
	if (n == 0)
		return 0;
	irqflags_t f = spin_lock_irqsave(&p->lock);
	long ret = 0;
	for (;;) {
		if (p->readers == 0) {
			ret = -STITCH_EPIPE;
			break;
		}
		if (p->nwrite - p->nread < PIPE_SIZE)
			break;
		ret = sleep_on_locked(&p->nwrite, &p->lock);
		if (ret)
			break;
	}
	if (!ret) {
		n = MIN(n, PIPE_SIZE - (p->nwrite - p->nread));
		ret = (long)n;
		if (ring_copy(p, p->nwrite, ubuf, n, false))
			ret = -STITCH_EFAULT;
		else
			p->nwrite += n;
		wakeup(&p->nread);
	}
	spin_unlock_irqrestore(&p->lock, f);
	return ret;
}
