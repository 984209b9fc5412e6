/* test_lrc.c - the L2 request coalescer (model/lrc.h): its rule on
 * hand-made requests, the GPC map of the config, the timing layer's use of
 * it, and what it predicts for the measured matrixMul captures. */
#include <check.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "gpu.h"
#include "lrc.h"
#include "lrc_int.h"
#include "replay.h"
#include "suites.h"
#include "test_util.h"
#include "timing.h"

/* 8 SMs: SMs 0-3 in GPC 0, 4-5 in GPC 1, 6-7 in GPC 2. */
static const uint8_t small_map[8] = {0, 0, 0, 0, 1, 1, 2, 2};

START_TEST(a_request_another_sm_of_the_gpc_has_in_flight_merges)
{
    lrc *l = lrc_create(small_map, 8, 0, NULL, 0, 0);
    uint64_t ret = 0;
    ck_assert(LRC_NEW == lrc_merge(l, 0, 100, 0xf, 10, 0, 0, &ret));
    lrc_sent(l, 0, 100, 0xf, 10, 500); /* in flight from 10 to 500 */
    /* SM 1 (GPC 0), same line and mask, at 200: merged, data when SM 0's comes */
    ck_assert(LRC_MERGED == lrc_merge(l, 1, 100, 0xf, 200, 4, 0, &ret));
    ck_assert_uint_eq(ret, 500);
    /* and at 500, the cycle its data comes back: still merged */
    ck_assert(LRC_MERGED == lrc_merge(l, 3, 100, 0xf, 500, 0, 0, &ret));
    lrc_counts n = lrc_get_counts(l);
    ck_assert_uint_eq(n.requests, 2);
    ck_assert_uint_eq(n.sectors, 8);
    ck_assert_uint_eq(n.hit_sectors, 4);
    lrc_destroy(l);
}
END_TEST

START_TEST(other_gpcs_the_same_sm_and_other_masks_do_not_merge)
{
    lrc *l = lrc_create(small_map, 8, 0, NULL, 0, 0);
    uint64_t ret = 0;
    lrc_sent(l, 0, 100, 0x3, 10, 500);
    ck_assert(LRC_NEW == lrc_merge(l, 4, 100, 0x3, 200, 2, 0, &ret)); /* GPC 1 */
    ck_assert(LRC_NEW == lrc_merge(l, 7, 100, 0x3, 200, 2, 0, &ret)); /* GPC 2 */
    ck_assert(LRC_NEW == lrc_merge(l, 0, 100, 0x3, 200, 2, 0, &ret)); /* the same SM */
    /* same line, other masks: a superset, a subset, an overlap (the
     * boundary sectors of readSegment_off11, measured: no merge) */
    ck_assert(LRC_NEW == lrc_merge(l, 1, 100, 0xf, 200, 4, 0, &ret));
    ck_assert(LRC_NEW == lrc_merge(l, 1, 100, 0x1, 200, 1, 0, &ret));
    ck_assert(LRC_NEW == lrc_merge(l, 1, 100, 0x6, 200, 2, 0, &ret));
    ck_assert(LRC_NEW == lrc_merge(l, 1, 101, 0x3, 200, 2, 0, &ret)); /* another line */
    ck_assert(LRC_MERGED == lrc_merge(l, 2, 100, 0x3, 200, 2, 0, &ret));  /* and the right one does */
    ck_assert_uint_eq(lrc_get_counts(l).sectors, 2);
    lrc_destroy(l);
}
END_TEST

/* Findings §2e (ninth session, traces/h200-probes/lrc-window-spr/summary.txt): 4 warps
 * of SM 0 and of SM 16 read one sector each of the same 32 lines, warp w
 * sector w, in step: none of the 128 merges; reading the lines whole, all
 * do. A line keeps one request: the next of another mask (or of its own
 * SM) takes its place. */
START_TEST(a_line_keeps_one_request)
{
    lrc *l = lrc_create(small_map, 8, 0, NULL, 0, 0);
    uint64_t ret = 0;
    for (uint32_t sm = 0; sm < 2; sm++)
        for (uint32_t w = 0; w < 4; w++) {
            uint64_t t = 10u + 60u * sm + 30u * w; /* 30 cycles a warp, the SMs 60 apart */
            ck_assert(LRC_NEW == lrc_merge(l, sm, 100, 1u << w, t, 0, 0, &ret));
            lrc_sent(l, sm, 100, 1u << w, t, t + 600);
        }
    ck_assert_uint_eq(lrc_get_counts(l).requests, 0);
    /* whole lines: the second SM's request finds the first's, kept */
    ck_assert(LRC_NEW == lrc_merge(l, 0, 200, 0xf, 10, 0, 0, &ret));
    lrc_sent(l, 0, 200, 0xf, 10, 610);
    ck_assert(LRC_MERGED == lrc_merge(l, 1, 200, 0xf, 70, 0, 0, &ret));
    ck_assert_uint_eq(ret, 610);
    /* the same line read by SM 0 again with another mask: SM 0's whole-line
     * request is no longer kept, and SM 2's misses it */
    ck_assert(LRC_NEW == lrc_merge(l, 0, 200, 0x1, 100, 0, 0, &ret));
    lrc_sent(l, 0, 200, 0x1, 100, 700);
    ck_assert(LRC_NEW == lrc_merge(l, 2, 200, 0xf, 110, 0, 0, &ret));
    ck_assert_uint_eq(lrc_get_counts(l).requests, 1);
    lrc_destroy(l);
}
END_TEST

