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
#if defined(__AVX2__)
#include <immintrin.h>
#elif defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cache.h"

/* Always inlined: these are a few instructions on a view of ten pointers,
 * which a call would copy. */
#if defined(__GNUC__)
#define CACHE_ALWAYS_INLINE __attribute__((always_inline))
#else
#define CACHE_ALWAYS_INLINE
#endif
#if defined(__GNUC__)
#define CACHE_NOINLINE __attribute__((noinline))
#else
#define CACHE_NOINLINE
#endif

/* The L1 load and the L2 read also exist compiled for AVX2 (l1_avx2.c,
 * l2_avx2.c: x86-64, gcc, whose #pragma GCC target defines __AVX2__ and
 * whose __builtin_cpu_supports picks them at run time); see l1_int.h. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define CACHE_AVX2_BUILDS 1
#else
#define CACHE_AVX2_BUILDS 0
#endif

#define CACHE_NIL 0xffu       /* no way: the head of an empty LRU list */
/* state[way], read by every access: wholly valid sectors (bits 0-3), partly
 * valid ones (4-7) */
#define ST_FULL(st) ((uint32_t)(st) & 0xfu)
#define ST_PART(st) ((uint32_t)(st) >> 4)
/* aux[way], read by no lookup or hit, written by each allocation: dirty
 * sectors (bits 0-3) and evict-first (bit 4) */
#define AUX_DIRTY(a) ((uint32_t)(a) & 0xfu)
#define AUX_EF 0x10u          /* evict-first line: outside the LRU list */

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
    size_t header_offset;     /* offsets in a block */
    size_t state_offset;
    size_t prev_offset;
    size_t next_offset;
    size_t tag_offset;
    size_t aux_offset;
    size_t prefetch_lines;    /* leading 64-byte lines of a block that cache_prefetch loads */
    unsigned char *blocks;    /* [sets] set blocks, line-aligned */
    way_bytes *bytes;         /* [sets * max_ways] */
    void *blocks_raw, *bytes_raw; /* what to free */
};

/* One set. LRU order: the valid ways that are not evict-first form a
 * circular doubly linked list, *head its least recently used way and
 * prev[*head] its most recent (CACHE_NIL: empty); evict-first ways (AUX_EF
 * in their aux, *n_ef of them) are outside it and go first, the lowest way
 * number first. */
typedef struct cache_view {
    uint32_t *epoch;
    uint8_t *n_valid;
    uint8_t *head;
    uint8_t *n_ef;      /* evict-first ways */
    uint16_t *fp;
    uint8_t *state;
    uint8_t *prev;      /* [way]: the next older way in the list */
    uint8_t *next;      /* [way]: the next newer way */
    uint64_t *tag;
    uint8_t *aux;
    way_bytes *bytes;
} cache_view;

static inline uint16_t cache_fingerprint(uint64_t line)
{
    return (uint16_t)((line * 0x9e3779b97f4a7c15ull) >> 48);
}

/* The operations below work on a local copy of the view: the sector
 * states, links and header are bytes, and a store through a byte pointer may
 * alias *vp (so the compiler would reload the pointers after each store),
 * but not a local whose address is not taken. */

static inline CACHE_ALWAYS_INLINE cache_view cache_view_raw(const cache *c, uint32_t set)
{
    assert(set < c->sets);
    unsigned char *b = c->blocks + (size_t)set * c->block_bytes;
    cache_view v;
    v.fp = (uint16_t *)(void *)b;
    unsigned char *h = b + c->header_offset;
    v.epoch = (uint32_t *)(void *)h;
    v.n_valid = h + 4;
    v.head = h + 5;
    v.n_ef = h + 6;
    v.state = b + c->state_offset;
    v.prev = b + c->prev_offset;
    v.next = b + c->next_offset;
    v.tag = (uint64_t *)(void *)(b + c->tag_offset);
    v.aux = b + c->aux_offset;
    v.bytes = c->bytes + (size_t)set * c->max_ways;
    return v;
}

/* The set, emptied first if the cache was reset since it was last touched. */
static inline CACHE_ALWAYS_INLINE cache_view cache_view_get(cache *c, uint32_t set)
{
    cache_view v = cache_view_raw(c, set);
    if (*v.epoch != c->epoch) {
        *v.epoch = c->epoch;
        *v.n_valid = 0;
        *v.head = (uint8_t)CACHE_NIL;
        *v.n_ef = 0;
    }
    return v;
}

