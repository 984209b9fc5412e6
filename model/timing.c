/* timing.c - warp clocks, resource calendars, CTA slots, barriers, the L2
 * request coalescer and the event queue that lets the hot entries be
 * prefetched (the rules are in timing.h and docs/timing.md). */
#include "timing.h"

#include <assert.h>
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "lrc.h"

/* ---- calendars -----------------------------------------------------------------
 * A resource serves `rate` units per cycle. Its time is cut into bins of
 * CAL_BIN cycles; a ring of CAL_BINS bins holds the units booked in each. A
 * request of n units at time t fills the bins from t's onward, so requests that
 * arrive (in replay order) after others booked the same bins queue behind them
 * whatever their own time. Bins older than the window are forgotten; a request
 * older than the window is served at its start. Invariant: lo is the oldest bin
 * the ring holds; used[b & mask] belongs to bin b for lo <= b < lo + CAL_BINS. */
#define CAL_BIN_SHIFT 5u
#define CAL_BIN (1u << CAL_BIN_SHIFT) /* 32 cycles */
#define CAL_BINS 2048u                /* a window of 65,536 cycles */

typedef struct cal {
    uint32_t *used; /* [CAL_BINS] units booked per bin */
    uint64_t lo;    /* first bin of the window */
    /* [full_lo, full_hi): bins known to be full, so that a booking behind a
     * long queue jumps over them instead of reading each (bins only fill up
     * while they are in the window; the run is clamped when the window slides) */
    uint64_t full_lo, full_hi;
    uint64_t inv;   /* floor(2^64 / cap) + 1: divides by cap with a multiply */
    uint32_t cap;   /* units per bin = rate x CAL_BIN */
    bool dirty;     /* something was booked since the last clear */
} cal;

/* ceil(x / cap): the hot path books several calendars per record, and a
 * 64-bit division costs tens of cycles. For x < 2^32, floor(x * inv / 2^64)
 * is floor(x / cap) exactly (Lemire, Kaser, Kurz 2019, "Faster remainder by
 * direct computation"); a rate of 1 unit per cycle divides by nothing. */
static inline uint64_t cal_cycles(const cal *c, uint64_t units)
{
    uint64_t x = units * CAL_BIN + c->cap - 1u;
    if (c->cap == CAL_BIN)
        return units;
    if (x >> 32)
        return x / c->cap;
    /* x * inv / 2^64 from two 32 x 32-bit halves (no 128-bit type in C11) */
    uint64_t hi = c->inv >> 32, lo = c->inv & 0xffffffffu;
    return (x * hi + ((x * lo) >> 32)) >> 32;
}

static void cal_init(cal *c, uint32_t *storage, uint32_t cap)
{
    c->used = storage;
    c->lo = 0;
    c->cap = cap ? cap : 1u;
    c->inv = UINT64_MAX / c->cap + 1u;
}

static void cal_clear(cal *c)
{
    if (c->dirty) /* most of a GPU's calendars stay empty in a small kernel */
        memset(c->used, 0, CAL_BINS * sizeof *c->used);
    c->lo = c->full_lo = c->full_hi = 0;
    c->dirty = false;
}

/* Book n units at time t; returns when the last of them is served. */
static uint64_t cal_book(cal *c, uint64_t t, uint64_t n)
{
    if (n == 0)
        return t;
    uint64_t own = cal_cycles(c, n); /* cycles the units take alone */
    c->dirty = true;
    uint64_t b = t >> CAL_BIN_SHIFT;
    if (b < c->lo) {
        b = c->lo;
        t = b << CAL_BIN_SHIFT;
    }
    uint64_t first = b;
    for (;;) {
        if (b >= c->full_lo && b < c->full_hi)
            b = c->full_hi;
        if (b >= c->lo + CAL_BINS) { /* slide the window: forget the oldest bins */
            uint64_t lo = b - CAL_BINS + 1u;
            for (uint64_t x = c->lo; x < lo && x < c->lo + CAL_BINS; x++)
                c->used[x & (CAL_BINS - 1u)] = 0;
            c->lo = lo;
            if (c->full_lo < lo)
                c->full_lo = lo;
            if (c->full_hi < c->full_lo)
                c->full_hi = c->full_lo;
            if (first < lo)
                first = lo;
        }
        uint32_t *u = &c->used[b & (CAL_BINS - 1u)];
        uint64_t free = *u < c->cap ? c->cap - *u : 0;
        uint64_t take = n < free ? n : free;
        *u += (uint32_t)take;
        n -= take;
        if (n == 0)
            break;
        b++;
    }
    /* every bin from first to b (excluded) is full now: remember the run if it
     * joins the known one or lies beyond it (the queue's frontier moves on) */
    if (b > first) {
        if (first <= c->full_hi && b >= c->full_lo) {
            c->full_lo = first < c->full_lo ? first : c->full_lo;
            c->full_hi = b > c->full_hi ? b : c->full_hi;
        } else if (b > c->full_hi) {
            c->full_lo = first;
            c->full_hi = b;
        }
    }
    uint64_t fill = (b << CAL_BIN_SHIFT) + cal_cycles(c, c->used[b & (CAL_BINS - 1u)]);
    return fill > t + own ? fill : t + own;
}

