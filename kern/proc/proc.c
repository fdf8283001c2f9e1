/*
 * Processes: the process table, spawn, exit, wait, kill, and the kernel's
 * own role as the parent of init and of orphans.
 */
#include <arch/arch.h>
#include "kern/lib/console.h"
#include "kern/proc/elf.h"
#include "kern/fs/file.h"
#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/mm/pmm.h"
#include "kern/profile/record.h"
#include "kern/proc/sched.h"
#include "kern/lib/spinlock.h"
#include "kern/lib/string.h"
#include "kern/proc/task.h"
#include "kern/proc/task_work.h"
#include "kern/mm/uaccess.h"
#include "kern/unwind/deferred.h"
#include "kern/mm/uvm.h"
#include "stitch/syscall.h"

struct task tasks[NPROC];
/* Each CPU's idle task. The boot CPU's is the boot thread once kmain is
 * done: it runs when nothing else can, and waits for the last process to
 * go. */
struct task idle_tasks[ARCH_MAX_CPUS];
static int next_pid = 1;
/* init's pid, and its wait status once it has exited (-1 before);
 * sched_lock's. */
static int init_pid;
static int init_status = -1;
/* Per CPU, a task that exited there with the kernel as its parent: nobody
 * waits for it, so the next task to run on that CPU frees it, once the
 * switch has left its kernel stack (as Linux's finish_task_switch drops a
 * dead task). Written by the dying task and read right after the switch,
 * both under sched_lock. */
static struct task *dead_task[ARCH_MAX_CPUS];

void proc_init(void)
{
	arch_proc_init();
	arch_fault_init();
	clock_init();
	sched_init_idle();
	signal_init();
}

/* The process table is sched_lock's: the callers of these hold it. */
struct task *task_by_pid(int pid)
{
	for (struct task *t = tasks; t < tasks + NPROC; t++)
		if (t->state != TASK_FREE && t->pid == pid)
			return t;
	return NULL;
}

int proc_new_id(void)
{
	return next_pid++;
}

static struct task *free_slot(void)
{
	for (struct task *t = tasks; t < tasks + NPROC; t++)
		if (t->state == TASK_FREE)
			return t;
	return NULL;
}

/*
 * The initial stack (docs/USERLAND.md): the argument strings end at the
 * stack's top; below them, 16-byte aligned, argc, argv[], NULL, an empty
 * envp (NULL) and an empty auxv (AT_NULL, 0), in words of the program's
 * width: 8 bytes, or 4 in a compat program (docs/PROCESSES.md, "32-bit
 * programs"). Returns the rsp or -errno.
 */
static long build_stack(struct uvm *mm, char *const argv[], int argc)
{
	uint64_t strings = 0;
	for (int i = 0; i < argc; i++)
		strings += strlen(argv[i]) + 1;
	unsigned word = mm->compat ? 4 : 8;
	uint64_t words[1 + argc + 1 + 1 + 2];
	uint64_t at = uvm_stack_end(mm) - strings;
	uint64_t sp = ROUND_DOWN(at - ARRAY_SIZE(words) * word, 16);
	words[0] = argc;
	for (int i = 0; i < argc; i++) {
		uint64_t len = strlen(argv[i]) + 1;
		if (uvm_write(mm, at, argv[i], len))
			return -STITCH_ENOMEM;
		words[1 + i] = at;
		at += len;
	}
	memset(&words[1 + argc], 0, 4 * sizeof(words[0]));
	/* Little-endian: a word's low bytes come first. */
	for (uint64_t i = 0; i < ARRAY_SIZE(words); i++)
		if (uvm_write(mm, sp + i * word, &words[i], word))
			return -STITCH_ENOMEM;
	return (long)sp;
}

/* Frees what a process still holds once it is a zombie (or never ran);
 * sched_lock held. */
static void free_task(struct task *t)
{
	unwind_task_free(t);
	if (t->kstack)
		pmm_free_pages(v2p((void *)t->kstack), KSTACK_PAGES);
	memset(t, 0, sizeof(*t)); /* TASK_FREE */
}

/* The initrd program at path, parsed: 0, -ENOENT or -ENOEXEC. */
static int find_program(const char *path, struct initrd_file *exe,
			struct elf_image *img)
{
	int err = initrd_lookup(path, exe);
	if (err)
		return err;
	return elf_parse(exe->data, exe->size, img) ? -STITCH_ENOEXEC : 0;
}

