/*
 * What kern/unwind/table.c (the registry of unwind tables, which kern/mm/uvm.c calls)
 * needs beyond mock.c, for the targets that compile both: one CPU (index
 * 0, no RDTSCP, SMAP off), the counters, a command line with no switch
 * set, and `current`, whose mm a target sets (mock_set_current_mm) before
 * it makes a system call. The SFrame library is the real one.
 */
#include <arch/task.h>
#include "kern/lib/cmdline.h"
#include "kern/lib/stats.h"
#include "kern/proc/task.h"
#include "mock.h"

bool arch_has_rdtscp;
unsigned arch_cpu_id_lapic(void) { return 0; }
struct cpu_local cpu_locals[ARCH_MAX_CPUS];
uint8_t uaccess_smap;
uint64_t stat_counters[ARCH_MAX_CPUS][STAT_ROW];

struct cmdline boot_args;
bool cmdline_flag(const struct cmdline *c, const char *key)
{
	(void)c, (void)key;
	return false;
}
long cmdline_int(const struct cmdline *c, const char *key, long def, long min, long max)
{
	(void)c, (void)key, (void)min, (void)max;
	return def;
}
const char *cmdline_get(const struct cmdline *c, const char *key)
{
	(void)c, (void)key;
	return NULL;
}

static struct task task;
struct task *cpu_current[ARCH_MAX_CPUS] = { &task };
void mock_set_current_mm(struct uvm *mm)
{
	task.mm = mm;
}