/* Findings §2f (traces/h200-probes/lrc-bisect2, lrc-bisect3, lrc-halves,
 * lrc-chip): a read of the line with another mask from another GPC of the
 * L2 partition (here every GPC: no partition map) ends that GPC's kept
 * request at once (8 SMs of GPCs 0, 4, 5 reading sector 0 of 256 lines
 * merge all they can alone, 20-30% of it beside 8 SMs of GPCs 5, 6, 7
 * reading sector 1); identical reads of other GPCs leave them. In replay
 * order: a read that came before the kept one does nothing. */
START_TEST(another_gpcs_read_with_another_mask_ends_the_kept_requests)
{
    lrc *l = lrc_create(small_map, 8, 0, NULL, 0, 0);
    uint64_t ret = 0;
    /* line 100: SM 0 (GPC 0) sector 0, SM 4 (GPC 1) sector 1, SM 1 (GPC 0) sector 0 */
    lrc_sent(l, 0, 100, 0x1, 10, 1000);
    ck_assert(LRC_NEW == lrc_merge(l, 4, 100, 0x2, 20, 0, 0, &ret));
    lrc_sent(l, 4, 100, 0x2, 20, 1000);
    ck_assert(LRC_NEW == lrc_merge(l, 1, 100, 0x1, 30, 0, 0, &ret));
    /* SM 1's becomes GPC 0's kept request, and ends GPC 1's in turn */
    lrc_sent(l, 1, 100, 0x1, 30, 1000);
    ck_assert(LRC_NEW == lrc_merge(l, 5, 100, 0x2, 40, 0, 0, &ret));
    ck_assert(LRC_MERGED == lrc_merge(l, 2, 100, 0x1, 50, 0, 0, &ret));
    /* line 200: GPC 1's read is identical: GPC 0's kept request stays */
    lrc_sent(l, 0, 200, 0x1, 10, 1000);
    lrc_sent(l, 4, 200, 0x1, 20, 1000);
    ck_assert(LRC_MERGED == lrc_merge(l, 1, 200, 0x1, 30, 0, 0, &ret));
    /* line 300: GPC 1's read of another mask came first (replay order) */
    lrc_sent(l, 4, 300, 0x2, 5, 1000);
    lrc_sent(l, 0, 300, 0x1, 10, 1000);
    ck_assert(LRC_MERGED == lrc_merge(l, 1, 300, 0x1, 30, 0, 0, &ret));
    /* whole lines and halves alike (lrc-halves: sectors 0-1 against 2-3) */
    lrc_sent(l, 0, 400, 0x3, 10, 1000);
    lrc_sent(l, 6, 400, 0xc, 20, 1000);
    ck_assert(LRC_NEW == lrc_merge(l, 1, 400, 0x3, 30, 0, 0, &ret));
    ck_assert_uint_eq(lrc_get_counts(l).requests, 3);
    lrc_destroy(l);
}
END_TEST

/* ... at once when the GPCs share an L2 partition; from the other
 * partition's, only for requests sent far_void after it (lrc-xgpc2.sh: 300
 * cycles later the pair still merged, 400 and more it did not; lrc-chip.sh:
 * four SMs of another GPC reading sector 1 end group 0's merges when their
 * GPC is in its partition, by farlat on the same machine, and not when it is
 * in the other). */
START_TEST(the_other_partitions_read_ends_them_later)
{
    static const uint8_t parts[3] = {0, 1, 0}; /* GPC 1 (SMs 4, 5) in the other partition */
    lrc *l = lrc_create(small_map, 8, 0, parts, 3, 350);
    uint64_t ret = 0;
    lrc_sent(l, 0, 500, 0x1, 10, 2000);
    lrc_sent(l, 4, 500, 0x2, 20, 2000); /* ends GPC 0's from 370 */
    ck_assert(LRC_MERGED == lrc_merge(l, 1, 500, 0x1, 369, 0, 0, &ret));
    ck_assert(LRC_NEW == lrc_merge(l, 2, 500, 0x1, 370, 0, 0, &ret));
    lrc_sent(l, 0, 600, 0x1, 10, 2000);
    lrc_sent(l, 6, 600, 0x2, 20, 2000); /* GPC 2, GPC 0's partition: at once */
    ck_assert(LRC_NEW == lrc_merge(l, 1, 600, 0x1, 30, 0, 0, &ret));
    /* and the other partition's GPCs keep their own view: GPC 0's read of
     * another mask ends GPC 1's kept request 350 cycles later too */
    lrc_sent(l, 4, 700, 0x2, 10, 2000);
    lrc_sent(l, 0, 700, 0x1, 20, 2000);
    ck_assert(LRC_MERGED == lrc_merge(l, 5, 700, 0x2, 300, 0, 0, &ret));
    ck_assert(LRC_NEW == lrc_merge(l, 5, 700, 0x2, 400, 0, 0, &ret));
    lrc_destroy(l);
}
END_TEST

