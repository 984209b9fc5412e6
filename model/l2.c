/* l2.c - L2 partitions, slices, fabric, ECC fills and DRAM sector counts
 * (the rules are in l2.h). */
#include "l2.h"

#include <assert.h>
#include <stdlib.h>

#include "coal.h"
#include "err.h"
#include "l2_int.h"

static uint32_t log2_exact(uint32_t v)
{
    uint32_t s = 0;
    while ((1u << s) < v)
        s++;
    assert((1u << s) == v);
    return s;
}

static uint32_t gcd32(uint32_t a, uint32_t b)
{
    while (b) {
        uint32_t t = a % b;
        a = b;
        b = t;
    }
    return a;
}

void l2_pager_init(l2_pager *p, uint32_t partitions, uint32_t slices_per_partition, uint32_t sets_per_slice)
{
    assert(partitions >= 1 && (partitions & (partitions - 1u)) == 0 && slices_per_partition >= 1);
    p->partitions = partitions;
    p->part_shift = 0;
    while ((1u << p->part_shift) < partitions)
        p->part_shift++;
    p->slices = partitions * slices_per_partition;
    uint32_t groups = sets_per_slice >> L2_GRANULE_LINES_SHIFT;
    p->slots = p->slices * (groups ? groups : 1u);
    assert(p->slots <= (1u << 22));
    p->slots_inv = p->slots > 1u ? UINT64_MAX / p->slots + 1u : 0u;
    p->slices_inv = p->slices > 1u ? UINT64_MAX / p->slices + 1u : 0u;
    /* multipliers spread over 1 .. slots - 1, each moved down to the next one
     * coprime to slots (1 is) */
    for (uint32_t i = 0; i < L2_PAGER_MULTS; i++) {
        uint32_t a = p->slots > 1 ? 1u + (uint32_t)(cache_mix64(i + 1u) % (p->slots - 1u)) : 1u;
        while (gcd32(a, p->slots) != 1u)
            a--;
        p->mult[i] = a;
    }
}

l2 *l2_create(const cfg_gpu *c)
{
    assert(c->l2_partitions >= 1 && c->l2_partitions <= L2_MAX_PARTITIONS);
    assert(c->l2_slices % c->l2_partitions == 0);
    assert(c->l2_line_bytes / c->l2_sector_bytes <= CACHE_MAX_SECTORS);
    assert(c->l2_fetch_sectors >= 1 && (c->l2_fetch_sectors & (c->l2_fetch_sectors - 1u)) == 0);
    l2 *l = xcalloc(1, sizeof *l);
    l->partitions = c->l2_partitions;
    l->slices_per_partition = c->l2_slices / c->l2_partitions;
    l->sets_per_slice = c->l2_sets_per_slice;
    l->set_bits = log2_exact(c->l2_sets_per_slice);
    l->xor_steps = cache_xor_steps(l->set_bits);
    l->sectors_per_line = c->l2_line_bytes / c->l2_sector_bytes;
    l->full = cache_full_mask(c->l2_sector_bytes);
    l->ecc = c->l2_ecc;
    l->index = c->l2_set_index;
    l->placement = c->l2_placement;
    assert(l->placement != CFG_L2_PLACE_PAGE || l->sets_per_slice >= (1u << L2_GRANULE_LINES_SHIFT));
    l->dirty_ways = c->l2_dirty_ways;
    l->dirty_recent = c->l2_dirty_recent_ways;
    l2_pager_init(&l->pager, l->partitions, l->slices_per_partition, l->sets_per_slice);
    for (uint32_t m = 0; m < (1u << CACHE_MAX_SECTORS); m++)
        l->fetch_block[m] = (uint8_t)l2_fetch_blocks(m, c->l2_fetch_sectors, l->sectors_per_line);
    /* the partition's sets: slice-major; the caller picks the set (hash) */
    uint32_t sets = l->slices_per_partition * l->sets_per_slice;
    for (uint32_t p = 0; p < l->partitions; p++)
        l->part[p] = cache_create(sets, c->l2_ways, l->sectors_per_line, c->l2_sector_bytes,
                                  CFG_INDEX_LINEAR);
    for (uint32_t i = 0; i < L2_MEMO_SLOTS; i++)
        l->memo[i].line = UINT64_MAX;
    l2_use_avx2(l, true);
    return l;
}

void l2_destroy(l2 *c)
{
    if (!c)
        return;
    for (uint32_t p = 0; p < c->partitions; p++)
        cache_destroy(c->part[p]);
    free(c);
}

void l2_clear(l2 *c)
{
    for (uint32_t p = 0; p < c->partitions; p++)
        cache_reset(c->part[p], cache_ways(c->part[p]));
}


