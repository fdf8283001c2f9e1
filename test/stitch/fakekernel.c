/*
 * A stand-in for the kernel image in tests: a freestanding ELF linked at
 * Stitch's kernel address, whose functions have the names a profile of
 * the real kernel shows. Only the symbols and their addresses matter.
 */
#define NOINLINE __attribute__((noinline, used))

volatile long kernel_sink;

NOINLINE void nmi_handler(void) { kernel_sink += 1; }
NOINLINE void do_nmi(void) { nmi_handler(); kernel_sink += 2; }
NOINLINE void copy_to_user(void) { kernel_sink += 3; }
NOINLINE void sys_write(void) { copy_to_user(); kernel_sink += 4; }
NOINLINE void syscall_dispatch(void) { sys_write(); kernel_sink += 5; }
NOINLINE void syscall_entry(void) { syscall_dispatch(); kernel_sink += 6; }
NOINLINE void sched_idle_loop(void) { for (;;) kernel_sink += 7; }

NOINLINE void kernel_main(void)
{
	do_nmi();
	syscall_entry();
	sched_idle_loop();
}