START_TEST(a_request_whose_data_came_back_does_not_merge_unless_in_the_window)
{
    lrc *l = lrc_create(small_map, 8, 0, NULL, 0, 0);
    uint64_t ret = 0;
    lrc_sent(l, 0, 100, 0xf, 10, 500);
    ck_assert(LRC_NEW == lrc_merge(l, 1, 100, 0xf, 501, 4, 0, &ret));
    lrc_destroy(l);
    l = lrc_create(small_map, 8, 50, NULL, 0, 0); /* a window of 50 cycles after the return */
    lrc_sent(l, 0, 100, 0xf, 10, 500);
    ck_assert(LRC_MERGED == lrc_merge(l, 1, 100, 0xf, 550, 4, 0, &ret));
    ck_assert_uint_eq(ret, 500);
    ck_assert(LRC_NEW == lrc_merge(l, 1, 100, 0xf, 551, 4, 0, &ret));
    lrc_destroy(l);
}
END_TEST

/* Requests come in replay order: one that is earlier in time than the one
 * in the table meets it when it was still in flight at that one's arrival. */
START_TEST(a_pair_met_out_of_replay_order_merges_once)
{
    lrc *l = lrc_create(small_map, 8, 0, NULL, 0, 0);
    uint64_t ret = 0;
    lrc_sent(l, 0, 100, 0xf, 1000, 1400); /* 400 cycles in flight */
    ck_assert(LRC_MERGED == lrc_merge(l, 1, 100, 0xf, 700, 0, 0, &ret)); /* 300 before: it was in flight then */
    ck_assert_uint_eq(ret, 700 + 400);
    ck_assert(LRC_NEW == lrc_merge(l, 1, 100, 0xf, 600, 0, 0, &ret)); /* 400 before: it was back */
    ck_assert_uint_eq(lrc_get_counts(l).requests, 1);
    lrc_destroy(l);
}
END_TEST

/* One L2 read serves at most four SMs (findings §2c: k SMs of one GPC
 * reading the same sectors at once cost ceil(k / 4) reads of them): of 16
 * requests in flight together, the 5th, 9th and 13th are read again. */
START_TEST(one_l2_read_serves_four_sms)
{
    static const uint8_t one_gpc[16] = {0};
    lrc *l = lrc_create(one_gpc, 16, 0, NULL, 0, 0);
    uint64_t ret;
    ck_assert(LRC_NEW == lrc_merge(l, 0, 100, 0x3, 10, 0, 0, &ret));
    lrc_sent(l, 0, 100, 0x3, 10, 700);
    uint32_t again = 0;
    for (uint32_t sm = 1; sm < 16; sm++) {
        lrc_outcome o = lrc_merge(l, sm, 100, 0x3, 10 + sm, 2, 0, &ret);
        ck_assert_uint_eq(ret, 700); /* every member gets the group's data */
        if (o == LRC_READ_AGAIN) {
            ck_assert_msg(sm % 4 == 0, "SM %u read again", sm);
            again++;
        } else {
            ck_assert_int_eq(o, LRC_MERGED);
        }
    }
    ck_assert_uint_eq(again, 3);
    lrc_counts n = lrc_get_counts(l);
    ck_assert_uint_eq(n.requests, 12);
    ck_assert_uint_eq(n.sectors, 24);
    lrc_destroy(l);
}
END_TEST

START_TEST(a_reset_forgets_every_request_and_the_table_is_bounded)
{
    lrc *l = lrc_create(small_map, 8, 0, NULL, 0, 0);
    uint64_t ret = 0;
    lrc_sent(l, 0, 100, 0xf, 10, 500);
    lrc_reset(l);
    ck_assert(LRC_NEW == lrc_merge(l, 1, 100, 0xf, 200, 4, 0, &ret));
    ck_assert_uint_eq(lrc_get_counts(l).requests, 0);
    /* far more requests in flight than a GPC's table holds: the ones whose
     * data comes back first make room; the latest is still found */
    for (uint64_t i = 0; i < 10u * LRC_SETS * LRC_WAYS; i++)
        lrc_sent(l, 0, i, 0xf, 10, 1000 + i);
    ck_assert(LRC_MERGED == lrc_merge(l, 1, 10u * LRC_SETS * LRC_WAYS - 1u, 0xf, 500, 4, 0, &ret));
    lrc_destroy(l);
}
END_TEST

