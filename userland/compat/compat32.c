/*
 * /bin/compat32: an i386 program with no libc (gcc -m32 -ffreestanding
 * -nostdlib), for the kernel's compat path (docs/PROCESSES.md, "32-bit
 * programs"). With no argument it checks system calls through int $0x80
 * and prints "compat32: N checks, F failed", exiting with 0 iff none
 * failed; its other modes (argv[1]) are for /bin/t-compat, the 64-bit
 * parent that spawns it:
 *   exit N       exits with status N
 *   syscall      runs SYSCALL in compatibility mode (the kernel ends it)
 *   sysenter     runs SYSENTER (a #GP: the kernel ends it)
 *   spawn64      spawns /bin/t-compat exit 9, exits 0 iff its status is 9
 *   exec64       execs /bin/t-compat exit 5
 *   spin N       N rounds of arithmetic, for the sampler
 */
#include <stddef.h>
#include <stdint.h>
#include "stitch/elf.h"
#include "stitch/syscall.h"
#include "lib32.h"
#include "stitch/signal.h"

long far64_write(uint32_t buf_lo, uint32_t buf_hi, uint32_t len);
void syscall_in_compat(void);
void sysenter_in_compat(void);
void compat_main(uint32_t *sp);
/* ld's: this program's ELF header (mapped with the first segment), the
 * end of its text. */
extern const struct elf32_ehdr __ehdr_start;
extern const char etext[];

#define SYS(nr, ...) sys6_(SYS_##nr, __VA_ARGS__ + 0, 0, 0, 0, 0, 0, 0)
#define sys6_(nr, a, b, c, d, e, f, ...) sys6(nr, (long)(a), (long)(b), (long)(c), \
					     (long)(d), (long)(e), (long)(f))

static int checks, failed;

static void check_eq(long got, long want, int line, const char *what)
{
	checks++;
	if (got == want)
		return;
	failed++;
	put("# compat32:");
	put_num(line);
	put(": ");
	put(what);
	put(": got ");
	put_num(got);
	put(", want ");
	put_num(want);
	put("\n");
}
#define CHECK_EQ(got, want) check_eq((long)(got), (long)(want), __LINE__, #got)
#define CHECK(cond) check_eq(!!(cond), 1, __LINE__, #cond)

static void exit_with(int status)
{
	SYS(exit, status);
	for (;;)
		;
}

/* Bytes out, and pointers checked as 32-bit ones: a range that reaches
 * past 4 GiB is -EFAULT however it is passed. */
static void check_io(void)
{
	static const char hello[] = "compat32: hello from i386\n";
	CHECK_EQ(SYS(write, 1, hello, sizeof(hello) - 1), sizeof(hello) - 1);
	CHECK_EQ(SYS(write, 1, 0xfffffff0u, 0x20), -STITCH_EFAULT);
	CHECK_EQ(SYS(pipe, 0xfffffffcu), -STITCH_EFAULT);
	/* Far to the 64-bit code segment and back: allowed, and the 64-bit
	 * SYSCALL there still checks pointers against 4 GiB. */
	static const char wide[] = "compat32: hello from 64-bit mode\n";
	CHECK_EQ(far64_write((uint32_t)wide, 0, sizeof(wide) - 1), sizeof(wide) - 1);
	CHECK_EQ(far64_write(0x1000, 1, 4), -STITCH_EFAULT);
	CHECK_EQ(far64_write(0xfffffff0u, 0, 0x20), -STITCH_EFAULT);
	/* Signed arguments are sign-extended: fd -1, offset -4. */
	CHECK_EQ(SYS(close, -1), -STITCH_EBADF);
	long fd = SYS(open, "/bin/compat32", STITCH_O_RDONLY);
	CHECK(fd >= 0);
	char magic[5] = { 0 };
	CHECK_EQ(SYS(read, fd, magic, 5), 5);
	CHECK(magic[0] == 0x7f && magic[1] == 'E' && magic[4] == 1 /* ELFCLASS32 */);
	CHECK_EQ(SYS(lseek, fd, -4, 1 /* SEEK_CUR */), 1);
	CHECK_EQ(SYS(read, fd, 0xfffffffeu, 4), -STITCH_EFAULT);
	CHECK_EQ(SYS(close, fd), 0);
	struct stitch_stat st = { 0 };
	CHECK_EQ(SYS(fstat, 1, &st), 0);
	CHECK_EQ(st.mode & 0170000, 0020000); /* S_IFCHR: the console */
}

