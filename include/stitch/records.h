/*
 * The record stream: what the kernel's profiler writes and tools/stitch
 * reads. docs/RECORDS.md explains it in prose; this header is the
 * normative layout, included by both sides.
 *
 * A stream is a sequence of records. Every record starts with a
 * struct rec_header; `size` counts the whole record, header included, and is
 * a multiple of 8, so a reader can skip types it does not know. All fields
 * are little-endian. The first record is REC_STREAM, the last REC_END; a
 * stream without REC_END was cut short.
 *
 * Callchains use perf's conventions (include/uapi/linux/perf_event.h) so
 * they translate one to one into perf.data: context markers are entries
 * with the values below, followed by the addresses of that context.
 */
#ifndef STITCH_RECORDS_H
#define STITCH_RECORDS_H

#include <stdint.h>

#define REC_STREAM_MAGIC   0x5352484354495453ull /* "STITCHRS" */
#define REC_STREAM_VERSION 1

/* perf's callchain context markers (same values). */
#define PERF_CONTEXT_KERNEL        ((uint64_t)-128)
#define PERF_CONTEXT_USER          ((uint64_t)-512)
#define PERF_CONTEXT_USER_DEFERRED ((uint64_t)-640) /* next entry: cookie */

enum rec_type {
	REC_STREAM   = 1, /* stream header */
	REC_COMM     = 2, /* a process started, or exec'd (COMM_EXEC) */
	REC_MMAP     = 3, /* an executable mapping: program, shared object, kernel */
	REC_SAMPLE   = 4, /* an NMI sample or a traced system call */
	REC_DEFERRED = 5, /* a deferred user callchain */
	REC_EXIT     = 6, /* a process exited */
	REC_LOST     = 7, /* records dropped because a ring buffer was full */
	REC_STATS    = 8, /* the run's counters, by name */
	REC_END      = 9, /* end of stream */
	REC_MAP_STACK  = 10, /* the stack map: one interned stack, once */
	REC_MAP_COUNTS = 11, /* the stack map: counts by key since the last */
};

struct rec_header {
	uint32_t type; /* enum rec_type */
	uint32_t size; /* bytes, header included, multiple of 8 */
};

/* Unwinding modes (kernel command line `profile.mode=`). */
enum rec_mode {
	MODE_NONE        = 0, /* no sampling */
	MODE_SFRAME      = 1, /* deferred SFrame unwind (default) */
	MODE_FP          = 2, /* frame-pointer walk inside the NMI */
	MODE_FP_DEFERRED = 3, /* frame-pointer walk, deferred */
	MODE_STACK_COPY  = 4, /* registers + user stack copy, unwound on the host */
	MODE_GUESS       = 5, /* scan the user stack for text addresses, deferred */
	MODE_VALIDATE    = 6, /* MODE_SFRAME and MODE_STACK_COPY in one sample */
	MODE_EH_FRAME    = 7, /* deferred .eh_frame unwind */
	MODE_VALIDATE_EH = 8, /* MODE_EH_FRAME and MODE_STACK_COPY in one sample */
};

struct rec_stream {
	struct rec_header h;
	uint64_t magic;      /* REC_STREAM_MAGIC */
	uint32_t version;    /* REC_STREAM_VERSION */
	uint32_t ncpus;
	uint64_t tsc_hz;     /* time stamps are TSC ticks */
	uint32_t mode;       /* enum rec_mode */
	uint32_t sample_hz;
	uint32_t max_frames; /* bound of the deferred unwind buffer */
	uint32_t pad;
};

struct rec_comm {
	struct rec_header h;
	uint64_t time;
	uint32_t pid, tid, ppid, flags;
	char name[16]; /* NUL-terminated */
};

/* rec_comm.flags: the process replaced its program (exec); what came
 * before it under this pid is another program's (perf's
 * PERF_RECORD_MISC_COMM_EXEC). */
#define COMM_EXEC 0x1