/* ---- state ------------------------------------------------------------------- */

#define MAX_PENDING 8u   /* loads in flight per warp that the model tracks */
#define PC_BYTES 16u     /* one SASS instruction (sm_70 and later) */
#define BACK_BRANCH_INSTRUCTIONS 2u /* a loop's back edge: the branch and one more, unknown */

/* Two cache lines per warp (the table is line-aligned): what every record
 * reads in the first, the pending loads' ready cycles in the second. Records
 * of thousands of warps interleave in capture order, so each record's warp is
 * usually a cache miss; fewer lines per warp, fewer misses. */
typedef struct warp_state {
    uint32_t gen;        /* kernel generation that owns the entry; 0 = empty */
    uint32_t cta, warp;
    uint32_t bar_gen;    /* barriers this warp passed */
    uint64_t clock;      /* earliest cycle of the warp's next instruction */
    uint32_t last_pc;
    uint32_t pc_idx;     /* index of last_pc in the kernel's PC table, or UINT32_MAX */
    uint8_t smsp;        /* its sub-partition, warp mod smsps (at most 16) */
    bool started, bar_wait;
    uint8_t n_pend;      /* loads in flight, oldest first: */
    uint8_t pend_first[MAX_PENDING]; /* first destination register */
    uint8_t pend_n[MAX_PENDING];     /* registers */
    uint8_t pad[12];
    uint64_t pend_ready[MAX_PENDING]; /* cycle the data is in the registers */
} warp_state;
_Static_assert(sizeof(warp_state) == 128, "warp_state: two cache lines");

#define LINE_BYTES 64u
/* count x size zeroed bytes starting on a cache line; *raw is what to free */
static void *xcalloc_lines(size_t count, size_t size, void **raw)
{
    *raw = xcalloc(count * size + LINE_BYTES, 1);
    uintptr_t a = ((uintptr_t)*raw + LINE_BYTES - 1u) & ~(uintptr_t)(LINE_BYTES - 1u);
    return (void *)a;
}

typedef struct cta_state {
    uint32_t gen;        /* kernel generation; 0 = empty */
    uint32_t cta;
    uint32_t sm;
    uint32_t slot;       /* its index in sm_slots / slot_end */
    uint64_t start, end; /* end: the latest issue of any of its warps so far */
    uint32_t bar_id[2], bar_count[2];
    uint64_t bar_max[2]; /* latest arrival at barrier bar_id[i] (generations alternate) */
} cta_state;
_Static_assert(sizeof(cta_state) == 64, "cta_state: one cache line");

typedef struct sm_state {
    uint64_t last_store;     /* issue time of its latest global/local store */
} sm_state;

typedef struct slice_state {
    uint64_t atomic_line;
    uint64_t atomic_free_mcycles; /* when the atomic unit is free for the same line, 1/1000 cycle */
    bool atomic_valid;
} slice_state;

/* The observer's events wait in a short queue before they are modelled, so
 * that the warp and CTA entries of a record can be prefetched when it
 * arrives and are in cache when its turn comes (the replay interleaves the
 * records of thousands of warps: without this, each record's warp entry is a
 * cache miss). Events are modelled in arrival order, so the results do not
 * change; timing_kernel_end drains the queue. */
#define QUEUE 32u
typedef enum { Q_RECORD, Q_STORE_LINE, Q_BARRIER } queued_kind;
typedef struct queued {
    uint8_t kind;                       /* queued_kind */
    uint8_t mem_kind, space, size_bytes; /* the record's trace_mem fields the model reads */
    uint32_t cta, warp, pc;
    int32_t rec_sm;                     /* barriers: the recorded SM */
    uint32_t sm;                        /* records and store lines: the SM that ran it */
    uint32_t tag_wavefronts, data_wavefronts;
    uint32_t n_l2;                      /* its requests: q_l2[slot * GPU_OBS_MAX_L2 ..] */
} queued;

struct timing {
    cfg_gpu cfg;
    queued q[QUEUE];
    gpu_l2_req *q_l2;         /* [QUEUE * GPU_OBS_MAX_L2] */
    uint32_t q_head, q_len;
    uint32_t smsps, partitions, slices_per_partition;
    uint32_t lookup_units;    /* slice units one lookup holds: one L2 cycle */
    uint8_t *sm_part;         /* [sm_count] the SM's near partition (cfg_partition_of_sm) */
    /* calendars: per SM smsps issue + tag + data; per slice; DRAM */
    uint32_t *cal_storage;
    cal *issue;   /* [sm_count * smsps] */
    cal *tag;     /* [sm_count] */
    cal *data;    /* [sm_count] */
    cal *slice;   /* [slices] */
    cal dram;
    slice_state *slices;
    sm_state *sms;
    uint32_t *sm_slots;       /* [sm_count * max_ctas_per_sm]: cta table index + 1, 0 = free */
    uint64_t *slot_end;       /* [same]: its occupant's end, kept with cta_state.end so that
                               * choosing a slot reads one small array, not 32 CTA entries */
    warp_state *warps;        /* line-aligned, in warps_raw */
    void *warps_raw, *ctas_raw;
    uint32_t warp_mask;
    cta_state *ctas;
    uint32_t cta_mask;

