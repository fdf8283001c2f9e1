/*
 * /bin/hostile: the in-guest runner of the adversarial cases (boot with
 * init=/bin/hostile and the profiler on; test/t/80-hostile.t does).
 *
 * Normal workloads run the whole time next to the cases, whose profiles
 * test/t/80-hostile.t checks. Each case is a process, run under a watchdog: a case that
 * outlives its time is reported as a hang. TAP on stdout: "1..N", then for
 * each case a "# case" line and "ok N - NAME (pid P): exit 0"
 * or "... killed by signal S", "not ok ..." when the outcome is not the
 * expected one. Exits 0 iff every case and every workload ended as
 * expected. With arguments: only the cases whose names start with one.
 *
 * Before each case: "# case NAME: expect exit 0: what it does" (or
 * "expect signal S"); test/t/80-hostile.t makes docs/SECURITY-cases.md from these.
 */
#include <stdlib.h>
#include "hostile.h"

#define SELF "/bin/hostile"
#define HANG 3 /* the watchdog's exit status when it had to fire */

struct entry {
	const char *name;
	const char *prog;      /* /bin/h-<family>, run with the name as argument */
	int sig;               /* 0: must exit 0; else the signal that kills it */
	const char *what;
};

#define PRIV(name, what) { name, "/bin/h-priv", SIGSEGV, what }
#define STACK(name, what) { name, "/bin/h-stack", 0, what }
#define SFRAME(name, what) { name, "/bin/h-sframe", 0, what }
#define SIGRET(name, what) { name, "/bin/h-signal", SIGSEGV, what }

