#ifndef ARCH_X86_64_CPU_CPU_H
#define ARCH_X86_64_CPU_CPU_H

/* Makes arch_cpu_id() return index on this CPU; after lapic_init. */
void cpu_id_init(unsigned index);

#endif
