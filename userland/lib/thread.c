/*
 * POSIX threads over the kernel's threads and futex (docs/USERLAND.md,
 * "Threads"), and the locks and per-thread state newlib asks for.
 *
 * No thread-local storage: a thread's descriptor lies at the bottom of its
 * stack, which is THREAD_STACK bytes aligned to its size, so the stack
 * pointer finds it. The first thread runs on the stack the kernel made,
 * above every mapping (USER_MMAP_TOP), and has a static descriptor.
 */
#include <errno.h>
#include <pthread.h>
#include <reent.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/lock.h>
#include <stitch.h>
#include <sys/time.h>
#include "sys.h"

#define THREAD_STACK  (256 * 1024ul)
#define USER_MMAP_TOP 0x00007f0000000000ul /* docs/USERLAND.md */
#define MAX_THREADS   64

struct thread {
	uint32_t alive;        /* the kernel zeroes it and wakes it at exit */
	pthread_t id;          /* the tid */
	void *(*fn)(void *);
	void *arg;
	void *ret;
	int detached;
	struct _reent reent;
};

static struct thread first;
static struct thread *threads[MAX_THREADS];
static uint32_t threads_lock; /* a word_lock */

static struct thread *self(void)
{
	uintptr_t sp;
	__asm__("movq %%rsp, %0" : "=r"(sp));
	if (sp >= USER_MMAP_TOP)
		return &first;
	return (struct thread *)(sp & ~(THREAD_STACK - 1));
}

struct _reent *__getreent(void)
{
	struct thread *t = self();
	return t == &first ? _impure_ptr : &t->reent;
}

static long futex(int op, uint32_t *w, uint32_t val, uint64_t timeout_ns)
{
	return sys6(SYS_futex, op, (long)w, val, (long)timeout_ns, 0, 0);
}

/*
 * A mutex in one word, after Drepper's "Futexes Are Tricky" (2011),
 * relative to the word's free value: free, held, held with waiters.
 * (newlib's PTHREAD_MUTEX_INITIALIZER is all ones, its own locks zero.)
 */
static void word_lock(uint32_t *w, uint32_t free)
{
	uint32_t c = free;
	if (__atomic_compare_exchange_n(w, &c, free + 1, 0, __ATOMIC_ACQUIRE,
					__ATOMIC_RELAXED))
		return;
	if (c != free + 2)
		c = __atomic_exchange_n(w, free + 2, __ATOMIC_ACQUIRE);
	while (c != free) {
		futex(STITCH_FUTEX_WAIT, w, free + 2, 0);
		c = __atomic_exchange_n(w, free + 2, __ATOMIC_ACQUIRE);
	}
}

static int word_trylock(uint32_t *w, uint32_t free)
{
	uint32_t c = free;
	return __atomic_compare_exchange_n(w, &c, free + 1, 0, __ATOMIC_ACQUIRE,
					   __ATOMIC_RELAXED) ? 0 : EBUSY;
}

static void word_unlock(uint32_t *w, uint32_t free)
{
	if (__atomic_exchange_n(w, free, __ATOMIC_RELEASE) == free + 2)
		futex(STITCH_FUTEX_WAKE, w, 1, 0);
}

/* ---- newlib's locks (sys/lock.h, retargetable locking) ---- */

struct __lock {
	uint32_t word;     /* word_lock, free at 0 */
	pthread_t owner;   /* recursive locks: the holder, and how deep */
	unsigned depth;
};

struct __lock __lock___sinit_recursive_mutex, __lock___sfp_recursive_mutex,
	__lock___atexit_recursive_mutex, __lock___at_quick_exit_mutex,
	__lock___malloc_recursive_mutex, __lock___env_recursive_mutex,
	__lock___tz_mutex, __lock___dd_hash_mutex, __lock___arc4random_mutex;

void __retarget_lock_init(_LOCK_T *lock)
{
	*lock = calloc(1, sizeof(**lock));
}

void __retarget_lock_init_recursive(_LOCK_T *lock)
{
	__retarget_lock_init(lock);
}

