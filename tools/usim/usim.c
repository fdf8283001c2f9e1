/*
 * stitch-usim ROOT /bin/PROG [ARGS...]: run Stitch ring-3 programs on the
 * Linux host, before (or beside) the real kernel.
 *
 * The programs are static x86_64 ELF files that enter the kernel with the
 * SYSCALL instruction, so Linux can run them; only the system-call numbers
 * and contracts differ. This tracer stops every tracee at each system call
 * (ptrace) and gives it the meaning that include/stitch/syscall.h and
 * docs/USERLAND.md define: it translates the call into the Linux one, or
 * answers it itself, and checks every user pointer first, as the Stitch
 * kernel must (-EFAULT for NULL, kernel, non-canonical, unmapped and
 * straddling ranges). ROOT (the unpacked initrd) becomes "/" by chroot, so
 * this needs root. spawn is a fork whose child the tracer turns into an
 * execve of the new program; exec is an execve after the same checks.
 * Signals are the tracer's (signal.c): it keeps each thread's actions,
 * mask and pending set, and writes and reads the signal frames itself.
 * Threads are Linux's, started and ended as the kernel's (thread.c).
 * Exit statuses are Linux's, which is the POSIX encoding that
 * docs/USERLAND.md chose.
 *
 * Exit status: 0 if the first program exited 0, 1 otherwise, 2 on a
 * usage or tracer error. A killed process is reported on stderr as
 * "usim: pid P (PATH) killed: signal S ... status N", N being 128 plus
 * the Linux signal that ended it (S but where Linux has no such default
 * action: signal.c, die).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/mman.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>
#include <unistd.h>
#include <asm/unistd.h>	/* Linux numbers are __NR_*; SYS_* are Stitch's */
#include <stitch/syscall.h>
#include "usim.h"

#define MAX_FDS    64			/* open gives EMFILE beyond */
#define MAX_ARGS   64
#define MAX_MMAP   (1UL << 30)		/* a larger mapping: ENOMEM */

static struct proc procs[MAX_PROCS + 8];	/* room for forks in flight */
static const char *root;
static pid_t init_pid;
static struct stat console;	/* fds 0-2 of the first program */

struct proc *find_proc(pid_t pid)
{
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (procs[i].used && procs[i].pid == pid)
			return &procs[i];
	return NULL;
}

static struct proc *new_proc(pid_t pid)
{
	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		if (!procs[i].used) {
			memset(&procs[i], 0, sizeof(procs[i]));
			procs[i].used = 1;
			procs[i].pid = pid;
			procs[i].group = &procs[i];
			return &procs[i];
		}
	fprintf(stderr, "usim: process table overflow\n");
	exit(2);
}

int live_procs(void)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		n += procs[i].used;
	return n;
}

/* The threads of group's process that have not left. */
int live_threads(const struct proc *group)
{
	int n = 0;

	for (size_t i = 0; i < sizeof(procs) / sizeof(procs[0]); i++)
		n += procs[i].used && procs[i].group == group && !procs[i].thread_gone;
	return n;
}

/* Linux errno -> newlib errno (they agree below 35). */
long newlib_errno(long e)
{
	switch (e) {
	case ENAMETOOLONG: return STITCH_ENAMETOOLONG;
	case ENOSYS: return STITCH_ENOSYS;
	case ETIMEDOUT: return STITCH_ETIMEDOUT;
	default: return e;
	}
}

/* ---- user memory, checked the way the Stitch kernel must check it ---- */

/* The kernel's user_range_ok: inside the user range, mapped or not
 * (len 0: always). */
int in_user_range(unsigned long addr, unsigned long len)
{
	return len == 0 || (addr < USER_TOP && len <= USER_TOP - addr);
}

