#include <stdarg.h>

#include "arch/x86_64/arch.h"
#include "kern/kernel.h"

static bool panicking;

__attribute__((noreturn)) static void vpanic_at(uint64_t ip, uint64_t bp, const char *fmt, va_list ap)
{
	cli();
	if (panicking) /* a fault while panicking: say nothing more */
		arch_shutdown(false);
	panicking = true;
	kprintf("panic: ");
	kvprintf(fmt, ap);
	kprintf("\n");
	arch_backtrace(ip, bp);
	arch_shutdown(false);
}

void panic_at(uint64_t ip, uint64_t bp, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vpanic_at(ip, bp, fmt, ap);
}

/* The backtrace starts in panic's caller: the return address, and the
 * caller's frame pointer saved in panic's own frame. */
void panic(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vpanic_at((uint64_t)__builtin_return_address(0),
		  *(uint64_t *)__builtin_frame_address(0), fmt, ap);
}
