#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/mm/uaccess.h"
#include "kern/mm/uvm.h"
#include "kern/proc/elf.h"
#include "stitch/syscall.h"

/* ktest.h: an address space with /bin/fib loaded, for the current task. */
struct uvm *ktest_borrow_mm(struct ktest *t, uint64_t *rw, uint64_t *ro)
{
	struct initrd_file f;
	struct elf_image img;
	if (initrd_lookup("/bin/fib", &f) || elf_parse(f.data, f.size, &img)) {
		ktest_skip(t, "no /bin/fib in the initrd");
		return NULL;
	}
	struct uvm *mm = uvm_create();
	if (!KEXPECT(t, mm && elf_load(mm, &img, f.name) == 0))
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

void ktest_return_mm(struct uvm *mm)
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

/* The helpers on a real address space (ktest_borrow_mm). */
KTEST(uaccess_copy_helpers)
{
	uint64_t rw, ro;
	struct uvm *mm = ktest_borrow_mm(t, &rw, &ro);
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

	ktest_return_mm(mm);
}
