/*
 * The initrd: a cpio "newc" archive that the loader put in memory (it
 * stays there, never handed out by the page allocator, so file data can be
 * referenced in place for the life of the kernel). Read-only.
 */
#ifndef KERN_FS_INITRD_H
#define KERN_FS_INITRD_H

#include <stddef.h>
#include <stdint.h>

#define INITRD_PATH_MAX 256 /* with the NUL; longer paths: -ENAMETOOLONG */

struct initrd_file {
	const char *name;     /* NUL-terminated, no leading slash ("bin/fib") */
	const uint8_t *data;
	uint64_t size;
	uint32_t mode;        /* S_IF* type and permission bits */
};

#define CPIO_S_IFMT  0170000
#define CPIO_S_IFREG 0100000

/*
 * Looks `name` up in the archive [image, image + size): 0 and *out, or
 * -ENOENT (absent, or the archive is malformed before it). Every header
 * field is bounds-checked: a bad archive can only make lookups fail.
 */
int cpio_find(const void *image, size_t size, const char *name,
	      struct initrd_file *out);

/* The boot initrd: a regular file by absolute or relative path
 * ("/bin/fib" is the entry "bin/fib"); 0 or -ENOENT. */
int initrd_lookup(const char *path, struct initrd_file *out);

#endif