void __retarget_lock_close(_LOCK_T lock)
{
	free(lock);
}

void __retarget_lock_close_recursive(_LOCK_T lock)
{
	free(lock);
}

void __retarget_lock_acquire(_LOCK_T lock)
{
	if (lock)
		word_lock(&lock->word, 0);
}

int __retarget_lock_try_acquire(_LOCK_T lock)
{
	return lock ? word_trylock(&lock->word, 0) == 0 : 1;
}

void __retarget_lock_release(_LOCK_T lock)
{
	if (lock)
		word_unlock(&lock->word, 0);
}

void __retarget_lock_acquire_recursive(_LOCK_T lock)
{
	pthread_t me = pthread_self();
	if (!lock)
		return;
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != me) {
		word_lock(&lock->word, 0);
		lock->owner = me;
	}
	lock->depth++;
}

int __retarget_lock_try_acquire_recursive(_LOCK_T lock)
{
	pthread_t me = pthread_self();
	if (!lock)
		return 1;
	if (__atomic_load_n(&lock->owner, __ATOMIC_RELAXED) != me) {
		if (word_trylock(&lock->word, 0))
			return 0;
		lock->owner = me;
	}
	lock->depth++;
	return 1;
}

void __retarget_lock_release_recursive(_LOCK_T lock)
{
	if (!lock || --lock->depth)
		return;
	__atomic_store_n(&lock->owner, 0, __ATOMIC_RELAXED);
	word_unlock(&lock->word, 0);
}

/* ---- threads ---- */

pthread_t pthread_self(void)
{
	struct thread *t = self();
	if (!t->id) /* the first thread's, on first use */
		t->id = (pthread_t)sys0(SYS_gettid);
	return t->id;
}

int pthread_equal(pthread_t a, pthread_t b)
{
	return a == b;
}

/* The kernel starts a thread here, rsp at the top of its stack. No CFI,
 * as for _start (userland/crt0.S): the bottom of the thread's stacks. */
__asm__(".text\n"
	".type stitch_thread_start, @function\n"
	"stitch_thread_start:\n"
	"	xorl %ebp, %ebp\n"
	"	movq %rsp, %rdi\n"
	"	call stitch_thread_main\n"
	"	ud2\n"
	".size stitch_thread_start, . - stitch_thread_start\n");
void stitch_thread_start(void);
__attribute__((used, noreturn)) void stitch_thread_main(void *sp);

__attribute__((used, noreturn)) void stitch_thread_main(void *sp)
{
	(void)sp;
	struct thread *t = self();
	pthread_exit(t->fn(t->arg));
}

/* Stacks of detached threads that have gone, and joined ones, are unmapped
 * here (a thread cannot unmap the stack it exits on). threads_lock held. */
static void forget(int slot)
{
	stitch_munmap(threads[slot], THREAD_STACK);
	threads[slot] = NULL;
}

static void reap_detached(void)
{
	for (int i = 0; i < MAX_THREADS; i++)
		if (threads[i] && threads[i]->detached &&
		    !__atomic_load_n(&threads[i]->alive, __ATOMIC_ACQUIRE))
			forget(i);
}

/* THREAD_STACK bytes aligned to their size: twice as many mapped, the
 * rest given back. */
static struct thread *stack_alloc(void)
{
	uintptr_t m = (uintptr_t)stitch_mmap(NULL, 2 * THREAD_STACK,
					     STITCH_PROT_READ | STITCH_PROT_WRITE, -1, 0);
	if (m == (uintptr_t)-1)
		return NULL;
	uintptr_t at = (m + THREAD_STACK - 1) & ~(THREAD_STACK - 1);
	if (at > m)
		stitch_munmap((void *)m, at - m);
	if (at + THREAD_STACK < m + 2 * THREAD_STACK)
		stitch_munmap((void *)(at + THREAD_STACK), m + THREAD_STACK - at);
	return (struct thread *)at;
}

