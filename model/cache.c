/* cache.c - sectored tag array with per-set LRU and lazily emptied sets.
 *
 * The simulator's speed is bound by its own memory traffic, so each set is
 * one 64-byte-aligned block laid out for the fewest cache lines per lookup:
 *
 *   uint32_t epoch; uint8_t n_valid, head, n_ef;   header, 8 bytes
 *   uint16_t fp[wp];    16-bit fingerprints of the tags  (wp = ways rounded up to 8)
 *   uint8_t state[wp];  per way: wholly valid sectors (bits 0-3), partly valid (4-7)
 *   uint8_t prev[wp], next[wp];  the LRU list (cache_int.h)
 *   uint8_t aux[wp];    per way: dirty sectors (bits 0-3), evict-first (4)
 *   uint64_t tag[ways];
 *
 * Way numbers and links are one byte (at most 255 ways, CACHE_MAX_WAYS), the
 * sector states that every access reads one byte, and what lookups and hits
 * do not read (dirty, evict-first) a byte apart: an L1 set of 64 ways is 15
 * cache lines of which a lookup touches the first 7 and one tag (it was 17
 * and 9 with 16-bit links and states), an L2 set of 20 ways 5 lines (was 6).
 * aux sits before the tags, not after them, because every allocation writes
 * it; keeping it after the tags and untouched in sets with no dirty or
 * evict-first way (a count per set) cost 1% more instructions per record
 * (2,430 against 2,407 on a coalesced trace) and gained no time.
 * A lookup compares fingerprints sixteen at a time and reads a full tag only on
 * a fingerprint match. Fingerprints are 16 bits, not 8: with the L1's 64
 * ways one byte matched some other way in a quarter of the lookups, and each
 * false match is a tag read from memory. Ways 0 .. n_valid-1 are valid: a
 * drop moves the last valid way into the hole, filling a non-full set is
 * O(1). Replacement is LRU kept as an order, a circular doubly linked list
 * per set, so that touching a way and finding the victim are O(1) (the
 * 16-bit stamps this replaced needed two scans of all ways per miss); lines
 * inserted as "evict first" stay outside the list and are the victims before
 * any other, the lowest way first, as the stamps' tie rule had it. Byte masks
 * live in a parallel array and are touched only for partly valid sectors, so
 * whole-sector traffic (nearly all of it) never reads them. */
#include "cache_int.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

static uint32_t log2_exact(uint32_t v)
{
    uint32_t s = 0;
    while ((1u << s) < v)
        s++;
    assert((1u << s) == v);
    return s;
}

cache *cache_create(uint32_t sets, uint32_t max_ways, uint32_t sectors_per_line,
                    uint32_t sector_bytes, cfg_set_index index)
{
    assert(sets >= 1 && max_ways >= 1 && max_ways <= CACHE_MAX_WAYS);
    assert(sectors_per_line >= 1 && sectors_per_line <= CACHE_MAX_SECTORS);
    assert(sector_bytes >= 1 && sector_bytes <= 32);
    cache *c = xcalloc(1, sizeof *c);
    c->sets = sets;
    c->max_ways = max_ways;
    c->ways = max_ways;
    c->sets_pow2 = (sets & (sets - 1u)) == 0;
    c->set_bits = c->sets_pow2 ? log2_exact(sets) : 0;
    c->sectors_per_line = sectors_per_line;
    c->sector_bytes = sector_bytes;
    c->full_bytes = cache_full_mask(sector_bytes);
    c->index = index;
    c->epoch = 1;
    /* ways rounded up to 8, or 4 when there are at most 4 (the H200 L1: a set in
     * one 64-byte block; the lookups read whole 64-byte steps of it anyway) */
    size_t wp = max_ways <= 4u ? 4u : ((size_t)max_ways + 7u) & ~(size_t)7u;
    c->header_offset = 2u * wp;
    c->state_offset = c->header_offset + 8u;
    c->prev_offset = c->state_offset + wp;
    c->next_offset = c->prev_offset + wp;
    c->aux_offset = c->next_offset + wp;
    c->tag_offset = c->aux_offset + wp; /* 8 + 6 wp: a multiple of 8 */
    c->block_bytes = (c->tag_offset + 8u * (size_t)max_ways + 63u) & ~(size_t)63u;
    /* the whole block when it is a few cache lines (the L2's 20 ways: 5);
     * else all but the tags, of which a lookup reads one (the L1's 64
     * ways: 7 of 15 lines) */
    size_t prefetch_bytes = c->block_bytes <= 384u ? c->block_bytes : c->tag_offset;
    c->prefetch_lines = (prefetch_bytes + 63u) / 64u;
    /* zeroed: every block's epoch 0 differs from the cache's, all sets empty.
     * Both arrays of a big cache (the L2: tens of MB, walked at random) in
     * huge pages, so that a lookup does not also miss the TLB (err.h) */
    c->blocks = xcalloc_lines((size_t)sets, c->block_bytes, &c->blocks_raw);
    c->bytes = xcalloc_lines((size_t)sets * max_ways, sizeof *c->bytes, &c->bytes_raw);
    return c;
}

