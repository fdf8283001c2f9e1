/* The TSC as the kernel's clock (tsc_hz is measured by lapic_calibrate). */
#include <arch/arch.h>

uint64_t tsc_hz;

uint64_t tsc_to_ns(uint64_t ticks)
{
	/* Split to avoid overflowing ticks * 1e9. */
	return ticks / tsc_hz * 1000000000ull + ticks % tsc_hz * 1000000000ull / tsc_hz;
}

void delay_us(uint64_t us)
{
	uint64_t end = arch_cycles() + us * (tsc_hz / 1000000);
	while (arch_cycles() < end)
		cpu_relax();
}
