/*
 * t-badptr: every system call that takes a pointer, given bad ones: NULL,
 * page 0, kernel addresses, non-canonical addresses, an unmapped user
 * page, and ranges that straddle the end of a mapping and the end of the
 * user range. Each must return -EFAULT and leave the process alive. The
 * calls go through stitch_syscall() so the kernel sees exactly these
 * pointers (the glue would copy some structures through its own stack).
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include "check.h"

#define PAGE 4096
#define SELF "/bin/t-badptr"

struct bad {
	const char *what;
	uintptr_t addr;
};

static struct bad bad[16];
static int nbad;

static void add_bad(const char *what, uintptr_t addr)
{
	bad[nbad].what = what;
	bad[nbad].addr = addr;
	nbad++;
}

/* Two pages, the second unmapped: the hole that "straddles" runs into. */
static char *two;

/*
 * No NUL before either end, so that strings (paths, argv) run off the
 * mapping too. The stack's top page is ours (docs/USERLAND.md); if it
 * were not mapped, this write would kill us and the test would fail.
 * Called again before each round of calls: a transfer that straddles
 * into the hole may have stored its first bytes (docs/USERLAND.md leaves
 * that open), and a stored 0 would end the next string early.
 */
static void fill_before_the_ends(void)
{
	memset(two, 'x', PAGE);
	memset((char *)(STITCH_USER_TOP - 2), 'x', 2);
}

/*
 * The address list. "straddle" pointers sit 2 bytes before the end of a
 * mapping, so that every object of 4 bytes or more crosses into unmapped
 * memory or out of the user range.
 */
