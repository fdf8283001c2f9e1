/*
 * capture: run the workload once, writing snapshots to argv[1].
 *
 * The workload runs on a stack of this program's own, entered through
 * run_on_own_stack() with no caller below it: its CFI marks the return
 * address undefined (the end of the stack for every DWARF unwinder) and it
 * clears rbp (the end for a frame-pointer walk). Every snapshot's chain
 * then ends in code this repository built, never in the host's C library,
 * whose layout and symbols differ from one machine to the next; the
 * golden outputs of the tests stay the same on any host.
 */
#include <stdio.h>

#include "capture.h"

#define OWN_STACK_BYTES (128 * 1024)

static _Alignas(16) unsigned char own_stack[OWN_STACK_BYTES];

/* int run_on_own_stack(void *top, int (*fn)(int), int arg) */
__asm__(
	".text\n"
	".type run_on_own_stack, @function\n"
	"run_on_own_stack:\n"
	".cfi_startproc\n"
	"	pushq %rbx\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_offset rbx, -16\n"
	"	pushq %rbp\n"
	".cfi_def_cfa_offset 24\n"
	".cfi_offset rbp, -24\n"
	"	movq %rsp, %rbx\n"             /* the caller's stack, kept in rbx */
	".cfi_def_cfa_register rbx\n"
	"	movq %rdi, %rsp\n"
	"	xorl %ebp, %ebp\n"             /* no frame below: fp walks stop */
	"	movl %edx, %edi\n"
	".cfi_remember_state\n"
	".cfi_undefined rip\n"                 /* no frame below: DWARF walks stop */
	"	call *%rsi\n"
	"	movq %rbx, %rsp\n"
	".cfi_restore_state\n"
	".cfi_def_cfa_register rsp\n"
	"	popq %rbp\n"
	".cfi_def_cfa_offset 16\n"
	".cfi_restore rbp\n"
	"	popq %rbx\n"
	".cfi_def_cfa_offset 8\n"
	".cfi_restore rbx\n"
	"	ret\n"
	".cfi_endproc\n"
	".size run_on_own_stack, .-run_on_own_stack\n");

int run_on_own_stack(void *top, int (*fn)(int), int arg);

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s SNAPSHOT-FILE\n", argv[0]);
		return 2;
	}
	void *top = own_stack + OWN_STACK_BYTES;
	snap_begin(argv[1], top);
	int r = run_on_own_stack(top, run_all, 3);
	snap_end();
	return r == 0 ? 1 : 0; /* use the result so nothing is optimised away */
}
