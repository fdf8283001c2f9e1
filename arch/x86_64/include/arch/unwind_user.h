/*
 * The few x86_64 facts the generic user unwinder (kern/unwind/user.c) and
 * the sampler's user part (kern/profile/sample_user.c) need: where a frame-pointer
 * frame keeps the caller's fp and the return address, which registers a
 * user context has, and how they map to the record's register order.
 * (SFrame frames need little more: the section's header fixes the RA slot
 * at CFA-8 and sframe/ knows the AMD64 register numbers; a flexible FDE may
 * name any register, which only the interrupted frame has.)
 */
#ifndef ARCH_X86_64_UNWIND_USER_H
#define ARCH_X86_64_UNWIND_USER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <arch/trap.h>
#include "sframe/sframe.h"
#include "stitch/records.h"
#include "stitch/signal.h"

/*
 * A frame-pointer frame (push %rbp; mov %rsp, %rbp):
 *   [fp + 8]  return address into the caller
 *   [fp]      the caller's fp
 * and the caller's sp after the return is fp + 16 (the CFA).
 */
#define UNWIND_USER_FP_NEXT 0
#define UNWIND_USER_FP_RA   8
#define UNWIND_USER_FP_CFA  16

/* Stack slots are 8-byte words; a frame pointer is 8-byte aligned. */
#define UNWIND_USER_WORD 8

/*
 * A 32-bit (compat, i386) program's frame-pointer frame (push %ebp;
 * mov %esp, %ebp): 4-byte words, [fp + 4] the return address, [fp] the
 * caller's ebp, the CFA fp + 8; every address of its stack is below
 * 4 GiB, the end of its user range.
 */
#define UNWIND_COMPAT_FP_NEXT 0
#define UNWIND_COMPAT_FP_RA   4
#define UNWIND_COMPAT_FP_CFA  8
#define UNWIND_COMPAT_WORD    4
#define UNWIND_COMPAT_END     (1ull << 32)

/* The user context an unwind starts from: pc, sp and fp of a trap frame. */
static inline void unwind_user_start(const struct trap_frame *tf,
				     struct sf_frame *f)
{
	f->pc = tf->rip;
	f->sp = tf->rsp;
	f->fp = tf->rbp;
	f->caller = false;
}

/* The interrupted frame's registers by DWARF number (the AMD64 psABI's
 * order: rax, rdx, rcx, rbx, rsi, rdi, rbp, rsp, r8-r15, rip), for a
 * flexible FDE that bases the CFA on one, e.g. r10 around gcc's stack
 * realignment (sf_step_first). */
#define UNWIND_USER_DWARF_REGS 17
static inline void unwind_user_dwarf_regs(const struct trap_frame *tf,
					  uint64_t r[UNWIND_USER_DWARF_REGS])
{
	r[0] = tf->rax;
	r[1] = tf->rdx;
	r[2] = tf->rcx;
	r[3] = tf->rbx;
	r[4] = tf->rsi;
	r[5] = tf->rdi;
	r[6] = tf->rbp;
	r[7] = tf->rsp;
	r[8] = tf->r8;
	r[9] = tf->r9;
	r[10] = tf->r10;
	r[11] = tf->r11;
	r[12] = tf->r12;
	r[13] = tf->r13;
	r[14] = tf->r14;
	r[15] = tf->r15;
	r[16] = tf->rip;
}

/* A compat (i386) frame's registers by the i386 psABI's DWARF numbers
 * (eax, ecx, edx, ebx, esp, ebp, esi, edi, eip), for the same purpose:
 * the low halves of the trap frame's, which is all a 32-bit program
 * has. */
#define UNWIND_COMPAT_DWARF_REGS 9
static inline void unwind_compat_dwarf_regs(const struct trap_frame *tf,
					    uint64_t r[UNWIND_COMPAT_DWARF_REGS])
{
	r[0] = (uint32_t)tf->rax;
	r[1] = (uint32_t)tf->rcx;
	r[2] = (uint32_t)tf->rdx;
	r[3] = (uint32_t)tf->rbx;
	r[4] = (uint32_t)tf->rsp;
	r[5] = (uint32_t)tf->rbp;
	r[6] = (uint32_t)tf->rsi;
	r[7] = (uint32_t)tf->rdi;
	r[8] = (uint32_t)tf->rip;
}

