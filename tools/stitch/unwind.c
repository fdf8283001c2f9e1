#include "unwind.h"

#include <string.h>

/* DWARF register numbers of x86_64 (psABI), in the order regs[] is given. */
static const int dwarf_order[16] = {
	REC_REG_AX, REC_REG_DX, REC_REG_CX, REC_REG_BX,
	REC_REG_SI, REC_REG_DI, REC_REG_BP, REC_REG_SP,
	REC_REG_R8, REC_REG_R9, REC_REG_R10, REC_REG_R11,
	REC_REG_R12, REC_REG_R13, REC_REG_R14, REC_REG_R15,
};

/* The one thread of the "process" is whichever sample is being unwound. */
static pid_t next_thread(Dwfl *dwfl, void *arg, void **thread_argp)
{
	(void)dwfl;
	struct proc *p = arg;
	if (*thread_argp)
		return 0;
	*thread_argp = p;
	return (pid_t)p->cur->tid;
}

static bool get_thread(Dwfl *dwfl, pid_t tid, void *arg, void **thread_argp)
{
	(void)dwfl;
	(void)tid;
	*thread_argp = arg;
	return true;
}

static bool memory_read(Dwfl *dwfl, Dwarf_Addr addr, Dwarf_Word *result, void *arg)
{
	(void)dwfl;
	struct proc *p = arg;
	const struct stack_copy *sc = p->cur->copy;
	uint64_t sp = sc->regs[REC_REG_SP];
	/* Only the copied bytes exist; written this way it cannot overflow. */
	if (addr < sp || addr - sp > sc->size || sc->size - (addr - sp) < 8) {
		/* Above sp the stack goes on where the copy ended; below it
		 * is the red zone (psABI 3.2.2), where an epilogue's pops
		 * leave the registers the CFI still says are saved. */
		p->copy_past_end |= addr >= sp;
		p->copy_below_sp |= addr < sp;
		return false;
	}
	memcpy(result, sc->stack + (addr - sp), 8);
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct stack_copy *sc = ((struct proc *)arg)->cur->copy;
	Dwarf_Word regs[16];
	for (int i = 0; i < 16; i++)
		regs[i] = sc->regs[dwarf_order[i]];
	if (!dwfl_thread_state_registers(thread, 0, 16, regs))
		return false;
	dwfl_thread_state_register_pc(thread, sc->regs[REC_REG_IP]);
	return true;
}

static const Dwfl_Thread_Callbacks callbacks = {
	.next_thread = next_thread,
	.get_thread = get_thread,
	.memory_read = memory_read,
	.set_initial_registers = set_initial_registers,
};

struct frames {
	uint64_t *out;
	uint32_t n, max;
};

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct frames *f = arg;
	Dwarf_Addr pc;
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	f->out[f->n++] = pc;
	return f->n < f->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

uint32_t unwind_copy(struct symbols *sy, struct proc *p,
		     const struct sample_rec *s, uint64_t *out, uint32_t max)
{
	struct frames f = { out, 0, max };
	Dwfl *dwfl = symbols_dwfl(sy, p);
	p->cur = s;
	p->copy_past_end = p->copy_below_sp = 0;
	if (!p->attached)
		p->attached = dwfl_attach_state(dwfl, NULL, (pid_t)p->pid, &callbacks, p) ? 1 : -1;
	if (p->attached > 0 && max)
		dwfl_getthread_frames(dwfl, (pid_t)s->tid, frame_cb, &f);
	if (f.n == 0 && max)
		out[f.n++] = s->copy->regs[REC_REG_IP]; /* at least where it was */
	sy->c->stack_unwound += f.n > 1;
	sy->c->stack_unwind_failed += f.n <= 1;
	p->cur = NULL;
	return f.n;
}
