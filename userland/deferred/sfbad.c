/*
 * sfbad: what the kernel does with SFrame sections that are wrong, each
 * registered for this program's own text in turn (the loader's section is
 * removed first), with a stretch of sampled work after each:
 *
 *   phase "corrupt"  a copy of the .sframe whose header says one row more
 *                    than the functions have: the header passes the ADD
 *                    check, the full validation at its first use fails:
 *                    dropped (sframe_dropped), that unwind stops
 *                    bad-sframe, later ones fall back to rbp
 *   phase "good"     the loader's own section again: unwinds are whole
 *   phase "unmapped" a copy in an mmap region that is unmapped right after
 *                    the ADD: the first read of it faults: dropped, that
 *                    unwind stops fault. The copy still describes this
 *                    text (its function starts moved by the distance
 *                    between the copies), so that lookups do read it:
 *                    the kernel's FDE index, built at the first use,
 *                    answers a pc that no function covers without
 *                    reading the section
 *
 * and the system call's refusals: not SFrame (ENOEXEC), a text range that
 * overlaps one registered (EEXIST), REMOVE of a text start nothing has
 * (EINVAL), a zero length (EINVAL). Prints "sfbad: ok" and exits 0 iff
 * each call returned what it should.
 */
#include <errno.h>
#include <stdbool.h>
#include <string.h>
#include <stitch.h>
#include "../workloads/workload.h"
#include "selfelf.h"

static int failures;

static void expect(const char *what, int ret, int err)
{
	int got = ret ? errno : 0;
	if (got != err) {
		printf("sfbad: %s: errno %d, expected %d\n", what, got, err);
		failures++;
	}
}

static int add(const void *sframe, size_t len, const struct elf64_phdr *text)
{
	return stacktrace_setup(STACKTRACE_SFRAME_ADD, sframe, len,
				(const void *)text->vaddr, text->memsz);
}

static int remove_text(const struct elf64_phdr *text)
{
	return stacktrace_setup(STACKTRACE_SFRAME_REMOVE, NULL, 0,
				(const void *)text->vaddr, 0);
}

FRAME static uint64_t sfbad_leaf(uint64_t x)
{
	for (int i = 0; i < 30000; i++)
		x = (x ^ (x >> 9)) * 0xd6e8feb86659fd93ULL;
	return x;
}

/* Sampled work: main -> sfbad_work -> sfbad_leaf. */
FRAME static uint64_t sfbad_work(long rounds)
{
	uint64_t x = 1;
	for (long r = 0; r < rounds; r++)
		x += sfbad_leaf(x + (uint64_t)r);
	return x;
}

/* A private, writable copy of the section in fresh anonymous memory,
 * at hint if that is free. */
static unsigned char *copy_of(const struct elf64_phdr *sf, void *hint)
{
	unsigned char *p = stitch_mmap(hint, sf->memsz, STITCH_PROT_READ |
				       STITCH_PROT_WRITE, -1, 0);
	if (p == STITCH_MAP_FAILED)
		return NULL;
	memcpy(p, (const void *)sf->vaddr, sf->memsz);
	return p;
}

/* Where the copy should go: near enough to the text for the 32-bit
 * start fields of a version 1 or 2 section to reach it, above the heap's
 * gigabyte (mmap space: kern/mm/uvm.h). */
#define NEAR_TEXT ((void *)0x60000000)

/*
 * Makes the copy at p of the section at `from` describe the same
 * functions: each FDE's start (version 1 or 2: a 32-bit offset from the
 * section, or with the PC-relative flag from the field, either way moved
 * by the copy's distance). False for another version, or a copy too far.
 */
static bool relocate(unsigned char *p, uint64_t from)
{
	int64_t delta = (int64_t)(from - (uint64_t)p);
	uint32_t num_fdes, fdes;
	if (p[2] != 1 && p[2] != 2)
		return false;
	memcpy(&num_fdes, p + 8, 4);
	memcpy(&fdes, p + 20, 4);
	unsigned char *fde = p + 28 + p[7] + fdes;
	for (uint32_t i = 0; i < num_fdes; i++, fde += p[2] == 1 ? 17 : 20) {
		int32_t start;
		memcpy(&start, fde, 4);
		int64_t moved = start + delta;
		if (moved != (int32_t)moved)
			return false;
		start = (int32_t)moved;
		memcpy(fde, &start, 4);
	}
	return true;
}

int main(int argc, char **argv)
{
	long rounds = arg_long(argc, argv, 1, 150, 1, 100000000);
	const struct elf64_phdr *text = own_phdr(PT_LOAD, PF_X);
	const struct elf64_phdr *sf = own_phdr(PT_GNU_SFRAME, 0);
	unsigned char *bad = sf ? copy_of(sf, NULL) : NULL;
	unsigned char *gone = sf ? copy_of(sf, NEAR_TEXT) : NULL;
	uint32_t num_fres;
	uint64_t x = 0;
	if (!text || !bad || !gone || !relocate(gone, sf->vaddr)) {
		printf("sfbad: no text, no .sframe, no memory, or no copy near the text\n");
		return 1;
	}

	const void *own = (const void *)sf->vaddr;
	expect("ADD over the loader's registration", add(own, sf->memsz, text), EEXIST);
	expect("ADD of something else", add(__ehdr_start, 64, text), ENOEXEC);
	expect("ADD of length 0", add(own, 0, text), EINVAL);
	expect("REMOVE of unknown text", stacktrace_setup(STACKTRACE_SFRAME_REMOVE,
		NULL, 0, (const void *)(text->vaddr + 16), 0), EINVAL);

	/* corrupt: num_fres (header offset 12) one too many. */
	memcpy(&num_fres, bad + 12, sizeof num_fres);
	num_fres++;
	memcpy(bad + 12, &num_fres, sizeof num_fres);
	expect("REMOVE the loader's section", remove_text(text), 0);
	expect("ADD the corrupt copy (header fine)", add(bad, sf->memsz, text), 0);
	x += sfbad_work(rounds);

	/* good: the corrupt one was dropped at its first use, so nothing is
	 * registered now; the loader's section goes back. */
	expect("REMOVE of the dropped section", remove_text(text), EINVAL);
	expect("ADD the loader's section again", add(own, sf->memsz, text), 0);
	x += sfbad_work(rounds);

	/* unmapped: registered, then its memory goes. */
	expect("REMOVE the loader's section again", remove_text(text), 0);
	expect("ADD a copy", add(gone, sf->memsz, text), 0);
	expect("munmap the copy", stitch_munmap(gone, sf->memsz), 0);
	x += sfbad_work(rounds);

	printf("sfbad: %s x=%llu\n", failures ? "FAILED" : "ok", (unsigned long long)x);
	return failures != 0;
}
