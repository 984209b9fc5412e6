/* cmd_synth.c - `gpumemsim trace synth`: large synthetic binary traces from
 * named access patterns, for benchmarks (bench/run.sh) and sweeps.
 *
 *   trace synth --pattern NAME --instructions N -o FILE [--seed S]
 *
 * Each pattern is one small kernel (a table of SASS memory instructions and
 * barriers, below) run on an H200-like GPU of 132 SMs, written as a capture
 * would record it:
 *  - the grid is as large as N needs and is run in waves: every SM holds as
 *    many CTAs as threads, registers and shared memory allow (H200 limits);
 *    a CTA that finishes is replaced on the same SM by the next CTA of the
 *    grid, as the hardware's CTA scheduler does;
 *  - a small scheduler (below) picks which resident warp issues next, so the
 *    records of thousands of warps interleave as in a capture, while each
 *    warp's own instructions stay in program order; a CTA barrier holds its
 *    warps until all have arrived;
 *  - records carry their SM; the kernel has a PC table (SASS text, source
 *    lines) with a few PCs.
 * Addresses: thread t of the grid (t = (cta * items + item) * block + tid,
 * the "striped" layout of CUB) handles element t of each array; arrays lie
 * 1 TiB apart from 2^40 up. Random addresses come from a second
 * pseudo-random stream, so the trace is a pure function of (pattern, N, seed):
 * the same arguments give the same bytes.
 *
 * N counts warp-level memory instructions (memory records); barrier records
 * come in addition. The grid has at least one CTA per SM; the capture stops
 * after exactly N memory records, so the last CTAs of the grid may be cut
 * short. Not modelled: timing of any kind
 * (the order is plausible, not measured), kernels with divergence (every mask
 * is full), more than one kernel per trace. Memory use is fixed (the resident
 * warps' state), whatever N. */
#include <errno.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_synth.h"
#include "commands.h"
#include "gpu.h"
#include "trace.h"
#include "version.h"

/* The GPU the synthetic kernels run on: an H200 (configs/h200.ini). */
#define SYNTH_SMS 132u
#define SYNTH_THREADS_PER_SM 2048u
#define SYNTH_REGS_PER_SM 65536u
#define SYNTH_MAX_CTAS_PER_SM 32u
#define SYNTH_SMEM_PER_SM (228u * 1024u)
#define SYNTH_SMEM_RESERVED 1024u

/* N is refused above this before anything is done: 10^10 records are about
 * 40 GB of coalesced trace, and every pattern's grid still fits 2^31 CTAs. */
#define SYNTH_MAX_INSTRUCTIONS 10000000000ull
#define SYNTH_MAX_OPS 16u
#define PROGRESS_EVERY ((uint64_t)1 << 20)
/* zstd level of the output: 6 writes a coalesced trace in about 3.7 bytes per
 * instruction (level 3: 4.0) at 1.5 times the time; decoding costs the same. */
#define SYNTH_ZSTD_LEVEL 6

#define ARRAY(k) (((uint64_t)(k) + 1u) << 40) /* global arrays 1 TiB apart */

typedef enum addr_mode {
    ADDR_NONE,   /* a barrier */
    ADDR_LINEAR, /* base + t * stride + offset: thread t's element of an array */
    ADDR_RANDOM, /* base + size * uniform(span / size), per lane: a gather or scatter */
    ADDR_SHARED, /* offset + tid * stride in the CTA's shared window */
    ADDR_LOCAL   /* offset in each thread's own local window */
} addr_mode;

typedef struct synth_op {
    const char *sass;
    addr_mode mode;
    trace_kind kind;
    trace_space space;
    uint8_t size_bytes;
    trace_cache_op cache;
    uint64_t base;   /* LINEAR, RANDOM: array start */
    uint64_t stride; /* LINEAR: bytes per grid thread; SHARED: bytes per CTA thread */
    uint64_t offset; /* LINEAR, SHARED, LOCAL: bytes added */
    uint64_t span;   /* RANDOM: bytes of the table */
} synth_op;

typedef struct synth_pattern {
    const char *name;
    const char *what;       /* one line for the usage text and the trace */
    uint32_t block_threads; /* a multiple of 32: every mask is full */
    uint32_t items;         /* times each thread runs the body */
    uint32_t regs;
    uint32_t smem_bytes;
    uint32_t local_bytes;
    uint32_t n_ops;
    synth_op ops[SYNTH_MAX_OPS];
} synth_pattern;

