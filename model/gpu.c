/* gpu.c - one GPU's memory system driven by trace records: instruction
 * counts, coalescing, the L1 of the CTA's SM, the shared L2 and DRAM, and the
 * shared-memory banks; every count goes to the record's PC.
 *
 * Decisions (documented here because the trace/counter contract is silent):
 *  - Records flagged TRACE_MEM_GENERIC count as op_generic_{ld,st,atom}
 *    (generic reductions as op_generic_atom); their space decides the path.
 *  - A global atomic with a result (ATOMG) counts in the SASS counter
 *    op_global_atom and also in the hardware's op_generic_atom: GH100's
 *    hardware counters have no global-atomic class (op_global_red is REDG
 *    only). Measured on PyTorch's reduce_kernel (torch_sum_cols, findings
 *    §22): 256 ATOMG.E.ADD, op_generic_atom 256, sass op_global_atom 256.
 *  - cp.async (TRACE_MEM_LDGSTS), as measured on the H200 (copyAsync_ca4
 *    and _cg16, docs/findings.md §9): the global half counts one op_ldgsts
 *    instruction (not op_global_ld) and is a global load for L1's tag stage:
 *    op_ld requests, sectors, lookup hits and misses, set accesses, the L2
 *    sectors it returns (mem_lg_op_ld); when its cache operator goes through
 *    L1 (not cg/cv/lu) also the ldgsts_cache_access request and sectors. It
 *    has no data stage of its own and no SASS load bytes. The shared half is
 *    no instruction and no execution of its PC; its wavefronts are not shared
 *    stores (op_st stays 0) but op_ldgsts ones, which the source view's L1
 *    Wavefronts Shared of the LDGSTS includes. The shared write goes line by
 *    line of the global read: the lanes of each 128-byte line the global
 *    half reads are written as their own wavefronts (by the bank rule among
 *    themselves), so a warp whose 4-byte lanes read four lines takes four
 *    wavefronts even where all 32 banks differ (cuBLAS's sgemm, torch_mm:
 *    90,112 = the lines of its 40,960 LDGSTS, findings §22; copyAsync_ca4,
 *    one line a warp: one). The ideal stays the bank rule's.
 *  - Local memory: addresses are offsets in the thread's window (2^24 bytes;
 *    larger offsets wrap). They map to a private physical region above
 *    bit 60, interleaved at 4-byte words across the lanes of a warp:
 *    its SM's base + (off / 4) * threads_per_sm * 4 + (warp slot * 32 + lane)
 *    * 4 + off % 4 (local_layout.h): a CTA takes slot k mod the resident
 *    CTAs when it is the k-th CTA of its SM to touch local memory, its warps
 *    that slot's warps. Local loads are always
 *    cached; local stores always update L1 (Kepler's L1 is write-back for
 *    local memory) and write through to L2. Their data-stage wavefronts are
 *    costed one 4-byte word index at a time (a LDL.128 of one offset in
 *    every lane moves 4 x 128 contiguous bytes: 4 wavefronts) [INFER,
 *    unmeasured].
 *  - Global data stage: data wavefronts by the bank rule on the byte
 *    addresses (smem.h, never merged); conflicts = wavefronts - ideal, ideal =
 *    phases when every sector hit, else max(phases, tag wavefronts)
 *    (hardware-facts §3.4), never below 0.
 *  - Per-PC table: sized from the kernel's PC table, grown otherwise; at most
 *    GPU_MAX_PCS distinct PCs per kernel, further PCs are lumped under
 *    GPU_PC_NONE. Barrier records count as executions of their PC. The
 *    breakdown is sorted at gpu_kernel_end (before it, in first-seen order).
 *  - Carveout: when it changes between kernels the L1s are emptied even if
 *    caches are not cold per kernel.
 *  - Store combining (wcomb.h): the consecutive stores of a warp reach L2 as
 *    one write per line.
 *  - SASS data bytes (smsp__sass_data_bytes_mem_global_*) count each
 *    distinct byte once per instruction: a broadcast load of one word by 32
 *    lanes is 4 bytes (measured on matrixMul_naive: 9,437,184 bytes for
 *    262,144 LDG.32 whose lanes read 2 words of one matrix and 16 of the other).
 *  - Local requests: one per 4-byte word of the access (an STL.128 is 4
 *    requests: measured on local_array, 131,072 requests for 32,768 STL.128;
 *    LDL/STL.64 as 2 is inferred). */
#include "gpu.h"

#include <assert.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#endif

#include "cache.h"
#include "coal.h"
#include "l1.h"
#include "l2.h"
#include "local_layout.h"
#include "sass.h"
#include "smem.h"
#include "wcomb.h"

#define GPU_MAX_PCS 65536u
/* A PC whose SASS changes how its records count: an ldmatrix or stmatrix
 * (gpu_inst_kind), or a shared atomic that serves lanes on one word together
 * (smem_atomic_serializes). */
#define PC_LDSM 1u
#define PC_STSM 2u
#define PC_ATOM_TOGETHER 4u
typedef struct special_pc {
    uint32_t pc;
    uint32_t flags;
} special_pc;

/* A global load or store's coalescing (do_global): its lines, and what the
 * data stage and the SASS byte count need from the lanes. Computed when the
 * record is simulated, or before, when it is announced (gpu_prepare): it
 * depends only on the record and the line geometry. */
typedef struct global_coal {
    bool affine;      /* a whole warp at a fixed stride, coalesced in closed form */
    uint64_t stride;  /* affine: the stride in bytes */
    uint64_t bytes;   /* distinct bytes the active lanes touch */
    uint8_t line_of[TRACE_WARP_LANES]; /* !affine: each active lane's line in res */
    /* when announced (gpu_prepare), each line's L1 set, and for a load its
     * L2 place, as the hints computed them; else NULL */
    const uint32_t *l1_sets;
    const l2_place *l2_places;
    coal_result res;
} global_coal;

/* gpu_prepare's slots (gpu.h). A global load or store touches at most a
 * line per lane: a lane's bytes lie in one sector. */
typedef struct prep_slot {
    const trace_mem *m; /* the record coalesced in gc; NULL: none */
    uint32_t l1_set[TRACE_WARP_LANES];
    l2_place l2_place[TRACE_WARP_LANES];
    global_coal gc;     /* last: its lines' array is large, and mostly unused */
} prep_slot;
struct gpu_prep {
    uint32_t n;
    prep_slot *slot;    /* [n] */
};

struct gpu {
    cfg_gpu cfg;
    coal_geom geom;
    smem_geom banks;
    l1 **l1;                  /* [sm_count] */
    l2 *l2;
    uint32_t *sm_partition;   /* [sm_count]: the L2 partition of each SM */

    /* the current kernel */
    bool in_kernel;
    gpu_kernel_info info;
    uint32_t warps_per_cta;
    uint32_t *local_slot;     /* [cta]: 1 + the CTA's resident slot on its SM, 0: none yet */
    uint32_t n_local_slot;
    uint32_t *local_ctas;     /* [sm_count]: CTAs given a slot on each SM this kernel */

    /* per-PC counters: an open-addressing table pc -> index into pcs */
    gpu_pc_stats *pcs;
    uint32_t n_pcs, cap_pcs;
    uint32_t *slots;          /* index + 1, 0 = empty */
    uint32_t slot_mask;
    uint32_t last_pc, last_idx;
    bool have_last;
    /* a record's own SM is taken when below this: cfg.sm_count when
     * info.trace_sms, else 0 (sm_of: one compare; a negative sm, unknown,
     * is above any count as unsigned) */
    uint32_t trace_sm_limit;
    bool sorted;

    wcomb *wc;                /* stores on their way to L2 */

    /* the kernel's PCs whose SASS changes how their records count
     * (pc_flags), ascending by pc */
    special_pc *special;
    uint32_t n_special, cap_special;

    /* the optional observer (gpu.h) and the L2 requests of the current record */
    gpu_observer obs;
    bool observing;
    uint32_t obs_n;
    /* data-stage wavefronts of the current record: what do_shared, do_global
     * and do_local add to the data wavefront counters (added always, read
     * and reset only while observing) */
    uint32_t obs_data_wf;
    /* the current global store's lines that joined its warp's store
     * combining (gpu_event.combined; set always, reset while observing) */
    uint32_t obs_combined;
    gpu_l2_req obs_l2[GPU_OBS_MAX_L2];

