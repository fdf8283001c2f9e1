/*
 * snap(): an assembly entry that saves the caller's registers exactly as
 * they are at the call (sp and ip as they will be after the return), then
 * jumps to snap_record() in C, which copies the stack and asks glibc's
 * backtrace() (libgcc's unwinder, independent of elfutils) for the true
 * callchain. The file format is line based:
 *   map START END PGOFF PATH     executable mappings of this tree's files
 *                                (from /proc/self/maps)
 *   snap N
 *   regs R0 .. R17               enum rec_reg order
 *   chain PC0 PC1 ...            leaf first; PC0 is the ip
 *   stack SIZE HEX
 */
#define _GNU_SOURCE
#include <execinfo.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <stitch/records.h>

#include "capture.h"

/* hidden: the assembly addresses them directly, also inside libwork.so */
__attribute__((visibility("hidden"))) uint64_t snap_regs[REC_NREGS];
static FILE *snap_file;
static uint64_t stack_end;
static int snaps;

__asm__(
	".text\n"
	".globl snap\n"
	".type snap, @function\n"
	"snap:\n"
	".cfi_startproc\n"
	"	movq %rax, snap_regs+0(%rip)\n"
	"	movq %rbx, snap_regs+8(%rip)\n"
	"	movq %rcx, snap_regs+16(%rip)\n"
	"	movq %rdx, snap_regs+24(%rip)\n"
	"	movq %rsi, snap_regs+32(%rip)\n"
	"	movq %rdi, snap_regs+40(%rip)\n"
	"	movq %rbp, snap_regs+48(%rip)\n"
	"	leaq 8(%rsp), %rax\n"          /* the caller's sp once we return */
	"	movq %rax, snap_regs+56(%rip)\n"
	"	movq (%rsp), %rax\n"           /* the caller's ip once we return */
	"	movq %rax, snap_regs+64(%rip)\n"
	"	pushfq\n"
	"	popq snap_regs+72(%rip)\n"
	"	movq %r8, snap_regs+80(%rip)\n"
	"	movq %r9, snap_regs+88(%rip)\n"
	"	movq %r10, snap_regs+96(%rip)\n"
	"	movq %r11, snap_regs+104(%rip)\n"
	"	movq %r12, snap_regs+112(%rip)\n"
	"	movq %r13, snap_regs+120(%rip)\n"
	"	movq %r14, snap_regs+128(%rip)\n"
	"	movq %r15, snap_regs+136(%rip)\n"
	"	jmp snap_record\n"
	".cfi_endproc\n"
	".size snap, .-snap\n");

__attribute__((visibility("hidden"))) void snap_record(void);

/* The root of the tree the program lives in: ROOT/bin/capture-*. */
static void tree_root(char *root, size_t size)
{
	if (!realpath("/proc/self/exe", root) || strlen(root) >= size) {
		perror("/proc/self/exe");
		exit(1);
	}
	for (int up = 0; up < 2; up++)
		*strrchr(root, '/') = '\0';
	strcat(root, "/");
}

void snap_begin(const char *path, void *stack_top)
{
	char root[PATH_MAX];
	tree_root(root, sizeof root - 1);
	stack_end = (uint64_t)(uintptr_t)stack_top;
	snap_file = fopen(path, "w");
	FILE *maps = fopen("/proc/self/maps", "r");
	if (!snap_file || !maps) {
		perror(path);
		exit(1);
	}
	char line[4096];
	while (fgets(line, sizeof line, maps)) {
		uint64_t start, end, pgoff;
		char perms[8], file[4096] = "";
		if (sscanf(line, "%" SCNx64 "-%" SCNx64 " %7s %" SCNx64 " %*s %*s %4095s",
			   &start, &end, perms, &pgoff, file) < 4)
			continue;
		if (perms[2] == 'x' && !strncmp(file, root, strlen(root)))
			fprintf(snap_file, "map %#" PRIx64 " %#" PRIx64 " %#" PRIx64 " %s\n",
				start, end, pgoff, file);
	}
	fclose(maps);
}

void snap_record(void)
{
	void *bt[128];
	int n = backtrace(bt, 128), from = 0;
	while (from < n && (uint64_t)(uintptr_t)bt[from] != snap_regs[REC_REG_IP])
		from++;
	fprintf(snap_file, "snap %d\nregs", snaps++);
	for (int i = 0; i < REC_NREGS; i++)
		fprintf(snap_file, " %#" PRIx64, snap_regs[i]);
	fputs("\nchain", snap_file);
	for (int i = from; i < n; i++)
		fprintf(snap_file, " %#" PRIx64, (uint64_t)(uintptr_t)bt[i]);
	/* Everything from sp to the top of the stack, at most 32 KiB. */
	uint64_t sp = snap_regs[REC_REG_SP], size = stack_end - sp;
	size = size > 32768 ? 32768 : size;
	fprintf(snap_file, "\nstack %" PRIu64 " ", size);
	for (uint64_t i = 0; i < size; i++)
		fprintf(snap_file, "%02x", ((const unsigned char *)(uintptr_t)sp)[i]);
	fputc('\n', snap_file);
}

void snap_end(void)
{
	fclose(snap_file);
}