#define LD_G(sass_, size_, base_, stride_, off_) \
    {sass_, ADDR_LINEAR, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, size_, TRACE_CACHE_DEFAULT, base_, stride_, off_, 0}
#define ST_G(sass_, size_, base_, stride_) \
    {sass_, ADDR_LINEAR, TRACE_KIND_ST, TRACE_SPACE_GLOBAL, size_, TRACE_CACHE_DEFAULT, base_, stride_, 0, 0}
#define GATHER(sass_, kind_, size_, base_, span_) \
    {sass_, ADDR_RANDOM, kind_, TRACE_SPACE_GLOBAL, size_, TRACE_CACHE_DEFAULT, base_, 0, 0, span_}
#define SHARED(sass_, kind_, size_, stride_, off_) \
    {sass_, ADDR_SHARED, kind_, TRACE_SPACE_SHARED, size_, TRACE_CACHE_DEFAULT, 0, stride_, off_, 0}
#define LOCAL(sass_, kind_, off_) \
    {sass_, ADDR_LOCAL, kind_, TRACE_SPACE_LOCAL, 4, TRACE_CACHE_DEFAULT, 0, 0, off_, 0}
#define BAR {"BAR.SYNC.DEFER_BLOCKING 0x0", ADDR_NONE, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 0, TRACE_CACHE_DEFAULT, 0, 0, 0, 0}

static const synth_pattern patterns[] = {
    {"coalesced", "c[i] = a[i] + b[i]: 4-byte loads and a store, 1 line and 4 sectors per warp",
     256, 1, 16, 0, 0, 3,
     {LD_G("LDG.E R3, desc[UR4][R2.64]", 4, ARRAY(0), 4, 0),
      LD_G("LDG.E R4, desc[UR4][R4.64]", 4, ARRAY(1), 4, 0),
      ST_G("STG.E desc[UR4][R6.64], R9", 4, ARRAY(2), 4)}},
    {"misaligned", "c[i] = a[i + 1] + b[i + 11]: loads off 4 and 44 bytes, 2 lines and 5 sectors per warp",
     256, 1, 16, 0, 0, 3,
     {LD_G("LDG.E R3, desc[UR4][R2.64+0x4]", 4, ARRAY(0), 4, 4),
      LD_G("LDG.E R4, desc[UR4][R4.64+0x2c]", 4, ARRAY(1), 4, 44),
      ST_G("STG.E desc[UR4][R6.64], R9", 4, ARRAY(2), 4)}},
    {"strided", "c[i] = a[2 * i] + b[32 * i]: 8 sectors in 2 lines, and 32 lines, per warp",
     256, 1, 16, 0, 0, 3,
     {LD_G("LDG.E R3, desc[UR4][R2.64]", 4, ARRAY(0), 8, 0),
      LD_G("LDG.E R4, desc[UR4][R4.64]", 4, ARRAY(1), 128, 0),
      ST_G("STG.E desc[UR4][R6.64], R9", 4, ARRAY(2), 4)}},
    {"random", "c[i] = t[r0] + t[r1] + t[r2]: a gather, random lanes over a 256 MiB table, 32 lines per load",
     256, 1, 24, 0, 0, 4,
     {GATHER("LDG.E R3, desc[UR4][R2.64]", TRACE_KIND_LD, 4, ARRAY(0), 256u << 20),
      GATHER("LDG.E R4, desc[UR4][R4.64]", TRACE_KIND_LD, 4, ARRAY(0), 256u << 20),
      GATHER("LDG.E R5, desc[UR4][R10.64]", TRACE_KIND_LD, 4, ARRAY(0), 256u << 20),
      ST_G("STG.E desc[UR4][R6.64], R9", 4, ARRAY(2), 4)}},
    {"shared", "shared-memory strides: s[tid] = a[i]; sync; c[i] = s[2 tid] + s[16 tid] + s2[tid] (LDS.64); sync",
     256, 4, 24, 16384, 0, 8,
     {LD_G("LDG.E R3, desc[UR4][R2.64]", 4, ARRAY(0), 4, 0),
      SHARED("STS [R5], R3", TRACE_KIND_ST, 4, 4, 0),
      BAR,
      SHARED("LDS R7, [R8]", TRACE_KIND_LD, 4, 8, 0),
      SHARED("LDS R9, [R10]", TRACE_KIND_LD, 4, 64, 0),
      SHARED("LDS.64 R12, [R11+0x2000]", TRACE_KIND_LD, 8, 8, 8192),
      ST_G("STG.E desc[UR4][R6.64], R9", 4, ARRAY(2), 4),
      BAR}},
    {"mix", "coalesced, misaligned, 16-byte and gathered loads, shared memory, spills, a histogram",
     256, 4, 40, 2048, 16, 12,
     {LD_G("LDG.E R3, desc[UR4][R2.64]", 4, ARRAY(0), 4, 0),
      LD_G("LDG.E R4, desc[UR4][R2.64+0x4]", 4, ARRAY(0), 4, 4),
      LD_G("LDG.E.128 R12, desc[UR4][R14.64]", 16, ARRAY(1), 16, 0),
      GATHER("LDG.E R5, desc[UR4][R16.64]", TRACE_KIND_LD, 4, ARRAY(3), 64u << 20),
      SHARED("STS [R5], R3", TRACE_KIND_ST, 4, 4, 0),
      BAR,
      SHARED("LDS R7, [R8]", TRACE_KIND_LD, 4, 8, 0),
      LOCAL("STL [R1], R7", TRACE_KIND_ST, 0),
      LOCAL("LDL R8, [R1]", TRACE_KIND_LD, 0),
      GATHER("RED.E.ADD.STRONG.GPU desc[UR4][R18.64], R8", TRACE_KIND_RED, 4, ARRAY(4), 1024),
      ST_G("STG.E desc[UR4][R6.64], R9", 4, ARRAY(2), 4),
      BAR}},
};
#define N_PATTERNS (sizeof patterns / sizeof patterns[0])

