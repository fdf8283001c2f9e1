/*
 * Reading and writing user memory from the kernel. User addresses are
 * uint64_t, never pointers, so that nothing dereferences one by accident
 * (with SMAP on, that would fault anyway).
 *
 * Every helper first checks the range against the user range [0, USER_END),
 * [0, 4 GiB) in a compat process (user_range_ok, kern/mm/uvm.h)
 * (NULL is simply unmapped), then accesses it through usercopy.S with
 * SMAP opened for that one access. A page that is part of a region but not
 * mapped yet is faulted in as if the program had touched it (so these may
 * take page faults and may not be used with interrupts off or in NMI);
 * anything else gives -EFAULT and never an oops.
 */
#ifndef KERN_MM_UACCESS_H
#define KERN_MM_UACCESS_H

#include <stdbool.h>
#include <stdint.h>

#include "kern/mm/uvm.h" /* user_range_ok */

/* 0 or -EFAULT (some bytes may have been copied). */
int copy_from_user(void *dst, uint64_t usrc, uint64_t n);
int copy_to_user(uint64_t udst, const void *src, uint64_t n);
int get_user_u64(uint64_t *val, uint64_t uaddr);
int put_user_int(uint64_t uaddr, int val);

/* Copies a NUL-terminated string into dst[max]: its length, -EFAULT, or
 * -ENAMETOOLONG when no NUL comes within max bytes. */
long strncpy_from_user(char *dst, uint64_t usrc, uint64_t max);

/*
 * For NMI context (frame-pointer walks of the user stack): copies only
 * from pages already mapped in current's address space, found by walking
 * its page tables and read through the direct map. Never faults, never
 * maps a page, takes no lock. 0 or -EFAULT.
 */
int copy_from_user_nofault(void *dst, uint64_t usrc, uint64_t n);

#endif
