#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/lib/console.h"
#include "kern/lib/string.h"
#include "stitch/syscall.h"

/* Appends one newc entry to buf at *len. */
static void put_entry(char *buf, size_t *len, const char *name, uint32_t mode,
		      const char *data)
{
	size_t namesize = strlen(name) + 1, filesize = strlen(data);
	*len += ksnprintf(buf + *len, 111,
			  "070701%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x%08x",
			  1, mode, 0, 0, 1, 0, (unsigned)filesize, 0, 0, 0, 0,
			  (unsigned)namesize, 0);
	memcpy(buf + *len, name, namesize);
	*len = ROUND_UP(*len + namesize, 4);
	memcpy(buf + *len, data, filesize);
	*len = ROUND_UP(*len + filesize, 4);
}

static size_t make_archive(char *buf)
{
	size_t len = 0;
	memset(buf, 0, 1024);
	put_entry(buf, &len, "bin", 040755, "");
	put_entry(buf, &len, "bin/a", 0100755, "hello");
	put_entry(buf, &len, "data/empty", 0100644, "");
	put_entry(buf, &len, "TRAILER!!!", 0, "");
	put_entry(buf, &len, "after", 0100644, "never seen");
	return len;
}

KTEST(initrd_cpio_lookup)
{
	static char buf[1024];
	size_t len = make_archive(buf);
	struct initrd_file f;
	KASSERT_EQ(t, cpio_find(buf, len, "bin/a", &f), 0);
	KEXPECT_EQ(t, f.size, 5);
	KEXPECT(t, memcmp(f.data, "hello", 5) == 0);
	KEXPECT_EQ(t, f.mode, 0100755);
	KEXPECT(t, strcmp(f.name, "bin/a") == 0);
	KASSERT_EQ(t, cpio_find(buf, len, "data/empty", &f), 0);
	KEXPECT_EQ(t, f.size, 0);
	KEXPECT_EQ(t, cpio_find(buf, len, "bin/", &f), -STITCH_ENOENT);
	KEXPECT_EQ(t, cpio_find(buf, len, "bin/ab", &f), -STITCH_ENOENT);
	/* Nothing after the trailer counts. */
	KEXPECT_EQ(t, cpio_find(buf, len, "after", &f), -STITCH_ENOENT);
}

/* Cut anywhere, the archive only loses entries: no read past the end. */
KTEST(initrd_cpio_truncated)
{
	static char buf[1024];
	size_t len = make_archive(buf);
	struct initrd_file f;
	size_t need = 0; /* shortest prefix in which bin/a is complete */
	for (size_t cut = 0; cut <= len; cut++)
		if (cpio_find(buf, cut, "bin/a", &f) == 0) {
			KEXPECT(t, f.data + f.size <= (const uint8_t *)buf + cut);
			if (!need)
				need = cut;
		}
	KEXPECT(t, need > 0 && need < len);
	KEXPECT(t, need >= (size_t)((const char *)f.data - buf) + 5);
}

KTEST(initrd_cpio_malformed)
{
	static char buf[1024];
	size_t len = make_archive(buf);
	struct initrd_file f;
	buf[1] = '8'; /* magic 070701 -> 080701 */
	KEXPECT_EQ(t, cpio_find(buf, len, "bin", &f), -STITCH_ENOENT);
	make_archive(buf);
	memcpy(buf + 6 + 8 * 11, "7fffffff", 8); /* namesize far past the end */
	KEXPECT_EQ(t, cpio_find(buf, len, "bin", &f), -STITCH_ENOENT);
	make_archive(buf);
	memcpy(buf + 6 + 8 * 6, "zz000000", 8); /* filesize not hex */
	KEXPECT_EQ(t, cpio_find(buf, len, "bin", &f), -STITCH_ENOENT);
	make_archive(buf);
	buf[110 + 3] = 'x'; /* "bin" loses its NUL */
	KEXPECT_EQ(t, cpio_find(buf, len, "bin", &f), -STITCH_ENOENT);
}

/* The boot initrd: programs by absolute path; directories are no files. */
KTEST(initrd_boot_lookup)
{
	struct initrd_file f;
	if (!boot_info.initrd_size) {
		ktest_skip(t, "booted without an initrd");
		return;
	}
	KASSERT_EQ(t, initrd_lookup("/bin/demo", &f), 0);
	KEXPECT(t, strcmp(f.name, "bin/demo") == 0);
	KEXPECT(t, f.size > 4 && memcmp(f.data, "\x7f" "ELF", 4) == 0);
	KEXPECT_EQ(t, initrd_lookup("bin/demo", &f), 0);
	KEXPECT_EQ(t, initrd_lookup("/bin", &f), -STITCH_ENOENT);
	KEXPECT_EQ(t, initrd_lookup("/", &f), -STITCH_ENOENT);
	KEXPECT_EQ(t, initrd_lookup("/bin/no-such", &f), -STITCH_ENOENT);
}
