#include "kern/mm/uaccess.h"
#include <arch/uaccess.h>
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/mm/uvm.h"
#include "stitch/syscall.h"
#include <arch/user_load.h>

_Static_assert(ARCH_USER_LOAD_END == USER_END, "user_load.h and uvm.h agree on the user range");

int copy_from_user(void *dst, uint64_t usrc, uint64_t n)
{
	if (!user_range_ok(usrc, n))
		return -STITCH_EFAULT;
	return arch_copy_user(dst, (const void *)usrc, n) ? -STITCH_EFAULT : 0;
}

int copy_to_user(uint64_t udst, const void *src, uint64_t n)
{
	if (!user_range_ok(udst, n))
		return -STITCH_EFAULT;
	return arch_copy_user((void *)udst, src, n) ? -STITCH_EFAULT : 0;
}

int get_user_u64(uint64_t *val, uint64_t uaddr)
{
	if (!user_range_ok(uaddr, sizeof(*val)))
		return -STITCH_EFAULT;
	return arch_get_user_u64(val, (const void *)uaddr) ? -STITCH_EFAULT : 0;
}

int put_user_int(uint64_t uaddr, int val)
{
	return copy_to_user(uaddr, &val, sizeof(val));
}

long strncpy_from_user(char *dst, uint64_t usrc, uint64_t max)
{
	uint64_t end = current_user_end();
	if (usrc >= end)
		return -STITCH_EFAULT;
	/* Never read past the user range, even looking for the NUL. */
	uint64_t room = MIN(max, end - usrc);
	long n = arch_strncpy_user(dst, (const char *)usrc, room);
	if (n < 0)
		return -STITCH_EFAULT;
	if ((uint64_t)n < room)
		return n;
	return room < max ? -STITCH_EFAULT : -STITCH_ENAMETOOLONG;
}

int copy_from_user_nofault(void *dst, uint64_t usrc, uint64_t n)
{
	struct uvm *mm = current ? current->mm : NULL;
	if (!mm || !user_range_ok(usrc, n))
		return -STITCH_EFAULT;
	uint8_t *d = dst;
	while (n) {
		uint64_t pa;
		unsigned flags;
		if (!vm_lookup(&mm->vm, usrc, &pa, &flags) || !(flags & VM_USER))
			return -STITCH_EFAULT;
		uint64_t chunk = MIN(n, PAGE_ROUND_DOWN(usrc) + PAGE_SIZE - usrc);
		memcpy(d, p2v(pa), chunk);
		d += chunk;
		usrc += chunk;
		n -= chunk;
	}
	return 0;
}
