/*
 * The registry of unwind tables: which user text ranges have which table
 * (an SFrame section, or an .eh_frame_hdr with its .eh_frame). This
 * registry owns each address space's lists (struct uvm's tables): every
 * operation on them is here, kern/mm/uvm.c only says when the address
 * space changes.
 *
 * Two ways in, one function: the kernel's ELF loader registers the
 * executable's PT_GNU_SFRAME and PT_GNU_EH_FRAME at spawn, and a
 * user-space loader registers the tables of what it loads with
 * SYS_stacktrace_setup (after Linux's proposal: op, addr, len,
 * text_start, text_len). The tables stay in user memory: nothing is
 * pinned or copied. The lookup (kern/unwind/lookup.h) opens a table at
 * its first use through its format, which reads it in place with single
 * user loads and checks what it reads; the walk drops the table (counted)
 * when that fails.
 *
 * A format is a file pair (kern/unwind/sframe_format.c,
 * kern/unwind/ehframe_format.c) that fills in struct unwind_format: the
 * registry, the lookup and the walk know no format beyond it.
 */
#ifndef KERN_UNWIND_TABLE_H
#define KERN_UNWIND_TABLE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "sframe/sframe.h"

struct uvm;

/* The formats; each address space has a list of each, and a walk reads
 * the list of the profile's mode (enum unwind_method names them alike). */
enum unwind_format_id { UNWIND_SFRAME, UNWIND_EH_FRAME, UNWIND_FORMATS };

/* The most tables of one format one address space may have registered. */
#define UNWIND_MAX_TABLES 16

/* One address space's registry: only kern/unwind/table.c touches it. */
struct unwind_registry {
	struct unwind_table *list[UNWIND_FORMATS]; /* newest first, text disjoint */
	int count[UNWIND_FORMATS];
	/* A new value, unique to the machine, when a table comes or goes or
	 * text is unmapped: cached rules of an older one are void. */
	uint64_t gen;
	/* Several threads' walks read the lists while another thread
	 * registers or removes (docs/DEFERRED.md, "Threads"): readers counts
	 * the walks in progress; a table removed meanwhile waits in dead
	 * until the count falls to 0. */
	int readers;
	struct unwind_table *dead;
	/* Bytes of kernel memory its tables' indexes hold (unwind_index_*):
	 * at most unwind.index_process_kib KiB. */
	uint64_t index_bytes;
	/* Bytes the tables' rows hold (kern/unwind/ehframe_rows.c). */
	uint64_t eh_rows_held;
};

/*
 * A registered table: user addresses, read lazily by its format, which
 * opens it at its first use. Every field is set before the table is
 * published in its list; from then on only opened, busy and the format's
 * state change, under busy (kern/unwind/lookup.c: a process of one thread
 * takes no hold). Owned by this registry from registration to removal:
 * what the format builds at the first use (an index) goes with the table.
 */
struct unwind_table {
	struct unwind_table *next;
	const struct unwind_format *fmt;
	uint64_t addr, len;              /* .sframe, or .eh_frame_hdr */
	uint64_t text_start, text_end;   /* the code it describes */
	uint64_t seg_start, seg_end;     /* where what it points to lies: the
					  * table itself, or the PT_LOAD that
					  * holds .eh_frame */
	struct unwind_registry *owner;   /* the registry it is in */
	bool opened;                     /* the format opened it at first use */
	bool indexing;                   /* index being built (unwind_index_more) */
	bool compat;                     /* its process is 32-bit (mm->compat) */
	int busy;                        /* a lookup holds it (lookup.c) */
	void *index;                     /* its format's index, or NULL */
	const struct lz_index *lazy;     /* ... its lazily filled part (fills counted) */
	uint64_t index_bytes;            /* ... its size, held in owner->index_bytes */
	struct unwind_table *dead_next;  /* on the registry's dead list */
	_Alignas(16) unsigned char state[]; /* the format's own, fmt->state_size bytes */
};

