/*
 * Segments. The order is fixed by SYSCALL/SYSRET: STAR[47:32] = SEG_KCODE
 * gives CS = 0x08, SS = 0x10 on entry; STAR[63:48] = SEG_KDATA gives
 * SS = 0x18 | 3 and CS = 0x20 | 3 on SYSRET to 64-bit code (the kernel
 * never uses SYSRET to 32-bit code, whose CS would be STAR[63:48] itself).
 * The 32-bit user code segment of compat programs comes after the TSS.
 */
#ifndef ARCH_X86_64_CPU_GDT_H
#define ARCH_X86_64_CPU_GDT_H

#define SEG_KCODE 0x08
#define SEG_KDATA 0x10
#define SEG_UDATA 0x18 /* use with RPL 3: SEG_UDATA | 3 */
#define SEG_UCODE 0x20
#define SEG_TSS   0x28
#define SEG_UCODE32 0x38 /* compat programs: DPL 3, L = 0, D = 1 */

/* Interrupt stacks (TSS IST slots, 1-based as in the IDT gate). The NMI
 * can arrive anywhere, even on the first instruction of the syscall path
 * before it switched stacks, so it always gets a known-good stack. */
#define IST_NMI 1
#define IST_DF  2
#define IST_MC  3

#ifndef __ASSEMBLY__
#include <stdbool.h>
#include <stdint.h>

/* Builds CPU cpu's GDT and TSS and loads them on the calling CPU. */
void gdt_init(unsigned cpu);
/* The IST stack holding sp (top included), any CPU's: true and its
 * [*lo, *hi). */
bool ist_stack_bounds(uint64_t sp, uint64_t *lo, uint64_t *hi);
/* The top of CPU cpu's IST stack ist (IST_*). */
uint64_t ist_stack_top(unsigned cpu, int ist);
/* The stack this CPU switches to on an interrupt from ring 3. */
void tss_set_rsp0(uint64_t rsp0);
#endif

#endif
