/*
 * The kernel's own profile summary (kern/profile/summary.h).
 *
 * The sampler hands over each deferred user stack with the samples it
 * answers (they wait in the sampler's marks, kern/profile/sample_user.c):
 * all of them belong to that stack, since one kernel entry has one
 * deferred unwind. Functions are counted in one open
 * hash table keyed by (pid, name); a sample counts once for every
 * function on its stack (total) however often recursion repeats it, and
 * for the leaf (self), or for "[kernel]" when it interrupted the kernel.
 * What does not fit is counted and printed, not dropped silently.
 *
 * Several CPUs: summary_lock guards the tables (taken in task context
 * only, under sched_lock when a process exits; kmalloc's lock is taken
 * under it). Nothing here runs in an NMI.
 */
#include "kern/profile/summary.h"
#include <arch/arch.h>
#include "kern/profile/elfsym.h"
#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/lib/spinlock.h"
#include "kern/lib/stats.h"
#include "kern/lib/string.h"
#include "stitch/records.h"

#define MAX_PROCS   64
#define MAX_MAPS    8
#define MAX_FILES   32
#define TABLE_BITS  13
#define TABLE_SIZE  (1u << TABLE_BITS)
#define CACHE_BITS  12
#define TOP         4

struct sum_proc {
	uint32_t pid;
	char name[16];
	uint64_t samples; /* counted on a user stack */
	uint32_t nmaps;   /* until the process exits */
	struct { uint64_t start, len, pgoff; struct sym_file *f; } map[MAX_MAPS];
};

/* An ELF file's symbols while processes map it: the names point into the
 * initrd, so the counts keep them after the table is freed. */
struct sym_file {
	struct elfsyms syms;
	uint32_t refs; /* maps that use it; 0: free slot */
};

struct fn {
	uint32_t pid;
	const char *name; /* NULL: free slot */
	uint64_t self, total, stamp;
};

struct slot {
	uint64_t pc;
	uint32_t pid, gen;
	struct fn *f;
};

static struct sum_proc procs[MAX_PROCS];
static struct slot cache[1u << CACHE_BITS];
static uint32_t cache_gen = 1;
static struct sym_file files[MAX_FILES];
static uint32_t nprocs;
static struct fn *table;
static uint64_t stamp;
static uint64_t not_counted; /* samples: no room (processes, table) */
static bool on;

static bool wanted;
static struct spinlock summary_lock = SPINLOCK_INIT("summary");

void summary_init(bool want)
{
	wanted = want;
	table = want ? kzalloc(TABLE_SIZE * sizeof(*table)) : NULL;
	on = table != NULL;
}

static struct sum_proc *proc_of(uint32_t pid, bool add)
{
	for (uint32_t i = 0; i < nprocs; i++)
		if (procs[i].pid == pid)
			return &procs[i];
	if (!add || nprocs == MAX_PROCS)
		return NULL;
	procs[nprocs].pid = pid;
	return &procs[nprocs++];
}

static void comm(const struct rec_comm *r)
{
	struct sum_proc *p = proc_of(r->pid, true);
	if (p)
		strlcpy(p->name, r->name, sizeof(p->name));
}

/* The symbols of an initrd file, loaded once while any process maps it. */
static struct sym_file *file_get(const char *path)
{
	struct initrd_file f;
	struct sym_file *free = NULL;
	if (initrd_lookup(path, &f))
		return NULL;
	for (uint32_t i = 0; i < MAX_FILES; i++) {
		if (files[i].refs && files[i].syms.file == f.data) {
			files[i].refs++;
			return &files[i];
		}
		if (!files[i].refs && !free)
			free = &files[i];
	}
	if (!free || elfsyms_load(f.data, f.size, &free->syms))
		return NULL;
	free->refs = 1;
	return free;
}

static void file_put(struct sym_file *f)
{
	if (--f->refs == 0) {
		kfree(f->syms.sym);
		f->syms.sym = NULL;
	}
}

static void mmap(const struct rec_mmap *r)
{
	struct sum_proc *p = proc_of(r->pid, true);
	struct sym_file *f = p && p->nmaps < MAX_MAPS ? file_get(r->path) : NULL;
	if (f) {
		p->map[p->nmaps++] = (typeof(p->map[0])){ r->start, r->len, r->pgoff, f };
		cache_gen++;
	}
}

/* The process is gone, and its stacks are all in (the sampler's answers
 * come before the exit record): the symbol tables can go (no leak). One
 * thread leaving (EXIT_THREAD) is not the process: the others still run
 * in its mappings, and their stacks still need the names. */
static void exit_proc(const struct rec_exit *r)
{
	if (r->flags & EXIT_THREAD)
		return;
	struct sum_proc *p = proc_of(r->pid, false);
	while (p && p->nmaps)
		file_put(p->map[--p->nmaps].f);
	cache_gen++;
}

void summary_record(uint32_t type, const void *rec)
{
	if (!on || (type != REC_COMM && type != REC_MMAP && type != REC_EXIT))
		return;
	irqflags_t fl = spin_lock_irqsave(&summary_lock);
	if (type == REC_COMM)
		comm(rec);
	else if (type == REC_MMAP && !(((const struct rec_mmap *)rec)->flags & MMAP_KERNEL))
		mmap(rec);
	else if (type == REC_EXIT)
		exit_proc(rec);
	spin_unlock_irqrestore(&summary_lock, fl);
}

