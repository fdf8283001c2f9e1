/*
 * /bin/utest: the in-guest test runner (boot with init=/bin/utest). Runs
 * each test program in turn, prints TAP on stdout ("1..N", then "ok N -
 * name" or "not ok N - name"; the programs print "# " details themselves)
 * and exits 0 iff all passed. test/t/31-user-guest.t reads this TAP off the
 * serial console.
 *
 * With arguments, runs only the tests whose names start with one of them
 * (init.args=t-io,t-fault: the kernel splits init.args at commas).
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <stitch.h>
#include <sys/wait.h>

struct test {
	const char *name;
	char *argv[4];
};

#define FAULT(mode) { "t-fault " mode, { "/bin/t-fault", mode, NULL } }

static const struct test tests[] = {
	{ "t-io", { "/bin/t-io", NULL } },
	{ "t-mem", { "/bin/t-mem", NULL } },
	{ "t-proc", { "/bin/t-proc", NULL } },
	{ "t-exec", { "/bin/t-exec", NULL } },
	{ "t-signal", { "/bin/t-signal", NULL } },
	{ "t-time", { "/bin/t-time", NULL } },
	{ "t-pipe", { "/bin/t-pipe", NULL } },
	{ "t-sched", { "/bin/t-sched", NULL } },
	{ "t-badptr", { "/bin/t-badptr", NULL } },
	FAULT("null-write"),
	FAULT("kernel-read"),
	FAULT("kernel-jump"),
	FAULT("noncanonical-read"),
	FAULT("ro-text-write"),
	FAULT("ro-mmap-write"),
	FAULT("after-munmap"),
	FAULT("exec-data"),
	FAULT("stack-overflow"),
	FAULT("privileged"),
	FAULT("ud2"),
	FAULT("div0"),
	FAULT("abort"),
	{ "t-spawnlimit", { "/bin/t-spawnlimit", NULL } },
};
#define NTESTS (int)(sizeof(tests) / sizeof(tests[0]))

static int selected(const struct test *t, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strncmp(t->name, argv[i], strlen(argv[i])) == 0)
			return 1;
	return 0;
}

/* Run one test program to completion; 1 iff it exited 0. */
static int run(const struct test *t)
{
	int status, pid = spawn(t->argv[0], (char *const *)t->argv);

	if (pid < 0) {
		printf("# %s: spawn failed (errno %d)\n", t->name, errno);
		return 0;
	}
	if (waitpid(pid, &status, 0) != pid) {
		printf("# %s: wait failed (errno %d)\n", t->name, errno);
		return 0;
	}
	if (WIFSIGNALED(status))
		printf("# %s: killed by signal %d\n", t->name, WTERMSIG(status));
	else if (WEXITSTATUS(status) != 0)
		printf("# %s: exit status %d\n", t->name, WEXITSTATUS(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

int main(int argc, char **argv)
{
	int n = 0, passed = 0;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (int i = 0; i < NTESTS; i++)
		n += selected(&tests[i], argc, argv);
	printf("1..%d\n", n);
	for (int i = 0, k = 0; i < NTESTS; i++) {
		if (!selected(&tests[i], argc, argv))
			continue;
		int ok = run(&tests[i]);

		passed += ok;
		printf("%sok %d - %s\n", ok ? "" : "not ", ++k, tests[i].name);
	}
	printf("# utest: %d of %d passed\n", passed, n);
	return passed == n ? 0 : 1;
}
