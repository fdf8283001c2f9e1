/*
 * The console: kprintf to COM1 (and the screen, kern/lib/fbcon.h). The
 * formatter behind kprintf and ksnprintf is kern/lib/printf.c.
 *
 * Conversions: %d %i %u %x %X %p %s %c %%, length modifiers l ll z, flags
 * '0' and '-', a width and, for %s, a precision (digits or '*').
 */
#ifndef KERN_LIB_CONSOLE_H
#define KERN_LIB_CONSOLE_H

#include <stdarg.h>
#include <stddef.h>

#include <arch/arch.h>

__attribute__((format(printf, 1, 2))) int kprintf(const char *fmt, ...);
int kvprintf(const char *fmt, va_list ap);

/* Like snprintf: always terminates (n > 0), returns the untruncated length. */
__attribute__((format(printf, 3, 4)))
int ksnprintf(char *buf, size_t n, const char *fmt, ...);
int kvsnprintf(char *buf, size_t n, const char *fmt, va_list ap);

void console_write(const char *s, size_t n);
/* kvprintf holds the console for its whole output (bounded wait). */
irqflags_t console_lock(void);
void console_unlock(irqflags_t f);

#endif
