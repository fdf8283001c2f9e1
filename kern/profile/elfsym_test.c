#include "kern/proc/elf.h"
#include "kern/profile/elfsym.h"
#include "kern/fs/initrd.h"
#include "kern/kernel.h"
#include "kern/mm/kmalloc.h"
#include "kern/lib/ktest.h"
#include "kern/lib/string.h"

/* /bin/fib's own .symtab: sorted, every function found at its first and
 * last byte, the workload's function among them. */
KTEST(elfsym_program)
{
	struct initrd_file f;
	struct elfsyms s;
	KASSERT_EQ(t, initrd_lookup("/bin/fib", &f), 0);
	KASSERT_EQ(t, elfsyms_load(f.data, f.size, &s), 0);
	KEXPECT(t, s.n > 100);
	KEXPECT(t, s.nloads >= 1);
	bool sorted = true, found = true, fib = false;
	for (uint32_t i = 0; i < s.n; i++) {
		const struct elfsym *e = &s.sym[i];
		if (i > 0 && s.sym[i - 1].addr > e->addr)
			sorted = false;
		/* Aliases share an address: any name will do there. */
		if (!elfsyms_find(&s, e->addr))
			found = false;
		if (e->size && !elfsyms_find(&s, e->addr + e->size - 1))
			found = false;
		if (strcmp(e->name, "fib_recursive") == 0)
			fib = true;
	}
	KEXPECT(t, sorted);
	KEXPECT(t, found);
	KEXPECT(t, fib);
	KEXPECT(t, elfsyms_find(&s, 0) == NULL);
	uint64_t va;
	KEXPECT(t, elfsyms_vaddr(&s, s.load[0].offset, &va) && va == s.load[0].vaddr);
	kfree(s.sym);
}

/* A file cut before its section headers has no symbols (not an error);
 * one that is no ELF64 is refused. */
KTEST(elfsym_damaged)
{
	struct initrd_file f;
	struct elfsyms s;
	KASSERT_EQ(t, initrd_lookup("/bin/fib", &f), 0);
	const struct elf64_ehdr *eh = (const void *)f.data;
	KASSERT(t, eh->shoff > 64 && eh->shoff < f.size);
	KEXPECT_EQ(t, elfsyms_load(f.data, eh->shoff + 10, &s), 0);
	KEXPECT_EQ(t, s.n, 0);
	kfree(s.sym);
	static const uint8_t junk[64] = { 0x7f, 'E', 'L', 'F', 1 };
	KEXPECT_EQ(t, elfsyms_load(junk, sizeof(junk), &s), -1);
	KEXPECT_EQ(t, elfsyms_load(f.data, 16, &s), -1);
}
