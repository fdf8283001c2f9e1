/* The TSC as the kernel's clock (arch_tsc_hz is measured by lapic_calibrate). */
#include <arch/time.h>

uint64_t arch_tsc_hz;

uint64_t arch_tsc_to_ns(uint64_t ticks)
{
	/* Split to avoid overflowing ticks * 1e9. */
	return ticks / arch_tsc_hz * 1000000000ull +
	       ticks % arch_tsc_hz * 1000000000ull / arch_tsc_hz;
}

void arch_delay_us(uint64_t us)
{
	uint64_t end = arch_cycles() + us * (arch_tsc_hz / 1000000);
	while (arch_cycles() < end)
		arch_cpu_relax();
}
