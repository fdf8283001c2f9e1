/*
 * NMI dispatch (the entry is nmientry.S): the handler set with
 * trap_set_handler(VEC_NMI, fn) runs, or the NMI is counted as ignored.
 * Every NMI is counted, and the TSC cycles spent in its handler.
 */
#include "arch/x86_64/arch.h"
#include "arch/x86_64/trap.h"
#include "kern/stats.h"

void nmi_dispatch(struct trap_frame *tf);

/* Per CPU: in nmi_dispatch. NMIs do not nest, so a flag is enough. */
static bool in_nmi[ARCH_MAX_CPUS];

bool arch_in_nmi(void)
{
	return __atomic_load_n(&in_nmi[arch_cpu_id()], __ATOMIC_RELAXED);
}

void nmi_dispatch(struct trap_frame *tf)
{
	uint64_t t0 = rdtsc();
	trap_handler_t fn = trap_handler(VEC_NMI);
	unsigned cpu = arch_cpu_id();

	stat_inc(STAT_NMI_COUNT);
	__atomic_store_n(&in_nmi[cpu], true, __ATOMIC_RELAXED);
	if (fn)
		fn(tf);
	else
		stat_inc(STAT_NMI_IGNORED);
	__atomic_store_n(&in_nmi[cpu], false, __ATOMIC_RELAXED);
	uint64_t dt = rdtsc() - t0;
	stat_add(STAT_NMI_CYCLES_TOTAL, dt);
	stat_max(STAT_NMI_CYCLES_MAX, dt);
}
