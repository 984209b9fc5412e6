/* l1.c - L1 policies over a sectored tag array (the rules are in l1.h). */
#include "l1.h"

#include <assert.h>
#include <stdlib.h>

#include "err.h"
#include "l1_int.h"

l1 *l1_create(const cfg_gpu *c)
{
    l1 *l = xcalloc(1, sizeof *l);
    l->sets = c->l1_sets;
    l->index = c->l1_set_index;
    while ((1u << l->set_bits) < l->sets)
        l->set_bits++;
    assert((1u << l->set_bits) == l->sets);
    l->xor_steps = cache_xor_steps(l->set_bits);
    l->line_bytes = c->l1_line_bytes;
    l->sector_bytes = c->l1_sector_bytes;
    l->sectors_per_line = c->l1_line_bytes / c->l1_sector_bytes;
    uint32_t n_masks = c->l1_set_index == CFG_INDEX_MASKS ? c->n_l1_set_masks : 0;
    _Static_assert(CFG_MAX_CARVEOUTS <= 16, "two tables of eight bits hold every mask");
    for (uint32_t j = 0; j < 2; j++)
        for (uint32_t v = 0; v < 256; v++) {
            uint32_t x = 0;
            for (uint32_t b = 0; b < 8; b++)
                if ((v >> b & 1u) && 8 * j + b < n_masks)
                    x ^= c->l1_set_masks[8 * j + b];
            l->mask_table[j][v] = (uint16_t)x;
        }
    uint64_t max_bytes = (uint64_t)c->l1_unified_kib * 1024u;
    uint64_t max_ways = max_bytes / ((uint64_t)c->l1_sets * c->l1_line_bytes);
    l->fixed_ways = c->l1_ways;
    if (l->fixed_ways)
        max_ways = l->fixed_ways;
    l->max_ways = max_ways ? (uint32_t)max_ways : 1u;
    /* the tag array's own index is not used: set_of computes the set */
    l->tags = cache_create(c->l1_sets, l->max_ways, l->sectors_per_line, c->l1_sector_bytes,
                           c->l1_set_index == CFG_INDEX_MASKS ? CFG_INDEX_LINEAR : c->l1_set_index);
    if (l->fixed_ways) {
        size_t nodes = (size_t)c->l1_sets * l->max_ways;
        l->glink = xmalloc(nodes * sizeof *l->glink);
    }
    l->ghead = l->gtail = L1_NODE_NIL;
    for (uint32_t i = 0; i < L1_HINT_SLOTS; i++)
        l->hint_line[i] = UINT64_MAX;
    l1_use_avx2(l, true);
    return l;
}

void l1_destroy(l1 *c)
{
    if (!c)
        return;
    cache_destroy(c->tags);
    free(c->glink);
    free(c);
}

void l1_reset(l1 *c, uint32_t capacity_bytes)
{
    uint32_t ways = capacity_bytes / (c->sets * c->line_bytes);
    c->data_cap = 0;
    if (c->fixed_ways) {
        uint32_t lines = capacity_bytes / c->line_bytes;
        ways = lines ? c->fixed_ways : 0;
        if (lines < c->sets * c->fixed_ways)
            c->data_cap = lines;
    }
    c->data_count = 0;
    c->ghead = c->gtail = L1_NODE_NIL;
    cache_reset(c->tags, ways);
}

uint32_t l1_ways(const l1 *c)
{
    return cache_ways(c->tags);
}

CACHE_NOINLINE void l1_load_baseline(l1 *c, const coal_result *r, l1_load_mode mode,
                                  uint32_t *miss_mask, uint32_t *hit_sectors, uint32_t *miss_sectors)
{
    l1_load_lines(c, r, NULL, mode, miss_mask, hit_sectors, miss_sectors);
}

/* One of the two, as a tail call: the body is not inlined here, whose
 * register saves would come before the test. */
void l1_load(l1 *c, const coal_result *r, l1_load_mode mode, uint32_t *miss_mask,
             uint32_t *hit_sectors, uint32_t *miss_sectors)
{
#if CACHE_AVX2_BUILDS
    if (c->avx2) {
        l1_load_avx2(c, r, mode, miss_mask, hit_sectors, miss_sectors);
        return;
    }
#endif
    l1_load_baseline(c, r, mode, miss_mask, hit_sectors, miss_sectors);
}

