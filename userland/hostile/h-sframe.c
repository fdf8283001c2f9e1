/*
 * h-sframe CASE: SFrame registrations (SYS_stacktrace_setup) that lie.
 *
 * The registration cases ask for what must be refused at once: sections or
 * text in the kernel, overlapping text, zero and huge lengths, unknown
 * operations, more sections than a process may have, a header that is not
 * SFrame or not at a 4-byte boundary. The use cases register a section that passes the header check
 * for a copy of spin_plain (this program's own file mapped again with
 * PROT_EXEC, so the copy is code no other section covers), spin there so
 * that samples need it, and break it: FDEs out of order, a row outside its
 * function, a row count that does not add up, the section unmapped or
 * rewritten after the kernel first used it. The kernel must refuse or drop
 * the section (sframe_dropped), end those unwinds with a reason
 * (unwind_stop_*), and keep the process alive: every case exits 0.
 */
#include <fcntl.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <stitch/elf.h>
#include "hostile.h"

#define SPIN_MS 300
#define ADD STACKTRACE_SFRAME_ADD
#define REMOVE STACKTRACE_SFRAME_REMOVE

void spin_plain(uint64_t until_tsc);
extern char spin_plain_end[];

static long setup(long op, uint64_t sf, uint64_t len, uint64_t text, uint64_t tlen)
{
	return sys(SYS_stacktrace_setup, op, (long)sf, (long)len, (long)text, (long)tlen);
}

/* --- building sections (SFrame version 1, AMD64, as binutils 2.40) ------ */

struct fde { uint64_t start; uint32_t size, fre_off, nfres; };

static void put32(uint8_t *p, uint32_t v) { memcpy(p, &v, 4); }

/*
 * Writes at `at` (its run-time address) a section with the given FDEs, each
 * with one row "CFA = rsp + 8, RA at CFA - 8" (3 bytes: start, info, word)
 * starting `row` bytes into its function. Returns the section's length.
 */
static uint32_t build(uint8_t *at, const struct fde *f, int n, uint8_t row, uint32_t nfres)
{
	uint32_t fres = 17 * (uint32_t)n;
	memset(at, 0, 28);
	at[0] = 0xe2, at[1] = 0xde, at[2] = 1;  /* magic, version 1 */
	at[3] = 0x1;                            /* FDEs sorted */
	at[4] = 3;                              /* AMD64 */
	at[6] = (uint8_t)-8;                    /* RA at CFA - 8 */
	put32(at + 8, (uint32_t)n);
	put32(at + 12, nfres);
	put32(at + 16, 3 * (uint32_t)n);
	put32(at + 20, 0);
	put32(at + 24, fres);
	for (int i = 0; i < n; i++) {
		uint8_t *e = at + 28 + 17 * i;
		put32(e, (uint32_t)(int32_t)(f[i].start - (uint64_t)at)); /* from the section */
		put32(e + 4, f[i].size);
		put32(e + 8, 3 * (uint32_t)i);
		put32(e + 12, 1);
		e[16] = 0; /* 1-byte row starts, PC-relative rows */
		uint8_t *r = at + 28 + fres + 3 * i;
		r[0] = row, r[1] = 0x03 /* sp-based, one 1-byte word */, r[2] = 8;
	}
	return 28 + fres + 3 * (uint32_t)n;
}

/* --- the copy of spin_plain ---------------------------------------------- */

static uint64_t copy_start;
static uint32_t copy_size;

/* Maps this program's file again with PROT_EXEC and finds spin_plain in it. */
static int map_copy(void)
{
	int fd = open("/bin/h-sframe", O_RDONLY);
	struct stat st;
	if (fd < 0 || fstat(fd, &st) != 0)
		return -1;
	uint8_t *m = stitch_mmap(NULL, st.st_size, STITCH_PROT_READ | STITCH_PROT_EXEC, fd, 0);
	close(fd);
	if (m == STITCH_MAP_FAILED)
		return -1;
	uint64_t vaddr = 0, off = 0;
	struct elf64_ehdr eh;
	memcpy(&eh, m, sizeof eh);
	for (int i = 0; i < eh.phnum; i++) {
		struct elf64_phdr ph;
		memcpy(&ph, m + eh.phoff + sizeof ph * i, sizeof ph);
		if (ph.type == PT_LOAD && (ph.flags & PF_X)) {
			off = ph.offset;
			vaddr = ph.vaddr;
		}
	}
	copy_start = (uint64_t)m + (uint64_t)spin_plain - vaddr + off;
	copy_size = (uint32_t)(spin_plain_end - (char *)spin_plain);
	return memcmp((void *)copy_start, (void *)spin_plain, copy_size) == 0 ? 0 : -1;
}

