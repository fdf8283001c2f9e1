#include "tree.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util.h"

static struct node *child(struct node *n, const char *name, int kernel)
{
	for (size_t i = 0; i < n->nkids; i++)
		if (n->kids[i]->name == name && n->kids[i]->kernel == kernel)
			return n->kids[i];
	struct node *k = xcalloc(1, sizeof *k);
	k->name = name;
	k->kernel = kernel;
	n->kids = xrealloc(n->kids, (n->nkids + 1) * sizeof *n->kids);
	n->kids[n->nkids++] = k;
	return k;
}

void node_label(const struct node *n, char *buf, size_t size)
{
	snprintf(buf, size, "%s%s", n->name, n->kernel ? "_[k]" : "");
}

static int by_label(const void *a, const void *b)
{
	char la[512], lb[512];
	node_label(*(struct node *const *)a, la, sizeof la);
	node_label(*(struct node *const *)b, lb, sizeof lb);
	return strcmp(la, lb);
}

static void sort_tree(struct node *n)
{
	if (n->nkids > 1)
		qsort(n->kids, n->nkids, sizeof *n->kids, by_label);
	for (size_t i = 0; i < n->nkids; i++)
		sort_tree(n->kids[i]);
}

struct node *tree_build(const struct run *r)
{
	struct node *root = xcalloc(1, sizeof *root);
	root->name = symbols_intern(r->sy, "all");
	const struct frame **fr = NULL;
	size_t cap = 0;
	for (size_t i = 0; i < r->st->n; i++) {
		const struct stack *k = &r->st->v[i];
		if (!in_view(r, k))
			continue;
		uint32_t n = stack_frames(k, r->sy, &fr, &cap);
		struct node *at = child(root, symbols_intern(r->sy, stack_comm(k)), 0);
		root->total++;
		at->total++;
		while (n-- > 0) {
			at = child(at, fr[n]->name, fr[n]->kernel);
			at->total++;
		}
	}
	free(fr);
	sort_tree(root);
	return root;
}

uint64_t node_self(const struct node *n)
{
	uint64_t kids = 0;
	for (size_t i = 0; i < n->nkids; i++)
		kids += n->kids[i]->total;
	return n->total - kids;
}

void tree_free(struct node *n)
{
	for (size_t i = 0; i < n->nkids; i++)
		tree_free(n->kids[i]);
	free(n->kids);
	free(n);
}
