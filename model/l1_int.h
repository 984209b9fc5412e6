/* l1_int.h - private to the L1 (l1.c, l1_avx2.c): its state and the load,
 * inline, so that l1_avx2.c can compile the load a second time for CPUs with
 * AVX2 (the tag lookup then compares 32 fingerprints per step, cache_int.h).
 *
 * Why not target_clones on l1_load: the clones share one preprocessed body,
 * so nothing tells the lookup which instructions its clone may use, and gcc
 * refuses to inline an AVX2 function into the default clone. A translation
 * unit of its own, compiled after `#pragma GCC target("avx2")`, defines
 * __AVX2__ for everything it includes. */
#ifndef GMS_L1_INT_H
#define GMS_L1_INT_H

#include "cache_int.h"
#include "coal.h"
#include "l1.h"

/* A power of two. Hints run at most 64 lines ahead (sim/replay.c): a
 * gather's 32 lines, spread by their low bits, mostly find their slot still
 * theirs in 128 (in 8, the hash was computed again for nearly every
 * gathered line: random 100k, 23,952 -> 23,382 instructions per record). */
#define L1_HINT_SLOTS 128u

#define L1_NODE_NIL 0xffffu

struct l1 {
    cache *tags;
    cfg_set_index index;
    uint32_t set_bits;    /* log2(sets) */
    uint32_t xor_steps;   /* cache_xor_steps(set_bits) */
    /* CFG_INDEX_MASKS: the XOR of l1.set_masks for each value of line bits
     * set_bits + 8j .. set_bits + 8j + 7 (line bit set_bits + i flips mask i) */
    uint16_t mask_table[(CFG_MAX_CARVEOUTS + 7) / 8][256];
    uint32_t sets;
    /* Tags and data apart (cfg l1.ways, findings §3f): the tags hold
     * sets * fixed_ways lines, the data only data_cap of them. When the data
     * is full, a line that finds a free way in its set takes the place of the
     * least recently used line of all: the valid lines form one LRU list,
     * node = set * max ways + way, glink[node] its links (L1_NODE_NIL: none;
     * the older one and the newer one side by side: one cache line a node),
     * ghead the oldest, gtail the newest. data_cap 0: no such limit (the
     * ways of the sets are the capacity, or the tags hold less than it). */
    uint32_t fixed_ways;  /* cfg l1.ways; 0: ways from the capacity */
    uint32_t max_ways;    /* the tag array's, for node numbers */
    uint32_t data_cap;
    uint32_t data_count;
    uint16_t ghead, gtail;
    struct l1_glink { uint16_t prev, next; } *glink;
    uint32_t line_bytes;
    uint32_t sector_bytes;
    uint32_t sectors_per_line;
    bool avx2;            /* l1_load and l1_store run their AVX2 builds */
    /* The sets that hints (l1_prefetch) computed, for the access that follows
     * (the set hash is ~25 instructions): direct-mapped by the line's low bits,
     * checked by the whole line number (UINT64_MAX: none; no line number is
     * that large). The set is a pure function of the line, so an entry can
     * only be right or missing. */
    uint64_t hint_line[L1_HINT_SLOTS];
    uint32_t hint_set[L1_HINT_SLOTS];
};

/* cache_index, inlined: the set of a line */
static inline uint32_t set_of(const l1 *c, uint64_t line)
{
    if (c->index == CFG_INDEX_MASKS) {
        uint64_t high = line >> c->set_bits;
        return ((uint32_t)line & (c->sets - 1u)) ^ c->mask_table[0][high & 0xffu] ^
               c->mask_table[1][(high >> 8) & 0xffu];
    }
    return cache_set_hash_steps(c->index, line, c->set_bits, c->xor_steps);
}

/* ---- the data's LRU list across sets (data_cap != 0) ------------------- */

static inline CACHE_ALWAYS_INLINE void l1_glru_unlink(l1 *c, uint32_t n)
{
    uint16_t p = c->glink[n].prev, x = c->glink[n].next;
    if (p != L1_NODE_NIL)
        c->glink[p].next = x;
    else
        c->ghead = x;
    if (x != L1_NODE_NIL)
        c->glink[x].prev = p;
    else
        c->gtail = p;
}