static void make_bad_pointers(void)
{
	char *gone;

	two = stitch_mmap(NULL, 2 * PAGE, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	gone = stitch_mmap(NULL, PAGE, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	CHECK(two != STITCH_MAP_FAILED && gone != STITCH_MAP_FAILED);
	CHECK_EQ(stitch_munmap(two + PAGE, PAGE), 0);	/* a hole after one page */
	CHECK_EQ(stitch_munmap(gone, PAGE), 0);
	printf("# t-badptr: writing the 2 bytes below USER_TOP\n");
	fill_before_the_ends();

	add_bad("NULL", 0);
	add_bad("page 0", 0x800);
	add_bad("kernel text", 0xffffffff80000000UL);
	add_bad("kernel direct map", 0xffff800000000000UL);
	add_bad("non-canonical 2^47", 0x0000800000000000UL);
	add_bad("non-canonical 2^63", 0x8000000000000000UL);
	add_bad("unmapped user page", (uintptr_t)gone);
	add_bad("straddles a mapping's end", (uintptr_t)(two + PAGE - 2));
	add_bad("straddles USER_TOP", STITCH_USER_TOP - 2);
	add_bad("wraps around 2^64", UINT64_MAX);
}

#define RAW(nr, a, b, c) stitch_syscall(nr, (long)(a), (long)(b), (long)(c), 0, 0, 0)

/* One report per (call, pointer) pair that did not give -EFAULT. */
#define EXPECT_EFAULT(call_name, expr)                                        \
	do {                                                                  \
		long r_ = (expr);                                             \
		check_report(r_ == -EFAULT, __LINE__, call_name, r_,          \
			     -EFAULT, 0);                                     \
		if (r_ != -EFAULT)                                            \
			printf("#   with the pointer: %s (%#lx)\n", b->what,      \
			       (unsigned long)b->addr);                       \
	} while (0)

static void test_io_calls(int fd, struct bad *b)
{
	EXPECT_EFAULT("write(1, bad, 16)", RAW(SYS_write, 1, b->addr, 16));
	EXPECT_EFAULT("read(file, bad, 16)", RAW(SYS_read, fd, b->addr, 16));
	EXPECT_EFAULT("open(bad)", RAW(SYS_open, b->addr, 0, 0));
	EXPECT_EFAULT("fstat(file, bad)", RAW(SYS_fstat, fd, b->addr, 0));
	EXPECT_EFAULT("pipe(bad)", RAW(SYS_pipe, b->addr, 0, 0));
}

static void test_time_calls(struct bad *b)
{
	EXPECT_EFAULT("gettimeofday(bad)", RAW(SYS_gettimeofday, b->addr, 0, 0));
	EXPECT_EFAULT("times(bad)", RAW(SYS_times, b->addr, 0, 0));
}

static void test_process_calls(struct bad *b)
{
	char *good_argv[] = { SELF, "child", NULL };
	char *bad_argv[] = { SELF, "child", (char *)b->addr, NULL };
	char *exit_argv[] = { SELF, "child", NULL };
	int status = -1;
	int pid;

	EXPECT_EFAULT("spawn(bad, argv)", RAW(SYS_spawn, b->addr, good_argv, 0));
	EXPECT_EFAULT("spawn(path, bad)", RAW(SYS_spawn, SELF, b->addr, 0));
	if (b->addr)	/* NULL there would just end argv */
		EXPECT_EFAULT("spawn(path, {path, \"child\", bad})",
			      RAW(SYS_spawn, SELF, bad_argv, 0));

	/* wait with a bad status pointer fails and leaves the child waitable. */
	pid = spawn(SELF, exit_argv);
	CHECK(pid > 0);
	EXPECT_EFAULT("wait(child, bad)", RAW(SYS_wait, pid, b->addr, 0));
	CHECK_EQ(waitpid(pid, &status, 0), pid);
	CHECK_EQ(status, 0);
}

static void test_sframe_registration(struct bad *b)
{
	/* The tables are read lazily, so only addresses that can never be
	 * user memory are refused at registration. */
	if (b->addr < STITCH_USER_TOP - PAGE)
		return;
	EXPECT_EFAULT("stacktrace_setup(ADD, bad sframe)",
		      stitch_syscall(SYS_stacktrace_setup, STACKTRACE_SFRAME_ADD,
				     (long)b->addr, 64, 0x400000, PAGE, 0));
	EXPECT_EFAULT("stacktrace_setup(ADD, bad text)",
		      stitch_syscall(SYS_stacktrace_setup, STACKTRACE_SFRAME_ADD,
				     0x400000, 64, (long)b->addr, PAGE, 0));
	EXPECT_EFAULT("stacktrace_setup(EH_FRAME_ADD, bad header)",
		      stitch_syscall(SYS_stacktrace_setup, STACKTRACE_EH_FRAME_ADD,
				     (long)b->addr, 64, 0x400000, PAGE, (long)b->addr + PAGE));
}

/* A path whose bytes run into unmapped memory before any NUL. */
static void test_unterminated_string(void)
{
	char *page = stitch_mmap(NULL, 2 * PAGE, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	char *tail;

	CHECK(page != STITCH_MAP_FAILED);
	CHECK_EQ(stitch_munmap(page + PAGE, PAGE), 0);
	tail = page + PAGE - 7;
	memcpy(tail, "/bin/t-", 7);	/* no NUL before the hole */
	char *argv[] = { SELF, tail, NULL };
	CHECK_RAW_ERR(RAW(SYS_open, tail, 0, 0), EFAULT);
	CHECK_RAW_ERR(RAW(SYS_spawn, tail, argv, 0), EFAULT);
	CHECK_RAW_ERR(RAW(SYS_spawn, SELF, argv, 0), EFAULT);
}

int main(int argc, char **argv)
{
	int fd;

	if (argc > 1 && strcmp(argv[1], "child") == 0)
		return 0;
	check_begin(argv[0]);
	make_bad_pointers();
	fd = open("/data/hello.txt", O_RDONLY);
	CHECK(fd >= 0);
	for (int i = 0; i < nbad; i++) {
		fill_before_the_ends();
		test_io_calls(fd, &bad[i]);
		fill_before_the_ends();
		test_time_calls(&bad[i]);
		fill_before_the_ends();
		test_process_calls(&bad[i]);
		test_sframe_registration(&bad[i]);
	}
	test_unterminated_string();
	printf("# t-badptr: %d pointers, %d checks\n", nbad, check_count);
	return check_exit();
}
