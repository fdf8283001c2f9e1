/*
 * Traps: exceptions, NMIs and device interrupts all take one path.
 *
 *   trapentry.S   one stub per vector (pushes a zero error code where the
 *                 CPU does not, then the vector) -> trap_entry (saves the
 *                 registers into a struct trap_frame) -> trap_dispatch()
 *                 -> back through trap_entry's exit -> iretq
 *
 * A vector's handler is set with trap_set_handler(). Vectors without one:
 * exceptions print a register dump and a backtrace and panic; device
 * vectors print a warning.
 */
#ifndef ARCH_X86_64_TRAP_H
#define ARCH_X86_64_TRAP_H

/* Vectors. ISA IRQ n (through the IOAPIC) arrives at VEC_IRQ0 + n. */
#define VEC_DE  0
#define VEC_NMI 2
#define VEC_BP  3
#define VEC_UD  6
#define VEC_DF  8
#define VEC_GP  13
#define VEC_PF  14
#define VEC_MC  18
#define VEC_IRQ0         32
#define VEC_PIT          (VEC_IRQ0 + 0)
#define VEC_LAPIC_TIMER  0xf0
#define VEC_SELF_IPI     0xf1 /* irq work: raised from NMI context */
#define VEC_CALL         0xf2 /* smp_call: run a function on another CPU */
#define VEC_RESCHED      0xf3 /* wake an idle CPU, or end a time slice */
#define VEC_LAPIC_ERROR  0xfe
#define VEC_SPURIOUS     0xff

#ifdef __ASSEMBLY__
/*
 * Save and restore the general registers in struct trap_frame order (the
 * last pushed, r15, is at the lowest address). Every entry path - traps,
 * the NMI, SYSCALL - builds the same frame with these.
 */
.macro PUSH_GPRS
	pushq %rax
	pushq %rbx
	pushq %rcx
	pushq %rdx
	pushq %rsi
	pushq %rdi
	pushq %rbp
	pushq %r8
	pushq %r9
	pushq %r10
	pushq %r11
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
.endm

.macro POP_GPRS
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %r11
	popq %r10
	popq %r9
	popq %r8
	popq %rbp
	popq %rdi
	popq %rsi
	popq %rdx
	popq %rcx
	popq %rbx
	popq %rax
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
