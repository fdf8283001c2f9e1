/*
 * Checks for the in-guest test programs. A failed check prints a "# "
 * diagnostic (TAP comment) with the values involved and is counted;
 * check_exit() makes the exit status: 0 iff every check passed, which is
 * what /bin/utest reports as ok / not ok.
 */
#ifndef CHECK_H
#define CHECK_H

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <stitch.h>
#include <sys/wait.h>

static int check_count, check_failed;
static char check_prog[32] = "test";

/* Copies the name: some tests scribble on the top of their own stack. */
static inline void check_begin(const char *prog)
{
	const char *slash = strrchr(prog, '/');

	snprintf(check_prog, sizeof(check_prog), "%s", slash ? slash + 1 : prog);
	setvbuf(stdout, NULL, _IOLBF, 0);	/* diagnostics in order with the children's */
}

static inline void check_report(int ok, int line, const char *what, long got,
				long want, int err)
{
	check_count++;
	if (ok)
		return;
	check_failed++;
	printf("# %s:%d: %s: got %ld (errno %d), want %ld\n", check_prog, line,
	       what, got, err, want);
}

/* A condition. */
#define CHECK(cond) check_report(!!(cond), __LINE__, #cond, 0, 1, errno)

/* a == b, printing both when they differ. */
#define CHECK_EQ(a, b)                                                       \
	do {                                                                 \
		long got_ = (long)(a), want_ = (long)(b);                    \
		check_report(got_ == want_, __LINE__, #a " == " #b, got_,    \
			     want_, errno);                                  \
	} while (0)

/* A libc-style call that must fail with -1 and errno == e. */
#define CHECK_ERRNO(call, e)                                                 \
	do {                                                                 \
		errno = 0;                                                   \
		long got_ = (long)(call);                                    \
		int err_ = errno;                                            \
		check_report(got_ == -1 && err_ == (e), __LINE__,            \
			     #call " fails with " #e, got_, -(e), err_);     \
	} while (0)

/* A raw stitch_syscall() that must return -e. */
#define CHECK_RAW_ERR(call, e)                                               \
	do {                                                                 \
		long got_ = (call);                                          \
		check_report(got_ == -(e), __LINE__, #call " == -" #e,       \
			     got_, -(e), 0);                                 \
	} while (0)

/* Run argv[0] with argv to completion: its pid (status in *status) or -1. */
static inline int spawn_wait(char *const argv[], int *status)
{
	int pid = spawn(argv[0], argv);

	if (pid < 0)
		return -1;
	return waitpid(pid, status, 0) == pid ? pid : -1;
}

static inline int check_exit(void)
{
	if (check_failed)
		printf("# %s: %d of %d checks failed\n", check_prog, check_failed,
		       check_count);
	return check_failed ? 1 : 0;
}

#endif
