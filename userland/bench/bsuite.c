/*
 * bsuite [-j] PROG[:ARG...] ...: the benchmark suite runner. Runs each program
 * in turn (spawn, then wait), never two at once, so that each one's time
 * in the record stream, from its REC_COMM to its REC_EXIT, is its own
 * work and the profiler's overhead on it. Arguments are separated by ':'
 * because init.args already splits at ',' and the command line at spaces:
 *
 *     init=/bin/bsuite init.args=/bin/fib:28:2,/bin/chain:64:2000
 *
 * With -j first, all programs start at once and are waited for after
 * (several CPUs: docs/SMP.md). Prints "bsuite: N of M programs ok" and
 * exits 0 iff all exited 0.
 */
#include <stdio.h>
#include <string.h>
#include <stitch.h>
#include <sys/wait.h>

#define MAX_ARGS 16

/* Split spec at ':' in place into argv; returns argc. */
static int split_args(char *spec, char **argv)
{
	int argc = 0;

	for (char *p = spec; argc < MAX_ARGS - 1;) {
		argv[argc++] = p;
		p = strchr(p, ':');
		if (!p)
			break;
		*p++ = '\0';
	}
	argv[argc] = NULL;
	return argc;
}

/* Start one program; its pid, or -1. */
static int start_one(char *spec)
{
	char *argv[MAX_ARGS];

	split_args(spec, argv);
	int pid = spawn(argv[0], argv);
	if (pid < 0)
		perror(argv[0]);
	return pid;
}

/* Wait for one started program; 1 if it exited 0. */
static int wait_one(int pid, const char *name)
{
	int status;

	if (pid < 0)
		return 0;
	if (waitpid(pid, &status, 0) != pid) {
		perror("bsuite: wait");
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFEXITED(status))
		printf("bsuite: %s exited %d\n", name, WEXITSTATUS(status));
	else
		printf("bsuite: %s killed by signal %d\n", name, WTERMSIG(status));
	return 0;
}

int main(int argc, char **argv)
{
	int ok = 0, first = 1, pids[64];
	int parallel = argc > 1 && strcmp(argv[1], "-j") == 0;

	first += parallel;
	if (argc - first > 64) {
		printf("bsuite: at most 64 programs\n");
		return 1;
	}
	for (int i = first; i < argc; i++) {
		pids[i - first] = start_one(argv[i]);
		if (!parallel)
			ok += wait_one(pids[i - first], argv[i]);
	}
	for (int i = first; parallel && i < argc; i++)
		ok += wait_one(pids[i - first], argv[i]);
	printf("bsuite: %d of %d programs ok\n", ok, argc - first);
	return ok == argc - first ? 0 : 1;
}
