/* test_gpu.c - the whole model against the measured H200 rules
 * (hardware-facts.md §1c, §3.2-§3.5), the K20c differences, placement and
 * carveout, per-PC counters, and the measured rows of tests/data/hw replayed
 * from their text traces. One warp and cold caches unless said otherwise. */
#include <check.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "gpu.h"
#include "l2.h"
#include "smem.h"
#include "source_view.h"
#include "suites.h"
#include "test_util.h"

#define V(st, id) ((st).v[STAT_##id])

static const uint64_t A = 0x7f0000000000ull; /* loads */
static const uint64_t W = 0x7f0000100000ull; /* stores and atomics */

static cfg_gpu h200;
static gpu *g;

static void setup_h200(void)
{
    test_cfg_h200(&h200);
    g = gpu_create(&h200);
}

static void teardown(void)
{
    gpu_destroy(g);
    g = NULL;
}

static void begin_kernel(gpu *gp, const trace_kernel *k, uint32_t trace_sms)
{
    err_info e;
    err_clear(&e);
    int rc = gpu_kernel_begin(gp, k, trace_sms, &e);
    ck_assert_msg(rc == 0, "gpu_kernel_begin: %s", e.msg);
}

/* The records as one kernel of `ctas` CTAs of 32 threads. */
static void run_kernel(gpu *gp, const trace_mem *ms, size_t n, uint32_t ctas, stats *out)
{
    trace_kernel k;
    test_kernel(&k, "k", ctas, 32);
    begin_kernel(gp, &k, 0);
    for (size_t i = 0; i < n; i++)
        gpu_mem(gp, &ms[i]);
    gpu_kernel_end(gp, out);
}

static void run_one(gpu *gp, const trace_mem *m, stats *out)
{
    run_kernel(gp, m, 1, 1, out);
}

/* ---- §3.4 global loads -------------------------------------------------------- */

typedef struct global_row {
    const char *what;
    uint32_t size;
    uint64_t base;
    int pat;          /* test_ubench_offset pattern, or -1 for base + stride * l */
    uint64_t stride;
    uint32_t active;  /* lanes 0 .. active-1 */
    uint32_t sectors, tag_wf, data_wf;
    int bc;           /* -1 where the row did not measure it */
    uint32_t l2_req, l2_sect;
} global_row;

static const global_row global_rows[] = {
    {"LDG.32 coalesced", 4, A, -1, 4, 32, 4, 1, 1, -1, 1, 4},
    {"LDG.32 stride 8 B", 4, A, -1, 8, 32, 8, 1, 2, -1, 2, 8},
    {"LDG.32 stride 32 B", 4, A, -1, 32, 32, 32, 2, 8, -1, 8, 32},
    {"LDG.32 stride 128 B", 4, A, -1, 128, 32, 32, 8, 32, 24, 32, 32},
    {"LDG.32 stride 2 MiB", 4, A, -1, 2u << 20, 32, 32, 8, 32, 24, 32, 32},
    {"LDG.32 stride 128 B, 4 lanes", 4, A, -1, 128, 4, 4, 1, 4, 3, 4, 4},
    {"LDG.32 all same", 4, A, -1, 0, 32, 1, 1, 1, -1, 1, 1},
    {"LDG.32 coalesced +4 B", 4, A + 4, -1, 4, 32, 5, 1, 1, -1, 2, 5},
    {"LDG.64 coalesced", 8, A, -1, 8, 32, 8, 1, 2, -1, 2, 8},
    {"LDG.128 coalesced", 16, A, -1, 16, 32, 16, 1, 4, -1, 4, 16},
    {"LDG.128 stride 32 B", 16, A, -1, 32, 32, 32, 2, 8, -1, 8, 32},
    {"LDG.64 half-warp-discriminating", 8, A, 8, 0, 32, 8, 1, 4, 2, 2, 8},
    {"LDG.128 quarter-discriminating", 16, A, 12, 0, 32, 16, 1, 8, 4, 4, 16},
    {"LDG.64 Tn==Tn^2 (no merge)", 8, A, 20, 0, 32, 4, 1, 2, 0, 1, 4},
    {"LDG.128 Tn==Tn^2 (no merge)", 16, A, 21, 0, 32, 8, 1, 4, 0, 2, 8},
};

static void row_record(const global_row *r, trace_mem *m)
{
    uint64_t addr[32];
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = r->pat < 0 ? r->base + r->stride * l : r->base + test_ubench_offset(r->pat, l);
    uint32_t mask = r->active == 32 ? 0xffffffffu : (1u << r->active) - 1u;
    test_mem_addrs(m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, r->size, mask, addr);
}

/* The shared-memory configuration the driver picked on the H200 for every
 * kernel of the suite (Nsight Compute's launch__shared_mem_config_size,
 * traces/h200-probes/launchstats/summary.csv; findings §3e): the distinct
 * (bytes per CTA with the 1 KiB reservation, resident CTAs) pairs. */
START_TEST(h200_carveout_is_the_drivers)
{
    static const struct {
        uint32_t per_cta, ctas, kib;
        const char *kernels;
    } rows[] = {
        {1024, 4, 16, "readSegment*, writeSegment*, readOnly* (512 threads)"},
        {1024, 8, 32, "matrixMul_naive, atomic*, vecAdd*, stencil2d, transpose_naive, empty*"},
        {1024, 16, 32, "local_array, local_spill, simpleMath*"},
        {1024, 32, 32, "spmv*, matrixMul_tiny_naive"},
        {1056, 32, 64, "matrixMul_tiny_tiled2"},
        {2048, 8, 32, "histogram*, reduce*, copyAsync_ca4"},
        {2128, 8, 64, "filter21_float"},
        {3232, 8, 64, "filter21_float2"},
        {3072, 8, 64, "matrixMul_tiled16"},
        {3072, 12, 100, "wmma_gemm"},
        {5120, 8, 100, "copyAsync_cg16, transpose_shared"},
        {5248, 8, 100, "transpose_padded"},
        {9216, 16, 164, "bank_linear, bank_stride*"},
        {9728, 16, 164, "bank_pad17"},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++)
        ck_assert_msg(gpu_carveout_kib(&h200, rows[i].ctas, rows[i].per_cta) == rows[i].kib,
                      "%s: %u KiB, expected %u", rows[i].kernels,
                      gpu_carveout_kib(&h200, rows[i].ctas, rows[i].per_cta), rows[i].kib);
    /* without the two keys (their defaults): the smallest that holds the resident CTAs */
    cfg_gpu plain = h200;
    plain.carveout_ctas_factor = 1;
    plain.carveout_min_per_cta_bytes = 0;
    ck_assert_uint_eq(gpu_carveout_kib(&plain, 8, 1024), 8);
    ck_assert_uint_eq(gpu_carveout_kib(&plain, 8, 3072), 32);
    ck_assert_uint_eq(gpu_carveout_kib(&plain, 16, 9728), 164);
}
END_TEST

START_TEST(h200_measured_global_load_rows)
{
    for (size_t i = 0; i < sizeof global_rows / sizeof global_rows[0]; i++) {
        const global_row *r = &global_rows[i];
        trace_mem m;
        row_record(r, &m);
        stats s;
        run_one(g, &m, &s);
        const char *w = r->what;
        ck_assert_msg(V(s, INST_GLOBAL_LD) == 1 && V(s, L1_REQ_GLOBAL_LD) == 1, "%s: requests", w);
        ck_assert_msg(V(s, L1_SECT_GLOBAL_LD) == r->sectors, "%s: sectors %" PRIu64, w,
                      V(s, L1_SECT_GLOBAL_LD));
        ck_assert_msg(V(s, L1_SECT_GLOBAL_LD_MISS) == r->sectors && V(s, L1_SECT_GLOBAL_LD_HIT) == 0,
                      "%s: cold misses", w);
        ck_assert_msg(V(s, L1_TAG_WF_GLOBAL_LD) == r->tag_wf, "%s: tag wavefronts %" PRIu64, w,
                      V(s, L1_TAG_WF_GLOBAL_LD));
        ck_assert_msg(V(s, L1_SET_ACCESSES_GLOBAL_LD) == r->l2_req, "%s: set accesses = lines", w);
        ck_assert_msg(V(s, L1_SET_CONFLICTS_GLOBAL_LD) == r->tag_wf - 1, "%s: set conflicts", w);
        ck_assert_msg(V(s, L1_DATA_WF_GLOBAL_LD) == r->data_wf, "%s: data wavefronts %" PRIu64, w,
                      V(s, L1_DATA_WF_GLOBAL_LD));
        if (r->bc >= 0)
            ck_assert_msg(V(s, L1_DATA_BC_GLOBAL_LD) == (uint64_t)r->bc, "%s: bank conflicts %" PRIu64,
                          w, V(s, L1_DATA_BC_GLOBAL_LD));
        ck_assert_msg(V(s, L2_REQ_READ) == r->l2_req && V(s, L2_SECT_READ) == r->l2_sect,
                      "%s: L2 %" PRIu64 " / %" PRIu64, w, V(s, L2_REQ_READ), V(s, L2_SECT_READ));
        ck_assert_msg(V(s, L1_M_READ_SECTORS) == r->l2_sect, "%s: sectors from L2", w);
        /* SASS data bytes: each distinct byte once (a broadcast word is 4 bytes) */
        uint64_t distinct = 0;
        for (int l = 0; l < 32; l++) {
            if (!(m.active_mask >> l & 1u))
                continue;
            bool seen = false;
            for (int j = 0; j < l && !seen; j++)
                seen = (m.active_mask >> j & 1u) && m.addr[j] == m.addr[l];
            distinct += seen ? 0 : r->size;
        }
        ck_assert_msg(V(s, SASS_BYTES_GLOBAL_LD) == distinct, "%s: bytes", w);
        /* cold L2: every 64-byte block a lane touches comes from DRAM whole
         * (l2.fetch_sectors 2, findings §15), each sector a lookup miss */
        uint64_t blocks[64];
        uint32_t n_blocks = 0;
        for (int l = 0; l < 32; l++) {
            if (!(m.active_mask >> l & 1u))
                continue;
            for (uint64_t b = m.addr[l] >> 6; b <= (m.addr[l] + r->size - 1u) >> 6; b++) {
                bool seen = false;
                for (uint32_t j = 0; j < n_blocks && !seen; j++)
                    seen = blocks[j] == b;
                if (!seen)
                    blocks[n_blocks++] = b;
            }
        }
        ck_assert_msg(V(s, DRAM_SECT_READ) == 2u * n_blocks, "%s: DRAM %" PRIu64, w, V(s, DRAM_SECT_READ));
        ck_assert_msg(V(s, L2_SECT_READ_MISS) == 2u * n_blocks, "%s: L2 misses", w);
    }
}
END_TEST