    /* the current kernel */
    uint32_t gen;
    const trace_kernel *k;
    gpu_kernel_info info;
    uint32_t warps_per_cta;
    timing_regs *pcs;         /* [k->n_pcs] */
    uint32_t cap_pcs;
    uint64_t end;             /* latest completion of anything */
    uint64_t next_dispatch_mcycles; /* the GPU starts no CTA before this, 1/1000 cycle */
    uint64_t lrc_in;
    lrc *lrc;                 /* the L2 request coalescer; NULL: the config has no GPC map */
};

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint32_t pow2_at_least(uint64_t v)
{
    uint32_t p = 1;
    while (p < v && p < (1u << 30))
        p <<= 1;
    return p;
}

timing *timing_create(const cfg_gpu *c)
{
    assert(c->timing);
    timing *t = xcalloc(1, sizeof *t);
    t->cfg = *c;
    t->smsps = c->t_smsps_per_sm;
    t->partitions = c->l2_partitions;
    t->slices_per_partition = c->l2_slices / c->l2_partitions;
    t->lookup_units = c->t_l2_slice_bytes_per_cycle / c->l2_sector_bytes;
    if (t->lookup_units == 0)
        t->lookup_units = 1;
    t->q_l2 = xcalloc((size_t)QUEUE * GPU_OBS_MAX_L2, sizeof *t->q_l2);
    t->sm_part = xcalloc(c->sm_count, sizeof *t->sm_part);
    for (uint32_t i = 0; i < c->sm_count; i++)
        t->sm_part[i] = (uint8_t)cfg_partition_of_sm(c, i);
    uint32_t n_sm = c->sm_count;
    size_t n_cal = (size_t)n_sm * t->smsps + 2u * n_sm + c->l2_slices + 1u;
    t->cal_storage = xcalloc(n_cal * CAL_BINS, sizeof *t->cal_storage);
    t->issue = xcalloc((size_t)n_sm * t->smsps, sizeof *t->issue);
    t->tag = xcalloc(n_sm, sizeof *t->tag);
    t->data = xcalloc(n_sm, sizeof *t->data);
    t->slice = xcalloc(c->l2_slices, sizeof *t->slice);
    uint32_t *p = t->cal_storage;
    for (size_t i = 0; i < (size_t)n_sm * t->smsps; i++, p += CAL_BINS)
        cal_init(&t->issue[i], p, CAL_BIN); /* one instruction per cycle */
    for (uint32_t i = 0; i < n_sm; i++, p += CAL_BINS)
        cal_init(&t->tag[i], p, CAL_BIN);   /* one tag wavefront per cycle */
    for (uint32_t i = 0; i < n_sm; i++, p += CAL_BINS)
        cal_init(&t->data[i], p, CAL_BIN);  /* one data wavefront per cycle */
    uint32_t sector = c->l2_sector_bytes;
    for (uint32_t i = 0; i < c->l2_slices; i++, p += CAL_BINS)
        cal_init(&t->slice[i], p,
                 (uint32_t)(((uint64_t)c->t_l2_slice_bytes_per_cycle * c->t_l2_clock_permille * CAL_BIN) /
                            (1000u * sector)));
    cal_init(&t->dram, p, (uint32_t)(((uint64_t)c->t_dram_bytes_per_cycle * CAL_BIN) / sector));
    t->slices = xcalloc(c->l2_slices, sizeof *t->slices);
    t->sms = xcalloc(n_sm, sizeof *t->sms);
    t->sm_slots = xcalloc((size_t)n_sm * c->max_ctas_per_sm, sizeof *t->sm_slots);
    t->slot_end = xcalloc((size_t)n_sm * c->max_ctas_per_sm, sizeof *t->slot_end);
    /* four times what can be resident, so that a CTA still live in the replay
     * is not displaced by a later one that maps to the same entry */
    uint32_t n_warps = pow2_at_least(4ull * n_sm * (c->max_threads_per_sm / 32u));
    t->warps = xcalloc_lines(n_warps, sizeof *t->warps, &t->warps_raw);
    t->warp_mask = n_warps - 1u;
    uint32_t n_ctas = pow2_at_least(4ull * n_sm * c->max_ctas_per_sm);
    t->ctas = xcalloc_lines(n_ctas, sizeof *t->ctas, &t->ctas_raw);
    t->cta_mask = n_ctas - 1u;
    if (c->n_sm_gpc == n_sm)
        t->lrc = lrc_create(c->sm_gpc, n_sm, c->t_lrc_window_cycles);
    return t;
}

void timing_destroy(timing *t)
{
    if (!t)
        return;
    free(t->cal_storage);
    free(t->issue);
    free(t->tag);
    free(t->data);
    free(t->slice);
    free(t->slices);
    free(t->sms);
    free(t->sm_slots);
    free(t->slot_end);
    free(t->sm_part);
    free(t->q_l2);
    free(t->warps_raw);
    free(t->ctas_raw);
    free(t->pcs);
    lrc_destroy(t->lrc);
    free(t);
}

