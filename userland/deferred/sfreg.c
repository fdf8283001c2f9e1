/*
 * sfreg [BLOB [depth [rounds]]]: unwinding with an SFrame section that a
 * program registers for its own text. With a BLOB (an initrd file: this
 * program's .sframe re-encoded by `sframe convert --to 2|3 --at ADDR`, so
 * encoded for the run-time address SFREG_BLOB_ADDR), it maps the blob at
 * that address, removes the registration the kernel's ELF loader made for
 * its text, and registers the blob instead; "-" keeps the loader's
 * version 1 section. Then it recurses: main -> sfreg_run -> sfreg_down x
 * depth -> sfreg_leaf, and the deferred unwinds must be the same whatever
 * the version. Prints "sfreg: blob=B version=V result=X".
 */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <stitch.h>
#include <sys/stat.h>
#include "../workloads/workload.h"
#include "selfelf.h"

/* Where the blobs are encoded to live (mk/deferred.mk reads this line):
 * above the heap's gigabyte, where mmap may place them, and within 2 GiB
 * of the text, as version 2's 32-bit function starts require. */
#define SFREG_BLOB_ADDR 0x50000000UL
static int fail(const char *what)
{
	printf("sfreg: %s: %s\n", what, strerror(errno));
	return -1;
}

/* The blob replaces the loader's registration of this program's text. */
static int swap_sframe(const char *blob, int *version)
{
	const struct elf64_phdr *text = own_phdr(PT_LOAD, PF_X);
	struct stat st;
	int fd = open(blob, O_RDONLY);
	if (!text || fd < 0 || fstat(fd, &st))
		return fail(blob);
	void *at = stitch_mmap((void *)SFREG_BLOB_ADDR, st.st_size,
			       STITCH_PROT_READ, fd, 0);
	close(fd);
	if (at != (void *)SFREG_BLOB_ADDR)
		return fail("mmap at the blob's address");
	*version = ((const unsigned char *)at)[2];
	if (stacktrace_setup(STACKTRACE_SFRAME_REMOVE, NULL, 0,
			     (void *)text->vaddr, 0))
		return fail("remove the loader's section");
	if (stacktrace_setup(STACKTRACE_SFRAME_ADD, at, st.st_size,
			     (void *)text->vaddr, text->memsz))
		return fail("register the blob");
	return 0;
}

FRAME static uint64_t sfreg_leaf(uint64_t x)
{
	for (int i = 0; i < 20000; i++)
		x = (x ^ (x >> 11)) * 0xbf58476d1ce4e5b9ULL;
	return x;
}

FRAME static uint64_t sfreg_down(int depth, uint64_t x)
{
	x = depth > 1 ? sfreg_down(depth - 1, x + 1) : sfreg_leaf(x);
	return x ^ (uint64_t)depth;
}

FRAME static uint64_t sfreg_run(int depth, long rounds)
{
	uint64_t x = 0;
	for (long r = 0; r < rounds; r++)
		x += sfreg_down(depth, x + (uint64_t)r);
	return x;
}

int main(int argc, char **argv)
{
	const char *blob = argc > 1 ? argv[1] : "-";
	int depth = (int)arg_long(argc, argv, 2, 6, 1, 1000);
	long rounds = arg_long(argc, argv, 3, 300, 1, 100000000);
	int version = 1;
	if (strcmp(blob, "-") && swap_sframe(blob, &version))
		return 1;
	printf("sfreg: blob=%s version=%d result=%llu\n", blob, version,
	       (unsigned long long)sfreg_run(depth, rounds));
	return 0;
}
