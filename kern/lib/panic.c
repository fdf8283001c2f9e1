#include <stdarg.h>

#include <arch/arch.h>
#include "kern/kernel.h"
#include "kern/unwind/kernel.h"

static bool panicking;

/* Where the backtrace starts: interrupted registers, or the caller of the
 * function that panicked (kunwind_here's skip marker). */
struct origin {
	bool regs;
	uint64_t ip, sp, fp;
	uint64_t skip_sp;
};

bool in_panic(void)
{
	return __atomic_load_n(&panicking, __ATOMIC_RELAXED);
}

__attribute__((noreturn)) static void vpanic(const struct origin *o, const char *fmt, va_list ap)
{
	irq_disable();
	if (panicking) /* a fault while panicking: say nothing more */
		arch_shutdown(false);
	panicking = true;
	kprintf("panic: ");
	kvprintf(fmt, ap);
	kprintf("\n");
	if (o->regs)
		kunwind_print_from(o->ip, o->sp, o->fp);
	else
		kunwind_print_here(o->skip_sp);
	arch_shutdown(false);
}

void panic_at(uint64_t ip, uint64_t sp, uint64_t fp, const char *fmt, ...)
{
	struct origin o = { .regs = true, .ip = ip, .sp = sp, .fp = fp };
	va_list ap;
	va_start(ap, fmt);
	vpanic(&o, fmt, ap);
}

/* The backtrace starts in panic's caller: #0 is the return address. */
void panic(const char *fmt, ...)
{
	struct origin o = { .regs = false, .skip_sp = KUNWIND_CALLER };
	va_list ap;
	va_start(ap, fmt);
	vpanic(&o, fmt, ap);
}