/* ---- SASS registers -------------------------------------------------------------- */

static void reg_set(uint64_t *m, unsigned r)
{
    if (r < 255u)
        m[r >> 6] |= 1ull << (r & 63u);
}

static bool reg_test(const uint64_t *m, unsigned r)
{
    return r < 255u && (m[r >> 6] >> (r & 63u)) & 1u;
}

void timing_parse_sass(const char *sass, bool has_dst, timing_regs *out)
{
    memset(out, 0, sizeof *out);
    out->dst = TIMING_NO_REG;
    if (!sass)
        return;
    const char *p = sass;
    while (*p && !isspace((unsigned char)*p)) /* the opcode and its modifiers */
        p++;
    bool first = true;
    while (*p) {
        /* a register: R<digits> not part of a longer name (UR4, SR_TID, P0) */
        if (*p == 'R' && isdigit((unsigned char)p[1]) &&
            (p == sass || !(isalnum((unsigned char)p[-1]) || p[-1] == '_'))) {
            char *end;
            unsigned long r = strtoul(p + 1, &end, 10);
            bool pair = strncmp(end, ".64", 3) == 0;
            if (first && has_dst) {
                out->dst = r < 255 ? (uint8_t)r : TIMING_NO_REG;
            } else {
                reg_set(out->src, (unsigned)r);
                if (pair)
                    reg_set(out->src, (unsigned)r + 1u);
            }
            first = false;
            p = end;
            continue;
        }
        p++;
    }
}

static void q_drain(timing *t); /* the event queue, below */

/* ---- kernels ---------------------------------------------------------------------- */

void timing_kernel_begin(timing *t, const trace_kernel *k, const gpu_kernel_info *info)
{
    t->q_head = t->q_len = 0; /* a kernel abandoned before its end leaves events behind */
    t->gen++;
    if (t->gen == 0)
        t->gen = 1; /* 0 marks empty entries; after a wrap stale entries would look live */
    t->k = k;
    t->info = *info;
    t->warps_per_cta = trace_kernel_warps_per_cta(k);
    if (t->cap_pcs < k->n_pcs) {
        free(t->pcs);
        t->pcs = xmalloc((size_t)k->n_pcs * sizeof *t->pcs);
        t->cap_pcs = k->n_pcs;
    }
    for (uint32_t i = 0; i < k->n_pcs; i++) {
        const char *s = k->pcs[i].sass;
        /* loads and value-returning atomics write their first register operand */
        bool dst = s && (strncmp(s, "LD", 2) == 0 || strncmp(s, "ATOM", 4) == 0) &&
                   strncmp(s, "LDGSTS", 6) != 0;
        timing_parse_sass(s, dst, &t->pcs[i]);
    }
    uint32_t n_sm = t->cfg.sm_count;
    for (size_t i = 0; i < (size_t)n_sm * t->smsps; i++)
        cal_clear(&t->issue[i]);
    for (uint32_t i = 0; i < n_sm; i++) {
        cal_clear(&t->tag[i]);
        cal_clear(&t->data[i]);
    }
    for (uint32_t i = 0; i < t->cfg.l2_slices; i++)
        cal_clear(&t->slice[i]);
    cal_clear(&t->dram);
    memset(t->slices, 0, t->cfg.l2_slices * sizeof *t->slices);
    memset(t->sms, 0, n_sm * sizeof *t->sms);
    memset(t->sm_slots, 0, (size_t)n_sm * t->cfg.max_ctas_per_sm * sizeof *t->sm_slots);
    memset(t->slot_end, 0, (size_t)n_sm * t->cfg.max_ctas_per_sm * sizeof *t->slot_end);
    t->end = 0;
    t->next_dispatch_mcycles = 0;
    t->lrc_in = 0;
    if (t->lrc)
        lrc_reset(t->lrc);
}

void timing_kernel_end(timing *t, timing_result *out)
{
    /* the GPU starts its CTAs one per cta_launch_millicycles, also CTAs
     * that executed no memory instruction (the trace does not show them) */
    q_drain(t);
    uint64_t ctas = trace_kernel_ctas(t->k);
    uint64_t busy = max64(t->end, (ctas * t->cfg.t_cta_launch_mcycles + 999u) / 1000u);
    out->cycles = t->cfg.t_launch_cycles + busy;
    out->lrc_input_sectors = t->lrc_in;
    out->lrc = t->lrc ? lrc_get_counts(t->lrc) : (lrc_counts){0};
    out->lrc_merged_sectors = out->lrc.sectors;
    t->k = NULL;
}

/* ---- CTAs and warps -------------------------------------------------------------- */

static uint32_t sm_of(const timing *t, uint32_t cta, int32_t sm)
{
    if (t->info.trace_sms && sm >= 0 && (uint32_t)sm < t->cfg.sm_count)
        return (uint32_t)sm;
    return cta % t->cfg.sm_count;
}

