/* l2_int.h - private to the L2 (l2.c, l2_avx2.c): its state, the placement
 * of lines, and the read and the write, inline, so that l2_avx2.c can compile
 * them a second time for CPUs with AVX2 (l1_int.h says why this way). */
#ifndef GMS_L2_INT_H
#define GMS_L2_INT_H

#include <assert.h>

#include "cache_int.h"
#include "l2.h"
#include "stats.h"

#define L2_MAX_PARTITIONS 8u
#define L2_MEMO_SLOTS 256u /* > the lines a replay announces ahead (64, and a gather) */

/* A line's place as the hint computed it, kept for its request (the place
 * is a pure function of the line: computing it costs more than this lookup) */
typedef struct l2_memo {
    uint64_t line; /* UINT64_MAX: empty (no line number is that high) */
    l2_place place;
} l2_memo;

struct l2 {
    uint32_t partitions;
    uint32_t slices_per_partition;
    uint32_t sets_per_slice;
    uint32_t set_bits;          /* log2(sets_per_slice) */
    uint32_t xor_steps;         /* cache_xor_steps(set_bits) */
    uint32_t sectors_per_line;
    uint32_t full;              /* byte mask of a whole sector */
    bool ecc;
    cfg_set_index index;
    cfg_l2_placement placement;
    uint32_t dirty_ways;        /* l2.dirty_ways: at most this many dirty lines a set (0: no limit) */
    uint32_t dirty_recent;      /* l2.dirty_recent_ways: a write cleans older dirty lines (0: never) */
    l2_pager pager;             /* placement = page */
    /* fetch_block[m]: the sectors a read miss of the sectors m fetches, the
     * aligned blocks of l2.fetch_sectors that hold them */
    uint8_t fetch_block[1u << CACHE_MAX_SECTORS];
    cache *part[L2_MAX_PARTITIONS]; /* one tag array per partition: slices x sets */
    l2_memo memo[L2_MEMO_SLOTS];    /* direct-mapped by the line's low bits */
    bool avx2;                  /* l2_read and l2_write run their AVX2 builds */
};

static inline CACHE_ALWAYS_INLINE l2_place place_of(const l2 *c, uint64_t line)
{
    if (c->placement == CFG_L2_PLACE_PAGE) {
        l2_page_place pp = l2_page_place_of(&c->pager, line);
        return (l2_place){.home = pp.home,
                          .set = pp.slice * c->sets_per_slice + (pp.group << L2_GRANULE_LINES_SHIFT) +
                                 (uint32_t)(line & ((1u << L2_GRANULE_LINES_SHIFT) - 1u))};
    }
    l2_home_slice hs = l2_home_slice_of(line, c->partitions, c->slices_per_partition);
    l2_place p;
    p.home = hs.home;
    p.set = hs.slice * c->sets_per_slice + cache_set_hash_steps(c->index, line, c->set_bits, c->xor_steps);
    return p;
}

/* place_of, from the memo when a hint just computed it. */
static inline l2_place place_get(const l2 *c, uint64_t line)
{
    const l2_memo *e = &c->memo[line & (L2_MEMO_SLOTS - 1u)];
    if (e->line == line)
        return e->place;
    return place_of(c, line);
}

/* place_of, kept in the memo for the request that follows the hint. */
static inline l2_place place_keep(l2 *c, uint64_t line)
{
    l2_memo *e = &c->memo[line & (L2_MEMO_SLOTS - 1u)];
    if (e->line != line) {
        e->line = line;
        e->place = place_of(c, line);
    }
    return e->place;
}

static inline uint32_t popcount(uint32_t x)
{
    return cache_popcount(x);
}

/* An evicted line's dirty sectors go to DRAM. With ECC a sector that is only
 * partly written must first be completed from DRAM: ECC covers whole
 * sectors, so the write-back is a read-modify-write. The fill is deferred to
 * this point, not done at the partial write: on the H200, transposes and
 * misaligned stores whose partial sectors are completed by later writes
 * while still in L2 show no ECC reads (lts__t_sectors_data_ecc ~0), while 4-byte
 * writes into 64 MiB (more than L2 holds) read ~90% of their sectors. */
static inline void write_back(const l2 *c, const cache_evicted *ev, stats *s)
{
    if (!ev->valid)
        return;
    s->v[STAT_DRAM_SECT_WRITE] += popcount(ev->dirty);
    if (c->ecc) {
        uint32_t fill = popcount(ev->dirty & ev->partial);
        s->v[STAT_DRAM_SECT_READ] += fill;
        s->v[STAT_L2_SECT_ECC] += fill;
    }
}

/* Write way's dirty sectors back to DRAM (write_back's counts) and keep the
 * line, clean. */
static inline void clean_way(const l2 *c, const cache_view *vp, uint32_t way, stats *s)
{
    const cache_view v = *vp;
    cache_evicted ev = {.valid = true, .dirty = (uint8_t)AUX_DIRTY(v.aux[way]),
                        .partial = (uint8_t)ST_PART(v.state[way])};
    write_back(c, &ev, s);
    v.aux[way] = (uint8_t)(v.aux[way] & ~0xfu);
}

