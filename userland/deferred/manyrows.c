/*
 * manyrows: a valid SFrame section whose one function has a million rows
 * costs only its own process (test/t/55-deferred-budget.t).
 *
 *   manyrows spin   builds the function and its section in memory: NROWS
 *                   bytes of nop, then a loop (SPIN_LOOP) that spins until
 *                   the process is killed, and a version 1 section with one
 *                   FDE whose NROWS rows start at every byte of the nops
 *                   (each "CFA = rsp + 8, RA at CFA - 8": valid, in order,
 *                   inside the function). It registers the section with
 *                   SYS_stacktrace_setup and calls the function. Every
 *                   lookup for a sample in the loop must read all the rows
 *                   before the last, more than an unwind's budget. (Built
 *                   at run time: ld 2.40 needs many minutes to link a
 *                   million CFI rows.)
 *   manyrows spin-fdes [unsorted]
 *                   the same with a million functions instead (test 91):
 *                   NFDES FDEs of one row each, function i one nop at
 *                   code + i, the last one the nop before the loop; with
 *                   `unsorted`, FDEs 1000 and 1001 swapped (the section
 *                   still says sorted). Its FDE index would take 32 MB.
 *   manyrows [fdes|unsorted]
 *                   (init) sleeps SLEEPS times SLEEP_MS ms alone, measuring
 *                   each sleep (gettimeofday), spawns `manyrows spin` (with
 *                   fdes or unsorted: `manyrows spin-fdes [unsorted]`),
 *                   sleeps as many times again while it spins, kills the
 *                   spinner and waits for it.
 *
 * Prints "manyrows: code at A size S" (the spinner), "manyrows: alone|spinning
 * sleeps=N max_ms=M mean_ms=A", "manyrows: spinner pid P status S" (its wait
 * status); exits 0 when every call succeeded.
 */
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>
#include <stitch.h>

#define NROWS 1000000u
#define NFDES 1000000u
#define FDE_SIZE 17 /* version 1 */
#define ROW_SIZE 6  /* 4-byte start, info, one 1-byte word */
#define SLEEPS 20
#define SLEEP_MS 10
/* 1: nop; nop; jmp 1b. Not pause: QEMU's TCG leaves its translated code
 * at every pause (target/i386/tcg/misc_helper.c, helper_pause: "Just let
 * another CPU run"), which made the spinner's 200 ms of guest time (a
 * nanosecond an instruction under -icount) minutes of host time. */
#define SPIN_LOOP "\x90\x90\xeb\xfc"

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/* The section for a function of size bytes at code, written at sec. */
static uint32_t build(uint8_t *sec, const uint8_t *code, uint32_t size)
{
	uint32_t fres = 28 + 17;
	memset(sec, 0, fres);
	sec[0] = 0xe2, sec[1] = 0xde, sec[2] = 1; /* magic, version 1 */
	sec[3] = 0x1;                             /* FDEs sorted */
	sec[4] = 3;                               /* AMD64 */
	sec[6] = (uint8_t)-8;                     /* RA at CFA - 8 */
	put32(sec + 8, 1);
	put32(sec + 12, NROWS);
	put32(sec + 16, NROWS * ROW_SIZE);
	put32(sec + 20, 0);
	put32(sec + 24, 17);
	uint8_t *fde = sec + 28;
	put32(fde, (uint32_t)(int32_t)((intptr_t)code - (intptr_t)sec));
	put32(fde + 4, size);
	put32(fde + 8, 0);
	put32(fde + 12, NROWS);
	fde[16] = 2; /* 4-byte row starts, PC-relative rows */
	for (uint32_t i = 0; i < NROWS; i++) {
		uint8_t *r = sec + fres + ROW_SIZE * i;
		put32(r, i);
		r[4] = 0x03; /* sp-based, one 1-byte word */
		r[5] = 8;
	}
	return fres + NROWS * ROW_SIZE;
}

/* The section of NFDES one-byte functions from code, written at sec:
 * one row each ("CFA = rsp + 8, RA at CFA - 8", as at a function's
 * entry), the last function also covering the 4-byte loop after it. */
