/*
 * t-smp: what CPUs doing things at once must not break (test/t/13-smp-boot.t boots it
 * under -icount, where guest time is instructions).
 *
 * "t-smp kill" (3 CPUs): a child spins in ring 3 on an AP, never entering
 * the kernel; its parent kills it and waits. The kill must land within
 * KILL_BOUND cycles: the victim's CPU has no tick (the PIT is the boot
 * CPU's, and it ends slices only when tasks wait), so only the kill's IPI
 * brings the victim to its return path. Prints the cycles it took.
 *
 * "t-smp print": two children on two CPUs each write LINES lines to the
 * console at once, one write() per line; test/t/13-smp-boot.t checks that every line
 * arrived whole (the console lock serialises writers).
 */
#include <signal.h>
#include <stdint.h>
#include <unistd.h>
#include "check.h"

#define SELF "/bin/t-smp"
/* 1 ms of guest time at the TSC's 1 GHz under -icount: how long the
 * parent waits for a spinner to start. */
#define START_CYCLES 1000000
/* 0.5 s of guest time. The kernel's part of a kill is some 10^5 cycles,
 * but with the boot CPU's 1000 Hz tick QEMU's round-robin (-icount) lets
 * the other spinner keep the host thread for up to two of its 100 ms
 * kick periods before the victim's CPU runs (docs/SMP.md). Without the
 * kill's IPI the victim never dies at all. */
#define KILL_BOUND 500000000
#define LINES 200

/* The cycle counter and the CPU index the kernel keeps in TSC_AUX. */
static uint64_t rdtscp(unsigned *cpu)
{
	uint32_t lo, hi, aux;

	__asm__ volatile("rdtscp" : "=a"(lo), "=d"(hi), "=c"(aux));
	*cpu = aux;
	return (uint64_t)hi << 32 | lo;
}

/* "spin WFD": says on which CPU it is, then spins in ring 3 for ever. */
static int spin(int wfd)
{
	unsigned cpu;

	rdtscp(&cpu);
	if (write(wfd, &cpu, sizeof(cpu)) != sizeof(cpu))
		return 3;
	for (;;)
		__asm__ volatile("" ::: "memory");
}

/* A spinner; its pid, the read end of its pipe in *rfd, its CPU in *cpu. */
static int start_spinner(int *rfd, unsigned *cpu)
{
	int fds[2];
	char w[16];

	if (pipe(fds) != 0)
		return -1;
	snprintf(w, sizeof(w), "%d", fds[1]);
	char *argv[] = { SELF, "spin", w, NULL };
	int pid = spawn(SELF, argv);
	unsigned here;
	uint64_t until = rdtscp(&here) + START_CYCLES;
	while (rdtscp(&here) < until)
		;	/* busy: the child starts on another CPU */
	close(fds[1]);
	*rfd = fds[0];
	if (pid > 0 && read(fds[0], cpu, sizeof(*cpu)) != sizeof(*cpu))
		*cpu = ~0u;
	return pid;
}

static int kill_wait(int pid, int rfd)
{
	int status = 0;

	CHECK_EQ(kill(pid, SIGKILL), 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	close(rfd);
	return status;
}

/* Two victims, one on each CPU but this one's (3 CPUs): at least one of
 * them is on an AP, where only the kill's IPI reaches it. */
static void test_kill(void)
{
	int rfd[2] = { -1, -1 }, pid[2];
	unsigned victim_cpu[2] = { ~0u, ~0u }, cpu;

	for (int i = 0; i < 2; i++) {
		pid[i] = start_spinner(&rfd[i], &victim_cpu[i]);
		CHECK(pid[i] > 0);
	}
	rdtscp(&cpu);
	CHECK(victim_cpu[0] != victim_cpu[1] && victim_cpu[0] != cpu &&
	      victim_cpu[1] != cpu && victim_cpu[0] < 3 && victim_cpu[1] < 3);
	/* The AP's first: a ring-3 spinner that never enters the kernel
	 * keeps QEMU's round-robin turn (-icount) up to its 100 ms kick
	 * period, which would delay the other kill (docs/SMP.md). */
	for (int k = 0; k < 2; k++) {
		int i = victim_cpu[0] > victim_cpu[1] ? k : 1 - k;
		uint64_t t0 = rdtscp(&cpu);
		int status = kill_wait(pid[i], rfd[i]);
		uint64_t dt = rdtscp(&cpu) - t0;
		CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL);
		printf("t-smp: kill of pid %d on cpu %u landed in %llu cycles\n",
		       pid[i], victim_cpu[i], (unsigned long long)dt);
		CHECK(dt < KILL_BOUND);
	}
}

/* "line NAME": LINES lines, each one write(). */
static int lines(const char *name)
{
	char buf[128];

	for (int i = 0; i < LINES; i++) {
		int n = snprintf(buf, sizeof(buf),
				 "t-smp line %s %03d abcdefghijklmnopqrstuvwxyz"
				 "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789 end\n", name, i);
		if (write(1, buf, (size_t)n) != n)
			return 1;
	}
	return 0;
}

static void test_print(void)
{
	char *a[] = { SELF, "line", "A", NULL }, *b[] = { SELF, "line", "B", NULL };
	int status_a = -1, status_b = -1;
	int pid_a = spawn(SELF, a), pid_b = spawn(SELF, b);

	CHECK(pid_a > 0 && pid_b > 0);
	CHECK_EQ(waitpid(pid_a, &status_a, 0), pid_a);
	CHECK_EQ(waitpid(pid_b, &status_b, 0), pid_b);
	CHECK(WIFEXITED(status_a) && WEXITSTATUS(status_a) == 0);
	CHECK(WIFEXITED(status_b) && WEXITSTATUS(status_b) == 0);
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "spin") == 0)
		return spin(atoi(argv[2]));
	if (argc == 3 && strcmp(argv[1], "line") == 0)
		return lines(argv[2]);
	check_begin(argv[0]);
	for (int i = 1; i < argc; i++) {
		if (strcmp(argv[i], "kill") == 0)
			test_kill();
		else if (strcmp(argv[i], "print") == 0)
			test_print();
		else
			CHECK(!"known test");
	}
	return check_exit();
}
