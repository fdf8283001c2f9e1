/*
 * The other CPUs (application processors): started from the MADT's list,
 * one at a time, through the real-mode trampoline (trampoline.S).
 */
#ifndef ARCH_X86_64_SMP_SMP_H
#define ARCH_X86_64_SMP_SMP_H

#include <stdbool.h>
#include <stdint.h>

/* At the end of trampoline.S, filled in per AP before its start-up IPI.
 * The three addresses hold offsets into the page until smp.c adds the
 * page's physical address. */
struct trampoline_params {
	uint16_t gdt_limit;
	uint32_t gdt_base;
	uint16_t pad0;
	uint32_t to32;      /* far pointer to the 32-bit code */
	uint16_t cs32, pad1;
	uint32_t to64;      /* far pointer to the 64-bit code */
	uint16_t cs64, pad2;
	uint64_t cr3;       /* below 4 GiB: loaded in 32-bit mode */
	uint64_t stack;     /* the AP's first rsp */
	uint64_t entry;     /* ap_entry */
	uint32_t cpu, pad3; /* the AP's index */
} __attribute__((packed));

/* APIC ID of each CPU index (0: the boot CPU), and how many are online. */
extern uint32_t cpu_apic_id[];

/* The stack an AP started on (its idle stack), for the kernel unwinder. */
bool smp_stack_bounds(uint64_t sp, uint64_t *lo, uint64_t *hi);

#endif