    /* scratch for one record: no allocation per access */
    coal_chunk chunks[COAL_MAX_CHUNKS];
    coal_result res;          /* local records and atomics */
    global_coal gc;           /* global loads and stores not coalesced ahead (gpu_prepare) */
    const coal_result *rec_lines; /* the current record's lines: &res or a global_coal's */
    uint32_t miss_mask[COAL_MAX_LINES];

    /* the last cp.async's global half (the shared half follows it): its
     * lanes, grouped by the 128-byte line they read (ldgsts_shared_wavefronts) */
    struct {
        bool valid;
        uint32_t cta, warp, pc, n_lines;
        uint32_t lanes[TRACE_WARP_LANES]; /* [line]: mask of the lanes reading it */
    } ldgsts;
};

static void send_store_line(void *ctx, uint32_t sm, uint32_t pc_idx, const wcomb_line *ln);
static void hint_store_line(void *ctx, uint64_t line);


/* ---- the observer (gpu.h): what one L2 request did, from the counters it moved */
typedef struct obs_snap {
    uint64_t hit, miss, dram, dram_written, fabric;
} obs_snap;

static inline void obs_take(const stats *s, obs_snap *o)
{
    o->hit = s->v[STAT_L2_SECT_READ_HIT];
    o->miss = s->v[STAT_L2_SECT_READ_MISS];
    o->dram = s->v[STAT_DRAM_SECT_READ] + s->v[STAT_DRAM_SECT_WRITE];
    o->dram_written = s->v[STAT_DRAM_SECT_WRITE];
    o->fabric = s->v[STAT_L2_SECT_FABRIC];
}

static gpu_l2_req obs_req(const stats *s, const obs_snap *before, gpu_l2_op op, uint64_t line, uint32_t mask,
                          uint32_t home)
{
    obs_snap after;
    obs_take(s, &after);
    return (gpu_l2_req){.line = line, .sector_mask = mask, .sectors = cache_popcount(mask),
                        .hit_sectors = (uint32_t)(after.hit - before->hit),
                        .miss_sectors = (uint32_t)(after.miss - before->miss),
                        .dram_sectors = (uint32_t)(after.dram - before->dram),
                        .op = (uint8_t)op, .far = after.fabric != before->fabric,
                        .home = home & 0x7fu,
                        .dram_written = (uint16_t)(after.dram_written - before->dram_written)};
}

/* Keep a request of the current record (obs_req's), written in its slot;
 * past GPU_OBS_MAX_L2 fold it into the last. */
static void obs_keep(gpu *g, const stats *s, const obs_snap *before, gpu_l2_op op, uint64_t line,
                     uint32_t mask, uint32_t home)
{
    if (g->obs_n < GPU_OBS_MAX_L2) {
        g->obs_l2[g->obs_n++] = obs_req(s, before, op, line, mask, home);
        return;
    }
    gpu_l2_req r = obs_req(s, before, op, line, mask, home);
    gpu_l2_req *last = &g->obs_l2[GPU_OBS_MAX_L2 - 1u];
    last->sectors += r.sectors;
    last->hit_sectors += r.hit_sectors;
    last->miss_sectors += r.miss_sectors;
    last->dram_sectors += r.dram_sectors;
    last->dram_written = (uint16_t)(last->dram_written + r.dram_written);
    last->far |= r.far;
}

void gpu_set_observer(gpu *g, const gpu_observer *o)
{
    g->observing = o != NULL;
    g->obs = o ? *o : (gpu_observer){0};
}

/* ---- creation --------------------------------------------------------------- */

gpu *gpu_create(const cfg_gpu *c)
{
    assert(c->sm_count >= 1);
    assert(c->l1_line_bytes == c->l2_line_bytes && c->l1_sector_bytes == c->l2_sector_bytes);
    gpu *g = xcalloc(1, sizeof *g);
    g->cfg = *c;
    coal_geom_init(&g->geom, c->l1_line_bytes, c->l1_sector_bytes);
    smem_geom_init(&g->banks, c->smem_banks, c->smem_bank_bytes, c->smem_bank_mode_bytes);
    g->l1 = xcalloc(c->sm_count, sizeof *g->l1);
    for (uint32_t s = 0; s < c->sm_count; s++)
        g->l1[s] = l1_create(c);
    g->l2 = l2_create(c);
    g->sm_partition = xcalloc(c->sm_count, sizeof *g->sm_partition);
    for (uint32_t s = 0; s < c->sm_count; s++)
        g->sm_partition[s] = cfg_partition_of_sm(c, s);
    g->wc = wcomb_create(send_store_line, hint_store_line, g);
    return g;
}

void gpu_destroy(gpu *g)
{
    if (!g)
        return;
    for (uint32_t s = 0; s < g->cfg.sm_count; s++)
        l1_destroy(g->l1[s]);
    free(g->l1);
    l2_destroy(g->l2);
    free(g->sm_partition);
    free(g->local_slot);
    free(g->local_ctas);
    wcomb_destroy(g->wc);
    free(g->pcs);
    free(g->slots);
    free(g->special);
    free(g);
}

/* Whether the warp is whole and its lanes step through memory at a fixed
 * stride: addr[l] = addr[0] + l * stride (mod 2^64) for all 32 lanes. Most
 * records of any trace are (the binary form stores them as base and stride),
 * and for them coalescing and bank costs have closed forms (coal_affine,
 * smem_cost_affine) instead of a walk over the lanes. */
static bool warp_affine(const trace_mem *m, uint64_t *stride)
{
    if (m->active_mask != TRACE_FULL_MASK)
        return false;
    const uint64_t a0 = m->addr[0], d = m->addr[1] - a0;
#if defined(__SSE2__)
    __m128i want = _mm_set_epi64x((long long)(a0 + d), (long long)a0);
    const __m128i step = _mm_set1_epi64x((long long)(2u * d));
    __m128i bad = _mm_setzero_si128();
    /* unrolled: a loop step cost as much as the compare it made */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
    for (int l = 0; l < TRACE_WARP_LANES; l += 2) {
        __m128i x = _mm_loadu_si128((const __m128i *)(const void *)(m->addr + l));
        bad = _mm_or_si128(bad, _mm_xor_si128(x, want));
        want = _mm_add_epi64(want, step);
    }
    if (_mm_movemask_epi8(_mm_cmpeq_epi8(bad, _mm_setzero_si128())) != 0xffff)
        return false;
#else
    uint64_t bad = 0, want = a0;
    for (int l = 0; l < TRACE_WARP_LANES; l++, want += d)
        bad |= m->addr[l] ^ want;
    if (bad)
        return false;
#endif
    *stride = d;
    return true;
}

/* What is known of a record's lanes: whether they are a whole warp at a
 * fixed stride, and the stride; or not yet known (gpu_mem: warp_affine finds
 * out when a path needs it). */
typedef struct lanes_form {
    int affine; /* 1: a whole warp at stride; 0: not; -1: not known yet */
    uint64_t stride;
} lanes_form;

static inline bool lanes_affine(const trace_mem *m, const lanes_form *f, uint64_t *stride)
{
    if (f->affine < 0)
        return warp_affine(m, stride);
    *stride = f->stride;
    return f->affine > 0;
}

/* ---- per-PC table ------------------------------------------------------------- */

static inline uint32_t pc_hash(uint32_t pc, uint32_t mask)
{
    return (uint32_t)((pc * 0x9e3779b1u) >> 7) & mask;
}

static void pcs_rehash(gpu *g, uint32_t n_slots)
{
    free(g->slots);
    g->slots = xcalloc(n_slots, sizeof *g->slots);
    g->slot_mask = n_slots - 1u;
    for (uint32_t i = 0; i < g->n_pcs; i++) {
        uint32_t h = pc_hash(g->pcs[i].pc, g->slot_mask);
        while (g->slots[h])
            h = (h + 1u) & g->slot_mask;
        g->slots[h] = i + 1u;
    }
}

/* Empty the table, with room for about `expect` PCs. */
static void pcs_reset(gpu *g, uint32_t expect)
{
    if (expect > GPU_MAX_PCS)
        expect = GPU_MAX_PCS;
    if (expect < 16)
        expect = 16;
    if (g->cap_pcs < expect) {
        free(g->pcs);
        g->pcs = xmalloc((size_t)expect * sizeof *g->pcs);
        g->cap_pcs = expect;
    }
    g->n_pcs = 0;
    uint32_t n_slots = 32;
    while (n_slots < 2u * expect)
        n_slots <<= 1;
    if (!g->slots || g->slot_mask + 1u != n_slots) {
        pcs_rehash(g, n_slots);
    } else {
        memset(g->slots, 0, (size_t)n_slots * sizeof *g->slots);
    }
    g->have_last = false;
    g->sorted = false;
}

