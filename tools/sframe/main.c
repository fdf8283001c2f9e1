/*
 * sframe: dump, convert, check and query SFrame sections on the host.
 *
 *   sframe dump [--style=2.40|2.46] [--vaddr A] FILE...
 *                                              as `readelf --sframe` of
 *                                              binutils 2.40 (default) or
 *                                              2.46
 *   sframe convert --to 1|2|3 [--no-pcrel] [--vaddr A] [--at A] [--signal PC]
 *                  FILE -o OUT
 *                                              re-encode as a raw section blob
 *                                              (v2, v3: PC-relative starts
 *                                              unless --no-pcrel), to live
 *                                              where the input was, or at
 *                                              --at (same functions); v3:
 *                                              --signal marks the FDE of PC
 *                                              as a signal trampoline
 *   sframe rewrite --to 1|2|3 [--no-pcrel] FILE -o OUT
 *                                              a copy of the linked program
 *                                              or shared object FILE whose
 *                                              .sframe is re-encoded so
 *                                              (rewrite.c); exit status 3:
 *                                              it does not fit in place
 *   sframe check [--vaddr A] FILE...          full validation, one line per section
 *   sframe lookup [--fde N] [--vaddr A] FILE PC...
 *                                              FDE, FRE and rule for each PC
 *                                              (in FDE N only, with --fde)
 *
 * FILE is an ELF file, an archive of them, or a raw section blob (which
 * starts with the SFrame magic; --vaddr gives its run-time address).
 * lookup, check and dump --style=2.46 apply a relocatable object's
 * .rela.sframe first, as readelf 2.46 does (version 3, or 2 with
 * PC-relative starts; see reloc.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "commands.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: sframe dump [--style=2.40|2.46] [--vaddr ADDR] FILE...\n"
		"       sframe convert --to 1|2|3 [--no-pcrel] [--vaddr ADDR] [--at ADDR] [--signal PC] FILE -o OUT\n"
		"       sframe rewrite --to 1|2|3 [--no-pcrel] FILE -o OUT\n"
		"       sframe check [--vaddr ADDR] FILE...\n"
		"       sframe lookup [--fde N] [--vaddr ADDR] FILE PC...\n");
	exit(2);
}

static uint64_t number(const char *s)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 0);
	if (errno || *s == 0 || *end != 0) {
		fprintf(stderr, "sframe: bad number '%s'\n", s);
		exit(2);
	}
	return v;
}

/* Options shared by all commands; the rest are positional. */
static int parse(int argc, char **argv, struct options *o)
{
	int n = 0;
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--vaddr") && i + 1 < argc)
			o->vaddr = number(argv[++i]);
		else if (!strcmp(a, "--at") && i + 1 < argc) {
			o->at = number(argv[++i]);
			o->at_set = true;
		} else if (!strcmp(a, "--signal") && i + 1 < argc) {
			o->signal = number(argv[++i]);
			o->signal_set = true;
		} else if (!strcmp(a, "--to") && i + 1 < argc)
			o->version = (int)number(argv[++i]);
		else if (!strcmp(a, "-o") && i + 1 < argc)
			o->output = argv[++i];
		else if (!strcmp(a, "--no-pcrel"))
			o->pcrel = false;
		else if (!strcmp(a, "--style=2.46") || !strcmp(a, "--style=2.40"))
			o->style246 = !strcmp(a, "--style=2.46");
		else if (!strcmp(a, "--fde") && i + 1 < argc) {
			uint64_t n = number(argv[++i]);
			if (n > UINT32_MAX)
				usage();
			o->fde = (uint32_t)n;
			o->fde_set = true;
		}
		else if (a[0] == '-' && a[1] == '-')
			usage();
		else
			argv[2 + n++] = argv[i];
	}
	o->args = argv + 2;
	return n;
}

int main(int argc, char **argv)
{
	struct options o = { .pcrel = true };

	if (argc < 3)
		usage();
	o.nargs = parse(argc, argv, &o);
	if (o.version == 1)
		o.pcrel = false; /* version 1 has no such flag */
	if (o.nargs < 1)
		usage();
	if (!strcmp(argv[1], "dump"))
		return cmd_dump(&o);
	if (!strcmp(argv[1], "convert"))
		return cmd_convert(&o);
	if (!strcmp(argv[1], "rewrite"))
		return cmd_rewrite(&o);
	if (!strcmp(argv[1], "check"))
		return cmd_check(&o);
	if (!strcmp(argv[1], "lookup"))
		return cmd_lookup(&o);
	usage();
}
