/* test_cache.c - the sectored tag array (LRU, evict-first, victims, reset)
 * and the L1 built on it: sector-granular fills, and the H200 L1 capacity and
 * set-index behaviour measured in hardware-facts.md §1c. */
#include <check.h>

#include "cache.h"
#include "l1.h"
#include "suites.h"
#include "test_util.h"

START_TEST(lru_evicts_least_recently_used)
{
    cache *c = cache_create(1, 4, 4, 32, CFG_INDEX_LINEAR);
    cache_evicted ev;
    for (uint64_t l = 10; l < 14; l++) {
        ck_assert_int_ge(cache_alloc(c, 0, l, false, &ev), 0);
        ck_assert(!ev.valid);
    }
    cache_touch(c, 0, cache_find(c, 0, 10)); /* order now 11 12 13 10 */
    ck_assert_int_ge(cache_alloc(c, 0, 20, false, &ev), 0);
    ck_assert(ev.valid);
    ck_assert_uint_eq(ev.line, 11);
    ck_assert_int_eq(cache_find(c, 0, 11), -1);
    ck_assert_int_ge(cache_find(c, 0, 10), 0);
    cache_alloc(c, 0, 21, false, &ev);
    ck_assert_uint_eq(ev.line, 12);
    cache_destroy(c);
}
END_TEST

START_TEST(evict_first_lines_go_first_until_used)
{
    cache *c = cache_create(1, 4, 4, 32, CFG_INDEX_LINEAR);
    cache_evicted ev;
    cache_alloc(c, 0, 1, false, &ev);
    cache_alloc(c, 0, 2, false, &ev);
    cache_alloc(c, 0, 3, false, &ev);
    cache_alloc(c, 0, 4, true, &ev); /* newest, but evict-first */
    cache_alloc(c, 0, 5, false, &ev);
    ck_assert(ev.valid);
    ck_assert_uint_eq(ev.line, 4);
    cache_alloc(c, 0, 6, true, &ev); /* evicts the LRU line, 1 */
    ck_assert_uint_eq(ev.line, 1);
    cache_touch(c, 0, cache_find(c, 0, 6)); /* used: an ordinary line now */
    cache_alloc(c, 0, 7, false, &ev);
    ck_assert_uint_eq(ev.line, 2);
    cache_destroy(c);
}
END_TEST

START_TEST(victim_reports_dirty_sectors_and_drop_frees_a_way)
{
    cache *c = cache_create(1, 2, 4, 32, CFG_INDEX_LINEAR);
    cache_evicted ev;
    int w = cache_alloc(c, 0, 1, false, &ev);
    cache_fill(c, 0, w, 0x4);
    cache_mark_dirty(c, 0, w, 0x4);
    cache_alloc(c, 0, 2, false, &ev);
    cache_alloc(c, 0, 3, false, &ev);
    ck_assert(ev.valid);
    ck_assert_uint_eq(ev.line, 1);
    ck_assert_uint_eq(ev.dirty, 0x4);
    /* a new way starts empty and clean */
    w = cache_find(c, 0, 3);
    ck_assert_uint_eq(cache_present(c, 0, w), 0);
    ck_assert_uint_eq(cache_dirty(c, 0, w), 0);
    cache_drop(c, 0, cache_find(c, 0, 2));
    cache_alloc(c, 0, 4, false, &ev);
    ck_assert(!ev.valid); /* took the freed way */
    ck_assert_uint_eq(cache_count_lines(c), 2);
    cache_destroy(c);
}
END_TEST

