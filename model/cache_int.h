/* cache_int.h - private to the tag arrays (cache.c) and their two users
 * (l1.c, l2.c): the set block layout and the per-set operations, inline.
 *
 * A cache_view is one set's block, located once; the L1 and L2 controllers
 * do every step of an access (lookup, sector states, LRU, allocation) on the
 * view instead of calling cache.h's functions, each of which would locate the
 * set again across a call. The layout and its invariants are described in
 * cache.c. The public functions of cache.h are these, wrapped. */
#ifndef GMS_CACHE_INT_H
#define GMS_CACHE_INT_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cache.h"

#define LRU_EVICT_FIRST 0u
#define LRU_LIMIT 0xffffu
#define CACHE_MAX_WAYS 65535u /* n_valid is 16-bit */
#define ST_FULL(st) ((uint32_t)(st) & 0xfu)
#define ST_PART(st) (((uint32_t)(st) >> 4) & 0xfu)
#define ST_DIRTY(st) (((uint32_t)(st) >> 8) & 0xfu)
#define ST_MAKE(full, part, dirty) ((uint16_t)((full) | ((part) << 4) | ((dirty) << 8)))

/* Byte masks of a way's sectors; meaningful only for partly valid sectors. */
typedef struct way_bytes {
    uint32_t bytes[CACHE_MAX_SECTORS];
} way_bytes;

struct cache {
    uint32_t sets;
    uint32_t max_ways;
    uint32_t ways;            /* in use, <= max_ways */
    uint32_t set_bits;        /* log2(sets) when sets is a power of two */
    bool sets_pow2;
    uint32_t sectors_per_line;
    uint32_t sector_bytes;
    uint32_t full_bytes;      /* byte mask of a whole sector */
    cfg_set_index index;
    uint32_t epoch;           /* a set whose block epoch differs is empty */
    size_t block_bytes;       /* bytes per set block, a multiple of 64 */
    size_t state_offset;      /* offsets in a block */
    size_t lru_offset;
    size_t tag_offset;
    size_t prefetch_bytes;    /* leading bytes of a block that cache_prefetch loads */
    unsigned char *blocks;    /* [sets] set blocks */
    way_bytes *bytes;         /* [sets * max_ways] */
};

typedef struct cache_view {
    uint32_t *epoch;
    uint16_t *n_valid;
    uint16_t *clock;
    uint16_t *fp;
    uint16_t *state;
    uint16_t *lru;
    uint64_t *tag;
    way_bytes *bytes;
} cache_view;

static inline uint16_t cache_fingerprint(uint64_t line)
{
    return (uint16_t)((line * 0x9e3779b97f4a7c15ull) >> 48);
}

static inline cache_view cache_view_raw(const cache *c, uint32_t set)
{
    assert(set < c->sets);
    unsigned char *b = c->blocks + (size_t)set * c->block_bytes;
    cache_view v;
    v.epoch = (uint32_t *)(void *)b;
    v.n_valid = (uint16_t *)(void *)(b + 4);
    v.clock = (uint16_t *)(void *)(b + 6);
    v.fp = (uint16_t *)(void *)(b + 8);
    v.state = (uint16_t *)(void *)(b + c->state_offset);
    v.lru = (uint16_t *)(void *)(b + c->lru_offset);
    v.tag = (uint64_t *)(void *)(b + c->tag_offset);
    v.bytes = c->bytes + (size_t)set * c->max_ways;
    return v;
}

/* The set, emptied first if the cache was reset since it was last touched. */
static inline cache_view cache_view_get(cache *c, uint32_t set)
{
    cache_view v = cache_view_raw(c, set);
    if (*v.epoch != c->epoch) {
        *v.epoch = c->epoch;
        *v.n_valid = 0;
        *v.clock = 0;
    }
    return v;
}