/* Is every byte of [addr, addr + len) mapped with the permissions asked? */
int user_mapped(pid_t pid, unsigned long addr, unsigned long len, int write)
{
	char maps[64], line[512];
	unsigned long end = addr + len, covered = addr;
	FILE *f;

	if (len == 0)
		return 1;
	if (addr < PAGE || end < addr || end > USER_TOP)
		return 0;
	snprintf(maps, sizeof(maps), "/proc/%d/maps", pid);
	if (!(f = fopen(maps, "r")))
		return 0;
	while (covered < end && fgets(line, sizeof(line), f)) {
		unsigned long s, e;
		char perms[5];

		if (sscanf(line, "%lx-%lx %4s", &s, &e, perms) != 3)
			break;
		if (e <= covered)
			continue;
		if (s > covered || perms[0] != 'r' || (write && perms[1] != 'w'))
			break;	/* a hole, or the wrong permissions */
		covered = e;
	}
	fclose(f);
	return covered >= end;
}

int peek(pid_t pid, unsigned long addr, void *buf, size_t len)
{
	struct iovec local = { buf, len }, remote = { (void *)addr, len };

	return process_vm_readv(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

int poke(pid_t pid, unsigned long addr, const void *buf, size_t len)
{
	struct iovec local = { (void *)buf, len }, remote = { (void *)addr, len };

	return process_vm_writev(pid, &local, 1, &remote, 1, 0) == (ssize_t)len ? 0 : -1;
}

/* A NUL-terminated user string, byte by byte; 0 or -errno. */
static long user_string(pid_t pid, unsigned long addr, char *out, size_t max)
{
	for (size_t i = 0; i <= max; i++) {
		if (!user_mapped(pid, addr + i, 1, 0) || peek(pid, addr + i, &out[i], 1))
			return -STITCH_EFAULT;
		if (out[i] == '\0')
			return 0;
	}
	return -STITCH_ENAMETOOLONG;
}

/* ---- the system calls ---- */

static int is_console(pid_t pid, long fd)
{
	char link[64];
	struct stat st;

	snprintf(link, sizeof(link), "/proc/%d/fd/%ld", pid, fd);
	return fd >= 0 && stat(link, &st) == 0 && st.st_dev == console.st_dev &&
	       st.st_ino == console.st_ino;
}

/* fstat through /proc/PID/fd/N, in struct stitch_stat's terms. */
static long sys_fstat(struct proc *p, long fd, unsigned long ust)
{
	struct stitch_stat kst = { 0 };
	char link[64];
	struct stat st;

	if (!user_mapped(p->pid, ust, sizeof(kst), 1))
		return -STITCH_EFAULT;
	snprintf(link, sizeof(link), "/proc/%d/fd/%ld", p->pid, fd);
	if (fd < 0 || stat(link, &st) != 0)
		return -STITCH_EBADF;
	if (is_console(p->pid, fd)) {
		kst.mode = S_IFCHR | 0666;
	} else {
		kst.mode = st.st_mode;
		kst.size = (unsigned long)st.st_size;
	}
	return poke(p->pid, ust, &kst, sizeof(kst)) ? -STITCH_EFAULT : 0;
}

static long sys_isatty(struct proc *p, long fd)
{
	char link[64];
	struct stat st;

	snprintf(link, sizeof(link), "/proc/%d/fd/%ld", p->pid, fd);
	if (fd < 0 || stat(link, &st) != 0)
		return -STITCH_EBADF;
	return is_console(p->pid, fd);
}

/*
 * A 32-bit (i386) Stitch program (ELFCLASS32, EM_386), which the kernel
 * runs and this tracer does not: it gives meaning to the registers of the
 * syscall instruction, and a 32-bit tracee's int $0x80 reaches ptrace as
 * a Linux i386 call, of other numbers and registers, that it would run
 * as Linux's. Refused by name, with where such a program runs.
 */
static bool refuse_compat(const char *path, const unsigned char *magic)
{
	if (memcmp(magic, "\177ELF\1\1\1", 7) != 0 || magic[18] != 3 /* EM_386 */)
		return false;
	fprintf(stderr, "usim: %s: a 32-bit (i386) program: stitch-usim runs x86-64 "
		"programs only (the kernel runs it: make run APP_ARCH=i386)\n", path);
	return true;
}

/* The first 20 bytes of the program at path (under ROOT: the tracee runs
 * chrooted), through e_machine: the bytes read, or -1. */
static int read_magic(const char *path, unsigned char magic[20])
{
	char host[4096];
	int fd, n;

	snprintf(host, sizeof(host), "%s/%s", root, path);
	if ((fd = open(host, O_RDONLY)) < 0)
		return -1;
	n = (int)read(fd, magic, 20);
	close(fd);
	return n;
}

/* The ELF check spawn makes before forking: 0 or -errno. */
static long check_program(const char *path)
{
	unsigned char magic[20];
	int n = read_magic(path, magic);

	if (n < 0)
		return -STITCH_ENOENT;
	if (n == (int)sizeof(magic) && refuse_compat(path, magic))
		return -STITCH_ENOEXEC;
	if (n != (int)sizeof(magic) || memcmp(magic, "\177ELF\2\1\1", 7) != 0 ||
	    magic[16] != 2 /* ET_EXEC */ || magic[18] != 62 /* EM_X86_64 */)
		return -STITCH_ENOEXEC;
	return 0;
}

/*
 * len bytes on the caller's stack below its red zone, where the tracer
 * may put what a Linux call needs: the program's memory, unused during
 * the call (a spawned child has its copy). 0 if the stack has no room.
 */
unsigned long stack_scratch(pid_t pid, const struct user_regs_struct *r, unsigned long len)
{
	unsigned long at = ((r->rsp - RED_ZONE) & ~15UL) - len;

	if (r->rsp > USER_TOP || at > r->rsp || !user_mapped(pid, at, len, 1))
		return 0;
	return at;
}

/* No arguments: the kernel gives the program argv[0] = path. */
static long only_path(struct proc *p, struct user_regs_struct *r)
{
	unsigned long v[2] = { p->exec_path, 0 };
	unsigned long at = stack_scratch(p->pid, r, sizeof(v));

	if (!at || poke(p->pid, at, v, sizeof(v)))
		return -STITCH_EFAULT;
	p->exec_argv = at;
	p->exec_envp = at + 8;
	return 0;
}

/* spawn's and exec's checks of path (rdi) and argv (rsi): 0 or -errno,
 * and the arguments of the execve that starts the program. */
static long program_args(struct proc *p, struct user_regs_struct *r)
{
	char path[MAX_PATH + 1], arg[4096];
	unsigned long upath = r->rdi, uargv = r->rsi, ptr;
	long err;
	int argc;

	if ((err = user_string(p->pid, upath, path, MAX_PATH)))
		return err;
	for (argc = 0;; argc++) {
		if (argc > MAX_ARGS)
			return -STITCH_EINVAL;
		if (!user_mapped(p->pid, uargv + 8UL * argc, 8, 0) ||
		    peek(p->pid, uargv + 8UL * argc, &ptr, 8))
			return -STITCH_EFAULT;
		if (!ptr)
			break;
		if ((err = user_string(p->pid, ptr, arg, sizeof(arg) - 1)))
			return err == -STITCH_ENAMETOOLONG ? -STITCH_EINVAL : err;
	}
	if ((err = check_program(path)))
		return err;
	p->exec_path = upath;
	p->exec_argv = uargv;
	p->exec_envp = uargv + 8UL * argc;	/* argv's NULL: an empty envp */
	return argc ? 0 : only_path(p, r);
}

/*
 * The kernel's registry (kern/unwind/table.c) without the tables: they
 * are never read here, so a header is not checked, but every other
 * refusal is the kernel's, in its order: -EFAULT (a range outside user
 * memory), -EINVAL (a zero length, a table or segment over 4 GiB),
 * -ENOEXEC (a table not at a 4-byte boundary), -EEXIST (text that
 * overlaps a table of the format), -ENOMEM (MAX_TABLES); REMOVE of text
 * without a table is -EINVAL. EH_FRAME_ADD's sixth argument is the end of
 * the segment that holds .eh_frame, which starts at most at the header.
 */
static long sys_stacktrace_setup(struct proc *p, struct user_regs_struct *r)
{
	unsigned long addr = r->rsi, len = r->rdx, text = r->r10, tlen = r->r8;
	unsigned long seg = addr, seg_end = addr + len;
	int op = (int)r->rdi, eh = op == STACKTRACE_EH_FRAME_ADD || op == STACKTRACE_EH_FRAME_REMOVE;
	struct range *list = p->group->tables[eh];

	if (op < STACKTRACE_SFRAME_ADD || op > STACKTRACE_EH_FRAME_REMOVE)
		return -STITCH_EINVAL;
	if (op == STACKTRACE_SFRAME_REMOVE || op == STACKTRACE_EH_FRAME_REMOVE) {
		for (int i = 0; i < MAX_TABLES; i++)
			if (list[i].len && list[i].start == text) {
				list[i].len = 0;
				return 0;
			}
		return -STITCH_EINVAL;
	}
	if (eh) {
		seg_end = r->r9;
		seg = addr < seg_end ? addr : seg_end;
	}
	if (!in_user_range(addr, len) || !in_user_range(text, tlen) ||
	    !in_user_range(seg, seg_end - seg))
		return -STITCH_EFAULT;
	if (!len || len > UINT32_MAX || !tlen || seg_end == seg || seg_end - seg > UINT32_MAX)
		return -STITCH_EINVAL;
	if (addr % 4)
		return -STITCH_ENOEXEC;
	struct range *free_slot = NULL;
	for (int i = 0; i < MAX_TABLES; i++) {
		if (list[i].len && list[i].start < text + tlen && text < list[i].start + list[i].len)
			return -STITCH_EEXIST;
		if (!list[i].len && !free_slot)
			free_slot = &list[i];
	}
	if (!free_slot)
		return -STITCH_ENOMEM;
	*free_slot = (struct range){ text, tlen };
	return 0;
}

/* The program break at exec: start_brk, field 47 of /proc/PID/stat. */
static unsigned long start_brk(pid_t pid)
{
	char name[64], buf[4096], *s;
	unsigned long v = 0;
	FILE *f;
	int field;

	snprintf(name, sizeof(name), "/proc/%d/stat", pid);
	if (!(f = fopen(name, "r")) || !fgets(buf, sizeof(buf), f)) {
		fprintf(stderr, "usim: cannot read %s\n", name);
		exit(2);
	}
	fclose(f);
	s = strrchr(buf, ')');	/* field 2, the command, may hold spaces */
	for (field = 3, s += 2; field < 47 && s; field++)
		s = strchr(s, ' ') ? strchr(s, ' ') + 1 : NULL;
	if (s)
		v = strtoul(s, NULL, 10);
	return v;
}

/* Make the Linux call nr with args at this stop; fixup at the exit. */
void linux_call(struct proc *p, struct user_regs_struct *r, long nr, enum fixup fix)
{
	r->orig_rax = (unsigned long)nr;
	p->fix = fix;
}

/* Answer the call here: Linux runs nothing (nr -1), the exit stop sets rax. */
void answer(struct proc *p, struct user_regs_struct *r, long result)
{
	r->orig_rax = (unsigned long)-1;
	p->fix = FIX_RESULT;
	p->result = result;
}

static void pointer_call(struct proc *p, struct user_regs_struct *r, long nr,
			 unsigned long ptr, unsigned long len, int write)
{
	if (user_mapped(p->pid, ptr, len, write))
		linux_call(p, r, nr, FIX_ERRNO);
	else
		answer(p, r, -STITCH_EFAULT);
}

static void open_call(struct proc *p, struct user_regs_struct *r)
{
	char path[MAX_PATH + 1];
	long err = user_string(p->pid, r->rdi, path, MAX_PATH);

	if (err) {
		answer(p, r, err);
		return;
	}
	r->rsi = O_RDONLY;
	linux_call(p, r, __NR_open, FIX_ERRNO);
}

static void mmap_call(struct proc *p, struct user_regs_struct *r)
{
	long fd = (long)(int)r->r10;

	if (r->rsi > MAX_MMAP) {
		answer(p, r, -STITCH_ENOMEM);
		return;
	}
	r->r10 = MAP_PRIVATE | (fd == -1 ? MAP_ANONYMOUS : 0);
	r->r9 = r->r8;	/* offset */
	r->r8 = (unsigned long)fd;
	linux_call(p, r, __NR_mmap, FIX_ERRNO);
}

static void sbrk_call(struct proc *p, struct user_regs_struct *r)
{
	struct proc *g = p->group;	/* the break is the address space's */
	long inc = (long)r->rdi;
	unsigned long want = g->brk + (unsigned long)inc;

	if ((inc < 0 && want < g->brk_start) || (inc > 0 && want < g->brk) ||
	    want > USER_TOP) {
		answer(p, r, -STITCH_ENOMEM);
		return;
	}
	p->result = (long)g->brk;	/* sbrk returns the old break */
	r->rdi = want;
	linux_call(p, r, __NR_brk, FIX_SBRK);
}

static void lseek_call(struct proc *p, struct user_regs_struct *r)
{
	if (is_console(p->pid, (long)r->rdi))
		answer(p, r, -STITCH_ESPIPE);
	else
		linux_call(p, r, __NR_lseek, FIX_ERRNO);
}

static void wait_call(struct proc *p, struct user_regs_struct *r)
{
	r->rdx = 0;	/* wait4 options */
	r->r10 = 0;	/* rusage */
	pointer_call(p, r, __NR_wait4, r->rsi, sizeof(int), 1);
}

static void sleep_call(struct proc *p, struct user_regs_struct *r)
{
	unsigned long us = r->rdi;

	r->rdi = 0;	/* poll(NULL, 0, ms): a sleep that needs no memory */
	r->rsi = 0;
	r->rdx = (us + 999) / 1000;
	linux_call(p, r, __NR_poll, FIX_ERRNO);	/* 0 at the timeout */
}

/* spawn: check everything, then let the call become a fork (see start_exec). */
static void spawn_call(struct proc *p, struct user_regs_struct *r)
{
	long err = program_args(p, r);

	if (!err && live_procs() >= MAX_PROCS)
		err = -STITCH_EAGAIN;
	if (err)
		answer(p, r, err);
	else
		linux_call(p, r, __NR_fork, FIX_ERRNO);
}

/* exec: the same checks, then Linux's execve; a failure returns. */
static void exec_call(struct proc *p, struct user_regs_struct *r)
{
	long err = program_args(p, r);

	if (err) {
		answer(p, r, err);
		return;
	}
	r->rdi = p->exec_path;
	r->rsi = p->exec_argv;
	r->rdx = p->exec_envp;
	linux_call(p, r, __NR_execve, FIX_ERRNO);
}

/* A Stitch system call's entry stop: translate it or answer it. */
static void syscall_entry(struct proc *p, struct user_regs_struct *r)
{
	switch ((long)r->orig_rax) {
	case SYS_exit: linux_call(p, r, __NR_exit_group, FIX_NONE); break;
	case SYS_write: pointer_call(p, r, __NR_write, r->rsi, r->rdx, 0); break;
	case SYS_read: pointer_call(p, r, __NR_read, r->rsi, r->rdx, 1); break;
	case SYS_open: open_call(p, r); break;
	case SYS_close: linux_call(p, r, __NR_close, FIX_ERRNO); break;
	case SYS_lseek: lseek_call(p, r); break;
	case SYS_fstat: answer(p, r, sys_fstat(p, (long)r->rdi, r->rsi)); break;
	case SYS_isatty: answer(p, r, sys_isatty(p, (long)r->rdi)); break;
	case SYS_sbrk: sbrk_call(p, r); break;
	case SYS_mmap: mmap_call(p, r); break;
	case SYS_munmap: linux_call(p, r, __NR_munmap, FIX_ERRNO); break;
	case SYS_getpid: linux_call(p, r, __NR_getpid, FIX_ERRNO); break;
	case SYS_kill: kill_call(p, r); break;
	case SYS_gettimeofday:
		pointer_call(p, r, __NR_gettimeofday, r->rdi, sizeof(struct stitch_timeval), 1);
		break;
	case SYS_times:
		pointer_call(p, r, __NR_times, r->rdi, sizeof(struct stitch_tms), 1);
		break;
	case SYS_yield: linux_call(p, r, __NR_sched_yield, FIX_ERRNO); break;
	case SYS_sleep: sleep_call(p, r); break;
	case SYS_spawn: spawn_call(p, r); break;
	case SYS_wait: wait_call(p, r); break;
	case SYS_pipe: pointer_call(p, r, __NR_pipe, r->rdi, 2 * sizeof(int), 1); break;
	case SYS_stacktrace_setup: answer(p, r, sys_stacktrace_setup(p, r)); break;
	case SYS_getppid: linux_call(p, r, __NR_getppid, FIX_ERRNO); break;
	case SYS_exec: exec_call(p, r); break;
	case SYS_sigaction: sigaction_call(p, r); break;
	case SYS_sigprocmask: sigprocmask_call(p, r); break;
	case SYS_sigreturn: sigreturn_call(p, r); break;
	case SYS_setitimer: setitimer_call(p, r); break;
	case SYS_thread_spawn: thread_spawn_call(p, r); break;
	case SYS_thread_exit: thread_exit_call(p, r); break;
	case SYS_futex: futex_call(p, r); break;
	case SYS_gettid: linux_call(p, r, __NR_gettid, FIX_ERRNO); break;
	default: answer(p, r, -STITCH_ENOSYS); break;
	}
}

/* Linux's "interrupted, will restart" results (a signal such as SIGCHLD). */
int linux_restarts(long ret)
{
	return ret == -512 || ret == -513 || ret == -514 || ret == -516;
}

/* The kernel keeps every register but rax, rcx and r11 across a call:
 * the arguments a translation changed come back as the call gave them. */
void keep_args(const struct proc *p, struct user_regs_struct *r)
{
	r->rdi = p->entry.rdi, r->rsi = p->entry.rsi, r->rdx = p->entry.rdx;
	r->r10 = p->entry.r10, r->r8 = p->entry.r8, r->r9 = p->entry.r9;
}

static void syscall_exit(struct proc *p, struct user_regs_struct *r)
{
	long ret = (long)r->rax;

	/* The restart re-enters with our Linux number: keep the fixup for it. */
	if (p->fix != FIX_RESULT && linux_restarts(ret)) {
		p->restarting = 1;
		return;
	}
	switch (p->fix) {
	case FIX_NONE:
		return;
	case FIX_ERRNO:
		if (ret < 0 && ret > -4096)
			r->rax = (unsigned long)-newlib_errno(-ret);
		return;
	case FIX_RESULT:
		r->rax = (unsigned long)p->result;
		return;
	case FIX_SBRK:	/* Linux brk answers the new break, or the old on failure */
		if ((unsigned long)ret == r->rdi) {
			p->group->brk = (unsigned long)ret;
			r->rax = (unsigned long)p->result;
		} else {
			r->rax = (unsigned long)-STITCH_ENOMEM;
		}
		return;
	case FIX_CLEAR_TID:
		thread_exit_fixup(r);
		return;
	default:
		signal_fixup(p, r);
		return;
	}
}

/* ---- the tracer's loop ---- */

void resume(pid_t pid, int sig)
{
	if (ptrace(PTRACE_SYSCALL, pid, 0, sig) != 0 && errno != ESRCH)
		perror("usim: PTRACE_SYSCALL");
}

/*
 * 0, or -1 when the tracee is gone: a SIGKILL (kill(pid, 9)) can end it
 * between the stop we were told of and this call; its exit comes next.
 */
int get_regs(pid_t pid, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_GETREGS, pid, 0, r) == 0)
		return 0;
	if (errno != ESRCH) {
		perror("usim: PTRACE_GETREGS");
		exit(2);
	}
	return -1;
}

