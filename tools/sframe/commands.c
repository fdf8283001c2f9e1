#include "commands.h"
#include "rule_str.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dump.h"
#include "input.h"
#include "rewrite.h"
#include "sframe.h"

/* What a visit callback needs besides the section. */
struct job {
	const struct options *o;
	const char *path;
	bool title;         /* print "File: " lines (several files, archives) */
	int argi;           /* lookup: first PC argument */
};

static void name_of(const struct job *j, const char *member, char *buf, size_t n)
{
	if (member)
		snprintf(buf, n, "%s(%s)", j->path, member);
	else
		snprintf(buf, n, "%s", j->path);
}

static int open_section(const struct job *j, const char *member,
			const struct section *sec, struct sf_table *t)
{
	char name[4096];
	struct sf_src src = { sec->data, NULL, NULL, (uint32_t)sec->size, sec->addr, false };
	int err = sec->size > UINT32_MAX ? SF_E_INVAL : sf_open(t, &src);

	if (err) {
		name_of(j, member, name, sizeof name);
		fprintf(stderr, "sframe: %s: %s\n", name, sf_strerror(err));
	}
	return err;
}

/* Each file (and archive member) is introduced as readelf does. */
static int dump_one(void *arg, const char *member, const struct section *sec)
{
	struct job *j = arg;
	struct sf_table t;
	char name[4096];
	int err;

	name_of(j, member, name, sizeof name);
	if (j->title || member)
		printf("\nFile: %s\n", name);
	if (!sec) {
		fprintf(stderr, "sframe: Warning: %s: Section '.sframe' was not dumped "
			"because it does not exist\n", name);
		return 0;
	}
	if (open_section(j, member, sec, &t))
		return 1;
	if ((err = dump_section(stdout, &t, j->o->style246))) {
		fflush(stdout);
		fprintf(stderr, "sframe: %s: %s\n", name, sf_strerror(err));
		return 1;
	}
	return 0;
}

static int for_each_file(const struct options *o, visit_fn fn, bool title,
			 bool relocate)
{
	int status = 0;
	for (int i = 0; i < o->nargs; i++) {
		struct job j = { o, o->args[i], title, 0 };
		int r = each_section(o->args[i], o->vaddr, relocate, fn, &j);
		if (r < 0)
			fprintf(stderr, "sframe: %s: %s\n", o->args[i], strerror(errno));
		status |= r != 0;
	}
	return status;
}

int cmd_dump(const struct options *o)
{
	/* readelf 2.40 prints relocatable objects' starts unrelocated. */
	return for_each_file(o, dump_one, o->nargs > 1, o->style246);
}

static int check_one(void *arg, const char *member, const struct section *sec)
{
	struct job *j = arg;
	struct sf_table t;
	char name[4096];
	int err;

	if (!sec)
		return 0;
	name_of(j, member, name, sizeof name);
	if (open_section(j, member, sec, &t))
		return 1;
	if ((err = sf_validate(&t))) {
		printf("%s: %s\n", name, sf_strerror(err));
		return 1;
	}
	printf("%s: ok: version %u at 0x%" PRIx64 ", %" PRIu32 " FDEs, %" PRIu32 " FREs\n",
	       name, t.version, sec->addr, t.num_fdes, t.num_fres);
	return 0;
}

int cmd_check(const struct options *o)
{
	return for_each_file(o, check_one, false, true);
}

/* Convert: exactly one section in, one blob out. */
static int write_blob(const char *path, const uint8_t *buf, uint32_t len)
{
	FILE *f = fopen(path, "wb");
	bool ok = f && fwrite(buf, 1, len, f) == len;
	if (f && fclose(f))
		ok = false;
	if (!ok)
		fprintf(stderr, "sframe: %s: %s\n", path, strerror(errno));
	return ok ? 0 : 1;
}

/* The section re-encoded as o->version at run-time address at (the
 * input's unless --at): a malloc'd buffer, or NULL after saying why. */
static uint8_t *encoded(const struct job *j, const struct section *sec, uint32_t *len)
{
	struct sf_table t;
	int err;

	if (sec->relocatable) {
		fprintf(stderr, "sframe: %s: relocatable object: its start addresses "
			"are filled in by relocations; convert a linked file\n", j->path);
		return NULL;
	}
	if (open_section(j, NULL, sec, &t))
		return NULL;
	/* Function addresses stay; the encoding is for where the blob will
	 * be (start fields are relative to the section or to themselves). */
	uint64_t at = j->o->at_set ? j->o->at : sec->addr;
	const uint64_t *signal = j->o->signal_set ? &j->o->signal : NULL;
	if ((err = sf_validate(&t)) ||
	    ((err = sf_encode_signal(&t, (uint8_t)j->o->version, j->o->pcrel, at,
				     signal, NULL, 0, len)) && err != SF_E_NOSPACE)) {
		fprintf(stderr, "sframe: %s: %s\n", j->path, sf_strerror(err));
		return NULL;
	}
	uint8_t *buf = malloc(*len ? *len : 1);
	if (!buf || (err = sf_encode_signal(&t, (uint8_t)j->o->version, j->o->pcrel,
					    at, signal, buf, *len, len))) {
		fprintf(stderr, "sframe: %s: %s\n", j->path,
			buf ? sf_strerror(err) : "out of memory");
		free(buf);
		return NULL;
	}
	return buf;
}