/* §1c / §3.4: the same lines loaded twice; the second load hits: ideal =
 * phases, so stride 128 B gives 31 conflicts on the hit (24 on the miss). */
START_TEST(h200_second_load_hits_and_its_conflicts)
{
    static const struct {
        uint64_t stride;
        uint32_t active;
        uint64_t sect, hit, twf, setconf, dwf, bc, l2sect;
    } rows[] = {
        {128, 32, 64, 32, 16, 14, 64, 55, 32},
        {128, 4, 8, 4, 2, 0, 8, 6, 4},
        {4, 32, 8, 4, 2, 0, 2, 0, 4},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        trace_mem m[2];
        uint32_t mask = rows[i].active == 32 ? 0xffffffffu : (1u << rows[i].active) - 1u;
        test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, mask, A, (int64_t)rows[i].stride);
        m[1] = m[0];
        m[1].pc = 0x20;
        stats s;
        run_kernel(g, m, 2, 1, &s);
        ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD), rows[i].sect);
        ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), rows[i].hit);
        ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_MISS), rows[i].sect - rows[i].hit);
        ck_assert_uint_eq(V(s, L1_TAG_WF_GLOBAL_LD), rows[i].twf);
        ck_assert_uint_eq(V(s, L1_SET_CONFLICTS_GLOBAL_LD), rows[i].setconf);
        ck_assert_uint_eq(V(s, L1_DATA_WF_GLOBAL_LD), rows[i].dwf);
        ck_assert_uint_eq(V(s, L1_DATA_BC_GLOBAL_LD), rows[i].bc);
        ck_assert_uint_eq(V(s, L2_SECT_READ), rows[i].l2sect);
    }
}
END_TEST

/* §3.2: which cache operators let a second identical load hit L1. */
START_TEST(h200_cache_operators)
{
    static const struct {
        trace_cache_op op;
        uint64_t hits, l2_req;
    } rows[] = {
        {TRACE_CACHE_DEFAULT, 4, 1}, {TRACE_CACHE_CA, 4, 1}, {TRACE_CACHE_NC, 4, 1},
        {TRACE_CACHE_CS, 4, 1},      {TRACE_CACHE_CG, 0, 2}, {TRACE_CACHE_LU, 0, 2},
        {TRACE_CACHE_CV, 0, 2},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        trace_mem m[2];
        test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, A, 4);
        m[0].cache_op = (uint8_t)rows[i].op;
        m[1] = m[0];
        stats s;
        run_kernel(g, m, 2, 1, &s);
        ck_assert_msg(V(s, L1_SECT_GLOBAL_LD_HIT) == rows[i].hits, "cache op %d: hits",
                      (int)rows[i].op);
        ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_MISS), 8 - rows[i].hits);
        ck_assert_uint_eq(V(s, L2_REQ_READ), rows[i].l2_req);
        ck_assert_uint_eq(V(s, L1_M_READ_SECTORS), 4 * rows[i].l2_req);
    }
}
END_TEST

/* §3.3: stores write through (one L2 request per line) and update L1, so a
 * later load of the same bytes hits, also for 4 bytes per sector. */
START_TEST(h200_load_after_store_hits)
{
    static const struct {
        int64_t stride;
        uint64_t sectors, l2_req;
    } rows[] = {{4, 4, 1}, {32, 32, 8}};
    for (size_t i = 0; i < 2; i++) {
        trace_mem m[2];
        test_mem(&m[0], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, rows[i].stride);
        test_mem(&m[1], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, rows[i].stride);
        m[1].pc = 0x20;
        stats s;
        run_kernel(g, m, 2, 1, &s);
        ck_assert_uint_eq(V(s, INST_GLOBAL_ST), 1);
        ck_assert_uint_eq(V(s, L1_REQ_GLOBAL_ST), 1);
        ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_ST), rows[i].sectors);
        ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_ST_MISS), rows[i].sectors);
        ck_assert_uint_eq(V(s, L1_M_WRITE_SECTORS), rows[i].sectors);
        ck_assert_uint_eq(V(s, SASS_BYTES_GLOBAL_ST), 128);
        ck_assert_uint_eq(V(s, L2_REQ_WRITE), rows[i].l2_req);
        ck_assert_uint_eq(V(s, L2_SECT_WRITE), rows[i].sectors);
        ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), rows[i].sectors);
        ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_MISS), 0);
        ck_assert_uint_eq(V(s, L2_REQ_READ), 0);
    }
    /* bytes the store did not write are not valid: a neighbour word misses */
    trace_mem m[2];
    test_mem(&m[0], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, 32);
    test_mem(&m[1], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 4, 32);
    stats s;
    run_kernel(g, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_MISS), 32);
    ck_assert_uint_eq(V(s, L2_SECT_READ), 32);
    /* a store to a sector L1 holds is a store hit */
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, 4);
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, 0xffu, W, 4);
    run_kernel(g, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_ST_HIT), 1);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_ST_MISS), 0);
}
END_TEST

/* §3.3: same-address lanes are not merged. */
START_TEST(h200_atomic_rounds)
{
    static const struct {
        trace_kind kind;
        int64_t stride;
        uint64_t l1_sect, l2_req, l2_sect;
    } rows[] = {
        {TRACE_KIND_ATOM, 4, 4, 1, 4},    {TRACE_KIND_ATOM, 0, 32, 32, 32},
        {TRACE_KIND_ATOM, 128, 32, 32, 32}, {TRACE_KIND_RED, 4, 4, 1, 4},
        {TRACE_KIND_RED, 0, 32, 32, 32},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        trace_mem m;
        test_mem(&m, rows[i].kind, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, rows[i].stride);
        stats s;
        run_one(g, &m, &s);
        bool red = rows[i].kind == TRACE_KIND_RED;
        ck_assert_uint_eq(red ? V(s, INST_GLOBAL_RED) : V(s, INST_GLOBAL_ATOM), 1);
        ck_assert_uint_eq(red ? V(s, L1_REQ_GLOBAL_RED) : V(s, L1_REQ_GLOBAL_ATOM), 1);
        ck_assert_uint_eq(red ? V(s, L1_SECT_GLOBAL_RED) : V(s, L1_SECT_GLOBAL_ATOM), rows[i].l1_sect);
        ck_assert_uint_eq(red ? V(s, L2_REQ_RED) : V(s, L2_REQ_ATOM), rows[i].l2_req);
        ck_assert_uint_eq(red ? V(s, L2_SECT_RED) : V(s, L2_SECT_ATOM), rows[i].l2_sect);
        ck_assert_uint_eq(red ? V(s, L2_REQ_ATOM) : V(s, L2_REQ_RED), 0);
    }
    /* two addresses, 16 lanes each: 16 rounds of one line with 2 sectors */
    uint64_t addr[32];
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = W + (l % 2) * 64;
    trace_mem m;
    test_mem_addrs(&m, TRACE_KIND_ATOM, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, addr);
    stats s;
    run_one(g, &m, &s);
    ck_assert_uint_eq(V(s, L2_REQ_ATOM), 16);
    ck_assert_uint_eq(V(s, L2_SECT_ATOM), 32);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_ATOM), 32);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 2);
}
END_TEST

START_TEST(atomics_invalidate_l1_copies)
{
    trace_mem m[3];
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, 4);
    test_mem(&m[1], TRACE_KIND_ATOM, TRACE_SPACE_GLOBAL, 4, 0x1u, W, 4); /* sector 0 only */
    m[2] = m[0];
    stats s;
    run_kernel(g, m, 3, 1, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), 3);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_MISS), 5);
}
END_TEST

/* ---- L2 --------------------------------------------------------------------- */

/* 128 lines, one sector each, read by CTA 0 (SM 0, partition 0) and CTA 1
 * (SM 1, partition 1), twice: each line crosses the fabric once (for the
 * partition that is not its home), is read from DRAM once, and the second
 * pass hits everywhere with no new fabric traffic (§3.5). */
START_TEST(h200_l2_partitions_fabric_and_near_copies)
{
    trace_mem m[16];
    size_t n = 0;
    for (uint32_t pass = 0; pass < 2; pass++)
        for (uint32_t cta = 0; cta < 2; cta++)
            for (uint32_t r = 0; r < 4; r++) {
                /* one line per 4 KiB: 128 lines in 128 interleave granules */
                test_mem(&m[n], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK,
                         A + r * 32 * 4096, 4096);
                m[n].cache_op = TRACE_CACHE_CG; /* L1 out of the way */
                m[n].cta = cta;
                m[n].pc = 0x100 * (pass + 1) + 0x10 * cta;
                n++;
            }
    trace_kernel k;
    test_kernel(&k, "fabric", 2, 32);
    begin_kernel(g, &k, 0);
    for (size_t i = 0; i < 8; i++)
        gpu_mem(g, &m[i]);
    uint32_t npc;
    for (size_t i = 8; i < 16; i++)
        gpu_mem(g, &m[i]);
    stats s;
    gpu_kernel_end(g, &s);
    const gpu_pc_stats *pcs = gpu_pc_breakdown(g, &npc);
    ck_assert_uint_eq(npc, 4);
    /* pcs ascending: 0x100 (pass 1, CTA 0), 0x110, 0x200, 0x210 */
    uint64_t far0 = pcs[0].s.v[STAT_L2_SECT_FABRIC];
    uint64_t far1 = pcs[1].s.v[STAT_L2_SECT_FABRIC];
    /* every miss fetches its 64-byte block (sectors 0 and 1), over the
     * fabric too when far (findings §15) */
    ck_assert_uint_eq(far0 + far1, 256);
    ck_assert_msg(far0 > 64 && far0 < 192, "%" PRIu64 " sectors of 128 lines homed far: expected about half",
                  far0);
    ck_assert_uint_eq(pcs[0].s.v[STAT_L2_SECT_READ_MISS], 256);
    ck_assert_uint_eq(pcs[1].s.v[STAT_L2_SECT_READ_HIT], far0 / 2); /* homed in partition 1 */
    ck_assert_uint_eq(pcs[1].s.v[STAT_L2_SECT_READ_MISS], far1);
    ck_assert_uint_eq(pcs[2].s.v[STAT_L2_SECT_READ_HIT] + pcs[3].s.v[STAT_L2_SECT_READ_HIT], 256);
    ck_assert_uint_eq(pcs[2].s.v[STAT_L2_SECT_FABRIC] + pcs[3].s.v[STAT_L2_SECT_FABRIC], 0);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 256);
    ck_assert_uint_eq(V(s, L2_SECT_FABRIC), 256);
}
END_TEST

