/*
 * Single x86_64 instructions as inline functions: port I/O, MSRs, control
 * registers, CPUID, the flags register. Nothing here has state. The few
 * instructions kern/ needs too (cli, sti, rdtsc, pause) are in the interface
 * (<arch/irq.h>, <arch/time.h>, <arch/cpu.h>) under names that say what
 * they do: irq_disable, arch_cycles, arch_cpu_relax.
 */
#ifndef ARCH_X86_64_X86_H
#define ARCH_X86_64_X86_H

#include <stdint.h>

static inline uint8_t inb(uint16_t port)
{
	uint8_t v;
	__asm__ volatile("inb %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outb(uint16_t port, uint8_t v)
{
	__asm__ volatile("outb %0, %1" : : "a"(v), "Nd"(port));
}

static inline uint32_t inl(uint16_t port)
{
	uint32_t v;
	__asm__ volatile("inl %1, %0" : "=a"(v) : "Nd"(port));
	return v;
}

static inline void outl(uint16_t port, uint32_t v)
{
	__asm__ volatile("outl %0, %1" : : "a"(v), "Nd"(port));
}

#define MSR_APIC_BASE 0x0000001bu
#define MSR_EFER      0xc0000080u
#define MSR_STAR      0xc0000081u
#define MSR_LSTAR     0xc0000082u
#define MSR_CSTAR     0xc0000083u /* SYSCALL from compatibility mode */
#define MSR_FMASK     0xc0000084u
#define MSR_FS_BASE   0xc0000100u
#define MSR_GS_BASE   0xc0000101u
#define MSR_KERNEL_GS_BASE 0xc0000102u

#define EFER_SCE (1u << 0)  /* SYSCALL/SYSRET */
#define EFER_NXE (1u << 11) /* no-execute bit in page tables */

static inline uint64_t rdmsr(uint32_t msr)
{
	uint32_t lo, hi;
	__asm__ volatile("rdmsr" : "=a"(lo), "=d"(hi) : "c"(msr));
	return (uint64_t)hi << 32 | lo;
}

static inline void wrmsr(uint32_t msr, uint64_t v)
{
	__asm__ volatile("wrmsr" : : "c"(msr), "a"((uint32_t)v), "d"((uint32_t)(v >> 32)));
}

struct cpuid { uint32_t eax, ebx, ecx, edx; };

static inline struct cpuid cpuid(uint32_t leaf, uint32_t subleaf)
{
	struct cpuid r;
	__asm__ volatile("cpuid"
			 : "=a"(r.eax), "=b"(r.ebx), "=c"(r.ecx), "=d"(r.edx)
			 : "a"(leaf), "c"(subleaf));
	return r;
}

#define CR0_WP (1ull << 16) /* ring 0 honours read-only pages */
#define CR4_PGE (1ull << 7) /* global pages survive CR3 writes */
#define CR4_UMIP (1ull << 11) /* sgdt, sidt, sldt, smsw, str: ring 0 only */
#define CR4_SMEP (1ull << 20)
#define CR4_SMAP (1ull << 21)

#define DEFINE_CR(n)                                                    \
	static inline uint64_t read_cr##n(void)                         \
	{                                                               \
		uint64_t v;                                             \
		__asm__ volatile("mov %%cr" #n ", %0" : "=r"(v));       \
		return v;                                               \
	}                                                               \
	static inline void write_cr##n(uint64_t v)                      \
	{                                                               \
		__asm__ volatile("mov %0, %%cr" #n : : "r"(v) : "memory"); \
	}
DEFINE_CR(0)
DEFINE_CR(2)
DEFINE_CR(3)
DEFINE_CR(4)
#undef DEFINE_CR

static inline void invlpg(uint64_t va)
{
	__asm__ volatile("invlpg (%0)" : : "r"(va) : "memory");
}

static inline uint64_t read_rflags(void)
{
	uint64_t f;
	__asm__ volatile("pushfq; popq %0" : "=r"(f));
	return f;
}

#define RFLAGS_IF (1ull << 9)
#define RFLAGS_DF (1ull << 10) /* string instructions step down */
#define RFLAGS_AC (1ull << 18) /* with SMAP on: ring 0 may touch user pages */

static inline void hlt(void) { __asm__ volatile("hlt" ::: "memory"); }

#endif
