/*
 * t-spawnlimit: spawn children that wait on a pipe until spawn fails. The
 * limit must show as EAGAIN (process table) or ENOMEM (memory), the kernel
 * must survive it, every child must then run to completion, and spawning
 * must work again once they are reaped.
 */
#include <unistd.h>
#include "check.h"

#define SELF "/bin/t-spawnlimit"
#define MAX_TRIES 4096

/* "child RFD WFD": hold nothing but the read end, block until EOF. */
static int child(char **argv)
{
	char c;

	close(atoi(argv[3]));
	return read(atoi(argv[2]), &c, 1) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	int fds[2], n = 0, failed = 0, err = 0, ok = 0, status, pid;
	char r[16], w[16];

	if (argc == 4 && strcmp(argv[1], "child") == 0)
		return child(argv);
	if (argc == 2 && strcmp(argv[1], "exit") == 0)
		return 0;
	check_begin(argv[0]);
	CHECK_EQ(pipe(fds), 0);
	snprintf(r, sizeof(r), "%d", fds[0]);
	snprintf(w, sizeof(w), "%d", fds[1]);
	char *child_argv[] = { SELF, "child", r, w, NULL };
	while (n < MAX_TRIES) {
		pid = spawn(SELF, child_argv);
		if (pid < 0) {
			failed = 1;
			err = errno;
			break;
		}
		n++;
	}
	printf("# t-spawnlimit: %d children before the limit (errno %d)\n", n, err);
	CHECK(failed);
	CHECK(err == EAGAIN || err == ENOMEM);
	CHECK(n >= 8);
	close(fds[1]);	/* end of file for every child */
	close(fds[0]);
	for (int i = 0; i < n; i++) {
		pid = wait(&status);
		if (pid > 0 && status == 0)
			ok++;
	}
	CHECK_EQ(ok, n);
	CHECK_ERRNO(wait(&status), ECHILD);
	char *exit_argv[] = { SELF, "exit", NULL };	/* room again */
	CHECK(spawn_wait(exit_argv, &status) > 0);
	CHECK_EQ(status, 0);
	return check_exit();
}
