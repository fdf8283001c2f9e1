/*
 * ehframe lookup FILE PC...: the FDE found through .eh_frame_hdr and the
 * rule at each pc, in the words of `sframe lookup`.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "commands.h"
#include "input.h"
#include "rule_str.h"

void rule_str(const struct sf_rule *r, char *buf, size_t n)
{
	char rule[112];

	sf_rule_str(r, rule, sizeof rule);
	snprintf(buf, n, "%s%s", rule, r->signal ? " attr=S" : "");
}

static int lookup_pc(const struct eh_table *t, uint64_t pc)
{
	struct eh_fde fde;
	struct sf_rule r;
	uint64_t row;
	uint32_t budget = EHFRAME_BUDGET;
	char rule[128];
	int err;

	if ((err = eh_fde_find(t, pc, &fde)) ||
	    (err = eh_rule_at(t, &fde, pc, &r, &row, &budget))) {
		printf("0x%" PRIx64 ": %s\n", pc, eh_strerror(err));
		return 1;
	}
	rule_str(&r, rule, sizeof rule);
	printf("0x%" PRIx64 ": fde 0x%" PRIx64 " [0x%" PRIx64 ",+%" PRIu64 ") row +0x%"
	       PRIx64 " %s\n", pc, fde.off, fde.start, fde.size, row - fde.start, rule);
	return 0;
}

int cmd_lookup(int argc, char **argv)
{
	struct input in;
	struct eh_table t;
	int status = 0;

	if (argc < 2) {
		fprintf(stderr, "usage: ehframe lookup FILE PC...\n");
		return 2;
	}
	if (!input_open(argv[0], &in)) {
		perror(argv[0]);
		return 1;
	}
	if (input_table(argv[0], &in, false, &t)) {
		input_close(&in);
		return 1;
	}
	for (int i = 1; i < argc; i++) {
		char *end;
		uint64_t pc = strtoull(argv[i], &end, 0);
		if (*end || !*argv[i]) {
			fprintf(stderr, "ehframe: bad pc '%s'\n", argv[i]);
			status = 1;
			continue;
		}
		status |= lookup_pc(&t, pc);
	}
	input_close(&in);
	return status;
}