void l1_use_avx2(l1 *c, bool on)
{
#if CACHE_AVX2_BUILDS
    c->avx2 = on && __builtin_cpu_supports("avx2") && __builtin_cpu_supports("popcnt");
#else
    c->avx2 = false;
    (void)on;
#endif
}

CACHE_NOINLINE void l1_store_baseline(l1 *c, const coal_result *r, cfg_l1_stores policy,
                                      uint32_t *hit_sectors, uint32_t *miss_sectors)
{
    l1_store_lines(c, r, NULL, policy, hit_sectors, miss_sectors);
}

void l1_store(l1 *c, const coal_result *r, cfg_l1_stores policy, uint32_t *hit_sectors,
              uint32_t *miss_sectors)
{
#if CACHE_AVX2_BUILDS
    if (c->avx2) {
        l1_store_avx2(c, r, policy, hit_sectors, miss_sectors);
        return;
    }
#endif
    l1_store_baseline(c, r, policy, hit_sectors, miss_sectors);
}

void l1_prefetch(l1 *c, uint64_t line)
{
    uint32_t set = set_of(c, line), i = (uint32_t)line & (L1_HINT_SLOTS - 1u);
    c->hint_line[i] = line;
    c->hint_set[i] = set;
    cache_prefetch(c->tags, set);
}

void l1_prefetch_lines(l1 *c, const coal_result *r, uint32_t *sets)
{
    for (uint32_t i = 0; i < r->n_lines; i++) {
        uint32_t set = set_of(c, r->lines[i].line);
        sets[i] = set;
        cache_prefetch_set(c->tags, set);
    }
}

uint32_t l1_prefetch_set(l1 *c, uint64_t line)
{
    uint32_t set = set_of(c, line);
    cache_prefetch_set(c->tags, set);
    return set;
}

static CACHE_NOINLINE void l1_load_sets_baseline(l1 *c, const coal_result *r, const uint32_t *sets,
                                                  l1_load_mode mode, uint32_t *miss_mask,
                                                  uint32_t *hit_sectors, uint32_t *miss_sectors)
{
    l1_load_lines(c, r, sets, mode, miss_mask, hit_sectors, miss_sectors);
}

/* as l1_load: one of the two, the body not inlined here */
void l1_load_sets(l1 *c, const coal_result *r, const uint32_t *sets, l1_load_mode mode,
                  uint32_t *miss_mask, uint32_t *hit_sectors, uint32_t *miss_sectors)
{
#if CACHE_AVX2_BUILDS
    if (c->avx2) {
        l1_load_sets_avx2(c, r, sets, mode, miss_mask, hit_sectors, miss_sectors);
        return;
    }
#endif
    l1_load_sets_baseline(c, r, sets, mode, miss_mask, hit_sectors, miss_sectors);
}

static CACHE_NOINLINE void l1_store_sets_baseline(l1 *c, const coal_result *r, const uint32_t *sets,
                                                   cfg_l1_stores policy, uint32_t *hit_sectors,
                                                   uint32_t *miss_sectors)
{
    l1_store_lines(c, r, sets, policy, hit_sectors, miss_sectors);
}

void l1_store_sets(l1 *c, const coal_result *r, const uint32_t *sets, cfg_l1_stores policy,
                   uint32_t *hit_sectors, uint32_t *miss_sectors)
{
#if CACHE_AVX2_BUILDS
    if (c->avx2) {
        l1_store_sets_avx2(c, r, sets, policy, hit_sectors, miss_sectors);
        return;
    }
#endif
    l1_store_sets_baseline(c, r, sets, policy, hit_sectors, miss_sectors);
}

void l1_invalidate(l1 *c, const coal_result *r)
{
    for (uint32_t i = 0; i < r->n_lines; i++) {
        const coal_line *ln = &r->lines[i];
        uint32_t set = set_of(c, ln->line);
        cache_view v = cache_view_get(c->tags, set);
        int way = cache_view_find(&v, ln->line);
        if (way < 0)
            continue;
        cache_view_invalidate(&v, way, ln->sector_mask);
        if (!cache_view_present(&v, way))
            l1_drop(c, &v, set, way);
    }
}
