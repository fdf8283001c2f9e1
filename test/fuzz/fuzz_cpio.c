/*
 * libFuzzer target: the initrd's cpio lookup (kern/fs/initrd.c) on a hostile
 * archive. Looks up fixed names and every name the input seems to carry
 * (the string after each "070701" header), directly and through
 * initrd_lookup() with the archive as the boot initrd.
 *
 * Checked besides ASan/UBSan: a lookup either fails with -ENOENT or
 * returns the name asked for, NUL-terminated inside the archive, right
 * after a newc header, with its data inside the archive; initrd_lookup
 * finds the name without its leading slashes, and regular files only.
 */
#include <stdint.h>
#include <string.h>

#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "mock.h"
#include "stitch/syscall.h"

#define HDR_LEN 110

static void check_found(const uint8_t *img, size_t size, const char *name,
			const struct initrd_file *f)
{
	const uint8_t *n = (const uint8_t *)f->name;
	size_t len = strlen(name);
	MOCK_CHECK(n >= img + HDR_LEN && n <= img + size && len < (size_t)(img + size - n));
	MOCK_CHECK(memcmp(n, name, len + 1) == 0);
	MOCK_CHECK(memcmp(n - HDR_LEN, "070701", 6) == 0);
	MOCK_CHECK(f->data >= n + len + 1 && f->data <= img + size);
	MOCK_CHECK(f->size <= (size_t)(img + size - f->data));
}

static void lookup(const uint8_t *img, size_t size, const char *name)
{
	struct initrd_file f;
	int err = cpio_find(img, size, name, &f);
	if (err) {
		MOCK_CHECK(err == -STITCH_ENOENT);
	} else {
		check_found(img, size, name, &f);
	}

	/* The same through the boot initrd, with a leading slash. */
	char path[INITRD_PATH_MAX + 1] = "/";
	if (strlen(name) >= INITRD_PATH_MAX)
		return;
	strcpy(path + 1, name);
	struct initrd_file g;
	err = initrd_lookup(path, &g);
	if (err) {
		MOCK_CHECK(err == -STITCH_ENOENT);
		return;
	}
	const char *rel = name + strspn(name, "/");
	MOCK_CHECK(rel[0] != '\0');
	check_found(img, size, rel, &g);
	MOCK_CHECK((g.mode & CPIO_S_IFMT) == CPIO_S_IFREG);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	/* The kernel reaches the initrd through p2v(), the identity here. */
	boot_info.initrd_phys = (uint64_t)(uintptr_t)data;
	boot_info.initrd_size = size;

	static const char *const fixed[] = { "bin/fib", "bin", "data/hello.txt",
					     "TRAILER!!!", "" };
	for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
		lookup(data, size, fixed[i]);

	/* At most 64 of them: each lookup walks the archive again. */
	char name[INITRD_PATH_MAX + 1];
	int names = 0;
	for (size_t off = 0; size >= HDR_LEN && off <= size - HDR_LEN && names < 64; off++) {
		if (memcmp(data + off, "070701", 6) != 0)
			continue;
		size_t n = 0, at = off + HDR_LEN;
		while (at + n < size && data[at + n] && n < INITRD_PATH_MAX)
			n++;
		memcpy(name, data + at, n);
		name[n] = '\0';
		lookup(data, size, name);
		names++;
	}
	return 0;
}
