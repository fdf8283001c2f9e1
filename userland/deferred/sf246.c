/*
 * sf246 [rounds]: deferred unwinds through SFrame sections that GNU
 * binutils 2.46 wrote (test/sframe/binutils-2.46, test/t/54-deferred-sframe246.t). Debian's ld
 * 2.40 drops version 3 .sframe input, so the two objects come in as C arrays
 * (stitch-mkobj: their .text, .sframe as stored, .rela.sframe) and this
 * program loads them itself, as a loader would: each object's code into
 * pages of its own at a fixed address, its .sframe into memory with the
 * relocations applied for where the code now is, registered with
 * stacktrace_setup. Then:
 *
 *   flexible-drap-O2.o  drap(): a flexible FDE. It realigns its stack with
 *                       r10 as the argument pointer (DRAP); in its body the
 *                       CFA is loaded from fp-8. sf246_run calls it rounds
 *                       times, under the NMI sampler, with pauses of
 *                       pseudo-random length between the calls.
 *   signal-frame.o      fake_sigreturn(): a signal-frame FDE whose code is
 *                       `mov $15,%eax; syscall; hlt`: SYS_times, then a
 *                       privileged instruction. A child ("sf246 sig")
 *                       calls it with a struct tms pointer; the hlt kills
 *                       it (SIGSEGV), which the parent checks.
 *
 * Prints "sf246: drap=ADDR+LEN sigtramp=ADDR+LEN", then "sf246: ok".
 */
#include <errno.h>
#include <stdint.h>
#include <string.h>
#include <sys/times.h>
#include <sys/wait.h>
#include <stitch.h>
#include "../workloads/workload.h"

/* Within 2 GiB of everything, in free mmap space; drap's code at the
 * first page, fake_sigreturn's at the next: two registrations. */
#define SF246_CODE 0x50000000UL
#define SF246_PAGE 4096
#define R_X86_64_PC64 24
#define R_X86_64_PC32 2
#define SIGSEGV 11

/* What stitch-mkobj emits for an object named p (mk/deferred.mk). */
#define OBJECT(p)                                                        \
	extern const unsigned char p##_text[], p##_sframe[];              \
	extern const unsigned long p##_text_len, p##_sframe_len, p##_nrela; \
	extern const long long p##_rela[][3];                             \
	static const struct object p = { #p, p##_text, &p##_text_len,    \
		p##_sframe, &p##_sframe_len, p##_rela, &p##_nrela }

struct object {
	const char *name;
	const unsigned char *text;
	const unsigned long *text_len;
	const unsigned char *sframe;
	const unsigned long *sframe_len;
	const long long (*rela)[3]; /* offset in .sframe, type, S + A */
	const unsigned long *nrela;
};

OBJECT(drap);
OBJECT(sigtramp);
extern const unsigned long drap_sym_drap, sigtramp_sym_fake_sigreturn;

typedef long (*drap_fn)(long, long, long, long, long, long, long, long);
typedef void (*sigtramp_fn)(struct tms *);

/* The loaded sections: read by the kernel at every unwind through them. */
static unsigned char drap_section[512] __attribute__((aligned(8)));
static unsigned char sigtramp_section[512] __attribute__((aligned(8)));

static int fail(const char *what)
{
	printf("sf246: %s: %s\n", what, strerror(errno));
	return -1;
}

/* Each relocation is PC-relative: S + A - P, S + A being an offset in the
 * object's .text, now at text; P the field's address. */
static int relocate(const struct object *o, unsigned char *sec, uint64_t text)
{
	for (unsigned long i = 0; i < *o->nrela; i++) {
		uint64_t off = (uint64_t)o->rela[i][0];
		long long type = o->rela[i][1];
		uint64_t v = text + (uint64_t)o->rela[i][2] - ((uint64_t)(uintptr_t)sec + off);
		size_t width = type == R_X86_64_PC64 ? 8 : type == R_X86_64_PC32 ? 4 : 0;
		if (!width || off > *o->sframe_len || width > *o->sframe_len - off ||
		    (width == 4 && (int64_t)v != (int32_t)v)) {
			errno = ENOEXEC;
			return -1;
		}
		memcpy(sec + off, &v, width); /* little-endian */
	}
	return 0;
}

/* The object's code at text, its section in sec, registered. */
static int load(const struct object *o, uint64_t text, unsigned char *sec, size_t cap)
{
	if (*o->sframe_len > cap || *o->text_len > SF246_PAGE) {
		errno = E2BIG;
		return fail(o->name);
	}
	memcpy((void *)text, o->text, *o->text_len);
	memcpy(sec, o->sframe, *o->sframe_len);
	if (relocate(o, sec, text))
		return fail(o->name);
	if (stacktrace_setup(STACKTRACE_SFRAME_ADD, sec, *o->sframe_len,
			     (void *)text, *o->text_len))
		return fail("stacktrace_setup");
	return 0;
}

static int map_code(void)
{
	void *at = stitch_mmap((void *)SF246_CODE, 2 * SF246_PAGE, STITCH_PROT_READ |
			       STITCH_PROT_WRITE | STITCH_PROT_EXEC, -1, 0);
	return at == (void *)SF246_CODE ? 0 : fail("mmap at SF246_CODE");
}

FRAME static long sf246_run(drap_fn f, long rounds)
{
	long x = 0;
	uint32_t seed = 1;
	for (long r = 0; r < rounds; r++) {
		x += f(r, 1, 2, 3, 4, 5, r >> 3, x & 7);
		/* A pause of 0 to 7 steps, pseudo-random: under -icount the NMIs
		 * come every so many instructions, and rounds all of one length
		 * would put them on the same few instructions of drap round
		 * after round (which of them depending on the kernel's own cost
		 * per sample), never on some rows. */
		seed = seed * 1103515245u + 12345u;
		for (volatile unsigned i = seed >> 29; i; i--)
			;
	}
	return x;
}

/* The child: the signal trampoline's syscall, then its hlt. */
static int sig_child(void)
{
	struct tms t;
	if (map_code() || load(&sigtramp, SF246_CODE + SF246_PAGE, sigtramp_section,
			       sizeof sigtramp_section))
		return 1;
	((sigtramp_fn)(SF246_CODE + SF246_PAGE + sigtramp_sym_fake_sigreturn))(&t);
	printf("sf246: fake_sigreturn returned\n");
	return 1;
}

int main(int argc, char **argv)
{
	if (argc > 1 && !strcmp(argv[1], "sig"))
		return sig_child();
	long rounds = arg_long(argc, argv, 1, 400000, 1, 1000000000);
	if (map_code() || load(&drap, SF246_CODE, drap_section, sizeof drap_section))
		return 1;
	printf("sf246: drap=0x%lx+%lu sigtramp=0x%lx+%lu\n", SF246_CODE + drap_sym_drap,
	       *drap.text_len, SF246_CODE + SF246_PAGE + sigtramp_sym_fake_sigreturn,
	       *sigtramp.text_len);
	long x = sf246_run((drap_fn)(SF246_CODE + drap_sym_drap), rounds);

	char *child_argv[] = { "/bin/sf246", "sig", NULL };
	int status, pid = spawn("/bin/sf246", child_argv);
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return fail("sf246 sig");
	if (!WIFSIGNALED(status) || WTERMSIG(status) != SIGSEGV) {
		printf("sf246: the child's status is %#x, not SIGSEGV\n", status);
		return 1;
	}
	printf("sf246: rounds=%ld result=%ld\nsf246: ok\n", rounds, x);
	return 0;
}
