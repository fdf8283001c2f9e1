/*
 * h-thread CASE: threads used against the kernel.
 *   thread-exit-storm   threads started with the raw call as fast as the
 *                       kernel takes them, each leaving at once, none
 *                       joined, while the first thread keeps starting more
 *   thread-bad-args     thread_spawn and futex with kernel, unaligned,
 *                       non-canonical and unmapped addresses, bad ops
 *   thread-fault        one of four spinning threads writes to address 0:
 *                       the process dies of SIGSEGV, all of it
 */
#include <pthread.h>
#include <stdlib.h>
#include "hostile.h"

#define STORM 3000
#define STACK 4096

/* A thread that leaves at once: thread_exit from its first instruction,
 * no stack used. */
__asm__(".text\n"
	".type h_thread_leave, @function\n"
	"h_thread_leave:\n"
	"	movl $28, %eax\n"        /* SYS_thread_exit */
	"	xorl %edi, %edi\n"
	"	syscall\n"
	"	ud2\n"
	".size h_thread_leave, . - h_thread_leave\n");
void h_thread_leave(void);

static uint8_t stacks[8][STACK] __attribute__((aligned(16)));

/* The task table fills up while the threads leave (and other programs
 * run beside): a refusal is waited out with a yield, up to a bound. */
static int exit_storm(void)
{
	long started = 0, refused = 0;
	for (int i = 0; started < STORM && refused < 100 * STORM; i++) {
		long tid = sys(SYS_thread_spawn, (long)h_thread_leave,
			       (long)(stacks[i % 8] + STACK), 0, 0, 0);
		if (tid > 0) {
			started++;
		} else if (tid == -EAGAIN) {
			refused++;
			sys(SYS_yield, 0, 0, 0, 0, 0);
		} else {
			EXPECT(0, "thread_spawn %d returned %ld", i, tid);
			break;
		}
	}
	EXPECT(started == STORM, "%ld of %d threads started (%ld refusals)", started, STORM,
	       refused);
	printf("# thread-exit-storm: %ld started, %ld refusals waited out\n", started, refused);
	return 0;
}

static int bad_args(void)
{
	long entry = (long)h_thread_leave, sp = (long)(stacks[0] + STACK);
	static uint32_t word;
	EXPECT_ERR(sys(SYS_thread_spawn, KERNEL_TEXT, sp, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_thread_spawn, NONCANONICAL, sp, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_thread_spawn, 0, sp, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_thread_spawn, entry, KERNEL_DIRECT, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_thread_spawn, entry, sp - 8, 0, 0, 0), EINVAL); /* misaligned */
	EXPECT_ERR(sys(SYS_thread_spawn, entry, sp, KERNEL_DIRECT, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_thread_spawn, entry, sp, (long)&word + 1, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_futex, STITCH_FUTEX_WAIT, KERNEL_DIRECT, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_futex, STITCH_FUTEX_WAIT, NONCANONICAL, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_futex, STITCH_FUTEX_WAIT, (long)&word + 2, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_futex, STITCH_FUTEX_WAIT, 0x10000000, 0, 0, 0), EFAULT);
	EXPECT_ERR(sys(SYS_futex, STITCH_FUTEX_WAIT, (long)&word, 1, 0, 0), EAGAIN);
	EXPECT_ERR(sys(SYS_futex, STITCH_FUTEX_WAIT, (long)&word, 0, 1000000, 0), ETIMEDOUT);
	EXPECT_ERR(sys(SYS_futex, 7, (long)&word, 0, 0, 0), EINVAL);
	EXPECT_ERR(sys(SYS_futex, STITCH_FUTEX_WAKE, (long)&word, -1, 0, 0), EINVAL);
	EXPECT(sys(SYS_futex, STITCH_FUTEX_WAKE, (long)&word, 1000, 0, 0) == 0,
	       "a wake nobody waits for wakes nobody");
	return 0;
}

static volatile int spinning;

static void *spin(void *arg)
{
	__atomic_add_fetch(&spinning, 1, __ATOMIC_SEQ_CST);
	for (;;)
		__asm__ volatile("pause");
	return arg;
}

static int fault(void)
{
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		pthread_create(&t[i], NULL, spin, NULL);
	while (__atomic_load_n(&spinning, __ATOMIC_SEQ_CST) < 3)
		sys(SYS_yield, 0, 0, 0, 0, 0);
	*(volatile int *)0 = 1; /* the process dies here, its spinners too */
	return 1;
}

static const struct hcase cases[] = {
	{ "thread-exit-storm", exit_storm },
	{ "thread-bad-args", bad_args },
	{ "thread-fault", fault },
};

int main(int argc, char **argv)
{
	return hostile_main(cases, sizeof cases / sizeof cases[0], argc, argv);
}
