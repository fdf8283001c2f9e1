/*
 * h-sys CASE: system calls with arguments no honest program passes. Bad
 * pointers to every call are /bin/t-badptr's job (run by /bin/hostile as
 * case "badptr"); these are the other arguments: numbers outside the
 * table, lengths that wrap or leave the user range, exhausted tables and
 * limits, and the AC flag (which opens SMAP) set around system calls.
 * Every call must fail with its documented errno and the process live on.
 */
#include <fcntl.h>
#include <limits.h>
#include "hostile.h"

/* Numbers around and far outside the table, negative ones included: the
 * dispatcher and anything that indexes by number (the tracer) must
 * bounds-check a signed value. */
static int bad_numbers(void)
{
	static const long nrs[] = { -1, -2, SYS_COUNT, SYS_COUNT + 1, 0, 255, 1L << 31,
				    (1L << 31) - 1, -(1L << 31), LONG_MAX, LONG_MIN };
	for (unsigned i = 0; i < sizeof nrs / sizeof nrs[0]; i++)
		EXPECT_ERR(sys(nrs[i], 0, 0, 0, 0, 0), ENOSYS);
	return 0;
}

/* Good pointers with lengths that run out of the user range or wrap. */
static int huge_lengths(void)
{
	/* Test 80 looks for this on the console: a write that fails must
	 * not have printed our memory first. */
	static char buf[64] = "HOSTILE-LEAK-MARKER";
	long b = (long)buf;
	int fd = open("/data/hello.txt", O_RDONLY);
	EXPECT(fd >= 0, "open: %d", errno);
	EXPECT_ERR(sys(SYS_write, 1, b, LONG_MAX, 0, 0), EFAULT);
	EXPECT_ERR(sys(SYS_write, 1, b, -1, 0, 0), EFAULT);
	EXPECT_ERR(sys(SYS_read, fd, b, 1L << 62, 0, 0), EFAULT);
	EXPECT_ERR(sys(SYS_read, fd, b, -64, 0, 0), EFAULT);
	EXPECT_ERR(sys(SYS_mmap, 0, -1, STITCH_PROT_READ, -1, 0), ENOMEM);
	EXPECT_ERR(sys(SYS_mmap, 0, 1L << 46, STITCH_PROT_READ, -1, 0), ENOMEM);
	EXPECT_ERR(sys(SYS_mmap, 0, PAGE, STITCH_PROT_READ, fd, -4096), EINVAL);
	EXPECT_ERR(sys(SYS_munmap, 0x400000, PAGE, 0, 0, 0), EINVAL);      /* the program */
	EXPECT_ERR(sys(SYS_munmap, STITCH_USER_TOP - PAGE, PAGE, 0, 0, 0), EINVAL); /* stack */
	EXPECT_ERR(sys(SYS_munmap, KERNEL_TEXT, PAGE, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_munmap, PAGE, -PAGE, 0, 0, 0), EINVAL);         /* wraps */
	EXPECT_ERR(sys(SYS_lseek, fd, LONG_MIN, 0, 0, 0), EINVAL);
	EXPECT(lseek(fd, 10, SEEK_SET) == 10, "lseek");
	EXPECT_ERR(sys(SYS_lseek, fd, LONG_MAX, SEEK_CUR, 0, 0), EINVAL);  /* overflows */
	EXPECT_ERR(sys(SYS_sbrk, LONG_MAX, 0, 0, 0, 0), ENOMEM);
	EXPECT_ERR(sys(SYS_sbrk, LONG_MIN, 0, 0, 0, 0), ENOMEM);
	EXPECT(write(1, "", 0) == 0, "write of 0 bytes");
	close(fd);
	return 0;
}

/* Signals and pids outside their ranges; the idle task and init are
 * no one's to kill. */
static int kill_abuse(void)
{
	EXPECT_ERR(sys(SYS_kill, 0, 9, 0, 0, 0), ESRCH);   /* the idle task */
	EXPECT_ERR(sys(SYS_kill, -1, 9, 0, 0, 0), ESRCH);  /* not "everyone" */
	EXPECT_ERR(sys(SYS_kill, INT_MIN, 9, 0, 0, 0), ESRCH);
	EXPECT_ERR(sys(SYS_kill, 1L << 40, 9, 0, 0, 0), ESRCH);
	EXPECT_ERR(sys(SYS_kill, getpid(), 0, 0, 0, 0), 0);   /* signal 0: "are you there" */
	EXPECT_ERR(sys(SYS_kill, getpid(), 32, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_kill, getpid(), -9, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_wait, 1, 0, 0, 0, 0), ECHILD);  /* init is not our child */
	EXPECT_ERR(sys(SYS_wait, getpid(), 0, 0, 0, 0), ECHILD);
	EXPECT_ERR(sys(SYS_wait, INT_MIN, 0, 0, 0, 0), ECHILD);
	return 0;
}