/* The way holding line, or -1. */
static inline int cache_view_find(const cache_view *vp, uint64_t line)
{
    const cache_view v = *vp;
    uint32_t n = *v.n_valid;
#if defined(__SSE2__)
    /* 8 fingerprints per compare; the ones read past n lie inside the array
     * (its length is a multiple of 8) and are masked off */
    const __m128i want = _mm_set1_epi16((short)cache_fingerprint(line));
    for (uint32_t w = 0; w < n; w += 8) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(v.fp + w));
        uint32_t z = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi16(x, want)) & 0x5555u;
        if (n - w < 8)
            z &= (1u << (2u * (n - w))) - 1u; /* only valid ways */
        while (z) {
            uint32_t k = w + (uint32_t)__builtin_ctz(z) / 2u;
            if (v.tag[k] == line)
                return (int)k;
            z &= z - 1u;
        }
    }
#else
    const uint16_t want = cache_fingerprint(line);
    for (uint32_t w = 0; w < n; w++)
        if (v.fp[w] == want && v.tag[w] == line)
            return (int)w;
#endif
    return -1;
}

static inline uint32_t cache_view_full(const cache_view *v, int way)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    return ST_FULL(v->state[way]);
}

static inline uint32_t cache_view_present(const cache_view *v, int way)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    uint16_t st = v->state[way];
    return ST_FULL(st) | ST_PART(st);
}

static inline uint32_t cache_view_dirty(const cache_view *v, int way)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    return ST_DIRTY(v->state[way]);
}

static inline uint32_t cache_view_valid_bytes(const cache *c, const cache_view *v, int way,
                                              uint32_t sector)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    uint16_t st = v->state[way];
    if (ST_FULL(st) & (1u << sector))
        return c->full_bytes;
    if (ST_PART(st) & (1u << sector))
        return v->bytes[way].bytes[sector];
    return 0;
}

static inline void cache_view_add_bytes(const cache *c, const cache_view *v, int way,
                                        uint32_t sector, uint32_t bytes)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    uint16_t *st = &v->state[way];
    uint32_t bit = 1u << sector;
    uint32_t full = ST_FULL(*st), part = ST_PART(*st), dirty = ST_DIRTY(*st);
    if ((full & bit) || bytes == 0)
        return;
    uint32_t *b = &v->bytes[way].bytes[sector];
    uint32_t now = ((part & bit) ? *b : 0) | bytes;
    if (now == c->full_bytes) {
        full |= bit;
        part &= ~bit;
    } else {
        part |= bit;
        *b = now;
    }
    *st = ST_MAKE(full, part, dirty);
}

static inline void cache_view_fill(const cache_view *v, int way, uint32_t sector_mask)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    uint16_t *st = &v->state[way];
    sector_mask &= 0xfu;
    *st = ST_MAKE(ST_FULL(*st) | sector_mask, ST_PART(*st) & ~sector_mask, ST_DIRTY(*st));
}

static inline void cache_view_invalidate(const cache_view *v, int way, uint32_t sector_mask)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    uint16_t *st = &v->state[way];
    sector_mask &= 0xfu;
    *st = ST_MAKE(ST_FULL(*st) & ~sector_mask, ST_PART(*st) & ~sector_mask,
                  ST_DIRTY(*st) & ~sector_mask);
}

static inline void cache_view_mark_dirty(const cache_view *v, int way, uint32_t sector_mask)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    v->state[way] = (uint16_t)(v->state[way] | ((sector_mask & 0xfu) << 8));
}

/* The set's clock ran out: renumber its stamps (cache.c; rare). */
void cache_renumber(const cache_view *v);

static inline uint16_t cache_view_next_stamp(const cache_view *v)
{
    if (*v->clock == LRU_LIMIT)
        cache_renumber(v);
    return ++*v->clock;
}

/* Make the way the most recently used of its set. */
static inline void cache_view_touch(const cache_view *v, int way)
{
    assert(way >= 0 && (uint32_t)way < *v->n_valid);
    v->lru[way] = cache_view_next_stamp(v);
}

/* The way with the oldest stamp among ways 0..n-1 (n >= 1), the first one on
 * a tie (evict-first lines share stamp 0). */
