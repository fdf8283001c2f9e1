/*
 * t-pipe: pipes within one process (data, end of file, EPIPE, ESPIPE) and
 * between two (a transfer larger than any pipe buffer, a blocking read
 * woken by a writer). The children inherit the pipe through spawn.
 */
#include <sys/time.h>
#include <unistd.h>
#include "check.h"

#define SELF "/bin/t-pipe"
#define BIG (256 * 1024)

static unsigned char pattern_byte(long i)
{
	return (unsigned char)(i * 7 + (i >> 11));
}

/* "child-write RFD WFD BYTES DELAY_US": write the pattern, then exit. */
static int child_write(char **argv)
{
	int rfd = atoi(argv[2]), wfd = atoi(argv[3]);
	long bytes = atol(argv[4]);
	unsigned char buf[4096];

	close(rfd);
	usleep((useconds_t)atol(argv[5]));
	for (long off = 0; off < bytes;) {
		long n = bytes - off < (long)sizeof(buf) ? bytes - off : (long)sizeof(buf);

		for (long i = 0; i < n; i++)
			buf[i] = pattern_byte(off + i);
		n = write(wfd, buf, (size_t)n);
		if (n <= 0)
			return 1;
		off += n;
	}
	return 0;
}

static void test_one_process(void)
{
	int fds[2];
	char buf[16];

	CHECK_EQ(pipe(fds), 0);
	CHECK(fds[0] >= 3 && fds[1] >= 3 && fds[0] != fds[1]);
	CHECK_EQ(write(fds[1], "hello", 5), 5);
	CHECK_EQ(write(fds[1], " pipe", 5), 5);
	CHECK_EQ(read(fds[0], buf, 3), 3);	/* a read takes what it asks for */
	CHECK(memcmp(buf, "hel", 3) == 0);
	CHECK_EQ(read(fds[0], buf, sizeof(buf)), 7);	/* and no more than there is */
	CHECK(memcmp(buf, "lo pipe", 7) == 0);
	CHECK_ERRNO(lseek(fds[0], 0, SEEK_SET), ESPIPE);
	CHECK_EQ(isatty(fds[0]), 0);
	CHECK_ERRNO(read(fds[1], buf, 1), EBADF);	/* wrong ends */
	CHECK_ERRNO(write(fds[0], "x", 1), EBADF);
	CHECK_EQ(write(fds[1], "z", 1), 1);
	CHECK_EQ(close(fds[1]), 0);
	CHECK_EQ(read(fds[0], buf, sizeof(buf)), 1);	/* data before end of file */
	CHECK_EQ(read(fds[0], buf, sizeof(buf)), 0);
	CHECK_EQ(close(fds[0]), 0);

	CHECK_EQ(pipe(fds), 0);
	CHECK_EQ(close(fds[0]), 0);
	CHECK_ERRNO(write(fds[1], "x", 1), EPIPE);	/* nobody can read it */
	CHECK_EQ(close(fds[1]), 0);
}

/* Start child-write on a new pipe; our read end, or -1. */
static int start_writer(long bytes, long delay_us, int *pid)
{
	int fds[2];
	char r[16], w[16], b[24], d[24];

	if (pipe(fds) != 0)
		return -1;
	snprintf(r, sizeof(r), "%d", fds[0]);
	snprintf(w, sizeof(w), "%d", fds[1]);
	snprintf(b, sizeof(b), "%ld", bytes);
	snprintf(d, sizeof(d), "%ld", delay_us);
	char *argv[] = { SELF, "child-write", r, w, b, d, NULL };
	*pid = spawn(SELF, argv);
	close(fds[1]);
	return *pid > 0 ? fds[0] : -1;
}

static void test_two_processes(void)
{
	static unsigned char buf[8192];
	long total = 0, bad = -1, n;
	int status, pid;
	int fd = start_writer(BIG, 0, &pid);

	CHECK(fd >= 0);
	while ((n = read(fd, buf, sizeof(buf))) > 0) {
		for (long i = 0; i < n && bad < 0; i++)
			if (buf[i] != pattern_byte(total + i))
				bad = total + i;
		total += n;
	}
	CHECK_EQ(n, 0);
	CHECK_EQ(total, BIG);
	CHECK_EQ(bad, -1);	/* the offset of the first wrong byte */
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK_EQ(status, 0);
	close(fd);
}

/* A read on an empty pipe sleeps until the writer, 200 ms later, writes. */
static void test_blocking_read(void)
{
	struct timeval t0, t1;
	unsigned char c;
	int status, pid;
	int fd = start_writer(1, 200000, &pid);

	gettimeofday(&t0, NULL);
	CHECK_EQ(read(fd, &c, 1), 1);
	gettimeofday(&t1, NULL);
	CHECK_EQ(c, pattern_byte(0));
	CHECK((t1.tv_sec - t0.tv_sec) * 1000000L + t1.tv_usec - t0.tv_usec >= 150000);
	CHECK_EQ(read(fd, &c, 1), 0);
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK_EQ(status, 0);
	close(fd);
}

int main(int argc, char **argv)
{
	if (argc == 6 && strcmp(argv[1], "child-write") == 0)
		return child_write(argv);
	check_begin(argv[0]);
	test_one_process();
	test_two_processes();
	test_blocking_read();
	return check_exit();
}
