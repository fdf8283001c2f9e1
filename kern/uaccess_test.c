#include "arch/x86_64/task.h"
#include "arch/x86_64/uaccess.h"
#include "arch/x86_64/user_load.h"
#include "arch/x86_64/x86.h"
#include "kern/initrd.h"
#include "kern/kernel.h"
#include "kern/ktest.h"
#include "kern/mm.h"
#include "kern/string.h"
#include "kern/task.h"
#include "kern/uaccess.h"
#include "kern/uvm.h"
#include "stitch/syscall.h"

#define CR4_SMEP (1ull << 20)
#define CR4_SMAP (1ull << 21)

/* The current task (the idle task while the tests run) borrows an
 * address space with /bin/fib loaded, a writable page at *rw followed by a
 * hole, and a read-only page at *ro. Nothing is mapped until touched.
 * NULL (the test skipped or failed) when it cannot be made. */
static struct uvm *borrow_test_mm(struct ktest *t, uint64_t *rw, uint64_t *ro)
{
	struct initrd_file f;
	struct elf_image img;
	if (initrd_lookup("/bin/fib", &f) || elf_parse(f.data, f.size, &img)) {
		ktest_skip(t, "no /bin/fib in the initrd");
		return NULL;
	}
	struct uvm *mm = uvm_create();
	if (!KEXPECT(t, mm && uvm_load_elf(mm, &img, f.name) == 0))
		return NULL;
	*rw = uvm_mmap(mm, 0, 2 * PAGE_SIZE, VM_WRITE, NULL, 0);
	*ro = uvm_mmap(mm, 0, PAGE_SIZE, 0, NULL, 0);
	if (!KEXPECT(t, (long)*rw > 0 && (long)*ro > 0 &&
			uvm_munmap(mm, *rw + PAGE_SIZE, PAGE_SIZE) == 0))
		return NULL;
	current->mm = mm;
	vm_switch(&mm->vm);
	return mm;
}

static void return_test_mm(struct uvm *mm)
{
	current->mm = NULL;
	vm_switch(&kernel_space);
	uvm_destroy(mm);
}

KTEST(uaccess_range_check)
{
	KEXPECT(t, user_range_ok(0, 0));
	KEXPECT(t, user_range_ok(0x400000, 4096));
	KEXPECT(t, user_range_ok(USER_END - 1, 1));
	KEXPECT(t, !user_range_ok(USER_END - 1, 2));
	KEXPECT(t, !user_range_ok(USER_END, 1));
	KEXPECT(t, !user_range_ok(0x0000800000000000ull, 1)); /* non-canonical */
	KEXPECT(t, !user_range_ok(0xffff800000000000ull, 8)); /* kernel half */
	KEXPECT(t, !user_range_ok(UINT64_MAX, 2));            /* wraps */
	KEXPECT(t, !user_range_ok(0x1000, UINT64_MAX));
}

KTEST(uaccess_smep_smap_on)
{
	struct cpuid c = cpuid(7, 0);
	KEXPECT_EQ(t, !!(read_cr4() & CR4_SMEP), !!(c.ebx & (1u << 7)));
	KEXPECT_EQ(t, !!(read_cr4() & CR4_SMAP), !!(c.ebx & (1u << 20)));
	KEXPECT_EQ(t, arch_has_smap(), !!(c.ebx & (1u << 20)));
	if (!arch_has_smap())
		ktest_skip(t, "this CPU has no SMAP (run QEMU with -cpu max)");
}

