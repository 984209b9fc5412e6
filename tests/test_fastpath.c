/* test_fastpath.c - the speed-ups of docs/performance.md give exactly the
 * results of the general code they bypass: coal_affine against coal_run,
 * coal_run's hashed line search against a linear one, coal_lanes and
 * smem_cost_lanes (gathers) against coal_run and smem_cost_chunks, the record
 * validation with per-kernel limits against the full one,
 * smem_cost_affine against smem_cost_chunks, the shift-folded XOR set index
 * against a fold one group at a time, the LRU list against stamps and a
 * first-oldest scan, records coalesced when announced (gpu_prepare) against
 * records coalesced when simulated, lazy lanes filled against lanes read,
 * gathers read on the reader's hot path against their text form,
 * and a replay with read-ahead and
 * prefetch hints against records fed to the model one by one. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cache.h"
#include "cmd_synth.h"
#include "commands.h"
#include "cfg.h"
#include "coal.h"
#include "gpu.h"
#include "l1_int.h"
#include "l2.h"
#include "l2_int.h"
#include "replay.h"
#include "smem.h"
#include "suites.h"
#include "test_util.h"
#include "trace_int.h"

/* xorshift64: a fixed sequence, so a failure can be reproduced */
static uint64_t next_rand(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static void chunks_of(coal_chunk *c, uint64_t a0, uint64_t stride, uint32_t size, uint32_t n)
{
    for (uint32_t l = 0; l < n; l++) {
        c[l].addr = a0 + (uint64_t)l * stride;
        c[l].bytes = (uint8_t)size;
        c[l].lane = (uint8_t)(l % 32u);
    }
}

static void assert_same_result(const coal_result *a, const coal_result *b, uint64_t a0,
                               uint64_t stride, uint32_t size)
{
    ck_assert_msg(a->n_lines == b->n_lines && a->n_sectors == b->n_sectors,
                  "a0 0x%llx stride %llu size %u: %u lines %u sectors, expected %u and %u",
                  (unsigned long long)a0, (unsigned long long)stride, size, a->n_lines,
                  a->n_sectors, b->n_lines, b->n_sectors);
    for (uint32_t i = 0; i < a->n_lines; i++) {
        ck_assert_uint_eq(a->lines[i].line, b->lines[i].line);
        ck_assert_uint_eq(a->lines[i].sector_mask, b->lines[i].sector_mask);
        for (uint32_t s = 0; s < COAL_MAX_SECTORS_PER_LINE; s++)
            ck_assert_msg(a->lines[i].byte_mask[s] == b->lines[i].byte_mask[s],
                          "a0 0x%llx stride %llu size %u line %u sector %u: 0x%x, expected 0x%x",
                          (unsigned long long)a0, (unsigned long long)stride, size, i, s,
                          a->lines[i].byte_mask[s], b->lines[i].byte_mask[s]);
    }
}

/* coal_affine against coal_run on 20,000 warps of one line geometry */
static void coal_affine_cases(uint32_t line_bytes)
{
    coal_geom g;
    coal_geom_init(&g, line_bytes, 32);
    static const uint64_t strides[] = {0, 1, 2, 4, 8, 16, 32, 64, 128, 256, 4096, (uint64_t)1 << 40};
    static const uint32_t sizes[] = {1, 2, 4, 8, 16};
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    coal_chunk ch[COAL_MAX_CHUNKS];
    static coal_result fast, slow;
    int compared = 0;
    for (int rep = 0; rep < 400; rep++) {
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (size_t di = 0; di < sizeof strides / sizeof strides[0]; di++) {
                uint32_t size = sizes[si];
                uint64_t stride = strides[di];
                uint32_t n = rep % 4 == 0 ? 32u : 1u + (uint32_t)(next_rand(&seed) % 32u);
                uint64_t a0 = next_rand(&seed) % ((uint64_t)1 << 48) & ~(uint64_t)(size - 1u);
                if (rep % 3 == 0)
                    a0 &= ~(uint64_t)127; /* line-aligned starts too */
                bool ok = coal_affine(&g, a0, stride, size, n, &fast);
                if (stride != 0 && stride < size) {
                    ck_assert(!ok); /* lanes would overlap: not this path's case */
                    continue;
                }
                ck_assert_msg(ok, "stride %llu size %u refused", (unsigned long long)stride, size);
                chunks_of(ch, a0, stride, size, n);
                coal_run(&g, ch, n, &slow);
                assert_same_result(&fast, &slow, a0, stride, size);
                compared++;
            }
        }
    }
    ck_assert_int_eq(compared, 20000); /* 400 x (60 - 10 overlapping) */
}

START_TEST(coal_affine_equals_coal_run)
{
    /* 128-byte lines (every config), and 64-byte ones for the geometry-dependent paths */
    coal_affine_cases(128);
    coal_affine_cases(64);
    coal_geom g;
    coal_geom_init(&g, 128, 32);
    static coal_result fast;
    /* refused: a stride not a power of two, a misaligned start, an end past 2^64 */
    ck_assert(!coal_affine(&g, 0, 12, 4, 32, &fast));
    ck_assert(!coal_affine(&g, 2, 4, 4, 32, &fast));
    ck_assert(!coal_affine(&g, UINT64_MAX - 63, 4, 4, 32, &fast));
}
END_TEST

START_TEST(smem_cost_affine_equals_smem_cost_chunks)
{
    /* H200 (32 x 4-byte banks), and a 16-bank variant; Kepler's 8-byte banks
     * in 4-byte mode are refused (two words share a bank entry) */
    static const uint32_t geoms[][3] = {{32, 4, 4}, {16, 4, 4}, {32, 8, 8}};
    static const uint64_t strides[] = {0, 4, 8, 16, 32, 64, 128, 256, 512, 1024};
    static const uint32_t sizes[] = {1, 2, 4, 8, 16};
    uint64_t seed = 12345;
    coal_chunk ch[32];
    int compared = 0;
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++) {
        smem_geom g;
        smem_geom_init(&g, geoms[gi][0], geoms[gi][1], geoms[gi][2]);
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            for (size_t di = 0; di < sizeof strides / sizeof strides[0]; di++) {
                for (int merged = 0; merged < 2; merged++) {
                    for (int rep = 0; rep < 20; rep++) {
                        uint32_t size = sizes[si];
                        uint64_t stride = strides[di];
                        uint64_t a0 = (next_rand(&seed) % 65536u) & ~(uint64_t)(size - 1u);
                        uint32_t lpp = smem_lanes_per_phase(&g, size, merged);
                        smem_cost fast;
                        if (!smem_cost_affine(&g, a0, stride, size, lpp, &fast)) {
                            ck_assert(stride != 0 && (stride < size || stride < g.mode_bytes));
                            continue;
                        }
                        chunks_of(ch, a0, stride, size, 32);
                        smem_cost slow = smem_cost_chunks(&g, ch, 32, lpp, false);
                        ck_assert_msg(fast.wavefronts == slow.wavefronts && fast.ideal == slow.ideal,
                                      "banks %u x %u, stride %llu size %u a0 %llu lpp %u: %u/%u, "
                                      "expected %u/%u", g.banks, g.bank_bytes,
                                      (unsigned long long)stride, size, (unsigned long long)a0, lpp,
                                      fast.wavefronts, fast.ideal, slow.wavefronts, slow.ideal);
                        compared++;
                    }
                }
            }
        }
    }
    ck_assert_int_gt(compared, 1500);
    smem_geom kepler;
    smem_geom_init(&kepler, 32, 8, 4);
    smem_cost c;
    ck_assert(!smem_cost_affine(&kepler, 0, 4, 4, 32, &c));
}
END_TEST

static uint32_t fold_by_group(uint64_t line, uint32_t bits)
{
    uint64_t mask = ((uint64_t)1 << bits) - 1u, r = 0;
    for (; line; line >>= bits)
        r ^= line & mask;
    return (uint32_t)r;
}

START_TEST(xor_set_index_equals_group_fold)
{
    uint64_t seed = 777;
    for (int i = 0; i < 200000; i++) {
        uint64_t line = next_rand(&seed) >> (i % 64);
        uint32_t bits = 1u + (uint32_t)(i % 20);
        ck_assert_uint_eq(cache_set_hash(CFG_INDEX_XOR, line, bits), fold_by_group(line, bits));
    }
    ck_assert_uint_eq(cache_set_hash(CFG_INDEX_XOR, UINT64_MAX, 5), fold_by_group(UINT64_MAX, 5));
    /* the kept step count gives the same set, for every width */
    for (uint32_t bits = 1; bits <= 40; bits++)
        for (int i = 0; i < 1000; i++) {
            uint64_t line = next_rand(&seed) >> (i % 64);
            ck_assert_uint_eq(cache_set_hash_steps(CFG_INDEX_XOR, line, bits, cache_xor_steps(bits)),
                              fold_by_group(line, bits));
        }
}
END_TEST

START_TEST(popcount_table_equals_bit_count)
{
    for (uint32_t x = 0; x < (1u << 20); x++)
        ck_assert_uint_eq(cache_popcount(x), (uint32_t)__builtin_popcount(x));
    ck_assert_uint_eq(cache_popcount(0xffffffffu), 32);
}
END_TEST

/* ---- validation with the kernel's limits kept equals the full validation ------ */