/* ---- pseudo-random numbers: splitmix64 (deterministic, fast, no state but a word) ---- */

static inline uint64_t rng_next(uint64_t *s)
{
    uint64_t z = (*s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

/* Uniform in [0, n), n < 2^32 (Lemire's multiply-shift; the bias is below 2^-32 * n). */
static inline uint32_t rng_below(uint64_t *s, uint32_t n)
{
    return (uint32_t)(((rng_next(s) >> 32) * (uint64_t)n) >> 32);
}

/* ---- the resident warps and their scheduler -------------------------------------
 * A warp is ready at a time (in cycles); the ready warp with the earliest time
 * (then the lowest id) issues next. After an instruction the warp waits a
 * pseudo-random time that depends on what it issued: a load's data comes back
 * after several hundred cycles, stores and shared-memory accesses let it go on
 * sooner. A new CTA's warps start together, a little apart. So, as in a
 * capture, the warps of CTAs that started together issue close together, and
 * the interleaving is irregular but reproducible. */

#define W_READY 0u   /* in the heap */
#define W_BLOCKED 1u /* waiting at a barrier */
#define W_DONE 2u    /* finished, or its slot is idle */

typedef struct cta_slot {
    uint32_t cta;     /* the CTA running in this slot */
    uint32_t sm;      /* the slot's SM: a CTA that refills it runs there too */
    uint32_t live;    /* warps not finished */
    uint32_t blocked; /* warps waiting at the barrier */
} cta_slot;

typedef struct synth {
    const synth_pattern *p;
    trace_kernel kernel;
    uint32_t warps_per_cta;
    uint32_t prog_len;   /* instructions per warp: items * n_ops */
    uint32_t mem_ops;    /* memory ops in the body */
    uint64_t grid;       /* CTAs */
    uint64_t next_cta;   /* the next CTA to start */
    uint32_t n_slots;
    cta_slot *slots;     /* [n_slots] */
    uint32_t *step;      /* [n_slots * warps_per_cta]: each warp's next instruction */
    uint8_t *state;      /* W_READY, W_BLOCKED, W_DONE */
    uint64_t *ready;     /* the cycle from which the warp may issue */
    uint32_t *heap;      /* ready warps, a binary min-heap on (ready, id) */
    uint32_t n_heap;
    uint64_t now;        /* cycle of the last issue */
    uint64_t sched_rng, addr_rng;
    trace_mem mem;
    trace_barrier bar;
} synth;

static inline bool earlier(const synth *s, uint32_t a, uint32_t b)
{
    return s->ready[a] < s->ready[b] || (s->ready[a] == s->ready[b] && a < b);
}

static void heap_push(synth *s, uint32_t w, uint64_t ready)
{
    s->ready[w] = ready;
    s->state[w] = W_READY;
    uint32_t i = s->n_heap++;
    while (i > 0) {
        uint32_t up = (i - 1u) / 2u;
        if (!earlier(s, w, s->heap[up]))
            break;
        s->heap[i] = s->heap[up];
        i = up;
    }
    s->heap[i] = w;
}

static uint32_t heap_pop(synth *s)
{
    uint32_t top = s->heap[0];
    uint32_t w = s->heap[--s->n_heap];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= s->n_heap)
            break;
        if (c + 1u < s->n_heap && earlier(s, s->heap[c + 1u], s->heap[c]))
            c++;
        if (!earlier(s, s->heap[c], w))
            break;
        s->heap[i] = s->heap[c];
        i = c;
    }
    s->heap[i] = w;
    return top;
}