/* The helpers on a real address space (borrow_test_mm). */
KTEST(uaccess_copy_helpers)
{
	uint64_t rw, ro;
	struct uvm *mm = borrow_test_mm(t, &rw, &ro);
	if (!mm)
		return;

	char buf[32] = { 0 };
	uint64_t v, faults = current->kernel_page_faults;
	KEXPECT_EQ(t, copy_to_user(rw + 100, "hello", 6), 0);
	KEXPECT_EQ(t, current->kernel_page_faults, faults + 1); /* paged in */
	KEXPECT(t, vm_lookup(&mm->vm, rw, NULL, NULL));
	KEXPECT_EQ(t, copy_from_user(buf, rw + 100, 6), 0);
	KEXPECT(t, strcmp(buf, "hello") == 0);
	KEXPECT_EQ(t, strncpy_from_user(buf, rw + 100, sizeof(buf)), 5);
	KEXPECT_EQ(t, strncpy_from_user(buf, rw + 100, 3), -STITCH_ENAMETOOLONG);
	KEXPECT_EQ(t, get_user_u64(&v, rw + 100), 0);
	KEXPECT_EQ(t, v & 0xffffffffff, 0x6f6c6c6568); /* "hello" */
	/* Into the hole after the page: strings, straddling objects. */
	KEXPECT_EQ(t, copy_to_user(rw + PAGE_SIZE - 4, "xxxx", 4), 0);
	KEXPECT_EQ(t, strncpy_from_user(buf, rw + PAGE_SIZE - 4, sizeof(buf)), -STITCH_EFAULT);
	KEXPECT_EQ(t, copy_from_user(buf, rw + PAGE_SIZE - 4, 8), -STITCH_EFAULT);
	KEXPECT_EQ(t, get_user_u64(&v, rw + PAGE_SIZE - 4), -STITCH_EFAULT);
	KEXPECT_EQ(t, copy_to_user(rw + PAGE_SIZE, buf, 1), -STITCH_EFAULT);
	/* A read-only region reads (zeros) and refuses writes. */
	KEXPECT_EQ(t, copy_from_user(buf, ro, 8), 0);
	KEXPECT_EQ(t, buf[0] | buf[7], 0);
	KEXPECT_EQ(t, copy_to_user(ro, "x", 1), -STITCH_EFAULT);
	/* Never user memory. */
	KEXPECT_EQ(t, copy_from_user(buf, 0, 1), -STITCH_EFAULT);
	KEXPECT_EQ(t, copy_from_user(buf, (uint64_t)buf, 1), -STITCH_EFAULT);
	KEXPECT_EQ(t, copy_from_user(buf, 0x0000800000000000ull, 1), -STITCH_EFAULT);
	KEXPECT_EQ(t, copy_from_user(buf, USER_END - 4, 8), -STITCH_EFAULT);
	KEXPECT_EQ(t, copy_from_user(buf, UINT64_MAX, 2), -STITCH_EFAULT);
	KEXPECT_EQ(t, strncpy_from_user(buf, USER_END, 8), -STITCH_EFAULT);
	/* nofault: present pages only, and it never maps one. */
	faults = current->kernel_page_faults;
	KEXPECT_EQ(t, copy_from_user_nofault(buf, rw + 100, 6), 0);
	KEXPECT(t, strcmp(buf, "hello") == 0);
	KEXPECT_EQ(t, copy_from_user_nofault(buf, USER_END - 8, 8), -STITCH_EFAULT);
	KEXPECT(t, !vm_lookup(&mm->vm, USER_END - 8, NULL, NULL));
	KEXPECT_EQ(t, copy_from_user_nofault(buf, rw + PAGE_SIZE - 4, 8), -STITCH_EFAULT);
	KEXPECT_EQ(t, current->kernel_page_faults, faults);

	return_test_mm(mm);
}

/*
 * The single loads of arch/x86_64/user_load.h inside one window, on the
 * same kind of address space: each width reads what copy_to_user wrote, a
 * page never touched is faulted in, the hole and anything outside the
 * user range give false (the fixup), and the window stays open across a
 * fault (the trap's iretq gives AC back) until arch_user_access_end.
 */
KTEST(uaccess_user_loads)
{
	uint64_t rw, ro;
	struct uvm *mm = borrow_test_mm(t, &rw, &ro);
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

	return_test_mm(mm);
}