/* What a table's format answers a lookup: a rule in the SFrame library's
 * terms (sframe/sframe.h), which both formats' rules fit. The counts are
 * the format's own, summed over one walk's lookups in memory the walk
 * owns and added to its counters once, at the walk's end (fmt->counted):
 * a lookup pays an add, not a counter's per-CPU update. */
struct unwind_rule {
	struct sf_quick quick;       /* the rule in its quick form (find: SF_OK) */
	struct sf_rule rule;         /* a rule of another shape (SF_E_NOT_QUICK) */
	const struct sf_table *abi;  /* ... and what sf_step_rule reads of a table */
	uint32_t finds, indexed, quick_finds; /* lookups, those through an
					       * index, those in one pass */
	uint32_t rows;               /* ... those rows kept in memory answered */
};

/* A registry event, for the format's counters. */
enum unwind_table_event { TABLE_REGISTERED, TABLE_REFUSED, TABLE_REMOVED, TABLE_DROPPED };

/*
 * A format. Errors are the SFrame library's SF_E_* (a format of another
 * library translates): SF_E_NO_FDE / SF_E_NO_FRE "nothing covers pc" (the
 * frame pointer's turn), SF_E_BUDGET, SF_E_REG "valid, not followed", any
 * other "the table faulted or is damaged" (the walk drops it).
 */
struct unwind_format {
	enum unwind_format_id id;
	size_t state_size;
	bool self_contained;  /* the table points only into itself (SFrame) */
	/* Boot: reads the format's own switches (the index's are the
	 * registry's, kern/unwind/table.c), or NULL. */
	void (*init)(void);
	/* A program's registration: the header, read now from its memory
	 * (in a user-access window the registry opens): 0, -ENOEXEC or
	 * -EFAULT. */
	int (*check)(const struct unwind_table *t);
	/* The first use, the walk's window open and t held: header and
	 * layout; spends from *budget. */
	int (*open)(struct unwind_table *t, uint32_t *budget);
	/* The index of an open table (unwind_index_start): the bytes it
	 * takes and the FDEs it has an entry for (0 bytes: none for this
	 * table); laid out in mem (SF_OK, or no index); built in parts,
	 * each reading up to *work entries from the table (SF_E_BUDGET: more
	 * to read; SF_OK: built, the lookups go through it; SF_E_NOSPACE:
	 * none for this table, the lookups search it; another error: the
	 * table is damaged, and the walk drops it). */
	uint64_t (*index_size)(struct unwind_table *t, uint64_t *entries);
	int (*index_begin)(struct unwind_table *t, void *mem, uint64_t size);
	int (*index_more)(struct unwind_table *t, uint32_t *work);
	/* pc's rule, t open and held, spending from *budget: SF_OK with
	 * r->quick, SF_E_NOT_QUICK with r->rule and r->abi (a rule with no
	 * quick form), or the error. Counts into r's counts. */
	int (*find)(struct unwind_table *t, uint64_t pc, struct unwind_rule *r,
		    uint32_t *budget);
	/* A walk's end: adds the counts its lookups summed in r on CPU cpu. */
	void (*counted)(const struct unwind_rule *r, unsigned cpu);
	/* What open built beside the index (NULL: nothing); the table is
	 * unreachable. */
	void (*free)(struct unwind_table *t);
	/* The counters of an event; err is the refusal (-E*) or the error
	 * the table was dropped for. */
	void (*count)(enum unwind_table_event ev, const struct unwind_table *t, int err);
};

/* Where a registration comes from. The table of a program the kernel
 * loads is in an address space that does not run yet: its header is read
 * at its first use. A program's own registration is in its memory now:
 * the header is read at once, so that a wrong one is refused. */
enum unwind_origin {
	UNWIND_FROM_LOADER, /* kern/mm/uvm.c: the executable's tables */
	UNWIND_FROM_USER,   /* SYS_stacktrace_setup ADD; mm is current's */
};

/* A registration: the table [addr, +len) for the code [text, +text_len);
 * what it points to lies in [seg_start, seg_end) (the PT_LOAD of
 * .eh_frame: .eh_frame_hdr gives its address, not its size), unless its
 * format is self-contained (SFrame: the segment is the table). */