void set_regs(pid_t pid, struct user_regs_struct *r)
{
	if (ptrace(PTRACE_SETREGS, pid, 0, r) != 0 && errno != ESRCH) {
		perror("usim: PTRACE_SETREGS");
		exit(2);
	}
}

/*
 * A spawned child stands where its parent's SYSCALL (a fork) returned.
 * Step back onto that instruction and make it an execve of the program.
 */
static void start_exec(struct proc *c)
{
	struct user_regs_struct r;

	if (get_regs(c->pid, &r))
		return;
	r.rip -= 2;	/* "syscall" is 0f 05 */
	r.orig_rax = (unsigned long)-1;
	r.rax = __NR_execve;
	r.rdi = c->exec_path;
	r.rsi = c->exec_argv;
	r.rdx = c->exec_envp;
	set_regs(c->pid, &r);
	c->exec_pending = 1;
	resume(c->pid, 0);
}

static void on_syscall_stop(struct proc *p)
{
	struct user_regs_struct r;

	if (get_regs(p->pid, &r))
		return;
	p->in_syscall = !p->in_syscall;
	if (p->in_syscall) {
		if (p->restarting) {	/* already translated, fixup kept */
			p->restarting = 0;
			resume(p->pid, 0);
			return;
		}
		p->fix = FIX_NONE;
		if (!p->stitch || p->exec_pending) {
			resume(p->pid, 0);
			return;
		}
		p->entry = r;
		syscall_entry(p, &r);
	} else {
		/* A thread between clear_tid's wake and its exit is leaving: its
		 * stack may be unmapped already by the thread that joined it. */
		int leaving = p->fix == FIX_CLEAR_TID;

		syscall_exit(p, &r);
		if (p->stitch && !p->restarting && p->fix != FIX_NONE && p->fix != FIX_SIGRETURN)
			keep_args(p, &r);
		if (p->stitch && !p->restarting && !leaving)
			signal_return_to_user(p, &r);	/* the kernel's last step to ring 3 */
	}
	set_regs(p->pid, &r);
	resume(p->pid, 0);
}