START_TEST(validate_limits_equals_validate)
{
    trace_kernel k;
    trace_kernel_init(&k);
    k.name = k.demangled = (char *)"k";
    k.grid[0] = 7, k.grid[1] = 3, k.grid[2] = 1;
    k.block[0] = 100, k.block[1] = 1, k.block[2] = 1; /* 4 warps, the last of 4 lanes */
    trace_mem_limits lim;
    trace_mem_limits_of(&k, &lim);
    uint64_t seed = 31337;
    int good = 0, bad = 0;
    for (int rep = 0; rep < 200000; rep++) {
        uint64_t x = next_rand(&seed), y = next_rand(&seed);
        trace_mem m = {0};
        /* mostly valid fields, each sometimes just out of range */
        m.kind = (uint8_t)(x % 64u < 60u ? x % 4u : 4u + x % 3u);
        m.space = (uint8_t)((x >> 6) % 16u < 15u ? (x >> 6) % 3u : 3u);
        m.cache_op = (uint8_t)((x >> 10) % 32u < 31u ? (x >> 10) % 7u : 7u);
        m.flags = (uint8_t)((x >> 15) % 32u < 31u ? (x >> 15) % 4u : 4u);
        static const uint8_t sizes[] = {1, 2, 4, 8, 16, 4, 4, 4, 3, 32};
        m.size_bytes = sizes[(x >> 20) % 10u];
        m.cta = (uint32_t)((x >> 24) % 23u);
        m.warp = (uint32_t)((x >> 29) % 5u);
        m.sm = (int32_t)((x >> 32) % 8u) - 2;
        static const uint32_t masks[] = {TRACE_FULL_MASK, TRACE_FULL_MASK, TRACE_FULL_MASK, 0xf, 0x1f,
                                         0, 0x80000001u, 0xffff};
        m.active_mask = masks[(x >> 36) % 8u];
        uint64_t base = (y % 5u == 0 ? y : y % 0x100000000ull) & ~(uint64_t)15;
        uint64_t stride = (uint64_t)m.size_bytes * ((x >> 40) % 3u);
        for (int l = 0; l < TRACE_WARP_LANES; l++)
            m.addr[l] = (m.active_mask >> l & 1u) ? base + stride * (uint64_t)l : 0;
        if ((x >> 44) % 8u == 0)
            m.addr[(x >> 48) % 32u] += 1 + (x >> 53) % 3u; /* a misaligned or stray lane */
        err_info e1 = {{0}}, e2 = {{0}};
        int r1 = trace_mem_validate(&k, &m, &e1);
        int r2 = trace_mem_validate_limits(&k, &lim, &m, &e2);
        ck_assert_int_eq(r1, r2);
        ck_assert_str_eq(e1.msg, e2.msg);
        if (r1 == 0)
            good++;
        else
            bad++;
    }
    ck_assert_int_gt(good, 10000);
    ck_assert_int_gt(bad, 10000);
}
END_TEST

/* Strided records (the binary form's): closed-form address checks against
 * the full validation, on records that are all base + l * stride; strides of
 * every sign and size, offsets near 2^32 for shared and local. */
/* and the reader's inline shortcut (trace_mem_strided_plainly_valid) is
 * never true where it returns an error, and true for many good records; two
 * kernels: the last warp of a CTA partly (100 threads) and wholly filled (128) */
START_TEST(validate_strided_equals_validate)
{
    trace_kernel ks[2];
    trace_mem_limits lims[2];
    for (int i = 0; i < 2; i++) {
        trace_kernel_init(&ks[i]);
        ks[i].name = ks[i].demangled = (char *)"k";
        ks[i].grid[0] = 7, ks[i].grid[1] = 3, ks[i].grid[2] = 1;
        ks[i].block[0] = i ? 128 : 100, ks[i].block[1] = 1, ks[i].block[2] = 1;
        trace_mem_limits_of(&ks[i], &lims[i]);
    }
    uint64_t seed = 4242;
    int good = 0, bad = 0, plain = 0;
    for (int rep = 0; rep < 200000; rep++) {
        const trace_kernel *kp = &ks[rep & 1];
        const trace_mem_limits *lp = &lims[rep & 1];
#define k (*kp)
#define lim (*lp)
        uint64_t x = next_rand(&seed), y = next_rand(&seed), z = next_rand(&seed);
        trace_mem m = {0};
        m.kind = (uint8_t)(x % 64u < 60u ? x % 4u : 4u + x % 3u);
        m.space = (uint8_t)((x >> 6) % 16u < 15u ? (x >> 6) % 3u : 3u);
        m.cache_op = (uint8_t)((x >> 10) % 32u < 31u ? (x >> 10) % 7u : 7u);
        m.flags = (uint8_t)((x >> 15) % 32u < 31u ? (x >> 15) % 4u : 4u);
        static const uint8_t sizes[] = {1, 2, 4, 8, 16, 4, 4, 4, 3, 32};
        m.size_bytes = sizes[(x >> 20) % 10u];
        m.cta = (uint32_t)((x >> 24) % 23u);
        m.warp = (uint32_t)((x >> 29) % 5u);
        m.sm = (int32_t)((x >> 32) % 8u) - 2;
        static const uint32_t masks[] = {TRACE_FULL_MASK, TRACE_FULL_MASK, TRACE_FULL_MASK,
                                         TRACE_FULL_MASK, 0xf, 0x80000001u, 0xffff, 0};
        m.active_mask = masks[(x >> 36) % 8u];
        uint64_t base;
        switch (y % 5u) {
        case 0: base = z; break;                                   /* anywhere */
        case 1: base = z % 0x100000000ull; break;                  /* below 2^32 */
        case 2: base = 0x100000000ull - 1u - z % 4096u; break;     /* just below 2^32 */
        case 3: base = z % 4096u; break;                           /* near 0 */
        default: base = 0x100000000ull + z % 4096u; break;         /* just above 2^32 */
        }
        if ((y >> 8) % 4u)
            base &= ~(uint64_t)15; /* mostly aligned */
        uint64_t stride;
        switch ((y >> 12) % 6u) {
        case 0: stride = (uint64_t)m.size_bytes * ((y >> 16) % 4u); break;
        case 1: stride = 0 - (uint64_t)m.size_bytes * (1u + (y >> 16) % 4u); break; /* falling */
        case 2: stride = (y >> 16) % 64u; break;                    /* any, aligned or not */
        case 3: stride = ((uint64_t)1 << ((y >> 16) % 40u)); break; /* up to 2^39 */
        case 4: stride = UINT32_MAX / 31u + (y >> 16) % 3u - 1u; break; /* at the bound */
        default: stride = (z >> 7) * 16u; break;                    /* huge */
        }
        for (int l = 0; l < TRACE_WARP_LANES; l++)
            m.addr[l] = (m.active_mask >> l & 1u) ? base + stride * (uint64_t)l : 0;
        err_info e1 = {{0}}, e2 = {{0}};
        int r1 = trace_mem_validate(&k, &m, &e1);
        int r2 = trace_mem_validate_strided(&k, &lim, &m, base, stride, &e2);
        ck_assert_msg(r1 == r2, "base 0x%llx stride 0x%llx space %u size %u: %d, expected %d (%s)",
                      (unsigned long long)base, (unsigned long long)stride, m.space, m.size_bytes,
                      r2, r1, e1.msg);
        ck_assert_str_eq(e1.msg, e2.msg);
        bool quick = trace_mem_strided_plainly_valid(&lim, &m, base, stride);
        ck_assert_msg(!quick || r1 == 0, "plainly valid, but: %s", e1.msg);
        plain += quick;
        if (r1 == 0)
            good++;
        else
            bad++;
#undef k
#undef lim
    }
    ck_assert_int_gt(good, 10000);
    ck_assert_int_gt(bad, 10000);
    ck_assert_int_gt(plain, good / 3); /* 10,692 of 22,028 good ones */
}
END_TEST

/* gpu_mem_strided (the stride as the reader gives it) against gpu_mem (the
 * stride recovered from the lanes): the same counts, record after record, on
 * random strided records of every space, kind and size, whole and partial
 * warps, strides of powers of two, others, negative and zero. */
/* The decoder's AVX2 expansion of a whole warp's stride (used where the CPU
 * has AVX2) writes the same 32 lanes as the baseline one, for strides of
 * every sign and size, wrapping past 2^64 included. */
START_TEST(expand_stride_avx2_equals_baseline)
{
#if TRACE_AVX2_BUILDS
    if (!trace_cpu_has_avx2())
        return;
    uint64_t seed = 99;
    for (int rep = 0; rep < 100000; rep++) {
        uint64_t base = next_rand(&seed), r = next_rand(&seed);
        uint64_t stride = r % 4u == 0 ? r : r % 4u == 1 ? (r >> 40) : r % 4u == 2 ? 0 - (r >> 50) : 0;
        trace_mem a = {.active_mask = TRACE_FULL_MASK}, b = a;
        memset(b.addr, 0xa5, sizeof b.addr);
        trace_mem_expand_stride(&a, base, stride);
        trace_mem_expand_stride_full_avx2(b.addr, base, stride);
        ck_assert_msg(memcmp(a.addr, b.addr, sizeof a.addr) == 0,
                      "base 0x%llx stride 0x%llx", (unsigned long long)base, (unsigned long long)stride);
    }
#endif
}
END_TEST

