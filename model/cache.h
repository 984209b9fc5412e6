/* cache.h - a pure sectored tag array: lookup, allocate (victim choice), LRU,
 * per-sector valid byte masks and dirty bits. It knows nothing of policies
 * (write-through or back, allocation, bypass), of the next level, or of
 * cycles: L1 (l1.c) and L2 (l2.c) decide what to do with it.
 *
 * Organisation: `sets` sets of up to `max_ways` ways; the number of ways in
 * use can change at a reset (the L1 shrinks when the shared-memory carveout
 * grows). The simulator is bound by its own memory traffic, so a set's
 * bookkeeping (epoch, valid count, tag fingerprints, sector states, LRU
 * links, tags) is one contiguous block and its valid ways are kept packed
 * at the front: a lookup scans only the valid ways, by 16-bit fingerprints
 * first; filling a set that is not full scans nothing. Replacement is LRU,
 * kept as an order per set (no scan); a line inserted as "evict first"
 * (ld.global.cs) is the oldest of its set until it is used. Emptying the
 * whole cache is O(1): sets carry an epoch and count as empty when it is old.
 *
 * A sector is present when any of its bytes is valid; a load needs its bytes
 * valid. Byte masks are 32 bits, so sectors are at most 32 bytes. */
#ifndef GMS_CACHE_H
#define GMS_CACHE_H

#include <stdbool.h>
#include <stdint.h>

#include "bits.h"

#include "cfg.h"

#define CACHE_MAX_SECTORS 4u        /* sectors per line */
#define CACHE_NO_LINE UINT64_MAX    /* tag of an empty way */
/* Way numbers and LRU links are one byte (cache.c: an L1 set of 64 ways is
 * 15 cache lines, not 17), so a cache has at most 255 ways; the config
 * checks refuse more (cfg.c check_l1; l2.ways is at most 64). */
#define CACHE_MAX_WAYS 255u

/* What an allocation pushed out. */
typedef struct cache_evicted {
    bool valid;           /* a line was evicted */
    uint64_t line;
    uint8_t dirty;        /* its dirty sectors */
    uint8_t partial;      /* its sectors with only some bytes valid */
} cache_evicted;

typedef struct cache cache;

/* sets >= 1 (a power of two for cache_index; otherwise the caller picks
 * the set, as the L2 does for its slices); 1 <= max_ways <= CACHE_MAX_WAYS;
 * sectors_per_line <= CACHE_MAX_SECTORS; sector_bytes <= 32. Starts empty with max_ways ways in use. */
cache *cache_create(uint32_t sets, uint32_t max_ways, uint32_t sectors_per_line,
                    uint32_t sector_bytes, cfg_set_index index);
void cache_destroy(cache *c);

/* Empty the cache (dirty data is dropped) and use `ways` ways (<= max_ways;
 * 0 makes a cache that holds nothing). */
void cache_reset(cache *c, uint32_t ways);
uint32_t cache_ways(const cache *c);
uint32_t cache_sets(const cache *c);

/* The set of a line by the cache's index function (sets a power of two). */
uint32_t cache_index(const cache *c, uint64_t line);

/* Set index of `line` among 2^bits sets: CFG_INDEX_LINEAR takes the low bits,
 * CFG_INDEX_XOR folds all bits of the line number together in bits-wide
 * groups, so that power-of-two strides spread over the sets. */
/* The XOR of all bits-wide groups, by halving: x ^= x >> (bits * 2^k) for
 * k from the largest with bits * 2^k < 64 down to 0 leaves in the low
 * bits the XOR of every group (log2(64 / bits) steps, not one per group).
 * The number of steps depends only on bits: callers on the hot path keep it
 * (cache_xor_steps) and the steps run unrolled. */
static inline uint32_t cache_xor_steps(uint32_t bits)
{
    if (bits == 0)
        return 0;
    uint32_t n = 1;
    while (bits << n < 64u && n < 6u)
        n++;
    return n;
}

/* cache_set_hash with steps = cache_xor_steps(bits). */
static inline uint32_t cache_set_hash_steps(cfg_set_index index, uint64_t line, uint32_t bits,
                                            uint32_t steps)
{
    if (bits == 0)
        return 0;
    uint64_t mask = ((uint64_t)1 << bits) - 1u;
    if (index == CFG_INDEX_LINEAR)
        return (uint32_t)(line & mask);
    switch (steps) { /* from the widest shift down to bits itself */
    default: /* 6: bits == 1 */
        line ^= line >> (bits << 5); /* fall through */
    case 5: line ^= line >> (bits << 4); /* fall through */
    case 4: line ^= line >> (bits << 3); /* fall through */
    case 3: line ^= line >> (bits << 2); /* fall through */
    case 2: line ^= line >> (bits << 1); /* fall through */
    case 1: line ^= line >> bits;
    }
    return (uint32_t)(line & mask);
}

