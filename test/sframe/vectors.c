/*
 * Writes the hand-made sections as files.
 *
 *   vectors valid DIR   version 1 sections (readelf 2.40 reads only v1),
 *                       one DIR/NAME.sframe each; prints their paths
 *   vectors seeds DIR   every valid and malformed section, as fuzz seeds
 */
#include <stdbool.h>
#include <stdio.h>
#include <string.h>

#include "vecgen.h"

static int write_file(const char *dir, const char *name, const uint8_t *b, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.sframe", dir, name);
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(b, 1, n, f) != n || fclose(f)) {
		perror(path);
		return 1;
	}
	printf("%s\n", path);
	return 0;
}

int main(int argc, char **argv)
{
	static uint8_t buf[4096];
	int err = 0;

	if (argc != 3 || (strcmp(argv[1], "valid") && strcmp(argv[1], "seeds"))) {
		fprintf(stderr, "usage: vectors valid|seeds DIR\n");
		return 2;
	}
	bool all = !strcmp(argv[1], "seeds");
	for (const struct vsec *s = vec_valid; s->name; s++)
		if (all || s->version == 1)
			err |= write_file(argv[2], s->name,
					  buf, vec_build(s, buf, sizeof buf));
	for (int i = 0; all && vec_bad[i].name; i++)
		err |= write_file(argv[2], vec_bad[i].name, buf,
				  vec_bad_build(i, buf, sizeof buf));
	return err;
}