START_TEST(gpu_mem_strided_equals_gpu_mem)
{
    static const char *const configs[] = {"configs/h200.ini", "configs/k20c.ini"};
    for (size_t ci = 0; ci < sizeof configs / sizeof configs[0]; ci++) {
        cfg_gpu cfg;
        err_info err = {{0}};
        ck_assert_msg(cfg_load(configs[ci], &cfg, &err) == 0, "%s", err.msg);
        trace_kernel k;
        trace_kernel_init(&k);
        k.name = k.demangled = (char *)"k";
        k.grid[0] = 64, k.grid[1] = k.grid[2] = 1;
        k.block[0] = 256, k.block[1] = k.block[2] = 1;
        gpu *a = gpu_create(&cfg), *b = gpu_create(&cfg);
        ck_assert_msg(gpu_kernel_begin(a, &k, 0, &err) == 0, "%s", err.msg);
        ck_assert_msg(gpu_kernel_begin(b, &k, 0, &err) == 0, "%s", err.msg);
        uint64_t seed = 777 + ci;
        for (int rep = 0; rep < 40000; rep++) {
            uint64_t x = next_rand(&seed), y = next_rand(&seed);
            trace_mem m = {0};
            m.cta = (uint32_t)(x % 64u);
            m.warp = (uint32_t)((x >> 6) % 8u);
            m.pc = (uint32_t)((x >> 9) % 16u) * 16u;
            m.sm = TRACE_SM_UNKNOWN;
            m.kind = (uint8_t)((x >> 13) % 4u);
            m.space = (uint8_t)((x >> 15) % 3u);
            if (m.space == TRACE_SPACE_LOCAL && m.kind >= TRACE_KIND_ATOM)
                m.kind = TRACE_KIND_LD;
            m.size_bytes = (uint8_t)(1u << ((x >> 17) % 5u));
            m.cache_op = (uint8_t)((x >> 20) % 8u < 6u ? TRACE_CACHE_DEFAULT : (x >> 20) % 7u);
            m.flags = (uint8_t)((x >> 23) % 16u == 0 ? TRACE_MEM_LDGSTS : 0u);
            m.active_mask = (x >> 27) % 4u ? TRACE_FULL_MASK : (uint32_t)(y >> 32) | 1u;
            uint64_t size = m.size_bytes, stride;
            switch ((x >> 30) % 6u) {
            case 0: stride = size; break;
            case 1: stride = 0; break;
            case 2: stride = size << ((x >> 33) % 8u); break;
            case 3: stride = size * (3u + (x >> 33) % 5u); break;  /* not a power of two */
            case 4: stride = 0 - size * (1u + (x >> 33) % 4u); break; /* falling */
            default: stride = size * 4096u; break;
            }
            uint64_t base = m.space == TRACE_SPACE_GLOBAL ? 0x7f0000000000ull + (y % (1u << 24)) * 16u
                                                          : 0x10000u + (y % 4096u) * 16u;
            base &= ~(size - 1u);
            for (int l = 0; l < TRACE_WARP_LANES; l++)
                m.addr[l] = (m.active_mask >> l & 1u) ? base + stride * (uint64_t)l : 0;
            if (trace_mem_validate(&k, &m, &err) != 0)
                continue;
            gpu_mem(a, &m);
            gpu_mem_strided(b, &m, base, stride);
        }
        stats sa, sb;
        gpu_kernel_end(a, &sa);
        gpu_kernel_end(b, &sb);
        for (int i = 0; i < STAT_COUNT; i++)
            ck_assert_msg(sa.v[i] == sb.v[i], "%s: %s %llu, expected %llu", configs[ci],
                          stat_name((stat_id)i), (unsigned long long)sb.v[i],
                          (unsigned long long)sa.v[i]);
        uint32_t na, nb;
        const gpu_pc_stats *pa = gpu_pc_breakdown(a, &na), *pb = gpu_pc_breakdown(b, &nb);
        ck_assert_uint_eq(na, nb);
        for (uint32_t p = 0; p < na; p++) {
            ck_assert_uint_eq(pa[p].pc, pb[p].pc);
            ck_assert_uint_eq(pa[p].executions, pb[p].executions);
            for (int i = 0; i < STAT_COUNT; i++)
                ck_assert_uint_eq(pa[p].s.v[i], pb[p].s.v[i]);
        }
        gpu_destroy(a);
        gpu_destroy(b);
    }
}
END_TEST

/* An observer that folds every event it sees into a checksum. */
typedef struct event_sum {
    uint64_t sum, records, requests;
} event_sum;

static void sum_mix(event_sum *e, uint64_t v)
{
    e->sum = (e->sum ^ v) * 0x100000001b3ull + 0x9e3779b97f4a7c15ull;
}

static void sum_req(event_sum *e, const gpu_l2_req *r)
{
    e->requests++;
    sum_mix(e, r->line);
    sum_mix(e, ((uint64_t)r->sector_mask << 32) | r->sectors);
    sum_mix(e, ((uint64_t)r->hit_sectors << 32) | r->dram_sectors);
    sum_mix(e, (uint64_t)r->op << 1 | r->far);
}

static void sum_record(void *ctx, const gpu_event *ev)
{
    event_sum *e = ctx;
    e->records++;
    sum_mix(e, ((uint64_t)ev->sm << 40) | ((uint64_t)ev->tag_wavefronts << 20) | ev->data_wavefronts);
    for (uint32_t i = 0; i < ev->n_l2; i++)
        sum_req(e, &ev->l2[i]);
    if (ev->lines)
        for (uint32_t i = 0; i < ev->lines->n_lines; i++)
            sum_mix(e, ev->lines->lines[i].line ^ ((uint64_t)ev->lines->lines[i].sector_mask << 60));
}

static void sum_store_line(void *ctx, uint32_t sm, const gpu_l2_req *r)
{
    event_sum *e = ctx;
    sum_mix(e, sm);
    sum_req(e, r);
}

/* gpu_prepare + gpu_mem_prepared (a global load or store coalesced when it is
 * announced, its hints from its lines) against gpu_mem, record after record,
 * on random records of every space, kind and size: whole and partial warps at
 * strides (as the reader gives them, strided or not), gathers over a few
 * lines and over many, records prepared up to 7 ahead in a ring of 8 slots,
 * some never prepared, some of those simulated with another record's slot,
 * whole strided warps with their lanes pending (a lazy reader's, garbage
 * past lane 0: every path that reads lanes must fill them first); on h200
 * once more with observers, which must see the same events. */