/* l2.dirty_ways (docs/findings.md §3h): after way became dirty, a set holding
 * more than c->dirty_ways dirty lines writes its least recently used dirty
 * line but way to DRAM, and keeps it, clean. */
static inline void limit_dirty(const l2 *c, const cache_view *vp, int way, stats *s)
{
    const cache_view v = *vp;
    uint32_t n = *v.n_valid, dirty = 0;
    for (uint32_t w = 0; w < n; w++)
        dirty += AUX_DIRTY(v.aux[w]) != 0;
    if (dirty <= c->dirty_ways)
        return;
    /* the LRU list from the oldest on, then (only evict-first ways are
     * outside it) the ways in order */
    uint32_t pick = CACHE_NIL, w = *v.head;
    for (uint32_t i = 0; i < n && w != CACHE_NIL && pick == CACHE_NIL; i++, w = v.next[w])
        if ((int)w != way && AUX_DIRTY(v.aux[w]))
            pick = w;
    for (w = 0; w < n && pick == CACHE_NIL; w++)
        if ((int)w != way && AUX_DIRTY(v.aux[w]))
            pick = w;
    clean_way(c, &v, pick, s);
}

/* l2.dirty_recent_ways (docs/findings.md §3h): a write into a set writes
 * back the set's dirty lines that are not among its c->dirty_recent most
 * recently used lines, and keeps them, clean. In one kernel the H200 lets
 * dirty data go early while clean data streams in beside it, but dirty data
 * an earlier kernel left sits through later clean reads: the cleaning
 * follows writes. */
static inline void clean_old_dirty(const l2 *c, const cache_view *vp, stats *s)
{
    const cache_view v = *vp;
    if (*v.head == CACHE_NIL)
        return;
    uint32_t n = *v.n_valid, w = v.prev[*v.head]; /* the most recently used */
    for (uint32_t i = 0; i < n; i++, w = v.prev[w]) {
        if (i >= c->dirty_recent && AUX_DIRTY(v.aux[w]))
            clean_way(c, &v, w, s);
        if (w == *v.head)
            break;
    }
}

/* Mark the sectors of mask dirty in way, and keep the set within l2.dirty_ways. */
static inline CACHE_ALWAYS_INLINE void mark_dirty(const l2 *c, const cache_view *v, int way, uint32_t mask,
                                                  stats *s)
{
    bool was_clean = cache_view_dirty(v, way) == 0;
    cache_view_mark_dirty(v, way, mask);
    if (c->dirty_ways && was_clean)
        limit_dirty(c, v, way, s);
}

/* The way of line in the set v of partition cache t, allocated (with its
 * write-back counted) when absent. -1 only if the cache has no ways. */
static inline CACHE_ALWAYS_INLINE int find_or_alloc(const l2 *c, cache *t, const cache_view *v,
                                                    uint64_t line, stats *s)
{
    int way = cache_view_find(v, line);
    if (way >= 0) {
        cache_view_touch(v, way);
        return way;
    }
    cache_evicted ev;
    way = cache_view_alloc(t, v, line, false, &ev);
    write_back(c, &ev, s);
    return way;
}

/* Make the sectors of mask wholly valid in line's home way, reading from
 * DRAM those that are not (partly valid ones merge with the DRAM data);
 * returns the way, in the set *v of the home partition. */
static inline CACHE_ALWAYS_INLINE int home_fill(l2 *c, uint32_t home, uint32_t set, uint64_t line,
                                                uint32_t mask, stats *s, cache_view *v)
{
    cache *t = c->part[home];
    *v = cache_view_get(t, set);
    int way = find_or_alloc(c, t, v, line, s);
    uint32_t have = way >= 0 ? cache_view_full(v, way) : 0;
    uint32_t miss = mask & ~have;
    s->v[STAT_DRAM_SECT_READ] += popcount(miss);
    if (way >= 0 && miss)
        cache_view_fill(v, way, miss);
    return way;
}

/* Drop the copies of line held outside its home partition and keep (a
 * partition number, or UINT32_MAX for none). */
static inline void drop_copies(l2 *c, l2_place pl, uint64_t line, uint32_t keep)
{
    for (uint32_t p = 0; p < c->partitions; p++) {
        if (p == pl.home || p == keep)
            continue;
        cache_view v = cache_view_get(c->part[p], pl.set);
        int way = cache_view_find(&v, line);
        if (way >= 0) {
            assert(cache_view_dirty(&v, way) == 0); /* copies are clean */
            cache_view_drop(&v, way);
        }
    }
}

/* l2_read's work, compiled where it is included (l2.c: the baseline,
 * l2_avx2.c: AVX2). */
