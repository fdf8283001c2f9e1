/*
 * The kernel's event counters: per CPU, incremented without locks from any
 * context (NMI included). One list for every layer, each counter
 * incremented only by the layer that owns it: processes and the scheduler
 * (signals_*, sched_*), the trap path (nmi_*, self_ipis), the deferred
 * unwinder (deferred_*, unwinds_*, frames_unwound, unwind_*, rule_cache_*),
 * its table registry and lookups (sframe_*, ehframe_*, fde_index_*), the
 * profiler (samples, records_*). The list is one so that a counter's
 * address is a constant and so that every report carries the same names:
 * the profiler reports them all in REC_STATS at the end of a run
 * (kern/profile/record.c) and the console prints them at shutdown.
 */
#ifndef KERN_LIB_STATS_H
#define KERN_LIB_STATS_H

#include <stdint.h>

#include <arch/arch.h>
#include "stitch/records.h" /* enum unwind_stop: a counter per reason */

/* X(id, "name", how): how is SUM (totals add up across CPUs) or MAX. */
#define STATS_LIST(X)                                                         \
	X(NMI_COUNT, "nmi_count", SUM)             /* NMIs taken */           \
	X(NMI_IGNORED, "nmi_ignored", SUM)         /* NMIs with no handler */ \
	X(SAMPLES, "samples", SUM)                 /* samples written */      \
	X(SAMPLES_LOST, "samples_lost", SUM)       /* samples dropped, ring full */ \
	X(KERNEL_FRAMES, "kernel_frames", SUM)     /* kernel frames, samples written */ \
	X(DEFERRED_REQUESTS, "deferred_requests", SUM)                        \
	X(UNWINDS_RUN, "unwinds_run", SUM)                                    \
	X(REQUESTS_COALESCED, "requests_coalesced", SUM)                      \
	X(FRAMES_UNWOUND, "frames_unwound", SUM)   /* user frames, deferred */ \
	X(UNWIND_PAGE_FAULTS, "unwind_page_faults", SUM)                      \
	X(UNWIND_STOP_END, "unwind_stop_end", SUM) /* enum unwind_stop order */ \
	X(UNWIND_STOP_MAX_FRAMES, "unwind_stop_max_frames", SUM)              \
	X(UNWIND_STOP_FAULT, "unwind_stop_fault", SUM)                        \
	X(UNWIND_STOP_NO_INFO, "unwind_stop_no_info", SUM)                    \
	X(UNWIND_STOP_BAD_SFRAME, "unwind_stop_bad_sframe", SUM)              \
	X(UNWIND_STOP_BAD_FRAME, "unwind_stop_bad_frame", SUM)                \
	X(UNWIND_STOP_TASK_EXITED, "unwind_stop_task_exited", SUM)            \
	X(UNWIND_STOP_SIGNAL_FRAME, "unwind_stop_signal_frame", SUM)          \
	X(UNWIND_STOP_BUDGET, "unwind_stop_budget", SUM)                      \
	X(UNWIND_STOP_KILLED, "unwind_stop_killed", SUM)                      \
	/* Registrations of either format, accepted or not, and their cycles: */ \
	X(REGISTER_EXEC, "unwind_register_exec", SUM) /* by the loader, at exec */ \
	X(REGISTER_EXEC_CYCLES, "unwind_register_exec_cycles", SUM)           \
	X(REGISTER_CALL, "unwind_register_call", SUM) /* by stacktrace_setup (dlopen) */ \
	X(REGISTER_CALL_CYCLES, "unwind_register_call_cycles", SUM)           \
	X(SFRAME_REGISTERED, "sframe_registered", SUM)                        \
	X(SFRAME_DROPPED, "sframe_dropped", SUM)   /* refused, or bad at use */ \
	/* ... by reason (they add up to sframe_dropped): */                  \
	X(SFRAME_REFUSED_RANGE, "sframe_refused_range", SUM) /* not user memory, unreadable */ \
	X(SFRAME_REFUSED_LENGTH, "sframe_refused_length", SUM) /* zero, or > 4 GiB */ \
	X(SFRAME_REFUSED_HEADER, "sframe_refused_header", SUM) /* no SFrame header */ \
	X(SFRAME_REFUSED_OVERLAP, "sframe_refused_overlap", SUM) /* text already covered */ \
	X(SFRAME_REFUSED_FULL, "sframe_refused_full", SUM) /* 16 per process, or no memory */ \
	X(SFRAME_REFUSED_COMPAT, "sframe_refused_compat", SUM) /* in an i386 program: no ABI */ \
	X(SFRAME_DROPPED_INVALID, "sframe_dropped_invalid", SUM) /* failed validation at use */ \
	X(SFRAME_DROPPED_FAULT, "sframe_dropped_fault", SUM) /* unreadable at use */ \
	X(SFRAME_REMOVED, "sframe_removed", SUM)   /* unregistered */         \
	X(UNWIND_REMOVED_IN_WALK, "unwind_removed_in_walk", SUM) /* removed while walks held the list */ \
	X(UNWIND_DEFERRED_FREES, "unwind_deferred_frees", SUM) /* ... freed when the last walk ended */ \
	X(ENTRIES_WITH_SAMPLES, "entries_with_samples", SUM) /* see DEFERRED.md */ \
	X(DEFERRED_RECORDS, "deferred_records", SUM) /* REC_DEFERRED written */ \
	X(UNWIND_REUSED, "unwind_reused", SUM)     /* consumer served from the entry's trace */ \
	X(UNWIND_FP_FALLBACK, "unwind_fp_fallback", SUM) /* steps by fp: no SFrame for the pc */ \
	X(UNWIND_SIGNAL_FRAMES, "unwind_signal_frames", SUM) /* steps out of a signal frame */ \
	X(UNWIND_COMPAT_FP_REFUSED, "unwind_compat_fp_refused", SUM) /* compat fp frames reaching 4 GiB */ \
	X(UNWIND_COMPAT_NO_SFRAME, "unwind_compat_no_sframe", SUM) /* compat walks in sframe mode: no i386 SFrame */ \
	X(RULE_CACHE_HITS, "rule_cache_hits", SUM) /* steps whose rule the cache had */ \
	X(RULE_CACHE_MISSES, "rule_cache_misses", SUM) /* ... that were looked up and cached */ \
	X(UNWIND_LAST_HITS, "unwind_last_hits", SUM) /* lookups in the previous step's section */ \
	X(SFRAME_INDEXED, "sframe_indexed", SUM) /* sections whose FDE index was built */ \
	X(FDE_INDEX_LOOKUPS, "fde_index_lookups", SUM) /* lookups through a section's FDE index */ \
	X(QUICK_LOOKUPS, "quick_lookups", SUM) /* ... answered in one pass (sf_find_quick) */ \
	X(UNWIND_PREEMPTED, "unwind_preempted", SUM) /* reschedules inside an unwind */ \
	/* Both formats' indexes (kern/unwind/table.h, unwind_index_start): */ \
	X(UNWIND_INDEX_BYTES, "unwind_index_bytes", SUM) /* kernel memory given to indexes */ \
	X(UNWIND_INDEX_ENTRIES, "unwind_index_entries", SUM) /* ... FDEs they have an entry for */ \
	X(UNWIND_INDEX_CHUNKS, "unwind_index_chunks", SUM) /* parts of a build, one a walk at most */ \
	X(UNWIND_INDEX_CYCLES, "unwind_index_cycles", SUM) /* ... the cycles they took */ \
	X(UNWIND_INDEX_FILLS, "unwind_index_fills", SUM) /* blocks filled by lookups */ \
	X(UNWIND_INDEX_OVER_BUDGET, "unwind_index_over_budget", SUM) /* no index: the budgets */ \
	X(UNWIND_INDEX_ABANDONED, "unwind_index_abandoned", SUM) /* no memory, or the build failed */ \
	/* .eh_frame sections (profile.mode=eh-frame; docs/DEFERRED.md): */   \
	X(EHFRAME_REGISTERED, "ehframe_registered", SUM)                      \
	X(EHFRAME_REFUSED, "ehframe_refused", SUM) /* registrations refused, any reason */ \
	X(EHFRAME_REMOVED, "ehframe_removed", SUM) /* unregistered */         \
	X(EHFRAME_LOOKUPS, "ehframe_lookups", SUM) /* lookups in an .eh_frame section */ \
	X(EHFRAME_INDEXED, "ehframe_indexed", SUM) /* sections whose index was built */ \
	X(EHFRAME_INDEX_LOOKUPS, "ehframe_index_lookups", SUM) /* ... lookups through it */ \
	X(EHFRAME_UNSUPPORTED, "ehframe_unsupported", SUM) /* valid, not followed: stop no-info */ \
	X(EHFRAME_DROPPED, "ehframe_dropped", SUM) /* bad at use; by reason: */ \
	X(EHFRAME_BAD_FAULT, "ehframe_bad_fault", SUM) /* a read faulted */   \
	X(EHFRAME_BAD_HEADER, "ehframe_bad_header", SUM) /* .eh_frame_hdr, eh_frame_ptr */ \
	X(EHFRAME_BAD_TABLE, "ehframe_bad_table", SUM) /* search table: order, FDE addresses */ \
	X(EHFRAME_BAD_CIE, "ehframe_bad_cie", SUM) /* CIE pointer, version, augmentation */ \
	X(EHFRAME_BAD_FDE, "ehframe_bad_fde", SUM) /* lengths, ranges, encodings, LEB128 */ \
	X(EHFRAME_BAD_PROGRAM, "ehframe_bad_program", SUM) /* CFA program: state, advance, CFA */ \
	/* ... their rows kept in kernel memory (eh-convert, eh-rowcache): */ \
	X(EHROWS_LOOKUPS, "ehrows_lookups", SUM) /* lookups the rows answered */ \
	X(EHROWS_CONVERTED, "ehrows_converted", SUM) /* tables converted whole */ \
	X(EHROWS_ROWS, "ehrows_rows", SUM) /* ... the rows they hold */       \
	X(EHROWS_WHOLE_BYTES, "ehrows_whole_bytes", SUM) /* ... their memory */ \
	X(EHROWS_FDES, "ehrows_fdes", SUM) /* ... the FDEs they cover */      \
	X(EHROWS_CHUNKS, "ehrows_chunks", SUM) /* conversion chunks run */    \
	X(EHROWS_CYCLES, "ehrows_cycles", SUM) /* ... cycles they took */     \
	X(EHROWS_CHUNK_MAX, "ehrows_chunk_cycles_max", MAX) /* ... the longest */ \
	X(EHROWS_INTERPRETED, "ehrows_interpreted", SUM) /* FDEs left to the interpreter */ \
	X(EHROWS_FALLBACK, "ehrows_fallback", SUM) /* tables over budget: interpreted */ \
	X(EHROWS_CACHES, "ehrows_caches", SUM) /* row caches made (a table each) */ \
	X(EHROWS_CACHE_HITS, "ehrows_cache_hits", SUM) /* row cache: answers */ \
	X(EHROWS_CACHE_FILLS, "ehrows_cache_fills", SUM) /* ... FDEs kept */ \
	X(EHROWS_EVICTED, "ehrows_evicted", SUM) /* ... FDEs evicted */        \
	X(EHROWS_UNCACHED, "ehrows_uncached", SUM) /* ... FDEs not kept (rows) */ \
	X(EHROWS_BYTES, "ehrows_bytes", SUM) /* kernel memory taken for rows */ \
	X(EHROWS_FREED, "ehrows_freed", SUM) /* ... and given back */          \
	X(UNWIND_IPI_OTHER_TASK, "unwind_ipi_other_task", SUM)                \
	/* ... of which the task was running on another CPU: */               \
	X(UNWIND_IPI_REMOTE_TASK, "unwind_ipi_remote_task", SUM)              \
	X(UNWIND_CROSS_CPU, "unwind_cross_cpu", SUM) /* unwound on another CPU than the cookie's */ \
	X(UNWIND_EXIT_WAITS, "unwind_exit_waits", SUM) /* exit waited for irq work on another CPU */ \
	X(SCHED_MIGRATIONS, "sched_migrations", SUM) /* a task ran on another CPU than before */ \
	X(SCHED_FORCED_MIGRATIONS, "sched_forced_migrations", SUM) /* sched.migrate */ \
	X(SELF_IPIS, "self_ipis", SUM)             /* irq-work IPIs handled */ \
	X(NMI_USER_ABSENT, "nmi_user_absent", SUM) /* NMI user read: page not present */ \
	X(SMAP_OPEN, "smap_open", SUM) /* NMIs that found SMAP open outside uaccess */ \
	X(STACK_COPY_TRUNCATED, "stack_copy_truncated", SUM)                  \
	X(SYSCALLS_TRACED, "syscalls_traced", SUM)                            \
	X(SIGNALS_SENT, "signals_sent", SUM)                                  \
	X(SIGNALS_IGNORED, "signals_ignored", SUM) /* discarded when sent */  \
	X(SIGNALS_DELIVERED, "signals_delivered", SUM) /* to a handler */     \
	X(SIGRETURN_REFUSED, "sigreturn_refused", SUM) /* a frame that lied */ \
	X(SIGNAL_FRAME_REFUSED, "signal_frame_refused", SUM) /* no room on the stack */ \
	/* Compat (i386) processes (docs/PROCESSES.md, "32-bit programs"): */ \
	X(COMPAT_SYSCALLS, "compat_syscalls", SUM) /* int $0x80 calls */       \
	X(COMPAT_REFUSED, "compat_refused", SUM) /* ... refused: -ENOSYS */   \
	X(COMPAT_SYSCALL_INSN, "compat_syscall_insn", SUM) /* syscall in 32-bit mode: killed */ \
	/* The stack map (kern/profile/stackmap.h): every sample it takes is */ \
	/* counted under one of the next ten names, or still owed an answer. */ \
	X(MAP_SAMPLES, "map_samples", SUM)         /* NMIs the map took */   \
	X(MAP_WHOLE, "map_whole", SUM)             /* counted, user stack whole */ \
	X(MAP_USER_STOPPED, "map_user_stopped", SUM) /* ... a prefix: the unwind stopped */ \
	X(MAP_USER_EXIT, "map_user_exit", SUM)     /* ... none: the task exited */ \
	X(MAP_USER_REFUSED, "map_user_refused", SUM) /* ... none: the request was refused */ \
	X(MAP_USER_UNANSWERED, "map_user_unanswered", SUM) /* ... none: no answer by the end */ \
	X(MAP_KERNEL_ONLY, "map_kernel_only", SUM) /* counted, no user context */ \
	X(MAP_DROPPED_KSTACKS, "map_dropped_kstacks", SUM) /* kernel stack table full */ \
	X(MAP_DROPPED_USTACKS, "map_dropped_ustacks", SUM) /* user stack table full */ \
	X(MAP_DROPPED_KEYS, "map_dropped_keys", SUM) /* key table full */     \
	X(MAP_DROPPED_PENDING, "map_dropped_pending", SUM) /* task's waiting room full */ \
	X(MAP_BYTES, "map_bytes", SUM)             /* map records written */  \
	X(RECORDS_LOST, "records_lost", SUM)       /* any record dropped */   \
	X(RECORDS_DRAINED, "records_drained", SUM) /* to the channel */       \
	X(BYTES_DRAINED, "bytes_drained", SUM)                                \
	X(NMI_CYCLES_TOTAL, "nmi_cycles_total", SUM) /* TSC, in the handler */ \
	X(NMI_CYCLES_MAX, "nmi_cycles_max", MAX)                              \
	/* ... of the NMIs that interrupted ring 3 (the samples of user code): */ \
	X(NMI_USER_COUNT, "nmi_user_count", SUM)                              \
	X(NMI_USER_CYCLES_TOTAL, "nmi_user_cycles_total", SUM)                \
	X(UNWIND_CYCLES_TOTAL, "unwind_cycles_total", SUM) /* deferred */     \
	X(UNWIND_CYCLES_MAX, "unwind_cycles_max", MAX)

