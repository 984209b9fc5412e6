/* l1.c - L1 policies over a sectored tag array (the rules are in l1.h). */
#include "l1.h"

#include <assert.h>
#include <stdlib.h>

#include "cache.h"
#include "err.h"

struct l1 {
    cache *tags;
    cfg_set_index index;
    uint32_t set_bits;    /* log2(sets) */
    uint32_t sets;
    uint32_t line_bytes;
    uint32_t sector_bytes;
    uint32_t sectors_per_line;
};

/* cache_index, inlined: the set of a line */
static inline uint32_t set_of(const l1 *c, uint64_t line)
{
    return cache_set_hash(c->index, line, c->set_bits);
}

l1 *l1_create(const cfg_gpu *c)
{
    l1 *l = xcalloc(1, sizeof *l);
    l->sets = c->l1_sets;
    l->index = c->l1_set_index;
    while ((1u << l->set_bits) < l->sets)
        l->set_bits++;
    assert((1u << l->set_bits) == l->sets);
    l->line_bytes = c->l1_line_bytes;
    l->sector_bytes = c->l1_sector_bytes;
    l->sectors_per_line = c->l1_line_bytes / c->l1_sector_bytes;
    uint64_t max_bytes = (uint64_t)c->l1_unified_kib * 1024u;
    uint64_t max_ways = max_bytes / ((uint64_t)c->l1_sets * c->l1_line_bytes);
    l->tags = cache_create(c->l1_sets, max_ways ? (uint32_t)max_ways : 1u, l->sectors_per_line,
                           c->l1_sector_bytes, c->l1_set_index);
    return l;
}

void l1_destroy(l1 *c)
{
    if (!c)
        return;
    cache_destroy(c->tags);
    free(c);
}

void l1_reset(l1 *c, uint32_t capacity_bytes)
{
    uint32_t ways = capacity_bytes / (c->sets * c->line_bytes);
    cache_reset(c->tags, ways);
}

uint32_t l1_ways(const l1 *c)
{
    return cache_ways(c->tags);
}

void l1_load(l1 *c, const coal_result *r, l1_load_mode mode, uint32_t *miss_mask,
             uint32_t *hit_sectors, uint32_t *miss_sectors)
{
    uint32_t hits = 0, misses = 0;
    for (uint32_t i = 0; i < r->n_lines; i++) {
        const coal_line *ln = &r->lines[i];
        if (mode == L1_LOAD_BYPASS) {
            miss_mask[i] = ln->sector_mask;
            misses += cache_popcount(ln->sector_mask);
            continue;
        }
        uint32_t set = set_of(c, ln->line);
        int way = cache_find(c->tags, set, ln->line);
        uint32_t miss = ln->sector_mask;
        if (way >= 0) {
            /* wholly valid sectors hit; partly valid ones hit when they hold the bytes asked for */
            uint32_t full = cache_full(c->tags, set, way);
            uint32_t part = cache_present(c->tags, set, way) & ~full & miss;
            miss &= ~full;
            for (uint32_t s = 0; part; s++, part >>= 1)
                if ((part & 1u) && (cache_valid_bytes(c->tags, set, way, s) & ln->byte_mask[s]) ==
                                       ln->byte_mask[s])
                    miss &= ~(1u << s);
            cache_touch(c->tags, set, way);
        } else if (miss) {
            /* L1 is write-through: nothing to write back, the victim does not matter */
            way = cache_alloc(c->tags, set, ln->line, mode == L1_LOAD_EVICT_FIRST, NULL);
        }
        hits += cache_popcount(ln->sector_mask & ~miss);
        misses += cache_popcount(miss);
        miss_mask[i] = miss;
        if (way >= 0 && miss)
            cache_fill(c->tags, set, way, miss);
    }
    *hit_sectors = hits;
    *miss_sectors = misses;
}

void l1_store(l1 *c, const coal_result *r, cfg_l1_stores policy, uint32_t *hit_sectors,
              uint32_t *miss_sectors)
{
    uint32_t hits = 0, misses = 0;
    for (uint32_t i = 0; i < r->n_lines; i++) {
        const coal_line *ln = &r->lines[i];
        uint32_t set = set_of(c, ln->line);
        int way = cache_find(c->tags, set, ln->line);
        uint32_t present = way >= 0 ? cache_present(c->tags, set, way) : 0;
        hits += cache_popcount(ln->sector_mask & present);
        misses += cache_popcount(ln->sector_mask & ~present);
        if (policy == CFG_L1_STORES_INVALIDATE) {
            if (way >= 0)
                cache_drop(c->tags, set, way);
            continue;
        }
        if (way >= 0) {
            cache_touch(c->tags, set, way);
        } else {
            way = cache_alloc(c->tags, set, ln->line, false, NULL);
            if (way < 0)
                continue; /* no L1 capacity this kernel */
        }
        for (uint32_t s = 0; s < c->sectors_per_line; s++)
            if (ln->sector_mask & (1u << s))
                cache_add_bytes(c->tags, set, way, s, ln->byte_mask[s]);
    }
    *hit_sectors = hits;
    *miss_sectors = misses;
}

void l1_prefetch(const l1 *c, uint64_t line)
{
    cache_prefetch(c->tags, set_of(c, line));
}

void l1_invalidate(l1 *c, const coal_result *r)
{
    for (uint32_t i = 0; i < r->n_lines; i++) {
        const coal_line *ln = &r->lines[i];
        uint32_t set = set_of(c, ln->line);
        int way = cache_find(c->tags, set, ln->line);
        if (way < 0)
            continue;
        cache_invalidate_sectors(c->tags, set, way, ln->sector_mask);
        if (!cache_present(c->tags, set, way))
            cache_drop(c->tags, set, way);
    }
}