static inline CACHE_ALWAYS_INLINE void l2_read_lines(l2 *c, uint32_t part, uint64_t line, l2_place pl,
                                                     uint32_t sector_mask, stats *s)
{
    assert(part < c->partitions);
    cache *near = c->part[part];
    s->v[STAT_L2_REQ_READ]++;
    s->v[STAT_L2_SECT_READ] += popcount(sector_mask);

    /* L1 asks for whole sectors: a partly valid sector is a miss */
    cache_view nv = cache_view_get(near, pl.set);
    int way = cache_view_find(&nv, line);
    uint32_t have = way >= 0 ? cache_view_full(&nv, way) : 0;
    uint32_t hit = sector_mask & have;
    s->v[STAT_L2_SECT_READ_HIT] += popcount(hit);
    if (way >= 0)
        cache_view_touch(&nv, way);
    if (hit == sector_mask)
        return;
    /* a miss fetches whole blocks of l2.fetch_sectors (the rest of a block
     * the line holds whole stays), and ncu counts every sector fetched as a
     * lookup miss (findings §15: one sector read, two misses at 64 B) */
    uint32_t miss = c->fetch_block[sector_mask & ~hit] & ~have;
    s->v[STAT_L2_SECT_READ_MISS] += popcount(miss);
    cache_view hv;
    if (pl.home == part) {
        /* homed near: the lookup above was the home lookup (home_fill would
         * repeat it, and touch the way again, which changes no order) */
        if (way < 0) {
            cache_evicted ev;
            way = cache_view_alloc(near, &nv, line, false, &ev);
            write_back(c, &ev, s);
        }
        s->v[STAT_DRAM_SECT_READ] += popcount(miss);
        if (way >= 0)
            cache_view_fill(&nv, way, miss);
        return;
    }
    /* far-homed: over the fabric to the home partition, then keep a copy near */
    s->v[STAT_L2_SECT_FABRIC] += popcount(miss);
    home_fill(c, pl.home, pl.set, line, miss, s, &hv);
    if (way < 0) {
        cache_evicted ev;
        way = cache_view_alloc(near, &nv, line, false, &ev);
        write_back(c, &ev, s);
    }
    if (way >= 0)
        cache_view_fill(&nv, way, miss);
}

/* l2_write's work, as l2_read_lines. */
static inline CACHE_ALWAYS_INLINE void l2_write_lines(l2 *c, uint32_t part, uint64_t line,
                                                      uint32_t sector_mask,
                                                      const uint32_t *byte_mask, stats *s)
{
    assert(part < c->partitions);
    l2_place pl = place_get(c, line);
    cache *t = c->part[pl.home];
    uint32_t n = popcount(sector_mask);
    s->v[STAT_L2_REQ_WRITE]++;
    s->v[STAT_L2_SECT_WRITE] += n;
    if (pl.home != part)
        s->v[STAT_L2_SECT_FABRIC] += n;
    drop_copies(c, pl, line, part);

    cache_view v = cache_view_get(t, pl.set);
    int way = find_or_alloc(c, t, &v, line, s);
    /* write-validate: a write never fetches, and ncu counts every write
     * sector as a lookup hit (measured on all 32 kernels of the H200 suite:
     * lts__t_sectors_srcunit_tex_op_write_lookup_miss = 0) */
    s->v[STAT_L2_SECT_WRITE_HIT] += n;
    if (way < 0)
        return;
    /* sectors the write leaves whole are filled at once (a fill sets and an
     * add changes only its own sector's bits, so the order does not matter);
     * a sector written whole needs no look at what it held */
    uint32_t whole = 0;
    for (uint32_t m = sector_mask & ((1u << c->sectors_per_line) - 1u); m; m &= m - 1u) {
        uint32_t i = (uint32_t)__builtin_ctz(m);
        if (byte_mask[i] == c->full || (cache_view_valid_bytes(t, &v, way, i) | byte_mask[i]) == c->full)
            whole |= 1u << i;
        else
            cache_view_add_bytes(t, &v, way, i, byte_mask[i]);
    }
    if (whole)
        cache_view_fill(&v, way, whole);
    mark_dirty(c, &v, way, sector_mask, s);
    if (c->dirty_recent)
        clean_old_dirty(c, &v, s);
    /* a write from the far side leaves a clean copy near, as a read does
     * (findings §3h: an SM's read-back of what it wrote hits near, every
     * sector): the sectors home now holds whole */
    if (pl.home != part) {
        cache_view nv = cache_view_get(c->part[part], pl.set);
        int near_way = find_or_alloc(c, c->part[part], &nv, line, s);
        uint32_t copy = cache_view_full(&v, way) & sector_mask;
        if (near_way >= 0 && copy)
            cache_view_fill(&nv, near_way, copy);
    }
}

#if CACHE_AVX2_BUILDS
/* l2_read and l2_write compiled for AVX2 (l2_avx2.c); only on CPUs that
 * have it. */
void l2_read_avx2(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask, stats *s);
void l2_write_avx2(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask,
                   const uint32_t *byte_mask, stats *s);
void l2_read_at_avx2(l2 *c, uint32_t part, uint64_t line, l2_place pl, uint32_t sector_mask, stats *s);
#endif
/* l2_read and l2_write compiled for the baseline, whatever the CPU (for tests). */
void l2_read_baseline(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask, stats *s);
void l2_write_baseline(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask,
                       const uint32_t *byte_mask, stats *s);
/* For tests: run the AVX2 builds (when the CPU has AVX2) or the baseline. */
void l2_use_avx2(l2 *c, bool on);

#endif
