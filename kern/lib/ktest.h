/*
 * In-kernel unit tests.
 *
 *     #include "kern/lib/ktest.h"
 *
 *     KTEST(pmm_alloc_free)
 *     {
 *             uint64_t pa = pmm_alloc();
 *             KASSERT(t, pa != 0);          // stops the test on failure
 *             KEXPECT_EQ(t, pa % 4096, 0);  // records, goes on
 *             pmm_free(pa);
 *     }
 *
 * KTEST puts a descriptor into the .ktest section (linker.ld), so a test
 * lives in any kernel source file, next to the code it tests (by
 * convention in <file>_test.c beside <file>.c); nothing registers it.
 * With `ktest` on the command line the kernel runs them all in link order
 * (`ktest=<prefix>`: those whose name starts with prefix), prints KTAP on
 * the console and shuts down with success iff none failed. A test also
 * fails if the number of free physical pages differs after it: tests must
 * free what they allocate.
 */
#ifndef KERN_LIB_KTEST_H
#define KERN_LIB_KTEST_H

#include <stdbool.h>
#include <stdint.h>

struct ktest {
	const char *name;
	int failures;
	const char *skip; /* reason, when the test skipped itself */
};

struct ktest_case {
	const char *name;
	void (*fn)(struct ktest *t);
};

#define KTEST(tname)                                                          \
	static void ktest_fn_##tname(struct ktest *t);                        \
	__attribute__((used, section(".ktest"), aligned(8)))                  \
	static const struct ktest_case ktest_case_##tname = {                 \
		#tname, ktest_fn_##tname };                                   \
	static void ktest_fn_##tname(struct ktest *t)

bool ktest_check(struct ktest *t, bool ok, const char *file, int line,
		 const char *what);
bool ktest_check_eq(struct ktest *t, uint64_t a, uint64_t b, const char *file,
		    int line, const char *what);
void ktest_skip(struct ktest *t, const char *why);

#define KEXPECT(t, cond) ktest_check(t, (cond), __FILE__, __LINE__, #cond)
#define KEXPECT_EQ(t, a, b)                                                   \
	ktest_check_eq(t, (uint64_t)(a), (uint64_t)(b), __FILE__, __LINE__,   \
		       #a " == " #b)
#define KASSERT(t, cond)                                                      \
	do {                                                                  \
		if (!KEXPECT(t, cond))                                        \
			return;                                               \
	} while (0)
#define KASSERT_EQ(t, a, b)                                                   \
	do {                                                                  \
		if (!KEXPECT_EQ(t, a, b))                                     \
			return;                                               \
	} while (0)

/*
 * Tests that hold interrupt rates against the clock (the PIT tick rate,
 * the LAPIC timer's calibration) need guest time that does not depend on
 * how busy the host is: under QEMU's -icount it is instructions retired,
 * under plain TCG a loaded host delivers ticks late and merges them. They
 * call this first; `ktest.timing=off` on the command line makes them skip
 * (reported as SKIP), which the wall-clock boot of test/t/10-kernel-unit.t does.
 */
bool ktest_skip_timing(struct ktest *t);

/* The current task (the idle task while the tests run) borrows an
 * address space with /bin/fib loaded, a writable page at *rw followed by a
 * hole, and a read-only page at *ro. Nothing is mapped until touched.
 * NULL (the test skipped or failed) when it cannot be made; give it back
 * with ktest_return_mm. (kern/mm/uaccess_test.c) */
struct uvm;
struct uvm *ktest_borrow_mm(struct ktest *t, uint64_t *rw, uint64_t *ro);
void ktest_return_mm(struct uvm *mm);

/* A byte pattern that tells records apart: buf[i] = seed + i. ktest_same()
 * says whether buf still holds the pattern of seed. */
void ktest_fill(uint8_t *buf, uint32_t len, uint8_t seed);
bool ktest_same(const uint8_t *buf, uint32_t len, uint8_t seed);

/* Runs the tests whose name starts with prefix ("" for all), prints KTAP,
 * returns the number of failed tests. */
int ktest_run(const char *prefix);

#endif