/* Whole, partial and absent sectors; byte masks follow a way moved by a drop. */
START_TEST(sector_states_and_byte_masks)
{
    cache *c = cache_create(1, 4, 4, 32, CFG_INDEX_LINEAR);
    cache_evicted ev;
    int a = cache_alloc(c, 0, 10, false, &ev);
    int b = cache_alloc(c, 0, 11, false, &ev);
    cache_add_bytes(c, 0, b, 1, 0x0000000fu);
    cache_add_bytes(c, 0, b, 1, 0x000000f0u);
    ck_assert_uint_eq(cache_valid_bytes(c, 0, b, 1), 0xffu);
    ck_assert_uint_eq(cache_present(c, 0, b), 0x2);
    ck_assert_uint_eq(cache_full(c, 0, b), 0);
    cache_add_bytes(c, 0, b, 1, 0xffffff00u); /* completes the sector */
    ck_assert_uint_eq(cache_full(c, 0, b), 0x2);
    cache_add_bytes(c, 0, b, 3, 0x00010000u);
    cache_mark_dirty(c, 0, b, 0x8);
    cache_drop(c, 0, a); /* line 11 moves into way a */
    int m = cache_find(c, 0, 11);
    ck_assert_int_eq(m, a);
    ck_assert_uint_eq(cache_valid_bytes(c, 0, m, 3), 0x00010000u);
    ck_assert_uint_eq(cache_valid_bytes(c, 0, m, 1), 0xffffffffu);
    ck_assert_uint_eq(cache_valid_bytes(c, 0, m, 0), 0);
    ck_assert_uint_eq(cache_dirty(c, 0, m), 0x8);
    cache_fill(c, 0, m, 0x9);
    ck_assert_uint_eq(cache_full(c, 0, m), 0xb);
    cache_invalidate_sectors(c, 0, m, 0xa);
    ck_assert_uint_eq(cache_present(c, 0, m), 0x1);
    ck_assert_uint_eq(cache_dirty(c, 0, m), 0);
    cache_destroy(c);
}
END_TEST

/* Fingerprints narrow the search; the full tag decides. */
START_TEST(find_compares_full_tags)
{
    for (uint32_t ways = 1; ways <= 64; ways += 7) {
        cache *c = cache_create(1, ways, 4, 32, CFG_INDEX_LINEAR);
        cache_evicted ev;
        for (uint64_t l = 0; l < ways; l++)
            ck_assert_int_eq(cache_alloc(c, 0, 1000 + 17 * l, false, &ev), (int)l);
        for (uint64_t l = 0; l < ways; l++)
            ck_assert_int_eq(cache_find(c, 0, 1000 + 17 * l), (int)l);
        /* thousands of absent lines: many share a fingerprint with a present one */
        for (uint64_t l = 0; l < 20000; l++)
            if (l < 1000 || (l - 1000) % 17 != 0 || (l - 1000) / 17 >= ways)
                ck_assert_int_eq(cache_find(c, 0, l), -1);
        cache_destroy(c);
    }
}
END_TEST

START_TEST(lru_order_survives_clock_renumbering)
{
    cache *c = cache_create(2, 4, 4, 32, CFG_INDEX_LINEAR);
    cache_evicted ev;
    cache_test_set_clock(c, 0, 0xffff - 4);
    cache_alloc(c, 0, 1, false, &ev);
    cache_alloc(c, 0, 2, false, &ev);
    cache_alloc(c, 0, 3, true, &ev);
    cache_alloc(c, 1, 7, false, &ev);
    cache_alloc(c, 0, 4, false, &ev);
    cache_touch(c, 0, cache_find(c, 0, 1));
    cache_touch(c, 0, cache_find(c, 0, 2)); /* the clock runs out: renumbered */
    cache_alloc(c, 0, 5, false, &ev); /* order: 3 (evict first), 4, 1, 2 */
    ck_assert_uint_eq(ev.line, 3);
    cache_alloc(c, 0, 6, false, &ev);
    ck_assert_uint_eq(ev.line, 4);
    cache_alloc(c, 0, 8, false, &ev);
    ck_assert_uint_eq(ev.line, 1);
    ck_assert_int_ge(cache_find(c, 1, 7), 0);
    cache_destroy(c);
}
END_TEST