static uint32_t pcs_insert(gpu *g, uint32_t pc, uint32_t h)
{
    if (g->n_pcs == g->cap_pcs) {
        uint32_t cap = g->cap_pcs * 2u;
        if (cap > GPU_MAX_PCS)
            cap = GPU_MAX_PCS;
        g->pcs = xrealloc(g->pcs, (size_t)cap * sizeof *g->pcs);
        g->cap_pcs = cap;
    }
    uint32_t idx = g->n_pcs++;
    gpu_pc_stats *p = &g->pcs[idx];
    p->pc = pc;
    p->executions = 0;
    stats_clear(&p->s);
    g->slots[h] = idx + 1u;
    if (2u * g->n_pcs > g->slot_mask + 1u)
        pcs_rehash(g, 2u * (g->slot_mask + 1u));
    return idx;
}

static uint32_t pcs_lookup(gpu *g, uint32_t pc)
{
    uint32_t h = pc_hash(pc, g->slot_mask);
    for (;;) {
        uint32_t v = g->slots[h];
        if (v == 0)
            break;
        if (g->pcs[v - 1u].pc == pc)
            return v - 1u;
        h = (h + 1u) & g->slot_mask;
    }
    /* new PC: the last slot of the table is kept for the lump of the rest */
    if (pc != GPU_PC_NONE && g->n_pcs >= GPU_MAX_PCS - 1u)
        return pcs_lookup(g, GPU_PC_NONE);
    return pcs_insert(g, pc, h);
}

static gpu_pc_stats *pc_entry(gpu *g, uint32_t pc)
{
    if (!g->have_last || g->last_pc != pc) {
        g->last_idx = pcs_lookup(g, pc);
        g->last_pc = pc;
        g->have_last = true;
    }
    return &g->pcs[g->last_idx];
}

/* ---- kernels ------------------------------------------------------------------ */

gpu_inst_kind gpu_inst_kind_of(const char *sass)
{
    if (sass_opcode_is(sass, "LDSM"))
        return GPU_INST_LDSM;
    if (sass_opcode_is(sass, "STSM"))
        return GPU_INST_STSM;
    return GPU_INST_PLAIN;
}

/* The kernel's special PCs (k->pcs is sorted by pc, so the list is too). */
static void special_reset(gpu *g, const trace_kernel *k)
{
    g->n_special = 0;
    for (uint32_t i = 0; i < k->n_pcs; i++) {
        const char *sass = k->pcs[i].sass;
        gpu_inst_kind kind = gpu_inst_kind_of(sass);
        uint32_t f = (kind == GPU_INST_LDSM ? PC_LDSM : 0u) | (kind == GPU_INST_STSM ? PC_STSM : 0u) |
                     (sass_opcode_is(sass, "ATOMS") && !smem_atomic_serializes(sass) ? PC_ATOM_TOGETHER : 0u);
        if (!f)
            continue;
        if (g->n_special == g->cap_special) {
            g->cap_special = g->cap_special ? 2u * g->cap_special : 8u;
            g->special = xrealloc(g->special, (size_t)g->cap_special * sizeof *g->special);
        }
        g->special[g->n_special++] = (special_pc){k->pcs[i].pc, f};
    }
}

/* The flags of pc (0: a plain PC); a search only in kernels that have special PCs. */
static uint32_t special_flags(const gpu *g, uint32_t pc)
{
    uint32_t lo = 0, hi = g->n_special;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2u;
        if (g->special[mid].pc == pc)
            return g->special[mid].flags;
        if (g->special[mid].pc < pc)
            lo = mid + 1u;
        else
            hi = mid;
    }
    return 0;
}

static uint32_t min_u32(uint32_t a, uint32_t b)
{
    return a < b ? a : b;
}

uint32_t gpu_ctas_per_sm(const gpu_sm_limits *l, uint64_t warp_threads, uint64_t regs_per_cta,
                         uint64_t smem_per_cta)
{
    if (warp_threads == 0)
        return 0;
    uint32_t ctas = min_u32(l->max_ctas, (uint32_t)(l->max_threads / warp_threads));
    if (regs_per_cta)
        ctas = min_u32(ctas, (uint32_t)(l->registers / regs_per_cta));
    if (smem_per_cta)
        ctas = min_u32(ctas, (uint32_t)(l->smem_bytes / smem_per_cta));
    return ctas;
}

uint32_t gpu_carveout_kib(const cfg_gpu *c, uint32_t ctas, uint64_t smem_per_cta)
{
    /* The driver's choice, measured on the H200 for every kernel of the suite
     * (docs/findings.md §3e): room for carveout_ctas_factor times the
     * resident CTAs, at least carveout_min_per_cta_bytes each, but never for
     * more CTAs than an SM holds; when no carveout has that room, the smallest
     * that holds the resident CTAs. */
    uint64_t need = (uint64_t)ctas * smem_per_cta;
    uint64_t each = (uint64_t)c->carveout_ctas_factor * smem_per_cta;
    if (each < c->carveout_min_per_cta_bytes)
        each = c->carveout_min_per_cta_bytes;
    uint64_t want = (uint64_t)ctas * each, most = (uint64_t)c->max_ctas_per_sm * smem_per_cta;
    if (want > most)
        want = most;
    if (want < need)
        want = need;
    for (int pass = 0; pass < 2; pass++, want = need)
        for (uint32_t i = 0; i < c->n_carveouts; i++)
            if ((uint64_t)c->carveout_kib[i] * 1024u >= want)
                return c->carveout_kib[i];
    return 0; /* not reached: gpu_kernel_begin refused a CTA beyond the largest carveout */
}

/* DRAM reads of a launch beside its accesses, when caches are cold per kernel
 * (ncu's cache control empties L2 before each pass): its code, every sector
 * of its function as far as the trace's PC table reaches (the last PC and
 * one instruction more: the table's smallest PC step, 16 bytes when it has
 * one PC), and the config's background (what an empty kernel reads under
 * the profiler, less its own code). Measured (docs/findings.md §27): the
 * suite's DRAM reads exceed its data by the two within a few sectors in
 * most launches; a kernel with code far from any executed path
 * (torch_sum_cols, argmax) reads 20% less code than its function holds. */
static uint64_t kernel_dram_reads(const cfg_gpu *c, const trace_kernel *k)
{
    if (!c->cold_caches_per_kernel)
        return 0;
    uint64_t code = 0;
    if (k->n_pcs) {
        uint32_t step = 16;
        for (uint32_t i = 1; i < k->n_pcs; i++)
            if (k->pcs[i].pc - k->pcs[i - 1].pc < step)
                step = k->pcs[i].pc - k->pcs[i - 1].pc;
        code = (uint64_t)k->pcs[k->n_pcs - 1].pc + step;
    }
    return (code + c->l2_sector_bytes - 1u) / c->l2_sector_bytes + c->background_dram_read_sectors;
}

