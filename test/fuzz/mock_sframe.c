/*
 * The one kernel service kern/uvm.c calls beyond those of mock.c: the
 * SFrame registration of a loaded program (kern/sframe_reg.c). For the
 * targets that compile kern/uvm.c.
 */
#include "kern/sframe_reg.h"
#include "kern/uvm.h"

/* kern/sframe_reg.c counts and then keeps the list with uvm_sframe_add();
 * the counting needs the per-CPU counters, so the mock only keeps the list. */
int sframe_register(struct uvm *mm, uint64_t sframe, uint64_t len, uint64_t text,
		    uint64_t text_len)
{
	return uvm_sframe_add(mm, sframe, len, text, text_len);
}
