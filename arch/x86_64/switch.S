/*
 * Task switching, after xv6's swtch: the callee-saved registers go onto
 * the old task's kernel stack, its rsp into *save_sp; then the new task's
 * stack is loaded and its registers popped. Everything else is either
 * caller-saved (the C caller spilled it) or in the task's struct.
 *
 * No CFI on purpose (see kern/kunwind.h): a kernel unwind of a task that
 * is switched out ends here.
 */
#include "arch/x86_64/task.h"

	.text

/* void swtch(uint64_t *save_sp, uint64_t load_sp) */
	.globl swtch
swtch:
	pushq %rbp
	pushq %rbx
	pushq %r12
	pushq %r13
	pushq %r14
	pushq %r15
	movq %rsp, (%rdi)
	movq %rsi, %rsp
	popq %r15
	popq %r14
	popq %r13
	popq %r12
	popq %rbx
	popq %rbp
	ret

/*
 * Where a new task's first swtch "returns" (arch_task_start_user built the
 * stack): rsp points at the ring-3 frame at the top of its kernel stack.
 * The C side runs the return-to-user work; then the common trap exit
 * loads the frame and irets into ring 3.
 */
	.globl task_first_entry
task_first_entry:
	movq %rsp, %rdi
	call task_first_return
	.globl task_first_exit
task_first_exit:
	jmp trap_exit

	.section .note.GNU-stack, "", @progbits