/* Memory: everything below 4 GiB. */
static void check_memory(void)
{
	long brk = SYS(sbrk, 8192);
	CHECK(brk > (long)(uintptr_t)etext && (unsigned long)brk < 0x80000000u);
	*(volatile uint32_t *)brk = 0x12345678;
	CHECK_EQ(SYS(sbrk, -8192), brk + 8192);
	CHECK_EQ(SYS(sbrk, 0), brk);
	/* Near the top of 4 GiB: negative as a long. As on i386 Linux, only
	 * -4095 .. -1 are errors. */
	unsigned long m = SYS(mmap, 0, 3 * 4096, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	CHECK(m > 0x80000000u && m < 0xf0000000u && m % 4096 == 0);
	if (m < -4095ul) {
		((volatile char *)m)[3 * 4096 - 1] = 1;
		CHECK_EQ(SYS(munmap, m, 3 * 4096), 0);
	}
	/* The stack is below 4 GiB too, with the last page unmapped. */
	uint32_t here = (uint32_t)(uintptr_t)&m;
	CHECK(here > 0xffe00000u && here < 0xfffff000u);
	CHECK_EQ(SYS(write, 1, 0xfffff000u, 1), -STITCH_EFAULT);
}

/* What a compat process cannot do: handlers, threads (-ENOSYS). */
static void check_refused(void)
{
	struct stitch_sigaction sa = { 0 };
	CHECK_EQ(SYS(sigaction, 14, &sa, 0), -STITCH_ENOSYS);
	CHECK_EQ(SYS(sigreturn, 0), -STITCH_ENOSYS);
	CHECK_EQ(SYS(thread_spawn, 0x1000, 0x2000, 0), -STITCH_ENOSYS);
	CHECK_EQ(SYS(futex, STITCH_FUTEX_WAKE, &sa.flags, 1, 0), -STITCH_ENOSYS);
	CHECK_EQ(SYS(gettid, 0), SYS(getpid, 0));
}

/* This program's program header of type `type` holding addr (any, for
 * 0), or NULL. */
static const struct elf32_phdr *phdr(uint32_t type, uint32_t addr)
{
	const struct elf32_phdr *p = (const void *)((const char *)&__ehdr_start +
						    __ehdr_start.phoff);
	for (int i = 0; i < __ehdr_start.phnum; i++)
		if (p[i].type == type && (!addr || (addr >= p[i].vaddr &&
						    addr - p[i].vaddr < p[i].memsz)))
			return &p[i];
	return NULL;
}

/* The loader registered PT_GNU_EH_FRAME as for 64-bit programs: adding
 * it again is refused as overlapping; removed (once: a second removal
 * finds none), it can be added again, through all six argument
 * registers. */
static void check_eh_frame(void)
{
	const struct elf32_phdr *eh = phdr(PT_GNU_EH_FRAME, 0);
	const struct elf32_phdr *text = phdr(PT_LOAD, (uint32_t)(uintptr_t)compat_main);
	CHECK(eh && text);
	if (!eh || !text)
		return;
	const struct elf32_phdr *seg = phdr(PT_LOAD, eh->vaddr);
	CHECK(seg != NULL);
	if (!seg)
		return;
	long add[6] = { STACKTRACE_EH_FRAME_ADD, eh->vaddr, eh->memsz, text->vaddr,
			text->memsz, seg->vaddr + seg->memsz };
	CHECK_EQ(sys6(SYS_stacktrace_setup, add[0], add[1], add[2], add[3], add[4], add[5]),
		 -STITCH_EEXIST);
	CHECK_EQ(sys6(SYS_stacktrace_setup, STACKTRACE_EH_FRAME_REMOVE, 0, 0, text->vaddr, 0, 0), 0);
	CHECK_EQ(sys6(SYS_stacktrace_setup, STACKTRACE_EH_FRAME_REMOVE, 0, 0, text->vaddr, 0, 0),
		 -STITCH_EINVAL);
	CHECK_EQ(sys6(SYS_stacktrace_setup, add[0], add[1], add[2], add[3], add[4], add[5]), 0);
	/* SFrame defines no i386 ABI: no section is taken, whatever it holds. */
	CHECK_EQ(sys6(SYS_stacktrace_setup, STACKTRACE_SFRAME_ADD, eh->vaddr, eh->memsz,
		      text->vaddr, text->memsz, 0), -STITCH_ENOEXEC);
}

static void check_proc(char **argv)
{
	CHECK(SYS(getpid, 0) > 1);
	CHECK(SYS(getppid, 0) >= 1);
	struct stitch_timeval tv = { -1, -1 };
	CHECK_EQ(SYS(gettimeofday, &tv), 0);
	CHECK(tv.sec >= 0 && tv.usec >= 0 && tv.usec < 1000000);
	CHECK(same(argv[0], "/bin/compat32"));
	/* A 32-bit child of a 32-bit parent: argv as 4-byte pointers. */
	char *child[] = { "/bin/compat32", "exit", "33", NULL };
	long pid = SYS(spawn, child[0], child);
	CHECK(pid > 0);
	int status = -1;
	CHECK_EQ(SYS(wait, pid, &status), pid);
	CHECK_EQ(status, 33 << 8);
	CHECK_EQ(SYS(spawn, child[0], 0xfffffffcu), -STITCH_EFAULT);
}

static int spin(long rounds)
{
	volatile uint32_t x = 1;
	for (long i = 0; i < rounds; i++)
		x = x * 1103515245u + 12345u;
	return x == 0;
}

void compat_main(uint32_t *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)(sp + 1);
	CHECK(argv[argc] == NULL && argv[argc + 1] == NULL); /* envp: empty */
	const char *mode = argc > 1 ? argv[1] : "";
	if (same(mode, "exit") && argc > 2)
		exit_with((int)parse(argv[2]));
	if (same(mode, "syscall") || same(mode, "sysenter")) {
		if (mode[3] == 'c')
			syscall_in_compat();
		else
			sysenter_in_compat();
		exit_with(0); /* not reached */
	}
	if (same(mode, "spawn64") || same(mode, "exec64")) {
		char *child[] = { "/bin/t-compat", "exit", mode[1] == 'p' ? "9" : "5", NULL };
		if (mode[1] == 'x')
			SYS(exec, child[0], child);
		long pid = SYS(spawn, child[0], child);
		int status = -1;
		exit_with(pid > 0 && SYS(wait, pid, &status) == pid && status == 9 << 8 ? 0 : 1);
	}
	if (same(mode, "spin") && argc > 2)
		exit_with(spin(parse(argv[2])));
	check_io();
	check_memory();
	check_refused();
	check_eh_frame();
	check_proc(argv);
	put("compat32: ");
	put_num(checks);
	put(" checks, ");
	put_num(failed);
	put(" failed\n");
	exit_with(failed != 0);
}
