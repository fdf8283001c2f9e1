#include <stdbool.h>

#include "kern/profile/profile.h"
#include <arch/arch.h>
#include "kern/lib/cmdline.h"
#include "kern/kernel.h"
#include "kern/mm/mm.h"
#include "kern/profile/record.h"
#include "kern/profile/sample.h"
#include "kern/lib/stats.h"
#include "kern/profile/stackmap.h"
#include "kern/lib/string.h"
#include "kern/profile/summary.h"

#define NORMAL_RING_BYTES (256u << 10)

struct profile_config profile;

static const char *const mode_names[] = {
	[MODE_NONE] = "none", [MODE_SFRAME] = "sframe", [MODE_FP] = "fp",
	[MODE_FP_DEFERRED] = "fp-deferred", [MODE_STACK_COPY] = "stack-copy",
	[MODE_GUESS] = "guess", [MODE_VALIDATE] = "validate",
	[MODE_EH_FRAME] = "eh-frame", [MODE_VALIDATE_EH] = "validate-eh",
};

static const char *const consumer_names[] = {
	[PROFILE_CONSUMER_STREAM] = "stream", [PROFILE_CONSUMER_MAP] = "map",
	[PROFILE_CONSUMER_STREAM | PROFILE_CONSUMER_MAP] = "both",
};

static bool sampling;
static bool finished;

/* The .eh_frame format's other designs (kern/unwind/ehframe_rows.h): the
 * same walk and records as eh-frame, its lookups served by rows. */
static const char *const eh_row_modes[] = { "eh-rowcache", "eh-convert" };

static bool parse_mode(const char *s, uint32_t *mode)
{
	for (uint32_t i = 0; i < ARRAY_SIZE(eh_row_modes); i++)
		if (strcmp(s, eh_row_modes[i]) == 0) {
			*mode = MODE_EH_FRAME;
			return true;
		}
	for (uint32_t m = 0; m < ARRAY_SIZE(mode_names); m++)
		if (strcmp(s, mode_names[m]) == 0) {
			*mode = m;
			return true;
		}
	return false;
}

/* The stack map completes its keys with the deferred unwind: the modes
 * whose user stack comes in the NMI (or not at all) have none to give. */
static bool deferred_mode(uint32_t mode)
{
	return mode != MODE_NONE && mode != MODE_FP && mode != MODE_STACK_COPY;
}

/* profile.consumer: a bad value, or the map in a mode without deferred
 * unwinds, is one console line and the stream. */
static uint32_t parse_consumer(uint32_t mode)
{
	const char *s = cmdline_get(&boot_args, "profile.consumer");
	uint32_t c;
	if (!s)
		return PROFILE_CONSUMER_STREAM;
	for (c = PROFILE_CONSUMER_STREAM; c < ARRAY_SIZE(consumer_names); c++)
		if (strcmp(s, consumer_names[c]) == 0)
			break;
	if (c == ARRAY_SIZE(consumer_names)) {
		kprintf("profile: unknown profile.consumer=%s (stream map both); using stream\n", s);
		return PROFILE_CONSUMER_STREAM;
	}
	if (c & PROFILE_CONSUMER_MAP && !deferred_mode(mode)) {
		kprintf("profile: profile.consumer=%s needs a deferred mode (sframe eh-frame "
			"eh-rowcache eh-convert fp-deferred guess validate validate-eh), not %s; "
			"using stream\n",
			s, mode_names[mode]);
		return PROFILE_CONSUMER_STREAM;
	}
	return c;
}

/* Every setting is filled in, whatever is wrong with the others: a bad
 * value gets one console line and its documented fall-back (the mode:
 * none). False when the mode was bad. */
bool profile_parse(struct profile_config *c)
{
	const char *mode = cmdline_get(&boot_args, "profile.mode");
	bool ok = true;
	c->mode = MODE_SFRAME;
	if (mode && !parse_mode(mode, &c->mode)) {
		kprintf("profile: unknown profile.mode=%s (none sframe fp fp-deferred "
			"stack-copy guess validate eh-frame eh-rowcache eh-convert validate-eh); "
			"using none\n", mode);
		c->mode = MODE_NONE;
		ok = false;
	}
	c->hz = (uint32_t)cmdline_int(&boot_args, "profile.hz", PROFILE_HZ_DEFAULT,
				      PROFILE_HZ_MIN, PROFILE_HZ_MAX);
	c->frames = (uint32_t)cmdline_int(&boot_args, "profile.frames",
					  PROFILE_FRAMES_DEFAULT, 1, 4096);
	c->ring_kib = (uint32_t)cmdline_int(&boot_args, "profile.ring",
					    PROFILE_RING_KIB_DEFAULT, 4, 1 << 20);
	c->stack_copy = (uint32_t)cmdline_int(&boot_args, "profile.stack_copy",
					      PROFILE_STACK_COPY_DEFAULT, 8, PROFILE_STACK_COPY_MAX);
	c->consumer = parse_consumer(c->mode);
	if (c->ring_kib & (c->ring_kib - 1)) {
		kprintf("profile: profile.ring=%u is no power of two; using %u\n",
			c->ring_kib, PROFILE_RING_KIB_DEFAULT);
		c->ring_kib = PROFILE_RING_KIB_DEFAULT;
	}
	return ok;
}