START_TEST(gpu_mem_prepared_equals_gpu_mem)
{
    static const char *const configs[] = {"configs/h200.ini", "configs/k20c.ini", "configs/a100.ini",
                                          "configs/h200.ini"};
    for (size_t ci = 0; ci < sizeof configs / sizeof configs[0]; ci++) {
        cfg_gpu cfg;
        err_info err = {{0}};
        ck_assert_msg(cfg_load(configs[ci], &cfg, &err) == 0, "%s", err.msg);
        trace_kernel k;
        trace_kernel_init(&k);
        k.name = k.demangled = (char *)"k";
        k.grid[0] = 64, k.grid[1] = k.grid[2] = 1;
        k.block[0] = 256, k.block[1] = k.block[2] = 1;
        gpu *a = gpu_create(&cfg), *b = gpu_create(&cfg);
        /* the last pass with observers (the timing layer's view): the same events */
        bool observed = ci == 3;
        event_sum ea = {0, 0, 0}, eb = {0, 0, 0};
        if (observed) {
            gpu_observer oa = {.record = sum_record, .store_line = sum_store_line, .ctx = &ea};
            gpu_observer ob = {.record = sum_record, .store_line = sum_store_line, .ctx = &eb};
            gpu_set_observer(a, &oa);
            gpu_set_observer(b, &ob);
        }
        enum { SLOTS = 8 };
        gpu_prep *prep = gpu_prep_create(SLOTS);
        static trace_event ring[SLOTS];
        static trace_mem whole[SLOTS]; /* each record with its lanes, for b */
        bool announced[SLOTS] = {false};
        /* before the kernel: nothing announced, and the record later
         * simulated from its lanes */
        memset(&ring[0], 0, sizeof ring[0]);
        ring[0].type = TRACE_EV_MEM;
        ck_assert_uint_eq(gpu_prepare(a, &ring[0], prep, 0), 0);
        ck_assert_msg(gpu_kernel_begin(a, &k, 0, &err) == 0, "%s", err.msg);
        ck_assert_msg(gpu_kernel_begin(b, &k, 0, &err) == 0, "%s", err.msg);
        uint64_t seed = 4242 + ci;
        uint32_t head = 0, count = 0;
        int prepared = 0, gathers = 0, strided = 0, pending = 0;
        for (int rep = 0; rep < 60000; rep++) {
            uint64_t x = next_rand(&seed), y = next_rand(&seed);
            trace_event *ev = &ring[(head + count) % SLOTS];
            memset(ev, 0, sizeof *ev);
            ev->type = TRACE_EV_MEM;
            trace_mem *m = &ev->mem;
            m->cta = (uint32_t)(x % 64u);
            m->warp = (uint32_t)((x >> 6) % 8u);
            m->pc = (uint32_t)((x >> 9) % 16u) * 16u;
            m->sm = TRACE_SM_UNKNOWN;
            m->kind = (uint8_t)((x >> 13) % 4u);
            if ((x >> 13) % 7u < 4u) /* mostly global */
                m->space = TRACE_SPACE_GLOBAL;
            else
                m->space = (uint8_t)((x >> 15) % 3u);
            if (m->space == TRACE_SPACE_LOCAL && m->kind >= TRACE_KIND_ATOM)
                m->kind = TRACE_KIND_LD;
            m->size_bytes = (uint8_t)(1u << ((x >> 17) % 5u));
            m->cache_op = (uint8_t)((x >> 20) % 8u < 6u ? TRACE_CACHE_DEFAULT : (x >> 20) % 7u);
            m->flags = (uint8_t)((x >> 23) % 16u == 0 ? TRACE_MEM_LDGSTS : 0u);
            m->active_mask = (x >> 27) % 4u ? TRACE_FULL_MASK : (uint32_t)(y >> 32) | 1u;
            uint64_t size = m->size_bytes, stride;
            switch ((x >> 30) % 6u) {
            case 0: stride = size; break;
            case 1: stride = 0; break;
            case 2: stride = size << ((x >> 33) % 8u); break;
            case 3: stride = size * (3u + (x >> 33) % 5u); break;
            case 4: stride = 0 - size * (1u + (x >> 33) % 4u); break;
            default: stride = size * 4096u; break;
            }
            uint64_t base = m->space == TRACE_SPACE_GLOBAL ? 0x7f0000000000ull + (y % (1u << 20)) * 16u
                                                           : 0x10000u + (y % 4096u) * 16u;
            base &= ~(size - 1u);
            bool gather = m->space == TRACE_SPACE_GLOBAL && (x >> 36) % 3u == 0;
            uint64_t z = y;
            for (int l = 0; l < TRACE_WARP_LANES; l++) {
                uint64_t at = base + stride * (uint64_t)l;
                if (gather) { /* over 8 lines, or over 64 MiB */
                    z = next_rand(&seed);
                    at = (x >> 38) % 2u ? base + (z % 1024u) * size : 0x7e0000000000ull + (z % (1u << 26));
                    at &= ~(size - 1u);
                }
                m->addr[l] = (m->active_mask >> l & 1u) ? at : 0;
            }
            ev->mem_strided = !gather && (x >> 39) % 4u != 0;
            ev->mem_base = base;
            ev->mem_stride = stride;
            if (trace_mem_validate(&k, m, &err) != 0)
                continue;
            whole[(head + count) % SLOTS] = *m;
            /* a lazy reader's whole strided warp: lane 0 alone, the rest
             * garbage until trace_event_fill_lanes (in one bank, on lines
             * of their own: a path that reads them counts differently) */
            if (ev->mem_strided && m->active_mask == TRACE_FULL_MASK && (x >> 50) % 2u) {
                ev->mem_lanes_pending = true;
                for (int l = 1; l < TRACE_WARP_LANES; l++)
                    m->addr[l] = base + (uint64_t)l * 8192u + 4096u;
                pending++;
            }
            gathers += gather;
            strided += ev->mem_strided;
            /* announce it (most of the time), in its own slot */
            announced[(head + count) % SLOTS] = (x >> 41) % 8u != 0;
            if (announced[(head + count) % SLOTS]) {
                gpu_prepare(a, ev, prep, (head + count) % SLOTS);
                prepared++;
            }
            count++;
            /* simulate the oldest when the ring is full, or sometimes sooner */
            while (count == SLOTS || (count > 0 && (x >> 44) % 3u == 0)) {
                trace_event *old = &ring[head];
                /* a record not announced, now and then given the next
                 * slot: simulated from its lanes, and that slot's record
                 * too (gpu_mem_prepared freed the slot) */
                uint32_t slot = !announced[head] && (x >> 47) % 4u == 0 ? (head + 1u) % SLOTS : head;
                gpu_mem_prepared(a, old, prep, slot);
                if (old->mem_strided)
                    gpu_mem_strided(b, &whole[head], old->mem_base, old->mem_stride);
                else
                    gpu_mem(b, &whole[head]);
                head = (head + 1u) % SLOTS;
                count--;
                x >>= 1;
            }
        }
        while (count > 0) {
            gpu_mem_prepared(a, &ring[head], prep, head);
            gpu_mem(b, &whole[head]);
            head = (head + 1u) % SLOTS;
            count--;
        }
        ck_assert_int_gt(prepared, 20000);
        ck_assert_int_gt(gathers, 5000);
        ck_assert_int_gt(strided, 10000);
        ck_assert_int_gt(pending, 5000);
        stats sa, sb;
        gpu_kernel_end(a, &sa);
        gpu_kernel_end(b, &sb);
        for (int i = 0; i < STAT_COUNT; i++)
            ck_assert_msg(sa.v[i] == sb.v[i], "%s: %s %llu, expected %llu", configs[ci],
                          stat_name((stat_id)i), (unsigned long long)sa.v[i],
                          (unsigned long long)sb.v[i]);
        if (observed) {
            ck_assert_uint_gt(eb.records, 20000);
            ck_assert_uint_gt(eb.requests, 100000);
            ck_assert_uint_eq(ea.records, eb.records);
            ck_assert_uint_eq(ea.requests, eb.requests);
            ck_assert_msg(ea.sum == eb.sum, "observed events differ");
        }
        uint32_t na, nb;
        const gpu_pc_stats *pa = gpu_pc_breakdown(a, &na), *pb = gpu_pc_breakdown(b, &nb);
        ck_assert_uint_eq(na, nb);
        for (uint32_t p = 0; p < na; p++) {
            ck_assert_uint_eq(pa[p].pc, pb[p].pc);
            ck_assert_uint_eq(pa[p].executions, pb[p].executions);
            for (int i = 0; i < STAT_COUNT; i++)
                ck_assert_uint_eq(pa[p].s.v[i], pb[p].s.v[i]);
        }
        gpu_prep_destroy(prep);
        gpu_destroy(a);
        gpu_destroy(b);
    }
}
END_TEST

/* The L2's placement memo (filled by the hints) gives the same counts as no
 * hints: random reads, writes and atomics over lines that collide in the
 * memo, each announced (or not) a few requests before. */
START_TEST(l2_hints_change_no_count)
{
    cfg_gpu cfg;
    err_info err = {{0}};
    ck_assert_msg(cfg_load("configs/h200.ini", &cfg, &err) == 0, "%s", err.msg);
    /* small: evictions, write-backs (192 sets a partition of 4 ways, at most
     * 2 dirty: fewer than the 2,048 lines below, which l2.placement = page
     * spreads evenly) */
    cfg.l2_slices = 24;
    cfg.l2_sets_per_slice = 16;
    cfg.l2_ways = 4;
    cfg.l2_dirty_ways = 2;
    l2 *hinted = l2_create(&cfg), *plain = l2_create(&cfg);
    stats a, b;
    stats_clear(&a);
    stats_clear(&b);
    uint64_t seed = 99;
    uint64_t ahead[8] = {0};
    for (int rep = 0; rep < 200000; rep++) {
        uint64_t x = next_rand(&seed);
        /* lines 256 apart share a memo slot; a few hundred lines in all */
        uint64_t line = (x % 8u) * 256u + (x >> 3) % 64u + ((x >> 9) % 4u) * 0x100000u;
        uint32_t part = (uint32_t)((x >> 12) % 2u), mask = (uint32_t)((x >> 13) % 15u) + 1u;
        ahead[rep % 8] = line;
        if ((x >> 20) % 3u) /* announce this one, or another of the last few */
            l2_prefetch_read(hinted, part, ahead[(x >> 22) % 8u]);
        else
            l2_prefetch(hinted, ahead[(x >> 22) % 8u]);
        uint32_t bytes[4] = {0xffffffffu, 0x0000ffffu, 0xffffffffu, 0xff00u};
        switch ((x >> 25) % 4u) {
        case 0:
        case 1:
            l2_read(hinted, part, line, mask, &a);
            l2_read(plain, part, line, mask, &b);
            break;
        case 2:
            l2_write(hinted, part, line, mask, bytes, &a);
            l2_write(plain, part, line, mask, bytes, &b);
            break;
        default:
            l2_atomic(hinted, part, line, mask, (x >> 27) & 1u, &a);
            l2_atomic(plain, part, line, mask, (x >> 27) & 1u, &b);
            break;
        }
    }
    for (int i = 0; i < STAT_COUNT; i++)
        ck_assert_msg(a.v[i] == b.v[i], "%s %llu, expected %llu", stat_name((stat_id)i),
                      (unsigned long long)a.v[i], (unsigned long long)b.v[i]);
    ck_assert_uint_gt(a.v[STAT_DRAM_SECT_WRITE], 1000);
    for (uint32_t p = 0; p < 2; p++)
        ck_assert_uint_eq(l2_count_lines(hinted, p), l2_count_lines(plain, p));
    l2_destroy(hinted);
    l2_destroy(plain);
}
END_TEST

/* ---- coal_run's hashed line search equals a linear search ---------------------- */

/* coal_run as it was: every new line compared with every line before it. */
static void coal_run_linear(const coal_geom *g, const coal_chunk *chunks, uint32_t n, coal_result *out)
{
    uint32_t n_lines = 0, n_sectors = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t line = chunks[i].addr >> g->line_shift;
        uint32_t idx = n_lines;
        for (uint32_t j = 0; j < n_lines; j++)
            if (out->lines[j].line == line)
                idx = j;
        if (idx == n_lines) {
            memset(&out->lines[idx], 0, sizeof out->lines[idx]);
            out->lines[idx].line = line;
            n_lines++;
        }
        coal_line *l = &out->lines[idx];
        uint32_t s = (uint32_t)(chunks[i].addr >> g->sector_shift) & (g->sectors_per_line - 1u);
        if (!(l->sector_mask & (1u << s))) {
            l->sector_mask |= 1u << s;
            n_sectors++;
        }
        l->byte_mask[s] |= coal_byte_mask((uint32_t)chunks[i].addr & (g->sector_bytes - 1u),
                                          chunks[i].bytes);
    }
    out->n_lines = n_lines;
    out->n_sectors = n_sectors;
}