/* The CTA's entry; a CTA seen for the first time takes the slot of its SM
 * whose occupant ended earliest, and starts when that one ended and the SM
 * can start another CTA. */
static cta_state *cta_get(timing *t, uint32_t cta, uint32_t sm)
{
    uint32_t idx = cta & t->cta_mask;
    cta_state *c = &t->ctas[idx];
    if (c->gen == t->gen && c->cta == cta)
        return c;
    uint32_t slots = t->info.ctas_per_sm < t->cfg.max_ctas_per_sm ? t->info.ctas_per_sm : t->cfg.max_ctas_per_sm;
    size_t base = (size_t)sm * t->cfg.max_ctas_per_sm;
    const uint64_t *ends = &t->slot_end[base]; /* 0 for a slot never taken in this kernel */
    uint32_t best = 0;
    uint64_t best_end = UINT64_MAX;
    for (uint32_t i = 0; i < slots; i++) {
        if (ends[i] < best_end) {
            best_end = ends[i];
            best = i;
        }
    }
    /* one dispatcher for the GPU: a CTA per cta_launch_millicycles */
    /* kept exact: folding the rounded-up start back in added up to a cycle per
     * CTA (1,277 became 2,000 millicycles when CTAs came faster than slots) */
    uint64_t at_m = max64(t->next_dispatch_mcycles, best_end * 1000u);
    uint64_t start = (at_m + 999u) / 1000u;
    t->next_dispatch_mcycles = at_m + t->cfg.t_cta_launch_mcycles;
    t->sm_slots[base + best] = idx + 1u;
    t->slot_end[base + best] = start;
    memset(c, 0, sizeof *c);
    c->gen = t->gen;
    c->cta = cta;
    c->sm = sm;
    c->slot = (uint32_t)(base + best);
    c->start = c->end = start;
    return c;
}

/* The CTA ran until at least v: its end, and its slot's while it holds the slot. */
static void cta_ran_until(timing *t, cta_state *c, uint64_t v)
{
    if (v <= c->end)
        return;
    c->end = v;
    if (t->sm_slots[c->slot] == (uint32_t)(c - t->ctas) + 1u)
        t->slot_end[c->slot] = v;
}

static warp_state *warp_get(timing *t, uint32_t cta, uint32_t warp, cta_state **cp, uint32_t sm)
{
    cta_state *c = cta_get(t, cta, sm);
    *cp = c;
    uint32_t idx = (uint32_t)((uint64_t)cta * t->warps_per_cta + warp) & t->warp_mask;
    warp_state *w = &t->warps[idx];
    if (w->gen == t->gen && w->cta == cta && w->warp == warp)
        return w;
    /* the first line only: no load is pending, so pend_ready is not read */
    memset(w, 0, offsetof(warp_state, pend_ready));
    w->gen = t->gen;
    w->cta = cta;
    w->warp = warp;
    w->clock = c->start;
    w->pc_idx = UINT32_MAX;
    w->smsp = (uint8_t)(warp % t->smsps);
    return w;
}

/* The PC table index of pc: usually the entry after the warp's last one. */
static uint32_t pc_index(const timing *t, const warp_state *w, uint32_t pc)
{
    const trace_kernel *k = t->k;
    if (w->pc_idx != UINT32_MAX && w->pc_idx + 1u < k->n_pcs && k->pcs[w->pc_idx + 1u].pc == pc)
        return w->pc_idx + 1u;
    const trace_pc_info *p = trace_kernel_find_pc(k, pc);
    return p ? (uint32_t)(p - k->pcs) : UINT32_MAX;
}

static void wait_all(warp_state *w, uint64_t *at)
{
    for (uint32_t i = 0; i < w->n_pend; i++)
        *at = max64(*at, w->pend_ready[i]);
    w->n_pend = 0;
}

/* Wait for the loads whose registers r reads or rewrites; drop them. Returns
 * whether some pending load wrote a register r reads. */
static bool wait_regs(warp_state *w, const timing_regs *r, uint8_t dst, uint8_t dst_n, uint64_t *at)
{
    bool any = false;
    uint32_t keep = 0;
    for (uint32_t i = 0; i < w->n_pend; i++) {
        unsigned first = w->pend_first[i], n = w->pend_n[i];
        bool hit = false;
        for (uint32_t j = 0; j < n && !hit; j++)
            hit = reg_test(r->src, first + j);
        any |= hit;
        /* writing a register a load is still filling means its value was used */
        if (!hit && dst != TIMING_NO_REG)
            hit = first < (unsigned)dst + dst_n && dst < first + n;
        if (hit) {
            *at = max64(*at, w->pend_ready[i]);
        } else {
            w->pend_first[keep] = (uint8_t)first;
            w->pend_n[keep] = (uint8_t)n;
            w->pend_ready[keep++] = w->pend_ready[i];
        }
    }
    w->n_pend = (uint8_t)keep;
    return any;
}

