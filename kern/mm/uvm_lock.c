/* The lock of a shared address space (kern/mm/uvm.h), the wait for an
 * unmap in progress and the calling task's user range, apart from uvm.c so that the host fuzzers, which
 * cannot turn interrupts off or sleep, link uvm.c with a stand-in
 * (test/fuzz/mock.c). */
#include "kern/mm/uvm.h"
#include "kern/proc/sched.h"
#include "kern/proc/task.h"

irqflags_t uvm_lock(struct uvm *mm)
{
	return spin_lock_irqsave(&mm->lock);
}

void uvm_unlock(struct uvm *mm, irqflags_t f)
{
	spin_unlock_irqrestore(&mm->lock, f);
}

int uvm_wait_unmapping(struct uvm *mm)
{
	while (mm->unmapping) {
		int err = sleep_on_locked(&mm->unmapping, &mm->lock);
		/* A pending signal ends the sleep but not the wait, which the
		 * unmapping CPU bounds: only a kill gives up. */
		if (err && task_killed(current))
			return err;
	}
	return 0;
}

void uvm_wake_unmapping(struct uvm *mm)
{
	wakeup(&mm->unmapping);
}

uint64_t current_user_end(void)
{
	return uvm_user_end(current ? current->mm : NULL);
}
