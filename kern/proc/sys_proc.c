/* Process and time system calls. */
#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/proc/sched.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "kern/mm/uaccess.h"
#include "stitch/syscall.h"

#define SPAWN_MAX_ARGS  64
#define SPAWN_ARG_BYTES 16384 /* all argument strings, NULs included */
#define NS_PER_TICK (1000000000ull / STITCH_CLK_TCK)

/* The process's exit: its other threads go with the same status. */
long sys_exit(const long *arg)
{
	int status = ((int)arg[0] & 0xff) << 8;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	thread_group_kill_locked(current, status);
	spin_unlock_irqrestore(&sched_lock, f);
	task_exit(status);
}

long sys_getpid(const long *arg)
{
	(void)arg;
	return current->pid;
}

long sys_getppid(const long *arg)
{
	(void)arg;
	return current->parent ? current->parent->pid : 0;
}

long sys_kill(const long *arg)
{
	return proc_kill((int)arg[0], (int)arg[1]);
}

/* spawn's and exec's arguments, copied in before anything is created. */
struct spawn_req {
	char path[INITRD_PATH_MAX];
	char *argv[SPAWN_MAX_ARGS];
	char strings[SPAWN_ARG_BYTES];
};

/* The user's argv (pointers up to NULL, 4 bytes each in a compat
 * process) into req: argc or -errno. */
static long copy_argv(struct spawn_req *req, uint64_t uargv)
{
	uint64_t used = 0;
	unsigned word = current->mm->compat ? 4 : 8;
	for (int argc = 0;; argc++) {
		uint64_t p = 0; /* little-endian: a 4-byte word fills the low half */
		if (copy_from_user(&p, uargv + argc * word, word))
			return -STITCH_EFAULT;
		if (!p)
			return argc;
		if (argc == SPAWN_MAX_ARGS)
			return -STITCH_EINVAL;
		long n = strncpy_from_user(req->strings + used, p,
					   SPAWN_ARG_BYTES - used);
		if (n < 0)
			return n;
		req->argv[argc] = req->strings + used;
		used += n + 1;
	}
}

/* Copies in the path and argv of arg[0], arg[1], then calls start with
 * them: spawn and exec. */
static long with_program_args(const long *arg,
			      long (*start)(const char *path, char *const argv[], int argc))
{
	struct spawn_req *req = kmalloc(sizeof(*req));
	if (!req)
		return -STITCH_ENOMEM;
	long ret = strncpy_from_user(req->path, arg[0], sizeof(req->path));
	if (ret >= 0)
		ret = copy_argv(req, arg[1]);
	if (ret >= 0)
		ret = start(req->path, req->argv, (int)ret);
	kfree(req);
	return ret;
}

long sys_spawn(const long *arg)
{
	return with_program_args(arg, proc_spawn);
}

long sys_exec(const long *arg)
{
	return with_program_args(arg, proc_exec);
}

long sys_wait(const long *arg)
{
	return proc_wait((int)arg[0], arg[1]);
}

long sys_yield(const long *arg)
{
	(void)arg;
	schedule();
	return 0;
}

long sys_sleep(const long *arg)
{
	uint64_t us = arg[0];
	uint64_t ns = us > UINT64_MAX / 2000 ? UINT64_MAX / 2 : us * 1000;
	return sleep_until(clock_ns() + ns);
}

long sys_gettimeofday(const long *arg)
{
	uint64_t ns = clock_ns();
	struct stitch_timeval tv = {
		.sec = (long)(ns / 1000000000), .usec = (long)(ns % 1000000000 / 1000),
	};
	return copy_to_user(arg[0], &tv, sizeof(tv));
}

long sys_times(const long *arg)
{
	const struct task *t = current;
	struct stitch_tms tms = {
		.utime = t->utime_ns / NS_PER_TICK, .stime = t->stime_ns / NS_PER_TICK,
		.cutime = t->cutime_ns / NS_PER_TICK, .cstime = t->cstime_ns / NS_PER_TICK,
	};
	int err = copy_to_user(arg[0], &tms, sizeof(tms));
	return err ? err : (long)(clock_ns() / NS_PER_TICK);
}
