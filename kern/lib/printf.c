/*
 * A small printf: one formatter that writes into a sink, used both for the
 * console (kprintf) and for buffers (ksnprintf).
 */
#include <stdbool.h>
#include <stdint.h>

#include "kern/lib/console.h"
#include "kern/lib/string.h"

struct sink {
	char *buf;  /* NULL: the console */
	size_t cap; /* bytes of buf, including the terminator */
	size_t len; /* characters produced so far (may exceed cap) */
	char line[128]; /* console output is batched per call */
	size_t nline;
};

static void flush(struct sink *s)
{
	console_write(s->line, s->nline);
	s->nline = 0;
}

static void put(struct sink *s, char c)
{
	if (s->buf) {
		if (s->len + 1 < s->cap)
			s->buf[s->len] = c;
	} else {
		if (s->nline == sizeof(s->line))
			flush(s);
		s->line[s->nline++] = c;
	}
	s->len++;
}

static void pad(struct sink *s, char c, int n)
{
	while (n-- > 0)
		put(s, c);
}

struct spec {
	bool left, zero;
	int width, prec; /* prec < 0: none */
	int size;        /* 0 int, 1 long, 2 long long, 3 size_t */
};

/* Digits of v in base 10 or 16 into tmp (backwards); returns the count. */
static int digits(char *tmp, uint64_t v, unsigned base, bool upper)
{
	const char *dig = upper ? "0123456789ABCDEF" : "0123456789abcdef";
	int n = 0;
	do {
		tmp[n++] = dig[v % base];
		v /= base;
	} while (v);
	return n;
}

static void number(struct sink *s, const struct spec *sp, uint64_t v,
		   bool neg, unsigned base, bool upper, const char *prefix)
{
	char tmp[24];
	int n = digits(tmp, v, base, upper);
	int plen = (int)strlen(prefix) + neg;
	int fill = sp->width - n - plen;

	if (!sp->left && !sp->zero)
		pad(s, ' ', fill);
	if (neg)
		put(s, '-');
	while (*prefix)
		put(s, *prefix++);
	if (!sp->left && sp->zero)
		pad(s, '0', fill);
	while (n)
		put(s, tmp[--n]);
	if (sp->left)
		pad(s, ' ', fill);
}

static void string(struct sink *s, const struct spec *sp, const char *str)
{
	if (!str)
		str = "(null)";
	int n = (int)(sp->prec >= 0 ? strnlen(str, (size_t)sp->prec) : strlen(str));
	if (!sp->left)
		pad(s, ' ', sp->width - n);
	for (int i = 0; i < n; i++)
		put(s, str[i]);
	if (sp->left)
		pad(s, ' ', sp->width - n);
}

static uint64_t get_unsigned(const struct spec *sp, va_list *ap)
{
	switch (sp->size) {
	case 0: return va_arg(*ap, unsigned int);
	case 1: return va_arg(*ap, unsigned long);
	case 2: return va_arg(*ap, unsigned long long);
	default: return va_arg(*ap, size_t);
	}
}

static int64_t get_signed(const struct spec *sp, va_list *ap)
{
	switch (sp->size) {
	case 0: return va_arg(*ap, int);
	case 1: return va_arg(*ap, long);
	case 2: return va_arg(*ap, long long);
	default: return (int64_t)va_arg(*ap, size_t);
	}
}

/* Parses flags, width, precision and length after '%'; returns the
 * position of the conversion character. */
static const char *parse_spec(const char *f, struct spec *sp, va_list *ap)
{
	*sp = (struct spec){ .prec = -1 };
	for (;; f++) {
		if (*f == '-')
			sp->left = true;
		else if (*f == '0')
			sp->zero = true;
		else
			break;
	}
	if (*f == '*') {
		sp->width = va_arg(*ap, int);
		f++;
	}
	for (; *f >= '0' && *f <= '9'; f++)
		sp->width = sp->width * 10 + (*f - '0');
	if (*f == '.') {
		f++;
		sp->prec = 0;
		if (*f == '*') {
			sp->prec = va_arg(*ap, int);
			f++;
		}
		for (; *f >= '0' && *f <= '9'; f++)
			sp->prec = sp->prec * 10 + (*f - '0');
	}
	if (*f == 'z') {
		sp->size = 3;
		f++;
	}
	for (; *f == 'l' && sp->size < 2; f++)
		sp->size++;
	return f;
}

static void format(struct sink *s, const char *f, va_list ap_in)
{
	va_list ap;
	va_copy(ap, ap_in);
	for (; *f; f++) {
		if (*f != '%') {
			put(s, *f);
			continue;
		}
		struct spec sp;
		f = parse_spec(f + 1, &sp, &ap);
		int64_t v;
		switch (*f) {
		case 'd':
		case 'i':
			v = get_signed(&sp, &ap);
			number(s, &sp, v < 0 ? -(uint64_t)v : (uint64_t)v, v < 0, 10, false, "");
			break;
		case 'u':
			number(s, &sp, get_unsigned(&sp, &ap), false, 10, false, "");
			break;
		case 'x':
		case 'X':
			number(s, &sp, get_unsigned(&sp, &ap), false, 16, *f == 'X', "");
			break;
		case 'p':
			sp.zero = true;
			sp.width = 18;
			number(s, &sp, (uintptr_t)va_arg(ap, void *), false, 16, false, "0x");
			break;
		case 's':
			string(s, &sp, va_arg(ap, const char *));
			break;
		case 'c':
			put(s, (char)va_arg(ap, int));
			break;
		case '%':
			put(s, '%');
			break;
		case '\0': /* a lone '%' at the end */
			f--;
			break;
		default: /* unknown: print it as written, so the bug is visible */
			put(s, '%');
			put(s, *f);
			break;
		}
	}
	va_end(ap);
}

int kvsnprintf(char *buf, size_t n, const char *fmt, va_list ap)
{
	struct sink s = { .buf = buf, .cap = n };
	format(&s, fmt, ap);
	if (n)
		buf[s.len < n ? s.len : n - 1] = '\0';
	return (int)s.len;
}

int ksnprintf(char *buf, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = kvsnprintf(buf, n, fmt, ap);
	va_end(ap);
	return r;
}

int kvprintf(const char *fmt, va_list ap)
{
	struct sink s = { 0 };
	irqflags_t f = console_lock();
	format(&s, fmt, ap);
	flush(&s);
	console_unlock(f);
	return (int)s.len;
}

int kprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int r = kvprintf(fmt, ap);
	va_end(ap);
	return r;
}
