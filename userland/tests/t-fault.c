/*
 * t-fault MODE: a child that does something fatal must be killed with the
 * signal-like status of docs/USERLAND.md, and the kernel must carry on.
 * The parent spawns "t-fault child MODE", waits, and checks WTERMSIG.
 */
#include <stdint.h>
#include <stdlib.h>
#include <unistd.h>
#include "check.h"

#define SELF "/bin/t-fault"
#define SIGILL 4
#define SIGTRAP 5
#define SIGABRT 6
#define SIGFPE 8
#define SIGSEGV 11

typedef void (*fn)(void);

/* A bound the compiler cannot see through: recursion "could" end. */
static volatile long overflow_limit = 1L << 40;

/* Recursion with a 4 KiB frame that is really written, until the guard page. */
__attribute__((noipa)) static long overflow_stack(long depth)
{
	volatile char frame[4096];

	if (depth == overflow_limit)
		return 0;
	frame[0] = (char)depth;
	frame[sizeof(frame) - 1] = (char)depth;
	return overflow_stack(depth + 1) + frame[0];
}

__attribute__((noipa)) static void jump_to(uintptr_t addr)
{
	((fn)addr)();
}

static void fault_ro_text(void)
{
	*(volatile unsigned char *)(uintptr_t)&jump_to = 0xc3;
}

static void fault_ro_mmap(void)
{
	volatile char *p = stitch_mmap(NULL, 4096, STITCH_PROT_READ, -1, 0);

	if (p != STITCH_MAP_FAILED)
		*p = 1;
}

static void fault_unmapped(void)
{
	volatile char *p = stitch_mmap(NULL, 4096, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);

	if (p == STITCH_MAP_FAILED || stitch_munmap((void *)p, 4096) != 0)
		return;
	*p = 1;	/* after munmap */
}

static void fault_exec_data(void)
{
	static unsigned char ret_insn[] = { 0xc3 };	/* data: not executable */

	jump_to((uintptr_t)ret_insn);
}

/* Both operands volatile: gcc turns 1 / x into compares, not a divide. */
static void fault_div0(void)
{
	volatile int zero = 0, seven = 7;
	volatile int x = seven / zero;

	(void)x;
}

struct mode {
	const char *name;
	int sig;
	void (*act)(void);
};

static void null_write(void) { *(volatile int *)0 = 1; }
static void kernel_read(void) { (void)*(volatile long *)0xffffffff80000000UL; }
static void kernel_jump(void) { jump_to(0xffffffff80000000UL); }
static void noncanon_read(void) { (void)*(volatile long *)0x8000000000000000UL; }
static void stack_overflow(void) { overflow_stack(0); }
/* abort() under 12 frames of its own: newlib's abort raises SIGABRT, a
 * kill() of itself, so the kill report's stack is a deep one. */
static volatile int abort_depth;
__attribute__((noipa)) static int abort_deep(int n)
{
	if (n <= 0) {
		if (n == 0)
			abort();
		return 0;
	}
	int r = abort_deep(n - 1);
	abort_depth = n;	/* after the call: neither a tail call nor a loop */
	return r + 1;
}
static void do_abort(void) { abort_deep(11); }
static void ud2(void) { __asm__ volatile("ud2"); }
static void cli(void) { __asm__ volatile("cli"); }	/* privileged: #GP */
static void int3(void) { __asm__ volatile("int3"); }	/* #BP: SIGTRAP */

static const struct mode modes[] = {
	{ "null-write", SIGSEGV, null_write },
	{ "kernel-read", SIGSEGV, kernel_read },
	{ "kernel-jump", SIGSEGV, kernel_jump },
	{ "noncanonical-read", SIGSEGV, noncanon_read },
	{ "ro-text-write", SIGSEGV, fault_ro_text },
	{ "ro-mmap-write", SIGSEGV, fault_ro_mmap },
	{ "after-munmap", SIGSEGV, fault_unmapped },
	{ "exec-data", SIGSEGV, fault_exec_data },
	{ "stack-overflow", SIGSEGV, stack_overflow },
	{ "privileged", SIGSEGV, cli },
	{ "ud2", SIGILL, ud2 },
	{ "div0", SIGFPE, fault_div0 },
	{ "int3", SIGTRAP, int3 },
	{ "abort", SIGABRT, do_abort },
};
#define NMODES (int)(sizeof(modes) / sizeof(modes[0]))

static const struct mode *find_mode(const char *name)
{
	for (int i = 0; i < NMODES; i++)
		if (strcmp(modes[i].name, name) == 0)
			return &modes[i];
	return NULL;
}

int main(int argc, char **argv)
{
	const struct mode *m = argc > 2 ? find_mode(argv[2]) : NULL;
	int status = -1, pid;

	if (argc == 3 && strcmp(argv[1], "child") == 0) {
		if (!m)
			return 100;
		m->act();
		return 99;	/* survived: the parent reports it */
	}
	check_begin(argv[0]);
	m = argc == 2 ? find_mode(argv[1]) : NULL;
	if (!m) {
		printf("# usage: t-fault MODE (one of:");
		for (int i = 0; i < NMODES; i++)
			printf(" %s", modes[i].name);
		printf(")\n");
		return 2;
	}
	char *child_argv[] = { SELF, "child", (char *)m->name, NULL };
	pid = spawn_wait(child_argv, &status);
	CHECK(pid > 0);
	CHECK(WIFSIGNALED(status));
	CHECK_EQ(WTERMSIG(status), m->sig);
	printf("# t-fault: %s: pid %d status %#x (want signal %d)\n", m->name, pid,
	       status, m->sig);
	return check_exit();
}