void cache_destroy(cache *c)
{
    if (!c)
        return;
    free(c->blocks_raw);
    free(c->bytes_raw);
    free(c);
}

void cache_reset(cache *c, uint32_t ways)
{
    assert(ways <= c->max_ways);
    c->ways = ways;
    if (++c->epoch == 0) {
        for (uint32_t s = 0; s < c->sets; s++)
            *cache_view_raw(c, s).epoch = 0;
        c->epoch = 1;
    }
}

uint32_t cache_ways(const cache *c)
{
    return c->ways;
}

uint32_t cache_sets(const cache *c)
{
    return c->sets;
}

uint32_t cache_index(const cache *c, uint64_t line)
{
    assert(c->sets_pow2);
    return cache_set_hash(c->index, line, c->set_bits);
}

int cache_find(cache *c, uint32_t set, uint64_t line)
{
    cache_view v = cache_view_get(c, set);
    return cache_view_find(&v, line);
}

uint32_t cache_full(const cache *c, uint32_t set, int way)
{
    cache_view v = cache_view_raw(c, set);
    return cache_view_full(&v, way);
}

uint32_t cache_present(const cache *c, uint32_t set, int way)
{
    cache_view v = cache_view_raw(c, set);
    return cache_view_present(&v, way);
}

uint32_t cache_dirty(const cache *c, uint32_t set, int way)
{
    cache_view v = cache_view_raw(c, set);
    return cache_view_dirty(&v, way);
}

uint32_t cache_valid_bytes(const cache *c, uint32_t set, int way, uint32_t sector)
{
    cache_view v = cache_view_raw(c, set);
    return cache_view_valid_bytes(c, &v, way, sector);
}

void cache_add_bytes(cache *c, uint32_t set, int way, uint32_t sector, uint32_t bytes)
{
    cache_view v = cache_view_raw(c, set);
    cache_view_add_bytes(c, &v, way, sector, bytes);
}

void cache_fill(cache *c, uint32_t set, int way, uint32_t sector_mask)
{
    cache_view v = cache_view_raw(c, set);
    cache_view_fill(&v, way, sector_mask);
}

void cache_invalidate_sectors(cache *c, uint32_t set, int way, uint32_t sector_mask)
{
    cache_view v = cache_view_raw(c, set);
    cache_view_invalidate(&v, way, sector_mask);
}

void cache_mark_dirty(cache *c, uint32_t set, int way, uint32_t sector_mask)
{
    cache_view v = cache_view_raw(c, set);
    cache_view_mark_dirty(&v, way, sector_mask);
}

void cache_touch(cache *c, uint32_t set, int way)
{
    cache_view v = cache_view_raw(c, set);
    cache_view_touch(&v, way);
}

int cache_alloc(cache *c, uint32_t set, uint64_t line, bool evict_first, cache_evicted *ev)
{
    if (c->ways == 0) {
        if (ev)
            *ev = (cache_evicted){.valid = false};
        return -1;
    }
    cache_view v = cache_view_get(c, set);
    return cache_view_alloc(c, &v, line, evict_first, ev);
}

void cache_drop(cache *c, uint32_t set, int way)
{
    cache_view v = cache_view_raw(c, set);
    cache_view_drop(&v, way);
}

void cache_prefetch(const cache *c, uint32_t set)
{
    cache_prefetch_set(c, set);
}

uint64_t cache_count_lines(cache *c)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < c->sets; s++)
        n += *cache_view_get(c, s).n_valid;
    return n;
}

void cache_test_set_clock(cache *c, uint32_t set, uint16_t clock)
{
    /* the LRU order is a list now, with no clock to run out: nothing to set */
    (void)cache_view_get(c, set);
    (void)clock;
}
