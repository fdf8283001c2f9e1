/*
 * The kernel heap. Objects up to KMALLOC_MAX_SMALL bytes come from
 * one-page slabs of a power-of-two size class; larger ones get their own
 * run of pages. Every empty slab goes back to the page allocator, so
 * freeing everything restores pmm_nfree(). Alignment: 16 bytes.
 * kmalloc may be called with interrupts enabled or disabled, not from NMI.
 */
#ifndef KERN_MM_KMALLOC_H
#define KERN_MM_KMALLOC_H

#include <stddef.h>

#define KMALLOC_MAX_SMALL 1024

void *kmalloc(size_t n);  /* NULL when out of memory, or for n == 0 */
void *kzalloc(size_t n);  /* zeroed */
void kfree(void *p);      /* p from kmalloc/kzalloc, or NULL */

#endif
