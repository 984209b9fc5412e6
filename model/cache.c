/* cache.c - sectored tag array with LRU and lazily emptied sets.
 *
 * Set block layout (block_bytes apart, 8-byte aligned):
 *   uint32_t epoch; uint32_t n_valid; uint64_t tag[max_ways]; uint32_t lru[max_ways];
 * Ways 0 .. n_valid-1 are valid; a drop moves the last valid way into the
 * hole. Entries (byte masks, dirty bits) live in a parallel array and are
 * touched only for the way that matches. LRU stamps are 32-bit: when the
 * clock runs out, every set's stamps are renumbered by rank (order kept). */
/* madvise(MADV_HUGEPAGE) is a Linux hint outside POSIX; everything else here is C11 + POSIX */
#define _DEFAULT_SOURCE 1

#include "cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "err.h"

/* Tag arrays of big caches (the L2: tens of MB) are walked at random; with
 * 4 KiB pages nearly every lookup also misses the TLB. Ask for huge pages
 * where the system has them; the memory is the same either way. */
#define HUGE_BYTES ((size_t)2 << 20)

static void *alloc_big(size_t n, bool zero)
{
#ifdef MADV_HUGEPAGE
    if (n >= 2 * HUGE_BYTES) {
        void *p = NULL;
        size_t rounded = (n + HUGE_BYTES - 1u) & ~(HUGE_BYTES - 1u);
        if (posix_memalign(&p, HUGE_BYTES, rounded) == 0) {
            (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint: failure changes nothing */
            if (zero)
                memset(p, 0, n);
            return p;
        }
    }
#endif
    return zero ? xcalloc(1, n) : xmalloc(n);
}

#define LRU_EVICT_FIRST 0u
#define LRU_LIMIT UINT32_MAX

struct cache {
    uint32_t sets;
    uint32_t max_ways;
    uint32_t ways;            /* in use, <= max_ways */
    uint32_t set_bits;        /* log2(sets) when sets is a power of two */
    bool sets_pow2;
    uint32_t sectors_per_line;
    uint32_t sector_bytes;
    cfg_set_index index;
    uint32_t clock;           /* LRU use counter; stamps of used lines are >= 1 */
    uint32_t epoch;           /* a set whose block epoch differs is empty */
    size_t block_bytes;       /* bytes per set block */
    size_t lru_offset;        /* offset of lru[] in a block */
    unsigned char *blocks;    /* [sets] set blocks */
    cache_entry *entries;     /* [sets * max_ways] */
};

typedef struct set_view {
    uint32_t *epoch;
    uint32_t *n_valid;
    uint64_t *tag;
    uint32_t *lru;
    cache_entry *entry;
} set_view;

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
    c->lru_offset = 8u + 8u * (size_t)max_ways;
    c->block_bytes = (c->lru_offset + 4u * (size_t)max_ways + 7u) & ~(size_t)7u;
    /* zeroed: every block's epoch 0 differs from the cache's, all sets empty */
    c->blocks = alloc_big((size_t)sets * c->block_bytes, true);
    c->entries = alloc_big((size_t)sets * max_ways * sizeof *c->entries, false);
    return c;
}

void cache_destroy(cache *c)
{
    if (!c)
        return;
    free(c->blocks);
    free(c->entries);
    free(c);
}

static inline set_view view_raw(const cache *c, uint32_t set)
{
    assert(set < c->sets);
    unsigned char *b = c->blocks + (size_t)set * c->block_bytes;
    set_view v;
    v.epoch = (uint32_t *)(void *)b;
    v.n_valid = (uint32_t *)(void *)(b + 4);
    v.tag = (uint64_t *)(void *)(b + 8);
    v.lru = (uint32_t *)(void *)(b + c->lru_offset);
    v.entry = c->entries + (size_t)set * c->max_ways;
    return v;
}

/* The set, emptied first if the cache was reset since it was last touched. */
static inline set_view view(cache *c, uint32_t set)
{
    set_view v = view_raw(c, set);
    if (*v.epoch != c->epoch) {
        *v.epoch = c->epoch;
        *v.n_valid = 0;
    }
    return v;
}

