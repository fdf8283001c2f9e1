/*
 * execwork [rounds [fib-n [fib-rounds]]]: a program that works in frames
 * of its own (main -> execwork_run -> execwork_down x EXECWORK_DEPTH),
 * then replaces itself with /bin/fib (exec), which works in its own.
 * Samples before the exec must stitch to execwork's stack, the exec's own
 * entry included (its unwind is owed when the old program goes), and
 * samples after it to fib's, under the same pid (docs/PROCESSES.md, "exec").
 * Prints "execwork: rounds=R result=X" before the exec; fib prints its own
 * line after it.
 */
#include <unistd.h>
#include "../workloads/workload.h"

#define EXECWORK_DEPTH 5

FRAME static uint64_t execwork_down(int depth, uint64_t x)
{
	if (depth > 0)
		return execwork_down(depth - 1, x) + 1;
	for (int i = 0; i < 20000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

FRAME static uint64_t execwork_run(long rounds)
{
	uint64_t x = 1;
	for (long r = 0; r < rounds; r++)
		x = execwork_down(EXECWORK_DEPTH, x);
	return x;
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 200, 1, 1000000);
	printf("execwork: rounds=%ld result=%llu\n", rounds,
	       (unsigned long long)execwork_run(rounds));
	fflush(stdout);
	char *fib[] = { "/bin/fib", argc > 2 ? argv[2] : "24", argc > 3 ? argv[3] : "3", NULL };
	execv(fib[0], fib);
	perror("execwork: execv /bin/fib");
	return 1;
}
