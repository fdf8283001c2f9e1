/*
 * ehframe: the .eh_frame library (ehframe/) on the host.
 *
 *   ehframe lookup FILE PC...   the FDE (through .eh_frame_hdr) and the
 *                               rule at each PC, as `sframe lookup` prints
 *   ehframe check FILE...       at every pc an FDE covers, our rule against
 *                               libdw's CFI; counts per file; non-zero exit
 *                               status if any differ or a file is damaged
 *
 * FILE is a linked ELF file (executable or shared object).
 */
#include <stdio.h>
#include <string.h>

#include "commands.h"

int main(int argc, char **argv)
{
	if (argc >= 2 && !strcmp(argv[1], "lookup"))
		return cmd_lookup(argc - 2, argv + 2);
	if (argc >= 2 && !strcmp(argv[1], "check"))
		return cmd_check(argc - 2, argv + 2);
	fprintf(stderr, "usage: ehframe lookup FILE PC...\n"
			"       ehframe check FILE...\n");
	return 2;
}