#define MMAP_KERNEL 0x1 /* the kernel image; pid is 0 */
/* A 32-bit (i386, compat) program: its code is ELF32, and its samples'
 * registers and stack copies are those of a 32-bit context (the low
 * halves of the regs hold eax..eip; the stack's words are 4 bytes). Set
 * on the program's mapping, the process's first. */
#define MMAP_COMPAT 0x2

struct rec_mmap {
	struct rec_header h;
	uint64_t time;
	uint32_t pid, tid;
	uint64_t start;  /* virtual address of the mapped text */
	uint64_t len;
	uint64_t pgoff;  /* file offset that `start` maps */
	uint32_t flags;  /* MMAP_* */
	uint32_t build_id_size; /* 0..20 */
	uint8_t  build_id[20];
	uint32_t pad;
	char path[];     /* NUL-terminated initrd path, e.g. "/bin/qsort"; padded to 8 */
};

/* rec_sample.event */
#define SAMPLE_EVENT_CPU_CLOCK 0 /* the sampling NMI */
#define SAMPLE_EVENT_SYSCALL   1 /* the system-call tracer; aux = syscall number */

/* rec_sample.flags */
#define SAMPLE_USER       0x1 /* the NMI interrupted ring 3 */
#define SAMPLE_STACK_COPY 0x2 /* a struct rec_stack_copy follows ips[] */

struct rec_sample {
	struct rec_header h;
	uint64_t time;
	uint32_t cpu, pid, tid;
	uint16_t event;  /* SAMPLE_EVENT_* */
	uint16_t flags;  /* SAMPLE_* */
	uint64_t ip;     /* interrupted instruction pointer */
	uint64_t period; /* nanoseconds this sample stands for */
	uint32_t aux;    /* event specific */
	uint32_t nr;     /* entries in ips[] */
	/*
	 * ips[]: PERF_CONTEXT_KERNEL then kernel addresses (leaf first) when
	 * the NMI hit the kernel; then either PERF_CONTEXT_USER and user
	 * addresses (modes fp, stack-copy), or PERF_CONTEXT_USER_DEFERRED and
	 * the cookie of the REC_DEFERRED record that will carry them.
	 */
	uint64_t ips[];
};

/* Register order in rec_stack_copy.regs (a subset of perf's x86 order). */
enum rec_reg {
	REC_REG_AX, REC_REG_BX, REC_REG_CX, REC_REG_DX, REC_REG_SI, REC_REG_DI,
	REC_REG_BP, REC_REG_SP, REC_REG_IP, REC_REG_FLAGS,
	REC_REG_R8, REC_REG_R9, REC_REG_R10, REC_REG_R11,
	REC_REG_R12, REC_REG_R13, REC_REG_R14, REC_REG_R15,
	REC_NREGS
};

/* Follows ips[] when SAMPLE_STACK_COPY is set: the user registers at the
 * kernel entry and the user stack from regs[REC_REG_SP] upward. */
struct rec_stack_copy {
	uint64_t regs[REC_NREGS];
	uint64_t size;   /* bytes of stack[] that were copied */
	uint8_t stack[]; /* padded to 8 */
};

/* Why a deferred unwind stopped (rec_deferred.stop). */
enum unwind_stop {
	UNWIND_STOP_END = 0,     /* reached the outermost frame */
	UNWIND_STOP_MAX_FRAMES,  /* the buffer bound was reached */
	UNWIND_STOP_FAULT,       /* a user read faulted */
	UNWIND_STOP_NO_INFO,     /* no SFrame entry and no usable frame pointer */
	UNWIND_STOP_BAD_SFRAME,  /* the section failed validation */
	UNWIND_STOP_BAD_FRAME,   /* the stack did not grow upward, or bad alignment */
	UNWIND_STOP_TASK_EXITED, /* the task exited before its task work ran */
	UNWIND_STOP_SIGNAL_FRAME, /* a signal trampoline (SFrame v3 signal FDE) */
	UNWIND_STOP_BUDGET,       /* the unwind's work allowance ran out */
	UNWIND_STOP_KILLED,       /* the task was killed during the unwind */
	UNWIND_STOP_COUNT
};