int gpu_kernel_begin(gpu *g, const trace_kernel *k, uint32_t trace_sm_count, err_info *err)
{
    const cfg_gpu *c = &g->cfg;
    const char *name = k->name ? k->name : "?";
    uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    uint64_t warps = (threads + 31u) / 32u;
    uint64_t warp_threads = warps * 32u;
    uint64_t smem_per_cta = (uint64_t)k->smem_static_bytes + k->smem_dynamic_bytes +
                            c->smem_reserved_per_cta_bytes;
    uint64_t max_carveout = c->n_carveouts ? (uint64_t)c->carveout_kib[c->n_carveouts - 1] * 1024u : 0;

    if (threads == 0 || warp_threads > c->max_threads_per_sm) {
        err_set(err, "kernel %s: a CTA of %llu threads does not fit an SM of %u threads", name,
                (unsigned long long)threads, c->max_threads_per_sm);
        return -1;
    }
    uint64_t regs_per_cta = (uint64_t)k->regs_per_thread * warp_threads;
    if (regs_per_cta > c->registers_per_sm) {
        err_set(err, "kernel %s: a CTA needs %llu registers (%u per thread x %llu threads), an SM has %u",
                name, (unsigned long long)regs_per_cta, k->regs_per_thread,
                (unsigned long long)warp_threads, c->registers_per_sm);
        return -1;
    }
    if (smem_per_cta > max_carveout) {
        err_set(err, "kernel %s: a CTA needs %llu bytes of shared memory (static %u + dynamic %u + "
                "reserved %u), the largest carveout is %llu bytes", name,
                (unsigned long long)smem_per_cta, k->smem_static_bytes, k->smem_dynamic_bytes,
                c->smem_reserved_per_cta_bytes, (unsigned long long)max_carveout);
        return -1;
    }
    const gpu_sm_limits lim = {c->max_ctas_per_sm, c->max_threads_per_sm, c->registers_per_sm,
                               max_carveout};
    uint32_t ctas = gpu_ctas_per_sm(&lim, warp_threads, regs_per_cta, smem_per_cta);
    if (ctas == 0) {
        err_set(err, "kernel %s: no CTA fits an SM (max_ctas_per_sm is 0)", name);
        return -1;
    }
    uint32_t carveout_kib = gpu_carveout_kib(c, ctas, smem_per_cta);
    uint32_t l1_kib = c->l1_unified_kib > carveout_kib ? c->l1_unified_kib - carveout_kib : 0;

    g->info.ctas_per_sm = ctas;
    g->info.carveout_kib = carveout_kib;
    g->info.l1_kib = l1_kib;
    g->info.trace_sms = c->cta_placement == CFG_PLACE_TRACE && trace_sm_count == c->sm_count;
    g->trace_sm_limit = g->info.trace_sms ? c->sm_count : 0u;
    g->warps_per_cta = (uint32_t)warps;
    if (g->local_slot)
        memset(g->local_slot, 0, g->n_local_slot * sizeof *g->local_slot);
    if (!g->local_ctas)
        g->local_ctas = xcalloc(c->sm_count, sizeof *g->local_ctas);
    memset(g->local_ctas, 0, c->sm_count * sizeof *g->local_ctas);

    /* L1 starts every kernel empty: the H200 finds no global line of an
     * earlier launch in L1 (docs/findings.md §3f, §3g; it may find local
     * ones, which a kernel writes before it reads them); L2 keeps its data
     * unless the caches are cold per kernel */
    uint32_t l1_bytes = l1_kib * 1024u;
    for (uint32_t s = 0; s < c->sm_count; s++)
        l1_reset(g->l1[s], l1_bytes);
    if (c->cold_caches_per_kernel)
        l2_clear(g->l2);

    g->info.dram_reads = kernel_dram_reads(c, k);
    pcs_reset(g, k->n_pcs);
    special_reset(g, k);
    wcomb_reset(g->wc);
    g->in_kernel = true;
    return 0;
}

const gpu_kernel_info *gpu_kernel_info_get(const gpu *g)
{
    return &g->info;
}

static int cmp_pc(const void *a, const void *b)
{
    uint32_t x = ((const gpu_pc_stats *)a)->pc, y = ((const gpu_pc_stats *)b)->pc;
    return (x > y) - (x < y);
}

void gpu_kernel_end(gpu *g, stats *out)
{
    assert(g->in_kernel);
    wcomb_flush_all(g->wc);
    stats_clear(out);
    for (uint32_t i = 0; i < g->n_pcs; i++)
        stats_add(out, &g->pcs[i].s);
    /* the launch's own, no instruction's (the per-PC breakdown leaves it out) */
    out->v[STAT_DRAM_SECT_READ] += g->info.dram_reads;
    qsort(g->pcs, g->n_pcs, sizeof *g->pcs, cmp_pc);
    g->sorted = true;
    g->have_last = false;
    g->in_kernel = false;
}

const gpu_pc_stats *gpu_pc_breakdown(const gpu *g, uint32_t *n)
{
    *n = g->n_pcs;
    return g->pcs;
}

/* ---- records ------------------------------------------------------------------ */

static uint32_t sm_of(const gpu *g, uint32_t cta, int32_t sm)
{
    if ((uint32_t)sm < g->trace_sm_limit)
        return (uint32_t)sm;
    return cta % g->cfg.sm_count;
}

/* gpu_count_instruction's body, inline in mem_record (every record). */
static inline void count_instruction(const trace_mem *m, gpu_inst_kind kind, stats *s)
{
    if (kind != GPU_INST_PLAIN && m->space == TRACE_SPACE_SHARED && !(m->flags & TRACE_MEM_GENERIC)) {
        s->v[kind == GPU_INST_LDSM ? STAT_INST_LDSM : STAT_INST_STSM]++;
        return;
    }
    if (m->flags & TRACE_MEM_LDGSTS) {
        if (m->space == TRACE_SPACE_GLOBAL)
            s->v[STAT_INST_LDGSTS]++;
        return; /* the shared-write half is the same instruction */
    }
    if (m->flags & TRACE_MEM_GENERIC) {
        static const stat_id generic[TRACE_KIND_COUNT] = {
            STAT_INST_GENERIC_LD, STAT_INST_GENERIC_ST, STAT_INST_GENERIC_ATOM, STAT_INST_GENERIC_ATOM};
        s->v[generic[m->kind]]++;
        stat_id resolved = gpu_generic_resolved(m->space, m->kind);
        if (resolved != STAT_COUNT)
            s->v[resolved]++;
        return;
    }
    if (m->kind == TRACE_KIND_ATOM && m->space == TRACE_SPACE_GLOBAL)
        s->v[STAT_INST_GENERIC_ATOM]++; /* the hardware's class of an ATOMG (file header) */
    static const stat_id by_space[TRACE_SPACE_COUNT][TRACE_KIND_COUNT] = {
        [TRACE_SPACE_GLOBAL] = {STAT_INST_GLOBAL_LD, STAT_INST_GLOBAL_ST, STAT_INST_GLOBAL_ATOM,
                                STAT_INST_GLOBAL_RED},
        [TRACE_SPACE_SHARED] = {STAT_INST_SHARED_LD, STAT_INST_SHARED_ST, STAT_INST_SHARED_ATOM,
                                STAT_INST_SHARED_ATOM},
        /* no atomics on local memory (trace_mem_validate); counted as loads if they came */
        [TRACE_SPACE_LOCAL] = {STAT_INST_LOCAL_LD, STAT_INST_LOCAL_ST, STAT_INST_LOCAL_LD,
                               STAT_INST_LOCAL_LD},
    };
    s->v[by_space[m->space][m->kind]]++;
}

stat_id gpu_generic_resolved(uint8_t space, uint8_t kind)
{
    /* no atomics on local memory (trace_mem_validate); a reduction is an atomic here */
    static const stat_id by_space[TRACE_SPACE_COUNT][TRACE_KIND_COUNT] = {
        [TRACE_SPACE_GLOBAL] = {STAT_INST_GENERIC_LD_GLOBAL, STAT_INST_GENERIC_ST_GLOBAL,
                                STAT_INST_GENERIC_ATOM_GLOBAL, STAT_INST_GENERIC_ATOM_GLOBAL},
        [TRACE_SPACE_SHARED] = {STAT_INST_GENERIC_LD_SHARED, STAT_INST_GENERIC_ST_SHARED,
                                STAT_INST_GENERIC_ATOM_SHARED, STAT_INST_GENERIC_ATOM_SHARED},
        [TRACE_SPACE_LOCAL] = {STAT_INST_GENERIC_LD_LOCAL, STAT_INST_GENERIC_ST_LOCAL, STAT_COUNT, STAT_COUNT},
    };
    return space < TRACE_SPACE_COUNT && kind < TRACE_KIND_COUNT ? by_space[space][kind] : STAT_COUNT;
}

stat_id gpu_sass_generic_part(stat_id plain)
{
    switch (plain) {
    case STAT_INST_GLOBAL_LD: return STAT_INST_GENERIC_LD_GLOBAL;
    case STAT_INST_GLOBAL_ST: return STAT_INST_GENERIC_ST_GLOBAL;
    case STAT_INST_GLOBAL_ATOM: return STAT_INST_GENERIC_ATOM_GLOBAL;
    case STAT_INST_SHARED_LD: return STAT_INST_GENERIC_LD_SHARED;
    case STAT_INST_SHARED_ST: return STAT_INST_GENERIC_ST_SHARED;
    case STAT_INST_SHARED_ATOM: return STAT_INST_GENERIC_ATOM_SHARED;
    case STAT_INST_LOCAL_LD: return STAT_INST_GENERIC_LD_LOCAL;
    case STAT_INST_LOCAL_ST: return STAT_INST_GENERIC_ST_LOCAL;
    default: return STAT_COUNT;
    }
}

uint64_t gpu_sass_count(const stats *s, stat_id plain)
{
    stat_id generic = gpu_sass_generic_part(plain);
    return s->v[plain] + (generic != STAT_COUNT ? s->v[generic] : 0u);
}

void gpu_count_instruction(const trace_mem *m, gpu_inst_kind kind, stats *s)
{
    count_instruction(m, kind, s);
}

