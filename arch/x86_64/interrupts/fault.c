/*
 * Exceptions that concern processes: the page fault (demand paging, and
 * the fixups of the user-access helpers) and every exception raised in
 * ring 3, which kills the offending task instead of the kernel.
 */
#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include <arch/trap.h>
#include <arch/uaccess.h>
#include "kern/kernel.h"
#include "kern/proc/task.h"
#include "kern/mm/uvm.h"
#include "kern/mm/vm.h"
#include "stitch/syscall.h"

#define PF_PRESENT (1u << 0) /* a protection fault, not a missing page */
#define PF_WRITE   (1u << 1)
#define PF_USER    (1u << 2)
#define PF_RSVD    (1u << 3)
#define PF_INSTR   (1u << 4)

extern const uint64_t uaccess_fixups[], uaccess_fixups_end[];

bool uaccess_insn(uint64_t rip)
{
	for (const uint64_t *e = uaccess_fixups; e < uaccess_fixups_end; e += 2)
		if (e[0] == rip)
			return true;
	return false;
}

bool uaccess_fixup(struct trap_frame *tf)
{
	for (const uint64_t *e = uaccess_fixups; e < uaccess_fixups_end; e += 2)
		if (e[0] == tf->rip) {
			tf->rip = e[1];
			return true;
		}
	return false;
}

/* A missing page of the current process, in a region that allows the
 * access: map it. 0, -EFAULT or -ENOMEM. */
static int demand_page(uint64_t addr, uint64_t error)
{
	struct task *t = current;
	if (!t->mm || addr >= USER_END || (error & (PF_PRESENT | PF_RSVD)))
		return -STITCH_EFAULT;
	unsigned access = (error & PF_WRITE ? VM_WRITE : 0) |
			  (error & PF_INSTR ? VM_EXEC : 0);
	return uvm_fault(t->mm, addr, access);
}

static __attribute__((noreturn)) void kernel_oops(struct trap_frame *tf)
{
	trap_dump(tf);
	panic_at(tf->rip, tf->rsp, tf->rbp, "unhandled %s", trap_name(tf->vector));
}

static void page_fault(struct trap_frame *tf)
{
	uint64_t addr = read_cr2();
	if (addr < USER_END)
		current->page_faults++;
	if (trap_from_user(tf)) {
		int err = demand_page(addr, tf->error);
		if (err == -STITCH_ENOMEM)
			task_kill(current, SIGKILL, "out of memory", tf->rip, addr);
		else if (err)
			task_kill(current, SIGSEGV, "page fault", tf->rip, addr);
		return;
	}
	/* Kernel mode: only the user-access helpers may touch user pages. */
	if (uaccess_insn(tf->rip)) {
		current->kernel_page_faults++;
		if (demand_page(addr, tf->error))
			uaccess_fixup(tf);
		return;
	}
	kernel_oops(tf);
}

/* Ring-3 exceptions: the signal and the words of the kill report. */
static const struct {
	int sig;
	const char *reason;
} user_faults[32] = {
	[VEC_DE] = { SIGFPE, "divide error" },
	[VEC_DB] = { SIGTRAP, "debug" },
	[VEC_BP] = { SIGTRAP, "breakpoint" },
	[VEC_OF] = { SIGSEGV, "overflow" },
	[VEC_BR] = { SIGSEGV, "bound range" },
	[VEC_UD] = { SIGILL, "invalid opcode" },
	[VEC_NM] = { SIGFPE, "device not available" },
	[VEC_TS] = { SIGSEGV, "invalid TSS" },
	[VEC_NP] = { SIGSEGV, "segment not present" },
	[VEC_SS] = { SIGSEGV, "stack fault" },
	[VEC_GP] = { SIGSEGV, "general protection" },
	[VEC_MF] = { SIGFPE, "x87 floating point" },
	[VEC_AC] = { SIGBUS, "alignment check" },
	[VEC_XM] = { SIGFPE, "SIMD floating point" },
};

static void user_exception(struct trap_frame *tf)
{
	if (!trap_from_user(tf) || !user_faults[tf->vector].sig)
		kernel_oops(tf);
	task_kill(current, user_faults[tf->vector].sig,
		  user_faults[tf->vector].reason, tf->rip, 0);
}

void arch_fault_init(void)
{
	trap_set_handler(VEC_PF, page_fault);
	for (int v = 0; v < 32; v++)
		if (user_faults[v].sig)
			trap_set_handler(v, user_exception);
}