/* as the newest (or, for an evict-first line, the oldest) */
static inline CACHE_ALWAYS_INLINE void l1_glru_push(l1 *c, uint32_t n, bool oldest)
{
    if (c->ghead == L1_NODE_NIL) {
        c->glink[n].prev = c->glink[n].next = L1_NODE_NIL;
        c->ghead = c->gtail = (uint16_t)n;
    } else if (oldest) {
        c->glink[n].prev = L1_NODE_NIL;
        c->glink[n].next = c->ghead;
        c->glink[c->ghead].prev = (uint16_t)n;
        c->ghead = (uint16_t)n;
    } else {
        c->glink[n].next = L1_NODE_NIL;
        c->glink[n].prev = c->gtail;
        c->glink[c->gtail].next = (uint16_t)n;
        c->gtail = (uint16_t)n;
    }
}

/* cache_view_drop, keeping the list: the set's last way moves into the hole */
static inline CACHE_ALWAYS_INLINE void l1_drop(l1 *c, const cache_view *vp, uint32_t set, int way)
{
    if (c->data_cap) {
        uint32_t last = *vp->n_valid - 1u, base = set * c->max_ways;
        uint32_t n = base + (uint32_t)way, m = base + last;
        l1_glru_unlink(c, n);
        if (m != n) { /* node m becomes node n */
            uint16_t p = c->glink[m].prev, x = c->glink[m].next;
            c->glink[n].prev = p;
            c->glink[n].next = x;
            if (p != L1_NODE_NIL)
                c->glink[p].next = (uint16_t)n;
            else
                c->ghead = (uint16_t)n;
            if (x != L1_NODE_NIL)
                c->glink[x].prev = (uint16_t)n;
            else
                c->gtail = (uint16_t)n;
        }
        c->data_count--;
    }
    cache_view_drop(vp, way);
}

static inline CACHE_ALWAYS_INLINE void l1_touch(l1 *c, const cache_view *vp, uint32_t set, int way)
{
    cache_view_touch(vp, way);
    if (c->data_cap) {
        uint32_t n = set * c->max_ways + (uint32_t)way;
        if (c->gtail != n) {
            l1_glru_unlink(c, n);
            l1_glru_push(c, n, false);
        }
    }
}

/* The oldest line of all leaves (its set's view is another, or this one);
 * the set of the next oldest is fetched for the next time. */
static inline CACHE_ALWAYS_INLINE void l1_evict_oldest(l1 *c)
{
    uint32_t n = c->ghead, set = n / c->max_ways;
    cache_view v = cache_view_get(c->tags, set);
    l1_drop(c, &v, set, (int)(n % c->max_ways));
    if (c->ghead != L1_NODE_NIL)
        cache_prefetch_set(c->tags, c->ghead / c->max_ways);
}

/* cache_view_alloc, within the data's capacity */
static inline CACHE_ALWAYS_INLINE int l1_alloc(l1 *c, const cache_view *vp, uint32_t set, uint64_t line,
                                               bool evict_first)
{
    if (!c->data_cap)
        return cache_view_alloc(c->tags, vp, line, evict_first, NULL);
    if (c->tags->ways == 0)
        return -1;
    bool free_way = *vp->n_valid < c->tags->ways;
    if (free_way && c->data_count >= c->data_cap)
        l1_evict_oldest(c); /* perhaps from this set: a way stays free here either way */
    int way = cache_view_alloc(c->tags, vp, line, evict_first, NULL);
    uint32_t n = set * c->max_ways + (uint32_t)way;
    if (free_way)
        c->data_count++;
    else
        l1_glru_unlink(c, n); /* the set's own victim: its node is reused */
    l1_glru_push(c, n, evict_first);
    return way;
}

/* set_of, from the hints' memo when a hint just computed it */
static inline uint32_t set_of_hinted(const l1 *c, uint64_t line)
{
    uint32_t i = (uint32_t)line & (L1_HINT_SLOTS - 1u);
    return c->hint_line[i] == line ? c->hint_set[i] : set_of(c, line);
}

/* l1_load's work, compiled where it is included (l1.c: the baseline,
 * l1_avx2.c: AVX2); sets: each line's set (l1_prefetch_lines), or NULL. */
