#include "unwind.h"

#include <dwarf.h>
#include <stdlib.h>
#include <string.h>

/* Why a read found nothing: the word is past the copy's end, or below sp. */
enum { COPY_PAST_END = 1, COPY_BELOW_SP = 2 };

/* DWARF register numbers of x86_64 (psABI), in the order regs[] is given. */
static const int dwarf_order[16] = {
	REC_REG_AX, REC_REG_DX, REC_REG_CX, REC_REG_BX,
	REC_REG_SI, REC_REG_DI, REC_REG_BP, REC_REG_SP,
	REC_REG_R8, REC_REG_R9, REC_REG_R10, REC_REG_R11,
	REC_REG_R12, REC_REG_R13, REC_REG_R14, REC_REG_R15,
};
/* And of i386 (its psABI: eax, ecx, edx, ebx, esp, ebp, esi, edi), for a
 * compat process's copy, whose registers are the slots' low halves. */
static const int dwarf_order32[8] = {
	REC_REG_AX, REC_REG_CX, REC_REG_DX, REC_REG_BX,
	REC_REG_SP, REC_REG_BP, REC_REG_SI, REC_REG_DI,
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
	/* A 32-bit program's stack words are 4 bytes, its sp esp. */
	uint64_t sp = p->compat ? (uint32_t)sc->regs[REC_REG_SP] : sc->regs[REC_REG_SP];
	uint64_t word = p->compat ? 4 : 8;
	p->step_reads++;
	/* Only the copied bytes exist; written this way it cannot overflow. */
	if (addr < sp || addr - sp > sc->size || sc->size - (addr - sp) < word) {
		/* Above sp the stack goes on where the copy ended; below it
		 * is the red zone (psABI 3.2.2), where an epilogue's pops
		 * leave the registers the CFI still says are saved. */
		p->step_missed |= addr >= sp ? COPY_PAST_END : COPY_BELOW_SP;
		return false;
	}
	*result = 0;
	memcpy(result, sc->stack + (addr - sp), word); /* little-endian */
	return true;
}

static bool set_initial_registers(Dwfl_Thread *thread, void *arg)
{
	const struct proc *p = arg;
	const struct stack_copy *sc = p->cur->copy;
	Dwarf_Word regs[16];
	if (p->compat) {
		for (int i = 0; i < 8; i++)
			regs[i] = (uint32_t)sc->regs[dwarf_order32[i]];
		if (!dwfl_thread_state_registers(thread, 0, 8, regs))
			return false;
		dwfl_thread_state_register_pc(thread, (uint32_t)sc->regs[REC_REG_IP]);
		return true;
	}
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
	struct proc *p;
	Dwarf_Addr last_pc; /* the last frame's, as its CFI is looked up */
	uint32_t unknown;   /* the registers (bit: DWARF number) this frame lacks */
	int lost[16];       /* each one's: the failed reads of the step that lost it */
};

/*
 * libdw gave a frame: its step's failed reads did not stop the unwind,
 * they only cost registers (libdw leaves one whose slot it cannot read
 * without a value and goes on). Note which, with those reads, in case a
 * later step stops for want of one.
 */
static void frame_done(struct frames *f, Dwfl_Frame *state)
{
	for (unsigned r = 0; r < 16; r++) {
		Dwarf_Word v;
		uint32_t bit = 1u << r;
		if (dwfl_frame_reg(state, r, &v) == 0)
			f->unknown &= ~bit;
		else if (!(f->unknown & bit)) {
			f->unknown |= bit;
			f->lost[r] = f->p->step_missed;
		}
	}
	f->p->step_reads = f->p->step_missed = 0;
}

static int frame_cb(Dwfl_Frame *state, void *arg)
{
	struct frames *f = arg;
	Dwarf_Addr pc;
	/* Not asking whether this is an activation: libdw would unwind the
	 * next step to tell, its reads then counted against this one. */
	if (!dwfl_frame_pc(state, &pc, NULL))
		return DWARF_CB_ABORT;
	/* Past the sampled ip, a return address: the call is before it. */
	f->last_pc = f->n ? pc - 1 : pc;
	f->out[f->n++] = pc;
	frame_done(f, state);
	return f->n < f->max ? DWARF_CB_OK : DWARF_CB_ABORT;
}

/* The DWARF register the CFA at pc is computed from, by the CFI libdw
 * unwinds with (.eh_frame first), or -1. */
static int cfa_register(Dwfl *dwfl, Dwarf_Addr pc)
{
	Dwfl_Module *m = dwfl_addrmodule(dwfl, pc);
	Dwarf_Addr bias;
	Dwarf_CFI *cfi = m ? dwfl_module_eh_cfi(m, &bias) : NULL;
	if (m && !cfi)
		cfi = dwfl_module_dwarf_cfi(m, &bias);
	Dwarf_Frame *frame;
	if (!cfi || dwarf_cfi_addrframe(cfi, pc - bias, &frame) != 0)
		return -1;
	Dwarf_Op *ops;
	size_t nops;
	int reg = -1;
	if (dwarf_frame_cfa(frame, &ops, &nops) == 0 && nops > 0) {
		if (ops[0].atom >= DW_OP_breg0 && ops[0].atom <= DW_OP_breg31)
			reg = ops[0].atom - DW_OP_breg0;
		else if (ops[0].atom == DW_OP_bregx)
			reg = (int)ops[0].number;
	}
	free(frame);
	return reg;
}

/*
 * Whether the copy is why libdw stopped after its last frame: a read it
 * does not hold in the step that failed; or, if that step read nothing,
 * it stopped for want of the register its CFA is computed from (rbp, in
 * a function with a frame pointer), and the read that lost it is one the
 * copy does not hold.
 */
static int stopped_for(Dwfl *dwfl, const struct frames *f)
{
	if (f->p->step_reads || !f->n)
		return f->p->step_missed;
	int r = cfa_register(dwfl, f->last_pc);
	return r >= 0 && r < 16 && (f->unknown >> r & 1) ? f->lost[r] : 0;
}

uint32_t unwind_copy(struct symbols *sy, struct proc *p,
		     const struct sample_rec *s, uint64_t *out, uint32_t max)
{
	struct frames f = { out, 0, max, p, 0, 0, { 0 } };
	Dwfl *dwfl = symbols_dwfl(sy, p);
	p->cur = s;
	p->step_reads = p->step_missed = 0;
	if (!p->attached)
		p->attached = dwfl_attach_state(dwfl, NULL, (pid_t)p->pid, &callbacks, p) ? 1 : -1;
	if (p->attached > 0 && max)
		dwfl_getthread_frames(dwfl, (pid_t)s->tid, frame_cb, &f);
	int why = f.n < max ? stopped_for(dwfl, &f) : 0;
	p->copy_past_end = !!(why & COPY_PAST_END);
	p->copy_below_sp = !!(why & COPY_BELOW_SP);
	if (f.n == 0 && max)
		out[f.n++] = s->copy->regs[REC_REG_IP]; /* at least where it was */
	sy->c->stack_unwound += f.n > 1;
	sy->c->stack_unwind_failed += f.n <= 1;
	p->cur = NULL;
	return f.n;
}
