#include <arch/arch.h>
#include <arch/ktest.h>
#include <arch/trap.h>
#include "kern/kernel.h"
#include "kern/lib/ktest.h"
#include "kern/unwind/kernel.h"

/*
 * A known chain of calls: the test calls kt_a, which calls kt_b, which
 * calls kt_c. noipa keeps each one a real function (not inlined, cloned
 * or merged); the increments after each call keep the calls from
 * becoming jumps. Which function an address is in comes from the kernel's
 * own table: the FDE that covers it starts at the function's symbol.
 */
static volatile uint64_t sink;
static uint64_t ips[KUNWIND_MAX_FRAMES];
static int nips;

enum how { HERE_CALLER, HERE_SELF, TRAP, NMI };
static enum how how;

/* The function an address belongs to is fn: return addresses point after
 * their call, so they are looked up one byte earlier. */
static bool in_function(uint64_t addr, bool ret, const void *fn)
{
	struct sf_fde fde;
	if (sf_fde_find(kunwind_table(), ret ? addr - 1 : addr, &fde))
		return false;
	return fde.start == (uint64_t)fn;
}

static void unwind_in_handler(struct trap_frame *tf)
{
	nips = kunwind_from(tf->rip, tf->rsp, tf->rbp, ips, KUNWIND_MAX_FRAMES);
}

/* Sends itself an NMI and spins until the handler has unwound. The NMI
 * comes with the ICR write, not after a time that a loaded host may
 * stretch: the bound counts iterations, and only keeps a lost NMI from
 * hanging the run. */
__attribute__((noipa)) static void kt_wait_nmi(void)
{
	arch_self_nmi();
	for (int i = 0; i < 1000000 && !__atomic_load_n(&nips, __ATOMIC_ACQUIRE); i++)
		sink++;
}

__attribute__((noipa)) static void kt_c(void)
{
	switch (how) {
	case HERE_CALLER:
		nips = kunwind_here(KUNWIND_CALLER, ips, KUNWIND_MAX_FRAMES);
		break;
	case HERE_SELF:
		nips = kunwind_here(0, ips, KUNWIND_MAX_FRAMES);
		break;
	case TRAP:
		__asm__ volatile("int3");
		break;
	case NMI:
		kt_wait_nmi();
		break;
	}
	sink++;
}

__attribute__((noipa)) static void kt_b(void)
{
	kt_c();
	sink++;
}

__attribute__((noipa)) static void kt_a(void)
{
	kt_b();
	sink++;
}

static void run(enum how h)
{
	how = h;
	nips = 0;
	kt_a();
}

/* ips[from ..] are return addresses into kt_b, kt_a, then `test`. */
static void expect_chain(struct ktest *t, int from, const void *test)
{
	KASSERT(t, nips >= from + 3);
	KEXPECT(t, in_function(ips[from], true, kt_b));
	KEXPECT(t, in_function(ips[from + 1], true, kt_a));
	KEXPECT(t, in_function(ips[from + 2], true, test));
}

void kmain(uint64_t boot_info_phys);

/* The chain ends at kmain's caller, _start, which has no SFrame entry. */
static void expect_kmain_end(struct ktest *t)
{
	extern const char _start[];
	struct sf_fde fde;
	KASSERT(t, nips >= 2);
	KEXPECT(t, in_function(ips[nips - 2], true, kmain));
	KEXPECT(t, ips[nips - 1] > (uint64_t)_start && ips[nips - 1] < (uint64_t)_start + 32);
	KEXPECT(t, sf_fde_find(kunwind_table(), ips[nips - 1] - 1, &fde) != 0);
}

KTEST(kunwind_here_skips_to_caller)
{
	run(HERE_CALLER);
	expect_chain(t, 0, ktest_fn_kunwind_here_skips_to_caller);
	expect_kmain_end(t);
}

KTEST(kunwind_here_from_itself)
{
	run(HERE_SELF);
	KASSERT(t, nips >= 5);
	KEXPECT(t, in_function(ips[0], false, kunwind_here));
	KEXPECT(t, in_function(ips[1], true, kt_c));
	expect_chain(t, 2, ktest_fn_kunwind_here_from_itself);
	expect_kmain_end(t);
}

