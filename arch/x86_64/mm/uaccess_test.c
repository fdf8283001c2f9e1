/*
 * The user-access instructions on this CPU: SMEP and SMAP are on where the
 * CPU has them, and the single loads of <arch/user_load.h> work inside one
 * SMAP window (kern/mm/uaccess_test.c tests the portable helpers on top).
 */
#include <arch/task.h>
#include <arch/uaccess.h>
#include <arch/user_load.h>
#include "arch/x86_64/x86.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/proc/task.h"
#include "kern/mm/uaccess.h"
#include "kern/mm/uvm.h"

KTEST(uaccess_smep_smap_on)
{
	struct cpuid c = cpuid(7, 0);
	KEXPECT_EQ(t, !!(read_cr4() & CR4_SMEP), !!(c.ebx & (1u << 7)));
	KEXPECT_EQ(t, !!(read_cr4() & CR4_SMAP), !!(c.ebx & (1u << 20)));
	KEXPECT_EQ(t, arch_has_smap(), !!(c.ebx & (1u << 20)));
	if (!arch_has_smap())
		ktest_skip(t, "this CPU has no SMAP (run QEMU with -cpu max)");
}

/*
 * The single loads of <arch/user_load.h> inside one window, on the
 * same kind of address space: each width reads what copy_to_user wrote, a
 * page never touched is faulted in, the hole and anything outside the
 * user range give false (the fixup), and the window stays open across a
 * fault (the trap's iretq gives AC back) until arch_user_access_end.
 */
KTEST(uaccess_user_loads)
{
	uint64_t rw, ro;
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
	if (!mm)
		return;
	KEXPECT_EQ(t, copy_to_user(rw + 100, "\x11\x22\x33\x44\x55\x66\x77\x88", 8), 0);

	uint8_t b = 0;
	uint16_t h = 0;
	uint32_t w = 0;
	uint64_t q = 0, faults = current->kernel_page_faults;
	bool smap = arch_has_smap();
	arch_user_access_begin();
	KEXPECT(t, this_cpu_local()->uaccess_open);
	KEXPECT_EQ(t, !!(read_rflags() & RFLAGS_AC), smap);
	KEXPECT(t, arch_user_load(rw + 100, 1, &b) && b == 0x11);
	KEXPECT(t, arch_user_load(rw + 101, 2, &h) && h == 0x3322);
	KEXPECT(t, arch_user_load(rw + 103, 4, &w) && w == 0x77665544);
	KEXPECT(t, arch_user_load(rw + 100, 8, &q) && q == 0x8877665544332211ull);
	KEXPECT(t, arch_user_load(ro + 8, 8, &q) && q == 0); /* faulted in */
	KEXPECT_EQ(t, current->kernel_page_faults, faults + 1);
	KEXPECT(t, !arch_user_load(rw + PAGE_SIZE - 4, 8, &q)); /* into the hole */
	KEXPECT(t, !arch_user_load(rw + PAGE_SIZE, 1, &b));
	KEXPECT_EQ(t, !!(read_rflags() & RFLAGS_AC), smap);     /* still open */
	KEXPECT(t, !arch_user_load((uint64_t)&q, 8, &q));       /* kernel memory */
	KEXPECT(t, !arch_user_load(USER_END - 4, 8, &q));
	KEXPECT(t, !arch_user_load(UINT64_MAX - 3, 4, &w));
	arch_user_access_end();
	KEXPECT(t, !this_cpu_local()->uaccess_open);
	KEXPECT(t, !(read_rflags() & RFLAGS_AC));

	ktest_return_mm(mm);
}