static inline CACHE_ALWAYS_INLINE void l1_load_lines(l1 *c, const coal_result *r, const uint32_t *sets,
                                                     l1_load_mode mode, uint32_t *miss_mask,
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
        uint32_t set = sets ? sets[i] : set_of_hinted(c, ln->line);
        cache_view v = cache_view_get(c->tags, set);
        int way = cache_view_find(&v, ln->line);
        uint32_t miss = ln->sector_mask;
        if (way >= 0) {
            /* wholly valid sectors hit; partly valid ones hit when they hold the bytes asked for */
            uint32_t full = cache_view_full(&v, way);
            uint32_t part = cache_view_present(&v, way) & ~full & miss;
            miss &= ~full;
            for (uint32_t s = 0; part; s++, part >>= 1)
                if ((part & 1u) && (cache_view_valid_bytes(c->tags, &v, way, s) & ln->byte_mask[s]) ==
                                       ln->byte_mask[s])
                    miss &= ~(1u << s);
            l1_touch(c, &v, set, way);
        } else if (miss) {
            /* L1 is write-through: nothing to write back, the victim does not matter */
            way = l1_alloc(c, &v, set, ln->line, mode == L1_LOAD_EVICT_FIRST);
        }
        hits += cache_popcount(ln->sector_mask & ~miss);
        misses += cache_popcount(miss);
        miss_mask[i] = miss;
        if (way >= 0 && miss)
            cache_view_fill(&v, way, miss);
    }
    *hit_sectors = hits;
    *miss_sectors = misses;
}

/* l1_store's work, as l1_load_lines. */
static inline CACHE_ALWAYS_INLINE void l1_store_lines(l1 *c, const coal_result *r, const uint32_t *sets,
                                                      cfg_l1_stores policy, uint32_t *hit_sectors,
                                                      uint32_t *miss_sectors)
{
    uint32_t hits = 0, misses = 0;
    for (uint32_t i = 0; i < r->n_lines; i++) {
        const coal_line *ln = &r->lines[i];
        uint32_t set = sets ? sets[i] : set_of_hinted(c, ln->line);
        cache_view v = cache_view_get(c->tags, set);
        int way = cache_view_find(&v, ln->line);
        uint32_t present = way >= 0 ? cache_view_present(&v, way) : 0;
        hits += cache_popcount(ln->sector_mask & present);
        misses += cache_popcount(ln->sector_mask & ~present);
        if (policy == CFG_L1_STORES_INVALIDATE) {
            if (way >= 0)
                l1_drop(c, &v, set, way);
            continue;
        }
        if (way >= 0) {
            l1_touch(c, &v, set, way);
        } else {
            way = l1_alloc(c, &v, set, ln->line, false);
            if (way < 0)
                continue; /* no L1 capacity this kernel */
        }
        /* sectors written whole are filled at once (what adding all their
         * bytes does; a fill and an add change only their own sectors' bits) */
        uint32_t whole = 0;
        for (uint32_t m = ln->sector_mask; m; m &= m - 1u) {
            uint32_t s = (uint32_t)__builtin_ctz(m);
            if (ln->byte_mask[s] == c->tags->full_bytes)
                whole |= 1u << s;
            else
                cache_view_add_bytes(c->tags, &v, way, s, ln->byte_mask[s]);
        }
        if (whole)
            cache_view_fill(&v, way, whole);
    }
    *hit_sectors = hits;
    *miss_sectors = misses;
}

#if CACHE_AVX2_BUILDS
/* l1_load and l1_store compiled for AVX2 (l1_avx2.c); only on CPUs that
 * have it. */
void l1_load_avx2(l1 *c, const coal_result *r, l1_load_mode mode, uint32_t *miss_mask,
                  uint32_t *hit_sectors, uint32_t *miss_sectors);
void l1_store_avx2(l1 *c, const coal_result *r, cfg_l1_stores policy, uint32_t *hit_sectors,
                   uint32_t *miss_sectors);
void l1_load_sets_avx2(l1 *c, const coal_result *r, const uint32_t *sets, l1_load_mode mode,
                       uint32_t *miss_mask, uint32_t *hit_sectors, uint32_t *miss_sectors);
void l1_store_sets_avx2(l1 *c, const coal_result *r, const uint32_t *sets, cfg_l1_stores policy,
                        uint32_t *hit_sectors, uint32_t *miss_sectors);
#endif
/* l1_load and l1_store compiled for the baseline, whatever the CPU (for tests). */
void l1_load_baseline(l1 *c, const coal_result *r, l1_load_mode mode, uint32_t *miss_mask,
                      uint32_t *hit_sectors, uint32_t *miss_sectors);
void l1_store_baseline(l1 *c, const coal_result *r, cfg_l1_stores policy, uint32_t *hit_sectors,
                       uint32_t *miss_sectors);
/* For tests: run the AVX2 builds (when the CPU has AVX2) or the baseline. */
void l1_use_avx2(l1 *c, bool on);

#endif