/* From a trap frame (int3 in kt_c): the interrupted rip, then its callers. */
KTEST(kunwind_from_trap_frame)
{
	trap_set_handler(VEC_BP, unwind_in_handler);
	run(TRAP);
	trap_set_handler(VEC_BP, NULL);
	KASSERT(t, nips >= 4);
	KEXPECT(t, in_function(ips[0], false, kt_c));
	expect_chain(t, 1, ktest_fn_kunwind_from_trap_frame);
	expect_kmain_end(t);
}

/* The sampler's situation: an NMI on its own stack, interrupting kt_c's
 * callee with interrupts disabled; the unwind reads the interrupted stack. */
KTEST(kunwind_from_nmi)
{
	trap_set_handler(VEC_NMI, unwind_in_handler);
	irqflags_t f = irq_save();
	run(NMI);
	irq_restore(f);
	trap_set_handler(VEC_NMI, NULL);
	/* The NMI lands in kt_wait_nmi, or still in arch_self_nmi (right
	 * after the write that sent it), which kt_wait_nmi called. */
	int at = nips > 0 && in_function(ips[0], false, kt_wait_nmi) ? 0 :
		 nips > 1 && in_function(ips[0], false, arch_self_nmi) &&
		 in_function(ips[1], true, kt_wait_nmi) ? 1 : -1;
	KASSERT(t, at >= 0 && nips >= at + 5);
	KEXPECT(t, in_function(ips[at + 1], true, kt_c));
	expect_chain(t, at + 2, ktest_fn_kunwind_from_nmi);
	expect_kmain_end(t);
}

static void unwind_here_in_handler(struct trap_frame *tf)
{
	(void)tf;
	nips = kunwind_here(0, ips, KUNWIND_MAX_FRAMES);
}

/* An unwind that starts inside a trap handler crosses the trap frame
 * (trap_return is the return address) into the interrupted code. */
KTEST(kunwind_crosses_trap_frames)
{
	extern const uint64_t trap_return;
	trap_set_handler(VEC_BP, unwind_here_in_handler);
	run(TRAP);
	trap_set_handler(VEC_BP, NULL);
	int at = -1;
	for (int i = 0; i < nips; i++)
		if (ips[i] == trap_return)
			at = i;
	KASSERT(t, at > 1 && nips >= at + 5);
	/* trap_dispatch may have tail-called the handler: then the handler
	 * returns to trap_return itself. */
	KEXPECT(t, in_function(ips[at - 1], true, trap_dispatch) ||
		   in_function(ips[at - 1], true, unwind_here_in_handler));
	KEXPECT(t, in_function(ips[0], false, kunwind_here));
	KEXPECT(t, in_function(ips[at + 1], false, kt_c));
	expect_chain(t, at + 2, ktest_fn_kunwind_crosses_trap_frames);
	expect_kmain_end(t);
}

/* Registers that do not describe a kernel stack give the ip and nothing
 * else: no read outside the known stacks. */
KTEST(kunwind_unknown_stack)
{
	uint64_t out[4];
	KEXPECT_EQ(t, kunwind_from((uint64_t)kt_c, 0x1000, 0, out, 4), 1);
	KEXPECT_EQ(t, out[0], (uint64_t)kt_c);
	/* A user-half sp, as in the syscall entry before its stack switch. */
	KEXPECT_EQ(t, kunwind_from((uint64_t)kt_c, 0x7ffffffde000ull, 0, out, 4), 1);
	KEXPECT_EQ(t, kunwind_from((uint64_t)kt_c, 0x1000, 0, out, 0), 0);
}

/* A pc without SFrame data (assembly) ends the walk at once; a
 * bound of max frames is honoured. */
KTEST(kunwind_limits)
{
	extern const char trap_stubs[];
	uint64_t out[KUNWIND_MAX_FRAMES], sp;
	__asm__ volatile("movq %%rsp, %0" : "=r"(sp));
	KEXPECT_EQ(t, kunwind_from((uint64_t)trap_stubs, sp, 0, out, KUNWIND_MAX_FRAMES), 1);
	run(HERE_SELF);
	KASSERT(t, nips > 3);
	KEXPECT_EQ(t, kunwind_here(0, out, 3), 3);
}