/* A full set (LRC_WAYS requests of one GPC whose line and mask map to it)
 * makes room by replacing the request whose data came back first, the
 * first of them on a tie (lrc_int.h's tournament; the rule of lrc.h). */
START_TEST(a_full_set_replaces_the_first_of_its_earliest_back)
{
    lrc *l = lrc_create(small_map, 8, 0, NULL, 0, 0);
    uint64_t lines[LRC_WAYS + 1u], ret = 0;
    const lrc_set *set = lrc_set_of(l, 0, 100, 0xf);
    uint32_t n = 0;
    for (uint64_t line = 100; n < LRC_WAYS + 1u; line++)
        if (lrc_set_of(l, 0, line, 0xf) == set)
            lines[n++] = line;
    static const uint64_t back[LRC_WAYS] = {900, 400, 700, 400, 800, 950, 600, 990};
    for (uint32_t w = 0; w < LRC_WAYS; w++)
        lrc_sent(l, 0, lines[w], 0xf, 10, back[w]);
    /* a ninth takes the place of the second (back at 400, as the fourth) */
    lrc_sent(l, 0, lines[8], 0xf, 10, 1000);
    ck_assert(LRC_NEW == lrc_merge(l, 1, lines[1], 0xf, 200, 4, 0, &ret));
    ck_assert(LRC_MERGED == lrc_merge(l, 1, lines[3], 0xf, 200, 4, 0, &ret));
    ck_assert_uint_eq(ret, 400);
    ck_assert(LRC_MERGED == lrc_merge(l, 1, lines[8], 0xf, 200, 4, 0, &ret));
    ck_assert_uint_eq(ret, 1000);
    /* then the fourth goes, then the seventh (600) */
    lrc_sent(l, 0, lines[1], 0xf, 10, 1000);
    ck_assert(LRC_NEW == lrc_merge(l, 1, lines[3], 0xf, 200, 4, 0, &ret));
    lrc_sent(l, 0, lines[3], 0xf, 10, 1000);
    ck_assert(LRC_NEW == lrc_merge(l, 1, lines[6], 0xf, 200, 4, 0, &ret));
    ck_assert(LRC_MERGED == lrc_merge(l, 1, lines[2], 0xf, 200, 4, 0, &ret));
    ck_assert_uint_eq(ret, 700);
    lrc_destroy(l);
}
END_TEST

START_TEST(merged_requests_leave_the_l2_read_counters)
{
    stats s;
    memset(&s, 0, sizeof s);
    s.v[STAT_L2_REQ_READ] = 10;
    s.v[STAT_L2_SECT_READ] = 40;
    s.v[STAT_L2_SECT_READ_HIT] = 30;
    s.v[STAT_L2_SECT_READ_MISS] = 10;
    s.v[STAT_DRAM_SECT_READ] = 10;
    lrc_counts m = {.requests = 3, .sectors = 12, .hit_sectors = 8};
    lrc_counts_apply(&m, &s);
    ck_assert_uint_eq(s.v[STAT_L2_REQ_READ], 7);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_READ], 28);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_READ_HIT], 22);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_READ_MISS], 6);
    ck_assert_uint_eq(s.v[STAT_DRAM_SECT_READ], 10);
}
END_TEST

/* ---- the config's GPC map ---- */

static int load_text(const char *text, cfg_gpu *c, err_info *e)
{
    char path[] = "/tmp/gms-lrc-cfg-XXXXXX";
    int fd = mkstemp(path);
    ck_assert(fd >= 0);
    FILE *f = fdopen(fd, "w");
    ck_assert(f);
    /* the H200 config with text in place of its sm_gpc line; without a GPC
     * map, also without l2.gpc_partition, which needs one */
    bool no_map = strstr(text, "sm_gpc = 0") == NULL && strstr(text, "sm_gpc = 1") == NULL;
    FILE *h = fopen("configs/h200.ini", "r");
    ck_assert(h);
    char line[512];
    while (fgets(line, sizeof line, h)) {
        if (strncmp(line, "sm_gpc", 6) == 0)
            fputs(text, f);
        else if (!(no_map && strncmp(line, "gpc_partition", 13) == 0))
            fputs(line, f);
    }
    fclose(h);
    fclose(f);
    int rc = cfg_load(path, c, e);
    remove(path);
    return rc;
}