/* A new address space with the program loaded and its initial stack
 * built: *mm and the rsp to start at, or -errno and nothing left over. */
static long new_image(const struct elf_image *img, const struct initrd_file *exe,
		      char *const argv[], int argc, struct uvm **mm)
{
	*mm = uvm_create();
	if (!*mm)
		return -STITCH_ENOMEM;
	long sp = elf_load(*mm, img, exe->name) || signal_map_page(*mm) ?
		  -STITCH_ENOMEM : build_stack(*mm, argv, argc);
	if (sp < 0) {
		uvm_destroy(*mm);
		*mm = NULL;
	}
	return sp;
}

/* Everything of proc_spawn that can fail, on an unused slot t. */
static int setup_task(struct task *t, const struct elf_image *img,
		      const struct initrd_file *exe, char *const argv[], int argc)
{
	uint64_t kstack = pmm_alloc_pages(KSTACK_PAGES);
	if (!kstack)
		return -STITCH_ENOMEM;
	t->kstack = (uint64_t)p2v(kstack);
	t->kstack_top = t->kstack + KSTACK_SIZE;
	t->kbounds = (struct kstack){ t->kstack, t->kstack_top };
	if (unwind_task_init(t))
		return -STITCH_ENOMEM;
	long sp = new_image(img, exe, argv, argc, &t->mm);
	if (sp < 0)
		return (int)sp;
	arch_task_init(&t->arch);
	arch_task_start_user(&t->arch, t->kstack_top, img->entry, (uint64_t)sp, img->compat);
	return 0;
}

const char *proc_base_name(const char *path)
{
	const char *base = path;
	for (const char *p = path; *p; p++)
		if (*p == '/' && p[1])
			base = p + 1;
	return base;
}

/* The profiler learns of a new process or program (COMM_EXEC): its name,
 * and where its program text is (REC_MMAP, with the initrd path the host
 * finds the ELF by). */
static void record_start(const struct task *t, uint32_t flags)
{
	const struct uvm *mm = t->mm;
	char path[INITRD_PATH_MAX + 1];
	ksnprintf(path, sizeof(path), "/%s", mm->exe_path);
	record_comm(t->pid, t->tid, t->parent ? t->parent->pid : 0, flags,
		    proc_base_name(t->name));
	record_mmap(t->pid, t->tid, mm->text_start, mm->text_end - mm->text_start,
		    mm->text_pgoff, mm->compat ? MMAP_COMPAT : 0, mm->build_id,
		    mm->build_id_size, path);
	signal_record_page(t);
}

long proc_spawn(const char *path, char *const argv[], int argc)
{
	struct initrd_file exe;
	struct elf_image img;
	int err = find_program(path, &exe, &img);
	if (err)
		return err;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	struct task *t = free_slot();
	if (t) {
		t->state = TASK_EMBRYO;
		t->pid = t->tid = proc_new_id();
		t->parent = current == &idle_task ? NULL : current;
		/* The kernel spawns one process, init: known before it can
		 * run (and exit) on another CPU. */
		if (!t->parent)
			init_pid = t->pid;
	}
	spin_unlock_irqrestore(&sched_lock, f);
	if (!t)
		return -STITCH_EAGAIN;
	char *const only_path[] = { (char *)path };
	if (argc == 0) { /* argv[0] is the program, whatever the caller gave */
		argv = only_path;
		argc = 1;
	}
	err = setup_task(t, &img, &exe, argv, argc);
	if (err) {
		if (t->mm)
			uvm_destroy(t->mm);
		f = spin_lock_irqsave(&sched_lock);
		free_task(t);
		spin_unlock_irqrestore(&sched_lock, f);
		return err;
	}
	strlcpy(t->name, argv[0], sizeof(t->name));
	if (t->parent) {
		fd_inherit(t, t->parent);
	} else {
		for (int fd = 0; fd < 3; fd++)
			t->files[fd] = file_dup(&console_file);
	}
	record_start(t, 0);
	sched_add(t);
	return t->pid;
}

