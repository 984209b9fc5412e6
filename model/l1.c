/* l1.c - L1 policies over a sectored tag array (the rules are in l1.h). */
#include "l1.h"

#include <assert.h>
#include <stdlib.h>

#include "cache.h"
#include "err.h"

struct l1 {
    cache *tags;
    uint32_t sets;
    uint32_t line_bytes;
    uint32_t sector_bytes;
    uint32_t sectors_per_line;
    uint32_t full;          /* byte mask of a whole sector */
};

l1 *l1_create(const cfg_gpu *c)
{
    l1 *l = xcalloc(1, sizeof *l);
    l->sets = c->l1_sets;
    l->line_bytes = c->l1_line_bytes;
    l->sector_bytes = c->l1_sector_bytes;
    l->sectors_per_line = c->l1_line_bytes / c->l1_sector_bytes;
    l->full = cache_full_mask(c->l1_sector_bytes);
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
        uint32_t set = cache_index(c->tags, ln->line);
        int way = cache_find(c->tags, set, ln->line);
        cache_entry *e = way >= 0 ? cache_entry_at(c->tags, set, way) : NULL;
        uint32_t miss = 0;
        for (uint32_t s = 0; s < c->sectors_per_line; s++) {
            if (!(ln->sector_mask & (1u << s)))
                continue;
            if (e && (e->bytes[s] & ln->byte_mask[s]) == ln->byte_mask[s])
                hits++;
            else
                miss |= 1u << s;
        }
        miss_mask[i] = miss;
        misses += cache_popcount(miss);
        if (e) {
            cache_touch(c->tags, set, way);
        } else if (miss) {
            cache_evicted ev; /* L1 is write-through: nothing to write back */
            way = cache_alloc(c->tags, set, ln->line, mode == L1_LOAD_EVICT_FIRST, &ev);
            e = way >= 0 ? cache_entry_at(c->tags, set, way) : NULL;
        }
        if (e) {
            for (uint32_t s = 0; s < c->sectors_per_line; s++)
                if (miss & (1u << s))
                    e->bytes[s] = c->full;
        }
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
        uint32_t set = cache_index(c->tags, ln->line);
        int way = cache_find(c->tags, set, ln->line);
        cache_entry *e = way >= 0 ? cache_entry_at(c->tags, set, way) : NULL;
        for (uint32_t s = 0; s < c->sectors_per_line; s++) {
            if (!(ln->sector_mask & (1u << s)))
                continue;
            if (e && e->bytes[s] != 0)
                hits++;
            else
                misses++;
        }
        if (policy == CFG_L1_STORES_INVALIDATE) {
            if (e)
                cache_drop(c->tags, set, way);
            continue;
        }
        if (e) {
            cache_touch(c->tags, set, way);
        } else {
            cache_evicted ev;
            way = cache_alloc(c->tags, set, ln->line, false, &ev);
            if (way < 0)
                continue; /* no L1 capacity this kernel */
            e = cache_entry_at(c->tags, set, way);
        }
        for (uint32_t s = 0; s < c->sectors_per_line; s++)
            e->bytes[s] |= ln->byte_mask[s];
    }
    *hit_sectors = hits;
    *miss_sectors = misses;
}

void l1_invalidate(l1 *c, const coal_result *r)
{
    for (uint32_t i = 0; i < r->n_lines; i++) {
        const coal_line *ln = &r->lines[i];
        uint32_t set = cache_index(c->tags, ln->line);
        int way = cache_find(c->tags, set, ln->line);
        if (way < 0)
            continue;
        cache_entry *e = cache_entry_at(c->tags, set, way);
        uint32_t left = 0;
        for (uint32_t s = 0; s < c->sectors_per_line; s++) {
            if (ln->sector_mask & (1u << s))
                e->bytes[s] = 0;
            left |= e->bytes[s];
        }
        if (!left)
            cache_drop(c->tags, set, way);
    }
}