uint32_t l2_home_partition(const l2 *c, uint64_t line)
{
    return place_get(c, line).home;
}

CACHE_NOINLINE void l2_read_baseline(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask,
                                     stats *s)
{
    l2_read_lines(c, part, line, place_get(c, line), sector_mask, s);
}

static CACHE_NOINLINE void l2_read_at_baseline(l2 *c, uint32_t part, uint64_t line, l2_place pl,
                                                uint32_t sector_mask, stats *s)
{
    l2_read_lines(c, part, line, pl, sector_mask, s);
}

/* as l2_read: one of the two, the body not inlined here */
void l2_read_at(l2 *c, uint32_t part, uint64_t line, l2_place pl, uint32_t sector_mask, stats *s)
{
#if CACHE_AVX2_BUILDS
    if (c->avx2) {
        l2_read_at_avx2(c, part, line, pl, sector_mask, s);
        return;
    }
#endif
    l2_read_at_baseline(c, part, line, pl, sector_mask, s);
}

/* One of the two, as a tail call (as l1_load). */
void l2_read(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask, stats *s)
{
#if CACHE_AVX2_BUILDS
    if (c->avx2) {
        l2_read_avx2(c, part, line, sector_mask, s);
        return;
    }
#endif
    l2_read_baseline(c, part, line, sector_mask, s);
}

void l2_use_avx2(l2 *c, bool on)
{
#if CACHE_AVX2_BUILDS
    c->avx2 = on && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#else
    c->avx2 = false;
    (void)on;
#endif
}

CACHE_NOINLINE void l2_write_baseline(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask,
                                      const uint32_t *byte_mask, stats *s)
{
    l2_write_lines(c, part, line, sector_mask, byte_mask, s);
}

void l2_write(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask,
              const uint32_t *byte_mask, stats *s)
{
#if CACHE_AVX2_BUILDS
    if (c->avx2) {
        l2_write_avx2(c, part, line, sector_mask, byte_mask, s);
        return;
    }
#endif
    l2_write_baseline(c, part, line, sector_mask, byte_mask, s);
}

void l2_atomic(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask, bool is_red, stats *s)
{
    assert(part < c->partitions);
    l2_place pl = place_get(c, line);
    uint32_t n = popcount(sector_mask);
    s->v[is_red ? STAT_L2_REQ_RED : STAT_L2_REQ_ATOM]++;
    s->v[is_red ? STAT_L2_SECT_RED : STAT_L2_SECT_ATOM] += n;
    if (pl.home != part)
        s->v[STAT_L2_SECT_FABRIC] += n;
    drop_copies(c, pl, line, UINT32_MAX);
    /* read-modify-write at home: the sectors must be there whole */
    cache_view v;
    int way = home_fill(c, pl.home, pl.set, line, sector_mask, s, &v);
    if (way >= 0)
        mark_dirty(c, &v, way, sector_mask, s);
}

void l2_prefetch(l2 *c, uint64_t line)
{
    uint32_t set = place_keep(c, line).set;
    for (uint32_t p = 0; p < c->partitions; p++)
        cache_prefetch(c->part[p], set);
}

void l2_prefetch_read(l2 *c, uint32_t part, uint64_t line)
{
    assert(part < c->partitions);
    l2_place pl = place_keep(c, line);
    cache_prefetch(c->part[part], pl.set);
    if (pl.home != part)
        cache_prefetch(c->part[pl.home], pl.set);
}

void l2_prefetch_lines(l2 *c, uint32_t part, bool read, const coal_result *r, l2_place *places)
{
    assert(part < c->partitions);
    for (uint32_t i = 0; i < r->n_lines; i++) {
        uint64_t line = r->lines[i].line;
        if (read) {
            l2_place pl = place_of(c, line);
            places[i] = pl;
            cache_prefetch_set(c->part[part], pl.set);
            if (pl.home != part)
                cache_prefetch_set(c->part[pl.home], pl.set);
        } else {
            uint32_t set = place_keep(c, line).set;
            for (uint32_t p = 0; p < c->partitions; p++)
                cache_prefetch_set(c->part[p], set);
        }
    }
}

l2_place l2_prefetch_place(l2 *c, uint32_t part, uint64_t line)
{
    assert(part < c->partitions);
    l2_place pl = place_of(c, line);
    cache_prefetch_set(c->part[part], pl.set);
    if (pl.home != part)
        cache_prefetch_set(c->part[pl.home], pl.set);
    return pl;
}

uint64_t l2_count_lines(l2 *c, uint32_t part)
{
    assert(part < c->partitions);
    return cache_count_lines(c->part[part]);
}
