#include "kern/lib/console.h"
#include <arch/arch.h>
#include "kern/lib/fbcon.h"

/*
 * One CPU prints at a time, so that lines from several CPUs do not mix.
 * The wait is bounded: a CPU that panics, or prints while another one died
 * holding the console, prints anyway after about a second of spinning
 * rather than hang (a mixed line beats no line).
 */
static int console_busy;

irqflags_t console_lock(void)
{
	irqflags_t f = irq_save();
	for (uint64_t spins = 0; __atomic_exchange_n(&console_busy, 1, __ATOMIC_ACQUIRE);
	     spins++) {
		if (spins > 100000000)
			break;
		arch_cpu_relax();
	}
	return f;
}

void console_unlock(irqflags_t f)
{
	__atomic_store_n(&console_busy, 0, __ATOMIC_RELEASE);
	irq_restore(f);
}

/* Both sinks: the framebuffer, if the loader found one, and COM1. A
 * serial terminal wants CR LF. Callers hold the console (console_lock), so
 * one CPU at a time moves the framebuffer's cursor. The NMI handler does
 * not print, except when it panics. */
void console_write(const char *s, size_t n)
{
	fbcon_write(s, n);
	for (size_t i = 0; i < n; i++) {
		if (s[i] == '\n')
			arch_console_putc('\r');
		arch_console_putc(s[i]);
	}
}