#define STATS_ENUM(id, name, how) STAT_##id,
enum stat { STATS_LIST(STATS_ENUM) STAT_COUNT };
#undef STATS_ENUM

/* A CPU's row of counters: a power of two, so that a counter's address is
 * a shift and an add away from the CPU index (the NMI counts on its hot
 * path), and each CPU's counters sit on cache lines of their own. */
#define STAT_ROW 256
_Static_assert(STAT_COUNT <= STAT_ROW, "STAT_ROW: the next power of two");

_Static_assert(STAT_UNWIND_STOP_KILLED - STAT_UNWIND_STOP_END ==
		       UNWIND_STOP_KILLED - UNWIND_STOP_END &&
	       UNWIND_STOP_KILLED + 1 == UNWIND_STOP_COUNT,
	       "one unwind_stop_* counter per enum unwind_stop");

/* Per CPU. Atomic read-modify-writes: a task may be preempted and moved
 * between reading its CPU index and the update, so two CPUs can meet on
 * one slot. Relaxed order: counters order nothing. */
extern uint64_t stat_counters[ARCH_MAX_CPUS][STAT_ROW];

/* CPU cpu's counter += n / = max(counter, v). Any context. Inline: the
 * NMI and the unwinder count on their hot paths. The _on forms are for a
 * caller that has its CPU index already (the NMI: one RDTSCP for all). */