START_TEST(reset_empties_and_sets_ways)
{
    cache *c = cache_create(8, 4, 4, 32, CFG_INDEX_LINEAR);
    cache_evicted ev;
    for (uint64_t l = 0; l < 32; l++)
        cache_alloc(c, cache_index(c, l), l, false, &ev);
    ck_assert_uint_eq(cache_count_lines(c), 32);
    cache_reset(c, 2);
    ck_assert_uint_eq(cache_count_lines(c), 0);
    ck_assert_int_eq(cache_find(c, 0, 0), -1);
    for (uint64_t l = 0; l < 32; l++)
        cache_alloc(c, cache_index(c, l), l, false, &ev);
    ck_assert_uint_eq(cache_count_lines(c), 16);
    cache_reset(c, 0);
    ck_assert_int_eq(cache_alloc(c, 0, 1, false, &ev), -1);
    ck_assert(!ev.valid);
    ck_assert_int_eq(cache_find(c, 0, 1), -1);
    cache_destroy(c);
}
END_TEST

START_TEST(xor_index_spreads_power_of_two_strides)
{
    /* 32 sets: lines 0, S, 2S, .. 31S fill all 32 sets for every power-of-two
     * stride S; a linear index puts them all in one set once S >= 32 */
    for (uint32_t k = 0; k <= 14; k++) {
        uint32_t seen = 0;
        uint32_t linear_seen = 0;
        for (uint64_t i = 0; i < 32; i++) {
            uint64_t line = (0x7f0000000000ull >> 7) + (i << k);
            seen |= 1u << cache_set_hash(CFG_INDEX_XOR, line, 5);
            linear_seen |= 1u << cache_set_hash(CFG_INDEX_LINEAR, line, 5);
        }
        ck_assert_msg(seen == 0xffffffffu, "stride 2^%u lines: sets %08x", k, seen);
        if (k >= 5)
            ck_assert_uint_eq(__builtin_popcount(linear_seen), 1);
    }
    ck_assert_uint_eq(cache_set_hash(CFG_INDEX_XOR, 12345, 0), 0);
}
END_TEST

/* ---- L1 ------------------------------------------------------------------- */

static void one_sector(coal_result *r, uint64_t addr, uint32_t bytes)
{
    coal_geom g;
    coal_geom_init(&g, 128, 32);
    coal_chunk c = {.addr = addr, .bytes = (uint8_t)bytes, .lane = 0};
    coal_run(&g, &c, 1, r);
}

static uint32_t load_hits(l1 *c, uint64_t addr, uint32_t bytes, l1_load_mode mode)
{
    coal_result r;
    uint32_t miss_mask[COAL_MAX_LINES], hits, misses;
    one_sector(&r, addr, bytes);
    l1_load(c, &r, mode, miss_mask, &hits, &misses);
    return hits;
}

START_TEST(l1_fills_sectors_not_lines)
{
    cfg_gpu cfg;
    test_cfg_h200(&cfg);
    l1 *c = l1_create(&cfg);
    l1_reset(c, 224u * 1024u);
    ck_assert_uint_eq(l1_ways(c), 4); /* tag ways; the data holds 1,792 lines */
    ck_assert_uint_eq(load_hits(c, 0x1000, 4, L1_LOAD_CACHE), 0);
    ck_assert_uint_eq(load_hits(c, 0x1000, 4, L1_LOAD_CACHE), 1);
    ck_assert_uint_eq(load_hits(c, 0x101c, 4, L1_LOAD_CACHE), 1); /* same sector */
    ck_assert_uint_eq(load_hits(c, 0x1020, 4, L1_LOAD_CACHE), 0); /* next sector: not filled */
    ck_assert_uint_eq(load_hits(c, 0x1020, 4, L1_LOAD_CACHE), 1);
    /* bypassing loads miss and change nothing */
    ck_assert_uint_eq(load_hits(c, 0x1000, 4, L1_LOAD_BYPASS), 0);
    ck_assert_uint_eq(load_hits(c, 0x2000, 4, L1_LOAD_BYPASS), 0);
    ck_assert_uint_eq(load_hits(c, 0x2000, 4, L1_LOAD_CACHE), 0);
    l1_destroy(c);
}
END_TEST