static void add_pending(warp_state *w, uint8_t dst, uint8_t n, uint64_t ready, uint64_t *clock)
{
    if (dst == TIMING_NO_REG)
        return;
    if (w->n_pend == MAX_PENDING) { /* out of scoreboards: wait for the oldest */
        *clock = max64(*clock, w->pend_ready[0]);
        memmove(w->pend_first, w->pend_first + 1, MAX_PENDING - 1u);
        memmove(w->pend_n, w->pend_n + 1, MAX_PENDING - 1u);
        memmove(w->pend_ready, w->pend_ready + 1, (MAX_PENDING - 1u) * sizeof *w->pend_ready);
        w->n_pend--;
    }
    w->pend_first[w->n_pend] = dst;
    w->pend_n[w->n_pend] = n;
    w->pend_ready[w->n_pend++] = ready;
}

/* Issue the instructions between the warp's last record and pc, then pc
 * itself; returns the cycle pc issues. regs: pc's registers (NULL: none). */
static uint64_t issue_to(timing *t, warp_state *w, cta_state *c, uint32_t sm, uint32_t pc,
                         const timing_regs *regs, bool is_store, uint8_t dst_n)
{
    uint64_t at = w->clock;
    if (w->bar_wait) {
        uint32_t s = (w->bar_gen - 1u) & 1u;
        if (c->bar_id[s] == w->bar_gen - 1u)
            at = max64(at, c->bar_max[s] + t->cfg.t_barrier_cycles);
        w->bar_wait = false;
    }
    uint64_t between;
    if (!w->started)
        between = pc / PC_BYTES; /* the kernel's prologue, straight from its entry */
    else if (pc > w->last_pc)
        between = (pc - w->last_pc) / PC_BYTES - 1u;
    else {
        /* a loop's next iteration: its body's non-memory instructions used
         * the loads (the branch back waits on nothing, but what lies between
         * the last load and the branch does, as far as a trace can tell) */
        between = BACK_BRANCH_INSTRUCTIONS;
        wait_all(w, &at);
    }
    cal *iss = &t->issue[(size_t)sm * t->smsps + w->smsp];
    if (between)
        at = cal_book(iss, at, between);
    if (regs) {
        bool from_load = wait_regs(w, regs, regs->dst, dst_n, &at);
        /* a store whose data no pending load wrote directly stores a value
         * computed since: from the loads in flight */
        if (is_store && !from_load)
            wait_all(w, &at);
    }
    at = cal_book(iss, at, 1) - 1u;
    w->started = true;
    w->last_pc = pc;
    w->clock = at + 1u;
    cta_ran_until(t, c, w->clock);
    return at;
}

/* ---- L2 ------------------------------------------------------------------------- */

static inline uint64_t mix64(uint64_t z)
{
    z ^= z >> 30;
    z *= 0xbf58476d1ce4e5b9ull;
    z ^= z >> 27;
    z *= 0x94d049bb133111ebull;
    z ^= z >> 31;
    return z;
}

/* The slice of partition part that holds line: the same hash as l2.c
 * (2 KiB granules, splitmix64), so the functional and the timing model agree
 * on which lines share a slice. */
static uint32_t slice_of(const timing *t, uint64_t line, uint32_t part)
{
    uint64_t h = mix64(line >> 4);
    uint32_t s = (uint32_t)(((h >> 32) * t->slices_per_partition) >> 32);
    return part * t->slices_per_partition + s;
}

/* The partition that is line's home (l2.c's rule): writes and atomics are done there. */
static uint32_t home_of(const timing *t, uint64_t line)
{
    uint64_t h = mix64(line >> 4);
    return (uint32_t)(((h & 0xffffffffu) * t->partitions) >> 32);
}

/* One request from SM sm leaving L1 at t1; returns when its data (or its
 * acknowledgement) is back at the SM. */