static int convert_one(void *arg, const char *member, const struct section *sec)
{
	struct job *j = arg;
	uint32_t len = 0;

	if (member || !sec) {
		fprintf(stderr, "sframe: %s: need one ELF file or blob with .sframe\n", j->path);
		return 1;
	}
	uint8_t *buf = encoded(j, sec, &len);
	if (!buf)
		return 1;
	int err = write_blob(j->o->output, buf, len);
	free(buf);
	return err;
}

int cmd_convert(const struct options *o)
{
	if (o->nargs != 1 || !o->output || o->version < 1 || o->version > 3) {
		fprintf(stderr, "usage: sframe convert --to 1|2|3 [--no-pcrel] "
			"[--vaddr ADDR] [--at ADDR] [--signal PC] FILE -o OUT\n");
		return 2;
	}
	struct job j = { o, o->args[0], false, 0 };
	int r = each_section(o->args[0], o->vaddr, false, convert_one, &j);
	if (r < 0)
		fprintf(stderr, "sframe: %s: %s\n", o->args[0], strerror(errno));
	return r != 0;
}

/* Rewrite: the program with its .sframe re-encoded, the rest as it was
 * (rewrite.c). */
struct rewrite {
	struct job j;
	uint8_t *buf;
	uint32_t len;
};

static int rewrite_one(void *arg, const char *member, const struct section *sec)
{
	struct rewrite *r = arg;

	if (member || !sec) {
		fprintf(stderr, "sframe: %s: need one ELF file with .sframe\n", r->j.path);
		return 1;
	}
	r->buf = encoded(&r->j, sec, &r->len);
	return r->buf == NULL;
}

int cmd_rewrite(const struct options *o)
{
	if (o->nargs != 1 || !o->output || o->version < 1 || o->version > 3 || o->at_set ||
	    o->signal_set) {
		fprintf(stderr, "usage: sframe rewrite --to 1|2|3 [--no-pcrel] FILE -o OUT\n");
		return 2;
	}
	struct rewrite r = { { o, o->args[0], false, 0 }, NULL, 0 };
	int status = each_section(o->args[0], 0, false, rewrite_one, &r);
	if (status < 0)
		fprintf(stderr, "sframe: %s: %s\n", o->args[0], strerror(errno));
	else if (status == 0)
		status = elf_with_sframe(o->args[0], o->output, r.buf, r.len);
	free(r.buf);
	return status == REWRITE_NO_ROOM ? status : status != 0;
}

/* Lookup: one line per PC, the rule spelled out (rule_str.c). */
static const char *attr_str(const struct sf_fde *fde)
{
	bool flex = fde->fde_type == SF_FDE_FLEX;
	return fde->signal ? (flex ? " attr=SF" : " attr=S") : flex ? " attr=F" : "";
}

/* The FDE to look pc up in: found by search, or --fde N (sf_fre_find
 * then says SF_E_NO_FDE if that one does not cover pc). */
static int fde_of(const struct sf_table *t, const struct options *o, uint64_t pc,
		  struct sf_fde *fde)
{
	return o->fde_set ? sf_fde_get(t, o->fde, fde) : sf_fde_find(t, pc, fde);
}

static int lookup_pc(const struct sf_table *t, const struct options *o, uint64_t pc)
{
	struct sf_fde fde;
	struct sf_fre fre;
	struct sf_rule r;
	char rule[128];
	int err;

	if ((err = fde_of(t, o, pc, &fde)) || (err = sf_fre_find(t, &fde, pc, &fre)) ||
	    (err = sf_rule_of(t, &fde, &fre, &r))) {
		printf("0x%" PRIx64 ": %s\n", pc, sf_strerror(err));
		return 1;
	}
	sf_rule_str(&r, rule, sizeof rule);
	printf("0x%" PRIx64 ": fde %" PRIu32 " [0x%" PRIx64 ",+%" PRIu32 ") fre +0x%" PRIx32
	       " %s%s\n", pc, fde.index, fde.start, fde.size, fre.start, rule, attr_str(&fde));
	return 0;
}

static int lookup_one(void *arg, const char *member, const struct section *sec)
{
	struct job *j = arg;
	struct sf_table t;
	int status = 0;

	if (member || !sec) {
		fprintf(stderr, "sframe: %s: need one ELF file or blob with .sframe\n", j->path);
		return 1;
	}
	if (open_section(j, member, sec, &t))
		return 1;
	for (int i = j->argi; i < j->o->nargs; i++) {
		char *end;
		uint64_t pc = strtoull(j->o->args[i], &end, 0);
		status |= *end ? 1 : lookup_pc(&t, j->o, pc);
	}
	return status;
}

int cmd_lookup(const struct options *o)
{
	struct job j = { o, o->args[0], false, 1 };
	int r = each_section(o->args[0], o->vaddr, true, lookup_one, &j);
	if (r < 0)
		fprintf(stderr, "sframe: %s: %s\n", o->args[0], strerror(errno));
	return r != 0;
}