static const struct entry cases[] = {
	{ "badptr", "/bin/t-badptr", 0, "bad pointers (NULL, kernel, non-canonical, unmapped, straddling, wrapping) to every system call that takes one" },
	{ "bad-numbers", "/bin/h-sys", 0, "system call numbers outside the table, negative and huge" },
	{ "huge-lengths", "/bin/h-sys", 0, "good pointers with lengths that leave the user range or wrap; mmap/munmap/lseek/sbrk at their limits" },
	{ "kill-abuse", "/bin/h-sys", 0, "kill and wait on the idle task, init, negative and huge pids, bad signals" },
	{ "fd-exhaust", "/bin/h-sys", 0, "every descriptor taken by files, then by pipes" },
	{ "spawn-limits", "/bin/h-sys", 0, "spawn with too many arguments, too many bytes, an over-long path, an argv running into unmapped memory, non-programs" },
	{ "ac-flag", "/bin/h-sys", 0, "RFLAGS.AC (the SMAP override) set across system calls with kernel pointers, interrupts and NMIs" },
	PRIV("cli", "cli"),
	PRIV("sti", "sti"),
	PRIV("hlt", "hlt"),
	PRIV("port-out", "outb to QEMU's exit port 0xf4"),
	PRIV("port-in", "inb from COM1"),
	PRIV("iopl", "popf raising IOPL to 3 (silently kept at 0), then outb"),
	PRIV("cr3-write", "mov to CR3"),
	PRIV("cr0-read", "mov from CR0"),
	PRIV("wrmsr", "wrmsr to LSTAR (the SYSCALL entry)"),
	PRIV("lidt", "lidt of an empty IDT"),
	PRIV("swapgs", "swapgs"),
	PRIV("sysret", "sysretq"),
	PRIV("iret-ring0", "iretq with a ring-0 code segment"),
	PRIV("int-nmi", "int $2 (the NMI vector)"),
	PRIV("int-ipi", "int $0xf1 (the irq-work self-IPI vector)"),
	PRIV("int-timer", "int $0x20 (the PIT tick vector)"),
	{ "int3", "/bin/h-priv", SIGTRAP, "int3 (a breakpoint: its gate is open to ring 3)" },
	PRIV("int-overflow", "int $4 (#OF: its gate is open to ring 3)"),
	{ "into", "/bin/h-priv", SIGILL, "into (no such instruction in 64-bit mode)" },
	PRIV("sgdt", "sgdt (the GDT's kernel address, refused under UMIP)"),
	PRIV("sidt", "sidt (the IDT's kernel address, refused under UMIP)"),
	PRIV("sldt", "sldt (refused under UMIP)"),
	PRIV("str", "str (the TSS selector, refused under UMIP)"),
	PRIV("smsw", "smsw (CR0's low bits, refused under UMIP)"),
	STACK("sp-kernel", "spins with rsp = rbp in kernel text"),
	STACK("sp-direct-map", "spins with rsp = rbp in the kernel's direct map of RAM"),
	STACK("sp-unmapped", "spins with rsp = rbp at an unmapped user address"),
	STACK("sp-noncanonical", "spins with rsp = rbp non-canonical"),
	STACK("sp-top", "spins with rsp = rbp 8 bytes below the end of the user range"),
	STACK("sp-null", "spins with rsp = rbp = 0"),
	STACK("sp-misaligned", "spins with rsp = rbp misaligned on its stack"),
	STACK("fp-self", "frame-pointer frame whose saved rbp points at itself"),
	STACK("fp-cycle", "two frames whose saved rbps point at each other"),
	STACK("fp-upward", "2048 frames, each pointing to the next one up"),
	STACK("fp-kernel", "rbp in the kernel's direct map inside a frame-pointer function"),
	STACK("fp-misaligned", "misaligned frame pointers"),
	STACK("ret-kernel", "a return address in kernel text"),
	STACK("ret-noncanonical", "a non-canonical return address"),
	STACK("deep", "5000-frame recursion, spinning at the bottom"),
	STACK("sig-rsp-below", "a signal frame whose interrupted rsp lies below the frame"),
	STACK("sig-rip-kernel", "a signal frame whose interrupted rip is in the kernel"),
	STACK("sig-loop", "a signal frame that leads back into the frame above it"),
	SFRAME("sframe-registration", "stacktrace_setup with sections or text in the kernel, unmapped, truncated, not SFrame, not 4-byte aligned, a huge FDE count, overlapping text, bad lengths and operations, one section too many"),
	SFRAME("sframe-good", "a correct section registered for a copy of a function mapped elsewhere (the control)"),
	SFRAME("sframe-unsorted", "a section whose FDEs are out of order though flagged sorted"),
	SFRAME("sframe-fre-outside", "a section whose row starts past the end of its function"),
	SFRAME("sframe-huge-count", "a section whose header claims 2^32 - 1 rows"),
	SFRAME("sframe-unmapped", "a correct section unmapped after registration"),
	SFRAME("sframe-rewritten", "a correct section, used, then rewritten: huge function, misaligned CFA, rows outside the section, all 0xff"),
	{ "stack-overflow", "/bin/h-stack", SIGSEGV, "recursion into the guard page below the stack" },
	SIGRET("sigreturn-rip-kernel", "sigreturn to a frame whose rip is in the kernel"),
	SIGRET("sigreturn-rip-noncanonical", "sigreturn to a frame whose rip is non-canonical"),
	SIGRET("sigreturn-rsp-kernel", "sigreturn to a frame whose rsp is in the kernel's direct map"),
	SIGRET("sigreturn-unmapped", "sigreturn with rsp at unmapped memory"),
	SIGRET("sigreturn-in-kernel", "sigreturn with rsp in the kernel's direct map"),
	SIGRET("sigreturn-mxcsr", "sigreturn to an FPU state with reserved MXCSR bits"),
	SIGRET("sigreturn-iopl", "sigreturn to rflags with IOPL 3, then cli"),
	SIGRET("handler-corrupts-frame", "a SA_SIGINFO handler that points its frame's rip into the kernel"),
	SIGRET("signal-stack-unmapped", "a caught signal owed while rsp points at unmapped memory"),
	SIGRET("signal-stack-kernel", "a caught signal owed while rsp points into the kernel's direct map"),
	SIGRET("signal-stack-wraps", "a caught signal owed while rsp is 0x100: the frame would wrap below 0"),
	{ "spawn-storm", "/bin/h-proc", 0, "2000 spawns and reaps, one after the other" },
	{ "spawn-flood", "/bin/h-proc", 0, "children blocked on a pipe until spawn refuses, then all released" },
	{ "die-pending", "/bin/h-proc", 0, "90 children spinning then dying at once (exit, fault, kill) with unwinds owed" },
	{ "thread-exit-storm", "/bin/h-thread", 0, "3000 threads started with the raw call (a full task table waited out), each leaving at its first instruction, none joined" },
	{ "thread-bad-args", "/bin/h-thread", 0, "thread_spawn and futex with kernel, non-canonical, unaligned and unmapped addresses, bad ops and counts" },
	{ "thread-fault", "/bin/h-thread", SIGSEGV, "one of four threads writes to address 0 while three spin: the whole process dies of it" },
};
#define NCASES (int)(sizeof(cases) / sizeof(cases[0]))

