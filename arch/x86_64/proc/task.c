/*
 * Tasks on x86_64: the per-CPU block, SYSCALL setup, FPU state, starting a
 * task in ring 3 and switching between tasks.
 */
#include <arch/task.h>
#include <arch/arch.h>
#include "arch/x86_64/x86.h"
#include "arch/x86_64/cpu/gdt.h"
#include <arch/uaccess.h>
#include "kern/kernel.h"
#include "kern/lib/string.h"

#define CR0_MP  (1ull << 1)
#define CR0_EM  (1ull << 2)
#define CR0_TS  (1ull << 3)
#define CR0_NE  (1ull << 5)
#define CR4_OSFXSR     (1ull << 9)
#define CR4_OSXMMEXCPT (1ull << 10)
#define CPUID7_UMIP (1u << 2) /* in ecx */
#define CPUID7_SMEP (1u << 7)
#define CPUID7_SMAP (1u << 20)

/* SYSCALL clears these in RFLAGS: no interrupts until the stack is the
 * kernel's, no single-step, DF as the C ABI wants it, and no AC, which
 * would open the SMAP window for the whole system call. */
#define FMASK_BITS (RFLAGS_IF | (1ull << 8) /* TF */ | (1ull << 10) /* DF */ | \
		    (1ull << 14) /* NT */ | (1ull << 18) /* AC */)

extern const char syscall_entry[], syscall32_entry[], task_first_entry[];
void x86_int80(struct trap_frame *tf); /* syscall.c */
void swtch(uint64_t *save_sp, uint64_t load_sp);

struct cpu_local cpu_locals[ARCH_MAX_CPUS];
static uint8_t fpu_initial[512] __attribute__((aligned(16)));
static bool smep, smap, umip;
uint8_t uaccess_smap;

static void fpu_init(void)
{
	write_cr0((read_cr0() | CR0_MP | CR0_NE) & ~(CR0_EM | CR0_TS));
	write_cr4(read_cr4() | CR4_OSFXSR | CR4_OSXMMEXCPT);
	uint32_t mxcsr = 0x1f80; /* all SSE exceptions masked, round to nearest */
	__asm__ volatile("fninit\n\t"
			 "ldmxcsr %1\n\t"
			 "fxsave64 %0"
			 : "=m"(fpu_initial) : "m"(mxcsr));
}

/* SMEP: ring 0 never executes a user page. SMAP: ring 0 never touches one
 * outside the stac/clac window of usercopy.S. UMIP: ring 3 cannot read the
 * GDT, IDT, LDT and TSS registers or CR0's low bits (sgdt, sidt, sldt,
 * str, smsw give #GP), which would show it kernel addresses. */
static void protect_kernel(void)
{
	struct cpuid c = cpuid(0, 0);
	if (c.eax < 7)
		return;
	c = cpuid(7, 0);
	smep = c.ebx & CPUID7_SMEP;
	smap = c.ebx & CPUID7_SMAP;
	umip = c.ecx & CPUID7_UMIP;
	write_cr4(read_cr4() | (smep ? CR4_SMEP : 0) | (smap ? CR4_SMAP : 0) |
		  (umip ? CR4_UMIP : 0));
	uaccess_smap = smap;
}

/* Per CPU: every CPU runs it for itself (the BSP from proc_init, the
 * others as they start: arch/x86_64/smp/smp.c). */
void arch_proc_init_cpu(unsigned cpu)
{
	fpu_init();
	protect_kernel();
	wrmsr(MSR_EFER, rdmsr(MSR_EFER) | EFER_SCE);
	wrmsr(MSR_STAR, (uint64_t)SEG_KDATA << 48 | (uint64_t)SEG_KCODE << 32);
	wrmsr(MSR_LSTAR, (uint64_t)syscall_entry);
	/* SYSCALL from compatibility mode: #UD on Intel CPUs, through CSTAR
	 * on AMD's and QEMU's; the entry refuses it either way. */
	wrmsr(MSR_CSTAR, (uint64_t)syscall32_entry);
	wrmsr(MSR_FMASK, FMASK_BITS);
	wrmsr(MSR_GS_BASE, (uint64_t)&cpu_locals[cpu]);
	wrmsr(MSR_KERNEL_GS_BASE, 0); /* what ring 3 gets after swapgs */
}

