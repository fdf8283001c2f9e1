/*
 * Kernel entry from ring 3 and the one way back.
 *
 *   SYSCALL       syscallentry.S -> x86_syscall  -> ... -> exit_to_user_mode
 *   interrupt     trapentry.S -> trap_dispatch -> ... -> exit_to_user_mode
 *   exception     (same as interrupt)
 *   new task      switch.S -> task_first_return -> exit_to_user_mode
 *
 * Every path calls enter_from_user_mode first thing (NMIs excepted: they
 * neither enter nor leave through here) and exit_to_user_mode last thing
 * before the registers are reloaded. exit_to_user_mode is where pending
 * work runs: rescheduling, task work (the deferred user unwind), dying.
 */
#ifndef KERN_PROC_ENTRY_H
#define KERN_PROC_ENTRY_H

#include <arch/trap.h>

/* Counts the entry, charges user time. Interrupts are still off. */
void enter_from_user_mode(struct trap_frame *tf);

/*
 * Loops until no TIF_WORK_MASK bit is set: interrupts off, read the bits;
 * none -> return (interrupts stay off until the iret/sysret); else
 * interrupts on, handle them (schedule, task_work_run, task_exit), again.
 */
void exit_to_user_mode(struct trap_frame *tf);

#endif