START_TEST(coal_run_hash_equals_linear_search)
{
    coal_geom g;
    coal_geom_init(&g, 128, 32);
    uint64_t seed = 99;
    coal_chunk ch[COAL_MAX_CHUNKS];
    static coal_result fast, slow;
    for (int rep = 0; rep < 20000; rep++) {
        uint32_t n = 1u + (uint32_t)(next_rand(&seed) % COAL_MAX_CHUNKS);
        /* lines from a pool of 1 to 200: repeats, runs, and gathers of up to 128 lines */
        uint64_t pool = 1u + next_rand(&seed) % 200u;
        uint64_t base = next_rand(&seed) % ((uint64_t)1 << 40);
        for (uint32_t i = 0; i < n; i++) {
            uint64_t x = next_rand(&seed);
            uint32_t size = 1u << (x % 5u);
            uint64_t line = rep % 5 == 0 ? base + i / 4u : base + ((x >> 8) % pool) * ((x >> 40) % 3u + 1u);
            ch[i].addr = line * 128u + (((x >> 16) % 128u) & ~(uint64_t)(size - 1u));
            ch[i].bytes = (uint8_t)size;
            ch[i].lane = (uint8_t)(i % 32u);
        }
        coal_run(&g, ch, n, &fast);
        coal_run_linear(&g, ch, n, &slow);
        assert_same_result(&fast, &slow, ch[0].addr, 0, n);
    }
}
END_TEST

/* ---- gathers: coal_lanes and smem_cost_lanes against the per-chunk code ------- */

/* A warp of one access size: lanes gathered from a pool of 1 to 40 lines (a
 * line per lane, lanes sharing lines, words and whole addresses), or
 * coalesced runs; random active lanes. Fills addr[32], returns the mask. */
static uint32_t gather_warp(uint64_t *seed, uint32_t line_bytes, uint32_t size, uint64_t *addr)
{
    uint64_t x = next_rand(seed);
    uint32_t mask = x % 4u == 0 ? 0xffffffffu : (uint32_t)next_rand(seed) | 1u << (x >> 2) % 32u;
    uint64_t pool = 1u + (x >> 8) % 40u;
    uint64_t base = (next_rand(seed) % ((uint64_t)1 << 40)) * line_bytes;
    uint32_t kind = (uint32_t)(x >> 16) % 4u;
    for (uint32_t l = 0; l < 32; l++) {
        uint64_t y = next_rand(seed);
        uint64_t line = kind == 0 ? y % ((uint64_t)1 << 40) : kind == 3 ? l * size / line_bytes : y % pool;
        uint64_t off = kind == 3 ? l * size % line_bytes
                       : kind == 2 ? ((y >> 44) % 4u) * size % line_bytes /* few words: broadcasts */
                                   : (y >> 44) % line_bytes;
        addr[l] = base + line * line_bytes + (off & ~(uint64_t)(size - 1u));
    }
    return mask;
}

static uint32_t lane_chunks_of(const uint64_t *addr, uint32_t mask, uint32_t size, coal_chunk *c)
{
    uint32_t n = 0;
    for (uint32_t l = 0; l < 32; l++) {
        if (mask & (1u << l)) {
            c[n].addr = addr[l];
            c[n].bytes = (uint8_t)size;
            c[n].lane = (uint8_t)l;
            n++;
        }
    }
    return n;
}

START_TEST(coal_lanes_equals_coal_run)
{
    /* 128-byte lines of 32-byte sectors (every config: coal_lanes' constants),
     * and other geometries (its general build) */
    static const uint32_t geoms[][2] = {{128, 32}, {64, 32}, {64, 16}, {32, 8}};
    static const uint32_t sizes[] = {1, 2, 4, 8, 16};
    uint64_t seed = 2027;
    uint64_t addr[32];
    coal_chunk ch[32];
    uint8_t line_of[32];
    static coal_result fast, slow;
    int compared = 0;
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++) {
        coal_geom g;
        coal_geom_init(&g, geoms[gi][0], geoms[gi][1]);
        for (int rep = 0; rep < 5000; rep++) {
            uint32_t size = sizes[rep % 5];
            if (size > g.sector_bytes)
                continue;
            uint32_t mask = gather_warp(&seed, g.line_bytes, size, addr);
            uint32_t bytes = coal_lanes(&g, addr, mask, size, &fast, line_of);
            uint32_t n = lane_chunks_of(addr, mask, size, ch);
            coal_run(&g, ch, n, &slow);
            assert_same_result(&fast, &slow, addr[__builtin_ctz(mask)], 0, size);
            uint32_t distinct = 0; /* what gpu.c counted before: each byte once */
            for (uint32_t i = 0; i < slow.n_lines; i++)
                for (uint32_t s = 0; s < COAL_MAX_SECTORS_PER_LINE; s++)
                    distinct += (uint32_t)__builtin_popcount(slow.lines[i].byte_mask[s]);
            ck_assert_uint_eq(bytes, distinct);
            for (uint32_t k = 0; k < n; k++)
                ck_assert_uint_eq(fast.lines[line_of[k]].line, ch[k].addr >> g.line_shift);
            compared++;
        }
    }
    ck_assert_int_gt(compared, 17000);
}
END_TEST

START_TEST(smem_cost_lanes_equals_smem_cost_chunks)
{
    /* the shipped banks (32 x 4 bytes: smem_cost_lanes' constants), others
     * (its general build); Kepler's 8-byte banks in 4-byte mode are refused */
    static const uint32_t geoms[][3] = {{32, 4, 4}, {16, 4, 4}, {64, 4, 4}, {32, 8, 8}, {8, 4, 4}};
    static const uint32_t lines[] = {128, 64};
    static const uint32_t sizes[] = {1, 2, 4, 8, 16};
    uint64_t seed = 31337;
    uint64_t addr[32];
    coal_chunk ch[32];
    uint8_t line_of[32];
    static coal_result r;
    int compared = 0, distinct = 0;
    for (size_t gi = 0; gi < sizeof geoms / sizeof geoms[0]; gi++) {
        smem_geom g;
        smem_geom_init(&g, geoms[gi][0], geoms[gi][1], geoms[gi][2]);
        for (size_t li = 0; li < sizeof lines / sizeof lines[0]; li++) {
            coal_geom cg;
            coal_geom_init(&cg, lines[li], 32);
            for (int rep = 0; rep < 3000; rep++) {
                uint32_t size = sizes[rep % 5];
                uint32_t lpp = 1u << (rep / 5 % 6); /* every phase width, 1 to 32 lanes */
                uint32_t mask = gather_warp(&seed, cg.line_bytes, size, addr);
                coal_lanes(&cg, addr, mask, size, &r, line_of);
                smem_cost fast;
                ck_assert(smem_cost_lanes(&g, addr, mask, size, line_of, r.n_lines, cg.line_shift,
                                          lpp, &fast));
                smem_cost slow = smem_cost_chunks(&g, ch, lane_chunks_of(addr, mask, size, ch), lpp, false);
                ck_assert_msg(fast.wavefronts == slow.wavefronts && fast.ideal == slow.ideal,
                              "banks %u x %u, line %u, size %u, lpp %u, mask 0x%x: %u/%u, expected %u/%u",
                              g.banks, g.bank_bytes, cg.line_bytes, size, lpp, mask, fast.wavefronts,
                              fast.ideal, slow.wavefronts, slow.ideal);
                distinct += r.n_lines == (uint32_t)__builtin_popcount(mask);
                compared++;
            }
        }
    }
    ck_assert_int_eq(compared, 30000);
    ck_assert_int_gt(distinct, 5000);          /* a line per lane: the gathers' loop */
    ck_assert_int_gt(compared - distinct, 5000); /* shared lines: the word masks */
    smem_geom kepler;
    smem_geom_init(&kepler, 32, 8, 4);
    coal_geom cg;
    coal_geom_init(&cg, 128, 32);
    smem_cost c;
    for (uint32_t l = 0; l < 32; l++)
        addr[l] = l * 4096u;
    coal_lanes(&cg, addr, 0xffffffffu, 4, &r, line_of);
    ck_assert(!smem_cost_lanes(&kepler, addr, 0xffffffffu, 4, line_of, r.n_lines, cg.line_shift, 32, &c));
}
END_TEST

/* ---- the LRU order without a scan equals stamps with a first-oldest scan ------ */

/* The replacement rule as it was written with stamps: each use takes the next
 * value of a clock, an evict-first insertion stamp 0, the victim is the first
 * way of the lowest stamp; valid ways are packed, a drop moves the last one
 * into the hole. */
typedef struct ref_set {
    uint32_t n;
    uint64_t line[CACHE_MAX_WAYS];
    uint64_t stamp[CACHE_MAX_WAYS];
    uint32_t full[CACHE_MAX_WAYS], dirty[CACHE_MAX_WAYS];
} ref_set;

static int ref_find(const ref_set *r, uint64_t line)
{
    for (uint32_t w = 0; w < r->n; w++)
        if (r->line[w] == line)
            return (int)w;
    return -1;
}

