/*
 * kmain: from the loader's hand-off to a running kernel.
 */
#include <arch/arch.h>
#include "kern/acpi.h"
#include "kern/lib/cmdline.h"
#include "kern/lib/fbcon.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/unwind/kernel.h"
#include "kern/mm/memmap.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/profile/profile.h"
#include "kern/profile/sample.h"
#include "kern/profile/strace.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/unwind/user.h"
#include "kern/mm/vm.h"
#include "kern/watchdog.h"

struct boot_info boot_info;

extern const char __build_id_note[];

/* The GNU build ID note: namesz, descsz, type, "GNU\0", then the ID. */
static void print_build_id(void)
{
	const uint32_t *note = (const uint32_t *)__build_id_note;
	const uint8_t *id = (const uint8_t *)(note + 3) + ROUND_UP(note[0], 4);
	for (uint32_t i = 0; i < note[1]; i++)
		kprintf("%02x", id[i]);
}

static void copy_boot_info(uint64_t phys)
{
	const struct boot_info *bi = (const struct boot_info *)phys;
	if (bi->magic != BOOT_INFO_MAGIC || bi->version != BOOT_INFO_VERSION)
		panic("boot_info at 0x%lx: bad magic or version %u", phys, bi->version);
	memcpy(&boot_info, bi, MIN(bi->size, sizeof(boot_info)));
	boot_info.cmdline[BOOT_CMDLINE_MAX - 1] = '\0';
	if (boot_info.mem_count > BOOT_MEM_MAX)
		boot_info.mem_count = BOOT_MEM_MAX;
}

/* `ktest` runs all kernel tests, `ktest=<prefix>` some; `ktest.fault=`
 * alone runs only the fault-injection test. */
static const char *ktest_prefix(void)
{
	const char *prefix = cmdline_get(&boot_args, "ktest");
	if (!prefix && cmdline_get(&boot_args, "ktest.fault"))
		prefix = "trap_fault";
	return prefix;
}

void kmain(uint64_t boot_info_phys)
{
	arch_init_cpu();
	copy_boot_info(boot_info_phys);
	fbcon_init(&boot_info.fb);
	kprintf("\nStitch kernel (%s), build ", ARCH_NAME);
	print_build_id();
	kprintf("\ncommand line: %s\n", boot_info.cmdline);
	cmdline_parse(&boot_args, boot_info.cmdline);
	memmap_print(&boot_info);
	kunwind_init();

	pmm_init(&boot_info);
	kernel_space_init(&boot_info);
	kprintf("pmm: %zu pages free (%lu MiB); kernel page tables at 0x%lx\n",
		pmm_nfree(), pmm_nfree() * PAGE_SIZE >> 20, kernel_space.root);
	if (acpi_init(&boot_info))
		panic("no ACPI tables: cannot find the interrupt controllers");
	arch_init_devices();
	irq_enable();

	/* Tasks, SYSCALL, SMEP/SMAP: the process tests need them too. */
	proc_init();
	arch_start_cpus();
	/* Kernel tests own the LAPIC timer: sampling waits for a test that
	 * asks for it (the record stream is set up either way). */
	const char *prefix = ktest_prefix();
	unwind_user_init();
	profile_init(!prefix);
	/* The deferred unwinder's two consumers (docs/DEFERRED.md). */
	sample_user_init();
	strace_init();
	if (prefix)
		arch_shutdown(ktest_run(prefix) == 0);
	watchdog_init(profile_sampling());
	const char *init = cmdline_get(&boot_args, "init");
	arch_shutdown(proc_run_init(init ? init : "/bin/demo",
				    cmdline_get(&boot_args, "init.args")) == 0);
}