/* Every descriptor taken, by files and by pipes; then all given back. */
static int fd_exhaust(void)
{
	int fds[2], n = 0, last = -1;
	while (n < 1000 && (last = open("/data/hello.txt", O_RDONLY)) >= 0)
		n++;
	EXPECT(last < 0 && errno == EMFILE, "open %d times, then errno %d", n, errno);
	EXPECT_ERR(sys(SYS_pipe, (long)fds, 0, 0, 0, 0), EMFILE);
	for (int fd = 3; fd < 3 + n; fd++)
		close(fd);
	EXPECT(pipe(fds) == 0, "pipe after closing: errno %d", errno);
	int p = 0;
	while (p < 1000 && pipe(fds) == 0)
		p++;
	EXPECT(errno == EMFILE, "%d pipes, then errno %d", p, errno);
	for (int fd = 3; fd < 1024; fd++)
		close(fd);
	EXPECT((last = open("/data/hello.txt", O_RDONLY)) == 3, "fd %d after closing all", last);
	printf("# fd-exhaust: %d files, %d pipes\n", n, p + 1);
	return 0;
}

/* spawn at and past its limits: argument count, argument bytes, path
 * length, argv running into unmapped memory, files that are not programs. */
static int spawn_limits(void)
{
	static char big[20000];
	static char *many[70];
	char *argv[] = { "/bin/h-sys", big, NULL };
	memset(big, 'a', sizeof big - 1);
	for (int i = 0; i < 69; i++)
		many[i] = "/bin/h-sys";
	EXPECT_ERR(sys(SYS_spawn, (long)"/bin/h-sys", (long)many, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_spawn, (long)"/bin/h-sys", (long)argv, 0, 0, 0), ENAMETOOLONG);
	big[300] = '\0';
	EXPECT_ERR(sys(SYS_spawn, (long)big, (long)argv, 0, 0, 0), ENAMETOOLONG);
	char *none[] = { NULL };
	EXPECT_ERR(sys(SYS_spawn, (long)"/data/hello.txt", (long)none, 0, 0, 0), ENOEXEC);
	EXPECT_ERR(sys(SYS_spawn, (long)"/bin", (long)none, 0, 0, 0), ENOENT);
	EXPECT_ERR(sys(SYS_spawn, (long)"", (long)none, 0, 0, 0), ENOENT);

	/* argv whose NULL would lie in an unmapped page. */
	char **page = stitch_mmap(NULL, 2 * PAGE, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	EXPECT(page != STITCH_MAP_FAILED, "mmap");
	EXPECT(stitch_munmap((char *)page + PAGE, PAGE) == 0, "munmap");
	for (unsigned i = 0; i < PAGE / sizeof(char *); i++)
		page[i] = "x";
	EXPECT_ERR(sys(SYS_spawn, (long)"/bin/h-sys", (long)page, 0, 0, 0), EINVAL);
	char **tail = (char **)((char *)page + PAGE) - 3;
	EXPECT_ERR(sys(SYS_spawn, (long)"/bin/h-sys", (long)tail, 0, 0, 0), EFAULT);
	return 0;
}

/* RFLAGS.AC set by ring 3 opens SMAP if the kernel keeps it: each entry
 * must close it (SYSCALL's mask, clac in the trap entry), so kernel
 * addresses still fail, and the flag comes back to us unchanged. */
static int ac_flag(void)
{
	uint64_t flags;
	__asm__ volatile("pushfq; orq $0x40000, (%%rsp); popfq" ::: "memory");
	EXPECT_ERR(sys(SYS_write, 1, KERNEL_TEXT, 16, 0, 0), EFAULT);
	EXPECT_ERR(sys(SYS_write, 1, KERNEL_DIRECT + 0x100000, 16, 0, 0), EFAULT);
	EXPECT_ERR(sys(SYS_gettimeofday, KERNEL_DIRECT + 0x100000, 0, 0, 0, 0), EFAULT);
	EXPECT_ERR(sys(SYS_open, KERNEL_TEXT, 0, 0, 0, 0), EFAULT);
	/* Interrupts and sampling NMIs arrive while AC is set. */
	for (uint64_t end = tsc_deadline(200); rdtsc() < end;)
		;
	EXPECT_ERR(sys(SYS_read, 0, KERNEL_DIRECT, 16, 0, 0), EFAULT);
	__asm__ volatile("pushfq; popq %0" : "=r"(flags));
	EXPECT(flags & 0x40000, "AC was cleared behind our back (rflags %#lx)", (unsigned long)flags);
	__asm__ volatile("pushfq; andq $~0x40000, (%%rsp); popfq" ::: "memory");
	return 0;
}

static const struct hcase cases[] = {
	{ "bad-numbers", bad_numbers }, { "huge-lengths", huge_lengths },
	{ "kill-abuse", kill_abuse }, { "fd-exhaust", fd_exhaust },
	{ "spawn-limits", spawn_limits }, { "ac-flag", ac_flag },
};
HOSTILE_MAIN(cases)
