/*
 * t-sched: two CPU-bound processes run interleaved. Each child spins for
 * 400 ms of wall time without ever blocking or yielding, and stamps its
 * progress with RDTSC (no system call) after every slice of work. The
 * parent merges the two stamp lists in time order: only a preempting tick
 * can make them alternate (one child at a time to completion gives a
 * single switch).
 */
#include <stdint.h>
#include <sys/time.h>
#include <unistd.h>
#include "check.h"

#define SELF "/bin/t-sched"
#define MAX_STAMPS 8192
#define SPIN_US 400000

static uint64_t rdtsc(void)
{
	uint32_t lo, hi;

	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}

static long long now_us(void)
{
	struct timeval tv;

	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1000000LL + tv.tv_usec;
}

/* "child-spin WFD": spin, then send the stamps down the pipe. */
static int child_spin(int wfd)
{
	static uint64_t stamps[MAX_STAMPS];
	long long end = now_us() + SPIN_US;
	volatile unsigned long work = 0;
	int n = 0;

	while (now_us() < end) {
		for (int i = 0; i < 200000; i++)
			work++;
		if (n < MAX_STAMPS)
			stamps[n++] = rdtsc();
	}
	size_t bytes = (size_t)n * sizeof(stamps[0]);
	return write(wfd, stamps, bytes) == (long)bytes ? 0 : 1;
}

/* Spawn a spinner; the read end of its pipe, its pid in *pid. */
static int start_spinner(int *pid)
{
	int fds[2];
	char w[16];

	if (pipe(fds) != 0)
		return -1;
	snprintf(w, sizeof(w), "%d", fds[1]);
	char *argv[] = { SELF, "child-spin", w, NULL };
	*pid = spawn(SELF, argv);
	close(fds[1]);
	return fds[0];
}

/* All of one child's stamps; their number. */
static int collect(int fd, uint64_t *stamps)
{
	long got = 0, n;

	while ((n = read(fd, (char *)stamps + got,
			 MAX_STAMPS * sizeof(*stamps) - (size_t)got)) > 0)
		got += n;
	close(fd);
	return (int)(got / (long)sizeof(*stamps));
}

/* How often the owner changes when both lists are merged by time. */
static int count_switches(const uint64_t *a, int na, const uint64_t *b, int nb)
{
	int i = 0, j = 0, last = -1, switches = 0;

	while (i < na || j < nb) {
		int who = j >= nb || (i < na && a[i] < b[j]) ? 0 : 1;

		if (last >= 0 && who != last)
			switches++;
		last = who;
		who == 0 ? i++ : j++;
	}
	return switches;
}

int main(int argc, char **argv)
{
	static uint64_t a[MAX_STAMPS], b[MAX_STAMPS];
	int pid_a, pid_b, status_a = -1, status_b = -1;

	if (argc == 3 && strcmp(argv[1], "child-spin") == 0)
		return child_spin(atoi(argv[2]));
	check_begin(argv[0]);
	int fd_a = start_spinner(&pid_a);
	int fd_b = start_spinner(&pid_b);
	CHECK(pid_a > 0 && pid_b > 0);
	int na = collect(fd_a, a), nb = collect(fd_b, b);
	CHECK_EQ(waitpid(pid_a, &status_a, 0), pid_a);
	CHECK_EQ(waitpid(pid_b, &status_b, 0), pid_b);
	CHECK_EQ(status_a, 0);
	CHECK_EQ(status_b, 0);
	CHECK(na >= 3 && nb >= 3);	/* both made progress (however loaded the host) */
	int switches = count_switches(a, na, b, nb);
	printf("# t-sched: %d and %d stamps, %d switches\n", na, nb, switches);
	CHECK(switches >= 4);
	return check_exit();
}
