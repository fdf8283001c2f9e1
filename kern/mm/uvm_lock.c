/* The lock of a shared address space (kern/mm/uvm.h), apart from uvm.c so
 * that the host fuzzers, which cannot turn interrupts off, link uvm.c
 * with a stand-in (test/fuzz/mock.c). */
#include "kern/mm/uvm.h"

irqflags_t uvm_lock(struct uvm *mm)
{
	return spin_lock_irqsave(&mm->lock);
}

void uvm_unlock(struct uvm *mm, irqflags_t f)
{
	spin_unlock_irqrestore(&mm->lock, f);
}
