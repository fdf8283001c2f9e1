/*
 * t-mem: the program break (sbrk, and malloc on top of it) and anonymous
 * and file mappings (stitch_mmap / stitch_munmap).
 */
#include <fcntl.h>
#include <stdint.h>
#include <unistd.h>
#include "check.h"

#define PAGE 4096

static int all_zero(const unsigned char *p, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (p[i])
			return 0;
	return 1;
}

static void test_sbrk(void)
{
	char *b0 = sbrk(0);
	char *p = sbrk(3 * PAGE);

	CHECK(b0 != (char *)-1);
	CHECK(p == b0);	/* sbrk returns the old break */
	CHECK(sbrk(0) == b0 + 3 * PAGE);
	CHECK(all_zero((unsigned char *)p, 3 * PAGE));	/* fresh memory is zero */
	memset(p, 0x5a, 3 * PAGE);	/* and writable */
	CHECK(p[3 * PAGE - 1] == 0x5a);
	CHECK(sbrk(-3 * PAGE) == b0 + 3 * PAGE);
	CHECK(sbrk(0) == b0);
	CHECK(sbrk(1) == b0);	/* odd sizes are fine */
	CHECK(sbrk(-1) == b0 + 1);
	CHECK(sbrk(0) == b0);
}

static void test_sbrk_limits(void)
{
	char *b0 = sbrk(0);

	CHECK_ERRNO((long)sbrk((ptrdiff_t)1 << 46), ENOMEM);	/* 64 TiB */
	CHECK(sbrk(0) == b0);	/* a failed sbrk moves nothing */
	CHECK_ERRNO((long)sbrk(-((ptrdiff_t)1 << 40)), ENOMEM);	/* below the heap's start */
	CHECK(sbrk(0) == b0);
}

static void test_malloc(void)
{
	size_t big = 8 << 20;
	unsigned char *p = malloc(big);

	CHECK(p != NULL);
	if (!p)
		return;
	memset(p, 0xa5, big);
	CHECK(p[0] == 0xa5 && p[big - 1] == 0xa5);
	free(p);
	for (int i = 0; i < 1000; i++) {	/* churn: the heap must not run out */
		void *q = malloc(1000 + i * 7);

		CHECK(q != NULL);
		free(q);
	}
}

static void test_mmap(void)
{
	unsigned char *p = stitch_mmap(NULL, 3 * PAGE, STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	unsigned char *q;

	CHECK(p != STITCH_MAP_FAILED);
	if (p == STITCH_MAP_FAILED)
		return;
	CHECK(((uintptr_t)p & (PAGE - 1)) == 0);
	CHECK((uintptr_t)p + 3 * PAGE <= STITCH_USER_TOP);
	CHECK(all_zero(p, 3 * PAGE));
	memset(p, 0x33, 3 * PAGE);
	q = stitch_mmap(NULL, PAGE, STITCH_PROT_READ, -1, 0);
	CHECK(q != STITCH_MAP_FAILED);
	CHECK(q + PAGE <= p || q >= p + 3 * PAGE);	/* no overlap */
	CHECK(q != STITCH_MAP_FAILED && q[0] == 0 && q[PAGE - 1] == 0);
	CHECK_EQ(stitch_munmap(q, PAGE), 0);
	CHECK_EQ(stitch_munmap(p, 3 * PAGE), 0);
	CHECK_ERRNO((long)stitch_mmap(NULL, 0, STITCH_PROT_READ, -1, 0), EINVAL);
	CHECK_ERRNO((long)stitch_mmap(NULL, (size_t)1 << 46, STITCH_PROT_READ, -1, 0), ENOMEM);
	CHECK_ERRNO(stitch_munmap(p + 1, PAGE), EINVAL);	/* unaligned */
	CHECK_ERRNO(stitch_munmap((void *)0xffffffff80000000UL, PAGE), EINVAL);
}

/* A private copy of an initrd file: its bytes, then zeros to the page end. */
static void test_mmap_file(void)
{
	static const char text[] = "Stitch initrd test file.\n";
	int fd = open("/data/hello.txt", O_RDONLY);
	char *p = stitch_mmap(NULL, PAGE, STITCH_PROT_READ | STITCH_PROT_WRITE, fd, 0);
	char again[sizeof(text)];

	CHECK(fd >= 0);
	CHECK(p != STITCH_MAP_FAILED);
	if (p == STITCH_MAP_FAILED)
		return;
	CHECK(memcmp(p, text, sizeof(text) - 1) == 0);
	CHECK(p[48] == '\n' && all_zero((unsigned char *)p + 49, PAGE - 49));
	p[0] = 's';	/* private: the file does not change */
	CHECK_EQ(read(fd, again, sizeof(text) - 1), (long)sizeof(text) - 1);
	CHECK(again[0] == 'S');
	CHECK_EQ(stitch_munmap(p, PAGE), 0);
	CHECK_ERRNO((long)stitch_mmap(NULL, PAGE, STITCH_PROT_READ, fd, 100), EINVAL);
	CHECK_ERRNO((long)stitch_mmap(NULL, PAGE, STITCH_PROT_READ, 99, 0), EBADF);
	close(fd);
}

int main(int argc, char **argv)
{
	(void)argc;
	check_begin(argv[0]);
	test_sbrk();
	test_sbrk_limits();
	test_malloc();
	test_mmap();
	test_mmap_file();
	return check_exit();
}