/* Store combining: the x and y stores of an array of {float x, y} (two
 * STG.32 at stride 8 by one warp) reach L2 as one write of whole sectors,
 * as measured on simpleMathAoS (263,560 L2 write sectors for 524,288 L1 store
 * sectors); the same two stores by two different warps stay two writes. */
START_TEST(h200_consecutive_stores_of_a_warp_combine)
{
    trace_mem m[2];
    stats s;
    test_mem(&m[0], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, 8);
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 4, 8);
    m[1].pc = 0x20;
    run_kernel(g, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_ST), 16);
    ck_assert_uint_eq(V(s, L2_SECT_WRITE), 8);
    ck_assert_uint_eq(V(s, L2_REQ_WRITE), 2);
    ck_assert_uint_eq(V(s, L1_M_WRITE_SECTORS), 8);
    ck_assert_uint_eq(V(s, SASS_BYTES_GLOBAL_ST), 256);
    m[1].warp = 1;
    run_kernel(g, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, L2_SECT_WRITE), 16);
    ck_assert_uint_eq(V(s, L2_REQ_WRITE), 4);
}
END_TEST

/* A write goes home and drops the copy another partition held. */
START_TEST(h200_l2_write_drops_far_copies)
{
    /* find a line homed in partition 0, read it from CTA 1 (partition 1),
     * write it from CTA 0, read it again from CTA 1 */
    trace_mem m[4];
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, 0x1u, W, 0);
    m[0].cache_op = TRACE_CACHE_CG;
    m[0].cta = 1;
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, 0x1u, W, 0);
    m[1].cta = 0;
    m[1].pc = 0x20;
    /* CTA 0's next instruction ends its run of stores: the write leaves for L2 */
    test_mem(&m[2], TRACE_KIND_LD, TRACE_SPACE_SHARED, 4, 0x1u, 0, 0);
    m[2].cta = 0;
    m[2].pc = 0x40;
    m[3] = m[0];
    m[3].pc = 0x30;
    stats s;
    uint64_t line = W;
    for (int tries = 0; tries < 64; tries++, line += 128) {
        m[0].addr[0] = m[1].addr[0] = m[3].addr[0] = line;
        run_kernel(g, m, 4, 2, &s);
        uint32_t n;
        const gpu_pc_stats *pcs = gpu_pc_breakdown(g, &n);
        if (pcs[0].s.v[STAT_L2_SECT_FABRIC] == 0)
            continue; /* homed in partition 1: try the next line */
        ck_assert_uint_eq(pcs[1].s.v[STAT_L2_SECT_FABRIC], 0); /* CTA 0 writes at home */
        ck_assert_uint_eq(pcs[1].s.v[STAT_L2_SECT_WRITE_HIT], 1);
        /* the copy was dropped: the read fetches sectors 0-1 from home (findings §15) */
        ck_assert_uint_eq(pcs[2].s.v[STAT_L2_SECT_READ_MISS], 2);
        ck_assert_uint_eq(pcs[2].s.v[STAT_L2_SECT_FABRIC], 2);
        ck_assert_uint_eq(pcs[2].s.v[STAT_DRAM_SECT_READ], 0);    /* home has it, dirty */
        return;
    }
    ck_abort_msg("no line homed in partition 0 among 64");
}
END_TEST

/* The H200 with an L2 of one set of `ways` lines, in one partition. */
static gpu *one_set_h200_recent(uint32_t ways, uint32_t dirty_ways, uint32_t dirty_recent)
{
    cfg_gpu c;
    test_cfg_h200(&c);
    c.l2_partitions = 1;
    c.l2_slices = 1;
    c.l2_sets_per_slice = 1;
    c.l2_ways = ways;
    c.l2_size_bytes = 128u * ways;
    c.l2_dirty_ways = dirty_ways;
    c.l2_dirty_recent_ways = dirty_recent;
    return gpu_create(&c);
}

static gpu *one_set_h200(uint32_t ways, uint32_t dirty_ways)
{
    return one_set_h200_recent(ways, dirty_ways, 0);
}


/* §3.3 and the H200 suite: with ECC a partly written sector is completed
 * from DRAM when it leaves L2 (ECC covers whole sectors), not when it is
 * written: sectors that later writes complete cost no DRAM read. An L2 of one
 * line makes the second line evict the first. */
START_TEST(h200_ecc_fills_partial_sectors_at_eviction)
{
    gpu *tiny = one_set_h200(1, 0);
    trace_mem m[2];
    stats s;
    /* 4 B in each of the 4 sectors of line W, then line W + 128 evicts it */
    test_mem(&m[0], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, 0xfu, W, 32);
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 128, 4);
    run_kernel(tiny, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, L2_SECT_WRITE_HIT), 8); /* write-validate: writes count as hits */
    ck_assert_uint_eq(V(s, L2_SECT_WRITE_MISS), 0);
    ck_assert_uint_eq(V(s, L2_SECT_ECC), 4);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 4);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 4);
    /* two half-sector writes complete the sector before it leaves: no fill */
    trace_mem three[3];
    test_mem(&three[0], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 16, 0x1u, W, 0);
    test_mem(&three[1], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 16, 0x1u, W + 16, 0);
    test_mem(&three[2], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 128, 4);
    run_kernel(tiny, three, 3, 1, &s);
    ck_assert_uint_eq(V(s, L2_SECT_ECC), 0);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 0);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 1);
    gpu_destroy(tiny);
}
END_TEST

/* l2.dirty_ways (findings §3b, §3h: the H200 keeps ~26 MiB dirty, a limit per
 * slice, not per L2): a set holding more dirty lines than dirty_ways writes
 * its least recently used dirty line back and keeps it, clean. One set of 4
 * ways, at most 2 dirty. */
START_TEST(a_set_keeps_at_most_dirty_ways_dirty_lines)
{
    gpu *tiny = one_set_h200(4, 2);
    trace_mem m[6];
    stats s;
    test_mem(&m[0], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, 4);        /* A */
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 128, 4);  /* B */
    test_mem(&m[2], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 256, 4);  /* C: A written back */
    test_mem(&m[3], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, 4);        /* A: still there */
    m[3].cache_op = TRACE_CACHE_CG; /* past L1, which holds the stores' data */
    test_mem(&m[4], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 384, 4);  /* D: B written back */
    test_mem(&m[5], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 512, 4);  /* E evicts B, clean;
                                                                                           * C written back */
    run_kernel(tiny, m, 6, 1, &s);
    ck_assert_uint_eq(V(s, L2_SECT_READ), 4);
    ck_assert_uint_eq(V(s, L2_SECT_READ_HIT), 4);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 0);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 12);
    gpu_destroy(tiny);
    /* without the limit the same set writes back only B, which E evicts */
    tiny = one_set_h200(4, 0);
    run_kernel(tiny, m, 6, 1, &s);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 4);
    gpu_destroy(tiny);
}
END_TEST

/* l2.dirty_recent_ways (findings §3h: in one kernel the H200 writes dirty data
 * back early while clean data streams in beside it, but not dirty data an
 * earlier kernel left): a write cleans its set's dirty lines that are not
 * among its N most recent, and keeps them. One set of 4 ways, N = 2. */
START_TEST(a_write_cleans_its_set_s_older_dirty_lines)
{
    gpu *tiny = one_set_h200_recent(4, 0, 2);
    trace_mem m[6];
    stats s;
    test_mem(&m[0], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, 4);       /* A */
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 128, 4); /* B */
    test_mem(&m[2], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 256, 4); /* C read: */
    m[2].cache_op = TRACE_CACHE_CG; /* A third: no write, nothing cleaned */
    test_mem(&m[3], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 384, 4); /* D: A and B */
    test_mem(&m[4], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W, 4);       /* written back, */
    m[4].cache_op = TRACE_CACHE_CG;                                                    /* kept: A hits */
    test_mem(&m[5], TRACE_KIND_LD, TRACE_SPACE_SHARED, 4, 0x1u, 0, 0);                 /* (ends D's run) */
    /* stores wait in store combining until the warp's next record: D reaches
     * L2 at m[4], before A's read */
    run_kernel(tiny, m, 6, 1, &s);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 8);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 4); /* C's miss only */
    ck_assert_uint_eq(V(s, L2_SECT_READ_HIT), 4);
    gpu_destroy(tiny);
}
END_TEST

/* findings §3h (kernels/probes/wcopy.exp: fill 65536 1 0 0 1): one SM writes
 * 256 KiB, half of it homed in the other partition (4,096 of 8,192 write
 * sectors cross the fabric), and reads it back past L1: all 8,192 read
 * sectors hit in its near partition, none crosses the fabric. A write from
 * the far side leaves a clean copy near, as a read does. */
START_TEST(a_far_write_leaves_a_copy_near)
{
    enum { LINES = 64 };
    trace_mem m[2 * LINES + 1];
    for (uint32_t i = 0; i < LINES; i++) {
        test_mem(&m[i], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 128ull * i, 4);
        test_mem(&m[LINES + 1 + i], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 128ull * i, 4);
        m[LINES + 1 + i].cache_op = TRACE_CACHE_CG;
        m[LINES + 1 + i].pc = 0x30;
    }
    /* the warp's next instruction ends its run of stores: they leave for L2 */
    test_mem(&m[LINES], TRACE_KIND_LD, TRACE_SPACE_SHARED, 4, 0x1u, 0, 0);
    m[LINES].pc = 0x20;
    stats s;
    run_kernel(g, m, 2 * LINES + 1, 1, &s);
    uint32_t n;
    const gpu_pc_stats *pcs = gpu_pc_breakdown(g, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_gt(pcs[0].s.v[STAT_L2_SECT_FABRIC], 0); /* some lines homed far */
    ck_assert_uint_lt(pcs[0].s.v[STAT_L2_SECT_FABRIC], 4u * LINES);
    ck_assert_uint_eq(pcs[2].s.v[STAT_L2_SECT_READ], 4u * LINES);
    ck_assert_uint_eq(pcs[2].s.v[STAT_L2_SECT_READ_HIT], 4u * LINES);
    ck_assert_uint_eq(pcs[2].s.v[STAT_L2_SECT_FABRIC], 0);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 0);
}
END_TEST