/* rec_deferred.consumer: the users of the deferred-unwind interface. */
#define REC_CONSUMER_SAMPLER 0 /* the NMI sampler */
#define REC_CONSUMER_TRACER  1 /* the system-call tracer */

struct rec_deferred {
	struct rec_header h;
	uint64_t time;
	uint32_t cpu, pid, tid;
	uint32_t stop;   /* enum unwind_stop */
	uint64_t cookie; /* never 0 */
	uint64_t period; /* always 0: the samples carry the period */
	uint32_t nr;     /* entries in ips[] */
	/*
	 * The consumer this copy is for (REC_CONSUMER_*). One unwind per
	 * kernel entry is shared by every consumer that asked, and each gets
	 * its own record, as in Linux; (tid, cookie, consumer) is unique.
	 */
	uint32_t consumer;
	uint64_t ips[];  /* PERF_CONTEXT_USER, then user addresses, leaf first */
};

/* REC_EXIT: a thread left, or (flags 0) the process's last one did:
 * status is then the process's wait status. */
#define EXIT_THREAD 1u /* one thread left; the process goes on */

struct rec_exit {
	struct rec_header h;
	uint64_t time;
	uint32_t pid, tid;
	int32_t status;
	uint32_t flags;  /* EXIT_THREAD */
};

struct rec_lost {
	struct rec_header h;
	uint32_t cpu, pad;
	uint64_t count; /* records dropped on this CPU since the last REC_LOST */
};

struct rec_stat {
	char name[32]; /* NUL-terminated counter name, e.g. "nmi_count" */
	uint64_t value;
};

struct rec_stats {
	struct rec_header h;
	uint32_t count, pad;
	struct rec_stat stat[];
};

struct rec_end {
	struct rec_header h;
	uint64_t time;
	uint64_t records; /* records written before this one, REC_STREAM included */
};

/*
 * The stack map (profile.consumer=map|both, kern/profile/stackmap.h): the
 * kernel counts samples by key instead of streaming them. Each stack is
 * interned once under an id (per kind) and written once, before the
 * first count that names it; counts are what was added since the
 * previous REC_MAP_COUNTS, so a reader adds them up.
 */
#define MAP_STACK_KERNEL 0 /* rec_map_stack.kind: kernel pcs, leaf first */
#define MAP_STACK_USER   1 /* user pcs, leaf first */

struct rec_map_stack {
	struct rec_header h;
	uint64_t time;
	uint32_t id;     /* never 0: id 0 means "no stack" in a key */
	uint16_t kind;   /* MAP_STACK_* */
	uint16_t nr;     /* entries in ips[] */
	uint64_t ips[];
};

/* rec_map_count.user: how the user half of the key came. */
enum map_user {
	/* 0 .. UNWIND_STOP_COUNT - 1: the deferred unwind answered, and
	 * stopped for that reason; ustack is its frames (0: none). */
	MAP_USER_KERNEL_ONLY = 16, /* no user context: idle, kernel thread */
	MAP_USER_NO_MM       = 17, /* the task's address space was gone (exit) */
	MAP_USER_REFUSED     = 18, /* the deferred core refused the request */
	MAP_USER_UNANSWERED  = 19, /* asked, but no answer by the read-out at
				    * the end; ustack: the sampled user ip */
};

struct rec_map_count {
	uint32_t pid;
	uint32_t program; /* the pid's program: 0, then 1 after its first exec... */
	uint32_t kstack;  /* kernel stack id, 0: none (the NMI hit ring 3) */
	uint32_t ustack;  /* user stack id, 0: none */
	uint32_t user;    /* enum map_user, or the unwind's stop reason */
	uint32_t pad;
	uint64_t count;   /* samples since the last REC_MAP_COUNTS */
};

struct rec_map_counts {
	struct rec_header h;
	uint64_t time;
	uint64_t period;  /* nanoseconds each sample stands for */
	uint32_t n;       /* entries in c[] */
	uint32_t pad;
	struct rec_map_count c[];
};

#endif