START_TEST(the_h200_gpc_map_is_the_measured_one)
{
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("configs/h200.ini", &c, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(c.n_sm_gpc, 132);
    /* traces/h200-probes/lrc-pairs.summary.txt: SM s is in GPC (s/2)%8 for
     * s<64, (s-64)/2%7+1 for 64<=s<120, 120-121: 6, 122-123: 7, 124-131: 0 */
    for (uint32_t s = 0; s < 132; s++) {
        uint32_t g = s < 64 ? (s / 2) % 8 : s < 120 ? (s - 64) / 2 % 7 + 1 : s < 122 ? 6 : s < 124 ? 7 : 0;
        ck_assert_msg(c.sm_gpc[s] == g, "SM %u: GPC %u, expected %u", s, c.sm_gpc[s], g);
    }
    ck_assert_uint_eq(c.t_lrc_window_cycles, 0);
}
END_TEST

START_TEST(a_bad_gpc_map_is_refused_by_name)
{
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert(load_text("sm_gpc = 0011 2233\n", &c, &e) != 0);
    ck_assert_msg(strstr(e.msg, "[gpu] sm_gpc") && strstr(e.msg, "one GPC per SM") &&
                  strstr(e.msg, "got 8"), "%s", e.msg);
    err_clear(&e);
    ck_assert(load_text("sm_gpc = 00X1\n", &c, &e) != 0);
    ck_assert_msg(strstr(e.msg, "[gpu] sm_gpc") && strstr(e.msg, "'X' at position 3"), "%s", e.msg);
    err_clear(&e);
    ck_assert_msg(load_text("sm_gpc = none\n", &c, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(c.n_sm_gpc, 0);
    /* a config without the key: no map either (no LRC) */
    ck_assert_msg(load_text("", &c, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(c.n_sm_gpc, 0);
}
END_TEST

/* The L2 partitions are made of whole GPCs (docs/findings.md §7, kernels/farlat.cu):
 * GPCs 0, 4, 5, 6 in one, 1, 2, 3, 7 in the other; without the maps, s mod 2. */
START_TEST(the_h200_partitions_are_the_measured_ones)
{
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("configs/h200.ini", &c, &e) == 0, "%s", e.msg);
    static const struct {
        uint32_t sm, part;
    } cases[] = {{0, 0}, {1, 0}, {2, 1}, {3, 1}, {4, 1}, {6, 1}, {8, 0}, {10, 0}, {12, 0},
                 {14, 1}, {16, 0}, {64, 1}, {120, 0}, {122, 1}, {124, 0}, {131, 0}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_msg(cfg_partition_of_sm(&c, cases[i].sm) == cases[i].part, "SM %u: partition %u",
                      cases[i].sm, cfg_partition_of_sm(&c, cases[i].sm));
    uint32_t in0 = 0;
    for (uint32_t sm = 0; sm < c.sm_count; sm++)
        in0 += cfg_partition_of_sm(&c, sm) == 0;
    ck_assert_uint_eq(in0, 16 + 16 + 16 + 18); /* GPCs 0, 4, 5 and 6 */
    c.l2_n_gpc_partition = 0;
    ck_assert_uint_eq(cfg_partition_of_sm(&c, 1), 1);
    ck_assert_uint_eq(cfg_partition_of_sm(&c, 2), 0);
}
END_TEST

START_TEST(a_bad_partition_map_is_refused_by_name)
{
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("configs/h200.ini", &c, &e) == 0, "%s", e.msg);
    c.l2_n_gpc_partition = 7; /* GPC 7 has no partition */
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_msg(strstr(e.msg, "[l2] gpc_partition") && strstr(e.msg, "GPC 7"), "%s", e.msg);
    c.l2_n_gpc_partition = 8;
    c.l2_gpc_partition[3] = 2; /* the H200 has 2 partitions */
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_msg(strstr(e.msg, "below l2.partitions = 2") && strstr(e.msg, "GPC 3"), "%s", e.msg);
    c.l2_gpc_partition[3] = 1;
    c.n_sm_gpc = 0; /* a partition map needs the GPC map */
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_msg(strstr(e.msg, "expected gpu.sm_gpc as well"), "%s", e.msg);
}
END_TEST

/* ---- in the timing layer ---- */

/* A kernel of one global load PC (sass) in the functional model with the
 * timing layer observing it; CTA c runs on SM c (round robin). */
typedef struct load_rig {
    gpu *g;
    timing *t;
    trace_kernel k;
    trace_pc_info pc;
    char sass[48];
} load_rig;

static void load_rig_open(load_rig *r, const cfg_gpu *c, uint32_t ctas, const char *sass)
{
    err_info e;
    err_clear(&e);
    r->g = gpu_create(c);
    r->t = timing_create(c);
    gpu_observer o = timing_observer(r->t);
    gpu_set_observer(r->g, &o);
    test_kernel(&r->k, "k", ctas, 32);
    snprintf(r->sass, sizeof r->sass, "%s", sass);
    r->pc = (trace_pc_info){.pc = 0, .sass = r->sass, .file = -1};
    r->k.pcs = &r->pc;
    r->k.n_pcs = 1;
    ck_assert_msg(gpu_kernel_begin(r->g, &r->k, 0, &e) == 0, "%s", e.msg);
    timing_kernel_begin(r->t, &r->k, gpu_kernel_info_get(r->g));
}

/* CTA cta's warp 0 loads 4 bytes a lane from addr, stride bytes apart (4:
 * the 128 bytes at addr; 0: one float, one sector). */
static void load_rig_load_stride(load_rig *r, uint32_t cta, uint64_t addr, int64_t stride)
{
    trace_mem m;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, addr, stride);
    m.cta = cta;
    gpu_mem(r->g, &m);
}

static void load_rig_load(load_rig *r, uint32_t cta, uint64_t addr)
{
    load_rig_load_stride(r, cta, addr, 4);
}

static timing_result load_rig_close(load_rig *r, stats *out)
{
    timing_result res;
    gpu_kernel_end(r->g, out);
    timing_kernel_end(r->t, &res);
    gpu_destroy(r->g);
    timing_destroy(r->t);
    return res;
}

static void h200_cfg(cfg_gpu *c)
{
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("configs/h200.ini", c, &e) == 0, "%s", e.msg);
}

/* Two CTAs (round-robin: CTA c on SM c) load the same 128 bytes at once. */
static timing_result two_ctas_load_one_line(uint32_t second_cta, bool with_map, stats *out)
{
    cfg_gpu c;
    h200_cfg(&c);
    c.t_launch_cycles = 0;
    c.t_cta_launch_mcycles = 0;
    if (!with_map)
        c.n_sm_gpc = 0;
    load_rig r;
    load_rig_open(&r, &c, second_cta + 1u, "LDG.E R2, desc[UR4][R4.64]");
    load_rig_load(&r, 0, 0x100000);
    load_rig_load(&r, second_cta, 0x100000);
    return load_rig_close(&r, out);
}

START_TEST(the_timing_layer_merges_a_read_of_two_sms_of_one_gpc)
{
    stats s;
    /* SMs 0 and 1: GPC 0. The second read is an L2 hit in the functional
     * model (the first filled the line); merged, it never reaches L2 */
    timing_result r = two_ctas_load_one_line(1, true, &s);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_READ], 8);
    ck_assert_uint_eq(r.lrc_input_sectors, 8);
    ck_assert_uint_eq(r.lrc.sectors, 4);
    ck_assert_uint_eq(r.lrc.requests, 1);
    ck_assert_uint_eq(r.lrc.hit_sectors, 4);
    lrc_counts_apply(&r.lrc, &s);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_READ], 4);
    ck_assert_uint_eq(s.v[STAT_L2_REQ_READ], 1);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_READ_HIT], 0);
    ck_assert_uint_eq(s.v[STAT_L2_SECT_READ_MISS], 4);
    /* SMs 0 and 2: GPCs 0 and 1, no merge */
    r = two_ctas_load_one_line(2, true, &s);
    ck_assert_uint_eq(r.lrc.sectors, 0);
    /* the same GPC without a map: no coalescer */
    r = two_ctas_load_one_line(1, false, &s);
    ck_assert_uint_eq(r.lrc.sectors, 0);
}
END_TEST

