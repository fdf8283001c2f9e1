#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"
#include "stitch/syscall.h"

#define NEWC_MAGIC   "070701"
#define NEWC_HDR_LEN 110
#define TRAILER      "TRAILER!!!"

/* Field i (0 = c_ino ... 12 = c_check) of a newc header: 8 hex digits. */
static bool hex_field(const char *hdr, int i, uint32_t *out)
{
	uint32_t v = 0;
	for (int k = 0; k < 8; k++) {
		char c = hdr[6 + 8 * i + k];
		uint32_t d;
		if (c >= '0' && c <= '9')
			d = c - '0';
		else if ((c | 0x20) >= 'a' && (c | 0x20) <= 'f')
			d = (c | 0x20) - 'a' + 10;
		else
			return false;
		v = v << 4 | d;
	}
	*out = v;
	return true;
}

enum { F_MODE = 1, F_FILESIZE = 6, F_NAMESIZE = 11 };

int cpio_find(const void *image, size_t size, const char *name,
	      struct initrd_file *out)
{
	const char *base = image;
	size_t off = 0;
	while (size - off >= NEWC_HDR_LEN) {
		const char *hdr = base + off;
		uint32_t mode, filesize, namesize;
		if (memcmp(hdr, NEWC_MAGIC, 6) != 0 || !hex_field(hdr, F_MODE, &mode) ||
		    !hex_field(hdr, F_FILESIZE, &filesize) ||
		    !hex_field(hdr, F_NAMESIZE, &namesize) || namesize == 0)
			break;
		/* name, then padding to 4; data, then padding to 4 */
		size_t name_off = off + NEWC_HDR_LEN;
		if (namesize > size - name_off)
			break;
		const char *entry = base + name_off;
		if (entry[namesize - 1] != '\0')
			break;
		size_t data_off = ROUND_UP(name_off + namesize, 4);
		if (data_off > size || filesize > size - data_off)
			break;
		if (strcmp(entry, TRAILER) == 0)
			break;
		if (strcmp(entry, name) == 0) {
			*out = (struct initrd_file){
				.name = entry, .data = (const uint8_t *)base + data_off,
				.size = filesize, .mode = mode,
			};
			return 0;
		}
		off = ROUND_UP(data_off + filesize, 4);
		if (off > size)
			break;
	}
	return -STITCH_ENOENT;
}

int initrd_lookup(const char *path, struct initrd_file *out)
{
	while (*path == '/')
		path++;
	if (!*path || !boot_info.initrd_size)
		return -STITCH_ENOENT;
	int err = cpio_find(p2v(boot_info.initrd_phys), boot_info.initrd_size,
			    path, out);
	if (err)
		return err;
	if ((out->mode & CPIO_S_IFMT) != CPIO_S_IFREG)
		return -STITCH_ENOENT; /* directories are not files to open */
	return 0;
}