START_TEST(l1_partial_store_bytes_hit_only_themselves)
{
    cfg_gpu cfg;
    test_cfg_h200(&cfg);
    l1 *c = l1_create(&cfg);
    l1_reset(c, 224u * 1024u);
    coal_result r;
    uint32_t hits, misses;
    one_sector(&r, 0x4000, 4);
    l1_store(c, &r, CFG_L1_STORES_UPDATE, &hits, &misses);
    ck_assert_uint_eq(misses, 1);
    ck_assert_uint_eq(load_hits(c, 0x4000, 4, L1_LOAD_CACHE), 1);
    ck_assert_uint_eq(load_hits(c, 0x4004, 4, L1_LOAD_CACHE), 0); /* not written: fetched */
    ck_assert_uint_eq(load_hits(c, 0x4008, 4, L1_LOAD_CACHE), 1); /* whole sector now */
    l1_store(c, &r, CFG_L1_STORES_UPDATE, &hits, &misses);
    ck_assert_uint_eq(hits, 1);
    l1_store(c, &r, CFG_L1_STORES_INVALIDATE, &hits, &misses);
    ck_assert_uint_eq(hits, 1);
    ck_assert_uint_eq(load_hits(c, 0x4008, 4, L1_LOAD_CACHE), 0);
    l1_destroy(c);
}
END_TEST

/* hardware-facts §1c: one thread loads K lines at stride S, then the same K
 * lines again; the second pass's hits are the lines that survived. */
static uint32_t survivors(l1 *c, uint64_t stride, uint32_t k)
{
    const uint64_t base = 0x7f0000000000ull;
    l1_reset(c, 224u * 1024u);
    for (uint32_t i = 0; i < k; i++)
        load_hits(c, base + i * stride, 4, L1_LOAD_CACHE);
    uint32_t hits = 0;
    for (uint32_t i = 0; i < k; i++)
        hits += load_hits(c, base + i * stride, 4, L1_LOAD_CACHE);
    return hits;
}

START_TEST(h200_l1_capacity_and_strides)
{
    cfg_gpu cfg;
    test_cfg_h200(&cfg);
    l1 *c = l1_create(&cfg);
    static const uint32_t ks[] = {4, 8, 16, 32, 64, 128, 256, 512, 1024, 1536};
    for (uint64_t stride = 128; stride <= (2u << 20); stride *= 2)
        for (size_t i = 0; i < sizeof ks / sizeof ks[0]; i++)
            ck_assert_msg(survivors(c, stride, ks[i]) == ks[i], "stride %llu K %u",
                          (unsigned long long)stride, ks[i]);
    ck_assert_uint_eq(survivors(c, 128, 1728), 1728);
    uint32_t h = survivors(c, 128, 2048);
    ck_assert_msg(h < 2048 / 10, "2048 lines: %u hits, measured 98", h);
    l1_destroy(c);
}
END_TEST

START_TEST(linear_index_would_thrash_power_of_two_strides)
{
    /* the contrast that rules out a linearly indexed L1 (§1c) */
    cfg_gpu cfg;
    test_cfg_h200(&cfg);
    cfg.l1_set_index = CFG_INDEX_LINEAR;
    cfg.l1_sets = 32;
    cfg.l1_ways = 0; /* 56 ways at 224 KiB */
    l1 *c = l1_create(&cfg);
    ck_assert_uint_eq(survivors(c, 4096, 64), 0); /* 64 lines in one 56-way set */
    l1_destroy(c);
}
END_TEST

