/*
 * t-compat: a 64-bit program and its 32-bit (compat) children
 * (docs/PROCESSES.md, "32-bit programs"): /bin/compat32 spawned, waited
 * for and its status read, in each of its modes:
 *   - its own checks of int $0x80 system calls pass (status 0);
 *   - its exit status comes back whole (7);
 *   - SYSCALL in compatibility mode ends it with SIGILL, SYSENTER with
 *     SIGSEGV, the kernel alive;
 *   - it spawns a 64-bit child and reads its status (9); it execs a
 *     64-bit program, whose status comes back (5); a 64-bit child execs
 *     it (6);
 *   - damaged ELF32 files are refused with ENOEXEC (truncated, a segment
 *     reaching past 2 GiB, the wrong machine); one with a PT_GNU_SFRAME
 *     runs (the section refused: no SFrame ABI for i386);
 *   - "spin N": it runs N rounds, for a sampled boot.
 * and a 64-bit program may use int $0x80 too, with the i386 convention.
 * "t-compat exit N" exits with N; "t-compat exec32" execs compat32.
 */
#include <signal.h>
#include <unistd.h>
#include "check.h"
#include "stitch/syscall.h"

#define C32 "/bin/compat32"

/* argv[0]'s status, run to completion; -1 if it could not be. */
static int run(char *const argv[])
{
	int status = -1;
	return spawn_wait(argv, &status) < 0 ? -1 : status;
}

static void check_exits(const char *spin)
{
	char *checks[] = { C32, NULL };
	CHECK_EQ(run(checks), 0);
	char *seven[] = { C32, "exit", "7", NULL };
	int status = run(seven);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 7);
	char *sys[] = { C32, "syscall", NULL };
	status = run(sys);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGILL);
	char *sysenter[] = { C32, "sysenter", NULL };
	status = run(sysenter);
	CHECK(WIFSIGNALED(status) && WTERMSIG(status) == SIGSEGV);
	char *spawn64[] = { C32, "spawn64", NULL };
	CHECK_EQ(run(spawn64), 0);
	char *exec64[] = { C32, "exec64", NULL };
	status = run(exec64);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 5);
	char *exec32[] = { "/bin/t-compat", "exec32", NULL };
	status = run(exec32);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 6);
	char *spinner[] = { C32, "spin", (char *)spin, NULL };
	CHECK_EQ(run(spinner), 0);
}

static void check_loader(void)
{
	static const char *const bad[] = {
		"/data/compat32-truncated", "/data/compat32-high", "/data/compat32-machine",
	};
	for (unsigned i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char *argv[] = { (char *)bad[i], NULL };
		CHECK_ERRNO(spawn(argv[0], argv), ENOEXEC);
	}
	char *sframe[] = { "/data/compat32-sframe", "exit", "0", NULL };
	CHECK_EQ(run(sframe), 0);
}

/* int $0x80 from 64-bit code: getpid, and a write whose fd comes in ebx
 * with garbage in the upper half of rbx (only ebx counts). */
static void check_int80(void)
{
	long pid;
	__asm__ volatile("int $0x80" : "=a"(pid) : "a"(SYS_getpid) : "memory");
	CHECK_EQ(pid, getpid());
	static const char msg[] = "t-compat: int $0x80 from 64-bit code\n";
	long n;
	__asm__ volatile("int $0x80"
			 : "=a"(n)
			 : "a"(SYS_write), "b"(0xdead000000000001ul), "c"(msg), "d"(sizeof(msg) - 1)
			 : "memory");
	CHECK_EQ(n, sizeof(msg) - 1);
}

int main(int argc, char **argv)
{
	check_begin(argv[0]);
	if (argc == 3 && strcmp(argv[1], "exit") == 0)
		return atoi(argv[2]);
	if (argc == 2 && strcmp(argv[1], "exec32") == 0) {
		char *six[] = { C32, "exit", "6", NULL };
		execv(six[0], six);
		return 1;
	}
	check_exits(argc > 1 ? argv[1] : "1000");
	check_loader();
	check_int80();
	printf("t-compat: %d checks, %d failed\n", check_count, check_failed);
	return check_exit();
}