int pthread_create(pthread_t *id, const pthread_attr_t *attr,
		   void *(*fn)(void *), void *arg)
{
	word_lock(&threads_lock, 0);
	reap_detached();
	int slot = 0;
	while (slot < MAX_THREADS && threads[slot])
		slot++;
	struct thread *t = slot < MAX_THREADS ? stack_alloc() : NULL;
	if (!t) {
		word_unlock(&threads_lock, 0);
		return EAGAIN;
	}
	t->alive = 1;
	t->fn = fn;
	t->arg = arg;
	t->detached = attr && attr->detachstate == PTHREAD_CREATE_DETACHED;
	_REENT_INIT_PTR(&t->reent);
	uintptr_t sp = (uintptr_t)t + THREAD_STACK;
	long tid = sys6(SYS_thread_spawn, (long)stitch_thread_start, (long)sp,
			(long)&t->alive, 0, 0, 0);
	if (tid < 0) {
		stitch_munmap(t, THREAD_STACK);
		word_unlock(&threads_lock, 0);
		return (int)-tid;
	}
	t->id = (pthread_t)tid;
	threads[slot] = t;
	*id = t->id;
	word_unlock(&threads_lock, 0);
	return 0;
}

void pthread_exit(void *ret)
{
	struct thread *t = self();
	t->ret = ret;
	for (;;)
		sys1(SYS_thread_exit, 0);
}

static int find(pthread_t id)
{
	for (int i = 0; i < MAX_THREADS; i++)
		if (threads[i] && threads[i]->id == id)
			return i;
	return -1;
}

int pthread_join(pthread_t id, void **ret)
{
	if (id == pthread_self())
		return EDEADLK;
	word_lock(&threads_lock, 0);
	int slot = find(id);
	struct thread *t = slot < 0 || threads[slot]->detached ? NULL : threads[slot];
	if (t)
		t->detached = -1; /* being joined: nobody else may */
	word_unlock(&threads_lock, 0);
	if (!t)
		return slot < 0 ? ESRCH : EINVAL;
	uint32_t alive;
	while ((alive = __atomic_load_n(&t->alive, __ATOMIC_ACQUIRE)))
		futex(STITCH_FUTEX_WAIT, &t->alive, alive, 0);
	if (ret)
		*ret = t->ret;
	word_lock(&threads_lock, 0);
	forget(slot);
	word_unlock(&threads_lock, 0);
	return 0;
}

int pthread_detach(pthread_t id)
{
	word_lock(&threads_lock, 0);
	int slot = find(id);
	if (slot >= 0 && !threads[slot]->detached)
		threads[slot]->detached = 1;
	word_unlock(&threads_lock, 0);
	return slot < 0 ? ESRCH : 0;
}

int pthread_attr_init(pthread_attr_t *attr)
{
	memset(attr, 0, sizeof(*attr));
	attr->is_initialized = 1;
	attr->stacksize = THREAD_STACK - sizeof(struct thread);
	attr->detachstate = PTHREAD_CREATE_JOINABLE;
	return 0;
}

int pthread_attr_destroy(pthread_attr_t *attr)
{
	attr->is_initialized = 0;
	return 0;
}

int pthread_attr_setdetachstate(pthread_attr_t *attr, int state)
{
	if (state != PTHREAD_CREATE_JOINABLE && state != PTHREAD_CREATE_DETACHED)
		return EINVAL;
	attr->detachstate = state;
	return 0;
}

int pthread_attr_getdetachstate(const pthread_attr_t *attr, int *state)
{
	*state = attr->detachstate;
	return 0;
}

/* ---- mutexes: the word is the lock, free when all ones ---- */

#define MUTEX_FREE ((uint32_t)_PTHREAD_MUTEX_INITIALIZER)

/* The attribute objects the SDK reads nothing from but their kind: all
 * zero, marked initialised. */