START_TEST(lru_list_equals_stamp_scan)
{
    uint64_t seed = 4242;
    static const uint32_t way_counts[] = {1, 2, 3, 4, 7, 8, 9, 20, 33, 64, 128, 255};
    for (size_t wi = 0; wi < sizeof way_counts / sizeof way_counts[0]; wi++) {
        uint32_t ways = way_counts[wi];
        cache *c = cache_create(4, ways, 4, 32, CFG_INDEX_LINEAR);
        static ref_set ref[4];
        memset(ref, 0, sizeof ref);
        uint64_t clock = 0;
        /* In phases of 10,000 operations, dirty marks come 1 in 2, then 1 in
         * 32 (sets full of dirty ways, and sets of nearly none); the rare
         * phases begin with a reset, which leaves the dirty phase's state
         * and aux bytes behind in the set blocks. */
        uint32_t dirty_every = 1;
        for (int op = 0; op < 60000; op++) {
            if (op % 10000 == 0) {
                dirty_every = (op / 10000) % 2u ? 16u : 1u;
                if (dirty_every > 1u) {
                    cache_reset(c, ways);
                    memset(ref, 0, sizeof ref);
                }
            }
            uint32_t set = (uint32_t)(next_rand(&seed) % 4u);
            ref_set *r = &ref[set];
            uint64_t x = next_rand(&seed);
            /* lines from a pool about twice the set: hits, misses and evictions */
            uint64_t line = 1 + x % (2u * ways + 1u);
            uint32_t what = (uint32_t)(x >> 32) % 16u;
            int way = cache_find(c, set, line);
            ck_assert_int_eq(way, ref_find(r, line));
            if (what == 15 && way >= 0) { /* drop */
                cache_drop(c, set, way);
                uint32_t last = --r->n;
                r->line[way] = r->line[last];
                r->stamp[way] = r->stamp[last];
                r->full[way] = r->full[last];
                r->dirty[way] = r->dirty[last];
                continue;
            }
            if (way >= 0) { /* a hit: the way is used, its state changes too */
                cache_touch(c, set, way);
                r->stamp[way] = ++clock;
            } else { /* a miss: evict-first insertions 1 in 4 */
                bool ef = what < 4;
                cache_evicted ev;
                way = cache_alloc(c, set, line, ef, &ev);
                int want;
                if (r->n < ways) {
                    want = (int)r->n++;
                    ck_assert(!ev.valid);
                } else {
                    want = 0;
                    for (uint32_t w = 1; w < r->n; w++)
                        if (r->stamp[w] < r->stamp[want])
                            want = (int)w;
                    ck_assert(ev.valid);
                    ck_assert_uint_eq(ev.line, r->line[want]);
                    ck_assert_uint_eq(ev.dirty, r->dirty[want]);
                }
                ck_assert_msg(way == want, "ways %u op %d: way %d, expected %d", ways, op, way, want);
                r->line[way] = line;
                r->stamp[way] = ef ? 0 : ++clock;
                r->full[way] = r->dirty[way] = 0;
            }
            uint32_t m = (uint32_t)(x >> 40) & 0xfu;
            if (what & 1u) {
                cache_fill(c, set, way, m);
                r->full[way] |= m;
            }
            if ((what & 2u) && (x >> 48) % dirty_every == 0) {
                cache_mark_dirty(c, set, way, m);
                r->dirty[way] |= m;
            }
            if (what == 14) {
                cache_invalidate_sectors(c, set, way, m);
                r->full[way] &= ~m;
                r->dirty[way] &= ~m;
            }
            ck_assert_uint_eq(cache_full(c, set, way), r->full[way]);
            ck_assert_uint_eq(cache_dirty(c, set, way), r->dirty[way]);
        }
        for (uint32_t set = 0; set < 4; set++)
            for (uint32_t w = 0; w < ref[set].n; w++)
                ck_assert_int_eq(cache_find(c, set, ref[set].line[w]), (int)w);
        cache_reset(c, ways);
        ck_assert_uint_eq(cache_count_lines(c), 0);
        cache_destroy(c);
    }
}
END_TEST

/* ---- the AVX2 builds of l1_load and l1_store equal the baseline's ------------ */

/* The L1's hint memo (l1_prefetch keeps a line's set for the lookup that
 * follows): two L1s take the same loads and stores, one also hints, for the
 * line about to come or one of the last few, lines whose low bits collide in
 * the memo (a memo that skipped its line check would use another line's set):
 * the same misses and counts after every call, XOR-hashed sets and linear. */
/* The L1 store and the L2 write fill the sectors a store leaves whole with
 * one cache_view_fill instead of adding each one's bytes (the L1) or a fill
 * per sector (the L2); what that rests on: on a way in any state (sectors
 * whole, partly valid, absent), filling a set of sectors at once leaves the
 * same state as adding all the bytes of each, one sector after the other.
 * Two caches take the same random history; one of them fills, the other adds. */
START_TEST(whole_sector_fill_equals_adding_its_bytes)
{
    cache *a = cache_create(1, 4, 4, 32, CFG_INDEX_LINEAR), *b = cache_create(1, 4, 4, 32, CFG_INDEX_LINEAR);
    for (uint64_t line = 0; line < 4; line++) {
        ck_assert_int_eq(cache_alloc(a, 0, line, false, NULL), (int)line);
        ck_assert_int_eq(cache_alloc(b, 0, line, false, NULL), (int)line);
    }
    uint64_t seed = 5;
    int fills = 0;
    for (int op = 0; op < 200000; op++) {
        uint64_t x = next_rand(&seed);
        int way = (int)(x % 4u);
        uint32_t sector = (uint32_t)(x >> 2) % 4u, mask = (uint32_t)(x >> 4) % 16u;
        uint32_t bytes = (x >> 8) % 4u == 0 ? 0xffffffffu : (uint32_t)(x >> 16) & (uint32_t)(x >> 40);
        switch ((x >> 60) % 4u) {
        case 0:
        case 1: /* a partial (or whole) write of one sector, the same on both */
            cache_add_bytes(a, 0, way, sector, bytes);
            cache_add_bytes(b, 0, way, sector, bytes);
            break;
        case 2:
            cache_invalidate_sectors(a, 0, way, mask);
            cache_invalidate_sectors(b, 0, way, mask);
            break;
        default: /* sectors written whole: one fill, or their bytes added */
            cache_fill(a, 0, way, mask);
            for (uint32_t m = mask; m; m &= m - 1u)
                cache_add_bytes(b, 0, way, (uint32_t)__builtin_ctz(m), 0xffffffffu);
            fills++;
            break;
        }
        for (int w = 0; w < 4; w++) {
            ck_assert_uint_eq(cache_full(a, 0, w), cache_full(b, 0, w));
            ck_assert_uint_eq(cache_present(a, 0, w), cache_present(b, 0, w));
            for (uint32_t k = 0; k < 4; k++)
                ck_assert_uint_eq(cache_valid_bytes(a, 0, w, k), cache_valid_bytes(b, 0, w, k));
        }
    }
    ck_assert_int_gt(fills, 10000);
    cache_destroy(a);
    cache_destroy(b);
}
END_TEST

START_TEST(l1_hints_change_no_count)
{
    uint64_t seed = 7;
    for (int linear = 0; linear < 3; linear++) {
        cfg_gpu cfg;
        test_cfg_h200(&cfg);
        uint32_t capacity = 32 * 1024;
        if (linear < 2) {
            cfg.l1_sets = 32;
            cfg.l1_ways = 0;
            cfg.l1_unified_kib = 32; /* 8 ways: evictions */
            cfg.l1_set_index = linear ? CFG_INDEX_LINEAR : CFG_INDEX_XOR;
        } else {
            capacity = 28 * 1024; /* the H200's sets, 224 lines of data: evictions across sets */
        }
        l1 *hinted = l1_create(&cfg), *plain = l1_create(&cfg);
        l1_reset(hinted, capacity);
        l1_reset(plain, capacity);
        uint64_t ahead[8] = {0};
        static coal_result r;
        for (int op = 0; op < 100000; op++) {
            uint64_t x = next_rand(&seed);
            memset(&r, 0, sizeof r);
            r.n_lines = 1u + (uint32_t)(x % 3u);
            for (uint32_t i = 0; i < r.n_lines; i++) {
                /* lines L1_HINT_SLOTS apart share a memo slot (i * 1024, and
                 * the second term 16 steps apart); a few hundred in all */
                r.lines[i].line = i * 1024u + ((x >> 4) % 64u) * 8u + (x >> 12) % 3u;
                r.lines[i].sector_mask = 1u + (uint32_t)((x >> 16) % 15u);
                for (uint32_t k = 0; k < 4; k++)
                    r.lines[i].byte_mask[k] = 0xffffffffu;
            }
            ahead[op % 8] = r.lines[0].line;
            l1_prefetch(hinted, (x >> 24) % 2u ? r.lines[0].line : ahead[(x >> 25) % 8u]);
            uint32_t ha, ma, hb, mb;
            if ((x >> 30) % 4u == 0) {
                l1_store(hinted, &r, CFG_L1_STORES_UPDATE, &ha, &ma);
                l1_store(plain, &r, CFG_L1_STORES_UPDATE, &hb, &mb);
            } else {
                uint32_t miss_a[COAL_MAX_LINES], miss_b[COAL_MAX_LINES];
                l1_load(hinted, &r, L1_LOAD_CACHE, miss_a, &ha, &ma);
                l1_load(plain, &r, L1_LOAD_CACHE, miss_b, &hb, &mb);
                ck_assert_int_eq(memcmp(miss_a, miss_b, r.n_lines * sizeof miss_a[0]), 0);
            }
            ck_assert_msg(ha == hb && ma == mb, "op %d: hits %u/%u misses %u/%u", op, ha, hb, ma, mb);
        }
        l1_destroy(hinted);
        l1_destroy(plain);
    }
}
END_TEST