/* The kernel image as the host should symbolize it: pid 0, its text at
 * the link addresses (an ET_EXEC: pgoff plays no part), its build ID. */
static void record_kernel_mmap(void)
{
	extern const char __build_id_note[];
	const uint32_t *note = (const uint32_t *)__build_id_note;
	const uint8_t *id = (const uint8_t *)(note + 3) + ROUND_UP(note[0], 4);
	uint64_t start = (uint64_t)__text_start;

	record_mmap(0, 0, start, (uint64_t)__text_end - start,
		    0, MMAP_KERNEL, id, note[1],
		    "/stitch/kernel.elf");
}

static int begin_stream(struct profile_config *c)
{
	int err = record_init((uint64_t)c->ring_kib << 10, NORMAL_RING_BYTES);
	if (err && c->ring_kib > PROFILE_RING_KIB_DEFAULT) {
		kprintf("profile: no memory for profile.ring=%u (KiB) on each of %u CPU(s); "
			"using %u\n", c->ring_kib, arch_ncpus(), PROFILE_RING_KIB_DEFAULT);
		c->ring_kib = PROFILE_RING_KIB_DEFAULT;
		err = record_init((uint64_t)c->ring_kib << 10, NORMAL_RING_BYTES);
	}
	if (!err)
		err = sample_init();
	if (err)
		return err;
	if (c->consumer & PROFILE_CONSUMER_MAP &&
	    stackmap_init(1000000000ull / c->hz)) {
		kprintf("profile: no memory for the stack map: the stream takes the samples\n");
		c->consumer = PROFILE_CONSUMER_STREAM;
	}
	profile = *c;
	record_stream_begin(c->mode, c->mode == MODE_NONE ? 0 : c->hz, c->frames);
	record_kernel_mmap();
	return 0;
}

int profile_start(const struct profile_config *c)
{
	if (!record_stream_started()) {
		struct profile_config mine = *c;
		int err = begin_stream(&mine);
		if (err)
			return err;
	}
	if (c->mode == MODE_NONE || sampling)
		return 0;
	/* Say it first: printing on the console takes long enough to show
	 * up in the samples. */
	kprintf("profile: mode %s, %u Hz, NMIs from the %s\n", mode_names[c->mode],
		c->hz, arch_sampling_select(cmdline_get(&boot_args, "profile.source")));
	sample_enable(1000000000ull / c->hz);
	arch_sampling_start_all(c->hz);
	sampling = true;
	return 0;
}

bool profile_sampling(void)
{
	return sampling;
}

void profile_stop(void)
{
	if (!sampling)
		return;
	sample_disable();
	arch_sampling_stop_all();
	arch_nmi_quiesce(); /* no NMI writes a ring after this */
	sampling = false;
}

void profile_init(bool sample)
{
	struct profile_config c;
	profile_parse(&c); /* a bad mode is none */
	/* The summary costs a symbol lookup per frame of every deferred user
	 * stack: it is for a screen, on by default where there is one (not
	 * in the direct boots the benchmarks use). */
	summary_init(cmdline_bool(&boot_args, "profile.summary", boot_info.fb.base != 0));
	if (begin_stream(&c)) {
		kprintf("profile: no memory for the record rings: no stream\n");
		return;
	}
	if (c.mode == MODE_NONE)
		kprintf("profile: mode none: no sampling; records still written\n");
	else if (sample)
		profile_start(&c);
}

void profile_finish(void)
{
	if (finished)
		return;
	finished = true;
	profile_stop();
	if (!record_stream_started())
		return;
	stackmap_finish();
	record_stream_end();
	stats_print();
	summary_print();
}

/* What the tick drains at most depends on the channel: a bound on the
 * tick, and enough for the sampling rate (docs/SAMPLING.md). */
void profile_tick(void)
{
	record_drain(arch_channel_tick_bytes());
	stackmap_tick();
}