/* kernels/probes/lrc-group.sh in the timing layer: the first k SMs of GPC 0
 * (CTA c on SM c) read the same 64 lines at once, a line per warp load. The
 * H200 read them ceil(k / 4) times from L2 (findings §2c). */
static uint64_t group_reads(uint32_t k)
{
    static const uint32_t gpc0[16] = {0, 16, 32, 48, 1, 17, 33, 49, 124, 125, 126, 127, 128, 129, 130, 131};
    cfg_gpu c;
    h200_cfg(&c);
    load_rig r;
    load_rig_open(&r, &c, 132, "LDG.E R9, desc[UR4][R2.64]");
    for (uint64_t line = 0; line < 64; line++)
        for (uint32_t i = 0; i < k; i++)
            load_rig_load(&r, gpc0[i], 0x100000 + 128 * line);
    stats s;
    timing_result res = load_rig_close(&r, &s);
    lrc_counts_apply(&res.lrc, &s);
    return s.v[STAT_L2_SECT_READ];
}

START_TEST(k_sms_of_a_gpc_reading_at_once_cost_ceil_k_over_4_reads)
{
    for (uint32_t k = 1; k <= 16; k++)
        ck_assert_msg(group_reads(k) == (k + 3u) / 4u * 256u, "%u SMs: %llu L2 read sectors", k,
                      (unsigned long long)group_reads(k));
}
END_TEST

