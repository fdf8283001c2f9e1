/*
 * t-exec: exec replaces the program of the calling process.
 *
 *   - a failed exec (no such file, no ELF, a bad path or argv pointer)
 *     returns -1 with errno and leaves the caller as it was;
 *   - a child that execs keeps its pid, its parent and its descriptors
 *     (a pipe), and the new program gets exactly the argv it was given;
 *   - a chain of EXEC_CHAIN execs in one process ends with the status the
 *     last one exits with (the kernel's leak check at shutdown covers
 *     every address space the chain left behind).
 *
 * "t-exec target <pid> <ppid> <fd> ..." is the program a child execs into.
 */
#include <fcntl.h>
#include <unistd.h>
#include "check.h"

#define SELF "/bin/t-exec"
#define EXEC_CHAIN 40

/* The exec'd program: checks what it inherited, reports through the pipe
 * and its exit status. */
static int target(int argc, char **argv)
{
	if (argc != 7 || strcmp(argv[0], SELF) != 0 || strcmp(argv[5], "x y") != 0 ||
	    argv[6][0] != '\0' || argv[7] != NULL)
		return 10;
	if (getpid() != atoi(argv[2]) || getppid() != atoi(argv[3]))
		return 11;
	if (write(atoi(argv[4]), "exec", 4) != 4)
		return 12;
	return 0;
}

/* "t-exec chain N": execs itself with N - 1 until 0, which exits 33. */
static int chain(int n)
{
	if (n == 0)
		return 33;
	char next[16];
	snprintf(next, sizeof(next), "%d", n - 1);
	char *argv[] = { SELF, "chain", next, NULL };
	execv(SELF, argv);
	return 20; /* exec failed */
}

/* The child side of the inheritance check: exec into target. */
static int exec_child(const char *fd)
{
	char pid[16], ppid[16];
	snprintf(pid, sizeof(pid), "%d", getpid());
	snprintf(ppid, sizeof(ppid), "%d", getppid());
	char *argv[] = { SELF, "target", pid, ppid, (char *)fd, "x y", "", NULL };
	execv(SELF, argv);
	return 21;
}

int main(int argc, char **argv)
{
	check_begin(argv[0]);
	if (argc > 1 && strcmp(argv[1], "target") == 0)
		return target(argc, argv);
	if (argc > 2 && strcmp(argv[1], "chain") == 0)
		return chain(atoi(argv[2]));
	if (argc > 2 && strcmp(argv[1], "child") == 0)
		return exec_child(argv[2]);

	/* Failures return, and the caller goes on as it was. */
	volatile int canary = 1234;
	char *none[] = { "/bin/no-such", NULL };
	CHECK_ERRNO(execv("/bin/no-such", none), ENOENT);
	char *text[] = { "/data/hello.txt", NULL };
	CHECK_ERRNO(execv("/data/hello.txt", text), ENOEXEC);
	/* Through a volatile, or gcc sees the bad pointers and refuses. */
	volatile uintptr_t bad = 8;
	CHECK_ERRNO(execv((const char *)bad, none), EFAULT);
	CHECK_ERRNO(execv(SELF, (char *const *)bad), EFAULT);
	CHECK_EQ(canary, 1234);

	/* A child execs: same pid and parent, the pipe still open. */
	int fds[2];
	CHECK_EQ(pipe(fds), 0);
	char fd[16];
	snprintf(fd, sizeof(fd), "%d", fds[1]);
	char *child[] = { SELF, "child", fd, NULL };
	int status = -1;
	int pid = spawn(SELF, child);
	CHECK(pid > 0);
	char buf[8] = "";
	close(fds[1]);
	CHECK_EQ(read(fds[0], buf, sizeof(buf)), 4);
	CHECK(memcmp(buf, "exec", 4) == 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 0);
	close(fds[0]);

	/* A chain of execs in one process. */
	char n[16];
	snprintf(n, sizeof(n), "%d", EXEC_CHAIN);
	char *chain_argv[] = { SELF, "chain", n, NULL };
	status = -1;
	CHECK(spawn_wait(chain_argv, &status) > 0);
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 33);
	return check_exit();
}
