/*
 * Folded stacks, one line per distinct stack: "comm;outer;...;leaf count",
 * kernel frames suffixed "_[k]" (flamegraph.pl, speedscope, inferno).
 */
#include <inttypes.h>
#include <string.h>

#include "tree.h"

static void fold(FILE *f, const struct node *n, char *path, size_t len, size_t size)
{
	char label[512];
	node_label(n, label, sizeof label);
	size_t add = strlen(label) + (len ? 1 : 0);
	if (len + add >= size)
		return; /* deeper than any sane stack: cannot print it whole */
	if (len)
		path[len++] = ';';
	memcpy(path + len, label, strlen(label) + 1);
	len += strlen(label);
	uint64_t self = node_self(n);
	if (self)
		fprintf(f, "%s %" PRIu64 "\n", path, self);
	for (size_t i = 0; i < n->nkids; i++)
		fold(f, n->kids[i], path, len, size);
	path[len - add] = 0;
}

void write_folded(FILE *f, const struct run *r)
{
	struct node *root = tree_build(r);
	static char path[1 << 16];
	/* "all" is the flame graph's base, not a frame: start at the commands. */
	for (size_t i = 0; i < root->nkids; i++) {
		path[0] = 0;
		fold(f, root->kids[i], path, 0, sizeof path);
	}
	tree_free(root);
}
