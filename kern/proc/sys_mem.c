/* Memory system calls: the break, mappings. (Unwind-table registration:
 * kern/unwind/table.c.) */
#include "kern/lib/console.h"
#include "kern/proc/elf.h"
#include "kern/fs/file.h"
#include "kern/mm/mm.h"
#include "kern/profile/record.h"
#include "kern/proc/syscall.h"
#include "kern/proc/task.h"
#include "kern/mm/uvm.h"
#include "stitch/syscall.h"

long sys_sbrk(const long *arg)
{
	return uvm_sbrk(current->mm, arg[0]);
}

/* An executable file mapping is a load event for the profiler: how the
 * host learns about a shared object that a user-space loader maps. */
static void record_exec_mapping(uint64_t at, uint64_t len,
				const struct initrd_file *ino, uint64_t offset)
{
	uint8_t id[ELF_BUILD_ID_MAX];
	uint32_t id_size = elf_build_id(ino->data, ino->size, id);
	char path[INITRD_PATH_MAX + 1];
	ksnprintf(path, sizeof(path), "/%s", ino->name);
	record_mmap(current->pid, current->tid, at, PAGE_ROUND_UP(len), offset, 0,
		    id, id_size, path);
}

/* (hint, len, prot, fd, offset): the mapping goes at hint if that range
 * is free mmap space, else where the kernel likes (docs/USERLAND.md). */
long sys_mmap(const long *arg)
{
	uint64_t len = arg[1];
	long prot = arg[2], fd = arg[3], offset = arg[4];
	const long all = STITCH_PROT_READ | STITCH_PROT_WRITE | STITCH_PROT_EXEC;
	if (!(prot & STITCH_PROT_READ) || (prot & ~all) || offset < 0)
		return -STITCH_EINVAL;
	unsigned vmprot = (prot & STITCH_PROT_WRITE ? VM_WRITE : 0) |
			  (prot & STITCH_PROT_EXEC ? VM_EXEC : 0);
	const struct initrd_file *ino = NULL;
	if (fd != -1) {
		struct file *f = fd_file((int)fd);
		if (!f || fd != (int)fd || f->kind != FILE_INITRD)
			return -STITCH_EBADF;
		ino = &f->ino;
	}
	long at = uvm_mmap(current->mm, (uint64_t)arg[0], len, vmprot, ino,
			   (uint64_t)offset);
	if (at >= 0 && ino && (vmprot & VM_EXEC))
		record_exec_mapping(at, len, ino, offset);
	return at;
}

long sys_munmap(const long *arg)
{
	return uvm_munmap(current->mm, arg[0], arg[1]);
}
