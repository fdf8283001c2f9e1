/*
 * disreal [FILE [VMA [ROUNDS]]]: a real disassembler workload, the x86
 * printer of binutils 2.40's opcodes library (i386-dis.c, with dis-buf.c
 * and dis-init.c; mk/binutils.mk), built with the SDK's flags.
 *
 * FILE (default /data/real-ktext.bin) is raw x86-64 machine code that
 * starts at address VMA (hex; default ffffffff80000000): the first
 * functions of the kernel's own .text, cut at a function's start at build
 * time. It is disassembled from its first byte to its last, one
 * instruction after the other, in AT&T syntax as `objdump -d` does, and
 * each instruction printed as
 *   ADDR: TEXT
 * (ADDR in hex without 0x, TEXT what objdump prints after the bytes),
 * followed by one line
 *   disreal: N instructions, B bytes, U undecodable
 * Test 33 compares these with build/real/disreal.expected: the host's
 * objdump on the same bytes. ROUNDS (default 4) disassembles the whole
 * file that many times, printing the first round only. Exits 1 when FILE
 * cannot be read or the disassembler reports a memory error.
 */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
/* As every opcodes file: sysdep.h (config.h, then the C headers) first;
 * disassemble.h declares the printers, print_insn_i386 among them. */
#include "sysdep.h"
#include "disassemble.h"

/* One instruction's text, as the printer hands it over in pieces. */
struct line {
	char text[256];
	size_t len;
};

static int add_text(void *stream, const char *fmt, va_list ap)
{
	struct line *l = stream;
	size_t room = sizeof l->text - l->len;
	int n = vsnprintf(l->text + l->len, room, fmt, ap);

	if (n > 0)
		l->len += (size_t)n < room ? (size_t)n : room - 1;
	return n;
}

static int text_plain(void *stream, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = add_text(stream, fmt, ap);
	va_end(ap);
	return n;
}

/* The styles (mnemonic, register, ...) matter to a terminal, not here. */
static int text_styled(void *stream, enum disassembler_style style, const char *fmt, ...)
{
	va_list ap;
	(void)style;
	va_start(ap, fmt);
	int n = add_text(stream, fmt, ap);
	va_end(ap);
	return n;
}

/* An address operand (jump and call targets, rip-relative comments) as
 * objdump prints one where it knows no symbol: 0x and the hex digits. */
static void print_address(bfd_vma addr, struct disassemble_info *info)
{
	text_plain(info->stream, "0x%" PRIx64, (uint64_t)addr);
}

static __attribute__((noipa)) unsigned char *read_file(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	unsigned char *b = NULL;
	size_t cap = 0, n = 0, r;

	if (!f) {
		printf("disreal: cannot open %s\n", path);
		exit(1);
	}
	do {
		if (n == cap && !(b = realloc(b, cap = cap * 2 + 65536))) {
			printf("disreal: out of memory\n");
			exit(1);
		}
		n += r = fread(b + n, 1, cap - n, f);
	} while (r > 0);
	fclose(f);
	*len = n;
	return b;
}

/* One pass over the code: the number of instructions, or -1 on a memory
 * error; *bad counts the "(bad)" ones (bytes that decode to nothing). */
static __attribute__((noipa)) long disassemble_all(struct disassemble_info *info, int print,
						    long *bad)
{
	struct line *l = info->stream;
	bfd_vma pc = info->buffer_vma, end = pc + info->buffer_length;
	long n = 0;

	*bad = 0;
	while (pc < end) {
		l->len = 0;
		l->text[0] = 0;
		int size = print_insn_i386(pc, info);
		if (size <= 0) {
			printf("disreal: memory error at %" PRIx64 "\n", (uint64_t)pc);
			return -1;
		}
		*bad += strcmp(l->text, "(bad)") == 0;
		if (print)
			printf("%" PRIx64 ": %s\n", (uint64_t)pc, l->text);
		pc += (bfd_vma)size;
		n++;
	}
	return n;
}

int main(int argc, char **argv)
{
	const char *path = argc > 1 ? argv[1] : "/data/real-ktext.bin";
	uint64_t vma = strtoull(argc > 2 ? argv[2] : "ffffffff80000000", NULL, 16);
	long rounds = argc > 3 ? atol(argv[3]) : 4, n = 0, bad = 0;
	size_t len;
	unsigned char *code = read_file(path, &len);
	struct disassemble_info info;
	struct line line;

	if (rounds < 1) {
		printf("disreal: bad ROUNDS\n");
		return 1;
	}
	/* What objdump -d sets for an x86-64 object (and what
	 * disassemble_init_for_target adds for i386: styled output). */
	init_disassemble_info(&info, &line, text_plain, text_styled);
	info.arch = bfd_arch_i386;
	info.mach = bfd_mach_x86_64;
	info.endian = info.endian_code = BFD_ENDIAN_LITTLE;
	info.created_styled_output = true;
	info.print_address_func = print_address;
	info.buffer = code;
	info.buffer_vma = vma;
	info.buffer_length = len;
	for (long r = 0; r < rounds && n >= 0; r++)
		n = disassemble_all(&info, r == 0, &bad);
	if (n < 0)
		return 1;
	printf("disreal: %ld instructions, %zu bytes, %ld undecodable\n", n, len, bad);
	return 0;
}