/* The tracee a fork or clone event of p is about, found or new. */
static struct proc *event_child(struct proc *p)
{
	unsigned long msg;
	struct proc *c;

	ptrace(PTRACE_GETEVENTMSG, p->pid, 0, &msg);
	c = find_proc((pid_t)msg);
	return c ? c : new_proc((pid_t)msg);
}

static void on_fork_event(struct proc *parent)
{
	struct proc *c = event_child(parent);

	c->exec_path = parent->exec_path;
	c->exec_argv = parent->exec_argv;
	c->exec_envp = parent->exec_envp;
	c->brk_start = c->brk = parent->group->brk;
	if (c->stopped_early)
		start_exec(c);
	resume(parent->pid, 0);
}

/* thread_spawn's clone: the new thread starts at its first stop. */
static void on_clone_event(struct proc *creator)
{
	struct proc *t = event_child(creator);

	thread_init(t, creator);
	if (t->stopped_early)
		thread_begin(t);
	resume(creator->pid, 0);
}

static void on_exec_event(struct proc *p)
{
	char arg0[MAX_PATH + 1] = "?";
	unsigned long ptr;

	thread_exec(p);
	p->fix = FIX_NONE;	/* the new image's registers are Linux's: keep them */
	p->stitch = 1;
	p->exec_pending = 0;
	p->brk_start = p->brk = start_brk(p->pid);
	memset(p->tables, 0, sizeof(p->tables));
	signal_exec(p);
	/* argv[0], for the kill report: the word above argc on the new stack. */
	struct user_regs_struct r;
	if (get_regs(p->pid, &r) == 0 && peek(p->pid, r.rsp + 8, &ptr, 8) == 0)
		user_string(p->pid, ptr, arg0, MAX_PATH);
	snprintf(p->path, sizeof(p->path), "%s", arg0);
	resume(p->pid, 0);
}