struct unwind_table_spec {
	uint64_t addr, len, text, text_len, seg_start, seg_end;
};

/*
 * Registers a table of format fmt in mm, after the one check every
 * registration passes: 0, or the refusal, in this order: -EFAULT (a
 * range outside user memory, or, from user, a header that cannot be
 * read), -EINVAL (a zero length, or a table or segment over 4 GiB),
 * -ENOEXEC (not at a 4-byte boundary, or, from user, no header of the
 * format), -EEXIST (the text overlaps a registered range of the format),
 * -ENOMEM (UNWIND_MAX_TABLES, or no memory); -ENOEXEC for any SFrame
 * section of a compat (i386) address space. The table is built whole,
 * then checked against the list and published under one lock. Counted by
 * the format (sframe_registered / sframe_refused_*, ehframe_registered /
 * ehframe_refused).
 */
int unwind_table_register(struct uvm *mm, const struct unwind_format *fmt,
			  const struct unwind_table_spec *spec, enum unwind_origin from);

/* Reads the formats' switches (unwind.fde_index, and each format's own).
 * Boot, before the first process. */
void unwind_tables_init(void);

/* The table of format id covering pc, or NULL. */
struct unwind_table *unwind_table_find(const struct uvm *mm, enum unwind_format_id id,
				       uint64_t pc);

/* What kern/mm/uvm.c tells the registry: text may have been unmapped (the
 * cached rules are void); mm is being freed (its tables go). */
void unwind_tables_unmapped(struct uvm *mm);
void unwind_tables_free(struct uvm *mm);

/* The generation a rule cache tags this walk's rules with. */
static inline uint64_t unwind_tables_gen(const struct unwind_registry *r)
{
	return __atomic_load_n(&r->gen, __ATOMIC_ACQUIRE);
}

/* Kernel memory for what a format builds at a table's first use,
 * allocated with the walk's user-access window closed around it; NULL
 * without. The format frees it (fmt->free). */
void *unwind_table_alloc(uint64_t size);

/*
 * A table's index (docs/DEFERRED.md, "The FDE index"), one code for both
 * formats. unwind_index_start, at the table's first use: kernel memory for
 * an entry per FDE, if the index fits unwind.index_kib KiB and the
 * process's indexes with it unwind.index_process_kib KiB (else none:
 * unwind_index_over_budget; the lookups search the table in user memory).
 * unwind_index_more, at most once a walk (lookup.c): the next
 * UNWIND_INDEX_CHUNK entries read from the table, so that no walk pays
 * for more of a big table's index than that (unwind_index_chunks, and
 * the cycles they took: unwind_index_cycles, page faults included); the
 * lookups search the table until the last chunk is read. SF_OK, or the
 * error of a damaged table (the walk drops it). The registry frees the
 * index with the table.
 */
#define UNWIND_INDEX_CHUNK 2048
void unwind_index_start(struct unwind_table *t);
int unwind_index_more(struct unwind_table *t);

/* Unregisters a table of current's the walk found unusable: err is why
 * (SF_E_FAULT, or what its format found wrong), counted by the format
 * (sframe_dropped_*, ehframe_bad_*). */
void unwind_table_drop(struct unwind_table *t, int err);

/* Frees the tables removed while walks held them (kern/unwind/table.c). */
void unwind_tables_free_dead(struct unwind_registry *r);

/* A walk's hold on an address space's tables (mm->tables): one removed
 * meanwhile is freed after the last walk that began before its removal
 * ends. Inline: every walk takes one. */
static inline void unwind_tables_hold(struct unwind_registry *r)
{
	__atomic_add_fetch(&r->readers, 1, __ATOMIC_SEQ_CST);
}

static inline void unwind_tables_release(struct unwind_registry *r)
{
	if (__atomic_sub_fetch(&r->readers, 1, __ATOMIC_SEQ_CST) == 0 &&
	    __atomic_load_n(&r->dead, __ATOMIC_SEQ_CST))
		unwind_tables_free_dead(r);
}

#endif
