/*
 * /bin/demo: the default first process. Starts every workload at once so
 * that they share the CPU (and a profile sees several processes), waits
 * for all of them and exits 0 iff every one exited 0. Each workload prints
 * its own "name: ... checksum=X" line; test/t/31-user-guest.t compares those
 * with the checksums that the native host build of this same program prints.
 */
#include <stdio.h>
#include <stitch.h>
#include <sys/wait.h>

/* The workloads and their arguments. */
static char *const fib_argv[]    = { "/bin/fib", "30", "5", NULL };
static char *const chain_argv[]  = { "/bin/chain", "128", "5000", NULL };
static char *const sort_argv[]   = { "/bin/sort", "50000", "10", NULL };
static char *const reader_argv[] = { "/bin/reader", "/data/blob", "1048576", "16", NULL };
static char *const piper_argv[]  = { "/bin/piper", "16777216", "65536", NULL };
static char *const sigwork_argv[] = { "/bin/sigwork", "100", NULL };
static char *const threads_argv[] = { "/bin/threads", "10000", NULL };

static char *const *const workloads[] = {
	fib_argv, chain_argv, sort_argv, reader_argv, piper_argv, sigwork_argv, threads_argv,
};
#define NWORKLOADS (int)(sizeof(workloads) / sizeof(workloads[0]))

/* The workload that pid runs, for the report. */
static const char *name_of(const int *pids, int pid)
{
	for (int i = 0; i < NWORKLOADS; i++)
		if (pids[i] == pid)
			return workloads[i][0];
	return "?";
}

int main(void)
{
	int pids[NWORKLOADS];
	int started = 0, ok = 0;

	for (int i = 0; i < NWORKLOADS; i++) {
		pids[i] = spawn(workloads[i][0], workloads[i]);
		if (pids[i] < 0)
			perror(workloads[i][0]);
		else
			started++;
	}
	for (int i = 0; i < started; i++) {
		int status;
		int pid = wait(&status);

		if (pid < 0) {
			perror("demo: wait");
			break;
		}
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
		else if (WIFEXITED(status))
			printf("demo: %s exited %d\n", name_of(pids, pid), WEXITSTATUS(status));
		else
			printf("demo: %s killed by signal %d\n", name_of(pids, pid),
			       WTERMSIG(status));
	}
	printf("demo: %d of %d workloads ok\n", ok, NWORKLOADS);
	return ok == NWORKLOADS ? 0 : 1;
}