static uint64_t l2_request(timing *t, uint32_t sm, const gpu_l2_req *r, uint64_t t1)
{
    const cfg_gpu *c = &t->cfg;
    uint64_t l2_in = c->t_l2_hit_cycles / 2u, l2_out = c->t_l2_hit_cycles - l2_in;
    uint64_t arrive = t1 + l2_in + (r->far ? c->t_l2_far_extra_cycles / 2u : 0);
    /* reads are looked up in the SM's near partition; writes and atomics at home */
    uint32_t part = r->op == GPU_L2_READ ? t->sm_part[sm] : home_of(t, r->line);
    uint32_t si = slice_of(t, r->line, part);
    slice_state *ss = &t->slices[si];
    uint64_t served;
    uint32_t sectors = r->sectors;

    if (r->op == GPU_L2_READ) {
        /* the LRC, before the slices: a read another SM of the GPC has in
         * flight gets that one's data and books nothing (model/lrc.h) */
        uint64_t at_lrc = t1 + l2_in, merged_ret;
        t->lrc_in += r->sectors;
        if (t->lrc && r->sectors == (uint32_t)__builtin_popcount(r->sector_mask) &&
            lrc_merge(t->lrc, sm, r->line, r->sector_mask, at_lrc, r->hit_sectors, &merged_ret))
            return max64(merged_ret, at_lrc) + l2_out;
    }

    /* a request crossing the fabric is looked up in both partitions (hardware-facts
     * 3.5: a far access costs two L2 lookups, the near one first); each lookup
     * holds its slice at least one L2 cycle, a 1-sector request as long as 2 */
    uint32_t lookup = t->lookup_units;
    if (r->far) {
        uint32_t other = r->op == GPU_L2_READ ? home_of(t, r->line) : t->sm_part[sm];
        arrive = cal_book(&t->slice[slice_of(t, r->line, other)], arrive, max64(sectors, lookup));
    }

    if (r->op == GPU_L2_ATOMIC) {
        if (ss->atomic_valid && ss->atomic_line == r->line) {
            uint64_t m = max64(arrive * 1000u, ss->atomic_free_mcycles) + c->t_l2_atomic_same_line_mcycles;
            ss->atomic_free_mcycles = m;
            served = (m + 999u) / 1000u;
        } else {
            served = cal_book(&t->slice[si], arrive, max64(sectors, lookup));
            ss->atomic_line = r->line;
            ss->atomic_valid = true;
            ss->atomic_free_mcycles = served * 1000u;
        }
    } else {
        served = cal_book(&t->slice[si], arrive, max64(sectors, lookup));
    }
    uint64_t back = l2_out + (r->far ? c->t_l2_far_extra_cycles - c->t_l2_far_extra_cycles / 2u : 0);
    uint64_t ret = served + back;
    if (r->dram_sectors) {
        uint64_t extra = c->t_dram_cycles > c->t_l2_hit_cycles ? c->t_dram_cycles - c->t_l2_hit_cycles : 0;
        uint64_t d_in = extra / 2u;
        uint64_t d = cal_book(&t->dram, served + d_in, r->dram_sectors);
        ret = max64(ret, d + (extra - d_in) + back);
    }
    if (t->lrc && r->op == GPU_L2_READ)
        lrc_sent(t->lrc, sm, r->line, r->sector_mask, t1 + l2_in, ret - l2_out);
    return ret;
}

/* ---- records --------------------------------------------------------------------- */

static void do_record(timing *t, const queued *q, const gpu_l2_req *l2)
{
    const cfg_gpu *c = &t->cfg;
    uint32_t sm = q->sm;
    cta_state *cs;
    warp_state *w = warp_get(t, q->cta, q->warp, &cs, sm);
    uint32_t pi = pc_index(t, w, q->pc);
    const timing_regs *regs = pi != UINT32_MAX ? &t->pcs[pi] : NULL;
    w->pc_idx = pi;
    uint8_t dst_n = (uint8_t)(q->size_bytes > 4 ? q->size_bytes / 4u : 1u);
    uint64_t at = issue_to(t, w, cs, sm, q->pc, regs, q->mem_kind == TRACE_KIND_ST, dst_n);
    bool returns = q->mem_kind == TRACE_KIND_LD || q->mem_kind == TRACE_KIND_ATOM;
    uint64_t done;

    if (q->space == TRACE_SPACE_SHARED) {
        done = cal_book(&t->data[sm], at, q->data_wavefronts) + c->t_smem_cycles - 1u;
    } else {
        uint64_t tagged = cal_book(&t->tag[sm], at, q->tag_wavefronts);
        if (q->mem_kind == TRACE_KIND_ST) {
            t->sms[sm].last_store = tagged;
            done = tagged + c->t_l2_hit_cycles; /* acknowledged by L2 */
        } else if (q->n_l2 == 0) {
            done = cal_book(&t->data[sm], tagged, q->data_wavefronts) + c->t_l1_hit_cycles - 1u;
        } else {
            done = tagged + c->t_l1_hit_cycles;
            for (uint32_t i = 0; i < q->n_l2; i++)
                done = max64(done, l2_request(t, sm, &l2[i], tagged));
            if (q->data_wavefronts > 1)
                done = cal_book(&t->data[sm], done, q->data_wavefronts);
        }
    }
    if (returns && regs)
        add_pending(w, regs->dst, dst_n, done, &w->clock);
    t->end = max64(t->end, max64(done, w->clock));
    cta_ran_until(t, cs, w->clock);
}

static void do_store_line(timing *t, uint32_t sm, const gpu_l2_req *r)
{
    uint64_t done = l2_request(t, sm, r, t->sms[sm].last_store);
    t->end = max64(t->end, done);
}

static void do_barrier(timing *t, const trace_barrier *b);

/* Model the oldest queued event. */
static void q_pop(timing *t)
{
    uint32_t slot = t->q_head;
    const queued *q = &t->q[slot];
    const gpu_l2_req *l2 = &t->q_l2[(size_t)slot * GPU_OBS_MAX_L2];
    if (q->kind == Q_RECORD) {
        do_record(t, q, l2);
    } else if (q->kind == Q_STORE_LINE) {
        do_store_line(t, q->sm, l2);
    } else {
        trace_barrier b = {.cta = q->cta, .warp = q->warp, .sm = q->rec_sm, .pc = q->pc};
        do_barrier(t, &b);
    }
    t->q_head = (t->q_head + 1u) % QUEUE;
    t->q_len--;
}

static void q_drain(timing *t)
{
    while (t->q_len)
        q_pop(t);
}