/* l2_div32, the page placement's division by multiply: exact for every
 * 32-bit numerator, checked against '/' for divisors up to the largest slot
 * count the config allows (2^22) on a spread of numerators. */
START_TEST(the_placement_divides_exactly)
{
    static const uint32_t ds[] = {2, 3, 5, 7, 96, 97, 1536, 4095, 65536, 99991, 1u << 22};
    uint64_t seed = 1;
    for (size_t i = 0; i < sizeof ds / sizeof ds[0]; i++) {
        uint64_t inv = UINT64_MAX / ds[i] + 1u;
        for (uint32_t k = 0; k < 100000; k++) {
            seed = seed * 6364136223846793005ull + 1442695040888963407ull;
            uint32_t x = k < 4 ? (uint32_t)(UINT32_MAX - k) : (uint32_t)(seed >> 32);
            ck_assert_msg(l2_div32(x, inv) == x / ds[i], "%u / %u", x, ds[i]);
        }
    }
}
END_TEST

/* l2.placement = page (findings §3h): a 2 MiB page's 16,384 lines on distinct
 * sets of the H200's 96 slices (of 256 sets), 10 or 11 granules of 16 on each
 * slice, half homed in each partition; another page is arranged otherwise. */
START_TEST(a_page_spreads_over_slices_and_sets)
{
    l2_pager p;
    l2_pager_init(&p, 2, 48, 256);
    ck_assert_uint_eq(p.slots, 96u * 16u);
    static uint8_t used[2][48 * 256];
    uint32_t on_slice[96], homes[2] = {0, 0}, same = 0;
    for (uint64_t page = 0; page < 3; page++) {
        memset(used, 0, sizeof used);
        memset(on_slice, 0, sizeof on_slice);
        homes[0] = homes[1] = 0;
        for (uint64_t i = 0; i < 16384; i++) {
            uint64_t line = (0x7f0000000000ull >> 7) + page * 16384 + i;
            l2_page_place pp = l2_page_place_of(&p, line);
            ck_assert_uint_lt(pp.home, 2);
            ck_assert_uint_lt(pp.slice, 48);
            ck_assert_uint_lt(pp.group, 16);
            uint32_t set = pp.slice * 256 + pp.group * 16 + (uint32_t)(line & 15u);
            ck_assert_msg(!used[pp.home][set], "page %llu line %llu: a set taken twice",
                          (unsigned long long)page, (unsigned long long)i);
            used[pp.home][set] = 1;
            on_slice[pp.home * 48 + pp.slice]++;
            homes[pp.home]++;
            if (page == 1) { /* page 1's place of each line of page 0's offset */
                l2_page_place q = l2_page_place_of(&p, line - 16384);
                same += q.home == pp.home && q.slice == pp.slice && q.group == pp.group;
            }
        }
        for (uint32_t sl = 0; sl < 96; sl++)
            ck_assert_msg(on_slice[sl] == 160 || on_slice[sl] == 176, "page %llu slice %u: %u lines",
                          (unsigned long long)page, sl, on_slice[sl]);
        ck_assert_uint_eq(homes[0], 8192);
        ck_assert_uint_eq(homes[1], 8192);
    }
    ck_assert_uint_lt(same, 16384 / 8);
}
END_TEST

/* 4 MB written: it fits in L2, so no DRAM writes, during the kernel or at
 * its end (measured); the next kernel's cold start drops the dirty data
 * uncounted. */
START_TEST(h200_no_dram_writes_at_kernel_end)
{
    enum { N = 4 * 1024 * 1024 / 128 };
    trace_mem *m = malloc(N * sizeof *m);
    for (uint32_t i = 0; i < N; i++)
        test_mem(&m[i], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, W + 128ull * i, 4);
    stats s;
    run_kernel(g, m, N, 1, &s);
    ck_assert_uint_eq(V(s, L2_SECT_WRITE), 4u * N);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 0);
    run_one(g, &m[0], &s);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 0);
    free(m);
}
END_TEST

/* ---- K20c ------------------------------------------------------------------- */

START_TEST(k20c_bypasses_global_loads_caches_local)
{
    cfg_gpu k20;
    test_cfg_k20c(&k20);
    gpu *kg = gpu_create(&k20);
    trace_mem m[2];
    stats s;
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, A, 4);
    m[1] = m[0];
    run_kernel(kg, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), 0);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_MISS), 8);
    ck_assert_uint_eq(V(s, L2_REQ_READ), 2);
    ck_assert_uint_eq(V(s, L2_SECT_READ_HIT), 4);
    ck_assert_uint_eq(V(s, L2_SECT_FABRIC), 0); /* one partition */
    /* ld.ca opts in */
    m[0].cache_op = m[1].cache_op = TRACE_CACHE_CA;
    run_kernel(kg, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), 4);
    /* local memory is cached: a spill and its reload, and a second reload */
    trace_mem l[3];
    test_mem(&l[0], TRACE_KIND_ST, TRACE_SPACE_LOCAL, 4, TRACE_FULL_MASK, 0xfffa40, 0);
    test_mem(&l[1], TRACE_KIND_LD, TRACE_SPACE_LOCAL, 4, TRACE_FULL_MASK, 0xfffa40, 0);
    l[2] = l[1];
    run_kernel(kg, l, 3, 1, &s);
    ck_assert_uint_eq(V(s, INST_LOCAL_ST), 1);
    ck_assert_uint_eq(V(s, INST_LOCAL_LD), 2);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_LD_HIT), 8);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_LD_MISS), 0);
    /* global stores invalidate: a cached line is dropped by a store */
    trace_mem st[3];
    test_mem(&st[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, A, 4);
    st[0].cache_op = TRACE_CACHE_CA;
    test_mem(&st[1], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, 0x1u, A, 4);
    st[2] = st[0];
    run_kernel(kg, st, 3, 1, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_ST_HIT), 1);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), 0);
    /* no ECC: a partial write is kept with its byte mask, a later read of the
     * sector's other bytes reads DRAM once */
    trace_mem p[2];
    test_mem(&p[0], TRACE_KIND_ST, TRACE_SPACE_GLOBAL, 4, 0x1u, W, 0);
    test_mem(&p[1], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, 0x1u, W + 8, 0);
    run_kernel(kg, p, 2, 1, &s);
    ck_assert_uint_eq(V(s, L2_SECT_ECC), 0);
    ck_assert_uint_eq(V(s, L2_SECT_READ_MISS), 1);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 1);
    gpu_destroy(kg);
}
END_TEST

/* Dirty sectors evicted during the kernel are the DRAM writes. */
START_TEST(k20c_dirty_evictions_write_dram)
{
    cfg_gpu k20;
    test_cfg_k20c(&k20);
    l2 *c = l2_create(&k20);
    enum { N = 16384 }; /* 2 MiB of whole lines into a 1.25 MiB L2 */
    const uint32_t full[4] = {0xffffffffu, 0xffffffffu, 0xffffffffu, 0xffffffffu};
    stats s;
    stats_clear(&s);
    for (uint64_t i = 0; i < N; i++)
        l2_write(c, 0, (W >> 7) + i, 0xf, full, &s);
    /* every line not resident at the end was evicted dirty, 4 sectors each */
    uint64_t resident = l2_count_lines(c, 0);
    ck_assert_uint_le(resident, 10240); /* 10 slices x 64 sets x 16 ways */
    ck_assert_uint_gt(resident, 10240 * 9 / 10);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 4u * (N - resident));
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 0);
    ck_assert_uint_eq(V(s, L2_REQ_WRITE), N);
    /* a clean line pushes out nothing */
    l2_clear(c);
    stats_clear(&s);
    for (uint64_t i = 0; i < N; i++)
        l2_read(c, 0, (W >> 7) + i, 0xf, &s);
    ck_assert_uint_eq(V(s, DRAM_SECT_WRITE), 0);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 4u * N);
    l2_destroy(c);
}
END_TEST

/* Findings §15 (kernels/l2fetch.cu, traces/h200-probes/l2fetch-h100): one
 * sector of each of 8,192 cold lines read, then another sector of each. At
 * the H200's 64 bytes the first read fetches sectors 0-1 (two lookup
 * misses, two DRAM sectors each: measured 16,386 and 16,504 for 8,193
 * reads, the background included), sector 1 then hits (8,192), sector 2
 * misses as sector 0 did (32,770 misses for both phases); at 32 bytes
 * every sector read misses alone (8,193 and 8,312), at 128 the whole line
 * comes (32,772). */
START_TEST(l2_fetch_granularity_measured)
{
    static const struct {
        uint32_t fetch, second; /* fetch_sectors, the sector of the second phase */
        uint64_t miss, hit, dram;
    } rows[] = {
        {2, 1, 16384, 8192, 16384}, {2, 2, 32768, 0, 32768}, {1, 1, 16384, 0, 16384},
        {1, 2, 16384, 0, 16384},    {4, 1, 32768, 8192, 32768}, {4, 2, 32768, 8192, 32768},
    };
    enum { N = 8192 };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        cfg_gpu c;
        test_cfg_h200(&c);
        c.l2_fetch_sectors = rows[i].fetch;
        l2 *l = l2_create(&c);
        stats s;
        stats_clear(&s);
        for (uint64_t n = 0; n < N; n++)
            l2_read(l, 0, (W >> 7) + n, 0x1u, &s);
        ck_assert_uint_eq(V(s, L2_SECT_READ_MISS), (uint64_t)N * rows[i].fetch);
        ck_assert_uint_eq(V(s, DRAM_SECT_READ), (uint64_t)N * rows[i].fetch);
        for (uint64_t n = 0; n < N; n++)
            l2_read(l, 0, (W >> 7) + n, 1u << rows[i].second, &s);
        ck_assert_msg(V(s, L2_SECT_READ) == 2 * N && V(s, L2_SECT_READ_MISS) == rows[i].miss &&
                          V(s, L2_SECT_READ_HIT) == rows[i].hit && V(s, DRAM_SECT_READ) == rows[i].dram,
                      "fetch %u, sectors 0 then %u: miss %" PRIu64 " hit %" PRIu64 " dram %" PRIu64,
                      rows[i].fetch, rows[i].second, V(s, L2_SECT_READ_MISS), V(s, L2_SECT_READ_HIT),
                      V(s, DRAM_SECT_READ));
        /* the fetch crosses the fabric whole when the line is homed far */
        ck_assert_uint_eq(V(s, L2_SECT_FABRIC) % rows[i].fetch, 0);
        l2_destroy(l);
    }
}
END_TEST

