/* cache.c - sectored tag array with per-set LRU and lazily emptied sets.
 *
 * The simulator's speed is bound by its own memory traffic, so each set is
 * one 64-byte-aligned block laid out for the fewest cache lines per lookup:
 *
 *   uint32_t epoch;  uint16_t n_valid;  uint16_t clock;    header, 8 bytes
 *   uint8_t  fp[wp];    one-byte fingerprints of the tags  (wp = ways rounded up to 8)
 *   uint16_t state[wp]; per way: wholly valid sectors (bits 0-3), partly valid
 *                       sectors (4-7), dirty sectors (8-11)
 *   uint16_t lru[wp];   LRU stamps from the set's own clock
 *   uint64_t tag[ways];
 *
 * A lookup compares fingerprints eight at a time (one cache line for up to
 * 56 ways, with the header) and reads a full tag only on a fingerprint match;
 * a victim search reads 2-byte stamps. Ways 0 .. n_valid-1 are valid: a drop
 * moves the last valid way into the hole, filling a non-full set is O(1).
 * When a set's 16-bit clock runs out its stamps are renumbered by rank, which
 * keeps the LRU order. Byte masks live in a parallel array and are touched
 * only for partly valid sectors, so whole-sector traffic (nearly all of it)
 * never reads them. */
/* madvise(MADV_HUGEPAGE) is a Linux hint outside POSIX; everything else here is C11 + POSIX */
#define _DEFAULT_SOURCE 1

#include "cache.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "err.h"

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

/* Tag arrays of big caches (the L2: tens of MB) are walked at random; with
 * 4 KiB pages nearly every lookup also misses the TLB. Ask for huge pages
 * where the system has them; the memory is the same either way. */
#define HUGE_BYTES ((size_t)2 << 20)