static void spin_in_copy(void)
{
	printf("# %s: spinning %d ms in the copy at %#lx\n", hostile_case, SPIN_MS,
	       (unsigned long)copy_start);
	((void (*)(uint64_t))copy_start)(tsc_deadline(SPIN_MS));
}

/* A page of its own for the section, near the copy (v1 starts are 32-bit
 * offsets from the section). */
static uint8_t *section_page(void)
{
	uint8_t *p = stitch_mmap(NULL, PAGE, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	return p == STITCH_MAP_FAILED ? NULL : p;
}

/* Registers the section of n FDEs over the copy; 0 or the error. */
static long register_over_copy(uint8_t *sec, uint32_t len)
{
	return setup(ADD, (uint64_t)sec, len, copy_start, copy_size);
}

static int prepare(uint8_t **sec)
{
	*sec = section_page();
	EXPECT(*sec && map_copy() == 0, "mapping the copy of spin_plain");
	return *sec && copy_start ? 0 : 1;
}

/* --- registration: refused at once ---------------------------------------- */

static int registration(void)
{
	static uint8_t zeros[256];
	uint8_t *sec;
	if (prepare(&sec))
		return 1;
	struct fde f = { copy_start, copy_size, 0, 1 };
	uint32_t len = build(sec, &f, 1, 0, 1);
	uint64_t text = 0x401000;

	EXPECT_ERR(setup(ADD, KERNEL_TEXT, len, copy_start, copy_size), EFAULT);
	EXPECT_ERR(setup(ADD, KERNEL_DIRECT, len, copy_start, copy_size), EFAULT);
	EXPECT_ERR(setup(ADD, (uint64_t)sec, len, KERNEL_TEXT, PAGE), EFAULT);
	EXPECT_ERR(setup(ADD, STITCH_USER_TOP - 8, len, copy_start, copy_size), EFAULT);
	EXPECT_ERR(setup(ADD, (uint64_t)sec, -PAGE, copy_start, copy_size), EFAULT);
	EXPECT_ERR(setup(ADD, (uint64_t)sec, 0, copy_start, copy_size), EINVAL);
	EXPECT_ERR(setup(ADD, (uint64_t)sec, len, copy_start, 0), EINVAL);
	EXPECT_ERR(setup(ADD, 0x10000000, len, copy_start, copy_size), EFAULT); /* unmapped */
	EXPECT_ERR(setup(ADD, (uint64_t)zeros, sizeof zeros, copy_start, copy_size), ENOEXEC);
	EXPECT_ERR(setup(ADD, (uint64_t)sec, 20, copy_start, copy_size), ENOEXEC); /* truncated */
	EXPECT_ERR(setup(ADD, (uint64_t)sec + 2, len, copy_start, copy_size), ENOEXEC); /* not 4-aligned */
	EXPECT_ERR(setup(ADD, (uint64_t)sec, len, text, PAGE), EEXIST); /* our own text */
	EXPECT_ERR(setup(0, (uint64_t)sec, len, copy_start, copy_size), EINVAL);
	EXPECT_ERR(setup(3, (uint64_t)sec, len, copy_start, copy_size), EINVAL);
	EXPECT_ERR(setup(-1, (uint64_t)sec, len, copy_start, copy_size), EINVAL);
	EXPECT_ERR(setup(REMOVE, 0, 0, copy_start, 0), EINVAL); /* nothing there */

	/* A huge FDE count: the array cannot fit in the section. */
	put32(sec + 8, 0x10000000);
	EXPECT_ERR(register_over_copy(sec, len), ENOEXEC);
	put32(sec + 8, 1);

	/* Accepted once; the same text again overlaps; removed; again. */
	EXPECT_ERR(register_over_copy(sec, len), 0);
	EXPECT_ERR(register_over_copy(sec, len), EEXIST);
	EXPECT_ERR(setup(ADD, (uint64_t)sec, len, copy_start + 1, 1), EEXIST);
	EXPECT_ERR(setup(REMOVE, 0, 0, copy_start, 0), 0);
	EXPECT_ERR(setup(REMOVE, 0, 0, copy_start, 0), EINVAL);

	/* More sections than a process may hold: 16 with the program's own
	 * and the signal page's. */
	int n = 0;
	long err = 0;
	for (; n < 64 && !(err = setup(ADD, (uint64_t)sec, len, copy_start + n, 1)); n++)
		;
	EXPECT(err == -ENOMEM && n == 14, "%d more sections, then %ld", n, err);
	printf("# registration: %d refusals checked, %d sections accepted\n", 22, n + 2);
	return 0;
}

/* --- sections used by the unwinder ------------------------------------- */

/* Control: a correct section; the unwinds through the copy reach the end. */
static int good(void)
{
	uint8_t *sec;
	if (prepare(&sec))
		return 1;
	struct fde f = { copy_start, copy_size, 0, 1 };
	EXPECT_ERR(register_over_copy(sec, build(sec, &f, 1, 0, 1)), 0);
	spin_in_copy();
	return 0;
}

/* Two FDEs whose starts decrease although the header says sorted. */
static int unsorted(void)
{
	uint8_t *sec;
	if (prepare(&sec))
		return 1;
	struct fde f[2] = { { copy_start + 8, 8, 0, 1 }, { copy_start, 8, 3, 1 } };
	EXPECT_ERR(register_over_copy(sec, build(sec, f, 2, 0, 2)), 0);
	spin_in_copy();
	return 0;
}

/* The only row starts past the end of its function. */
static int fre_outside(void)
{
	uint8_t *sec;
	if (prepare(&sec))
		return 1;
	struct fde f = { copy_start, copy_size, 0, 1 };
	EXPECT_ERR(register_over_copy(sec, build(sec, &f, 1, (uint8_t)(copy_size + 4), 1)), 0);
	spin_in_copy();
	return 0;
}

/* The header claims 2^32 - 1 rows where there is one. */
static int huge_count(void)
{
	uint8_t *sec;
	if (prepare(&sec))
		return 1;
	struct fde f = { copy_start, copy_size, 0, 1 };
	EXPECT_ERR(register_over_copy(sec, build(sec, &f, 1, 0, 0xffffffff)), 0);
	spin_in_copy();
	return 0;
}

/* Correct when registered, unmapped before any unwind reads it. */
static int unmapped(void)
{
	uint8_t *sec;
	if (prepare(&sec))
		return 1;
	struct fde f = { copy_start, copy_size, 0, 1 };
	EXPECT_ERR(register_over_copy(sec, build(sec, &f, 1, 0, 1)), 0);
	EXPECT(stitch_munmap(sec, PAGE) == 0, "munmap");
	spin_in_copy();
	return 0;
}

/*
 * Correct and used, then rewritten under the kernel's feet: the FDE now
 * claims a huge function (past the registered text), the row a CFA offset
 * of 127 (misaligned), the FRE offset points past the section. The
 * kernel's rule cache keeps the rules it read before the rewrite for the
 * pcs it has seen (the program changes only its own unwinds, and every
 * stack read stays checked); a pc it has not seen, or a boot with
 * unwind.rule_cache=0, reads the rewritten section, finds the function
 * outside its text and drops the section (sframe_dropped_invalid).
 */
static int rewritten(void)
{
	uint8_t *sec;
	if (prepare(&sec))
		return 1;
	struct fde f = { copy_start, copy_size, 0, 1 };
	uint32_t len = build(sec, &f, 1, 0, 1);
	EXPECT_ERR(register_over_copy(sec, len), 0);
	spin_in_copy();
	put32(sec + 28 + 4, 0x7fffffff);   /* function size */
	sec[28 + 17 + 2] = 127;            /* CFA offset */
	spin_in_copy();
	put32(sec + 28 + 8, 0xfffffff0);   /* FRE offset */
	put32(sec + 16, 0xffffffff);       /* FRE sub-section length */
	spin_in_copy();
	memset(sec, 0xff, len);
	spin_in_copy();
	return 0;
}

static const struct hcase cases[] = {
	{ "sframe-registration", registration }, { "sframe-good", good },
	{ "sframe-unsorted", unsorted }, { "sframe-fre-outside", fre_outside },
	{ "sframe-huge-count", huge_count }, { "sframe-unmapped", unmapped },
	{ "sframe-rewritten", rewritten },
};
HOSTILE_MAIN(cases)