/* l2_fetch_blocks: the aligned blocks that hold a mask's sectors. */
START_TEST(l2_fetch_blocks_are_aligned)
{
    ck_assert_uint_eq(l2_fetch_blocks(0x1u, 1, 4), 0x1u);
    ck_assert_uint_eq(l2_fetch_blocks(0x1u, 2, 4), 0x3u);
    ck_assert_uint_eq(l2_fetch_blocks(0x2u, 2, 4), 0x3u);
    ck_assert_uint_eq(l2_fetch_blocks(0x4u, 2, 4), 0xcu);
    ck_assert_uint_eq(l2_fetch_blocks(0x6u, 2, 4), 0xfu);
    ck_assert_uint_eq(l2_fetch_blocks(0x8u, 4, 4), 0xfu);
    ck_assert_uint_eq(l2_fetch_blocks(0x0u, 2, 4), 0x0u);
    ck_assert_uint_eq(l2_fetch_blocks(0x2u, 2, 2), 0x3u); /* a line of two sectors */
}
END_TEST

/* ---- placement, carveout, errors ---------------------------------------------- */

START_TEST(carveout_and_l1_capacity)
{
    trace_kernel k;
    test_kernel(&k, "nosmem", 1, 32);
    begin_kernel(g, &k, 0);
    const gpu_kernel_info *info = gpu_kernel_info_get(g);
    /* 32 CTAs x 1 KiB reserved -> 32 KiB carveout -> 224 KiB L1 (§1c: 216-224) */
    ck_assert_uint_eq(info->ctas_per_sm, 32);
    ck_assert_uint_eq(info->carveout_kib, 32);
    ck_assert_uint_eq(info->l1_kib, 224);
    stats s;
    gpu_kernel_end(g, &s);

    k.smem_dynamic_bytes = 48 * 1024; /* 4 CTAs x 49 KiB = 196 KiB */
    k.block[0] = 256;
    begin_kernel(g, &k, 0);
    ck_assert_uint_eq(info->ctas_per_sm, 4);
    ck_assert_uint_eq(info->carveout_kib, 196);
    ck_assert_uint_eq(info->l1_kib, 60);
    gpu_kernel_end(g, &s);

    test_kernel(&k, "regs", 1, 1024); /* 64 regs x 1024 threads: 1 CTA */
    k.regs_per_thread = 64;
    begin_kernel(g, &k, 0);
    ck_assert_uint_eq(info->ctas_per_sm, 1);
    ck_assert_uint_eq(info->carveout_kib, 8);
    ck_assert_uint_eq(info->l1_kib, 248);
    gpu_kernel_end(g, &s);

    test_kernel(&k, "odd", 1, 33); /* threads round up to whole warps: 64 */
    begin_kernel(g, &k, 0);
    ck_assert_uint_eq(info->ctas_per_sm, 32);
    gpu_kernel_end(g, &s);

    cfg_gpu k20;
    test_cfg_k20c(&k20);
    gpu *kg = gpu_create(&k20);
    test_kernel(&k, "k20", 1, 128);
    begin_kernel(kg, &k, 0);
    ck_assert_uint_eq(gpu_kernel_info_get(kg)->ctas_per_sm, 16);
    ck_assert_uint_eq(gpu_kernel_info_get(kg)->carveout_kib, 16);
    ck_assert_uint_eq(gpu_kernel_info_get(kg)->l1_kib, 48);
    gpu_kernel_end(kg, &s);
    gpu_destroy(kg);
}
END_TEST

/* The L1 really shrinks: 60 KiB holds 480 lines, not 1,536. */
START_TEST(l1_capacity_follows_the_carveout)
{
    enum { K = 1536 };
    trace_mem *m = malloc(2 * K * sizeof *m);
    for (uint32_t i = 0; i < 2 * K; i++)
        test_mem(&m[i], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, 0x1u, A + 128ull * (i % K), 0);
    trace_kernel k;
    stats s;
    test_kernel(&k, "big", 1, 256);
    begin_kernel(g, &k, 0);
    for (uint32_t i = 0; i < 2 * K; i++)
        gpu_mem(g, &m[i]);
    gpu_kernel_end(g, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), K);
    k.smem_dynamic_bytes = 48 * 1024;
    begin_kernel(g, &k, 0);
    for (uint32_t i = 0; i < 2 * K; i++)
        gpu_mem(g, &m[i]);
    gpu_kernel_end(g, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), 0); /* LRU over 3x capacity */
    free(m);
}
END_TEST

START_TEST(kernels_that_cannot_run_are_refused)
{
    trace_kernel k;
    err_info e;
    test_kernel(&k, "fat_regs", 1, 1024);
    k.regs_per_thread = 128;
    err_clear(&e);
    ck_assert_int_eq(gpu_kernel_begin(g, &k, 0, &e), -1);
    ck_assert_msg(strstr(e.msg, "fat_regs") && strstr(e.msg, "registers"), "%s", e.msg);
    test_kernel(&k, "fat_smem", 1, 32);
    k.smem_dynamic_bytes = 228 * 1024; /* + 1 KiB reserved > 228 KiB */
    err_clear(&e);
    ck_assert_int_eq(gpu_kernel_begin(g, &k, 0, &e), -1);
    ck_assert_msg(strstr(e.msg, "fat_smem") && strstr(e.msg, "shared memory"), "%s", e.msg);
    k.smem_dynamic_bytes = 227 * 1024; /* the opt-in maximum fits */
    begin_kernel(g, &k, 0);
    ck_assert_uint_eq(gpu_kernel_info_get(g)->carveout_kib, 228);
    ck_assert_uint_eq(gpu_kernel_info_get(g)->l1_kib, 28);
    stats s;
    gpu_kernel_end(g, &s);
}
END_TEST

/* Recorded SM ids are used only when the trace's GPU has as many SMs. */
START_TEST(cta_placement_from_the_trace)
{
    trace_mem m[2];
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, A, 4);
    m[1] = m[0];
    m[0].sm = 5;
    m[1].sm = 6;
    trace_kernel k;
    test_kernel(&k, "placed", 1, 32);
    stats s;
    begin_kernel(g, &k, 132); /* SMs 5 and 6: separate L1s */
    gpu_mem(g, &m[0]);
    gpu_mem(g, &m[1]);
    ck_assert(gpu_kernel_info_get(g)->trace_sms);
    gpu_kernel_end(g, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), 0);
    begin_kernel(g, &k, 108); /* another GPU: CTA 0 -> SM 0 for both */
    gpu_mem(g, &m[0]);
    gpu_mem(g, &m[1]);
    ck_assert(!gpu_kernel_info_get(g)->trace_sms);
    gpu_kernel_end(g, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), 4);
}
END_TEST

/* cold_caches_per_kernel = false keeps L2's data for the next kernel; L1
 * starts every kernel empty either way (findings §3f, §3g: the H200 finds no
 * global line of an earlier launch in L1). */
START_TEST(warm_caches_when_not_cold_per_kernel)
{
    cfg_gpu c = h200;
    c.cold_caches_per_kernel = false;
    gpu *wg = gpu_create(&c);
    trace_mem m;
    stats s;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, A, 4);
    run_one(wg, &m, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_MISS), 4);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 4);
    run_one(wg, &m, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_HIT), 0);
    ck_assert_uint_eq(V(s, L2_SECT_READ_HIT), 4);
    ck_assert_uint_eq(V(s, DRAM_SECT_READ), 0);
    run_one(g, &m, &s);
    run_one(g, &m, &s);
    ck_assert_uint_eq(V(s, L2_SECT_READ_HIT), 0); /* the H200 config is cold */
    gpu_destroy(wg);
}
END_TEST

/* ---- local memory ------------------------------------------------------------- */

START_TEST(local_memory_is_interleaved_per_lane)
{
    trace_mem m;
    stats s;
    /* one offset in all lanes: 32 adjacent words, one line */
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_LOCAL, 4, TRACE_FULL_MASK, 0xfffa40, 0);
    run_one(g, &m, &s);
    ck_assert_uint_eq(V(s, L1_REQ_LOCAL_LD), 1);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_LD), 4);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_LD_MISS), 4);
    ck_assert_uint_eq(V(s, L2_REQ_READ), 1);
    ck_assert_uint_eq(V(s, L1_M_READ_SECTORS), 4);
    ck_assert_uint_eq(V(s, L1_DATA_WF_GLOBAL_LD), 1);
    ck_assert_uint_eq(V(s, L1_REQ_GLOBAL_LD), 0);
    /* 16 bytes per lane: 4 words, 4 lines, one wavefront per word */
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_LOCAL, 16, TRACE_FULL_MASK, 0x100, 0);
    run_one(g, &m, &s);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_LD), 16);
    ck_assert_uint_eq(V(s, L2_REQ_READ), 4);
    ck_assert_uint_eq(V(s, L1_DATA_WF_GLOBAL_LD), 4);
    /* 8 bytes: 2 words: 2 lines */
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_LOCAL, 8, TRACE_FULL_MASK, 0x100, 0);
    run_one(g, &m, &s);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_LD), 8);
    ck_assert_uint_eq(V(s, L2_REQ_READ), 2);
    /* two warps, same offset: private windows, no sharing */
    trace_mem w[2];
    test_mem(&w[0], TRACE_KIND_LD, TRACE_SPACE_LOCAL, 4, TRACE_FULL_MASK, 0x40, 0);
    w[1] = w[0];
    w[1].warp = 1;
    trace_kernel k;
    test_kernel(&k, "local2", 1, 64);
    begin_kernel(g, &k, 0);
    gpu_mem(g, &w[0]);
    gpu_mem(g, &w[1]);
    gpu_kernel_end(g, &s);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_LD_MISS), 8);
    ck_assert_uint_eq(V(s, L2_REQ_READ), 2);
    /* a store then a load: write-through, then a hit */
    trace_mem sl[2];
    test_mem(&sl[0], TRACE_KIND_ST, TRACE_SPACE_LOCAL, 4, TRACE_FULL_MASK, 0x40, 0);
    test_mem(&sl[1], TRACE_KIND_LD, TRACE_SPACE_LOCAL, 4, TRACE_FULL_MASK, 0x40, 0);
    run_kernel(g, sl, 2, 1, &s);
    ck_assert_uint_eq(V(s, L1_REQ_LOCAL_ST), 1);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_ST), 4);
    ck_assert_uint_eq(V(s, L2_REQ_WRITE), 1);
    ck_assert_uint_eq(V(s, L1_M_WRITE_SECTORS), 4);
    ck_assert_uint_eq(V(s, L1_SECT_LOCAL_LD_HIT), 4);
}
END_TEST

