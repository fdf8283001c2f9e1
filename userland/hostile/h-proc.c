/*
 * h-proc CASE: process churn. Thousands of spawns one after the other; a
 * flood of children until the table or memory is full; children that die
 * (exit, kill, fault) while the profiler may still owe them a deferred
 * unwind; memory taken until the kernel has no frame left. The kernel must
 * refuse cleanly (EAGAIN, ENOMEM), reap everything, lose no page, and
 * account every unwind it could not finish (unwind_stop_task_exited).
 */
#include <stdlib.h>
#include "hostile.h"

#define SELF "/bin/h-proc"

/* Spawn and reap `n` children that exit at once. */
static int spawn_storm(void)
{
	enum { N = 2000 };
	char *argv[] = { SELF, "child", "exit", NULL };
	int ok = 0;
	for (int i = 0; i < N; i++) {
		int status, pid = spawn(SELF, argv);
		if (pid < 0) {
			EXPECT(0, "spawn %d failed: errno %d", i, errno);
			break;
		}
		if (waitpid(pid, &status, 0) == pid && status == 0)
			ok++;
	}
	EXPECT(ok == N, "%d of %d children exited 0", ok, N);
	printf("# spawn-storm: %d spawns\n", ok);
	return 0;
}

/* Children that block on a pipe until spawn refuses; then all go. */
static int spawn_flood(void)
{
	int fds[2], n = 0, pid, err = 0;
	char rfd[16], wfd[16];
	EXPECT(pipe(fds) == 0, "pipe");
	snprintf(rfd, sizeof rfd, "%d", fds[0]);
	snprintf(wfd, sizeof wfd, "%d", fds[1]);
	char *argv[] = { SELF, "child", "block", rfd, wfd, NULL };
	while (n < 500) {
		pid = spawn(SELF, argv);
		if (pid < 0) {
			err = errno;
			break;
		}
		n++;
	}
	EXPECT(err == EAGAIN || err == ENOMEM, "spawn ended with errno %d after %d", err, n);
	close(fds[1]); /* end of file for every child: they exit */
	int reaped = 0, status;
	while (wait(&status) > 0)
		reaped++;
	EXPECT(reaped == n, "reaped %d of %d", reaped, n);
	char *again[] = { SELF, "child", "exit", NULL };
	pid = spawn(SELF, again);
	EXPECT(pid > 0 && waitpid(pid, &status, 0) == pid, "spawn after the flood: errno %d", errno);
	printf("# spawn-flood: %d children, then errno %d\n", n, err);
	return 0;
}

/*
 * Children that spin in ring 3 (so samples ask for deferred unwinds) and
 * die at once afterwards, each a different way: exit from a system call
 * entered right after the spin, killed by the parent while spinning, a
 * fault. An unwind still owed at death is taken in task_exit, while the
 * stack is there.
 */
static int die_pending(void)
{
	static const char *const how[] = { "spin-exit", "spin-fault", "spin-forever" };
	int n = 0;
	for (int round = 0; round < 30; round++) {
		for (unsigned k = 0; k < 3; k++) {
			char *argv[] = { SELF, "child", (char *)how[k], NULL };
			int status, pid = spawn(SELF, argv);
			EXPECT(pid > 0, "spawn: errno %d", errno);
			if (pid < 0)
				return 1;
			if (k == 2) {
				usleep(60000); /* past its calibration: spinning */
				kill(pid, 9);
			}
			EXPECT(waitpid(pid, &status, 0) == pid, "wait");
			n++;
		}
	}
	printf("# die-pending: %d children died\n", n);
	return 0;
}

/* Memory until there is none: the kernel kills us (SIGKILL, out of
 * memory) and takes everything back. */
static int oom(void)
{
	for (;;) {
		char *p = stitch_mmap(NULL, 1UL << 30, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
		if (p == STITCH_MAP_FAILED)
			break;
		for (unsigned long off = 0; off < (1UL << 30); off += PAGE)
			p[off] = 1;
	}
	/* Out of address space before memory: still alive, a failure. */
	return 99;
}

/* The children: what they do, and the pipe's ends for "block". */
static int child_main(int argc, char **argv)
{
	const char *what = argv[2];
	if (strcmp(what, "exit") == 0)
		return 0;
	if (strcmp(what, "block") == 0 && argc == 5) {
		char c;
		close(atoi(argv[4])); /* our copy of the write end */
		return read(atoi(argv[3]), &c, 1) == 0 ? 0 : 1;
	}
	uint64_t end = tsc_deadline(strcmp(what, "spin-forever") == 0 ? 100000 : 20);
	while (rdtsc() < end)
		;
	if (strcmp(what, "spin-fault") == 0)
		*(volatile int *)0 = 1;
	_exit(0);
}

static const struct hcase cases[] = {
	{ "spawn-storm", spawn_storm }, { "spawn-flood", spawn_flood },
	{ "die-pending", die_pending }, { "oom", oom },
};

int main(int argc, char **argv)
{
	if (argc >= 3 && strcmp(argv[1], "child") == 0)
		return child_main(argc, argv);
	return hostile_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
