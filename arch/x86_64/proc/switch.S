/*
 * Task switching, after xv6's swtch: the callee-saved registers go onto
 * the old task's kernel stack, its rsp into *save_sp; then the new task's
 * stack is loaded and its registers popped. Everything else is either
 * caller-saved (the C caller spilled it) or in the task's struct.
 *
 * Its CFI is for debuggers only (arch/x86_64/include/arch/trap.h): a kernel unwind of a
 * task that is switched out ends here (see kern/unwind/kernel.h).
 */
#include <arch/task.h>
#include <arch/trap.h>

	.cfi_sections .debug_frame
	.text

/* void swtch(uint64_t *save_sp, uint64_t load_sp) */
	.globl swtch
swtch:
	.cfi_startproc
	PUSHQ_CFI %rbp
	PUSHQ_CFI %rbx
	PUSHQ_CFI %r12
	PUSHQ_CFI %r13
	PUSHQ_CFI %r14
	PUSHQ_CFI %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp /* the same layout: the CFI holds for the new stack */
	POPQ_CFI %r15
	POPQ_CFI %r14
	POPQ_CFI %r13
	POPQ_CFI %r12
	POPQ_CFI %rbx
	POPQ_CFI %rbp
	ret
	.cfi_endproc

/*
 * Where a new task's first swtch "returns" (arch_task_start_user built the
 * stack): rsp points at the ring-3 frame at the top of its kernel stack.
 * The C side runs the return-to-user work; then the common trap exit
 * loads the frame and irets into ring 3.
 */
	.globl task_first_entry
task_first_entry:
	.cfi_startproc simple
	CFI_TRAP_FRAME (15 * 8 + 16 + 40) /* a whole struct trap_frame */
	movq %rsp, %rdi
	call task_first_return
	jmp trap_exit
	.cfi_endproc

	.section .note.GNU-stack, "", @progbits