/* ---- instruction classes and per-PC counters ------------------------------------ */

/* A shared atomic's cost follows its SASS (smem_atomic_serializes): 32 lanes
 * on one word are 32 wavefronts for ATOMS.ADD (hardware-facts §2.2) and one
 * for ATOMS.POPC.INC (findings §9, histogram_skewed); a PC the kernel's table
 * does not name serialises. */
START_TEST(shared_atomic_cost_follows_the_sass)
{
    trace_pc_info pcs[2] = {{.pc = 0x10, .sass = (char *)"ATOMS.POPC.INC.32 RZ, [R4+UR4]", .file = -1},
                            {.pc = 0x20, .sass = (char *)"@P0 ATOMS.ADD R5, [R4+UR4], R6", .file = -1}};
    trace_kernel k;
    test_kernel(&k, "k", 1, 32);
    k.n_pcs = 2;
    k.pcs = pcs;
    trace_mem m[3];
    for (int i = 0; i < 3; i++)
        test_mem(&m[i], TRACE_KIND_ATOM, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0x40, 0);
    m[0].pc = 0x10;
    m[1].pc = 0x20;
    m[2].pc = 0x30;
    uint64_t expect[3] = {1, 32, 32};
    for (int i = 0; i < 3; i++) {
        stats s;
        begin_kernel(g, &k, 0);
        gpu_mem(g, &m[i]);
        gpu_kernel_end(g, &s);
        ck_assert_uint_eq(V(s, SMEM_WF_ATOM), expect[i]);
        ck_assert_uint_eq(V(s, SMEM_BC_ATOM), expect[i] - 1u);
    }
    ck_assert(!smem_atomic_serializes("  @!P1 ATOMS.POPC.INC.32 RZ, [R4]"));
    ck_assert(smem_atomic_serializes("@P0 ATOMS.ADD R5, [R4+UR4], R6"));
    ck_assert(smem_atomic_serializes(NULL));
    ck_assert(smem_atomic_serializes(""));
    ck_assert(smem_atomic_serializes("ATOMS.CAS R1, [R2], R3, R4"));
}
END_TEST

/* ldmatrix and stmatrix, recorded as 16-byte shared loads and stores, count
 * as op_ldsm / op_shared_stsm instructions and not as op_shared_ld / st
 * (wmma_gemm: 32,768 LDSM, op_shared_ld 0; findings §9); their wavefronts
 * are shared loads' and stores'. The PC's SASS decides. */
START_TEST(ldsm_and_stsm_are_instruction_classes_of_their_own)
{
    trace_pc_info pcs[3] = {{.pc = 0x10, .sass = (char *)"LDSM.16.M88.4 R4, [R2]", .file = -1},
                            {.pc = 0x20, .sass = (char *)"@P0 STSM.16.M88.4 [R2], R4", .file = -1},
                            {.pc = 0x30, .sass = (char *)"LDS.128 R4, [R2]", .file = -1}};
    trace_kernel k;
    test_kernel(&k, "k", 1, 32);
    k.n_pcs = 3;
    k.pcs = pcs;
    trace_mem m[3];
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_SHARED, 16, TRACE_FULL_MASK, 0, 16);
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_SHARED, 16, TRACE_FULL_MASK, 0, 16);
    test_mem(&m[2], TRACE_KIND_LD, TRACE_SPACE_SHARED, 16, TRACE_FULL_MASK, 0, 16);
    m[0].pc = 0x10;
    m[1].pc = 0x20;
    m[2].pc = 0x30;
    stats s;
    begin_kernel(g, &k, 0);
    for (int i = 0; i < 3; i++)
        gpu_mem(g, &m[i]);
    gpu_kernel_end(g, &s);
    ck_assert_uint_eq(V(s, INST_LDSM), 1);
    ck_assert_uint_eq(V(s, INST_STSM), 1);
    ck_assert_uint_eq(V(s, INST_SHARED_LD), 1); /* the LDS.128 */
    ck_assert_uint_eq(V(s, INST_SHARED_ST), 0);
    ck_assert_uint_eq(V(s, SMEM_WF_LD), 4 + 4);
    ck_assert_uint_eq(V(s, SMEM_WF_ST), 4);
    ck_assert_int_eq(gpu_inst_kind_of(NULL), GPU_INST_PLAIN);
    ck_assert_int_eq(gpu_inst_kind_of(" @!P2 LDSM.16.MT88.4 R8, [R3]"), GPU_INST_LDSM);
}
END_TEST

START_TEST(generic_and_ldgsts_instruction_counts)
{
    trace_mem m[4];
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, A, 4);
    m[0].flags = TRACE_MEM_GENERIC;
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0, 4);
    m[1].flags = TRACE_MEM_GENERIC;
    test_mem(&m[2], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 16, TRACE_FULL_MASK, A + 4096, 16);
    m[2].flags = TRACE_MEM_LDGSTS;
    m[2].cache_op = TRACE_CACHE_CA;
    test_mem(&m[3], TRACE_KIND_ST, TRACE_SPACE_SHARED, 16, TRACE_FULL_MASK, 0, 16);
    m[3].flags = TRACE_MEM_LDGSTS;
    stats s;
    run_kernel(g, m, 4, 1, &s);
    ck_assert_uint_eq(V(s, INST_GENERIC_LD), 1);
    ck_assert_uint_eq(V(s, INST_GENERIC_ST), 1);
    /* the SASS counters' share: by the space the addresses fell in */
    ck_assert_uint_eq(V(s, INST_GENERIC_LD_GLOBAL), 1);
    ck_assert_uint_eq(V(s, INST_GENERIC_ST_SHARED), 1);
    ck_assert_uint_eq(V(s, INST_GENERIC_ST_GLOBAL), 0);
    ck_assert_int_eq(gpu_sass_generic_part(STAT_INST_GLOBAL_ST), STAT_INST_GENERIC_ST_GLOBAL);
    ck_assert_int_eq(gpu_sass_generic_part(STAT_INST_LDGSTS), STAT_COUNT);
    ck_assert_int_eq(gpu_generic_resolved(TRACE_SPACE_LOCAL, TRACE_KIND_ATOM), STAT_COUNT);
    ck_assert_uint_eq(V(s, INST_GLOBAL_LD), 0);
    ck_assert_uint_eq(V(s, INST_SHARED_ST), 0);
    ck_assert_uint_eq(V(s, INST_LDGSTS), 1);
    /* the generic load's path is global; the cp.async's global half is a
     * global load for L1's tag stage too (findings §9: copyAsync_ca4/_cg16) */
    ck_assert_uint_eq(V(s, L1_REQ_GLOBAL_LD), 2);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD), 4 + 16);
    ck_assert_uint_eq(V(s, L1_SET_ACCESSES_GLOBAL_LD), 1 + 4);
    ck_assert_uint_eq(V(s, L1_TAG_WF_GLOBAL_LD), 1 + 1);
    ck_assert_uint_eq(V(s, SASS_BYTES_GLOBAL_LD), 128); /* the generic load's only */
    ck_assert_uint_eq(V(s, L1_REQ_LDGSTS), 1);
    ck_assert_uint_eq(V(s, L1_SECT_LDGSTS), 16);
    ck_assert_uint_eq(V(s, L2_SECT_READ), 4 + 16);
    ck_assert_uint_eq(V(s, L1_M_READ_SECTORS), 4 + 16);
    ck_assert_uint_eq(V(s, L1_DATA_WF_GLOBAL_LD), 1); /* none for the cp.async */
    /* its shared half: not a shared store, and not a second execution */
    ck_assert_uint_eq(V(s, SMEM_WF_ST), 1);
    ck_assert_uint_eq(V(s, SMEM_WF_LDGSTS), 4);
    uint32_t n_pcs;
    const gpu_pc_stats *pcs = gpu_pc_breakdown(g, &n_pcs);
    uint64_t executions = 0;
    for (uint32_t i = 0; i < n_pcs; i++)
        executions += pcs[i].executions;
    ck_assert_uint_eq(executions, 3);
    /* cp.async.cg bypasses L1: no cache_access counts, still an op_ld lookup
     * (a miss) and an L2 read */
    m[2].cache_op = TRACE_CACHE_CG;
    run_kernel(g, &m[2], 1, 1, &s);
    ck_assert_uint_eq(V(s, INST_LDGSTS), 1);
    ck_assert_uint_eq(V(s, L1_REQ_LDGSTS), 0);
    ck_assert_uint_eq(V(s, L1_REQ_GLOBAL_LD), 1);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD_MISS), 16);
    ck_assert_uint_eq(V(s, L2_SECT_READ), 16);
}
END_TEST

/* Findings §22 (cuBLAS's sgemm in torch_mm): a cp.async's shared write goes
 * line by line of its global read. Eight 4-byte lanes in each of four lines
 * (the GEMM's A tile: 32 bytes of four rows), written to 32 distinct banks:
 * one wavefront by the bank rule, four by the lines, as measured (90,112
 * wavefronts for the lines of its 40,960 LDGSTS). One line: one wavefront
 * (copyAsync_ca4). And an ATOMG counts in the hardware's op_generic_atom
 * (torch_sum_cols: 256 and 256). */