/*
 * A signal frame (include/stitch/signal.h): in the signal page's
 * trampoline, sp points at the frame's info, and the interrupted context
 * is in the sigcontext after it. UNWIND_USER_SIG_* are the offsets from
 * that sp of the interrupted rip, rsp and rbp, and of the whole
 * sigcontext; unwind_user_sig_dwarf_reg gives each DWARF register's.
 */
#define UNWIND_USER_SIG_SC  (STITCH_SIGFRAME_SC - STITCH_SIGFRAME_INFO)
#define UNWIND_USER_SIG_RIP (UNWIND_USER_SIG_SC + offsetof(struct stitch_sigcontext, rip))
#define UNWIND_USER_SIG_RSP (UNWIND_USER_SIG_SC + offsetof(struct stitch_sigcontext, rsp))
#define UNWIND_USER_SIG_RBP (UNWIND_USER_SIG_SC + offsetof(struct stitch_sigcontext, rbp))
/* The frame below the interrupted sp: the kernel writes it under the red
 * zone, so an interrupted rsp is at least this far above the trampoline's. */
#define UNWIND_USER_SIG_MIN_GAP (sizeof(struct stitch_sigframe) - STITCH_SIGFRAME_INFO + 128)

static inline bool unwind_user_in_sigpage(uint64_t pc)
{
	return pc - STITCH_SIGPAGE_ADDR < 4096;
}

static inline uint64_t unwind_user_sig_dwarf_reg(int regno)
{
	static const uint8_t at[UNWIND_USER_DWARF_REGS] = {
		offsetof(struct stitch_sigcontext, rax), offsetof(struct stitch_sigcontext, rdx),
		offsetof(struct stitch_sigcontext, rcx), offsetof(struct stitch_sigcontext, rbx),
		offsetof(struct stitch_sigcontext, rsi), offsetof(struct stitch_sigcontext, rdi),
		offsetof(struct stitch_sigcontext, rbp), offsetof(struct stitch_sigcontext, rsp),
		offsetof(struct stitch_sigcontext, r8), offsetof(struct stitch_sigcontext, r9),
		offsetof(struct stitch_sigcontext, r10), offsetof(struct stitch_sigcontext, r11),
		offsetof(struct stitch_sigcontext, r12), offsetof(struct stitch_sigcontext, r13),
		offsetof(struct stitch_sigcontext, r14), offsetof(struct stitch_sigcontext, r15),
		offsetof(struct stitch_sigcontext, rip),
	};
	return UNWIND_USER_SIG_SC + at[regno];
}

/* All user registers of a trap frame, in enum rec_reg order (stack copies). */
static inline void unwind_user_regs(const struct trap_frame *tf,
				    uint64_t r[REC_NREGS])
{
	r[REC_REG_AX] = tf->rax;
	r[REC_REG_BX] = tf->rbx;
	r[REC_REG_CX] = tf->rcx;
	r[REC_REG_DX] = tf->rdx;
	r[REC_REG_SI] = tf->rsi;
	r[REC_REG_DI] = tf->rdi;
	r[REC_REG_BP] = tf->rbp;
	r[REC_REG_SP] = tf->rsp;
	r[REC_REG_IP] = tf->rip;
	r[REC_REG_FLAGS] = tf->rflags;
	r[REC_REG_R8] = tf->r8;
	r[REC_REG_R9] = tf->r9;
	r[REC_REG_R10] = tf->r10;
	r[REC_REG_R11] = tf->r11;
	r[REC_REG_R12] = tf->r12;
	r[REC_REG_R13] = tf->r13;
	r[REC_REG_R14] = tf->r14;
	r[REC_REG_R15] = tf->r15;
}

#endif