/* A signal stop: a new child's first SIGSTOP, a fault, or a signal the
 * tracer emulates (signal_stop). */
static void on_signal_stop(struct proc *p, int sig)
{
	if (sig == SIGSTOP && !p->stitch && !p->exec_pending && p->pid != init_pid) {
		if (p->start_ip)
			thread_begin(p);
		else if (p->exec_path)
			start_exec(p);
		else
			p->stopped_early = 1;	/* wait for the creator's fork or clone event */
		return;
	}
	if (!p->sig.dying && (sig == SIGSEGV || sig == SIGILL || sig == SIGFPE ||
			      sig == SIGBUS || sig == SIGTRAP)) {
		struct user_regs_struct r = { 0 };

		get_regs(p->pid, &r);
		fprintf(stderr, "usim: pid %d (%s) killed: signal %d rip=%#llx status %d\n",
			p->pid, p->path, sig, r.rip, 128 + sig);
	}
	resume(p->pid, signal_stop(p, sig));
}

static int trace(pid_t first)
{
	int init_status = 1;

	for (;;) {
		int status;
		pid_t pid = waitpid(-1, &status, __WALL);
		struct proc *p;

		if (pid < 0)
			return init_status;	/* every tracee is gone */
		p = find_proc(pid);
		if (!p)
			p = new_proc(pid);	/* a fork child before its event */
		if (WIFEXITED(status) || WIFSIGNALED(status)) {
			/* One report for the process: its first thread's, the last. */
			if (WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL && !p->sig.dying &&
			    p->group == p)
				fprintf(stderr, "usim: pid %d (%s) killed: signal 9 status 137\n",
					pid, p->path);
			p->used = 0;
			if (pid == first) {
				init_status = WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
				kill(-first, SIGKILL);	/* like a shutdown: orphans go too */
			}
			continue;
		}
		int sig = WSTOPSIG(status), event = status >> 16;

		if (sig == (SIGTRAP | 0x80))
			on_syscall_stop(p);
		else if (event == PTRACE_EVENT_FORK)
			on_fork_event(p);
		else if (event == PTRACE_EVENT_CLONE)
			on_clone_event(p);
		else if (event == PTRACE_EVENT_EXEC)
			on_exec_event(p);
		else
			on_signal_stop(p, sig);
	}
}

