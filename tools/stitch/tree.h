/*
 * The call tree of the profile: root "all", then the command, then the
 * frames from the outermost user frame to the innermost kernel frame. The
 * folded stacks and the flame graph are two ways of printing it.
 */
#ifndef STITCH_TREE_H
#define STITCH_TREE_H

#include <stdint.h>

#include "output.h"

struct node {
	const char *name; /* interned */
	int kernel;
	uint64_t total;   /* samples in this subtree */
	struct node **kids; /* sorted by label once the tree is built */
	size_t nkids;
};

struct node *tree_build(const struct run *r);
void tree_free(struct node *n);
/* Samples that stop at this node (total minus the children's). */
uint64_t node_self(const struct node *n);
/* The label written out: the name, with "_[k]" for kernel frames. */
void node_label(const struct node *n, char *buf, size_t size);

#endif