/* The function at a user pc of process p, "[unknown]" without symbols. */
static const char *name_at(const struct sum_proc *p, uint64_t pc)
{
	for (uint32_t i = 0; i < p->nmaps; i++) {
		uint64_t vaddr;
		const struct elfsyms *s = &p->map[i].f->syms;
		if (pc - p->map[i].start >= p->map[i].len ||
		    !elfsyms_vaddr(s, pc - p->map[i].start + p->map[i].pgoff, &vaddr))
			continue;
		const char *name = elfsyms_find(s, vaddr);
		return name ? name : "[unknown]";
	}
	return "[unknown]";
}

/* Fibonacci hashing: the top bits of key * 2^64 / phi. */
static uint32_t hash(uint64_t key, unsigned bits)
{
	return (uint32_t)((key * 0x9e3779b97f4a7c15ull) >> (64 - bits));
}

static struct fn *fn_of(uint32_t pid, const char *name)
{
	uint32_t h = hash((uint64_t)name ^ (uint64_t)pid << 48, TABLE_BITS);
	for (uint32_t i = 0; i < TABLE_SIZE; i++) {
		struct fn *f = &table[(h + i) & (TABLE_SIZE - 1)];
		if (!f->name)
			*f = (struct fn){ .pid = pid, .name = name };
		if (f->pid == pid && f->name == name)
			return f;
	}
	return NULL;
}

/* The entry of the function at a pc of process p. Stacks repeat the same
 * return addresses: a direct-mapped cache of (pid, pc) spares most the
 * symbol search (without it the demo at 20 kHz ran 1.8 times as long).
 * A new mapping or an exit (a pid may come back) empties it. */
static struct fn *fn_at(const struct sum_proc *p, uint64_t pc)
{
	struct slot *c = &cache[hash(pc ^ (uint64_t)p->pid << 48, CACHE_BITS)];
	if (c->gen == cache_gen && c->pc == pc && c->pid == p->pid)
		return c->f;
	struct fn *f = fn_of(p->pid, name_at(p, pc));
	if (f)
		*c = (struct slot){ .pc = pc, .pid = p->pid, .gen = cache_gen, .f = f };
	return f;
}

/* Counts `total` samples on the function, once per stack, and `self`
 * of them as its own. False: the table is full. */
static bool count(struct fn *f, uint64_t total, uint64_t self)
{
	if (!f)
		return false;
	f->self += self;
	if (f->stamp != stamp) {
		f->total += total;
		f->stamp = stamp;
	}
	return true;
}

void summary_user_stack(uint32_t pid, const struct unwind_trace *trace,
			uint32_t user, uint32_t kernel)
{
	if (!on || user + kernel == 0)
		return;
	irqflags_t fl = spin_lock_irqsave(&summary_lock);
	struct sum_proc *p = proc_of(pid, false);
	bool ok = p != NULL;
	stamp++;
	if (ok && kernel)
		ok = count(fn_of(p->pid, "[kernel]"), kernel, kernel);
	for (uint32_t i = 0; ok && i < trace->nr; i++) {
		/* Return addresses are looked up inside the call: addr - 1. */
		uint64_t pc = trace->entries[i] - (i > 0);
		ok = count(fn_at(p, pc), user + kernel, i == 0 ? user : 0);
	}
	if (ok)
		p->samples += user + kernel;
	else
		not_counted += user + kernel;
	spin_unlock_irqrestore(&summary_lock, fl);
}

/* The TOP functions of pid by self (or total), best first. */
static uint32_t top(uint32_t pid, bool by_self, const struct fn *out[TOP])
{
	uint32_t n = 0;
	for (uint32_t i = 0; i < TABLE_SIZE; i++) {
		const struct fn *f = &table[i];
		uint64_t v = by_self ? f->self : f->total;
		if (!f->name || f->pid != pid || v == 0)
			continue;
		uint32_t at = n < TOP ? n++ : TOP;
		while (at > 0 && v > (by_self ? out[at - 1]->self : out[at - 1]->total)) {
			if (at < TOP)
				out[at] = out[at - 1];
			at--;
		}
		if (at < TOP)
			out[at] = f;
	}
	return n;
}

static void print_top(const struct sum_proc *p, bool by_self)
{
	const struct fn *f[TOP];
	uint32_t n = top(p->pid, by_self, f);
	kprintf("    %s", by_self ? "self: " : "total:");
	for (uint32_t i = 0; i < n; i++) {
		uint64_t v = by_self ? f[i]->self : f[i]->total;
		kprintf("  %s %lu%%", f[i]->name, v * 100 / p->samples);
	}
	kprintf("\n");
}

void summary_print(void)
{
	if (!on) {
		if (wanted)
			kprintf("profile summary: none (no memory for its table)\n");
		return;
	}
	kprintf("profile summary: %lu samples, %lu lost; %lu records to %s, %lu lost\n",
		stat_total(STAT_SAMPLES), stat_total(STAT_SAMPLES_LOST),
		stat_total(STAT_RECORDS_DRAINED), arch_channel_name(),
		stat_total(STAT_RECORDS_LOST));
	for (uint32_t i = 0; i < nprocs; i++) {
		const struct sum_proc *p = &procs[i];
		if (p->samples == 0)
			continue;
		kprintf("  pid %u %s: %lu samples with a user stack\n", p->pid, p->name,
			p->samples);
		print_top(p, true);
		print_top(p, false);
	}
	if (not_counted)
		kprintf("  %lu samples not counted here: the summary's tables were full\n",
			not_counted);
}
