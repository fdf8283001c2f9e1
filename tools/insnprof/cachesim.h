/*
 * A small cache simulator for insnprof's cost model: set-associative
 * caches with LRU replacement, and the hierarchy of one real CPU built from
 * them. Written for this project (tools/insnprof/cachesim.c); the host
 * test test/t/76-bench-memory.t builds it alone and checks it against
 * access patterns whose misses are known.
 *
 * THE CPU: Intel Core i7-6700 (Skylake client, 4 cores, 8 MB L3). Source:
 * Intel 64 and IA-32 Architectures Optimization Reference Manual, table
 * "Cache Parameters of the Skylake Microarchitecture" (Table 2-5 in the
 * editions of 2016 to 2019): L1D 32 KB 8-way, 64-byte lines, fastest
 * latency 4 cycles; L1I 32 KB 8-way; L2 256 KB 4-way, 12 cycles; L3
 * (shared) up to 2 MB per core and up to 16 ways, 44 cycles; the
 * i7-6700's L3 is 8 MB (Intel's product page, "8 MB Intel Smart Cache"),
 * modelled as one 16-way cache. The manual gives no DRAM latency: MEM_LAT
 * is a round figure for DDR4 on that part (about 42 cycles + 51 ns at
 * 4 GHz, as 7-cpu.com reports its measurement of the i7-6700; quoted,
 * not re-checked), the least certain constant here. REP string costs: the manual's "REP String Enhancement"
 * section (2.4.6 in those editions, written for Nehalem; it gives no newer
 * figures): fast strings cost about 40 cycles to start, then 4 cycles per
 * 64 bytes.
 *
 * Indexing: the L1s are virtually indexed and physically tagged, but
 * 32 KB / 8 ways = 4 KB per way, so their index bits (6..11) lie inside
 * the page offset and virtual and physical indexing pick the same set:
 * every level is simulated with physical addresses. The L3's slice hash
 * is not modelled (one cache, plain index bits).
 */
#ifndef INSNPROF_CACHESIM_H
#define INSNPROF_CACHESIM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The constants of the model: one table (docs/BENCHMARKS.md, "A cost
 * model that charges memory", repeats it). Sizes in bytes. */
#define CPU_NAME        "Intel Core i7-6700 (Skylake client)"
#define LINE_SIZE       64
#define L1I_SIZE        (32 << 10)
#define L1I_WAYS        8
#define L1D_SIZE        (32 << 10)
#define L1D_WAYS        8
#define L2_SIZE         (256 << 10)
#define L2_WAYS         4
#define LLC_SIZE        (8 << 20)
#define LLC_WAYS        16
#define L1_LAT          4   /* load to use, cycles */
#define L2_LAT          12
#define LLC_LAT         44
#define MEM_LAT         250
#define REP_START       40  /* a rep string instruction's start-up, cycles */
#define REP_BYTES_PER_CYCLE 16 /* then 4 cycles per 64 bytes */

/* What an access costs beyond an L1 hit (which the one cycle an
 * instruction counts already covers), by the level that served it. */
#define PEN_L2  (L2_LAT - L1_LAT)
#define PEN_LLC (LLC_LAT - L1_LAT)
#define PEN_MEM (MEM_LAT - L1_LAT)
/* Stores are simulated (allocate, evict) but not charged (insnprof.c). */

struct cache {
	const char *name;
	unsigned sets, ways, line_shift;
	uint64_t *lines;        /* [sets][ways]: line number + 1, most recent first; 0 empty */
	uint64_t accesses, misses;
};

/* size bytes, ways, line bytes (powers of two, size / (ways * line) sets).
 * 0, or -1 (bad geometry, no memory). */
int cache_init(struct cache *c, const char *name, size_t size, unsigned ways, unsigned line);
void cache_free(struct cache *c);
/* One access to the line holding addr: true on a hit. A miss fills the
 * line, evicting the set's least recently used one. */
bool cache_access(struct cache *c, uint64_t addr);
/* Whether the line holding addr is cached (no LRU update, no count). */
bool cache_holds(const struct cache *c, uint64_t addr);

/* The levels: L1I and L1D in front of one L2 and one last-level cache.
 * A miss at a level looks in the next one and fills every level it
 * missed (no back-invalidation, no exclusivity: each level keeps its own
 * LRU order). Write-allocate: a store is looked up like a load. */
enum { SERVED_L1, SERVED_L2, SERVED_LLC, SERVED_MEM };

struct hierarchy {
	struct cache l1i, l1d, l2, llc;
};

int hier_init(struct hierarchy *h); /* the CPU above; 0 or -1 */
void hier_free(struct hierarchy *h);
/* An instruction fetch of the line at paddr, a data access of size bytes
 * at paddr (each line it touches): the level that served it (the worst,
 * for an access that crosses lines). */
int hier_fetch(struct hierarchy *h, uint64_t paddr);
int hier_data(struct hierarchy *h, uint64_t paddr, unsigned size);
/* Cycles beyond an L1 hit for an access the level `served` served. */
unsigned hier_penalty(int served);

#endif