/* Remember a cp.async's global half: its active lanes grouped by line. */
static void ldgsts_note_global(gpu *g, const trace_mem *m)
{
    uint64_t line_of[TRACE_WARP_LANES];
    uint32_t n = 0;
    for (uint32_t mask = m->active_mask; mask; mask &= mask - 1u) {
        uint32_t l = (uint32_t)__builtin_ctz(mask);
        uint64_t line = m->addr[l] >> g->geom.line_shift;
        uint32_t i = 0;
        while (i < n && line_of[i] != line)
            i++;
        if (i == n) {
            line_of[n] = line;
            g->ldgsts.lanes[n++] = 0;
        }
        g->ldgsts.lanes[i] |= 1u << l;
    }
    g->ldgsts.valid = true;
    g->ldgsts.cta = m->cta;
    g->ldgsts.warp = m->warp;
    g->ldgsts.pc = m->pc;
    g->ldgsts.n_lines = n;
}

/* The wavefronts of a cp.async's shared half (the file header): the lanes of
 * each line its global half read, costed by the bank rule on their own. A
 * shared half without its global half just before (a hand-written trace)
 * keeps whole_warp, the bank rule over the warp. */
static uint32_t ldgsts_shared_wavefronts(gpu *g, const trace_mem *m, uint32_t whole_warp)
{
    if (!g->ldgsts.valid || g->ldgsts.cta != m->cta || g->ldgsts.warp != m->warp || g->ldgsts.pc != m->pc)
        return whole_warp;
    g->ldgsts.valid = false;
    if (g->ldgsts.n_lines <= 1u)
        return whole_warp;
    uint32_t wf = 0;
    for (uint32_t i = 0; i < g->ldgsts.n_lines; i++) {
        uint32_t lanes = g->ldgsts.lanes[i] & m->active_mask;
        if (lanes)
            wf += smem_cost_warp(&g->banks, m->addr, lanes, m->size_bytes, false, false).wavefronts;
    }
    return wf;
}

static void do_shared(gpu *g, const trace_mem *m, const lanes_form *form, uint32_t pc_flags, stats *s)
{
    bool ldgsts = (m->flags & TRACE_MEM_LDGSTS) != 0;
    bool store = m->kind == TRACE_KIND_ST || ldgsts;
    bool atomic = !store && (m->kind == TRACE_KIND_ATOM || m->kind == TRACE_KIND_RED);
    uint64_t stride = 0;
    bool affine = !atomic && lanes_affine(m, form, &stride);
    /* lanes at a stride pair up (l and l^1, or l and l^2, equal) only at stride 0 */
    bool merged = !store && !atomic && g->cfg.smem_load_pairing &&
                  smem_lanes_per_phase(&g->banks, m->size_bytes, false) < 32u &&
                  (affine ? stride == 0 : smem_lanes_pair_up(m->addr, m->active_mask));
    smem_cost c;
    if (!affine || !smem_cost_affine(&g->banks, m->addr[0], stride, m->size_bytes,
                                     smem_lanes_per_phase(&g->banks, m->size_bytes, merged), &c))
        c = smem_cost_warp(&g->banks, m->addr, m->active_mask, m->size_bytes, merged,
                           atomic && !(pc_flags & PC_ATOM_TOGETHER));
    if (ldgsts)
        c.wavefronts = ldgsts_shared_wavefronts(g, m, c.wavefronts);
    uint32_t bc = c.wavefronts - c.ideal;
    if (ldgsts) {
        s->v[STAT_SMEM_WF_LDGSTS] += c.wavefronts;
        s->v[STAT_SMEM_BC_LDGSTS] += bc;
    } else if (store) {
        s->v[STAT_SMEM_WF_ST] += c.wavefronts;
        s->v[STAT_SMEM_BC_ST] += bc;
        if (pc_flags & PC_STSM) {
            s->v[STAT_SASS_SMEM_WF_STSM] += c.wavefronts;
            s->v[STAT_SASS_SMEM_BC_STSM] += bc;
        } else {
            s->v[STAT_SASS_SMEM_WF_ST] += c.wavefronts;
        }
    } else if (atomic) {
        s->v[STAT_SMEM_WF_ATOM] += c.wavefronts;
        s->v[STAT_SMEM_BC_ATOM] += bc;
    } else {
        s->v[STAT_SMEM_WF_LD] += c.wavefronts;
        s->v[STAT_SMEM_BC_LD] += bc;
        if (pc_flags & PC_LDSM) {
            s->v[STAT_SASS_SMEM_WF_LDSM] += c.wavefronts;
            s->v[STAT_SASS_SMEM_BC_LDSM] += bc;
        } else {
            s->v[STAT_SASS_SMEM_WF_LD] += c.wavefronts;
        }
    }
    g->obs_data_wf += c.wavefronts;
    s->v[STAT_SMEM_WF_IDEAL] += c.ideal;
}

static l1_load_mode global_load_mode(const gpu *g, uint8_t cache_op)
{
    switch ((trace_cache_op)cache_op) {
    case TRACE_CACHE_DEFAULT:
        return g->cfg.l1_global_loads == CFG_L1_GLOBAL_CACHE ? L1_LOAD_CACHE : L1_LOAD_BYPASS;
    case TRACE_CACHE_CA:
    case TRACE_CACHE_NC:
        return L1_LOAD_CACHE;
    case TRACE_CACHE_CS:
        return L1_LOAD_EVICT_FIRST;
    case TRACE_CACHE_CG:
    case TRACE_CACHE_LU:
    case TRACE_CACHE_CV:
    case TRACE_CACHE_COUNT:
        break;
    }
    return L1_LOAD_BYPASS;
}

/* ---- store combining (see the file header) ----------------------------------- */

/* A line of stores leaves for L2, counted to the PC of the warp's last store. */
static void send_store_line(void *ctx, uint32_t sm, uint32_t pc_idx, const wcomb_line *ln)
{
    gpu *g = ctx;
    stats *s = &g->pcs[pc_idx].s;
    obs_snap before = {0};
    if (g->observing)
        obs_take(s, &before);
    l2_write(g->l2, g->sm_partition[sm], ln->line, ln->sector_mask, ln->byte_mask, s);
    if (g->observing && g->obs.store_line) {
        gpu_l2_req r = obs_req(s, &before, GPU_L2_WRITE, ln->line, ln->sector_mask,
                               l2_home_partition(g->l2, ln->line));
        g->obs.store_line(g->obs.ctx, sm, &r);
    }
    s->v[STAT_L1_M_WRITE_SECTORS] += cache_popcount(ln->sector_mask);
}

/* A line of stores leaves for L2 soon: start loading its L2 sets */
static void hint_store_line(void *ctx, uint64_t line)
{
    const gpu *g = ctx;
    l2_prefetch(g->l2, line);
}

/* load_lines' L2 reads with an observer: each request's outcome kept
 * (places: as the hints computed them, or NULL) */
static void load_lines_observed(gpu *g, const coal_result *res, const l2_place *places, uint32_t sm,
                                stats *s)
{
    uint32_t part = g->sm_partition[sm];
    for (uint32_t i = 0; i < res->n_lines; i++) {
        if (!g->miss_mask[i])
            continue;
        obs_snap before;
        obs_take(s, &before);
        uint32_t home;
        if (places) {
            l2_read_at(g->l2, part, res->lines[i].line, places[i], g->miss_mask[i], s);
            home = places[i].home;
        } else {
            l2_read(g->l2, part, res->lines[i].line, g->miss_mask[i], s);
            home = l2_home_partition(g->l2, res->lines[i].line);
        }
        obs_keep(g, s, &before, GPU_L2_READ, res->lines[i].line, g->miss_mask[i], home);
    }
}

/* Look the coalesced lines up in L1 and read what missed from L2. Returns
 * the missing sectors; *hits gets the hitting ones. */
static uint32_t load_lines(gpu *g, const coal_result *res, uint32_t sm, l1_load_mode mode,
                           uint32_t *hits, stats *s)
{
    uint32_t misses;
    l1_load(g->l1[sm], res, mode, g->miss_mask, hits, &misses);
    if (misses && !g->observing) { /* the usual run: no snapshots (a gather's 32 lines) */
        const uint32_t part = g->sm_partition[sm], n = res->n_lines;
        for (uint32_t i = 0; i < n; i++)
            if (g->miss_mask[i])
                l2_read(g->l2, part, res->lines[i].line, g->miss_mask[i], s);
    } else if (misses) {
        load_lines_observed(g, res, NULL, sm, s);
    }
    return misses;
}

