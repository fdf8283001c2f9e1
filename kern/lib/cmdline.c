#include <limits.h>

#include "kern/lib/cmdline.h"
#include "kern/lib/console.h"
#include "kern/lib/string.h"

struct cmdline boot_args;

int cmdline_parse(struct cmdline *c, const char *s)
{
	strlcpy(c->buf, s, sizeof(c->buf));
	c->argc = 0;
	char *p = c->buf;
	for (;;) {
		while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
			*p++ = '\0';
		if (!*p)
			break;
		if (c->argc == CMDLINE_MAX_ARGS) {
			int len = 0;
			while (p[len] && p[len] != ' ' && p[len] != '\t' && p[len] != '\n' &&
			       p[len] != '\r')
				len++;
			kprintf("cmdline: more than %d words; ignoring %.*s and the rest\n",
				CMDLINE_MAX_ARGS, len, p);
			break;
		}
		c->key[c->argc] = p;
		c->val[c->argc] = "";
		for (; *p && *p != ' ' && *p != '\t' && *p != '\n' && *p != '\r'; p++)
			if (*p == '=' && !*c->val[c->argc]) {
				*p = '\0';
				c->val[c->argc] = p + 1;
			}
		c->argc++;
	}
	return c->argc;
}

const char *cmdline_get(const struct cmdline *c, const char *key)
{
	for (int i = c->argc - 1; i >= 0; i--)
		if (strcmp(c->key[i], key) == 0)
			return c->val[i];
	return NULL;
}

static bool is_any(const char *v, const char *const *words, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(v, words[i]))
			return true;
	return false;
}

bool cmdline_bool(const struct cmdline *c, const char *key, bool def)
{
	static const char *const on[] = { "", "1", "on", "yes", "true" };
	static const char *const off[] = { "0", "off", "no", "false" };
	const char *v = cmdline_get(c, key);
	if (!v)
		return def;
	if (is_any(v, on, sizeof(on) / sizeof(on[0])))
		return true;
	if (is_any(v, off, sizeof(off) / sizeof(off[0])))
		return false;
	kprintf("cmdline: %s=%s is neither on nor off; using %s\n", key, v,
		def ? "on" : "off");
	return def;
}

bool cmdline_flag(const struct cmdline *c, const char *key)
{
	return cmdline_bool(c, key, false);
}

/* Parses all of s as a long; false on junk, emptiness or overflow. */
static bool parse_long(const char *s, long *out)
{
	bool neg = *s == '-';
	s += neg;
	unsigned base = 10;
	if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
		base = 16;
		s += 2;
	}
	if (!*s)
		return false;
	unsigned long v = 0, limit = neg ? (unsigned long)LONG_MAX + 1 : LONG_MAX;
	for (; *s; s++) {
		unsigned d;
		if (*s >= '0' && *s <= '9')
			d = *s - '0';
		else if (base == 16 && (*s | 0x20) >= 'a' && (*s | 0x20) <= 'f')
			d = (*s | 0x20) - 'a' + 10;
		else
			return false;
		if (v > (limit - d) / base)
			return false;
		v = v * base + d;
	}
	*out = neg ? (long)(0 - v) : (long)v;
	return true;
}

long cmdline_int(const struct cmdline *c, const char *key, long def, long min,
		 long max)
{
	const char *v = cmdline_get(c, key);
	long n;
	if (!v)
		return def;
	if (!parse_long(v, &n) || n < min || n > max) {
		kprintf("cmdline: %s=%s is not an integer in [%ld, %ld]; using %ld\n",
			key, v, min, max, def);
		return def;
	}
	return n;
}
