/*
 * The part of QEMU's TCG plugin API that insnprof uses, declared by hand:
 * Debian's QEMU 7.2 loads plugins (`-plugin FILE.so,key=value,...`) and
 * exports the API from its executable, but ships no qemu-plugin.h.
 *
 * Written from QEMU 7.2's documentation ("QEMU TCG Plugins",
 * docs/devel/tcg-plugins.rst, and the API reference generated from
 * include/qemu/qemu-plugin.h of v7.2.0): API version 1 (plugins from 0
 * to 1 load; version 2 came with QEMU 8.0). The types a plugin only
 * passes back to QEMU are opaque here. Only the declarations used are
 * given; the functions are resolved in the QEMU executable at dlopen.
 */
#ifndef INSNPROF_QEMU_PLUGIN_H
#define INSNPROF_QEMU_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#define QEMU_PLUGIN_EXPORT __attribute__((visibility("default")))
#define QEMU_PLUGIN_VERSION 1

typedef uint64_t qemu_plugin_id_t;
typedef struct qemu_info_t qemu_info_t; /* only passed to install */
struct qemu_plugin_tb;
struct qemu_plugin_insn;

enum qemu_plugin_cb_flags {
	QEMU_PLUGIN_CB_NO_REGS, /* the callback reads no CPU register */
	QEMU_PLUGIN_CB_R_REGS,
	QEMU_PLUGIN_CB_RW_REGS,
};

typedef void (*qemu_plugin_udata_cb_t)(qemu_plugin_id_t id, void *userdata);
typedef void (*qemu_plugin_vcpu_udata_cb_t)(unsigned int vcpu_index, void *userdata);
typedef void (*qemu_plugin_vcpu_tb_trans_cb_t)(qemu_plugin_id_t id,
					       struct qemu_plugin_tb *tb);

/* What the plugin exports: the API version it was built for, and its
 * entry point (0: installed; anything else: QEMU refuses to start). */
extern QEMU_PLUGIN_EXPORT int qemu_plugin_version;
QEMU_PLUGIN_EXPORT int qemu_plugin_install(qemu_plugin_id_t id, const qemu_info_t *info,
					   int argc, char **argv);

/* Called for each translation block when it is translated (not run). */
void qemu_plugin_register_vcpu_tb_trans_cb(qemu_plugin_id_t id,
					   qemu_plugin_vcpu_tb_trans_cb_t cb);
size_t qemu_plugin_tb_n_insns(const struct qemu_plugin_tb *tb);
struct qemu_plugin_insn *qemu_plugin_tb_get_insn(const struct qemu_plugin_tb *tb, size_t idx);
uint64_t qemu_plugin_insn_vaddr(const struct qemu_plugin_insn *insn);
const void *qemu_plugin_insn_data(const struct qemu_plugin_insn *insn);
size_t qemu_plugin_insn_size(const struct qemu_plugin_insn *insn);
uint64_t qemu_plugin_tb_vaddr(const struct qemu_plugin_tb *tb);
/* Called each time the block runs, before it does. */
void qemu_plugin_register_vcpu_tb_exec_cb(struct qemu_plugin_tb *tb,
					  qemu_plugin_vcpu_udata_cb_t cb,
					  enum qemu_plugin_cb_flags flags, void *userdata);
/* Called each time the instruction runs, before it does. */
void qemu_plugin_register_vcpu_insn_exec_cb(struct qemu_plugin_insn *insn,
					    qemu_plugin_vcpu_udata_cb_t cb,
					    enum qemu_plugin_cb_flags flags, void *userdata);
/* Memory accesses (insnprof's cost model): called after each load or
 * store the instruction makes, with its virtual address; meminfo says its
 * size and direction, and qemu_plugin_get_hwaddr (valid only inside the
 * callback) its physical address. */
typedef uint32_t qemu_plugin_meminfo_t;
struct qemu_plugin_hwaddr;
enum qemu_plugin_mem_rw {
	QEMU_PLUGIN_MEM_R = 1,
	QEMU_PLUGIN_MEM_W,
	QEMU_PLUGIN_MEM_RW,
};
typedef void (*qemu_plugin_vcpu_mem_cb_t)(unsigned int vcpu_index, qemu_plugin_meminfo_t info,
					  uint64_t vaddr, void *userdata);
void qemu_plugin_register_vcpu_mem_cb(struct qemu_plugin_insn *insn,
				      qemu_plugin_vcpu_mem_cb_t cb,
				      enum qemu_plugin_cb_flags flags,
				      enum qemu_plugin_mem_rw rw, void *userdata);
unsigned int qemu_plugin_mem_size_shift(qemu_plugin_meminfo_t info);
_Bool qemu_plugin_mem_is_store(qemu_plugin_meminfo_t info);
struct qemu_plugin_hwaddr *qemu_plugin_get_hwaddr(qemu_plugin_meminfo_t info, uint64_t vaddr);
_Bool qemu_plugin_hwaddr_is_io(const struct qemu_plugin_hwaddr *haddr);
uint64_t qemu_plugin_hwaddr_phys_addr(const struct qemu_plugin_hwaddr *haddr);
/* The host address of the instruction's bytes in guest RAM. */
void *qemu_plugin_insn_haddr(const struct qemu_plugin_insn *insn);

/* Called when QEMU exits (also through isa-debug-exit). */
void qemu_plugin_register_atexit_cb(qemu_plugin_id_t id, qemu_plugin_udata_cb_t cb,
				    void *userdata);

#endif
