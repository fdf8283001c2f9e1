/*
 * The stack map: the deferred unwinder's third consumer. Instead of a
 * record per sample it counts samples by key, (process, kernel stack id,
 * user stack id), the stacks interned in bounded tables, as Linux's
 * BPF_MAP_TYPE_STACK_TRACE keeps stacks by id. The user half of a key
 * comes later than the sample: the NMI keeps what it has (the kernel
 * stack's id, the process, the cookie) in the task's waiting room, and
 * the deferred callback completes the keys and counts them.
 * docs/DEFERRED.md ("The third consumer") walks through it.
 *
 * Kernel command line (profile.consumer= itself is kern/profile/profile.c's):
 *   profile.map_stacks=N  stacks each table holds, kernel and user (default 4096)
 *   profile.map_keys=N    keys the count table holds (default 8192)
 *   profile.map_period=MS read the map out every MS ms of guest time as
 *                         well as at the end (default 0: at the end only)
 *
 * Every sample the map takes (stat map_samples) is counted once under one
 * of map_whole, map_user_* (its user half missing, and why),
 * map_kernel_only, or map_dropped_* (a table was full), unless its answer
 * is still owed when a periodic read-out runs.
 */
#ifndef KERN_PROFILE_STACKMAP_H
#define KERN_PROFILE_STACKMAP_H

#include <stdint.h>

struct nmi_regs;

#define STACKMAP_STACKS_DEFAULT 4096
#define STACKMAP_KEYS_DEFAULT   8192
#define STACKMAP_CAP_MAX        (1u << 20)

/* Boot, normal context, once: reads its settings, allocates the tables
 * and registers the consumer. 0, or -STITCH_ENOMEM (then no map). */
int stackmap_init(uint64_t period_ns);

/* NMI context, sampling CPU cpu: one sample, kernel pcs kips[0 .. nk)
 * (nk 0 when the NMI hit ring 3). No allocation, no lock, bounded. */
void stackmap_nmi(unsigned cpu, const struct nmi_regs *regs,
		  const uint64_t *kips, uint32_t nk);

/* The timer tick: a bounded step of the periodic read-out, if due. */
void stackmap_tick(void);

/* After sampling stopped, before the stream ends: what is still owed an
 * answer is counted unanswered, and the whole map is read out. */
void stackmap_finish(void);

#endif
