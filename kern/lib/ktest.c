/*
 * The in-kernel test runner: KTAP version 1 on the console.
 */
#include "kern/lib/ktest.h"
#include "kern/lib/cmdline.h"
#include "kern/lib/console.h"
#include "kern/mm/pmm.h"
#include "kern/lib/string.h"

extern const struct ktest_case __ktest_start[], __ktest_end[];

bool ktest_check(struct ktest *t, bool ok, const char *file, int line,
		 const char *what)
{
	if (!ok) {
		t->failures++;
		kprintf("# %s: %s:%d: expected %s\n", t->name, file, line, what);
	}
	return ok;
}

bool ktest_check_eq(struct ktest *t, uint64_t a, uint64_t b, const char *file,
		    int line, const char *what)
{
	if (a != b) {
		t->failures++;
		kprintf("# %s: %s:%d: expected %s, got 0x%lx != 0x%lx\n", t->name,
			file, line, what, a, b);
	}
	return a == b;
}

void ktest_skip(struct ktest *t, const char *why)
{
	t->skip = why;
}

static bool selected(const struct ktest_case *c, const char *prefix)
{
	return strncmp(c->name, prefix, strlen(prefix)) == 0;
}

/* Runs one test; returns true if it passed (or skipped). */
static bool run_one(const struct ktest_case *c, int n)
{
	struct ktest t = { .name = c->name };
	size_t free_before = pmm_nfree();

	c->fn(&t);

	size_t free_after = pmm_nfree();
	if (free_after != free_before) {
		t.failures++;
		kprintf("# %s: free pages %zu before, %zu after\n", c->name,
			free_before, free_after);
	}
	if (t.failures)
		kprintf("not ok %d %s\n", n, c->name);
	else if (t.skip)
		kprintf("ok %d %s # SKIP %s\n", n, c->name, t.skip);
	else
		kprintf("ok %d %s\n", n, c->name);
	return t.failures == 0;
}

int ktest_run(const char *prefix)
{
	int total = 0, failed = 0, n = 0;

	for (const struct ktest_case *c = __ktest_start; c < __ktest_end; c++)
		total += selected(c, prefix);
	kprintf("KTAP version 1\n1..%d\n", total);
	for (const struct ktest_case *c = __ktest_start; c < __ktest_end; c++)
		if (selected(c, prefix))
			failed += !run_one(c, ++n);
	kprintf("# ktest: %d tests, %d passed, %d failed\n", total,
		total - failed, failed);
	return failed;
}

void ktest_fill(uint8_t *buf, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		buf[i] = (uint8_t)(seed + i);
}

bool ktest_same(const uint8_t *buf, uint32_t len, uint8_t seed)
{
	for (uint32_t i = 0; i < len; i++)
		if (buf[i] != (uint8_t)(seed + i))
			return false;
	return true;
}

bool ktest_skip_timing(struct ktest *t)
{
	if (cmdline_bool(&boot_args, "ktest.timing", true))
		return false;
	ktest_skip(t, "ktest.timing=off: rates against a wall clock under emulation");
	return true;
}