/* load_lines for lines whose L1 sets and L2 places the hints computed */
static uint32_t load_lines_at(gpu *g, const global_coal *gc, uint32_t sm, l1_load_mode mode,
                              uint32_t *hits, stats *s)
{
    const coal_result *res = &gc->res;
    uint32_t misses;
    l1_load_sets(g->l1[sm], res, gc->l1_sets, mode, g->miss_mask, hits, &misses);
    if (misses && !g->observing) {
        const uint32_t part = g->sm_partition[sm], n = res->n_lines;
        for (uint32_t i = 0; i < n; i++)
            if (g->miss_mask[i])
                l2_read_at(g->l2, part, res->lines[i].line, gc->l2_places[i], g->miss_mask[i], s);
    } else if (misses) {
        load_lines_observed(g, res, gc->l2_places, sm, s);
    }
    return misses;
}

/* One chunk per active lane: a naturally aligned access lies in one sector. */
static uint32_t lane_chunks(gpu *g, const trace_mem *m)
{
    uint32_t n = 0;
    uint32_t mask = m->active_mask;
    while (mask) {
        uint32_t l = (uint32_t)__builtin_ctz(mask);
        mask &= mask - 1u;
        g->chunks[n].addr = m->addr[l];
        g->chunks[n].bytes = m->size_bytes;
        g->chunks[n].lane = (uint8_t)l;
        n++;
    }
    return n;
}

/* The source view's address-derived counters of the global instruction just
 * coalesced into res. Ideal: the sectors the active lanes' bytes would fill
 * if they were contiguous and aligned, never more than are touched (so lanes
 * that share an address cost one sector, as measured for same-address
 * reductions and the broadcast loads of matrixMul_naive). */
__attribute__((always_inline)) static inline void source_global_sectors(const gpu *g,
                                                                        const coal_result *res,
                                                                        const trace_mem *m, stats *s)
{
    uint32_t sect = g->geom.sector_bytes;
    uint32_t lanes = m->active_mask == TRACE_FULL_MASK ? TRACE_WARP_LANES : cache_popcount(m->active_mask);
    uint32_t need = (lanes * m->size_bytes + sect - 1u) / sect;
    s->v[STAT_SRC_TAG_REQ_GLOBAL] += res->n_lines;
    s->v[STAT_SRC_L2_THEO_SECT_GLOBAL] += res->n_sectors;
    s->v[STAT_SRC_L2_THEO_SECT_GLOBAL_IDEAL] += min_u32(need, res->n_sectors);
}

static void do_global_atomic(gpu *g, const trace_mem *m, uint32_t sm, stats *s)
{
    bool red = m->kind == TRACE_KIND_RED;
    /* what the addresses alone imply (the source view): distinct lines and sectors */
    coal_run(&g->geom, g->chunks, lane_chunks(g, m), &g->res);
    g->rec_lines = &g->res;
    source_global_sectors(g, &g->res, m, s);
    s->v[red ? STAT_L1_REQ_GLOBAL_RED : STAT_L1_REQ_GLOBAL_ATOM]++;
    /* Same-address lanes are not merged: round r takes the r-th lane of each
     * distinct address, and each round is coalesced on its own (§3.3). */
    uint8_t rank[TRACE_WARP_LANES];
    uint32_t lanes[TRACE_WARP_LANES];
    uint32_t n = 0, rounds = 0;
    uint32_t mask = m->active_mask;
    while (mask) {
        uint32_t l = (uint32_t)__builtin_ctz(mask);
        mask &= mask - 1u;
        uint32_t r = 0;
        for (uint32_t j = 0; j < n; j++)
            r += m->addr[lanes[j]] == m->addr[l];
        lanes[n] = l;
        rank[n] = (uint8_t)r;
        n++;
        if (r + 1u > rounds)
            rounds = r + 1u;
    }
    uint32_t part = g->sm_partition[sm];
    for (uint32_t r = 0; r < rounds; r++) {
        uint32_t k = 0;
        for (uint32_t i = 0; i < n; i++) {
            if (rank[i] != r)
                continue;
            g->chunks[k].addr = m->addr[lanes[i]];
            g->chunks[k].bytes = m->size_bytes;
            g->chunks[k].lane = (uint8_t)lanes[i];
            k++;
        }
        coal_run(&g->geom, g->chunks, k, &g->res);
        s->v[red ? STAT_L1_SECT_GLOBAL_RED : STAT_L1_SECT_GLOBAL_ATOM] += g->res.n_sectors;
        l1_invalidate(g->l1[sm], &g->res);
        for (uint32_t i = 0; i < g->res.n_lines; i++) {
            obs_snap before = {0};
            if (g->observing)
                obs_take(s, &before);
            l2_atomic(g->l2, part, g->res.lines[i].line, g->res.lines[i].sector_mask, red, s);
            if (g->observing)
                obs_keep(g, s, &before, GPU_L2_ATOMIC, g->res.lines[i].line,
                         g->res.lines[i].sector_mask, l2_home_partition(g->l2, g->res.lines[i].line));
        }
    }
}

/* Coalesce a global load or store (not an atomic) into *out. Inline in its
 * two callers: a call cost more than the closed form of a coalesced warp.
 * Returns false, having done nothing, when it needs the lanes and they are
 * not written yet (lanes_pending: trace_event.mem_lanes_pending). */
__attribute__((always_inline)) static inline bool coalesce_global(const gpu *g, const trace_mem *m,
                                                                  const lanes_form *form,
                                                                  bool lanes_pending,
                                                                  global_coal *out)
{
    /* lanes at a fixed stride: closed forms; the per-lane walk only when needed */
    uint64_t stride = 0;
    bool affine = lanes_affine(m, form, &stride) &&
                  coal_affine(&g->geom, m->addr[0], stride, m->size_bytes, TRACE_WARP_LANES, &out->res);
    if (!affine && lanes_pending)
        return false;
    out->affine = affine;
    out->stride = stride;
    /* lanes at stride >= size touch distinct bytes; at stride 0 the same ones */
    out->bytes = !affine      ? coal_lanes(&g->geom, m->addr, m->active_mask, m->size_bytes, &out->res,
                                           out->line_of)
                 : stride == 0 ? m->size_bytes
                               : (uint64_t)TRACE_WARP_LANES * m->size_bytes;
    return true;
}

static void do_global(gpu *g, const trace_mem *m, const lanes_form *form, const global_coal *pre,
                      trace_event *lazy, uint32_t sm, stats *s);

/* A cp.async's global half with zero-filling lanes (trace_mem_read_lanes:
 * real, fewer than the active lanes; findings §26): the memory system sees
 * the lanes that read. A warp of zero fills only is no L1 tag request and
 * has no sectors, but when its cache operator goes through L1 it is still
 * an ldgsts_cache_access request (torch_mm on the H200: 40,960 such
 * requests, zero fills included, and 131,072 sectors, none of theirs;
 * 32,768 op_ld tag requests; kernels/zfill.cu: the same for half a warp,
 * and for a valid pointer with a source size of 0). The shared half still
 * writes every lane, line by line of the sources as given (the zero fills'
 * wavefronts count on the H200: torch_mm's are exact so). */
static void do_ldgsts_zero_fill(gpu *g, const trace_mem *m, uint32_t real, uint32_t sm, stats *s)
{
    static const coal_result no_lines;
    if (real) {
        trace_mem reads = *m;
        reads.active_mask = real;
        const lanes_form unknown = {-1, 0};
        do_global(g, &reads, &unknown, NULL, NULL, sm, s);
    } else {
        g->rec_lines = &no_lines;
        if (global_load_mode(g, m->cache_op) != L1_LOAD_BYPASS)
            s->v[STAT_L1_REQ_LDGSTS]++;
    }
    ldgsts_note_global(g, m);
}

/* pre: the record's coalescing when gpu_prepare did it, else NULL; lazy:
 * the record, whose lanes may not be written yet (pre's coalescing needed
 * none: trace_event.mem_lanes_pending), or NULL */