/*
 * Linux signals carry the Stitch ones (signal.c): none may be blocked in
 * the tracees, and those that end one (1-31) must do so by default,
 * whatever usim inherited (both survive execve). An ignored signal still
 * stops a tracee for its tracer, so the others may stay as they are.
 */
static void default_signals(void)
{
	sigset_t none;

	for (int sig = 1; sig < 32; sig++)
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/* The first program: traced, chrooted, no ASLR, default Linux signals. */
static void child(char **argv)
{
	struct rlimit fds = { MAX_FDS, MAX_FDS };
	char *envp[] = { NULL };

	setpgid(0, 0);
	if (chroot(root) != 0 || chdir("/") != 0) {
		perror("usim: chroot (needs root)");
		_exit(2);
	}
	/* No ASLR: the stack ends at USER_TOP. The legacy layout places
	 * mappings bottom up from a third of the address space, below
	 * USER_MMAP_TOP as the kernel does: the SDK's threads (and only its
	 * first thread) run above every mapping (docs/USERLAND.md). */
	personality(ADDR_NO_RANDOMIZE | ADDR_COMPAT_LAYOUT);
	setrlimit(RLIMIT_NOFILE, &fds);
	setrlimit(RLIMIT_CORE, &(struct rlimit){ 0, 0 });	/* killed: no core files */
	default_signals();
	ptrace(PTRACE_TRACEME, 0, 0, 0);
	raise(SIGSTOP);
	execve(argv[0], argv, envp);
	perror(argv[0]);
	_exit(2);
}

int main(int argc, char **argv)
{
	int status;
	pid_t pid;

	if (argc < 3) {
		fprintf(stderr, "usage: %s ROOT /bin/PROG [ARGS...]\n", argv[0]);
		return 2;
	}
	root = argv[1];
	unsigned char magic[20];
	if (read_magic(argv[2], magic) == (int)sizeof(magic) && refuse_compat(argv[2], magic))
		return 2;
	fstat(1, &console);
	sigpage_load(root);
	if ((pid = fork()) == 0)
		child(&argv[2]);
	init_pid = pid;
	if (waitpid(pid, &status, 0) != pid || !WIFSTOPPED(status)) {
		fprintf(stderr, "usim: the first program did not start\n");
		return 2;
	}
	ptrace(PTRACE_SETOPTIONS, pid, 0,
	       PTRACE_O_TRACESYSGOOD | PTRACE_O_TRACEFORK | PTRACE_O_TRACECLONE |
	       PTRACE_O_TRACEEXEC | PTRACE_O_EXITKILL);
	new_proc(pid);
	resume(pid, 0);
	return trace(pid);
}