static inline uint32_t cache_set_hash(cfg_set_index index, uint64_t line, uint32_t bits)
{
    return cache_set_hash_steps(index, line, bits, cache_xor_steps(bits));
}

/* Ways are named by (set, way); a way number stays valid until the next
 * cache_alloc, cache_drop or cache_reset on the same cache. */

/* The way holding line in set, or -1. Does not change the LRU order. */
int cache_find(cache *c, uint32_t set, uint64_t line);

/* Sector state of a valid way, as sector masks (bit s: sector s). A sector
 * is wholly valid, partly valid (some bytes, kept as a byte mask), or absent. */
uint32_t cache_full(const cache *c, uint32_t set, int way);    /* wholly valid */
uint32_t cache_present(const cache *c, uint32_t set, int way); /* any byte valid */
uint32_t cache_dirty(const cache *c, uint32_t set, int way);   /* newer than the next level */
/* Valid bytes of one sector (bit b: byte b). */
uint32_t cache_valid_bytes(const cache *c, uint32_t set, int way, uint32_t sector);
/* Make `bytes` of the sector valid (wholly valid once every byte is). */
void cache_add_bytes(cache *c, uint32_t set, int way, uint32_t sector, uint32_t bytes);
/* Make the sectors of mask wholly valid. */
void cache_fill(cache *c, uint32_t set, int way, uint32_t sector_mask);
/* Make the sectors of mask absent (and clean). */
void cache_invalidate_sectors(cache *c, uint32_t set, int way, uint32_t sector_mask);
void cache_mark_dirty(cache *c, uint32_t set, int way, uint32_t sector_mask);

/* Make the way the most recently used of its set. */
void cache_touch(cache *c, uint32_t set, int way);

/* Install line (not present) in set: an empty way, else the LRU victim, whose
 * line and dirty sectors are reported in *ev (ev may be NULL when the caller
 * has no use for them: reading the victim's tag costs a memory access of its
 * own in a big cache). The new way has no valid bytes
 * and is most recently used, or the first victim when evict_first. Returns
 * the way, or -1 (evicting nothing) when the cache has 0 ways. */
int cache_alloc(cache *c, uint32_t set, uint64_t line, bool evict_first, cache_evicted *ev);

/* Remove the way's line (its dirty data is dropped: write it back first).
 * The set's last valid way moves into its place. */
void cache_drop(cache *c, uint32_t set, int way);

/* A hint that set will be looked up soon: starts loading its bookkeeping
 * (header, fingerprints, sector states, LRU links; the tags too when the
 * block is small) into the CPU caches. Changes nothing. */
void cache_prefetch(const cache *c, uint32_t set);

/* Lines held now (walks the whole cache: for tests). */
uint64_t cache_count_lines(cache *c);

/* For tests: set a set's LRU clock, to reach its renumbering quickly. The
 * LRU is an order kept per set now, with no clock: this changes nothing (kept
 * so that the tests written for the clock still build and check the order). */
void cache_test_set_clock(cache *c, uint32_t set, uint16_t clock);

/* splitmix64's finaliser: every bit of z moves every bit of the result, so
 * neighbouring keys spread over sets, slices and partitions (the L2's
 * placement, l2.h; the LRC's table, lrc.c). */
static inline uint64_t cache_mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ull;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z;
}

/* Bits set in x (sector masks); portable, no libgcc call without -mpopcnt.
 * Code compiled for POPCNT (the AVX2 builds of the L1 and L2) uses the
 * instruction: the L1 load and the L2 read count 7 masks per line. */
static inline uint32_t cache_popcount(uint32_t x)
{
#if defined(__POPCNT__)
    return (uint32_t)__builtin_popcount(x);
#else
    if (x < 16u) /* a sector mask, nearly always: a table of 16 nibbles */
        return (uint32_t)(0x4332322132212110ull >> (4u * x)) & 0xfu;
    return bits_count32(x);
#endif
}

static inline uint32_t cache_full_mask(uint32_t sector_bytes)
{
    return sector_bytes >= 32 ? 0xffffffffu : ((1u << sector_bytes) - 1u);
}

#endif