/* kernels/l1hash.cu's second pass: N lines, C in a row every D lines, from
 * the line at base, loaded twice into an L1 of `capacity` bytes; the hits of
 * the second pass. */
static uint32_t layout_hits(l1 *c, uint64_t base, uint32_t capacity, uint64_t run, uint64_t every,
                            uint32_t n)
{
    l1_reset(c, capacity);
    uint32_t hits = 0;
    for (int pass = 0; pass < 2; pass++)
        for (uint64_t i = 0; i < n; i++) {
            uint32_t h = load_hits(c, base + (i / run * every + i % run) * 128u, 4, L1_LOAD_CACHE);
            hits += pass ? h : 0;
        }
    return hits;
}

/* findings §3f: the one-thread probe in an L1 of 192 KiB (carveout 64 KiB),
 * traces/h200-probes/l1hash/l1hash-r1.txt (buffer 0x7f8258000000): the
 * layouts that lose lines far below capacity, set by set, exactly. */
START_TEST(h200_l1_loses_what_the_h200_loses)
{
    cfg_gpu cfg;
    test_cfg_h200(&cfg);
    l1 *c = l1_create(&cfg);
    const uint64_t base = 0x7f8258000000ull;
    const uint32_t cap = 192u * 1024u;
    static const struct { uint64_t run, every; uint32_t n, h200; } rows[] = {
        {1, 1, 1472, 1472},   {1, 2, 1024, 1024},  {1, 3, 1024, 982},    {1, 13, 1024, 857},
        {1, 22, 1024, 884},   {1, 1056, 1024, 796}, {1, 4096, 1024, 1024}, {48, 6336, 768, 528},
        {64, 8448, 1024, 1024}, {80, 10560, 1280, 1120},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        uint32_t h = layout_hits(c, base, cap, rows[i].run, rows[i].every, rows[i].n);
        ck_assert_msg(h == rows[i].h200, "%llu lines every %llu, %u lines: %u hits, the H200 %u",
                      (unsigned long long)rows[i].run, (unsigned long long)rows[i].every, rows[i].n,
                      h, rows[i].h200);
    }
    l1_destroy(c);
}
END_TEST

/* findings §3f (traces/h200-probes/l1sets/sets-auto.txt, buffer
 * 0x7fa494800000): lines 1, 624, 1050, 1643 and 2423 of the buffer share a
 * set of four ways; four of them after line 1 evict it, three do not. */
START_TEST(h200_l1_set_has_four_ways)
{
    cfg_gpu cfg;
    test_cfg_h200(&cfg);
    l1 *c = l1_create(&cfg);
    const uint64_t base = 0x7fa494800000ull;
    static const uint64_t set1[] = {624, 1050, 1643, 2423};
    for (uint32_t k = 3; k <= 4; k++) {
        l1_reset(c, 192u * 1024u);
        load_hits(c, base + 1 * 128u, 4, L1_LOAD_CACHE);
        for (uint32_t i = 0; i < k; i++)
            load_hits(c, base + set1[i] * 128u, 4, L1_LOAD_CACHE);
        ck_assert_uint_eq(load_hits(c, base + 1 * 128u, 4, L1_LOAD_CACHE), k < 4);
    }
    /* line 2's set is another: four of line 1's set leave it */
    l1_reset(c, 192u * 1024u);
    load_hits(c, base + 2 * 128u, 4, L1_LOAD_CACHE);
    for (uint32_t i = 0; i < 4; i++)
        load_hits(c, base + set1[i] * 128u, 4, L1_LOAD_CACHE);
    ck_assert_uint_eq(load_hits(c, base + 2 * 128u, 4, L1_LOAD_CACHE), 1);
    l1_destroy(c);
}
END_TEST

/* The data holds what the carveout leaves (1,536 lines at 192 KiB), fewer
 * than the 2,048 tags: the 1,537th line takes the place of the least
 * recently used line of all, in whichever set it is. */