void arch_proc_init(void)
{
	arch_proc_init_cpu(arch_cpu_id());
	trap_set_handler(VEC_COMPAT_SYSCALL, x86_int80);
	kprintf("proc: SYSCALL at 0x%lx, SMEP %s, SMAP %s, UMIP %s\n",
		(uint64_t)syscall_entry, smep ? "on" : "absent",
		smap ? "on" : "absent", umip ? "on" : "absent");
}

bool arch_has_smap(void)
{
	return smap;
}

uint32_t arch_mxcsr_mask(void)
{
	/* FXSAVE stores the mask at byte 28; 0 there means the default of
	 * CPUs that predate it (Intel SDM vol. 1, 11.6.6). */
	uint32_t mask;
	memcpy(&mask, fpu_initial + 28, sizeof(mask));
	return mask ? mask : 0xffbf;
}

void arch_task_init(struct arch_task *a)
{
	a->ksp = 0;
	memcpy(a->fpu, fpu_initial, sizeof(a->fpu));
}

/* A program's first user frame: every register zero but these. */
static struct trap_frame *user_frame_init(uint64_t kstack_top, uint64_t rip,
					  uint64_t rsp, bool compat)
{
	struct trap_frame *tf = arch_user_frame(kstack_top);
	memset(tf, 0, sizeof(*tf));
	tf->rip = rip;
	tf->cs = (compat ? SEG_UCODE32 : SEG_UCODE) | 3;
	tf->rflags = RFLAGS_USER;
	tf->rsp = rsp;
	tf->ss = SEG_UDATA | 3;
	return tf;
}

void arch_task_exec_user(struct arch_task *a, uint64_t kstack_top,
			 uint64_t rip, uint64_t rsp, bool compat)
{
	user_frame_init(kstack_top, rip, rsp, compat);
	/* The task runs: its FPU state is in the registers, not in a->fpu
	 * (saved at the next switch). */
	memcpy(a->fpu, fpu_initial, sizeof(a->fpu));
	arch_fpu_load_initial();
}

void arch_fpu_load_initial(void)
{
	__asm__ volatile("fxrstor64 %0" : : "m"(fpu_initial));
}

void arch_task_start_user(struct arch_task *a, uint64_t kstack_top,
			  uint64_t rip, uint64_t rsp, bool compat)
{
	struct trap_frame *tf = user_frame_init(kstack_top, rip, rsp, compat);

	/* What swtch pops: six callee-saved registers (zero: rbp = 0 ends
	 * frame-pointer chains), then its return address. */
	uint64_t *sp = (uint64_t *)tf;
	*--sp = (uint64_t)task_first_entry;
	for (int i = 0; i < 6; i++)
		*--sp = 0;
	a->ksp = (uint64_t)sp;
}

/* DS and ES as gdt.c loads them: the kernel keeps no per-task copy, so a
 * program that reloaded them (ring 3 may) leaves them to the next task;
 * put back here, they are never another program's. */
static void user_data_segments(void)
{
	uint16_t ds, es, flat = SEG_UDATA | 3;
	__asm__ volatile("movw %%ds, %0\n\tmovw %%es, %1" : "=r"(ds), "=r"(es));
	if (ds != flat || es != flat)
		__asm__ volatile("movw %0, %%ds\n\tmovw %0, %%es" : : "r"(flat));
}

void arch_switch(struct arch_task *prev, struct arch_task *next,
		 uint64_t next_kstack_top)
{
	tss_set_rsp0(next_kstack_top);
	this_cpu_local()->kstack_top = next_kstack_top;
	user_data_segments();
	__asm__ volatile("fxsave64 %0" : "=m"(prev->fpu));
	__asm__ volatile("fxrstor64 %0" : : "m"(next->fpu));
	swtch(&prev->ksp, next->ksp);
}