long proc_exec(const char *path, char *const argv[], int argc)
{
	struct task *t = current;
	struct initrd_file exe;
	struct elf_image img;
	struct uvm *mm;
	char *const only_path[] = { (char *)path };
	if (argc == 0) {
		argv = only_path;
		argc = 1;
	}
	/* Everything that can fail comes first: a failed exec returns to
	 * the old program as it was. */
	int err = find_program(path, &exe, &img);
	if (!err)
		err = thread_exec_alone(t);
	if (err)
		return err;
	long sp = new_image(&img, &exe, argv, argc, &mm);
	if (sp < 0)
		return sp;

	/* What the profiler owes for this entry is the old program's
	 * stack: unwound now, while it is there (as at exit). */
	unwind_deferred_settle(t);
	/* As at exit, an NMI finds no address space rather than one whose
	 * tables are going. */
	struct uvm *old = t->mm;
	mm->execs = old->execs + 1;
	__atomic_store_n(&t->mm, NULL, __ATOMIC_SEQ_CST);
	vm_switch(&mm->vm);
	__atomic_store_n(&t->mm, mm, __ATOMIC_SEQ_CST);
	uvm_put(old);

	strlcpy(t->name, argv[0], sizeof(t->name));
	signal_exec(t);
	arch_task_exec_user(&t->arch, t->kstack_top, img.entry, (uint64_t)sp, img.compat);
	record_start(t, COMM_EXEC);
	return 0;
}

static void kill_locked(struct task *t, int sig, const char *reason,
			uint64_t rip, uint64_t addr)
{
	if (!t->kill_sig && t->state != TASK_ZOMBIE && t->state != TASK_FREE) {
		strlcpy(t->kill_reason, reason, sizeof(t->kill_reason));
		t->kill_rip = rip;
		t->kill_addr = addr;
		t->kill_sig = sig;
		task_set_pending(t, TIF_KILLED);
		task_kick_locked(t);
		thread_group_kill_locked(t, sig);
	}
}

void task_kill(struct task *t, int sig, const char *reason, uint64_t rip,
	       uint64_t addr)
{
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	kill_locked(t, sig, reason, rip, addr);
	spin_unlock_irqrestore(&sched_lock, f);
}

long proc_kill(int pid, int sig)
{
	if (sig < 0 || sig >= NSIG)
		return -STITCH_EINVAL;
	char reason[48];
	ksnprintf(reason, sizeof(reason), "kill(%d) by pid %d", sig, current->pid);
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	struct task *t = pid > 0 ? task_by_pid(pid) : NULL;
	/* Signal 0 only asks whether pid is there (POSIX). */
	if (t && sig == SIGKILL)
		kill_locked(t, sig, reason, 0, 0);
	else if (t && sig)
		signal_send_locked(t, sig, STITCH_SI_USER, current->pid);
	spin_unlock_irqrestore(&sched_lock, f);
	return t ? 0 : -STITCH_ESRCH;
}

/* A zombie's resources go; its CPU time goes to its parent's children's. */
static void reap(struct task *z, struct task *parent)
{
	if (parent) {
		parent->cutime_ns += z->utime_ns + z->cutime_ns;
		parent->cstime_ns += z->stime_ns + z->cstime_ns;
	}
	free_task(z);
}

void proc_thread_gone_locked(struct task *t)
{
	t->parent = NULL;
	t->state = TASK_ZOMBIE;
	dead_task[arch_cpu_id()] = t;
}

/* After every switch (kern/proc/sched.c, sched_lock held): frees the
 * kernel-parented task that just gave up this CPU for good. */
void proc_finish_switch(void)
{
	unsigned cpu = arch_cpu_id();
	struct task *t = dead_task[cpu];
	if (t && t != current) {
		dead_task[cpu] = NULL;
		reap(t, NULL);
	}
}

/* init is gone: every other process is killed (as when the init of a
 * Linux pid namespace dies), so that the machine can shut down whatever
 * they do. Each dies at its next return towards ring 3: a spinner at the
 * next tick, a sleeper at once. */
static void kill_all_locked(void)
{
	for (struct task *t = tasks; t < tasks + NPROC; t++)
		if (t != current)
			kill_locked(t, SIGKILL, "init exited", 0, 0);
}

void task_drop_resources(struct task *t)
{
	fd_close_all(t);
	/* Unpublish the address space before it goes: an NMI reading user
	 * memory (copy_from_user_nofault) must find nothing rather than
	 * freed tables. */
	struct uvm *mm = t->mm;
	__atomic_store_n(&t->mm, NULL, __ATOMIC_SEQ_CST);
	vm_switch(&kernel_space);
	uvm_put(mm);
}

