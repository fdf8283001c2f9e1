/*
 * t-proc: process calls: getpid, getppid, spawn (argv passing, errors),
 * exit statuses through wait/waitpid, kill.
 *
 * The same program is its own child: "t-proc child-<mode> ..." runs one
 * child behaviour and reports through its exit status.
 *
 * "t-proc orphan-<mode>", run as init (test/t/32-proc-init.t), leaves processes behind
 * that never end by themselves, printing "t-proc: orphan pid N" for each,
 * and exits 0: the kernel must kill and reap them all and shut down.
 */
#include <signal.h>
#include <unistd.h>
#include "check.h"

#define SELF "/bin/t-proc"

static int spawn_orphan(char *const argv[])
{
	int pid = spawn(SELF, argv);
	if (pid > 0)
		printf("t-proc: orphan pid %d\n", pid);
	return pid;
}

/* One byte to the write end numbered fd: "I am in place". */
static void ready(const char *fd)
{
	if (write(atoi(fd), "r", 1) != 1)
		exit(3);
}

/* Children: each returns its exit status. */
static int child(int argc, char **argv)
{
	const char *mode = argv[1];

	if (strcmp(mode, "child-exit") == 0)
		return atoi(argv[2]);
	if (strcmp(mode, "child-_exit") == 0)
		_exit(atoi(argv[2]));
	if (strcmp(mode, "child-ppid") == 0)	/* argv[2]: the parent's pid */
		return getppid() == atoi(argv[2]) && getpid() != getppid() ? 0 : 1;
	if (strcmp(mode, "child-args") == 0) {
		extern char **environ;

		return argc == 6 && strcmp(argv[0], SELF) == 0 &&
		       strcmp(argv[2], "a") == 0 && strcmp(argv[3], "bb") == 0 &&
		       argv[4][0] == '\0' && strlen(argv[5]) == 200 &&
		       argv[6] == NULL && environ && environ[0] == NULL ? 0 : 1;
	}
	if (strcmp(mode, "child-sleep") == 0) {
		sleep(30);
		return 0;
	}
	if (strcmp(mode, "child-nap") == 0) {
		usleep(100 * 1000);
		return 0;
	}
	/* argv[2]: a pipe's write end, where each says it is in place. */
	if (strcmp(mode, "child-spin") == 0) {
		ready(argv[2]);
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	if (strcmp(mode, "child-pipe") == 0) {
		int fds[2];
		char c;
		/* It holds the write end itself: the read never ends. */
		if (pipe(fds) != 0)
			return 1;
		ready(argv[2]);
		return read(fds[0], &c, 1) == 1 ? 0 : 2;
	}
	if (strcmp(mode, "child-tree") == 0) { /* argv[3]: levels below */
		int levels = atoi(argv[3]);
		char below[16];
		snprintf(below, sizeof(below), "%d", levels - 1);
		char *sub[] = { SELF, "child-tree", argv[2], below, NULL };
		char *spin[] = { SELF, "child-spin", argv[2], NULL };
		for (int i = 0; i < 2; i++)
			if (spawn_orphan(levels > 0 ? sub : spin) < 0)
				return 1;
		ready(argv[2]);
		for (;;)
			__asm__ volatile("" ::: "memory");
	}
	if (strcmp(mode, "child-orphans") == 0) { /* argv[2]: how many */
		char *nap[] = { SELF, "child-nap", NULL };
		for (int i = atoi(argv[2]); i > 0; i--)
			if (spawn(SELF, nap) < 0)
				return 1;
		return 0; /* before they do: the kernel becomes their parent */
	}
	return 100;
}

/* Spawns one orphan and waits until n processes said they are in place
 * (and a little longer: the last one's blocking call). */
static int leave(char *argv[], char *fd, int n)
{
	int fds[2];
	char c;
	if (pipe(fds) != 0)
		return 1;
	snprintf(fd, 16, "%d", fds[1]);
	if (spawn_orphan(argv) < 0)
		return 1;
	for (int i = 0; i < n; i++)
		if (read(fds[0], &c, 1) != 1)
			return 1;
	usleep(50 * 1000);
	return 0;
}

/* Run as init: leaves behind what the kernel must clean up (see above). */
static int orphans(const char *mode)
{
	char fd[16];
	char *spin[] = { SELF, "child-spin", fd, NULL };
	char *tree[] = { SELF, "child-tree", fd, "2", NULL };
	char *blocked[] = { SELF, "child-pipe", fd, NULL };
	char *maker[] = { SELF, "child-orphans", "20", NULL };

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (strcmp(mode, "orphan-spin") == 0)
		return leave(spin, fd, 1);
	if (strcmp(mode, "orphan-tree") == 0)
		return leave(tree, fd, 15);
	if (strcmp(mode, "orphan-pipe") == 0)
		return leave(blocked, fd, 1);
	if (strcmp(mode, "orphan-zombies") == 0) {
		/* 120 short-lived orphans, more than the process table holds,
		 * while a CPU-bound process keeps the CPU busy: they must be
		 * reaped as they die, not when the machine is idle. */
		if (leave(spin, fd, 1))
			return 1;
		for (int round = 0; round < 6; round++) {
			int status;
			if (spawn_wait(maker, &status) < 0 || status != 0) {
				printf("t-proc: round %d: status %d errno %d\n",
				       round, status, errno);
				return 1;
			}
			usleep(300 * 1000); /* they nap 100 ms, then exit */
		}
		return 0;
	}
	return 100;
}

static int status_of(char *const argv[])
{
	int status = -1;

	CHECK(spawn_wait(argv, &status) > 0);
	return status;
}

static void test_identity(char *argv0)
{
	char pid_s[16];

	CHECK(getpid() > 0);
	CHECK_EQ(getpid(), getpid());
	CHECK(getppid() > 0);	/* /bin/utest, or the kernel's init */
	CHECK(strcmp(argv0, SELF) == 0);
	snprintf(pid_s, sizeof(pid_s), "%d", getpid());
	char *ppid_argv[] = { SELF, "child-ppid", pid_s, NULL };
	CHECK_EQ(status_of(ppid_argv), 0);
}

static void test_exit_status(void)
{
	char *exit42[] = { SELF, "child-exit", "42", NULL };
	char *exit300[] = { SELF, "child-exit", "300", NULL };
	char *uexit7[] = { SELF, "child-_exit", "7", NULL };
	int status;

	status = status_of(exit42);
	CHECK(WIFEXITED(status));
	CHECK_EQ(WEXITSTATUS(status), 42);
	CHECK_EQ(status, 42 << 8);	/* the encoding of docs/USERLAND.md */
	CHECK_EQ(WEXITSTATUS(status_of(exit300)), 300 & 0xff);
	CHECK_EQ(WEXITSTATUS(status_of(uexit7)), 7);
}

static void test_args(void)
{
	char long_arg[201];

	memset(long_arg, 'z', 200);
	long_arg[200] = '\0';
	char *args[] = { SELF, "child-args", "a", "bb", "", long_arg, NULL };
	CHECK_EQ(status_of(args), 0);
}

static void test_wait(void)
{
	char *exit3[] = { SELF, "child-exit", "3", NULL };
	char *exit4[] = { SELF, "child-exit", "4", NULL };
	int a = spawn(SELF, exit3), b = spawn(SELF, exit4);
	int status, first, second;

	CHECK(a > 0 && b > 0 && a != b);
	CHECK_EQ(waitpid(b, &status, 0), b);	/* a specific child */
	CHECK_EQ(WEXITSTATUS(status), 4);
	first = wait(&status);	/* any child: only a is left */
	CHECK_EQ(first, a);
	CHECK_EQ(WEXITSTATUS(status), 3);
	second = wait(&status);
	CHECK(second == -1 && errno == ECHILD);
	CHECK_ERRNO(waitpid(1, &status, 0), ECHILD);	/* not our child */
	CHECK_ERRNO(waitpid(-1, &status, 1), EINVAL);	/* no options exist */
}

static void test_spawn_errors(void)
{
	char *nope[] = { "/bin/no-such-program", NULL };
	char *text[] = { "/data/hello.txt", NULL };

	CHECK_ERRNO(spawn(nope[0], nope), ENOENT);
	CHECK_ERRNO(spawn(text[0], text), ENOEXEC);
}

static void test_kill(void)
{
	char *sleeper[] = { SELF, "child-sleep", NULL };
	int pid = spawn(SELF, sleeper);
	int status = 0;

	CHECK(pid > 0);
	CHECK_EQ(kill(pid, 9), 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFSIGNALED(status));
	CHECK_EQ(WTERMSIG(status), 9);
	CHECK_ERRNO(kill(pid, 9), ESRCH);	/* reaped: gone */
	CHECK_ERRNO(kill(99999, 9), ESRCH);
	CHECK_EQ(kill(getpid(), 0), 0);	/* signal 0: only "is it there" */
	CHECK_ERRNO(kill(getpid(), 64), EINVAL);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strncmp(argv[1], "child-", 6) == 0)
		return child(argc, argv);
	if (argc > 1 && strncmp(argv[1], "orphan-", 7) == 0)
		return orphans(argv[1]);
	check_begin(argv[0]);
	test_identity(argv[0]);
	test_exit_status();
	test_args();
	test_wait();
	test_spawn_errors();
	test_kill();
	return check_exit();
}
