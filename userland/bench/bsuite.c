/*
 * bsuite PROG[:ARG...] ...: the benchmark suite runner. Runs each program
 * in turn (spawn, then wait), never two at once, so that each one's time
 * in the record stream, from its REC_COMM to its REC_EXIT, is its own
 * work and the profiler's overhead on it. Arguments are separated by ':'
 * because init.args already splits at ',' and the command line at spaces:
 *
 *     init=/bin/bsuite init.args=/bin/fib:28:2,/bin/chain:64:2000
 *
 * Prints "bsuite: N of M programs ok" and exits 0 iff all exited 0.
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

/* Run one program to its end; 1 if it exited 0. */
static int run_one(char *spec)
{
	char *argv[MAX_ARGS];
	int status;

	split_args(spec, argv);
	int pid = spawn(argv[0], argv);
	if (pid < 0) {
		perror(argv[0]);
		return 0;
	}
	if (waitpid(pid, &status, 0) != pid) {
		perror("bsuite: wait");
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 1;
	if (WIFEXITED(status))
		printf("bsuite: %s exited %d\n", argv[0], WEXITSTATUS(status));
	else
		printf("bsuite: %s killed by signal %d\n", argv[0], WTERMSIG(status));
	return 0;
}

int main(int argc, char **argv)
{
	int ok = 0;

	for (int i = 1; i < argc; i++)
		ok += run_one(argv[i]);
	printf("bsuite: %d of %d programs ok\n", ok, argc - 1);
	return ok == argc - 1 ? 0 : 1;
}