#define ATTR_INIT_DESTROY(type, prefix)                                      \
	int prefix##_init(type *attr)                                       \
	{                                                                   \
		memset(attr, 0, sizeof(*attr));                             \
		attr->is_initialized = 1;                                   \
		return 0;                                                   \
	}                                                                   \
	int prefix##_destroy(type *attr)                                    \
	{                                                                   \
		attr->is_initialized = 0;                                   \
		return 0;                                                   \
	}
ATTR_INIT_DESTROY(pthread_mutexattr_t, pthread_mutexattr)
ATTR_INIT_DESTROY(pthread_condattr_t, pthread_condattr)

/* A recursive or error-checking mutex needs an owner the word cannot
 * hold: only the normal kind is offered. */
int pthread_mutex_init(pthread_mutex_t *m, const pthread_mutexattr_t *attr)
{
	if (attr && attr->recursive)
		return ENOTSUP;
	*m = MUTEX_FREE;
	return 0;
}

int pthread_mutex_destroy(pthread_mutex_t *m)
{
	return *m == MUTEX_FREE ? 0 : EBUSY;
}

int pthread_mutex_lock(pthread_mutex_t *m)
{
	word_lock(m, MUTEX_FREE);
	return 0;
}

int pthread_mutex_trylock(pthread_mutex_t *m)
{
	return word_trylock(m, MUTEX_FREE);
}

int pthread_mutex_unlock(pthread_mutex_t *m)
{
	word_unlock(m, MUTEX_FREE);
	return 0;
}

/* ---- condition variables: the word is a sequence, bumped by each
 * signal; a waiter sleeps while it has not moved ---- */


int pthread_cond_init(pthread_cond_t *c, const pthread_condattr_t *attr)
{
	(void)attr;
	*c = 0;
	return 0;
}

int pthread_cond_destroy(pthread_cond_t *c)
{
	(void)c;
	return 0;
}

/* timeout_ns 0: none. 0 or ETIMEDOUT; the mutex is held again either way. */
static int cond_wait(pthread_cond_t *c, pthread_mutex_t *m, uint64_t timeout_ns)
{
	uint32_t seq = __atomic_load_n(c, __ATOMIC_ACQUIRE);
	pthread_mutex_unlock(m);
	long r = futex(STITCH_FUTEX_WAIT, c, seq, timeout_ns);
	/* Taken as contended: a waiter woken with others asleep must wake
	 * the next at its unlock. */
	uint32_t held = __atomic_exchange_n(m, MUTEX_FREE + 2, __ATOMIC_ACQUIRE);
	while (held != MUTEX_FREE) {
		futex(STITCH_FUTEX_WAIT, m, MUTEX_FREE + 2, 0);
		held = __atomic_exchange_n(m, MUTEX_FREE + 2, __ATOMIC_ACQUIRE);
	}
	return r == -STITCH_ETIMEDOUT ? ETIMEDOUT : 0;
}

int pthread_cond_wait(pthread_cond_t *c, pthread_mutex_t *m)
{
	return cond_wait(c, m, 0);
}

/* abstime is CLOCK_REALTIME's (gettimeofday: time since boot here). */
int pthread_cond_timedwait(pthread_cond_t *c, pthread_mutex_t *m,
			   const struct timespec *abstime)
{
	if (abstime->tv_nsec < 0 || abstime->tv_nsec >= 1000000000)
		return EINVAL;
	struct timeval now;
	gettimeofday(&now, NULL);
	int64_t ns = (int64_t)(abstime->tv_sec - now.tv_sec) * 1000000000 +
		     (abstime->tv_nsec - now.tv_usec * 1000);
	if (ns <= 0)
		return ETIMEDOUT;
	return cond_wait(c, m, (uint64_t)ns);
}

int pthread_cond_signal(pthread_cond_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELEASE);
	futex(STITCH_FUTEX_WAKE, c, 1, 0);
	return 0;
}

int pthread_cond_broadcast(pthread_cond_t *c)
{
	__atomic_fetch_add(c, 1, __ATOMIC_RELEASE);
	futex(STITCH_FUTEX_WAKE, c, MAX_THREADS, 0);
	return 0;
}
