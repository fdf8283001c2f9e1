/*
 * fib [n [rounds]]: CPU-bound recursion. The sampled stacks are
 * main -> fib_rounds -> fib_recursive -> fib_recursive -> ... (depth <= n).
 *
 * Prints "fib: n=N rounds=R result=F checksum=X" where F = fib(N) and
 * X = R * F, both checkable by formula.
 */
#include "workload.h"

FRAME static uint64_t fib_recursive(unsigned n)
{
	if (n < 2)
		return n;
	return fib_recursive(n - 1) + fib_recursive(n - 2);
}

/* noipa hides fib_recursive's purity: every round really recomputes. */
FRAME static uint64_t fib_rounds(unsigned n, long rounds)
{
	uint64_t sum = 0;

	for (long r = 0; r < rounds; r++)
		sum += fib_recursive(n);
	return sum;
}

int main(int argc, char **argv)
{
	unsigned n = (unsigned)arg_long(argc, argv, 1, 24, 0, 60);
	long rounds = arg_long(argc, argv, 2, 1, 1, 1000000);
	uint64_t sum = fib_rounds(n, rounds);

	printf("fib: n=%u rounds=%ld result=%llu checksum=%llu\n", n, rounds,
	       (unsigned long long)(sum / rounds), (unsigned long long)sum);
	return 0;
}
