/* Processes: exit, identity, spawn/wait, exec, kill, sleeping. */
#include <signal.h>
#include <stitch.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "sys.h"

/* The kernel never returns from SYS_exit. Still a loop, not
 * __builtin_unreachable(): the address after the syscall instruction (the
 * user pc of the exit's samples and of its last unwind) must lie inside
 * _exit, where its SFrame row describes it, not past its end. */
void _exit(int status)
{
	for (;;)
		sys1(SYS_exit, status);
}

pid_t getpid(void)
{
	return (pid_t)sys0(SYS_getpid);
}

pid_t getppid(void)
{
	return (pid_t)sys0(SYS_getppid);
}

int kill(pid_t pid, int sig)
{
	return (int)sys_result(sys2(SYS_kill, pid, sig));
}

int spawn(const char *path, char *const argv[])
{
	return (int)sys_result(sys2(SYS_spawn, (long)path, (long)argv));
}

/* Stitch programs have no environment (every one starts with an empty
 * envp): envp is not passed on. Returns only when it fails. */
int execve(const char *path, char *const argv[], char *const envp[])
{
	(void)envp;
	return (int)sys_result(sys2(SYS_exec, (long)path, (long)argv));
}

int execv(const char *path, char *const argv[])
{
	return execve(path, argv, NULL);
}

/*
 * Blocking waits only: Stitch has no WNOHANG. The kernel wants a valid
 * status pointer; POSIX lets callers pass NULL, so we lend one.
 */
pid_t waitpid(pid_t pid, int *status, int options)
{
	int ignored;

	if (options != 0) {
		errno = EINVAL;
		return -1;
	}
	return (pid_t)sys_result(sys2(SYS_wait, pid, (long)(status ? status : &ignored)));
}

pid_t wait(int *status)
{
	return waitpid(-1, status, 0);
}

int yield(void)
{
	return (int)sys_result(sys0(SYS_yield));
}

int usleep(useconds_t us)
{
	return (int)sys_result(sys1(SYS_sleep, us));
}

/* A handled signal ends the sleep early: the seconds left, rounded up. */
unsigned sleep(unsigned seconds)
{
	struct stitch_timeval t0, t1;
	sys1(SYS_gettimeofday, (long)&t0);
	if (sys1(SYS_sleep, (long)seconds * 1000000L) == 0)
		return 0;
	sys1(SYS_gettimeofday, (long)&t1);
	long slept = (t1.sec - t0.sec) * 1000000L + (t1.usec - t0.usec);
	long left = (long)seconds * 1000000L - slept;
	return left > 0 ? (unsigned)((left + 999999) / 1000000) : 0;
}

int pipe(int fds[2])
{
	return (int)sys_result(sys1(SYS_pipe, (long)fds));
}