void task_exit(int wait_status)
{
	struct task *t = current;
	if (t == &idle_task)
		panic("task_exit: the idle task cannot exit");
	task_work_exit(t);
	/* A sample of this last entry (exit() itself, the fault that killed
	 * it) still gets its user stack: unwound now, while it exists. */
	unwind_deferred_task_exit(t);
	thread_leave(t, wait_status); /* returns for the process's last thread */
	task_drop_resources(t);

	/* Held until the switch away is over: the parent, on another CPU,
	 * cannot free this stack before. */
	irq_disable();
	spin_lock(&sched_lock);
	for (struct task *c = tasks; c < tasks + NPROC; c++) {
		if (c->state == TASK_FREE || c->parent != t)
			continue;
		if (c->state == TASK_ZOMBIE)
			reap(c, t);
		else
			c->parent = NULL; /* the kernel will reap it */
	}
	record_exit(t->pid, t->tid, wait_status, 0);
	t->exit_status = wait_status;
	t->state = TASK_ZOMBIE;
	if (t->pid == init_pid) {
		init_status = wait_status;
		kill_all_locked();
	}
	if (t->parent)
		wakeup_locked(t->parent);
	else
		dead_task[arch_cpu_id()] = t;
	sched_exit_locked();
}

long proc_wait(int pid, uint64_t ustatus)
{
	struct task *me = current;
	irqflags_t f = spin_lock_irqsave(&sched_lock);
	for (;;) {
		bool have_child = false;
		for (struct task *c = tasks; c < tasks + NPROC; c++) {
			if (c->state == TASK_FREE || c->parent != me ||
			    (pid != -1 && c->pid != pid))
				continue;
			have_child = true;
			if (c->state != TASK_ZOMBIE)
				continue;
			/* Only this task reaps its children: c stays a zombie
			 * while the lock is off for the user copy, which may
			 * fault. A bad pointer leaves it to a later wait. */
			int cpid = c->pid, status = c->exit_status;
			spin_unlock_irqrestore(&sched_lock, f);
			if (put_user_int(ustatus, status))
				return -STITCH_EFAULT;
			f = spin_lock_irqsave(&sched_lock);
			reap(c, me);
			spin_unlock_irqrestore(&sched_lock, f);
			return cpid;
		}
		int err = have_child ? sleep_on_locked(me, &sched_lock) : -STITCH_ECHILD;
		if (err) {
			spin_unlock_irqrestore(&sched_lock, f);
			return err;
		}
	}
}

/*
 * init's argv: the path, then init.args split at commas (the command line
 * splits words at spaces, so commas separate the arguments of one word).
 */
static int init_argv(const char *path, const char *args, char *buf,
		     size_t size, char **argv, int max)
{
	int argc = 0;
	argv[argc++] = (char *)path;
	if (!args || !*args)
		return argc;
	strlcpy(buf, args, size);
	for (char *p = buf;;) {
		if (argc == max) {
			kprintf("stitch: init.args holds more than %d arguments; "
				"using the first %d\n", max - 1, max - 1);
			break;
		}
		argv[argc++] = p;
		while (*p && *p != ',')
			p++;
		if (!*p)
			break;
		*p++ = '\0';
	}
	return argc;
}

static bool any_process(void)
{
	for (struct task *t = tasks; t < tasks + NPROC; t++)
		if (t->state != TASK_FREE)
			return true;
	return false;
}

/* The boot CPU's idle loop ends with the last process (sched_lock held). */
static bool no_process(void)
{
	return !any_process();
}

int proc_run_init(const char *path, const char *args)
{
	static char buf[BOOT_CMDLINE_MAX];
	char *argv[32];
	int argc = init_argv(path, args, buf, sizeof(buf), argv, ARRAY_SIZE(argv));

	size_t before = pmm_nfree();
	int pid = (int)proc_spawn(path, argv, argc);
	if (pid < 0) {
		kprintf("stitch: cannot start init %s: error %d\n", path, -pid);
		return -1;
	}
	/* Killing and reaping happen in the processes' own exits (task_exit,
	 * proc_finish_switch), not here: this loop runs only when no process
	 * is runnable, which a CPU-bound one can prevent for ever. */
	sched_idle_loop(no_process);
	irq_enable();
	int status = init_status;
	kprintf("stitch: init (pid %d) exited with status %d\n", pid,
		(status & 0x7f) ? 128 + (status & 0x7f) : (status >> 8) & 0xff);
	kprintf("stitch: free pages before init %zu, after init %zu\n", before,
		pmm_nfree());
	return status;
}