/* Cycles a warp waits after an instruction: uncalibrated, chosen only to
 * give a plausible interleaving (loads wait for their data). */
static uint64_t wait_after(synth *s, const synth_op *op)
{
    if (op->mode == ADDR_NONE)
        return 10u + rng_below(&s->sched_rng, 30u);
    if (op->space == TRACE_SPACE_SHARED)
        return 20u + rng_below(&s->sched_rng, 40u);
    if (op->kind == TRACE_KIND_LD || op->kind == TRACE_KIND_ATOM)
        return 400u + rng_below(&s->sched_rng, 400u);
    return 10u + rng_below(&s->sched_rng, 40u);
}

static const synth_pattern *pattern_find(const char *name)
{
    for (size_t i = 0; i < N_PATTERNS; i++)
        if (strcmp(patterns[i].name, name) == 0)
            return &patterns[i];
    return NULL;
}

/* Resident CTAs per SM by threads, registers and shared memory: the model's
 * rule (gpu_ctas_per_sm) with the H200's limits. Block sizes are whole warps. */
static uint32_t ctas_per_sm(const synth_pattern *p)
{
    static const gpu_sm_limits h200 = {SYNTH_MAX_CTAS_PER_SM, SYNTH_THREADS_PER_SM,
                                       SYNTH_REGS_PER_SM, SYNTH_SMEM_PER_SM};
    return gpu_ctas_per_sm(&h200, p->block_threads, (uint64_t)p->regs * p->block_threads,
                           (uint64_t)p->smem_bytes + SYNTH_SMEM_RESERVED);
}

/* Start the grid's next CTA in slot i, if any is left. */
static void slot_start(synth *s, uint32_t i)
{
    cta_slot *c = &s->slots[i];
    if (s->next_cta == s->grid) {
        c->live = 0;
        return;
    }
    c->cta = (uint32_t)s->next_cta++;
    c->live = s->warps_per_cta;
    c->blocked = 0;
    uint64_t start = s->now + 100u + rng_below(&s->sched_rng, 200u); /* the launch */
    for (uint32_t w = 0; w < s->warps_per_cta; w++) {
        s->step[i * s->warps_per_cta + w] = 0;
        heap_push(s, i * s->warps_per_cta + w, start + rng_below(&s->sched_rng, 8u * s->warps_per_cta));
    }
}

/* Every live warp of slot i has arrived: let them all go on. */
static void slot_release(synth *s, uint32_t i)
{
    for (uint32_t w = 0; w < s->warps_per_cta; w++)
        if (s->state[i * s->warps_per_cta + w] == W_BLOCKED)
            heap_push(s, i * s->warps_per_cta + w, s->now + 10u + rng_below(&s->sched_rng, 30u));
    s->slots[i].blocked = 0;
}

static void synth_free(synth *s)
{
    trace_kernel_free(&s->kernel);
    free(s->slots);
    free(s->step);
    free(s->state);
    free(s->ready);
    free(s->heap);
}

