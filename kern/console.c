#include "kern/console.h"
#include "arch/x86_64/arch.h"
#include "kern/fbcon.h"

/* Both sinks: the framebuffer, if the loader found one, and COM1. A
 * serial terminal wants CR LF. No lock: one CPU, and the NMI handler may
 * print while it panics, which a lock would turn into a deadlock. */
void console_write(const char *s, size_t n)
{
	fbcon_write(s, n);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			arch_console_putc('\r');
		arch_console_putc(s[i]);
	}
}