START_TEST(h200_l1_data_is_the_carveouts)
{
    cfg_gpu cfg;
    test_cfg_h200(&cfg);
    l1 *c = l1_create(&cfg);
    const uint64_t base = 0x7f0000000000ull;
    ck_assert_uint_eq(layout_hits(c, base, 192u * 1024u, 1, 1, 1536), 1536);
    l1_reset(c, 192u * 1024u);
    for (uint32_t i = 0; i <= 1536; i++) {
        if (i == 1536)
            load_hits(c, base + 1 * 128u, 4, L1_LOAD_CACHE); /* line 1 used again: line 0 the oldest */
        load_hits(c, base + i * 128u, 4, L1_LOAD_CACHE);
    }
    ck_assert_uint_eq(load_hits(c, base + 2 * 128u, 4, L1_LOAD_CACHE), 1);
    ck_assert_uint_eq(load_hits(c, base + 1 * 128u, 4, L1_LOAD_CACHE), 1);
    ck_assert_uint_eq(load_hits(c, base + 0 * 128u, 4, L1_LOAD_CACHE), 0); /* the oldest went */
    l1_destroy(c);
}
END_TEST

START_TEST(evict_first_load_is_the_next_victim)
{
    cfg_gpu cfg;
    test_cfg_h200(&cfg);
    cfg.l1_sets = 1;
    cfg.l1_unified_kib = 1; /* 8 ways at most: one set of 256 KiB would be 2,048 */
    cfg.l1_set_index = CFG_INDEX_LINEAR;
    l1 *c = l1_create(&cfg);
    l1_reset(c, 4 * 128); /* one set of 4 ways */
    load_hits(c, 0x000, 4, L1_LOAD_CACHE);
    load_hits(c, 0x080, 4, L1_LOAD_CACHE);
    load_hits(c, 0x100, 4, L1_LOAD_CACHE);
    load_hits(c, 0x180, 4, L1_LOAD_EVICT_FIRST);
    load_hits(c, 0x200, 4, L1_LOAD_CACHE); /* evicts 0x180, not 0x000 */
    ck_assert_uint_eq(load_hits(c, 0x000, 4, L1_LOAD_CACHE), 1);
    ck_assert_uint_eq(load_hits(c, 0x180, 4, L1_LOAD_CACHE), 0);
    l1_destroy(c);
}
END_TEST

Suite *cache_suite(void)
{
    Suite *s = suite_create("cache");
    TCase *tc = tcase_create("tags");
    tcase_add_test(tc, lru_evicts_least_recently_used);
    tcase_add_test(tc, evict_first_lines_go_first_until_used);
    tcase_add_test(tc, victim_reports_dirty_sectors_and_drop_frees_a_way);
    tcase_add_test(tc, sector_states_and_byte_masks);
    tcase_add_test(tc, find_compares_full_tags);
    tcase_add_test(tc, lru_order_survives_clock_renumbering);
    tcase_add_test(tc, reset_empties_and_sets_ways);
    tcase_add_test(tc, xor_index_spreads_power_of_two_strides);
    suite_add_tcase(s, tc);
    TCase *l1c = tcase_create("l1");
    tcase_add_test(l1c, h200_l1_loses_what_the_h200_loses);
    tcase_add_test(l1c, h200_l1_set_has_four_ways);
    tcase_add_test(l1c, h200_l1_data_is_the_carveouts);
    tcase_set_timeout(l1c, 60);
    tcase_add_test(l1c, l1_fills_sectors_not_lines);
    tcase_add_test(l1c, l1_partial_store_bytes_hit_only_themselves);
    tcase_add_test(l1c, h200_l1_capacity_and_strides);
    tcase_add_test(l1c, linear_index_would_thrash_power_of_two_strides);
    tcase_add_test(l1c, evict_first_load_is_the_next_victim);
    suite_add_tcase(s, l1c);
    return s;
}
