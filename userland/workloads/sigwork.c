/*
 * sigwork [signals [depth]]: a program that does real work in a signal
 * handler. setitimer(ITIMER_REAL) raises SIGALRM every millisecond; the
 * handler (sigwork_handler -> sigwork_hwork x depth) hashes for about a
 * fifth of each period, while the main line (main -> sigwork_run ->
 * sigwork_spin) spins. A sample inside the handler must stitch through
 * the signal page's trampoline (__stitch_sigreturn) into the function the
 * signal interrupted, and on to _start (test 45). Prints
 * "sigwork: signals=N checksum=X" once N signals were handled: X is the
 * handlers' work, the same however the signals fell (the demo compares it
 * with the native build's).
 */
#include <signal.h>
#include <sys/time.h>
#include "../workloads/workload.h"

static volatile sig_atomic_t handled;
static volatile uint64_t handler_sum;
static int hdepth = 3;

FRAME static uint64_t sigwork_hwork(int depth, uint64_t x)
{
	if (depth > 1)
		return sigwork_hwork(depth - 1, x) ^ (uint64_t)depth;
	for (int i = 0; i < 40000; i++)
		x = x * 2862933555777941757ULL + 3037000493ULL;
	return x;
}

FRAME static void sigwork_handler(int sig)
{
	handler_sum += sigwork_hwork(hdepth, handler_sum + (uint64_t)sig);
	handled++;
}

FRAME static uint64_t sigwork_spin(uint64_t x)
{
	for (int i = 0; i < 5000; i++)
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
	return x;
}

FRAME static uint64_t sigwork_run(long signals)
{
	uint64_t x = 1;
	while (handled < signals)
		x = sigwork_spin(x);
	return x;
}

int main(int argc, char **argv)
{
	long signals = arg_long(argc, argv, 1, 200, 1, 1000000);
	hdepth = (int)arg_long(argc, argv, 2, 3, 1, 64);
	struct sigaction sa = { .sa_handler = sigwork_handler };
	sigemptyset(&sa.sa_mask);
	struct itimerval every_ms = { { 0, 1000 }, { 0, 1000 } }, off = { { 0, 0 }, { 0, 0 } };
	if (sigaction(SIGALRM, &sa, NULL) != 0 || setitimer(ITIMER_REAL, &every_ms, NULL) != 0) {
		perror("sigwork: sigaction/setitimer");
		return 1;
	}
	uint64_t main_sum = sigwork_run(signals);
	setitimer(ITIMER_REAL, &off, NULL);
	/* main_sum depends on where the signals fell: not printed. */
	(void)main_sum;
	printf("sigwork: signals=%ld checksum=%llu\n", signals, (unsigned long long)handler_sum);
	return 0;
}