void cache_reset(cache *c, uint32_t ways)
{
    assert(ways <= c->max_ways);
    c->ways = ways;
    if (++c->epoch == 0) {
        for (uint32_t s = 0; s < c->sets; s++)
            *view_raw(c, s).epoch = 0;
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

int cache_find(cache *c, uint32_t set, uint64_t line)
{
    set_view v = view(c, set);
    uint32_t n = *v.n_valid;
    for (uint32_t w = 0; w < n; w++)
        if (v.tag[w] == line)
            return (int)w;
    return -1;
}

cache_entry *cache_entry_at(cache *c, uint32_t set, int way)
{
    assert(way >= 0 && (uint32_t)way < *view_raw(c, set).n_valid);
    return &c->entries[(size_t)set * c->max_ways + (uint32_t)way];
}

/* Renumber every set's stamps 1..n by rank, keeping the order (and 0 for
 * evict-first lines), when the 32-bit clock runs out. */
static void renumber(cache *c)
{
    uint32_t top = 1;
    for (uint32_t s = 0; s < c->sets; s++) {
        set_view v = view(c, s);
        uint32_t n = *v.n_valid;
        uint32_t rank = 1;
        uint32_t floor = LRU_EVICT_FIRST; /* stamps <= floor are done */
        for (;;) {
            uint32_t next = LRU_LIMIT;
            for (uint32_t w = 0; w < n; w++)
                if (v.lru[w] > floor && v.lru[w] < next)
                    next = v.lru[w];
            if (next == LRU_LIMIT)
                break;
            for (uint32_t w = 0; w < n; w++)
                if (v.lru[w] == next)
                    v.lru[w] = rank; /* rank <= next: stays above the done ones */
            floor = rank;
            rank++;
        }
        if (rank > top)
            top = rank;
    }
    c->clock = top;
}

static inline uint32_t next_stamp(cache *c)
{
    if (c->clock == LRU_LIMIT - 1u)
        renumber(c);
    return ++c->clock;
}

void cache_touch(cache *c, uint32_t set, int way)
{
    uint32_t stamp = next_stamp(c);
    set_view v = view_raw(c, set);
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    v.lru[way] = stamp;
}

int cache_alloc(cache *c, uint32_t set, uint64_t line, bool evict_first, cache_evicted *ev)
{
    assert(line != CACHE_NO_LINE);
    ev->valid = false;
    ev->dirty = 0;
    ev->line = 0;
    if (c->ways == 0)
        return -1;
    uint32_t stamp = evict_first ? LRU_EVICT_FIRST : next_stamp(c);
    set_view v = view(c, set);
    uint32_t n = *v.n_valid;
    uint32_t way;
    if (n < c->ways) {
        way = n;
        *v.n_valid = n + 1u;
    } else {
        way = 0;
        uint32_t oldest = v.lru[0];
        for (uint32_t w = 1; w < n; w++) {
            if (v.lru[w] < oldest) {
                oldest = v.lru[w];
                way = w;
            }
        }
        ev->valid = true;
        ev->line = v.tag[way];
        ev->dirty = v.entry[way].dirty;
    }
    v.tag[way] = line;
    v.lru[way] = stamp;
    cache_entry *e = &v.entry[way];
    memset(e->bytes, 0, sizeof e->bytes);
    e->dirty = 0;
    return (int)way;
}

void cache_drop(cache *c, uint32_t set, int way)
{
    set_view v = view_raw(c, set);
    assert(*v.n_valid > 0);
    uint32_t last = *v.n_valid - 1u;
    assert(way >= 0 && (uint32_t)way <= last);
    if ((uint32_t)way != last) { /* keep the valid ways packed */
        v.tag[way] = v.tag[last];
        v.lru[way] = v.lru[last];
        v.entry[way] = v.entry[last];
    }
    *v.n_valid = last;
}

uint64_t cache_count_lines(cache *c)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < c->sets; s++)
        n += *view(c, s).n_valid;
    return n;
}

void cache_test_set_clock(cache *c, uint32_t clock)
{
    c->clock = clock;
}