/* The way holding line, or -1. */
static inline CACHE_ALWAYS_INLINE int cache_view_find(const cache_view *vp, uint64_t line)
{
    const cache_view v = *vp;
    uint32_t n = *v.n_valid;
#if defined(__AVX2__)
    /* As the SSE2 code below, 32 fingerprints per step (code compiled for
     * AVX2: l1_avx2.c). packs works within each 128-bit half, so its result
     * holds ways 0-7, 16-23, 8-15, 24-31: permute4x64 puts them in order.
     * Each step reads 64 aligned bytes that begin at a valid way: inside
     * the block (a multiple of 64 bytes); ways from n on are masked off. */
    const __m256i want = _mm256_set1_epi16((short)cache_fingerprint(line));
#define CACHE_FP_STEP32(w)                                                                      \
    ((uint64_t)(uint32_t)_mm256_movemask_epi8(_mm256_permute4x64_epi64(                          \
         _mm256_packs_epi16(                                                                     \
             _mm256_cmpeq_epi16(_mm256_load_si256((const __m256i *)(const void *)(f + (w))), want), \
             _mm256_cmpeq_epi16(_mm256_load_si256((const __m256i *)(const void *)(f + (w) + 16)),  \
                                want)),                                                          \
         0xd8))                                                                                  \
     << (w))
    for (uint32_t g = 0; g < n; g += 64) {
        const uint16_t *f = v.fp + g;
        uint32_t left = n - g; /* valid ways from g on */
        uint64_t z = CACHE_FP_STEP32(0);
        if (left > 32)
            z |= CACHE_FP_STEP32(32);
        if (left < 64)
            z &= ((uint64_t)1 << left) - 1u; /* only valid ways */
        while (z) {
            uint32_t k = g + (uint32_t)__builtin_ctzll(z);
            if (v.tag[k] == line)
                return (int)k;
            z &= z - 1u;
        }
    }
#undef CACHE_FP_STEP32
#elif defined(__SSE2__)
    /* 16 fingerprints per step: two compares packed into one 16-bit mask,
     * the masks of up to 64 ways gathered, unrolled, before any is looked at
     * (a loop's test and branch per step cost as much as its compares).
     * Each step reads 32 aligned bytes that begin at a valid way: inside the
     * block (a multiple of 64 bytes); ways from n on are masked off. */
    const __m128i want = _mm_set1_epi16((short)cache_fingerprint(line));
#define CACHE_FP_STEP(w)                                                                        \
    ((uint64_t)(uint32_t)_mm_movemask_epi8(_mm_packs_epi16(                                      \
         _mm_cmpeq_epi16(_mm_load_si128((const __m128i *)(const void *)(f + (w))), want),        \
         _mm_cmpeq_epi16(_mm_load_si128((const __m128i *)(const void *)(f + (w) + 8)), want)))   \
     << (w))
    for (uint32_t g = 0; g < n; g += 64) {
        const uint16_t *f = v.fp + g;
        uint32_t left = n - g; /* valid ways from g on */
        uint64_t z = 0;
        switch ((left + 15u) / 16u) {
        default: z |= CACHE_FP_STEP(48); /* fall through */
        case 3: z |= CACHE_FP_STEP(32); /* fall through */
        case 2: z |= CACHE_FP_STEP(16); /* fall through */
        case 1: z |= CACHE_FP_STEP(0);
        }
        if (left < 64)
            z &= ((uint64_t)1 << left) - 1u; /* only valid ways */
        while (z) {
            uint32_t k = g + (uint32_t)__builtin_ctzll(z);
            if (v.tag[k] == line)
                return (int)k;
            z &= z - 1u;
        }
    }
#undef CACHE_FP_STEP
#else
    const uint16_t want = cache_fingerprint(line);
    for (uint32_t w = 0; w < n; w++)
        if (v.fp[w] == want && v.tag[w] == line)
            return (int)w;
#endif
    return -1;
}

static inline uint32_t cache_view_full(const cache_view *vp, int way)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    return ST_FULL(v.state[way]);
}

static inline uint32_t cache_view_present(const cache_view *vp, int way)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    uint32_t st = v.state[way];
    return ST_FULL(st) | ST_PART(st);
}

/* The way's aux. */
static inline uint32_t cache_view_aux(const cache_view *vp, uint32_t way)
{
    return vp->aux[way];
}

static inline uint32_t cache_view_dirty(const cache_view *vp, int way)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    return AUX_DIRTY(cache_view_aux(&v, (uint32_t)way));
}