static void do_global(gpu *g, const trace_mem *m, const lanes_form *form, const global_coal *pre,
                      trace_event *lazy, uint32_t sm, stats *s)
{
    if (m->kind == TRACE_KIND_ATOM || m->kind == TRACE_KIND_RED) {
        do_global_atomic(g, m, sm, s);
        return;
    }
    if (m->flags & TRACE_MEM_LDGSTS) {
        if (lazy)
            trace_event_fill_lanes(lazy); /* the lanes' sources */
        uint32_t real = trace_mem_read_lanes(m);
        if (real != m->active_mask) {
            do_ldgsts_zero_fill(g, m, real, sm, s);
            return;
        }
    }
    const global_coal *gc = pre;
    if (!gc) {
        coalesce_global(g, m, form, false, &g->gc);
        g->gc.l1_sets = NULL;
        g->gc.l2_places = NULL;
        gc = &g->gc;
    }
    const coal_result *res = &gc->res;
    g->rec_lines = res;
    const bool affine = gc->affine;
    const uint64_t stride = gc->stride, bytes = gc->bytes;
    uint32_t lines = res->n_lines, sectors = res->n_sectors;
    source_global_sectors(g, res, m, s);

    if (m->kind == TRACE_KIND_ST) {
        uint32_t hits, misses;
        s->v[STAT_SASS_BYTES_GLOBAL_ST] += bytes;
        s->v[STAT_L1_REQ_GLOBAL_ST]++;
        s->v[STAT_L1_SECT_GLOBAL_ST] += sectors;
        if (gc->l1_sets)
            l1_store_sets(g->l1[sm], res, gc->l1_sets, g->cfg.l1_stores, &hits, &misses);
        else
            l1_store(g->l1[sm], res, g->cfg.l1_stores, &hits, &misses);
        s->v[STAT_L1_SECT_GLOBAL_ST_HIT] += hits;
        s->v[STAT_L1_SECT_GLOBAL_ST_MISS] += misses;
        g->obs_combined = wcomb_store(g->wc, m->cta, m->warp, sm, g->last_idx, res);
        return;
    }

    l1_load_mode mode = global_load_mode(g, m->cache_op);
    uint32_t hits;
    bool ldgsts = (m->flags & TRACE_MEM_LDGSTS) != 0;
    if (ldgsts)
        ldgsts_note_global(g, m); /* the lanes' lines, for the shared half (filled above) */
    if (ldgsts && mode != L1_LOAD_BYPASS) {
        s->v[STAT_L1_REQ_LDGSTS]++;
        s->v[STAT_L1_SECT_LDGSTS] += sectors;
    }
    if (!ldgsts)
        s->v[STAT_SASS_BYTES_GLOBAL_LD] += bytes;
    s->v[STAT_L1_REQ_GLOBAL_LD]++;
    s->v[STAT_L1_SECT_GLOBAL_LD] += sectors;
    uint32_t tpc = g->cfg.l1_tags_per_cycle;
    uint32_t tag_wf = (lines + tpc - 1u) / tpc;
    s->v[STAT_L1_TAG_WF_GLOBAL_LD] += tag_wf;
    s->v[STAT_L1_SET_ACCESSES_GLOBAL_LD] += lines;
    s->v[STAT_L1_SET_CONFLICTS_GLOBAL_LD] += tag_wf - 1u;

    uint32_t misses = gc->l1_sets ? load_lines_at(g, gc, sm, mode, &hits, s)
                                  : load_lines(g, res, sm, mode, &hits, s);
    s->v[STAT_L1_SECT_GLOBAL_LD_HIT] += hits;
    s->v[STAT_L1_SECT_GLOBAL_LD_MISS] += misses;
    s->v[STAT_L1_M_READ_SECTORS] += misses;
    if (ldgsts)
        return; /* no data stage: the data goes to shared memory (the shared half) */

    uint32_t lpp = smem_lanes_per_phase(&g->banks, m->size_bytes, false);
    smem_cost c;
    if (affine ? !smem_cost_affine(&g->banks, m->addr[0], stride, m->size_bytes, lpp, &c)
               : !smem_cost_lanes(&g->banks, m->addr, m->active_mask, m->size_bytes, gc->line_of,
                                  lines, g->geom.line_shift, lpp, &c)) {
        if (lazy)
            trace_event_fill_lanes(lazy); /* no closed form: the lanes after all */
        c = smem_cost_chunks(&g->banks, g->chunks, lane_chunks(g, m), lpp, false);
    }
    uint32_t ideal = c.ideal;
    if (misses && tag_wf > ideal)
        ideal = tag_wf;
    s->v[STAT_L1_DATA_WF_GLOBAL_LD] += c.wavefronts;
    s->v[STAT_L1_DATA_BC_GLOBAL_LD] += c.wavefronts > ideal ? c.wavefronts - ideal : 0;
    g->obs_data_wf += c.wavefronts;
}

/* Where the warp's local word 0 lies (and *word_stride), by its CTA's
 * resident slot on the SM (given when the CTA first touches local memory)
 * and its warp within it. */
static uint64_t local_region(gpu *g, const trace_mem *m, uint32_t sm, uint64_t *word_stride)
{
    if (m->cta >= g->n_local_slot) {
        uint32_t n = g->n_local_slot ? g->n_local_slot : 1024u;
        while (n <= m->cta)
            n = n > UINT32_MAX / 2u ? UINT32_MAX : n * 2u;
        g->local_slot = xrealloc(g->local_slot, (size_t)n * sizeof *g->local_slot);
        memset(g->local_slot + g->n_local_slot, 0, (size_t)(n - g->n_local_slot) * sizeof *g->local_slot);
        g->n_local_slot = n;
    }
    uint32_t *slot = &g->local_slot[m->cta];
    if (!*slot)
        *slot = 1u + g->local_ctas[sm]++ % g->info.ctas_per_sm;
    uint64_t warp_slot = (uint64_t)(*slot - 1u) * g->warps_per_cta + m->warp;
    return local_layout_base(sm, (uint32_t)warp_slot, g->cfg.max_threads_per_sm, word_stride);
}

static void do_local(gpu *g, const trace_mem *m, uint32_t sm, stats *s)
{
    uint32_t words;
    uint64_t word_stride;
    uint64_t base = local_region(g, m, sm, &word_stride);
    uint32_t n = local_layout_chunks(m, base, word_stride, g->chunks, &words);
    uint32_t per_word = n / words;
    coal_run(&g->geom, g->chunks, n, &g->res);
    g->rec_lines = &g->res;
    s->v[STAT_SRC_L2_THEO_SECT_LOCAL] += g->res.n_sectors;

    if (m->kind == TRACE_KIND_ST) {
        uint32_t hits, misses;
        s->v[STAT_L1_REQ_LOCAL_ST] += words;
        s->v[STAT_L1_SECT_LOCAL_ST] += g->res.n_sectors;
        l1_store(g->l1[sm], &g->res, CFG_L1_STORES_UPDATE, &hits, &misses);
        wcomb_store(g->wc, m->cta, m->warp, sm, g->last_idx, &g->res);
        return;
    }
    uint32_t hits;
    s->v[STAT_L1_REQ_LOCAL_LD] += words;
    s->v[STAT_L1_SECT_LOCAL_LD] += g->res.n_sectors;
    l1_load_mode mode = m->cache_op == TRACE_CACHE_CS ? L1_LOAD_EVICT_FIRST : L1_LOAD_CACHE;
    uint32_t misses = load_lines(g, &g->res, sm, mode, &hits, s);
    s->v[STAT_L1_SECT_LOCAL_LD_HIT] += hits;
    s->v[STAT_L1_SECT_LOCAL_LD_MISS] += misses;
    s->v[STAT_L1_M_READ_SECTORS] += misses;
    uint32_t lpp = smem_lanes_per_phase(&g->banks, g->chunks[0].bytes, false);
    for (uint32_t k = 0; k < words; k++) {
        smem_cost c = smem_cost_chunks(&g->banks, g->chunks + k * per_word, per_word, lpp, false);
        s->v[STAT_L1_DATA_WF_GLOBAL_LD] += c.wavefronts;
        g->obs_data_wf += c.wavefronts;
    }
}

/* form by value: the callers' calls are then tail calls (no local whose
 * address is taken) */