/* lrc-bisect2.sh's groups in the timing layer: 8 SMs of GPCs 0, 4 and 5
 * and 8 of GPCs 5, 6 and 7 (the SMs the H200 gave transtimed's readers)
 * read 64 lines, the first group sector 0, the second sector second_sector
 * (a one-sector request each), the SMs of the groups taking turns. */
static uint64_t two_groups_merged(uint32_t second_sector)
{
    static const uint32_t g0[8] = {124, 128, 8, 40, 70, 98, 10, 42}, g1[8] = {72, 100, 12, 44, 74, 102, 14, 46};
    cfg_gpu c;
    h200_cfg(&c);
    load_rig r;
    load_rig_open(&r, &c, 132, "LDG.E R9, desc[UR4][R2.64]");
    for (uint64_t line = 0; line < 64; line++)
        for (uint32_t i = 0; i < 8; i++) { /* every lane the same float: one sector */
            load_rig_load_stride(&r, g0[i], 0x100000 + 128 * line, 0);
            load_rig_load_stride(&r, g1[i], 0x100000 + 128 * line + 32u * second_sector, 0);
        }
    stats s;
    timing_result res = load_rig_close(&r, &s);
    return res.lrc.sectors;
}

/* Sector 0 alike: per line 1 + 3 + 3 + 3 + 1 of the five GPCs' 16 reads
 * merge (lrc-bisect2's sg-same: all that can). Sector 1 for the second
 * group: the groups' reads alternate and each ends the other group's kept
 * requests in its partition, so that per line only the last two pairs
 * merge: GPC 5's SMs 10 and 42, between which GPC 7's SM 14 (the other
 * partition) reads, and GPC 7's 14 and 46 (the H200, sg-g01, whose SMs do
 * not take turns so strictly: 521 and 764 of the 2,560 sectors that could;
 * bench/strideg-trace.py --shuffle's orders give the model 960-1,296). */
START_TEST(other_gpcs_reading_other_sectors_leave_few_merges)
{
    ck_assert_uint_eq(two_groups_merged(0), 64u * 11u);
    ck_assert_uint_eq(two_groups_merged(1), 64u * 2u);
}
END_TEST

/* ---- the measured captures ---- */

typedef struct l2_reads {
    uint64_t functional, after_lrc, launches;
} l2_reads;

static int sum_reads(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    l2_reads *x = ctx;
    /* with timing, the replay's totals are already after the LRC (replay.h);
     * the functional count is those plus what the LRC merged */
    x->after_lrc += r->totals.v[STAT_L2_SECT_READ];
    x->functional += r->totals.v[STAT_L2_SECT_READ] + r->timing->lrc.sectors;
    x->launches++;
    return 0;
}

