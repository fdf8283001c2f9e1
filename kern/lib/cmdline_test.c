#include <limits.h>

#include "kern/lib/cmdline.h"
#include "kern/lib/console.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"

static struct cmdline c; /* 1.5 KiB: not on the stack */

static bool str_is(const char *got, const char *want)
{
	return got && strcmp(got, want) == 0;
}

KTEST(cmdline_keys_and_values)
{
	KEXPECT_EQ(t, cmdline_parse(&c, "  a b=1\tc=x=y  d= ktest=pmm b=2 \n"), 6);
	KEXPECT(t, str_is(cmdline_get(&c, "a"), ""));
	KEXPECT(t, str_is(cmdline_get(&c, "b"), "2")); /* the last one wins */
	KEXPECT(t, str_is(cmdline_get(&c, "c"), "x=y"));
	KEXPECT(t, str_is(cmdline_get(&c, "d"), ""));
	KEXPECT(t, str_is(cmdline_get(&c, "ktest"), "pmm"));
	KEXPECT(t, cmdline_get(&c, "ktest.fault") == NULL);
	KEXPECT(t, cmdline_get(&c, "e") == NULL);
	KEXPECT(t, cmdline_get(&c, "") == NULL);
	KEXPECT_EQ(t, cmdline_parse(&c, ""), 0);
	KEXPECT_EQ(t, cmdline_parse(&c, "   "), 0);
}

KTEST(cmdline_flags)
{
	cmdline_parse(&c, "bare on=on one=1 yes=yes off=off zero=0 other=maybe");
	KEXPECT(t, cmdline_flag(&c, "bare"));
	KEXPECT(t, cmdline_flag(&c, "on"));
	KEXPECT(t, cmdline_flag(&c, "one"));
	KEXPECT(t, cmdline_flag(&c, "yes"));
	KEXPECT(t, !cmdline_flag(&c, "off"));
	KEXPECT(t, !cmdline_flag(&c, "zero"));
	KEXPECT(t, !cmdline_flag(&c, "other"));
	KEXPECT(t, !cmdline_flag(&c, "absent"));
	/* A value neither on nor off is the default (with a warning). */
	KEXPECT(t, cmdline_bool(&c, "other", true));
	KEXPECT(t, !cmdline_bool(&c, "other", false));
	KEXPECT(t, !cmdline_bool(&c, "zero", true));
	KEXPECT(t, cmdline_bool(&c, "bare", false));
	KEXPECT(t, cmdline_bool(&c, "absent", true));
}

KTEST(cmdline_integers)
{
	cmdline_parse(&c, "n=42 h=0x1F neg=-5 big=9223372036854775807 "
			  "min=-9223372036854775808 over=9223372036854775808 "
			  "junk=12a empty= hex=0x");
	KEXPECT_EQ(t, cmdline_int(&c, "n", 7, 0, 100), 42);
	KEXPECT_EQ(t, cmdline_int(&c, "h", 7, 0, 100), 31);
	KEXPECT_EQ(t, cmdline_int(&c, "neg", 7, -10, 10), -5);
	KEXPECT_EQ(t, cmdline_int(&c, "big", 7, LONG_MIN, LONG_MAX), LONG_MAX);
	KEXPECT_EQ(t, cmdline_int(&c, "min", 7, LONG_MIN, LONG_MAX), LONG_MIN);
	/* Out of bounds, overflow, junk: the default. */
	KEXPECT_EQ(t, cmdline_int(&c, "n", 7, 0, 41), 7);
	KEXPECT_EQ(t, cmdline_int(&c, "neg", 7, 0, 10), 7);
	KEXPECT_EQ(t, cmdline_int(&c, "over", 7, LONG_MIN, LONG_MAX), 7);
	KEXPECT_EQ(t, cmdline_int(&c, "junk", 7, 0, 1000), 7);
	KEXPECT_EQ(t, cmdline_int(&c, "empty", 7, 0, 1000), 7);
	KEXPECT_EQ(t, cmdline_int(&c, "hex", 7, 0, 1000), 7);
	KEXPECT_EQ(t, cmdline_int(&c, "absent", 7, 0, 1000), 7);
}

KTEST(cmdline_limits)
{
	char line[BOOT_CMDLINE_MAX + 100];
	size_t n = 0;
	for (int i = 0; n + 4 < sizeof(line); i++) /* "w0 w1 ... " */
		n += (size_t)ksnprintf(line + n, sizeof(line) - n, "w%d ", i % 10);
	KEXPECT_EQ(t, cmdline_parse(&c, line), CMDLINE_MAX_ARGS);
	KEXPECT(t, strlen(c.buf) < BOOT_CMDLINE_MAX);
}