static inline bool cache_view_is_ef(const cache_view *vp, uint32_t way)
{
    const cache_view v = *vp;
    return *v.n_ef && (v.aux[way] & AUX_EF);
}

static inline uint32_t cache_view_valid_bytes(const cache *c, const cache_view *vp, int way,
                                              uint32_t sector)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    uint32_t st = v.state[way];
    if (ST_FULL(st) & (1u << sector))
        return c->full_bytes;
    if (ST_PART(st) & (1u << sector))
        return v.bytes[way].bytes[sector];
    return 0;
}

static inline void cache_view_add_bytes(const cache *c, const cache_view *vp, int way,
                                        uint32_t sector, uint32_t bytes)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    uint8_t *st = &v.state[way];
    uint32_t bit = 1u << sector;
    uint32_t full = ST_FULL(*st), part = ST_PART(*st);
    if ((full & bit) || bytes == 0)
        return;
    uint32_t *b = &v.bytes[way].bytes[sector];
    uint32_t now = ((part & bit) ? *b : 0) | bytes;
    if (now == c->full_bytes) {
        full |= bit;
        part &= ~bit;
    } else {
        part |= bit;
        *b = now;
    }
    *st = (uint8_t)(full | part << 4);
}

static inline void cache_view_fill(const cache_view *vp, int way, uint32_t sector_mask)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    uint8_t *st = &v.state[way];
    sector_mask &= 0xfu;
    /* wholly valid: set; partly valid: cleared (dirty is in aux, kept) */
    *st = (uint8_t)((*st | sector_mask) & ~(sector_mask << 4));
}

static inline void cache_view_invalidate(const cache_view *vp, int way, uint32_t sector_mask)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    uint8_t *st = &v.state[way];
    sector_mask &= 0xfu;
    /* wholly, partly valid and dirty: cleared; evict-first kept */
    *st = (uint8_t)(*st & ~(sector_mask | sector_mask << 4));
    v.aux[way] = (uint8_t)(v.aux[way] & ~sector_mask);
}

static inline void cache_view_mark_dirty(const cache_view *vp, int way, uint32_t sector_mask)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    v.aux[way] = (uint8_t)(v.aux[way] | (sector_mask & 0xfu));
}

/* cache_prefetch, inline (the L1's and L2's hints for many lines at once).
 * Into the CPU's L2 (locality 2), not its L1: a gather announces about a
 * hundred sets at once, which would push the L1's working data out. */
static inline CACHE_ALWAYS_INLINE void cache_prefetch_set(const cache *c, uint32_t set)
{
    const unsigned char *b = c->blocks + (size_t)set * c->block_bytes;
    /* unrolled (a loop step cost three times its prefetch): blocks up to
     * 9 lines, the L1's and L2's, take one straight run */
    size_t lines = c->prefetch_lines;
    switch (lines) {
    default:
        for (size_t i = 9; i < lines; i++)
            __builtin_prefetch(b + 64u * i, 1, 2);
        /* fall through */
    case 9: __builtin_prefetch(b + 512, 1, 2); /* fall through */
    case 8: __builtin_prefetch(b + 448, 1, 2); /* fall through */
    case 7: __builtin_prefetch(b + 384, 1, 2); /* fall through */
    case 6: __builtin_prefetch(b + 320, 1, 2); /* fall through */
    case 5: __builtin_prefetch(b + 256, 1, 2); /* fall through */
    case 4: __builtin_prefetch(b + 192, 1, 2); /* fall through */
    case 3: __builtin_prefetch(b + 128, 1, 2); /* fall through */
    case 2: __builtin_prefetch(b + 64, 1, 2); /* fall through */
    case 1: __builtin_prefetch(b, 1, 2); /* fall through */
    case 0: break;
    }
}

/* ---- LRU: O(1) per step, no scan (see cache_view) ---------------------- */

/* Append way w (in no list) as the most recently used. */
static inline CACHE_ALWAYS_INLINE void cache_list_push(const cache_view *vp, uint32_t w)
{
    const cache_view v = *vp;
    uint32_t h = *v.head;
    if (h == CACHE_NIL) {
        *v.head = (uint8_t)w;
        v.prev[w] = v.next[w] = (uint8_t)w;
        return;
    }
    uint32_t t = v.prev[h];
    v.next[t] = (uint8_t)w;
    v.prev[w] = (uint8_t)t;
    v.next[w] = (uint8_t)h;
    v.prev[h] = (uint8_t)w;
}