static void *alloc_blocks(size_t n, size_t align, bool zero)
{
    void *p = NULL;
    size_t a = align;
#ifdef MADV_HUGEPAGE
    if (n >= 2 * HUGE_BYTES)
        a = HUGE_BYTES;
#endif
    size_t rounded = (n + a - 1u) & ~(a - 1u);
    if (posix_memalign(&p, a, rounded) != 0) /* only for lack of memory */
        return zero ? xcalloc(1, n) : xmalloc(n); /* aborts like any allocation */
#ifdef MADV_HUGEPAGE
    if (a == HUGE_BYTES)
        (void)madvise(p, rounded, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#endif
    if (zero)
        memset(p, 0, n);
    return p;
}

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

typedef struct set_view {
    uint32_t *epoch;
    uint16_t *n_valid;
    uint16_t *clock;
    uint8_t *fp;
    uint16_t *state;
    uint16_t *lru;
    uint64_t *tag;
    way_bytes *bytes;
} set_view;

static uint32_t log2_exact(uint32_t v)
{
    uint32_t s = 0;
    while ((1u << s) < v)
        s++;
    assert((1u << s) == v);
    return s;
}

static inline uint8_t fingerprint(uint64_t line)
{
    return (uint8_t)((line * 0x9e3779b97f4a7c15ull) >> 56);
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
    size_t wp = ((size_t)max_ways + 7u) & ~(size_t)7u;
    c->state_offset = 8u + wp;
    c->lru_offset = c->state_offset + 2u * wp;
    c->tag_offset = c->lru_offset + 2u * wp;
    c->block_bytes = (c->tag_offset + 8u * (size_t)max_ways + 63u) & ~(size_t)63u;
    /* the whole block when it is a few cache lines (the L2's 20 ways: 5);
     * else all but the tags, of which a lookup reads one */
    c->prefetch_bytes = c->block_bytes <= 320u ? c->block_bytes : c->tag_offset;
    /* zeroed: every block's epoch 0 differs from the cache's, all sets empty */
    c->blocks = alloc_blocks((size_t)sets * c->block_bytes, 64, true);
    c->bytes = alloc_blocks((size_t)sets * max_ways * sizeof *c->bytes, 64, false);
    return c;
}

void cache_destroy(cache *c)
{
    if (!c)
        return;
    free(c->blocks);
    free(c->bytes);
    free(c);
}

static inline set_view view_raw(const cache *c, uint32_t set)
{
    assert(set < c->sets);
    unsigned char *b = c->blocks + (size_t)set * c->block_bytes;
    set_view v;
    v.epoch = (uint32_t *)(void *)b;
    v.n_valid = (uint16_t *)(void *)(b + 4);
    v.clock = (uint16_t *)(void *)(b + 6);
    v.fp = b + 8;
    v.state = (uint16_t *)(void *)(b + c->state_offset);
    v.lru = (uint16_t *)(void *)(b + c->lru_offset);
    v.tag = (uint64_t *)(void *)(b + c->tag_offset);
    v.bytes = c->bytes + (size_t)set * c->max_ways;
    return v;
}

/* The set, emptied first if the cache was reset since it was last touched. */
static inline set_view view(cache *c, uint32_t set)
{
    set_view v = view_raw(c, set);
    if (*v.epoch != c->epoch) {
        *v.epoch = c->epoch;
        *v.n_valid = 0;
        *v.clock = 0;
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

uint32_t cache_index(const cache *c, uint64_t line)
{
    assert(c->sets_pow2);
    return cache_set_hash(c->index, line, c->set_bits);
}

int cache_find(cache *c, uint32_t set, uint64_t line)
{
    set_view v = view(c, set);
    uint32_t n = *v.n_valid;
#if defined(__SSE2__)
    /* 16 fingerprints per compare; the bytes read past n lie inside the
     * block (the state array follows) and are masked off */
    const __m128i want = _mm_set1_epi8((char)fingerprint(line));
    for (uint32_t w = 0; w < n; w += 16) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(v.fp + w));
        uint32_t z = (uint32_t)_mm_movemask_epi8(_mm_cmpeq_epi8(x, want));
        if (n - w < 16)
            z &= (1u << (n - w)) - 1u; /* only valid ways */
        while (z) {
            uint32_t k = w + (uint32_t)__builtin_ctz(z);
            if (v.tag[k] == line)
                return (int)k;
            z &= z - 1u;
        }
    }
#else
    const uint64_t ones = 0x0101010101010101ull;
    const uint64_t want = ones * fingerprint(line);
    for (uint32_t w = 0; w < n; w += 8) {
        uint64_t x;
        memcpy(&x, v.fp + w, sizeof x);
        x ^= want;                                           /* matching bytes are 0 */
        uint64_t z = (x - ones) & ~x & (ones << 7);          /* high bit of each zero byte */
        if (n - w < 8)
            z &= ((uint64_t)1 << (8u * (n - w))) - 1u;       /* only valid ways */
        while (z) {
            uint32_t k = w + (uint32_t)__builtin_ctzll(z) / 8u;
            if (v.tag[k] == line)
                return (int)k;
            z &= z - 1u;
        }
    }
#endif
    return -1;
}

static inline uint16_t *state_of(const cache *c, uint32_t set, int way)
{
    set_view v = view_raw(c, set);
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    return &v.state[way];
}

uint32_t cache_full(const cache *c, uint32_t set, int way)
{
    return ST_FULL(*state_of(c, set, way));
}

uint32_t cache_present(const cache *c, uint32_t set, int way)
{
    uint16_t st = *state_of(c, set, way);
    return ST_FULL(st) | ST_PART(st);
}

uint32_t cache_dirty(const cache *c, uint32_t set, int way)
{
    return ST_DIRTY(*state_of(c, set, way));
}

uint32_t cache_valid_bytes(const cache *c, uint32_t set, int way, uint32_t sector)
{
    uint16_t st = *state_of(c, set, way);
    if (ST_FULL(st) & (1u << sector))
        return c->full_bytes;
    if (ST_PART(st) & (1u << sector))
        return c->bytes[(size_t)set * c->max_ways + (uint32_t)way].bytes[sector];
    return 0;
}

void cache_add_bytes(cache *c, uint32_t set, int way, uint32_t sector, uint32_t bytes)
{
    uint16_t *st = state_of(c, set, way);
    uint32_t bit = 1u << sector;
    uint32_t full = ST_FULL(*st), part = ST_PART(*st), dirty = ST_DIRTY(*st);
    if ((full & bit) || bytes == 0)
        return;
    uint32_t *b = &c->bytes[(size_t)set * c->max_ways + (uint32_t)way].bytes[sector];
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

void cache_fill(cache *c, uint32_t set, int way, uint32_t sector_mask)
{
    uint16_t *st = state_of(c, set, way);
    sector_mask &= 0xfu;
    *st = ST_MAKE(ST_FULL(*st) | sector_mask, ST_PART(*st) & ~sector_mask, ST_DIRTY(*st));
}

void cache_invalidate_sectors(cache *c, uint32_t set, int way, uint32_t sector_mask)
{
    uint16_t *st = state_of(c, set, way);
    sector_mask &= 0xfu;
    *st = ST_MAKE(ST_FULL(*st) & ~sector_mask, ST_PART(*st) & ~sector_mask,
                  ST_DIRTY(*st) & ~sector_mask);
}

void cache_mark_dirty(cache *c, uint32_t set, int way, uint32_t sector_mask)
{
    uint16_t *st = state_of(c, set, way);
    *st = (uint16_t)(*st | ((sector_mask & 0xfu) << 8));
}

/* The set's clock ran out: renumber its stamps 1..k by rank, keeping the
 * order (and 0 for evict-first lines). */
static void renumber(set_view v)
{
    uint32_t n = *v.n_valid;
    uint32_t rank = 0;
    uint32_t floor = LRU_EVICT_FIRST; /* stamps <= floor are done */
    for (;;) {
        uint32_t next = LRU_LIMIT + 1u;
        for (uint32_t w = 0; w < n; w++)
            if (v.lru[w] > floor && v.lru[w] < next)
                next = v.lru[w];
        if (next > LRU_LIMIT)
            break;
        rank++;
        for (uint32_t w = 0; w < n; w++)
            if (v.lru[w] == next)
                v.lru[w] = (uint16_t)rank; /* rank <= next: stays above the done ones */
        floor = rank;
    }
    *v.clock = (uint16_t)rank;
}

static inline uint16_t next_stamp(set_view v)
{
    if (*v.clock == LRU_LIMIT)
        renumber(v);
    return ++*v.clock;
}

void cache_touch(cache *c, uint32_t set, int way)
{
    set_view v = view_raw(c, set);
    assert(way >= 0 && (uint32_t)way < *v.n_valid);
    v.lru[way] = next_stamp(v);
}

/* The way with the oldest stamp among ways 0..n-1 (n >= 1), the first one on
 * a tie (evict-first lines share stamp 0). */
static inline uint32_t oldest_way(const uint16_t *lru, uint32_t n)
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
    uint16_t oldest = (uint16_t)((uint32_t)_mm_cvtsi128_si32(lo) ^ 0x8000u);
    for (uint32_t w = 0;; w++)
        if (lru[w] == oldest)
            return w;
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

int cache_alloc(cache *c, uint32_t set, uint64_t line, bool evict_first, cache_evicted *ev)
{
    assert(line != CACHE_NO_LINE);
    if (ev) {
        ev->valid = false;
        ev->dirty = 0;
        ev->partial = 0;
        ev->line = 0;
    }
    if (c->ways == 0)
        return -1;
    set_view v = view(c, set);
    uint32_t n = *v.n_valid;
    uint32_t way;
    if (n < c->ways) {
        way = n;
        *v.n_valid = (uint16_t)(n + 1u);
    } else {
        way = oldest_way(v.lru, n);
        if (ev) {
            ev->valid = true;
            ev->line = v.tag[way];
            ev->dirty = (uint8_t)ST_DIRTY(v.state[way]);
            ev->partial = (uint8_t)ST_PART(v.state[way]);
        }
    }
    v.tag[way] = line;
    v.fp[way] = fingerprint(line);
    v.state[way] = 0;
    v.lru[way] = evict_first ? (uint16_t)LRU_EVICT_FIRST : next_stamp(v);
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
        v.fp[way] = v.fp[last];
        v.lru[way] = v.lru[last];
        v.state[way] = v.state[last];
        if (ST_PART(v.state[last]))
            v.bytes[way] = v.bytes[last];
    }
    *v.n_valid = (uint16_t)last;
}

void cache_prefetch(const cache *c, uint32_t set)
{
    const unsigned char *b = c->blocks + (size_t)set * c->block_bytes;
    for (size_t off = 0; off < c->prefetch_bytes; off += 64)
        __builtin_prefetch(b + off, 1, 3);
}

uint64_t cache_count_lines(cache *c)
{
    uint64_t n = 0;
    for (uint32_t s = 0; s < c->sets; s++)
        n += *view(c, s).n_valid;
    return n;
}

void cache_test_set_clock(cache *c, uint32_t set, uint16_t clock)
{
    *view(c, set).clock = clock;
}
