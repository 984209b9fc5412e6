/* l1.h - the L1 data cache of one SM: sector-granular, write-through.
 *
 * Modelled (hardware-facts.md §1c, §3.2, §3.3, measured on the H200):
 *  - capacity = unified storage - shared-memory carveout, set per kernel;
 *    `sets` from the config, ways = capacity / (sets x line); LRU per set;
 *    set index linear or XOR-folded.
 *  - loads: a sector hits when the bytes the lanes need are valid; a miss
 *    fetches only the missing sectors (never a whole line), which become fully
 *    valid. Evict-first loads (ld.cs) are inserted as the set's next victim.
 *    Bypassing loads (cg, cv, lu, and default global loads on GPUs that do not
 *    cache globals) count every sector as a miss and leave L1 unchanged.
 *  - stores write through (the caller sends them to L2); with "update" the
 *    written bytes become valid, allocating the line if needed (a later load
 *    of the same bytes hits, also for 4 bytes of a sector); with "invalidate"
 *    the line is dropped. A store sector "hits" when the sector was present.
 *  - atomics are done at L2; their sectors are invalidated here (a choice:
 *    the value in L1 is stale after the atomic).
 * Not modelled: MSHRs, hit-under-miss timing, the texture path, the
 * 48 KB read-only cache of Kepler. L1 is never dirty, so evictions are free. */
#ifndef GMS_L1_H
#define GMS_L1_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "coal.h"

typedef enum l1_load_mode {
    L1_LOAD_CACHE,       /* look up, fill missing sectors */
    L1_LOAD_EVICT_FIRST, /* as CACHE, new lines are the next victims (ld.global.cs) */
    L1_LOAD_BYPASS,      /* every sector misses, L1 unchanged (cg, cv, lu) */
    L1_LOAD_COUNT
} l1_load_mode;

typedef struct l1 l1;

/* Room for the largest capacity (the whole unified storage). */
l1 *l1_create(const cfg_gpu *c);
void l1_destroy(l1 *c);

/* Empty the cache and give it capacity_bytes (whole ways; 0 holds nothing). */
void l1_reset(l1 *c, uint32_t capacity_bytes);
uint32_t l1_ways(const l1 *c);

/* A load of the lines in r. miss_mask[i] receives the sectors of r->lines[i]
 * that must come from L2 (0 when all hit). *hit_sectors and *miss_sectors
 * receive the counts. */
void l1_load(l1 *c, const coal_result *r, l1_load_mode mode, uint32_t *miss_mask,
             uint32_t *hit_sectors, uint32_t *miss_sectors);

/* A store of the bytes in r under policy. */
void l1_store(l1 *c, const coal_result *r, cfg_l1_stores policy, uint32_t *hit_sectors,
              uint32_t *miss_sectors);

/* Drop the sectors r touches (atomics, performed at L2). */
void l1_invalidate(l1 *c, const coal_result *r);

/* A hint that line will be looked up soon (cache_prefetch); the line's set is
 * kept for that lookup. */
void l1_prefetch(l1 *c, uint64_t line);
/* l1_prefetch for every line of r, in one call (a gather's), the sets kept
 * in sets[i] for r->lines[i] instead of the memo, for l1_load_sets and
 * l1_store_sets; l1_prefetch_set for one line, returning its set. */
void l1_prefetch_lines(l1 *c, const coal_result *r, uint32_t *sets);
uint32_t l1_prefetch_set(l1 *c, uint64_t line);
/* l1_load and l1_store with each line's set as l1_prefetch_lines gave it
 * (the same counts; no set hash or memo lookup). */
void l1_load_sets(l1 *c, const coal_result *r, const uint32_t *sets, l1_load_mode mode,
                  uint32_t *miss_mask, uint32_t *hit_sectors, uint32_t *miss_sectors);
void l1_store_sets(l1 *c, const coal_result *r, const uint32_t *sets, cfg_l1_stores policy,
                   uint32_t *hit_sectors, uint32_t *miss_sectors);

#endif