START_TEST(ldgsts_writes_shared_memory_line_by_line)
{
    trace_mem m[2];
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, A, 4);
    m[0].flags = TRACE_MEM_LDGSTS;
    m[0].cache_op = TRACE_CACHE_CA;
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0x400, 4);
    m[1].flags = TRACE_MEM_LDGSTS;
    stats s;
    run_kernel(g, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, SMEM_WF_LDGSTS), 1); /* one line */
    for (int l = 0; l < 32; l++) {
        m[0].addr[l] = A + (uint64_t)(l / 8) * 0x100 + (uint64_t)(l % 8) * 4;  /* rows of 256 B */
        m[1].addr[l] = 0x400 + (uint64_t)(l % 8) * 0x90 + (uint64_t)(l / 8) * 4; /* banks 4(l%8) + l/8 */
    }
    run_kernel(g, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, SMEM_WF_LDGSTS), 4);
    ck_assert_uint_eq(V(s, SMEM_BC_LDGSTS), 3); /* the ideal stays one */
    /* a shared half without its global half just before: the bank rule */
    run_kernel(g, &m[1], 1, 1, &s);
    ck_assert_uint_eq(V(s, SMEM_WF_LDGSTS), 1);

    trace_mem a;
    test_mem(&a, TRACE_KIND_ATOM, TRACE_SPACE_GLOBAL, 4, 1u, A, 0);
    run_kernel(g, &a, 1, 1, &s);
    ck_assert_uint_eq(V(s, INST_GLOBAL_ATOM), 1);
    ck_assert_uint_eq(V(s, INST_GENERIC_ATOM), 1);
    a.kind = TRACE_KIND_RED; /* a REDG is op_global_red only */
    run_kernel(g, &a, 1, 1, &s);
    ck_assert_uint_eq(V(s, INST_GLOBAL_RED), 1);
    ck_assert_uint_eq(V(s, INST_GENERIC_ATOM), 0);
}
END_TEST

/* Findings §26 (cuBLAS's sgemm in torch_mm on the H200): a cp.async whose
 * source lies in the null page is a zero fill; it reads nothing. A whole warp
 * of them counts its instruction and, through L1 (ca), an ldgsts
 * cache_access request, but no op_ld tag request, no sector anywhere and no
 * theoretical sector; its shared half still writes (one line of sources:
 * one wavefront). Half a warp of them: the other half's sectors only. */
START_TEST(ldgsts_null_source_is_a_zero_fill)
{
    trace_mem m[2];
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 16, TRACE_FULL_MASK, 0, 0);
    m[0].flags = TRACE_MEM_LDGSTS;
    m[0].cache_op = TRACE_CACHE_CA;
    test_mem(&m[1], TRACE_KIND_ST, TRACE_SPACE_SHARED, 16, TRACE_FULL_MASK, 0x400, 16);
    m[1].flags = TRACE_MEM_LDGSTS;
    stats s;
    run_kernel(g, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, INST_LDGSTS), 1);
    ck_assert_uint_eq(V(s, L1_REQ_LDGSTS), 1);
    ck_assert_uint_eq(V(s, L1_SECT_LDGSTS), 0);
    ck_assert_uint_eq(V(s, L1_REQ_GLOBAL_LD), 0);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD), 0);
    ck_assert_uint_eq(V(s, L1_SET_ACCESSES_GLOBAL_LD), 0);
    ck_assert_uint_eq(V(s, L2_SECT_READ), 0);
    ck_assert_uint_eq(V(s, SRC_L2_THEO_SECT_GLOBAL), 0);
    ck_assert_uint_eq(V(s, SMEM_WF_LDGSTS), 4); /* 512 bytes of shared memory */
    /* cg: not even the cache_access request */
    m[0].cache_op = TRACE_CACHE_CG;
    run_kernel(g, m, 2, 1, &s);
    ck_assert_uint_eq(V(s, L1_REQ_LDGSTS), 0);
    ck_assert_uint_eq(V(s, L1_REQ_GLOBAL_LD), 0);
    /* lanes 16-31 read one line from A, lanes 0-15 zero-fill; one byte
     * past the null page is a read */
    m[0].cache_op = TRACE_CACHE_CA;
    for (int l = 0; l < 32; l++)
        m[0].addr[l] = l < 16 ? (uint64_t)l * 16 % 4096 : A + (uint64_t)(l - 16) * 8;
    m[0].size_bytes = 8;
    run_kernel(g, m, 1, 1, &s);
    ck_assert_uint_eq(V(s, L1_REQ_GLOBAL_LD), 1);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD), 4);
    ck_assert_uint_eq(V(s, L2_SECT_READ), 4);
    m[0].addr[0] = 4096;
    run_kernel(g, m, 1, 1, &s);
    ck_assert_uint_eq(V(s, L1_SECT_GLOBAL_LD), 5);
}
END_TEST

/* The source view's address-derived columns (model/source_view.h), one warp
 * instruction each, with the per-execution values ncu printed for the suite
 * (traces/h200/NAME.source.csv, column per instruction / Instructions
 * Executed). */
START_TEST(source_view_columns_per_instruction)
{
    int theo = source_view_find("L2 Theoretical Sectors Global");
    int ideal = source_view_find("L2 Theoretical Sectors Global Ideal");
    int excess = source_view_find("L2 Theoretical Sectors Global Excessive");
    int local = source_view_find("L2 Theoretical Sectors Local");
    ck_assert(theo >= 0 && ideal >= 0 && excess >= 0 && local >= 0);
    static const struct {
        const char *what; /* the suite's kernel and instruction */
        trace_kind kind;
        uint64_t base;
        int64_t stride;
        uint32_t mask;
        double theo, ideal, excess;
    } rows[] = {
        {"readSegment_off11 LDG", TRACE_KIND_LD, A + 44, 4, TRACE_FULL_MASK, 5, 4, 1},
        {"readSegment_off11 last warp, 21 lanes", TRACE_KIND_LD, A + 44, 4, 0x1fffffu, 3, 3, 0},
        {"simpleMathAoS LDG stride 8", TRACE_KIND_LD, A, 8, TRACE_FULL_MASK, 8, 4, 4},
        {"transpose_naive STG stride 4 KiB", TRACE_KIND_ST, W, 4096, TRACE_FULL_MASK, 32, 4, 28},
        {"atomic_same RED one address", TRACE_KIND_RED, W, 0, TRACE_FULL_MASK, 1, 1, 0},
    };
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        trace_mem m;
        test_mem(&m, rows[i].kind, TRACE_SPACE_GLOBAL, 4, rows[i].mask, rows[i].base, rows[i].stride);
        stats s;
        run_one(g, &m, &s);
        ck_assert_msg(source_view_value((size_t)theo, 1, &s) == rows[i].theo, "%s: theoretical", rows[i].what);
        ck_assert_msg(source_view_value((size_t)ideal, 1, &s) == rows[i].ideal, "%s: ideal", rows[i].what);
        ck_assert_msg(source_view_value((size_t)excess, 1, &s) == rows[i].excess, "%s: excessive", rows[i].what);
    }
    /* matrixMul_naive: two rows of a 16x16 CTA read A[row][k], two addresses
     * in two lines: 2 sectors, and 2 is also the ideal (not ceil(8 / 32)) */
    uint64_t addr[32];
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = A + (l / 16) * 4096;
    trace_mem m;
    test_mem_addrs(&m, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, addr);
    stats s;
    run_one(g, &m, &s);
    ck_assert(source_view_value((size_t)theo, 1, &s) == 2);
    ck_assert(source_view_value((size_t)ideal, 1, &s) == 2);
    /* local_array: STL.128 of one offset, 16 sectors; LDL.32 with a different
     * offset per lane, 32 sectors (interleaved local layout) */
    test_mem(&m, TRACE_KIND_ST, TRACE_SPACE_LOCAL, 16, TRACE_FULL_MASK, 0x10, 0);
    run_one(g, &m, &s);
    ck_assert(source_view_value((size_t)local, 1, &s) == 16);
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_LOCAL, 4, TRACE_FULL_MASK, 0, 4);
    run_one(g, &m, &s);
    ck_assert(source_view_value((size_t)local, 1, &s) == 32);
    ck_assert(source_view_value((size_t)theo, 1, &s) == 0);
}
END_TEST

