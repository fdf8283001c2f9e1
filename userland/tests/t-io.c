/*
 * t-io: the file calls on initrd files and the console: open, read,
 * lseek, fstat, isatty, close, write, and newlib's stdio on top of them.
 */
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>
#include "check.h"

#define HELLO "/data/hello.txt"
static const char hello_text[] = "Stitch initrd test file.\nSecond line: 0123456789\n";
#define HELLO_LEN ((long)sizeof(hello_text) - 1)

static void test_read_whole_file(void)
{
	char buf[256];
	struct stat st;
	int fd = open(HELLO, O_RDONLY);

	CHECK(fd >= 3);	/* 0, 1, 2 are the console */
	CHECK_EQ(fstat(fd, &st), 0);
	CHECK_EQ(st.st_size, HELLO_LEN);
	CHECK(S_ISREG(st.st_mode));
	CHECK_EQ(read(fd, buf, sizeof(buf)), HELLO_LEN);
	CHECK(memcmp(buf, hello_text, HELLO_LEN) == 0);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 0);	/* end of file */
	CHECK_EQ(read(fd, buf, 0), 0);
	CHECK_EQ(close(fd), 0);
	CHECK_ERRNO(close(fd), EBADF);
	CHECK_ERRNO(read(fd, buf, 1), EBADF);
	CHECK_EQ(stat(HELLO, &st), 0);	/* the glue's stat, by open + fstat */
	CHECK_EQ(st.st_size, HELLO_LEN);
	CHECK_ERRNO(stat("/data/no-such-file", &st), ENOENT);
}

static void test_lseek(void)
{
	char buf[16] = { 0 };
	int fd = open(HELLO, O_RDONLY);

	CHECK_EQ(lseek(fd, 7, SEEK_SET), 7);
	CHECK_EQ(read(fd, buf, 6), 6);
	CHECK(memcmp(buf, "initrd", 6) == 0);
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), 13);
	CHECK_EQ(lseek(fd, 2, SEEK_CUR), 15);
	CHECK_EQ(lseek(fd, -3, SEEK_END), HELLO_LEN - 3);
	CHECK_EQ(read(fd, buf, 16), 3);
	CHECK(memcmp(buf, "89\n", 3) == 0);
	CHECK_EQ(lseek(fd, 1000, SEEK_SET), 1000);	/* past the end is allowed */
	CHECK_EQ(read(fd, buf, 16), 0);
	CHECK_ERRNO(lseek(fd, -1, SEEK_SET), EINVAL);
	CHECK_ERRNO(lseek(fd, 0, 42), EINVAL);
	CHECK_ERRNO(lseek(1, 0, SEEK_SET), ESPIPE);	/* the console */
	close(fd);
}

static void test_console(void)
{
	static const char line[] = "# t-io: a line written with write(1)\n";
	struct stat st;
	int fd = open(HELLO, O_RDONLY);

	CHECK_EQ(write(1, line, sizeof(line) - 1), (long)sizeof(line) - 1);
	CHECK_EQ(write(2, line, 0), 0);
	CHECK_EQ(isatty(1), 1);
	CHECK_EQ(isatty(fd), 0);
	CHECK_EQ(isatty(99), 0);
	CHECK_EQ(fstat(1, &st), 0);
	CHECK(S_ISCHR(st.st_mode));
	CHECK_ERRNO(write(fd, "x", 1), EBADF);	/* initrd files are read-only */
	CHECK_ERRNO(write(99, "x", 1), EBADF);
	CHECK_ERRNO(write(-1, "x", 1), EBADF);
	close(fd);
}

static void test_open_errors(void)
{
	char longname[400];

	CHECK_ERRNO(open("/data/no-such-file", O_RDONLY), ENOENT);
	CHECK_ERRNO(open("", O_RDONLY), ENOENT);
	memset(longname, 'a', sizeof(longname) - 1);
	longname[0] = '/';
	longname[sizeof(longname) - 1] = '\0';
	CHECK_ERRNO(open(longname, O_RDONLY), ENAMETOOLONG);
	CHECK_ERRNO(open(HELLO, O_WRONLY), EROFS);	/* refused by the glue */
}

/* Descriptors are a bounded table: EMFILE, then every slot reusable. */
static void test_fd_limit(void)
{
	int fds[1024], n = 0, fd;

	while (n < 1024 && (fd = open(HELLO, O_RDONLY)) >= 0)
		fds[n++] = fd;
	CHECK(n < 1024);
	CHECK_EQ(errno, EMFILE);
	CHECK(n >= 8);
	for (int i = 0; i < n; i++)
		CHECK_EQ(close(fds[i]), 0);
	fd = open(HELLO, O_RDONLY);
	CHECK(fd >= 3);
	close(fd);
}

static void test_big_file(void)
{
	static char buf[1 << 20];
	struct stat st;
	int fd = open("/data/blob", O_RDONLY);

	CHECK_EQ(fstat(fd, &st), 0);
	CHECK_EQ(st.st_size, 4194304);
	CHECK_EQ(read(fd, buf, sizeof(buf)), (long)sizeof(buf));	/* one large read */
	CHECK_EQ(lseek(fd, 0, SEEK_CUR), (long)sizeof(buf));
	CHECK_EQ(lseek(fd, -100, SEEK_END), st.st_size - 100);
	CHECK_EQ(read(fd, buf, sizeof(buf)), 100);
	close(fd);
}

static void test_stdio(void)
{
	char line[128];
	FILE *f = fopen(HELLO, "r");

	CHECK(f != NULL);
	if (!f)
		return;
	CHECK(fgets(line, sizeof(line), f) != NULL);
	CHECK(strcmp(line, "Stitch initrd test file.\n") == 0);
	CHECK(fgets(line, sizeof(line), f) != NULL);
	CHECK(strcmp(line, "Second line: 0123456789\n") == 0);
	CHECK(fgets(line, sizeof(line), f) == NULL);
	CHECK(feof(f));
	CHECK_EQ(fclose(f), 0);
	CHECK(fopen(HELLO, "w") == NULL);
}

int main(int argc, char **argv)
{
	(void)argc;
	check_begin(argv[0]);
	test_read_whole_file();
	test_lseek();
	test_console();
	test_open_errors();
	test_fd_limit();
	test_big_file();
	test_stdio();
	return check_exit();
}
