#include <limits.h>
#include <stdint.h>

#include "kern/lib/console.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"

/* Formats into a buffer and compares with the expected text. */
#define KEXPECT_FMT(t, want, ...)                                             \
	do {                                                                  \
		char buf_[64];                                                \
		int n_ = ksnprintf(buf_, sizeof(buf_), __VA_ARGS__);          \
		if (!KEXPECT(t, strcmp(buf_, want) == 0 &&                    \
				       n_ == (int)strlen(want)))              \
			kprintf("#   got \"%s\" (%d), want \"%s\"\n", buf_, n_, \
				want);                                        \
	} while (0)

KTEST(kprintf_integers)
{
	KEXPECT_FMT(t, "-42", "%d", -42);
	KEXPECT_FMT(t, "-2147483648", "%i", INT_MIN);
	KEXPECT_FMT(t, "4294967295", "%u", UINT_MAX);
	KEXPECT_FMT(t, "deadbeef", "%x", 0xdeadbeefu);
	KEXPECT_FMT(t, "DEADBEEF", "%X", 0xdeadbeefu);
	KEXPECT_FMT(t, "ffffffff80000000", "%lx", 0xffffffff80000000ul);
	KEXPECT_FMT(t, "18446744073709551615", "%lu", ULONG_MAX);
	KEXPECT_FMT(t, "-9223372036854775808", "%ld", LONG_MIN);
	KEXPECT_FMT(t, "123456789abcdef0", "%llx", 0x123456789abcdef0ull);
	KEXPECT_FMT(t, "12345", "%zu", (size_t)12345);
	KEXPECT_FMT(t, "0", "%u", 0u);
}

KTEST(kprintf_width_and_padding)
{
	KEXPECT_FMT(t, "   42", "%5d", 42);
	KEXPECT_FMT(t, "42   |", "%-5d|", 42);
	KEXPECT_FMT(t, "-0042", "%05d", -42);
	KEXPECT_FMT(t, "0000beef", "%08x", 0xbeefu);
	KEXPECT_FMT(t, "123456", "%3d", 123456);
	KEXPECT_FMT(t, "    7", "%*d", 5, 7);
	KEXPECT_FMT(t, "0x0000000000001234", "%p", (void *)0x1234);
}

KTEST(kprintf_strings_and_chars)
{
	const char *volatile null = NULL; /* hidden from GCC's format check */

	KEXPECT_FMT(t, "abc", "%s", "abc");
	KEXPECT_FMT(t, "  abc", "%5s", "abc");
	KEXPECT_FMT(t, "abc  |", "%-5s|", "abc");
	KEXPECT_FMT(t, "ab", "%.2s", "abc");
	KEXPECT_FMT(t, "ab", "%.*s", 2, "abcdef");
	KEXPECT_FMT(t, "(null)", "%s", null);
	KEXPECT_FMT(t, "x=y", "%c=%c", 'x', 'y');
	KEXPECT_FMT(t, "100%", "%d%%", 100);
}

KTEST(ksnprintf_truncates)
{
	char buf[4];
	memset(buf, 'z', sizeof(buf));
	KEXPECT_EQ(t, ksnprintf(buf, sizeof(buf), "abcdef"), 6);
	KEXPECT(t, strcmp(buf, "abc") == 0);
	KEXPECT_EQ(t, ksnprintf(buf, 1, "%d", 12345), 5);
	KEXPECT_EQ(t, buf[0], '\0');
}
