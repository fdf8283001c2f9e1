/*
 * h-load N SECONDS: N processes at once for SECONDS of guest time, each a
 * different kind of load for the profiler: deep recursion in ring 3,
 * system calls (many kernel entries, so many cookies), a pipe to itself
 * (sleeps and wakeups), and memory churn (mmap, page faults, munmap).
 * Exits 0 iff every child did. test/t/83-load.t boots it at 20 kHz
 * (`make load`: 32 processes, 60 s) and checks that the stream is whole,
 * every loss counted, and no page leaked.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/time.h>
#include "hostile.h"

static double now(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return tv.tv_sec + tv.tv_usec / 1e6;
}

__attribute__((noipa)) static long load_recurse(int n)
{
	volatile long here = n;
	return n < 2 ? n : load_recurse(n - 1) + load_recurse(n - 2) + (here != n);
}

__attribute__((noipa)) static long load_syscalls(void)
{
	char buf[64];
	int fd = open("/data/hello.txt", O_RDONLY);
	long n = fd >= 0 ? read(fd, buf, sizeof buf) : -1;
	close(fd);
	return n + getpid();
}

__attribute__((noipa)) static long load_pipe(int fds[2])
{
	char buf[512];
	memset(buf, 'p', sizeof buf);
	long n = write(fds[1], buf, sizeof buf);
	return n + read(fds[0], buf, sizeof buf);
}

__attribute__((noipa)) static long load_memory(void)
{
	char *p = stitch_mmap(NULL, 64 * 1024, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	if (p == STITCH_MAP_FAILED)
		return -1;
	for (int off = 0; off < 64 * 1024; off += 4096)
		p[off] = (char)off;
	return stitch_munmap(p, 64 * 1024);
}

static int child(int kind, double secs)
{
	double end = now() + secs;
	int fds[2];
	long sum = 0, rounds = 0;
	if (kind == 2 && pipe(fds) != 0)
		return 1;
	while (now() < end) {
		for (int i = 0; i < 16; i++, rounds++) {
			switch (kind) {
			case 0: sum += load_recurse(18); break;
			case 1: sum += load_syscalls(); break;
			case 2: sum += load_pipe(fds); break;
			default: sum += load_memory(); break;
			}
		}
	}
	return rounds > 0 && sum != -12345 ? 0 : 1;
}

int main(int argc, char **argv)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (argc == 4 && strcmp(argv[1], "child") == 0)
		return child(atoi(argv[2]), atof(argv[3]));
	if (argc != 3) {
		printf("# usage: h-load PROCESSES SECONDS\n");
		return 2;
	}
	int n = atoi(argv[1]), ok = 0, started = 0;
	char *secs = argv[2];
	double t0 = now();
	int *pids = calloc(n, sizeof *pids);
	for (int i = 0; i < n; i++) {
		char kind[8];
		snprintf(kind, sizeof kind, "%d", i % 4);
		char *cargv[] = { "/bin/h-load", "child", kind, secs, NULL };
		pids[i] = spawn(cargv[0], cargv);
		started += pids[i] > 0;
	}
	for (int i = 0; i < n; i++) {
		int status;
		if (pids[i] > 0 && waitpid(pids[i], &status, 0) == pids[i] && status == 0)
			ok++;
	}
	printf("# load: %d processes started, %d exited 0, %.1f s of guest time\n", started, ok,
	       now() - t0);
	return ok == n ? 0 : 1;
}
