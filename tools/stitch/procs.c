#include "procs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static struct proc *proc_new(struct procs *p, uint32_t pid)
{
	struct proc *q = xcalloc(1, sizeof *q);
	q->pid = pid;
	q->index = (uint32_t)p->n + 1; /* 0 is the kernel */
	/* pid 0 is the kernel on its own (boot, idle) unless a COMM says otherwise */
	if (pid)
		snprintf(q->comm, sizeof q->comm, ":%u", pid);
	else
		snprintf(q->comm, sizeof q->comm, "kernel");
	p->v = xrealloc(p->v, (p->n + 1) * sizeof *p->v);
	p->v[p->n++] = q;
	return q;
}

/* The newest incarnation of pid, whether it exited or not. */
static struct proc *latest(struct procs *p, uint32_t pid)
{
	for (size_t i = p->n; i-- > 0;)
		if (p->v[i]->pid == pid)
			return p->v[i];
	return NULL;
}

/* The incarnation that records arriving now (in stream order) belong to. */
static struct proc *current(struct procs *p, uint32_t pid)
{
	struct proc *q = latest(p, pid);
	return q && !q->exited ? q : proc_new(p, pid);
}

struct proc *proc_at(struct procs *p, uint32_t pid, uint64_t time)
{
	/* Incarnations of one pid are created in order; the first one that
	 * had not exited by `time` is the one that was running. */
	for (size_t i = 0; i < p->n; i++) {
		struct proc *q = p->v[i];
		if (q->pid == pid && (!q->exited || time <= q->t_exit))
			return q;
	}
	/* After the last life's exit: a late record of that life (a deferred
	 * unwind of a task that exited); a new life starts with a REC_COMM. */
	struct proc *q = latest(p, pid);
	return q ? q : proc_new(p, pid);
}

void proc_add_map(struct proc *p, struct mmap_rec *m)
{
	p->maps = xrealloc(p->maps, (p->nmaps + 1) * sizeof *p->maps);
	p->maps[p->nmaps++] = m;
}

void procs_build(struct procs *p, const struct stream *s)
{
	memset(p, 0, sizeof *p);
	snprintf(p->kernel.comm, sizeof p->kernel.comm, "[kernel]");
	for (size_t i = 0; i < s->nrecs; i++) {
		struct record *r = &s->recs[i];
		struct proc *q;
		switch (r->type) {
		case REC_COMM:
			/* An exec ends the program the pid ran: what follows is
			 * another incarnation's, with its own mappings. */
			q = latest(p, r->u.comm.pid);
			if (r->u.comm.flags & COMM_EXEC && q && !q->exited) {
				q->exited = 1;
				q->t_exit = r->u.comm.time;
			}
			q = current(p, r->u.comm.pid);
			q->exec |= !!(r->u.comm.flags & COMM_EXEC);
			memcpy(q->comm, r->u.comm.name, sizeof q->comm);
			if (!q->named++)
				q->t_comm = r->u.comm.time;
			break;
		case REC_MMAP:
			if (r->u.mmap.flags & MMAP_KERNEL)
				proc_add_map(&p->kernel, &r->u.mmap);
			else {
				q = proc_at(p, r->u.mmap.pid, r->u.mmap.time);
				q->compat |= !!(r->u.mmap.flags & MMAP_COMPAT);
				proc_add_map(q, &r->u.mmap);
			}
			break;
		case REC_EXIT:
			if (r->u.exit.flags & EXIT_THREAD)
				break; /* its process goes on */
			q = current(p, r->u.exit.pid);
			q->exited = 1;
			q->t_exit = r->u.exit.time;
			break;
		}
	}
}

const struct mmap_rec *proc_map(const struct proc *p, uint64_t addr)
{
	for (size_t i = p->nmaps; i-- > 0;) {
		const struct mmap_rec *m = p->maps[i];
		if (addr >= m->start && addr - m->start < m->len)
			return m;
	}
	return NULL;
}

void procs_free(struct procs *p)
{
	for (size_t i = 0; i < p->n; i++) {
		if (p->v[i]->dwfl)
			dwfl_end(p->v[i]->dwfl);
		free(p->v[i]->maps);
		free(p->v[i]);
	}
	if (p->kernel.dwfl)
		dwfl_end(p->kernel.dwfl);
	free(p->kernel.maps);
	free(p->v);
	memset(p, 0, sizeof *p);
}