static l2_reads replay_reads(const char *path)
{
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert_msg(cfg_load("configs/h200.ini", &c, &e) == 0, "%s", e.msg);
    replay_options opt = {.timing = true};
    l2_reads x = {0};
    ck_assert_msg(replay_trace(path, &c, &opt, sum_reads, &x, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(x.launches, 1);
    return x;
}

/* lts__t_sectors_srcunit_tex_op_read.sum, measured (the capture's CSV) and
 * predicted (L1 miss sectors less the LRC's merges). The run-to-run spread of
 * this counter is 7.65% on matrixMul_naive (docs/findings.md §5). The small
 * grids' measured values include ~100-200 sectors of the profiler's own
 * reads (findings §1). Errors against the measured (before the warps issued
 * by their control words, DRAM took its own rates and L2 its intake limit,
 * findings §18: naive 38,721, tiled16 36,512, mmn_16 3,170, mmn_64 10,653;
 * before arithmetic
 * results took alu_latency_cycles, findings §13: naive 38,817, tiled16
 * 36,574; before a warp's own
 * data-stage wavefronts went at its own rate, findings §17: naive 38,830,
 * tiled16 36,564, mmn_16 3,168, mmn_64 10,661; before read requests
 * took slots of the SM's queue towards L2, docs/timing.md: naive 42,322,
 * tiled16 37,090, mmn_64 12,711, mmt_64 11,120; before the suite's traces
 * held their whole SASS, sassflow.h: naive 42,326, tiled16 37,428; before a
 * warp could have 16 loads in flight rather than 8, docs/timing.md: naive
 * 42,324, mmn_16 3,266, mmn_64 12,736; before a barrier blocked at the next
 * memory instruction, not the next instruction: tiled16 37,292; before L2
 * fetched 64 bytes a miss, findings §15, which turns reads of the second
 * sector of a pair into hits that the LRC at the slice holds for a cycle:
 * naive 39,887, mmn_16 3,068, mmn_64 12,067; before the LRC held a read for
 * its whole round trip from the SM and kept one request per line, findings
 * §2e, ninth session: naive 42,584, tiled16 37,448, tiny_tiled2 4, mmn_16
 * 3,253, mmn_64 11,657, mmt_16 3,012, mmt_64 11,292; before l2.placement =
 * page, findings §3h, moved which lines are homed far: naive 38,898, tiled16
 * 36,496, mmn_16 3,168, mmn_64 10,657, mmt_16 3,192, mmt_64 10,456; before
 * a warp waited for its code and constants to be fetched, findings §23:
 * naive 39,187, tiled16 36,012): */
START_TEST(the_matrixmul_captures)
{
    static const struct {
        const char *trace;
        uint64_t functional, predicted; /* measured, error: */
    } cases[] = {
        /* measured: error now (before another GPC's read of another mask
         * ended the kept requests, findings §2f) */
        {"traces/h200/matrixMul_naive.trace", 63616, 40731},           /* 38,252: +6.5% (+2.5%) */
        {"traces/h200/matrixMul_tiled16.trace", 63616, 38476},         /* 39,028: -1.4% (-7.8%) */
        {"traces/h200/matrixMul_tiny_naive.trace", 12, 4},             /* 8 (profiler's) */
        {"traces/h200/matrixMul_tiny_tiled2.trace", 12, 6},            /* 5 (profiler's) */
        {"traces/h200-probes/lrc-traces/mmn_16.trace", 4096, 3130},    /* 3,119: +0.4% (-0.4%) */
        {"traces/h200-probes/lrc-traces/mmn_64.trace", 16384, 10741},  /* 10,672: +0.6% (-0.0%) */
        {"traces/h200-probes/lrc-traces/mmt_16.trace", 4096, 3072},    /* 3,218: -4.5% (-5.5%) */
        {"traces/h200-probes/lrc-traces/mmt_64.trace", 16384, 10452},  /* 10,698: -2.3% (-2.3%) */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        l2_reads x = replay_reads(cases[i].trace);
        ck_assert_msg(x.functional == cases[i].functional && x.after_lrc == cases[i].predicted,
                      "%s: functional %llu (expected %llu), after the LRC %llu (expected %llu)",
                      cases[i].trace, (unsigned long long)x.functional,
                      (unsigned long long)cases[i].functional, (unsigned long long)x.after_lrc,
                      (unsigned long long)cases[i].predicted);
    }
}
END_TEST

/* readSegment_off11: neighbouring CTAs read their boundary sectors with
 * different masks; measured merges 0 (findings §2), so 0 here. */
START_TEST(misaligned_boundaries_do_not_merge)
{
    l2_reads x = replay_reads("traces/h200/readSegment_off11.trace");
    ck_assert_uint_eq(x.after_lrc, x.functional);
    x = replay_reads("traces/h200/readSegmentCG_off11.trace");
    ck_assert_uint_eq(x.after_lrc, x.functional);
}
END_TEST

Suite *lrc_suite(void)
{
    Suite *s = suite_create("lrc");
    TCase *tc = tcase_create("rule");
    tcase_add_test(tc, a_request_another_sm_of_the_gpc_has_in_flight_merges);
    tcase_add_test(tc, other_gpcs_the_same_sm_and_other_masks_do_not_merge);
    tcase_add_test(tc, a_line_keeps_one_request);
    tcase_add_test(tc, another_gpcs_read_with_another_mask_ends_the_kept_requests);
    tcase_add_test(tc, the_other_partitions_read_ends_them_later);
    tcase_add_test(tc, a_request_whose_data_came_back_does_not_merge_unless_in_the_window);
    tcase_add_test(tc, a_pair_met_out_of_replay_order_merges_once);
    tcase_add_test(tc, one_l2_read_serves_four_sms);
    tcase_add_test(tc, a_reset_forgets_every_request_and_the_table_is_bounded);
    tcase_add_test(tc, a_full_set_replaces_the_first_of_its_earliest_back);
    tcase_add_test(tc, merged_requests_leave_the_l2_read_counters);
    tcase_add_test(tc, the_h200_gpc_map_is_the_measured_one);
    tcase_add_test(tc, a_bad_gpc_map_is_refused_by_name);
    tcase_add_test(tc, the_h200_partitions_are_the_measured_ones);
    tcase_add_test(tc, a_bad_partition_map_is_refused_by_name);
    suite_add_tcase(s, tc);
    TCase *tt = tcase_create("timing");
    tcase_set_timeout(tt, 120); /* whole H200s and suite traces; slow under the sanitizers */
    tcase_add_test(tt, the_timing_layer_merges_a_read_of_two_sms_of_one_gpc);
    tcase_add_test(tt, k_sms_of_a_gpc_reading_at_once_cost_ceil_k_over_4_reads);
    tcase_add_test(tt, other_gpcs_reading_other_sectors_leave_few_merges);
    tcase_add_test(tt, the_matrixmul_captures);
    tcase_add_test(tt, misaligned_boundaries_do_not_merge);
    suite_add_tcase(s, tt);
    return s;
}