static void synth_init(synth *s, const synth_pattern *p, uint64_t n, uint64_t seed)
{
    memset(s, 0, sizeof *s);
    s->p = p;
    s->warps_per_cta = p->block_threads / 32u;
    s->prog_len = p->items * p->n_ops;
    for (uint32_t i = 0; i < p->n_ops; i++)
        s->mem_ops += p->ops[i].mode != ADDR_NONE;
    uint64_t per_cta = (uint64_t)s->warps_per_cta * p->items * s->mem_ops;
    /* as many CTAs as n needs, and at least one per SM: a short capture of a
     * kernel that fills the GPU, not a kernel that leaves SMs idle */
    s->grid = (n + per_cta - 1u) / per_cta;
    if (s->grid < SYNTH_SMS)
        s->grid = SYNTH_SMS;
    uint64_t slots = (uint64_t)SYNTH_SMS * ctas_per_sm(p);
    s->n_slots = (uint32_t)(slots < s->grid ? slots : s->grid);
    uint32_t n_warps = s->n_slots * s->warps_per_cta;
    s->slots = xcalloc(s->n_slots, sizeof *s->slots);
    s->step = xcalloc(n_warps, sizeof *s->step);
    s->state = xcalloc(n_warps, sizeof *s->state);
    s->ready = xcalloc(n_warps, sizeof *s->ready);
    s->heap = xcalloc(n_warps, sizeof *s->heap);
    s->sched_rng = seed ^ 0x5851f42d4c957f2dull;
    s->addr_rng = seed ^ 0x14057b7ef767814full;

    /* the first wave: CTA c on SM c % 132, the next wave's CTAs after it */
    for (uint32_t i = 0; i < s->n_slots; i++) {
        s->slots[i].sm = i % SYNTH_SMS;
        slot_start(s, i);
    }

    trace_kernel *k = &s->kernel;
    trace_kernel_init(k);
    char name[64];
    snprintf(name, sizeof name, "synth_%s", p->name);
    k->name = xstrdup(name);
    k->demangled = xstrdup(name);
    k->grid[0] = (uint32_t)s->grid;
    k->grid[1] = k->grid[2] = 1;
    k->block[0] = p->block_threads;
    k->block[1] = k->block[2] = 1;
    k->smem_static_bytes = p->smem_bytes;
    k->regs_per_thread = p->regs;
    k->local_bytes_per_thread = p->local_bytes;
    char file[96];
    snprintf(file, sizeof file, "gpumemsim-synth/%s.cu", p->name);
    k->n_files = 1;
    k->files = xcalloc(1, sizeof *k->files);
    k->files[0] = xstrdup(file);
    k->n_pcs = p->n_ops;
    k->pcs = xcalloc(p->n_ops, sizeof *k->pcs);
    for (uint32_t i = 0; i < p->n_ops; i++) {
        trace_pc_info *pc = &k->pcs[i];
        pc->pc = 0x100u + 0x30u * i; /* other instructions lie between */
        pc->sass = xstrdup(p->ops[i].sass);
        pc->cache_op = (uint8_t)p->ops[i].cache;
        pc->file = 0;
        pc->line = 10u + i;
    }
}

/* Fill s->mem for op of (slot, warp) at item. */
static void make_mem(synth *s, const synth_op *op, uint32_t pc, const cta_slot *c, uint32_t warp,
                     uint32_t item)
{
    trace_mem *m = &s->mem;
    m->cta = c->cta;
    m->warp = warp;
    m->sm = (int32_t)c->sm;
    m->pc = pc;
    m->kind = (uint8_t)op->kind;
    m->space = (uint8_t)op->space;
    m->size_bytes = op->size_bytes;
    m->cache_op = (uint8_t)op->cache;
    m->flags = 0;
    m->active_mask = TRACE_FULL_MASK;
    uint64_t tid0 = (uint64_t)warp * 32u;
    switch (op->mode) {
    case ADDR_LINEAR: {
        uint64_t t0 = ((uint64_t)c->cta * s->p->items + item) * s->p->block_threads + tid0;
        uint64_t a = op->base + t0 * op->stride + op->offset;
        for (uint32_t l = 0; l < TRACE_WARP_LANES; l++, a += op->stride)
            m->addr[l] = a;
        break;
    }
    case ADDR_RANDOM: {
        uint32_t n = (uint32_t)(op->span / op->size_bytes);
        for (uint32_t l = 0; l < TRACE_WARP_LANES; l++)
            m->addr[l] = op->base + (uint64_t)rng_below(&s->addr_rng, n) * op->size_bytes;
        break;
    }
    case ADDR_SHARED:
        for (uint32_t l = 0; l < TRACE_WARP_LANES; l++)
            m->addr[l] = op->offset + (tid0 + l) * op->stride;
        break;
    case ADDR_LOCAL:
        for (uint32_t l = 0; l < TRACE_WARP_LANES; l++)
            m->addr[l] = op->offset;
        break;
    case ADDR_NONE:
        break;
    }
}

