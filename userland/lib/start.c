/* The C half of program start: unpack the initial stack, run main, exit. */
#include <stdlib.h>

extern char **environ;
int main(int argc, char **argv, char **envp);

/* Constructors, bounded by symbols that ld's default script provides. */
typedef void (*init_fn)(void);
extern init_fn __preinit_array_start[], __preinit_array_end[];
extern init_fn __init_array_start[], __init_array_end[];

static void run_constructors(void)
{
	for (init_fn *f = __preinit_array_start; f < __preinit_array_end; f++)
		(*f)();
	for (init_fn *f = __init_array_start; f < __init_array_end; f++)
		(*f)();
}

/* Called by _start (crt0.S) with the stack pointer the kernel gave us. */
void __attribute__((noreturn, used)) stitch_start(long *sp)
{
	int argc = (int)sp[0];
	char **argv = (char **)&sp[1];
	char **envp = argv + argc + 1;	/* skips argv's NULL terminator */

	environ = envp;
	run_constructors();
	exit(main(argc, argv, envp));
}