START_TEST(l1_avx2_equals_baseline)
{
    /* Two L1s take the same loads and stores, one by the baseline code and
     * one by the AVX2 builds (where the CPU has AVX2; else both are the
     * baseline and this checks nothing new): the same misses and counts
     * after every call. Way counts 64 and 7 (the H200's carveouts) and 248
     * (one set: four 64-way groups of fingerprints); lines from a pool about
     * twice the capacity, partial stores, evict-first and bypassing loads. */
    static const struct { uint32_t sets, ways, kib, capacity; } geo[] = {
        {32, 0, 256, 256 * 1024}, {32, 0, 256, 28 * 1024}, {1, 0, 31, 248 * 128},
        {512, 4, 256, 224 * 1024}, {512, 4, 256, 28 * 1024}}; /* the last two: the H200's sets */
    uint64_t seed = 99;
    for (size_t gi = 0; gi < sizeof geo / sizeof geo[0]; gi++) {
        cfg_gpu cfg;
        test_cfg_h200(&cfg);
        cfg.l1_sets = geo[gi].sets;
        cfg.l1_ways = geo[gi].ways;
        cfg.l1_unified_kib = geo[gi].kib;
        if (!geo[gi].ways)
            cfg.l1_set_index = CFG_INDEX_XOR;
        l1 *a = l1_create(&cfg), *b = l1_create(&cfg);
        l1_use_avx2(a, false);
        l1_use_avx2(b, true);
        l1_reset(a, geo[gi].capacity);
        l1_reset(b, geo[gi].capacity);
        uint64_t pool = 2u * geo[gi].capacity / 128u + 1u;
        static coal_result r;
        for (int op = 0; op < 20000; op++) {
            uint64_t x = next_rand(&seed);
            memset(&r, 0, sizeof r);
            r.n_lines = 1u + (uint32_t)(x % 32u);
            for (uint32_t i = 0; i < r.n_lines; i++) {
                uint64_t y = next_rand(&seed);
                r.lines[i].line = 1u + i + (y % pool) * 64u; /* distinct lines */
                r.lines[i].sector_mask = 1u + (uint32_t)(y >> 32) % 15u;
                for (uint32_t k = 0; k < 4; k++)
                    r.lines[i].byte_mask[k] = (y >> 40) % 4u ? 0xffffffffu : (uint32_t)(y >> (k * 8u));
            }
            if ((x >> 40) % 4u == 0) {
                uint32_t ha, ma, hb, mb;
                l1_store_baseline(a, &r, CFG_L1_STORES_UPDATE, &ha, &ma);
                l1_store(b, &r, CFG_L1_STORES_UPDATE, &hb, &mb);
                ck_assert_uint_eq(ha, hb);
                ck_assert_uint_eq(ma, mb);
                continue;
            }
            l1_load_mode mode = (x >> 44) % 8u == 0   ? L1_LOAD_EVICT_FIRST
                                : (x >> 44) % 8u == 1 ? L1_LOAD_BYPASS
                                                      : L1_LOAD_CACHE;
            uint32_t miss_a[COAL_MAX_LINES], miss_b[COAL_MAX_LINES], ha, ma, hb, mb;
            l1_load_baseline(a, &r, mode, miss_a, &ha, &ma);
            l1_load(b, &r, mode, miss_b, &hb, &mb);
            ck_assert_msg(ha == hb && ma == mb, "geometry %zu op %d: hits %u/%u misses %u/%u", gi, op,
                          ha, hb, ma, mb);
            ck_assert_int_eq(memcmp(miss_a, miss_b, r.n_lines * sizeof miss_a[0]), 0);
        }
        l1_destroy(a);
        l1_destroy(b);
    }
}
END_TEST

/* ---- the AVX2 builds of l2_read and l2_write equal the baseline's ------------ */

START_TEST(l2_avx2_equals_baseline)
{
    /* As l1_avx2_equals_baseline: two L2s take the same reads, writes
     * and atomics, reads and writes by the baseline code and by the AVX2
     * builds; every counter the same after every request. 20 ways (the
     * H200), 33 and 64 (two 32-way steps); 24 slices of 16 sets (configs/h200.ini's
     * placement and dirty limit), so sets fill, evict and write back. */
    static const uint32_t ways[] = {20, 33, 64};
    uint64_t seed = 7;
    for (size_t wi = 0; wi < sizeof ways / sizeof ways[0]; wi++) {
        cfg_gpu cfg;
        err_info err = {{0}};
        ck_assert_msg(cfg_load("configs/h200.ini", &cfg, &err) == 0, "%s", err.msg);
        cfg.l2_slices = 24;
        cfg.l2_sets_per_slice = 16;
        cfg.l2_ways = ways[wi];
        l2 *a = l2_create(&cfg), *b = l2_create(&cfg);
        l2_use_avx2(a, false);
        l2_use_avx2(b, true);
        stats sa, sb;
        stats_clear(&sa);
        stats_clear(&sb);
        /* 2 x 192 sets x ways lines; the pool is about twice that */
        uint64_t pool = 2u * 2u * 192u * ways[wi];
        for (int op = 0; op < 100000; op++) {
            uint64_t x = next_rand(&seed);
            uint64_t line = 1u + (x >> 24) % pool;
            uint32_t part = (uint32_t)(x % 2u), mask = (uint32_t)((x >> 1) % 15u) + 1u;
            uint32_t bytes[4] = {0xffffffffu, 0x0000ffffu, 0xffffffffu, 0xff00u};
            switch ((x >> 8) % 8u) {
            case 0:
                l2_write_baseline(a, part, line, mask, bytes, &sa);
                l2_write(b, part, line, mask, bytes, &sb);
                break;
            case 1:
                l2_atomic(a, part, line, mask, (x >> 12) & 1u, &sa);
                l2_atomic(b, part, line, mask, (x >> 12) & 1u, &sb);
                break;
            default:
                l2_read_baseline(a, part, line, mask, &sa);
                l2_read(b, part, line, mask, &sb);
                break;
            }
            ck_assert_msg(memcmp(sa.v, sb.v, sizeof sa.v) == 0, "ways %u op %d: counters differ",
                          ways[wi], op);
        }
        ck_assert_uint_gt(sa.v[STAT_DRAM_SECT_WRITE], 1000);
        for (uint32_t p = 0; p < 2; p++)
            ck_assert_uint_eq(l2_count_lines(a, p), l2_count_lines(b, p));
        l2_destroy(a);
        l2_destroy(b);
    }
}
END_TEST

/* ---- read-ahead and prefetch hints change no count ---------------------------- */

typedef struct totals {
    int n;
    stats s[64];
} totals;

static int keep(void *ctx, const replay_kernel_result *r, err_info *err)
{
    (void)err;
    totals *t = ctx;
    ck_assert_int_lt(t->n, 64);
    t->s[t->n++] = r->totals;
    return 0;
}

/* The same trace through replay_trace (read-ahead, gpu_prefetch) and through a
 * plain loop of gpu_mem with no hints. */
static void replay_both_ways(const char *path, const char *config)
{
    cfg_gpu cfg;
    err_info err = {{0}};
    ck_assert_msg(cfg_load(config, &cfg, &err) == 0, "%s", err.msg);
    static totals fast, slow;
    fast.n = slow.n = 0;
    replay_options opt = {0};
    ck_assert_msg(replay_trace(path, &cfg, &opt, keep, &fast, &err) == 0, "%s", err.msg);

    trace_reader *r = trace_reader_open(path, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    const char *smc = trace_meta_get(trace_reader_meta(r), "sm_count");
    uint32_t sm_count = smc ? (uint32_t)strtoul(smc, NULL, 10) : 0;
    gpu *g = gpu_create(&cfg);
    trace_event ev;
    int rc;
    while ((rc = trace_reader_next(r, &ev, &err)) == 1) {
        if (ev.type == TRACE_EV_KERNEL)
            ck_assert_msg(gpu_kernel_begin(g, ev.kernel, sm_count, &err) == 0, "%s", err.msg);
        else if (ev.type == TRACE_EV_MEM)
            gpu_mem(g, &ev.mem);
        else if (ev.type == TRACE_EV_BARRIER)
            gpu_barrier(g, &ev.barrier);
        else if (ev.type == TRACE_EV_KERNEL_END)
            gpu_kernel_end(g, &slow.s[slow.n++]);
    }
    ck_assert_msg(rc == 0, "%s", err.msg);
    gpu_destroy(g);
    trace_reader_close(r);

    ck_assert_int_eq(fast.n, slow.n);
    for (int k = 0; k < fast.n; k++)
        for (int i = 0; i < STAT_COUNT; i++)
            ck_assert_msg(fast.s[k].v[i] == slow.s[k].v[i], "%s, %s: kernel %d: %s %llu, expected %llu",
                          path, config, k, stat_name((stat_id)i),
                          (unsigned long long)fast.s[k].v[i], (unsigned long long)slow.s[k].v[i]);
}

START_TEST(read_ahead_changes_no_count)
{
    static const char *const traces[] = {"traces/h200/matrixMul_tiled16.trace",
                                         "traces/h200/atomic_same.trace",
                                         "traces/h200/local_array.trace",
                                         "traces/h200/transpose_shared.trace"};
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        replay_both_ways(traces[i], "configs/h200.ini");
        replay_both_ways(traces[i], "configs/k20c.ini");
    }
}
END_TEST