/* GCC's pure-const pass counts a prefetch as no side effect: a function that
 * only prefetches is "pure", and a call to it whose result is unused is
 * deleted. Inlined before that pass, the prefetches stay. */
#define PREFETCHER static inline __attribute__((always_inline))

PREFETCHER void cal_prefetch(const cal *c, uint64_t cycle)
{
    uint64_t b = cycle >> CAL_BIN_SHIFT;
    if (b >= c->lo && b < c->lo + CAL_BINS)
        __builtin_prefetch(&c->used[b & (CAL_BINS - 1u)], 0);
}

/* Halfway through the queue, the warp entry of a record is in cache: its
 * clock says which bins of its SM's issue slots and L1 stages its turn will
 * book, near enough to prefetch them. (A heuristic: earlier events of the same
 * warp may still move its clock.) */
PREFETCHER void q_prefetch_bins(const timing *t, const queued *q)
{
    if (q->kind != Q_RECORD)
        return;
    const warp_state *w = &t->warps[(uint32_t)((uint64_t)q->cta * t->warps_per_cta + q->warp) & t->warp_mask];
    if (w->gen != t->gen || w->cta != q->cta || w->warp != q->warp)
        return;
    cal_prefetch(&t->issue[(size_t)q->sm * t->smsps + w->smsp], w->clock);
    cal_prefetch(&t->tag[q->sm], w->clock);
    cal_prefetch(&t->data[q->sm], w->clock);
}

/* A free slot at the queue's tail (modelling the oldest event when full). */
static uint32_t q_push(timing *t)
{
    if (t->q_len == QUEUE)
        q_pop(t);
    if (t->q_len >= QUEUE / 2u)
        q_prefetch_bins(t, &t->q[(t->q_head + t->q_len - QUEUE / 2u) % QUEUE]);
    uint32_t slot = (t->q_head + t->q_len) % QUEUE;
    t->q_len++;
    return slot;
}

/* The entries the event's turn will read first: its warp (two lines) and CTA. */
PREFETCHER void q_prefetch(const timing *t, uint32_t cta, uint32_t warp)
{
    const warp_state *w = &t->warps[(uint32_t)((uint64_t)cta * t->warps_per_cta + warp) & t->warp_mask];
    __builtin_prefetch(w, 0);
    __builtin_prefetch(&w->pend_ready, 0);
    __builtin_prefetch(&t->ctas[cta & t->cta_mask], 0);
}

static void on_record(void *ctx, const gpu_event *e)
{
    timing *t = ctx;
    const trace_mem *m = e->m;
    q_prefetch(t, m->cta, m->warp);
    uint32_t slot = q_push(t);
    uint32_t n_l2 = e->n_l2 < GPU_OBS_MAX_L2 ? e->n_l2 : GPU_OBS_MAX_L2;
    t->q[slot] = (queued){.kind = Q_RECORD, .mem_kind = m->kind, .space = m->space,
                          .size_bytes = m->size_bytes, .cta = m->cta, .warp = m->warp, .pc = m->pc,
                          .sm = e->sm, .tag_wavefronts = e->tag_wavefronts,
                          .data_wavefronts = e->data_wavefronts, .n_l2 = n_l2};
    if (n_l2)
        memcpy(&t->q_l2[(size_t)slot * GPU_OBS_MAX_L2], e->l2, n_l2 * sizeof *e->l2);
}

static void on_store_line(void *ctx, uint32_t sm, const gpu_l2_req *r)
{
    timing *t = ctx;
    uint32_t slot = q_push(t);
    t->q[slot] = (queued){.kind = Q_STORE_LINE, .sm = sm, .n_l2 = 1};
    t->q_l2[(size_t)slot * GPU_OBS_MAX_L2] = *r;
}

gpu_observer timing_observer(timing *t)
{
    return (gpu_observer){.record = on_record, .store_line = on_store_line, .ctx = t};
}

void timing_barrier(timing *t, const trace_barrier *b)
{
    q_prefetch(t, b->cta, b->warp);
    uint32_t slot = q_push(t);
    t->q[slot] = (queued){.kind = Q_BARRIER, .cta = b->cta, .warp = b->warp, .pc = b->pc, .rec_sm = b->sm};
}

static void do_barrier(timing *t, const trace_barrier *b)
{
    uint32_t sm = sm_of(t, b->cta, b->sm);
    cta_state *c;
    warp_state *w = warp_get(t, b->cta, b->warp, &c, sm);
    w->pc_idx = pc_index(t, w, b->pc);
    uint64_t at = issue_to(t, w, c, sm, b->pc, NULL, false, 0);
    uint32_t g = w->bar_gen, s = g & 1u;
    if (c->bar_id[s] != g || c->bar_count[s] == 0) {
        c->bar_id[s] = g;
        c->bar_count[s] = 0;
        c->bar_max[s] = 0;
    }
    c->bar_count[s]++;
    c->bar_max[s] = max64(c->bar_max[s], at);
    w->bar_gen++;
    w->bar_wait = true;
    t->end = max64(t->end, at + 1u);
}