static uint32_t build_fdes(uint8_t *sec, const uint8_t *code, bool unsorted)
{
	uint32_t fdes = 28, fres = fdes + FDE_SIZE * NFDES;
	memset(sec, 0, fres);
	sec[0] = 0xe2, sec[1] = 0xde, sec[2] = 1; /* magic, version 1 */
	sec[3] = 0x1;                             /* FDEs sorted */
	sec[4] = 3;                               /* AMD64 */
	sec[6] = (uint8_t)-8;                     /* RA at CFA - 8 */
	put32(sec + 8, NFDES);
	put32(sec + 12, NFDES);
	put32(sec + 16, NFDES * ROW_SIZE);
	put32(sec + 20, 0);
	put32(sec + 24, FDE_SIZE * NFDES);
	for (uint32_t i = 0; i < NFDES; i++) {
		uint8_t *fde = sec + fdes + FDE_SIZE * i, *r = sec + fres + ROW_SIZE * i;
		uint32_t at = unsorted && (i == 1000 || i == 1001) ? 2001 - i : i;
		put32(fde, (uint32_t)(int32_t)((intptr_t)code + at - (intptr_t)sec));
		put32(fde + 4, i + 1 < NFDES ? 1 : 5);
		put32(fde + 8, ROW_SIZE * i);
		put32(fde + 12, 1);
		fde[16] = 2; /* 4-byte row starts, PC-relative rows */
		put32(r, 0);
		r[4] = 0x03; /* sp-based, one 1-byte word */
		r[5] = 8;
	}
	return fres + NFDES * ROW_SIZE;
}

static int spin_fdes(bool unsorted)
{
	uint32_t size = NFDES + 4, len = 28 + NFDES * (FDE_SIZE + ROW_SIZE);
	uint8_t *code = stitch_mmap(NULL, size, STITCH_PROT_READ | STITCH_PROT_WRITE |
				    STITCH_PROT_EXEC, -1, 0);
	uint8_t *sec = stitch_mmap(NULL, len, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	if (code == STITCH_MAP_FAILED || sec == STITCH_MAP_FAILED)
		return 1;
	memset(code, 0x90, NFDES);                       /* nop */
	memcpy(code + NFDES, SPIN_LOOP, 4);
	if (stacktrace_setup(STACKTRACE_SFRAME_ADD, sec, build_fdes(sec, code, unsorted), code,
			     size) != 0)
		return 1;
	printf("manyrows: code at %p size %u\n", (void *)code, size);
	((void (*)(void))(code + NFDES - 1))();
	return 1; /* never: the loop does not return */
}

static int spin(void)
{
	uint32_t size = NROWS + 4;
	uint8_t *code = stitch_mmap(NULL, size, STITCH_PROT_READ | STITCH_PROT_WRITE |
				    STITCH_PROT_EXEC, -1, 0);
	uint8_t *sec = stitch_mmap(NULL, 28 + 17 + NROWS * ROW_SIZE,
				   STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	if (code == STITCH_MAP_FAILED || sec == STITCH_MAP_FAILED)
		return 1;
	memset(code, 0x90, NROWS);                       /* nop */
	memcpy(code + NROWS, SPIN_LOOP, 4);
	uint32_t len = build(sec, code, size);
	if (stacktrace_setup(STACKTRACE_SFRAME_ADD, sec, len, code, size) != 0)
		return 1;
	printf("manyrows: code at %p size %u\n", (void *)code, size);
	((void (*)(void))code)();
	return 1; /* never: the loop does not return */
}

static double now_ms(void)
{
	struct timeval tv;
	gettimeofday(&tv, NULL);
	return tv.tv_sec * 1000.0 + tv.tv_usec / 1000.0;
}

/* SLEEPS sleeps of SLEEP_MS: the longest and the mean, printed as `what`. */
static void sleeps(const char *what)
{
	double max = 0, sum = 0;
	for (int i = 0; i < SLEEPS; i++) {
		double t0 = now_ms();
		usleep(SLEEP_MS * 1000);
		double d = now_ms() - t0;
		sum += d;
		if (d > max)
			max = d;
	}
	printf("manyrows: %s sleeps=%d max_ms=%.3f mean_ms=%.3f\n", what, SLEEPS, max,
	       sum / SLEEPS);
}

int main(int argc, char **argv)
{
	if (argc > 1 && strcmp(argv[1], "spin") == 0)
		return spin();
	if (argc > 1 && strcmp(argv[1], "spin-fdes") == 0)
		return spin_fdes(argc > 2 && strcmp(argv[2], "unsorted") == 0);
	sleeps("alone");
	bool fdes = argc > 1 && (strcmp(argv[1], "fdes") == 0 || strcmp(argv[1], "unsorted") == 0);
	char *args[] = { "/bin/manyrows", fdes ? "spin-fdes" : "spin",
			 fdes && strcmp(argv[1], "unsorted") == 0 ? "unsorted" : NULL, NULL };
	int pid = spawn("/bin/manyrows", args);
	if (pid < 0) {
		printf("manyrows: spawn failed\n");
		return 1;
	}
	usleep(100 * 1000); /* the spinner builds its section and spins */
	sleeps("spinning");
	int status = 0;
	if (kill(pid, SIGKILL) != 0 || waitpid(pid, &status, 0) != pid) {
		printf("manyrows: kill or wait failed\n");
		return 1;
	}
	printf("manyrows: spinner pid %d status %d\n", pid, status);
	return 0;
}