static inline uint32_t cache_oldest_way(const uint16_t *lru, uint32_t n)
{
#if defined(__SSE2__)
    /* SSE2 has only a signed 16-bit min: flip the top bit to keep the order.
     * Reading 8 stamps at a time stays inside the array (its length is a
     * multiple of 8); stamps past n are replaced by the largest value. */
    const __m128i flip = _mm_set1_epi16((short)0x8000);
    const __m128i top = _mm_set1_epi16(0x7fff);
    __m128i lo = top;
    for (uint32_t w = 0; w < n; w += 8) {
        __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(lru + w)), flip);
        if (n - w < 8) {
            static const int16_t keep[16] = {-1, -1, -1, -1, -1, -1, -1, -1, 0, 0, 0, 0, 0, 0, 0, 0};
            __m128i k = _mm_loadu_si128((const __m128i *)(const void *)(keep + 8 - (n - w)));
            x = _mm_or_si128(_mm_and_si128(k, x), _mm_andnot_si128(k, top));
        }
        lo = _mm_min_epi16(lo, x);
    }
    lo = _mm_min_epi16(lo, _mm_shuffle_epi32(lo, _MM_SHUFFLE(1, 0, 3, 2)));
    lo = _mm_min_epi16(lo, _mm_shuffle_epi32(lo, _MM_SHUFFLE(2, 3, 0, 1)));
    lo = _mm_min_epi16(lo, _mm_shufflelo_epi16(lo, _MM_SHUFFLE(2, 3, 0, 1)));
    /* lo now holds the (flipped) minimum in every lane: find its first way */
    lo = _mm_shuffle_epi32(_mm_shufflelo_epi16(lo, 0), 0);
    for (uint32_t w = 0;; w += 8) {
        __m128i x = _mm_xor_si128(_mm_loadu_si128((const __m128i *)(const void *)(lru + w)), flip);
        uint32_t z = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi16(x, lo));
        if (z) /* two mask bits per stamp; the first match is below n */
            return w + (uint32_t)__builtin_ctz(z) / 2u;
    }
#else
    uint32_t way = 0;
    uint32_t oldest = lru[0];
    for (uint32_t w = 1; w < n; w++) {
        if (lru[w] < oldest) {
            oldest = lru[w];
            way = w;
        }
    }
    return way;
#endif
}

/* cache_alloc on a view. */
static inline int cache_view_alloc(const cache *c, const cache_view *vp, uint64_t line,
                                   bool evict_first, cache_evicted *ev)
{
    const cache_view v = *vp;

    assert(line != CACHE_NO_LINE);
    if (ev) {
        ev->valid = false;
        ev->dirty = 0;
        ev->partial = 0;
        ev->line = 0;
    }
    if (c->ways == 0)
        return -1;
    uint32_t n = *v.n_valid;
    uint32_t way;
    if (n < c->ways) {
        way = n;
        *v.n_valid = (uint16_t)(n + 1u);
    } else {
        way = cache_oldest_way(v.lru, n);
        if (ev) {
            ev->valid = true;
            ev->line = v.tag[way];
            ev->dirty = (uint8_t)ST_DIRTY(v.state[way]);
            ev->partial = (uint8_t)ST_PART(v.state[way]);
        }
    }
    v.tag[way] = line;
    v.fp[way] = cache_fingerprint(line);
    v.state[way] = 0;
    v.lru[way] = evict_first ? (uint16_t)LRU_EVICT_FIRST : cache_view_next_stamp(&v);
    return (int)way;
}

/* cache_drop on a view. */
static inline void cache_view_drop(const cache_view *vp, int way)
{
    const cache_view v = *vp;

    assert(*v.n_valid > 0);
    uint32_t last = *v.n_valid - 1u;
    assert(way >= 0 && (uint32_t)way <= last);
    if ((uint32_t)way != last) { /* keep the valid ways packed */
        v.tag[way] = v.tag[last];
        v.fp[way] = v.fp[last];
        v.lru[way] = v.lru[last];
        v.state[way] = v.state[last];
        if (ST_PART(v.state[last]))
            v.bytes[way] = v.bytes[last];
    }
    *v.n_valid = (uint16_t)last;
}


#endif