static inline void stat_add_on(unsigned cpu, enum stat s, uint64_t n)
{
	__atomic_fetch_add(&stat_counters[cpu][s], n, __ATOMIC_RELAXED);
}
static inline void stat_max_on(unsigned cpu, enum stat s, uint64_t v)
{
	uint64_t *c = &stat_counters[cpu][s];
	uint64_t old = __atomic_load_n(c, __ATOMIC_RELAXED);
	while (v > old && !__atomic_compare_exchange_n(c, &old, v, false,
						       __ATOMIC_RELAXED,
						       __ATOMIC_RELAXED))
		;
}
static inline void stat_inc_on(unsigned cpu, enum stat s) { stat_add_on(cpu, s, 1); }

/* This CPU's. */
static inline void stat_add(enum stat s, uint64_t n) { stat_add_on(arch_cpu_id(), s, n); }
static inline void stat_max(enum stat s, uint64_t v) { stat_max_on(arch_cpu_id(), s, v); }
static inline void stat_inc(enum stat s) { stat_add(s, 1); }

/* The counter of a deferred unwind's stop reason. */
static inline void stat_unwind_stop_on(unsigned cpu, enum unwind_stop why)
{
	if (why < UNWIND_STOP_COUNT)
		stat_inc_on(cpu, (enum stat)(STAT_UNWIND_STOP_END + why));
}
static inline void stat_unwind_stop(enum unwind_stop why)
{
	stat_unwind_stop_on(arch_cpu_id(), why);
}

/* All CPUs: the sum, or the maximum for *_max counters. */
uint64_t stat_total(enum stat s);
const char *stat_name(enum stat s);

/* One line per counter on the console. */
void stats_print(void);

#endif