/* Take way w out of the list. */
static inline CACHE_ALWAYS_INLINE void cache_list_remove(const cache_view *vp, uint32_t w)
{
    const cache_view v = *vp;
    uint32_t n = v.next[w];
    if (n == w) {
        *v.head = (uint8_t)CACHE_NIL;
        return;
    }
    uint32_t p = v.prev[w];
    v.next[p] = (uint8_t)n;
    v.prev[n] = (uint8_t)p;
    if (*v.head == w)
        *v.head = (uint8_t)n;
}

/* Make the way the most recently used of its set. */
static inline CACHE_ALWAYS_INLINE void cache_view_touch(const cache_view *vp, int way)
{
    const cache_view v = *vp;
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    uint32_t w = (uint32_t)way;
    if (cache_view_is_ef(&v, w)) {
        v.aux[w] = (uint8_t)(v.aux[w] & ~AUX_EF);
        --*v.n_ef;
        cache_list_push(&v, w);
        return;
    }
    uint32_t h = *v.head;
    if (w == h) {
        *v.head = v.next[w]; /* the oldest becomes the newest: the circle turns */
        return;
    }
    if (v.prev[h] == w)
        return; /* already the newest */
    cache_list_remove(&v, w);
    cache_list_push(&v, w);
}

/* The lowest evict-first way among ways 0..n-1 (there is one). */
static inline uint32_t cache_first_ef(const uint8_t *aux, uint32_t n)
{
    uint32_t w = 0;
    while (!(aux[w] & AUX_EF)) {
        w++;
        assert(w < n);
    }
    (void)n;
    return w;
}

/* cache_alloc on a view. */
static inline CACHE_ALWAYS_INLINE int cache_view_alloc(const cache *c, const cache_view *vp, uint64_t line,
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
    bool in_list = false; /* the victim's way is already the newest in the list */
    if (n < c->ways) {
        way = n;
        *v.n_valid = (uint8_t)(n + 1u);
    } else {
        if (*v.n_ef) {
            way = cache_first_ef(v.aux, n);
            --*v.n_ef;
        } else {
            way = *v.head;
            if (evict_first) {
                cache_list_remove(&v, way);
            } else {
                *v.head = v.next[way]; /* the oldest way becomes the newest */
                in_list = true;
            }
        }
        if (ev) {
            ev->valid = true;
            ev->line = v.tag[way];
            ev->dirty = (uint8_t)AUX_DIRTY(v.aux[way]);
            ev->partial = (uint8_t)ST_PART(v.state[way]);
        }
    }
    v.tag[way] = line;
    v.fp[way] = cache_fingerprint(line);
    v.state[way] = 0;
    if (evict_first) {
        v.aux[way] = (uint8_t)AUX_EF;
        ++*v.n_ef;
    } else {
        v.aux[way] = 0;
        if (!in_list)
            cache_list_push(&v, way);
    }
    return (int)way;
}

/* cache_drop on a view. */
static inline CACHE_ALWAYS_INLINE void cache_view_drop(const cache_view *vp, int way)
{
    const cache_view v = *vp;

    assert(*v.n_valid > 0);
    uint32_t last = *v.n_valid - 1u;
    assert(way >= 0 && (uint32_t)way <= last);
    uint32_t w = (uint32_t)way;
    uint32_t a = v.aux[w];
    if (a & AUX_EF)
        --*v.n_ef;
    else
        cache_list_remove(&v, w);
    if (w != last) { /* keep the valid ways packed: the last one moves into the hole */
        v.tag[w] = v.tag[last];
        v.fp[w] = v.fp[last];
        v.state[w] = v.state[last];
        if (ST_PART(v.state[last]))
            v.bytes[w] = v.bytes[last];
        uint32_t la = v.aux[last];
        v.aux[w] = (uint8_t)la;
        if (!(la & AUX_EF)) {
            uint32_t p = v.prev[last], n = v.next[last];
            if (n == last) {
                v.prev[w] = v.next[w] = (uint8_t)w;
            } else {
                v.prev[w] = (uint8_t)p;
                v.next[w] = (uint8_t)n;
                v.next[p] = (uint8_t)w;
                v.prev[n] = (uint8_t)w;
            }
            if (*v.head == last)
                *v.head = (uint8_t)w;
        }
    }
    *v.n_valid = (uint8_t)last;
}

#endif