static void mem_record(gpu *g, const trace_mem *m, lanes_form lanes, const global_coal *pre,
                       trace_event *lazy)
{
    const lanes_form *form = &lanes;
    assert(g->in_kernel);
    assert(m->kind < TRACE_KIND_COUNT && m->space < TRACE_SPACE_COUNT && m->active_mask);
    gpu_pc_stats *p = pc_entry(g, m->pc);
    /* the shared half of a cp.async is the same execution as its global half */
    p->executions += !((m->flags & TRACE_MEM_LDGSTS) && m->space == TRACE_SPACE_SHARED);
    stats *s = &p->s;
    uint32_t pc_flags = g->n_special ? special_flags(g, m->pc) : 0u;
    count_instruction(m, pc_flags & PC_LDSM ? GPU_INST_LDSM : pc_flags & PC_STSM ? GPU_INST_STSM : GPU_INST_PLAIN, s);
    uint32_t sm = sm_of(g, m->cta, m->sm);
    if (wcomb_ends_run(m->kind, m->space))
        wcomb_end_run(g->wc, m->cta, m->warp);
    if (g->observing) {
        g->obs_n = 0;
        g->obs_data_wf = 0;
        g->obs_combined = 0;
    }
    switch ((trace_space)m->space) {
    case TRACE_SPACE_SHARED:
        do_shared(g, m, form, pc_flags, s);
        break;
    case TRACE_SPACE_GLOBAL:
        do_global(g, m, form, pre, lazy, sm, s);
        break;
    case TRACE_SPACE_LOCAL:
        do_local(g, m, sm, s);
        break;
    case TRACE_SPACE_COUNT:
        break;
    }
    if (g->observing && g->obs.record) {
        uint32_t tpc = g->cfg.l1_tags_per_cycle;
        bool shared = m->space == TRACE_SPACE_SHARED; /* no tag stage, no lines */
        gpu_event e = {.m = m,
                       .sm = sm,
                       .tag_wavefronts = shared ? 0u : (g->rec_lines->n_lines + tpc - 1u) / tpc,
                       .data_wavefronts = g->obs_data_wf,
                       .n_l2 = g->obs_n,
                       .l2 = g->obs_l2,
                       .lines = shared ? NULL : g->rec_lines,
                       .combined = g->obs_combined};
        g->obs.record(g->obs.ctx, &e);
    }
}

void gpu_mem(gpu *g, const trace_mem *m)
{
    const lanes_form unknown = {-1, 0};
    mem_record(g, m, unknown, NULL, NULL);
}

void gpu_mem_strided(gpu *g, const trace_mem *m, uint64_t base, uint64_t stride)
{
    /* a whole warp: base is lane 0's address (the closed forms start there) */
    assert(m->active_mask != TRACE_FULL_MASK || m->addr[0] == base);
    (void)base;
    const lanes_form known = {m->active_mask == TRACE_FULL_MASK, stride};
    mem_record(g, m, known, NULL, NULL);
}

uint32_t gpu_prefetch(const gpu *g, const trace_mem *m)
{
    if (!g->in_kernel)
        return 0;
    if (g->observing && g->obs.prefetch)
        g->obs.prefetch(g->obs.ctx, m);
    wcomb_prefetch(g->wc, m->cta, m->warp);
    if (m->space != TRACE_SPACE_GLOBAL || m->active_mask == 0)
        return 0; /* shared: no tags; local: a few lines of the warp's own region */
    uint32_t sm = sm_of(g, m->cta, m->sm);
    /* a load reads L2 near and at home; stores and atomics also drop copies everywhere */
    bool read = m->kind == TRACE_KIND_LD;
    uint32_t part = g->sm_partition[sm];
    uint64_t last = UINT64_MAX;
    uint32_t n = 0;
    uint64_t lo = m->addr[__builtin_ctz(m->active_mask)];
    uint64_t hi = m->addr[31 - __builtin_clz(m->active_mask)];
    if (hi >= lo && hi - lo < 512u) {
        /* first and last lane within 512 bytes: nearly always a coalesced warp,
         * whose lines are those between (a guess is harmless: only a hint) */
        uint64_t first = lo >> g->geom.line_shift, end = hi >> g->geom.line_shift;
        for (uint64_t line = first; line <= end; line++, n++) {
            l1_prefetch(g->l1[sm], line);
            if (read)
                l2_prefetch_read(g->l2, part, line);
            else
                l2_prefetch(g->l2, line);
        }
        return n;
    }
    for (uint32_t mask = m->active_mask; mask; mask &= mask - 1u) {
        uint64_t line = m->addr[__builtin_ctz(mask)] >> g->geom.line_shift;
        if (line == last)
            continue; /* coalesced lanes: one line, prefetched once */
        last = line;
        l1_prefetch(g->l1[sm], line);
        if (read)
            l2_prefetch_read(g->l2, part, line);
        else
            l2_prefetch(g->l2, line);
        n++;
    }
    return n;
}

/* ---- records announced ahead (gpu_prepare) ------------------------------------ */

gpu_prep *gpu_prep_create(uint32_t n)
{
    gpu_prep *p = xcalloc(1, sizeof *p);
    p->n = n;
    p->slot = xcalloc(n, sizeof *p->slot);
    return p;
}

void gpu_prep_destroy(gpu_prep *p)
{
    if (!p)
        return;
    free(p->slot);
    free(p);
}

/* The record's lanes as the reader gave them (trace_event.mem_strided). */
static inline lanes_form form_of(const trace_event *ev)
{
    if (!ev->mem_strided)
        return (lanes_form){-1, 0};
    /* a whole warp: base is lane 0's address (the closed forms start there) */
    assert(ev->mem.active_mask != TRACE_FULL_MASK || ev->mem.addr[0] == ev->mem_base);
    return (lanes_form){ev->mem.active_mask == TRACE_FULL_MASK, ev->mem_stride};
}

uint32_t gpu_prepare(const gpu *g, trace_event *ev, gpu_prep *p, uint32_t slot)
{
    assert(slot < p->n && ev->type == TRACE_EV_MEM);
    prep_slot *ps = &p->slot[slot];
    const trace_mem *m = &ev->mem;
    ps->m = NULL;
    bool global_ldst = g->in_kernel && m->space == TRACE_SPACE_GLOBAL && m->active_mask != 0 &&
                       (m->kind == TRACE_KIND_LD || m->kind == TRACE_KIND_ST);
    /* shared, local and atomics (as announced one by one), and every record
     * an observer sees: from the lanes */
    if (ev->mem_lanes_pending && (!global_ldst || g->observing))
        trace_event_fill_lanes(ev);
    if (!global_ldst)
        return gpu_prefetch(g, m);
    if (g->observing && g->obs.prefetch)
        g->obs.prefetch(g->obs.ctx, m);
    wcomb_prefetch(g->wc, m->cta, m->warp);
    const lanes_form form = {ev->mem_strided ? m->active_mask == TRACE_FULL_MASK : -1,
                             ev->mem_strided ? ev->mem_stride : 0};
    if (!coalesce_global(g, m, &form, ev->mem_lanes_pending, &ps->gc)) {
        trace_event_fill_lanes(ev); /* no closed form: the lanes after all */
        coalesce_global(g, m, &form, false, &ps->gc);
    }
    ps->m = m;
    ps->gc.l1_sets = ps->l1_set;
    ps->gc.l2_places = ps->l2_place;
    /* the lines it will touch, each once: a load reads L2 near and at home;
     * a store also drops copies everywhere (and its sets are kept in the
     * L2's memo: store combining sends it later) */
    uint32_t sm = sm_of(g, m->cta, m->sm), part = g->sm_partition[sm];
    const coal_result *res = &ps->gc.res;
    assert(res->n_lines <= TRACE_WARP_LANES);
    bool read = m->kind == TRACE_KIND_LD;
    if (res->n_lines == 1) {
        /* a coalesced warp, the commonest: one line, without the loops'
         * set-up (their invariants hoisted, for the many lines of a gather) */
        uint64_t line = res->lines[0].line;
        ps->l1_set[0] = l1_prefetch_set(g->l1[sm], line);
        if (read)
            ps->l2_place[0] = l2_prefetch_place(g->l2, part, line);
        else
            l2_prefetch(g->l2, line);
        return 1;
    }
    l1_prefetch_lines(g->l1[sm], res, ps->l1_set);
    l2_prefetch_lines(g->l2, part, read, res, ps->l2_place);
    return res->n_lines;
}

void gpu_mem_prepared(gpu *g, trace_event *ev, gpu_prep *p, uint32_t slot)
{
    assert(slot < p->n);
    prep_slot *ps = &p->slot[slot];
    const bool prepared = ps->m == &ev->mem;
    ps->m = NULL; /* used once: the slot's next record needs a gpu_prepare of its own */
    if (prepared) {
        /* coalesced already; the form is for paths that gpu_prepare leaves alone */
        const lanes_form unused = {-1, 0};
        mem_record(g, &ev->mem, unused, &ps->gc, ev);
        return;
    }
    trace_event_fill_lanes(ev);
    const lanes_form form = form_of(ev);
    mem_record(g, &ev->mem, form, NULL, NULL);
}

void gpu_barrier(gpu *g, const trace_barrier *b)
{
    assert(g->in_kernel);
    if (b->kind == TRACE_BAR_SHFL)
        return; /* a warp shuffle: no memory instruction, for the timing model only (trace.h) */
    wcomb_end_run(g->wc, b->cta, b->warp);
    pc_entry(g, b->pc)->executions++;
}