/* A reader with lazy lanes gives the same events as one without, once
 * trace_event_fill_lanes has written the lanes: every record of a few suite
 * traces (whole strided warps, partial ones, gathers, shared, local). */
START_TEST(lazy_lanes_fill_to_the_same_records)
{
    static const char *const traces[] = {"traces/h200/matrixMul_tiled16.trace",
                                         "traces/h200/local_array.trace",
                                         "traces/h200/transpose_shared.trace",
                                         "traces/h200/histogram_skewed.trace"};
    uint64_t pending = 0, records = 0;
    for (size_t i = 0; i < sizeof traces / sizeof traces[0]; i++) {
        err_info err = {{0}};
        trace_reader_options lazy = {.lazy_lanes = true};
        trace_reader *a = trace_reader_open(traces[i], &lazy, &err);
        ck_assert_msg(a != NULL, "%s", err.msg);
        trace_reader *b = trace_reader_open(traces[i], NULL, &err);
        ck_assert_msg(b != NULL, "%s", err.msg);
        static trace_event ea, eb;
        int ra, rb;
        for (;;) {
            ra = trace_reader_next(a, &ea, &err);
            rb = trace_reader_next(b, &eb, &err);
            ck_assert_int_eq(ra, rb);
            if (ra <= 0)
                break;
            ck_assert_int_eq(ea.type, eb.type);
            if (ea.type != TRACE_EV_MEM)
                continue;
            records++;
            ck_assert(!eb.mem_lanes_pending);
            if (ea.mem_lanes_pending) {
                pending++;
                ck_assert(ea.mem_strided && ea.mem.active_mask == TRACE_FULL_MASK);
                ck_assert_uint_eq(ea.mem.addr[0], ea.mem_base);
                trace_event_fill_lanes(&ea);
                ck_assert(!ea.mem_lanes_pending);
            }
            ck_assert(ea.mem_strided == eb.mem_strided);
            ck_assert(memcmp(&ea.mem, &eb.mem, sizeof ea.mem) == 0);
        }
        ck_assert_int_eq(ra, 0);
        trace_reader_close(a);
        trace_reader_close(b);
    }
    ck_assert_uint_gt(pending, 10000);
    ck_assert_uint_gt(records, pending);
}
END_TEST

/* The reader's hot path takes a gather's record too (a two-byte length): a
 * synthetic trace of gathers and coalesced stores read from its binary form
 * gives the records its text form (`trace dump`, read back without the hot
 * path) gives, lane for lane. A wrong length would leave a record's bytes
 * unaccounted for, which the decoder refuses (the dump fails: so it does
 * with the length's high byte shifted by 6, not 7). */
START_TEST(gather_records_on_the_hot_path_equal_the_text_form)
{
    char dir[] = "/tmp/gms-fastpath-XXXXXX";
    ck_assert_ptr_nonnull(mkdtemp(dir));
    char bin[64], txt[64];
    snprintf(bin, sizeof bin, "%s/r.trace", dir);
    snprintf(txt, sizeof txt, "%s/r.txt", dir);
    char *synth_argv[] = {(char *)"synth", (char *)"--pattern", (char *)"random",
                          (char *)"--instructions", (char *)"3000", (char *)"-o", bin, NULL};
    ck_assert_int_eq(cmd_trace_synth(7, synth_argv), 0);
    char *dump_argv[] = {(char *)"trace", (char *)"dump", (char *)"-o", txt, bin, NULL};
    ck_assert_int_eq(cmd_trace(5, dump_argv), 0);
    err_info err = {{0}};
    trace_reader *a = trace_reader_open(bin, NULL, &err);
    ck_assert_msg(a != NULL, "%s", err.msg);
    trace_reader *b = trace_reader_open(txt, NULL, &err);
    ck_assert_msg(b != NULL, "%s", err.msg);
    ck_assert_int_eq(trace_reader_format(a), TRACE_FORMAT_BINARY);
    static trace_event ea, eb;
    int ra, rb, gathers = 0, records = 0;
    for (;;) {
        ra = trace_reader_next(a, &ea, &err);
        rb = trace_reader_next(b, &eb, &err);
        ck_assert_int_eq(ra, rb);
        if (ra <= 0)
            break;
        ck_assert_int_eq(ea.type, eb.type);
        if (ea.type != TRACE_EV_MEM)
            continue;
        records++;
        gathers += !ea.mem_strided;
        ck_assert(memcmp(&ea.mem, &eb.mem, sizeof ea.mem) == 0);
    }
    ck_assert_int_eq(ra, 0);
    ck_assert_int_gt(gathers, 1000);
    ck_assert_int_gt(records, gathers);
    trace_reader_close(a);
    trace_reader_close(b);
    unlink(bin);
    unlink(txt);
    rmdir(dir);
}
END_TEST

/* ---- the observer's prefetch event --------------------------------------------- */

typedef struct seen {
    int records, prefetches;
    const trace_mem *last;
} seen;

static void seen_record(void *ctx, const gpu_event *e)
{
    (void)e;
    ((seen *)ctx)->records++;
}

static void seen_prefetch(void *ctx, const trace_mem *m)
{
    seen *s = ctx;
    s->prefetches++;
    s->last = m;
}

/* gpu_prefetch tells the observer of every record it announces, inside a
 * kernel only, and announcing changes no count. */
START_TEST(observer_sees_each_prefetch)
{
    cfg_gpu cfg;
    err_info err = {{0}};
    ck_assert_msg(cfg_load("configs/h200.ini", &cfg, &err) == 0, "%s", err.msg);
    trace_kernel k;
    trace_kernel_init(&k);
    k.name = k.demangled = (char *)"k";
    k.grid[0] = 4, k.grid[1] = k.grid[2] = 1;
    k.block[0] = 256, k.block[1] = k.block[2] = 1;
    stats with, without;
    for (int pass = 0; pass < 2; pass++) {
        gpu *g = gpu_create(&cfg);
        seen sn = {0};
        gpu_observer o = {.record = seen_record, .prefetch = pass ? seen_prefetch : NULL, .ctx = &sn};
        gpu_set_observer(g, &o);
        trace_mem m = {0};
        m.kind = TRACE_KIND_LD, m.size_bytes = 4, m.active_mask = TRACE_FULL_MASK;
        ck_assert_uint_eq(gpu_prefetch(g, &m), 0); /* before the kernel: nothing */
        ck_assert_int_eq(sn.prefetches, 0);
        ck_assert_msg(gpu_kernel_begin(g, &k, 0, &err) == 0, "%s", err.msg);
        for (int i = 0; i < 40; i++) {
            m.cta = (uint32_t)(i % 4), m.warp = (uint32_t)(i % 8);
            m.kind = i % 3 == 2 ? TRACE_KIND_ST : TRACE_KIND_LD;
            m.space = i % 5 == 4 ? TRACE_SPACE_SHARED : TRACE_SPACE_GLOBAL;
            for (int l = 0; l < TRACE_WARP_LANES; l++)
                m.addr[l] = (m.space == TRACE_SPACE_SHARED ? 0 : 0x7f0000000000ull) +
                            (uint64_t)(i * 128 + l * 4);
            gpu_prefetch(g, &m);
            gpu_mem(g, &m);
            if (pass)
                ck_assert_ptr_eq(sn.last, &m);
        }
        ck_assert_int_eq(sn.records, 40);
        ck_assert_int_eq(sn.prefetches, pass ? 40 : 0);
        gpu_kernel_end(g, pass ? &with : &without);
        gpu_destroy(g);
    }
    for (int i = 0; i < STAT_COUNT; i++)
        ck_assert_uint_eq(with.v[i], without.v[i]);
}
END_TEST

Suite *fastpath_suite(void)
{
    Suite *s = suite_create("fastpath");
    TCase *tc = tcase_create("fastpath");
    tcase_set_timeout(tc, 60);
    tcase_add_test(tc, coal_affine_equals_coal_run);
    tcase_add_test(tc, smem_cost_affine_equals_smem_cost_chunks);
    tcase_add_test(tc, xor_set_index_equals_group_fold);
    tcase_add_test(tc, popcount_table_equals_bit_count);
    tcase_add_test(tc, lru_list_equals_stamp_scan);
    tcase_add_test(tc, l1_avx2_equals_baseline);
    tcase_add_test(tc, l1_hints_change_no_count);
    tcase_add_test(tc, whole_sector_fill_equals_adding_its_bytes);
    tcase_add_test(tc, l2_avx2_equals_baseline);
    tcase_add_test(tc, coal_run_hash_equals_linear_search);
    tcase_add_test(tc, coal_lanes_equals_coal_run);
    tcase_add_test(tc, smem_cost_lanes_equals_smem_cost_chunks);
    tcase_add_test(tc, validate_limits_equals_validate);
    tcase_add_test(tc, validate_strided_equals_validate);
    tcase_add_test(tc, expand_stride_avx2_equals_baseline);
    tcase_add_test(tc, gpu_mem_strided_equals_gpu_mem);
    tcase_add_test(tc, gpu_mem_prepared_equals_gpu_mem);
    tcase_add_test(tc, l2_hints_change_no_count);
    tcase_add_test(tc, read_ahead_changes_no_count);
    tcase_add_test(tc, lazy_lanes_fill_to_the_same_records);
    tcase_add_test(tc, gather_records_on_the_hot_path_equal_the_text_form);
    tcase_add_test(tc, observer_sees_each_prefetch);
    suite_add_tcase(s, tc);
    return s;
}