START_TEST(counters_per_pc_sum_to_the_totals)
{
    trace_mem m[3];
    test_mem(&m[0], TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_FULL_MASK, A, 4);
    m[0].pc = 0x30;
    test_mem(&m[1], TRACE_KIND_LD, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0, 128);
    m[1].pc = 0x10;
    m[2] = m[0];
    trace_barrier b = {.cta = 0, .warp = 0, .sm = TRACE_SM_UNKNOWN, .pc = 0x20};
    trace_kernel k;
    test_kernel(&k, "pcs", 1, 32);
    begin_kernel(g, &k, 0);
    gpu_mem(g, &m[0]);
    gpu_mem(g, &m[1]);
    gpu_barrier(g, &b);
    gpu_mem(g, &m[2]);
    stats s;
    gpu_kernel_end(g, &s);
    uint32_t n;
    const gpu_pc_stats *p = gpu_pc_breakdown(g, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(p[0].pc, 0x10);
    ck_assert_uint_eq(p[1].pc, 0x20);
    ck_assert_uint_eq(p[2].pc, 0x30);
    ck_assert_uint_eq(p[0].executions, 1);
    ck_assert_uint_eq(p[1].executions, 1);
    ck_assert_uint_eq(p[2].executions, 2);
    ck_assert_uint_eq(p[0].s.v[STAT_SMEM_WF_LD], 32);
    ck_assert_uint_eq(p[2].s.v[STAT_L1_SECT_GLOBAL_LD_HIT], 4);
    stats sum;
    stats_clear(&sum);
    for (uint32_t i = 0; i < n; i++)
        stats_add(&sum, &p[i].s);
    ck_assert_mem_eq(&sum, &s, sizeof s);
    ck_assert_uint_eq(V(s, INST_GLOBAL_LD), 2);
    ck_assert_uint_eq(V(s, SMEM_BC_LD), 31);
}
END_TEST

START_TEST(too_many_pcs_are_lumped)
{
    enum { N = 70000 };
    trace_kernel k;
    test_kernel(&k, "manypcs", 1, 32);
    begin_kernel(g, &k, 0);
    trace_mem m;
    test_mem(&m, TRACE_KIND_LD, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0, 4);
    for (uint32_t i = 0; i < N; i++) {
        m.pc = 16 * i;
        gpu_mem(g, &m);
    }
    stats s;
    gpu_kernel_end(g, &s);
    uint32_t n;
    const gpu_pc_stats *p = gpu_pc_breakdown(g, &n);
    ck_assert_uint_eq(n, 65536);
    ck_assert_uint_eq(p[n - 1].pc, GPU_PC_NONE);
    ck_assert_uint_eq(p[n - 1].executions, N - 65535);
    ck_assert_uint_eq(V(s, INST_SHARED_LD), N);
    for (uint32_t i = 1; i < n; i++)
        ck_assert(p[i - 1].pc < p[i].pc);
}
END_TEST

/* A kernel with a PC table sizes the per-PC table from it. */
START_TEST(pc_table_presizes)
{
    trace_kernel k;
    test_kernel(&k, "table", 1, 32);
    trace_pc_info pcs[3] = {{.pc = 0x10}, {.pc = 0x20}, {.pc = 0x30}};
    k.n_pcs = 3;
    k.pcs = pcs;
    begin_kernel(g, &k, 0);
    trace_mem m;
    test_mem(&m, TRACE_KIND_ST, TRACE_SPACE_SHARED, 4, TRACE_FULL_MASK, 0, 4);
    for (uint32_t i = 0; i < 100; i++) {
        m.pc = 0x10 * (i % 3 + 1);
        gpu_mem(g, &m);
    }
    stats s;
    gpu_kernel_end(g, &s);
    uint32_t n;
    const gpu_pc_stats *p = gpu_pc_breakdown(g, &n);
    ck_assert_uint_eq(n, 3);
    ck_assert_uint_eq(p[0].executions + p[1].executions + p[2].executions, 100);
    ck_assert_uint_eq(V(s, SMEM_WF_ST), 100);
}
END_TEST

/* ---- the measured rows as text traces (tests/data/hw) ------------------------- */

typedef struct expectation {
    char kernel[96];
    char metric[128];
    uint64_t value;
    int checked;
} expectation;

static expectation *load_expected(size_t *n)
{
    FILE *f = fopen("tests/data/hw/EXPECTED", "r");
    ck_assert_msg(f != NULL, "tests/data/hw/EXPECTED missing (run from the repository root)");
    size_t cap = 512;
    expectation *e = calloc(cap, sizeof *e);
    *n = 0;
    char line[512];
    while (fgets(line, sizeof line, f)) {
        if (*n == cap) {
            cap *= 2;
            e = realloc(e, cap * sizeof *e);
        }
        expectation *x = &e[*n];
        ck_assert_msg(sscanf(line, "%95s %127s %" SCNu64, x->kernel, x->metric, &x->value) == 3,
                      "EXPECTED: bad line: %s", line);
        ck_assert_msg(stat_find(x->metric) != STAT_COUNT, "EXPECTED: unknown metric %s", x->metric);
        x->checked = 0;
        (*n)++;
    }
    fclose(f);
    return e;
}

/* The subset of the text grammar these files use (the real reader will
 * replace this): kernel / record / end kernel / end trace lines. */
static void parse_record(const char *line, trace_mem *m)
{
    char kind[8], space[8];
    unsigned size;
    ck_assert_msg(sscanf(line, "%7s %7s %u", kind, space, &size) == 3, "bad record: %s", line);
    trace_kind k = strcmp(kind, "ld") == 0 ? TRACE_KIND_LD
                 : strcmp(kind, "st") == 0 ? TRACE_KIND_ST
                 : strcmp(kind, "atom") == 0 ? TRACE_KIND_ATOM : TRACE_KIND_RED;
    trace_space sp = strcmp(space, "global") == 0 ? TRACE_SPACE_GLOBAL
                   : strcmp(space, "shared") == 0 ? TRACE_SPACE_SHARED : TRACE_SPACE_LOCAL;
    uint32_t mask = 0;
    uint64_t base = 0, stride = 0, pc = 0;
    uint64_t addr[32] = {0};
    bool strided = false;
    const char *p;
    if ((p = strstr(line, " mask=")))
        mask = (uint32_t)strtoul(p + 6, NULL, 0);
    if ((p = strstr(line, " pc=")))
        pc = strtoull(p + 4, NULL, 0);
    if ((p = strstr(line, " base="))) {
        strided = true;
        base = strtoull(p + 6, NULL, 0);
        p = strstr(line, " stride=");
        ck_assert_ptr_nonnull(p);
        stride = strtoull(p + 8, NULL, 0);
    }
    if ((p = strstr(line, " addrs="))) {
        char *q = (char *)p + 7;
        for (uint32_t l = 0; l < 32; l++) {
            if (!(mask & (1u << l)))
                continue;
            addr[l] = strtoull(q, &q, 0);
            if (*q == ',')
                q++;
        }
    }
    if (strided)
        for (uint32_t l = 0; l < 32; l++)
            addr[l] = base + stride * l;
    test_mem_addrs(m, k, sp, size, mask, addr);
    m->pc = (uint32_t)pc;
}

static void replay_hw_file(const char *path, expectation *e, size_t n_e)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s missing", path);
    char line[4096];
    char name[96] = "";
    uint32_t kernels = 0;
    trace_kernel k;
    while (fgets(line, sizeof line, f)) {
        line[strcspn(line, "\n")] = '\0';
        if (strncmp(line, "gpumemsim-trace ", 16) == 0 || strncmp(line, "end trace", 9) == 0)
            continue;
        if (strncmp(line, "kernel ", 7) == 0) {
            const char *q = strstr(line, "name=\"");
            ck_assert_ptr_nonnull(q);
            ck_assert(sscanf(q + 6, "%95[^\"]", name) == 1);
            test_kernel(&k, name, 1, 32);
            begin_kernel(g, &k, 0);
            continue;
        }
        if (strncmp(line, "end kernel", 10) == 0) {
            stats s;
            gpu_kernel_end(g, &s);
            kernels++;
            for (size_t i = 0; i < n_e; i++) {
                if (strcmp(e[i].kernel, name) != 0)
                    continue;
                uint64_t got = s.v[stat_find(e[i].metric)];
                ck_assert_msg(got == e[i].value, "%s: %s = %" PRIu64 ", measured %" PRIu64, name,
                              e[i].metric, got, e[i].value);
                e[i].checked++;
            }
            continue;
        }
        trace_mem m;
        parse_record(line, &m);
        gpu_mem(g, &m);
    }
    fclose(f);
    ck_assert_uint_gt(kernels, 10);
}

START_TEST(hw_trace_files_match_expected)
{
    size_t n;
    expectation *e = load_expected(&n);
    replay_hw_file("tests/data/hw/h200_shared.trace", e, n);
    replay_hw_file("tests/data/hw/h200_global.trace", e, n);
    for (size_t i = 0; i < n; i++)
        ck_assert_msg(e[i].checked == 1, "EXPECTED %s %s: checked %d times", e[i].kernel,
                      e[i].metric, e[i].checked);
    free(e);
}
END_TEST

Suite *gpu_suite(void)
{
    Suite *s = suite_create("gpu");
    TCase *tc = tcase_create("h200");
    tcase_add_checked_fixture(tc, setup_h200, teardown);
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, h200_carveout_is_the_drivers);
    tcase_add_test(tc, h200_measured_global_load_rows);
    tcase_add_test(tc, h200_second_load_hits_and_its_conflicts);
    tcase_add_test(tc, h200_cache_operators);
    tcase_add_test(tc, h200_load_after_store_hits);
    tcase_add_test(tc, h200_atomic_rounds);
    tcase_add_test(tc, atomics_invalidate_l1_copies);
    tcase_add_test(tc, h200_l2_partitions_fabric_and_near_copies);
    tcase_add_test(tc, h200_l2_write_drops_far_copies);
    tcase_add_test(tc, h200_consecutive_stores_of_a_warp_combine);
    tcase_add_test(tc, h200_ecc_fills_partial_sectors_at_eviction);
    tcase_add_test(tc, h200_no_dram_writes_at_kernel_end);
    tcase_add_test(tc, a_set_keeps_at_most_dirty_ways_dirty_lines);
    tcase_add_test(tc, a_far_write_leaves_a_copy_near);
    tcase_add_test(tc, a_write_cleans_its_set_s_older_dirty_lines);
    tcase_add_test(tc, a_page_spreads_over_slices_and_sets);
    tcase_add_test(tc, the_placement_divides_exactly);
    tcase_add_test(tc, k20c_bypasses_global_loads_caches_local);
    tcase_add_test(tc, k20c_dirty_evictions_write_dram);
    tcase_add_test(tc, l2_fetch_granularity_measured);
    tcase_add_test(tc, l2_fetch_blocks_are_aligned);
    tcase_add_test(tc, carveout_and_l1_capacity);
    tcase_add_test(tc, l1_capacity_follows_the_carveout);
    tcase_add_test(tc, kernels_that_cannot_run_are_refused);
    tcase_add_test(tc, cta_placement_from_the_trace);
    tcase_add_test(tc, warm_caches_when_not_cold_per_kernel);
    tcase_add_test(tc, local_memory_is_interleaved_per_lane);
    tcase_add_test(tc, shared_atomic_cost_follows_the_sass);
    tcase_add_test(tc, ldsm_and_stsm_are_instruction_classes_of_their_own);
    tcase_add_test(tc, generic_and_ldgsts_instruction_counts);
    tcase_add_test(tc, ldgsts_writes_shared_memory_line_by_line);
    tcase_add_test(tc, ldgsts_null_source_is_a_zero_fill);
    tcase_add_test(tc, source_view_columns_per_instruction);
    tcase_add_test(tc, counters_per_pc_sum_to_the_totals);
    tcase_add_test(tc, too_many_pcs_are_lumped);
    tcase_add_test(tc, pc_table_presizes);
    tcase_add_test(tc, hw_trace_files_match_expected);
    suite_add_tcase(s, tc);
    return s;
}
