/* The TSC as the kernel's clock (tsc_hz is measured by lapic_calibrate). */
#include "arch/x86_64/arch.h"

uint64_t tsc_hz;

uint64_t tsc_to_ns(uint64_t ticks)
{
	/* Split to avoid overflowing ticks * 1e9. */
	return ticks / tsc_hz * 1000000000ull + ticks % tsc_hz * 1000000000ull / tsc_hz;
}

void delay_us(uint64_t us)
{
	uint64_t end = rdtsc() + us * (tsc_hz / 1000000);
	while (rdtsc() < end)
		pause();
}
