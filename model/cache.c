/* cache.c - sectored tag array with LRU and lazily emptied sets. */
#include "cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

struct cache {
    uint32_t sets;
    uint32_t max_ways;
    uint32_t ways;            /* in use, <= max_ways */
    uint32_t set_bits;        /* log2(sets) when sets is a power of two */
    bool sets_pow2;
    uint32_t sectors_per_line;
    uint32_t sector_bytes;
    cfg_set_index index;
    uint64_t clock;           /* LRU use counter; stamps start at 1 (0 = evict first) */
    uint32_t epoch;           /* a set whose set_epoch differs is empty */
    uint32_t *set_epoch;      /* [sets] */
    uint64_t *tags;           /* [sets * max_ways], CACHE_NO_LINE when empty */
    cache_entry *entries;     /* [sets * max_ways], parallel to tags */
};

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
    assert(sets >= 1 && max_ways >= 1);
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
    c->index = index;
    c->clock = 1;
    c->epoch = 1;
    c->set_epoch = xcalloc(sets, sizeof *c->set_epoch); /* 0 != epoch: all empty */
    size_t n = (size_t)sets * max_ways;
    c->tags = xmalloc(n * sizeof *c->tags);
    c->entries = xmalloc(n * sizeof *c->entries);
    return c;
}

void cache_destroy(cache *c)
{
    if (!c)
        return;
    free(c->set_epoch);
    free(c->tags);
    free(c->entries);
    free(c);
}

void cache_reset(cache *c, uint32_t ways)
{
    assert(ways <= c->max_ways);
    c->ways = ways;
    if (++c->epoch == 0) {
        memset(c->set_epoch, 0, (size_t)c->sets * sizeof *c->set_epoch);
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

uint32_t cache_set_hash(cfg_set_index index, uint64_t line, uint32_t bits)
{
    if (bits == 0)
        return 0;
    uint64_t mask = ((uint64_t)1 << bits) - 1u;
    if (index == CFG_INDEX_LINEAR)
        return (uint32_t)(line & mask);
    uint64_t r = 0;
    while (line) {
        r ^= line & mask;
        line >>= bits;
    }
    return (uint32_t)r;
}

uint32_t cache_index(const cache *c, uint64_t line)
{
    assert(c->sets_pow2);
    return cache_set_hash(c->index, line, c->set_bits);
}

/* Empty the set if the cache was reset since it was last touched. */
static inline uint64_t *set_tags(cache *c, uint32_t set)
{
    assert(set < c->sets);
    uint64_t *t = c->tags + (size_t)set * c->max_ways;
    if (c->set_epoch[set] != c->epoch) {
        for (uint32_t w = 0; w < c->max_ways; w++)
            t[w] = CACHE_NO_LINE;
        c->set_epoch[set] = c->epoch;
    }
    return t;
}

cache_entry *cache_find(cache *c, uint32_t set, uint64_t line)
{
    uint64_t *t = set_tags(c, set);
    for (uint32_t w = 0; w < c->ways; w++)
        if (t[w] == line)
            return &c->entries[(size_t)set * c->max_ways + w];
    return NULL;
}

void cache_touch(cache *c, cache_entry *e)
{
    e->lru = ++c->clock;
}

cache_entry *cache_alloc(cache *c, uint32_t set, uint64_t line, bool evict_first,
                         cache_evicted *ev)
{
    assert(line != CACHE_NO_LINE);
    ev->valid = false;
    ev->dirty = 0;
    ev->line = 0;
    if (c->ways == 0)
        return NULL;
    uint64_t *t = set_tags(c, set);
    size_t base = (size_t)set * c->max_ways;
    uint32_t victim = 0;
    bool found_empty = false;
    uint64_t oldest = UINT64_MAX;
    for (uint32_t w = 0; w < c->ways; w++) {
        if (t[w] == CACHE_NO_LINE) {
            victim = w;
            found_empty = true;
            break;
        }
        assert(t[w] != line);
        if (c->entries[base + w].lru < oldest) {
            oldest = c->entries[base + w].lru;
            victim = w;
        }
    }
    cache_entry *e = &c->entries[base + victim];
    if (!found_empty) {
        ev->valid = true;
        ev->line = t[victim];
        ev->dirty = e->dirty;
    }
    t[victim] = line;
    memset(e->bytes, 0, sizeof e->bytes);
    e->dirty = 0;
    e->lru = evict_first ? 0 : ++c->clock;
    return e;
}

void cache_drop(cache *c, cache_entry *e)
{
    size_t i = (size_t)(e - c->entries);
    assert(i < (size_t)c->sets * c->max_ways);
    c->tags[i] = CACHE_NO_LINE;
    e->dirty = 0;
}

uint64_t cache_count_lines(cache *c)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < c->sets; s++) {
        const uint64_t *t = set_tags(c, s);
        for (uint32_t w = 0; w < c->ways; w++)
            n += t[w] != CACHE_NO_LINE;
    }
    return n;
}