/* progress on stderr, only when it is a terminal */
static void progress_show(bool on, const char *out, uint64_t done, uint64_t n)
{
    if (on)
        fprintf(stderr, "\r\033[Kgpumemsim: trace synth: %s: %.1f of %.1f M warp instructions (%.0f%%)",
                out, (double)done / 1e6, (double)n / 1e6, 100.0 * (double)done / (double)n);
}

/* Issue instructions until n memory records are written. */
static int synth_run(synth *s, trace_writer *w, uint64_t n, const char *out, err_info *err)
{
    bool progress = isatty(STDERR_FILENO) == 1;
    uint64_t done = 0;
    const synth_pattern *p = s->p;
    while (done < n && s->n_heap > 0) {
        uint32_t wid = heap_pop(s);
        s->now = s->ready[wid];
        uint32_t si = wid / s->warps_per_cta, warp = wid % s->warps_per_cta;
        cta_slot *c = &s->slots[si];
        uint32_t step = s->step[wid]++;
        uint32_t o = step % p->n_ops;
        const synth_op *op = &p->ops[o];
        uint32_t pc = s->kernel.pcs[o].pc;
        bool last = step + 1u == s->prog_len;
        if (op->mode == ADDR_NONE) {
            s->bar = (trace_barrier){.cta = c->cta, .warp = warp, .sm = (int32_t)c->sm, .pc = pc};
            if (trace_writer_barrier(w, &s->bar, err) < 0)
                return -1;
            if (!last) {
                s->state[wid] = W_BLOCKED;
                c->blocked++;
            }
        } else {
            make_mem(s, op, pc, c, warp, step / p->n_ops);
            if (trace_writer_mem(w, &s->mem, err) < 0)
                return -1;
            if (++done % PROGRESS_EVERY == 0)
                progress_show(progress, out, done, n);
        }
        if (last) {
            s->state[wid] = W_DONE;
            if (--c->live == 0)
                slot_start(s, si);
        } else if (s->state[wid] == W_READY) {
            heap_push(s, wid, s->now + wait_after(s, op));
        }
        if (c->live > 0 && c->blocked == c->live)
            slot_release(s, si);
    }
    if (progress && n >= PROGRESS_EVERY)
        fputs("\r\033[K", stderr);
    /* the grid covers n: running out of warps first would be a bug here */
    if (done != n) {
        err_set(err, "%s: internal error: the grid ended after %" PRIu64 " of %" PRIu64
                     " instructions", out, done, n);
        return -1;
    }
    return 0;
}

/* A failed synth removes its output, if that is a regular file. */
static void remove_output(const char *out)
{
    struct stat st;
    if (strcmp(out, "-") != 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode))
        remove(out);
}

static int synth_write(const synth_pattern *p, uint64_t n, uint64_t seed, const char *out)
{
    err_info err;
    err_clear(&err);
    char buf[32];
    trace_meta meta;
    trace_meta_init(&meta);
    trace_meta_set(&meta, "capture_tool", "gpumemsim trace synth");
    trace_meta_set(&meta, "capture_version", GMS_VERSION);
    trace_meta_set(&meta, "gpu", "NVIDIA H200");
    trace_meta_set(&meta, "cc", "9.0");
    snprintf(buf, sizeof buf, "%u", SYNTH_SMS);
    trace_meta_set(&meta, "sm_count", buf);
    trace_meta_set(&meta, "synth_pattern", p->name);
    trace_meta_set(&meta, "synth_description", p->what);
    snprintf(buf, sizeof buf, "%" PRIu64, n);
    trace_meta_set(&meta, "synth_instructions", buf);
    snprintf(buf, sizeof buf, "%" PRIu64, seed);
    trace_meta_set(&meta, "synth_seed", buf);

    trace_writer *w = trace_writer_open(out, TRACE_FORMAT_BINARY, SYNTH_ZSTD_LEVEL, &meta, &err);
    trace_meta_free(&meta);
    if (!w)
        return cmd_fail("%s", err.msg);
    synth s;
    synth_init(&s, p, n, seed);
    int rc = trace_writer_kernel(w, &s.kernel, &err);
    if (rc == 0)
        rc = synth_run(&s, w, n, out, &err);
    if (rc == 0)
        rc = trace_writer_kernel_end(w, &err);
    synth_free(&s);
    if (rc < 0) {
        err_info ignored;
        trace_writer_close(w, false, "gpumemsim trace synth stopped on an error", &ignored);
        remove_output(out);
        return cmd_fail("%s", err.msg);
    }
    if (trace_writer_close(w, true, NULL, &err) < 0) {
        remove_output(out);
        return cmd_fail("%s", err.msg);
    }
    return 0;
}

