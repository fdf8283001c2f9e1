/*
 * Traps: exceptions and device interrupts take one path.
 *
 *   trapentry.S   one stub per vector (pushes a zero error code where the
 *                 CPU does not, then the vector) -> trap_entry (saves the
 *                 registers into a struct trap_frame) -> trap_dispatch()
 *                 -> back through trap_entry's exit -> iretq
 *
 * The NMI has a path of its own (nmientry.S -> nmi_dispatch(), on IST1,
 * no return-to-user work) that builds the same frame and calls the
 * handler set for VEC_NMI. SYSCALL has its own entry too (syscallentry.S);
 * int $0x80, the compat system call, takes the trap path.
 *
 * A vector's handler is set with trap_set_handler(). Vectors without one:
 * exceptions print a register dump and a backtrace and panic; device
 * vectors print a warning.
 */
#ifndef ARCH_X86_64_TRAP_H
#define ARCH_X86_64_TRAP_H

/* Vectors (Intel SDM vol. 3, 6.3.1). ISA IRQ n (through the IOAPIC)
 * arrives at VEC_IRQ0 + n. */
#define VEC_DE  0  /* divide error */
#define VEC_DB  1  /* debug */
#define VEC_NMI 2
#define VEC_BP  3  /* int3: ring 3 may raise it (DPL 3 gate) */
#define VEC_OF  4  /* overflow (int $4; into is #UD in 64-bit mode): DPL 3 */
#define VEC_BR  5  /* bound range */
#define VEC_UD  6  /* invalid opcode */
#define VEC_NM  7  /* device not available */
#define VEC_DF  8  /* double fault */
#define VEC_TS  10 /* invalid TSS */
#define VEC_NP  11 /* segment not present */
#define VEC_SS  12 /* stack fault */
#define VEC_GP  13 /* general protection */
#define VEC_PF  14 /* page fault */
#define VEC_MF  16 /* x87 floating point */
#define VEC_AC  17 /* alignment check */
#define VEC_MC  18 /* machine check */
#define VEC_XM  19 /* SIMD floating point */
/* int $0x80: the system call of compat (i386) programs, a DPL 3 gate;
 * dispatched as the exceptions are, with no LAPIC acknowledgement. */
#define VEC_COMPAT_SYSCALL 0x80
#define VEC_IRQ0         32
#define VEC_PIT          (VEC_IRQ0 + 0)
#define VEC_LAPIC_TIMER  0xf0
#define VEC_SELF_IPI     0xf1 /* irq work: raised from NMI context */
#define VEC_CALL         0xf2 /* arch_smp_call: run a function on another CPU */
#define VEC_RESCHED      0xf3 /* wake an idle CPU, or end a time slice */
#define VEC_LAPIC_ERROR  0xfe
#define VEC_SPURIOUS     0xff

#ifdef __ASSEMBLY__
/*
 * CFI for debuggers. The entry paths describe their frames in .debug_frame
 * only (each file says `.cfi_sections .debug_frame`, and mk/kernel.mk
 * assembles without --gsframe): gdb walks through them into the
 * interrupted code, while the kernel's unwinder, which reads .sframe,
 * still ends at them and recognises them by their return addresses
 * (kern/unwind/kernel.c).
 *
 * Those return addresses end most kernel chains, and each is a byte of
 * its entry, never the first byte of a label (a nop keeps the exit label
 * after it): perf names a return address as it is, stitch at address - 1
 * (the call), and both then name the entry. (glibc's x86-64 __restore_rt
 * has a nop before it for the same reason.)
 *
 * CFI_TRAP_FRAME off: rsp is off bytes below the top of the CPU's
 * interrupt frame (ss is the top quadword). The interrupted rip and rsp
 * are in it, and the interrupted code was not making a call (a signal
 * frame: its pc is not a return address).
 */
.macro CFI_TRAP_FRAME off
	.cfi_signal_frame
	.cfi_def_cfa %rsp, \off
	.cfi_offset %rip, -40
	.cfi_offset %rsp, -16
.endm

.macro PUSHQ_CFI reg
	pushq \reg
	.cfi_adjust_cfa_offset 8
	.cfi_rel_offset \reg, 0
.endm

.macro POPQ_CFI reg
	popq \reg
	.cfi_adjust_cfa_offset -8
	.cfi_restore \reg
.endm

/*
 * Save and restore the general registers in struct trap_frame order (the
 * last pushed, r15, is at the lowest address). Every entry path - traps,
 * the NMI, SYSCALL - builds the same frame with these, inside its CFI.
 */
.macro PUSH_GPRS
	PUSHQ_CFI %rax
	PUSHQ_CFI %rbx
	PUSHQ_CFI %rcx
	PUSHQ_CFI %rdx
	PUSHQ_CFI %rsi
	PUSHQ_CFI %rdi
	PUSHQ_CFI %rbp
	PUSHQ_CFI %r8
	PUSHQ_CFI %r9
	PUSHQ_CFI %r10
	PUSHQ_CFI %r11
	PUSHQ_CFI %r12
	PUSHQ_CFI %r13
	PUSHQ_CFI %r14
	PUSHQ_CFI %r15
.endm

.macro POP_GPRS
	POPQ_CFI %r15
	POPQ_CFI %r14
	POPQ_CFI %r13
	POPQ_CFI %r12
	POPQ_CFI %r11
	POPQ_CFI %r10
	POPQ_CFI %r9
	POPQ_CFI %r8
	POPQ_CFI %rbp
	POPQ_CFI %rdi
	POPQ_CFI %rsi
	POPQ_CFI %rdx
	POPQ_CFI %rcx
	POPQ_CFI %rbx
	POPQ_CFI %rax
.endm
#else
#include <stdint.h>

/* What trap_entry saves, lowest address first. */
struct trap_frame {
	uint64_t r15, r14, r13, r12, r11, r10, r9, r8;
	uint64_t rbp, rdi, rsi, rdx, rcx, rbx, rax;
	uint64_t vector, error; /* error is 0 when the CPU pushes none */
	/* pushed by the CPU */
	uint64_t rip, cs, rflags, rsp, ss;
};

typedef void (*trap_handler_t)(struct trap_frame *tf);

void trap_init(void);     /* builds and loads the IDT (boot CPU) */
void trap_load_idt(void); /* loads it (the other CPUs) */
/* Installs (or, with NULL, removes) the handler of a vector. Device
 * vectors (>= 32) are acknowledged at the LAPIC before the handler runs. */
void trap_set_handler(int vector, trap_handler_t fn);
trap_handler_t trap_handler(int vector); /* the one set, or NULL */
void trap_dispatch(struct trap_frame *tf);
/* Register dump of tf on the console. */
void trap_dump(const struct trap_frame *tf);
const char *trap_name(uint64_t vector);

static inline int trap_from_user(const struct trap_frame *tf)
{
	return (tf->cs & 3) == 3;
}
#endif

#endif