/* After the workloads are done: it may starve everyone else of memory. */
static const struct entry last = {
	"oom", "/bin/h-proc", SIGKILL, "1 GiB mappings touched until no frame is left"
};

/* The normal workloads that run next to the cases (test/t/80-hostile.t checks their
 * checksums and profiles). */
static char *const workloads[][4] = {
	{ "/bin/fib", "29", "40", NULL },
	{ "/bin/chain", "96", "40000", NULL },
	{ "/bin/sort", "20000", "30", NULL },
};
#define NWORKLOADS (int)(sizeof(workloads) / sizeof(workloads[0]))

static int watchdog(int pid, int secs)
{
	sleep(secs);
	kill(pid, SIGKILL);
	return HANG;
}

static int selected(const char *name, int argc, char **argv)
{
	if (argc < 2)
		return 1;
	for (int i = 1; i < argc; i++)
		if (strncmp(name, argv[i], strlen(argv[i])) == 0)
			return 1;
	return 0;
}

/* Runs one case under a watchdog; 1 iff its outcome is the expected one. */
static int run(const struct entry *e, int n)
{
	/* /bin/t-badptr (of the in-guest tests) takes no case name. */
	int named = strcmp(e->prog, "/bin/t-badptr") != 0;
	char *argv[] = { (char *)e->prog, named ? (char *)e->name : NULL, NULL };
	if (e->sig)
		printf("# case %s: expect signal %d: %s\n", e->name, e->sig, e->what);
	else
		printf("# case %s: expect exit 0: %s\n", e->name, e->what);
	int pid = spawn(e->prog, argv);
	if (pid < 0) {
		printf("not ok %d - %s: spawn failed (errno %d)\n", n, e->name, errno);
		return 0;
	}
	char spid[16];
	snprintf(spid, sizeof spid, "%d", pid);
	char *wargv[] = { SELF, "watchdog", spid, "120", NULL };
	int wd = spawn(SELF, wargv), status, wstatus;
	int got = waitpid(pid, &status, 0);
	if (wd > 0) {
		kill(wd, SIGKILL);
		waitpid(wd, &wstatus, 0);
	}
	int hang = wd > 0 && WIFEXITED(wstatus) && WEXITSTATUS(wstatus) == HANG;
	int ok = got == pid && !hang &&
		 (e->sig ? WIFSIGNALED(status) && WTERMSIG(status) == e->sig
			 : WIFEXITED(status) && WEXITSTATUS(status) == 0);
	printf("%sok %d - %s (pid %d): ", ok ? "" : "not ", n, e->name, pid);
	if (hang)
		printf("hang: killed by the watchdog\n");
	else if (WIFSIGNALED(status))
		printf("killed by signal %d\n", WTERMSIG(status));
	else
		printf("exit %d\n", WEXITSTATUS(status));
	return ok;
}

int main(int argc, char **argv)
{
	if (argc == 4 && strcmp(argv[1], "watchdog") == 0)
		return watchdog(atoi(argv[2]), atoi(argv[3]));
	setvbuf(stdout, NULL, _IOLBF, 0);

	int n = 0, passed = 0, wpid[NWORKLOADS];
	for (int i = 0; i < NCASES; i++)
		n += selected(cases[i].name, argc, argv);
	n += selected(last.name, argc, argv);
	printf("1..%d\n", n + 1);
	for (int i = 0; i < NWORKLOADS; i++) {
		wpid[i] = spawn(workloads[i][0], workloads[i]);
		printf("# workload %s: pid %d\n", workloads[i][0], wpid[i]);
	}
	int k = 0;
	for (int i = 0; i < NCASES; i++)
		if (selected(cases[i].name, argc, argv))
			passed += run(&cases[i], ++k);

	int wok = 1;
	for (int i = 0; i < NWORKLOADS; i++) {
		int status;
		if (wpid[i] < 0 || waitpid(wpid[i], &status, 0) != wpid[i] || status != 0) {
			printf("# workload %s: did not exit 0\n", workloads[i][0]);
			wok = 0;
		}
	}
	passed += wok;
	printf("%sok %d - the workloads ran next to the cases and exited 0\n", wok ? "" : "not ", ++k);
	if (selected(last.name, argc, argv))
		passed += run(&last, ++k);
	printf("# hostile: %d of %d passed\n", passed, n + 1);
	return passed == n + 1 ? 0 : 1;
}