/* A whole decimal number within [lo, hi]. */
static bool parse_u64(const char *s, uint64_t lo, uint64_t hi, uint64_t *out)
{
    if (!s || *s < '0' || *s > '9')
        return false;
    errno = 0;
    char *end;
    unsigned long long v = strtoull(s, &end, 10);
    if (errno != 0 || *end != '\0' || v < lo || v > hi)
        return false;
    *out = v;
    return true;
}

static int usage_fail(const char *what)
{
    return cmd_fail("trace synth: %s (usage: %s; patterns: coalesced, misaligned, strided, "
                    "random, shared, mix)", what, SYNTH_USAGE);
}

static void print_help(void)
{
    printf("usage: %s\n\n"
           "Write a synthetic binary trace of N warp-level memory instructions: one kernel\n"
           "on an H200-like GPU of %u SMs, its resident warps interleaved as a capture\n"
           "records them. The same arguments give the same bytes (--seed, default 1).\n\n"
           "patterns:\n", SYNTH_USAGE, SYNTH_SMS);
    for (size_t i = 0; i < N_PATTERNS; i++)
        printf("  %-11s %s\n", patterns[i].name, patterns[i].what);
}

int cmd_trace_synth(int argc, char **argv)
{
    const char *pattern = NULL, *out = NULL, *n_arg = NULL, *seed_arg = NULL;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char **slot = NULL;
        if (strcmp(a, "--help") == 0 || strcmp(a, "-h") == 0) {
            print_help();
            return 0;
        } else if (strcmp(a, "--pattern") == 0) {
            slot = &pattern;
        } else if (strcmp(a, "--instructions") == 0) {
            slot = &n_arg;
        } else if (strcmp(a, "--seed") == 0) {
            slot = &seed_arg;
        } else if (strcmp(a, "-o") == 0) {
            slot = &out;
        } else {
            char msg[160];
            snprintf(msg, sizeof msg, "unexpected argument '%.100s'", a);
            return usage_fail(msg);
        }
        if (i + 1 == argc) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s needs a value", a);
            return usage_fail(msg);
        }
        if (*slot) {
            char msg[160];
            snprintf(msg, sizeof msg, "%s given twice", a);
            return usage_fail(msg);
        }
        *slot = argv[++i];
    }
    if (!pattern)
        return usage_fail("--pattern is required");
    if (!n_arg)
        return usage_fail("--instructions is required");
    if (!out)
        return usage_fail("-o FILE is required");
    const synth_pattern *p = pattern_find(pattern);
    if (!p) {
        char msg[160];
        snprintf(msg, sizeof msg, "unknown pattern '%.64s'", pattern);
        return usage_fail(msg);
    }
    uint64_t n, seed = 1;
    if (!parse_u64(n_arg, 1, SYNTH_MAX_INSTRUCTIONS, &n))
        return cmd_fail("trace synth: --instructions '%s': expected a whole number from 1 to "
                        "%llu", n_arg, (unsigned long long)SYNTH_MAX_INSTRUCTIONS);
    if (seed_arg && !parse_u64(seed_arg, 0, UINT64_MAX, &seed))
        return cmd_fail("trace synth: --seed '%s': expected a whole number from 0 to %llu",
                        seed_arg, (unsigned long long)UINT64_MAX);
    if (strcmp(out, "-") == 0 && isatty(STDOUT_FILENO) == 1)
        return cmd_fail("trace synth: -o -: will not write a binary trace to a terminal");
    return synth_write(p, n, seed, out);
}
