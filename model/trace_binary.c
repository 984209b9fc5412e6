/* trace_binary.c - the binary form of trace format v1: a 16-byte header, then
 * one zstd stream (content checksum on) of records: u8 tag, LEB128 payload
 * length, payload. docs/trace-format.md specifies every record.
 *
 * The encoder packs a memory record into a couple of flag bytes and zigzag
 * varint deltas from the previous memory record of the kernel, with the lanes'
 * addresses as base + stride * lane when they fit, else as a delta list; zstd
 * then removes what repeats. The decoder works on a window of decompressed
 * bytes that holds at least one whole record (at most TRACE_MAX_RECORD_BYTES,
 * checked before it grows), so its memory is bounded whatever the trace
 * length; decoding a memory record does not allocate.
 *
 * Neither checks the meaning of records (trace_reader.c and trace_writer.c
 * validate); the decoder checks only that each record is well formed. */
#include "trace_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

/* A frame that needs a larger window than this is refused (memory bound).
 * Our writer's levels 1..19 use at most 2^23. */
#define TRACE_ZSTD_WINDOW_LOG_MAX 24
#define DEC_WINDOW_BYTES (256u << 10)
#define ENC_INPUT_BYTES (256u << 10)

/* MEM flag bytes (docs/trace-format.md) */
#define MEMF0_KIND_MASK 0x03u
#define MEMF0_SPACE_SHIFT 2
#define MEMF0_LOG2SIZE_SHIFT 4
#define MEMF0_FULL_MASK 0x80u
#define MEMF1_CACHE_MASK 0x07u
#define MEMF1_FLAGS_SHIFT 3 /* TRACE_MEM_GENERIC, TRACE_MEM_LDGSTS at bits 3, 4 */
#define MEMF1_SM_KNOWN 0x20u
#define MEMF1_LIST 0x40u
#define MEMF1_RESERVED 0x80u
#define BARF_SM_KNOWN 0x01u
#define BARF_SHFL 0x02u /* a warp shuffle (TRACE_BAR_SHFL), not a barrier */

/* Delta state: reset at every kernel record. */
typedef struct delta_state {
    uint32_t cta, warp, pc;
    int32_t sm;     /* last known sm */
    uint64_t base;  /* MEM only: the last record's base (STRIDE) or first address (LIST) */
} delta_state;

static void delta_reset(delta_state *s)
{
    memset(s, 0, sizeof *s);
}

/* Prediction of MEM records. Captured traces interleave the warps of many
 * SMs, so the previous record is usually another warp's and predicts its pc,
 * SM and addresses poorly. These tables, updated identically by writer and
 * reader and reset at every kernel, predict better:
 *  - a warp's own last record (direct-mapped by cta and warp): its next pc is
 *    a fixed step on and its next address a fixed distance from its last;
 *  - for a warp's first record (or one the table forgot): the pc of the last
 *    such record (kernels start every warp at the same instruction), the SM
 *    of another warp of the same CTA, and the address the same pc had for the
 *    last warp plus the per-warp step learnt from the two warps before
 *    (a[gw] = a[gw'] + (gw - gw') * step, gw the warp's index in the grid).
 * Only the deltas against the prediction are stored, so a good prediction
 * costs a zero byte that zstd all but removes. */
#define WARP_SLOTS 4096u
#define PC_SLOTS 1024u
#define CTA_SLOTS 4096u

typedef struct warp_slot {
    uint32_t cta, warp, pc, valid;
    int32_t sm;
    uint64_t base;
} warp_slot;

typedef struct pc_slot {
    uint32_t pc, valid;
    uint64_t gw;   /* grid warp index of the last record at this pc */
    uint64_t base;
    int64_t step;  /* bytes per grid warp, learnt; 0 when unknown */
} pc_slot;

typedef struct cta_slot {
    uint32_t cta, valid;
    int32_t sm;
} cta_slot;

typedef struct predictor {
    warp_slot warps[WARP_SLOTS];
    pc_slot pcs[PC_SLOTS];
    cta_slot ctas[CTA_SLOTS];
    uint32_t warps_per_cta; /* of the current kernel */
    uint32_t entry_pc;      /* pc of the last record that started a warp */
} predictor;

/* The prediction for one record, built in two steps: at (cta, warp), then at pc. */
typedef struct prediction {
    warp_slot *ws;
    cta_slot *cs;     /* the CTA's slot and the pc's (each hashed once per record) */
    pc_slot *ps;
    bool own;         /* the warp's own last record is known */
    uint64_t gw;
    uint32_t pc;
    int32_t sm;
    uint64_t base;
} prediction;

static void predictor_reset(predictor *pr, uint32_t warps_per_cta)
{
    memset(pr, 0, sizeof *pr);
    pr->warps_per_cta = warps_per_cta ? warps_per_cta : 1;
}

static inline uint32_t mix32(uint32_t a, uint32_t b)
{
    uint32_t h = (a * 0x9E3779B1u) ^ (b * 0x85EBCA77u);
    return h ^ (h >> 15);
}

/* Step 1: after cta and warp are known; s is the previous record's state. */
static inline void predict_warp(predictor *pr, const delta_state *s, uint32_t cta, uint32_t warp,
                                prediction *pd)
{
    pd->ws = &pr->warps[mix32(cta, warp) & (WARP_SLOTS - 1)];
    pd->cs = &pr->ctas[mix32(cta, 0) & (CTA_SLOTS - 1)];
    pd->own = pd->ws->valid && pd->ws->cta == cta && pd->ws->warp == warp;
    pd->gw = (uint64_t)cta * pr->warps_per_cta + warp;
    if (pd->own) {
        pd->pc = pd->ws->pc;
        pd->sm = pd->ws->sm;
        pd->base = pd->ws->base;
        return;
    }
    pd->pc = pr->entry_pc;
    const cta_slot *cs = pd->cs;
    pd->sm = cs->valid && cs->cta == cta ? cs->sm : s->sm;
}

/* Step 2: after the pc is known. */
static inline void predict_pc(predictor *pr, const delta_state *s, uint32_t pc, prediction *pd)
{
    pd->ps = &pr->pcs[mix32(pc, 1) & (PC_SLOTS - 1)];
    if (pd->own)
        return;
    const pc_slot *ps = pd->ps;
    if (ps->valid && ps->pc == pc)
        pd->base = ps->base + (pd->gw - ps->gw) * (uint64_t)ps->step;
    else
        pd->base = s->base;
}

/* After the record: remember it. sm is TRACE_SM_UNKNOWN when not recorded. */
static inline void predict_learn(predictor *pr, const prediction *pd, uint32_t cta, uint32_t warp,
                                 uint32_t pc, int32_t sm, uint64_t base)
{
    int32_t known_sm = sm != TRACE_SM_UNKNOWN ? sm : pd->sm;
    if (!pd->own)
        pr->entry_pc = pc;
    *pd->ws = (warp_slot){.cta = cta, .warp = warp, .pc = pc, .valid = 1, .sm = known_sm, .base = base};
    if (sm != TRACE_SM_UNKNOWN)
        *pd->cs = (cta_slot){.cta = cta, .valid = 1, .sm = sm};
    pc_slot *ps = pd->ps;
    if (ps->valid && ps->pc == pc) {
        int64_t dg = (int64_t)(pd->gw - ps->gw), da = (int64_t)(base - ps->base);
        /* the step learnt before usually holds: then da / dg is it, found
         * without a 64-bit division (|step| <= 2^38 keeps step * dg exact) */
        if (dg > 0 && dg <= (1 << 24)) {
            bool holds = ps->step != 0 && ps->step >= -((int64_t)1 << 38) &&
                         ps->step <= ((int64_t)1 << 38) && ps->step * dg == da;
            if (!holds && da % dg == 0)
                ps->step = da / dg;
        }
        ps->gw = pd->gw;
        ps->base = base;
    } else {
        *ps = (pc_slot){.pc = pc, .valid = 1, .gw = pd->gw, .base = base, .step = 0};
    }
}

static unsigned log2_size(uint8_t size)
{
    return (unsigned)__builtin_ctz(size);
}

/* ======================================================================
 * Encoder
 * ====================================================================== */

struct trace_bin_enc {
    ZSTD_CCtx *cctx;
    uint8_t *in;        /* records not yet handed to zstd */
    size_t in_len;
    uint8_t *out;
    size_t out_cap;
    uint8_t *scratch;   /* payload of a non-MEM record */
    size_t scratch_cap;
    delta_state mem, bar;
    predictor *pred;
};

static int write_out(trace_writer *w, const void *p, size_t n, err_info *err)
{
    if (n && fwrite(p, 1, n, w->f) != n) {
        err_set(err, "%s: write error: %s", w->name, strerror(errno));
        return -1;
    }
    w->bytes += n;
    return 0;
}

/* Hand the buffered records to zstd; ZSTD_e_end also ends the frame. */
static int enc_flush(trace_writer *w, ZSTD_EndDirective mode, err_info *err)
{
    struct trace_bin_enc *e = w->bin;
    ZSTD_inBuffer in = {e->in, e->in_len, 0};
    for (;;) {
        ZSTD_outBuffer out = {e->out, e->out_cap, 0};
        size_t left = ZSTD_compressStream2(e->cctx, &out, &in, mode);
        if (ZSTD_isError(left)) {
            err_set(err, "%s: zstd: %s", w->name, ZSTD_getErrorName(left));
            return -1;
        }
        if (write_out(w, e->out, out.pos, err) < 0)
            return -1;
        if (mode == ZSTD_e_end ? left == 0 : in.pos == in.size)
            break;
    }
    e->in_len = 0;
    return 0;
}

static int enc_append(trace_writer *w, const uint8_t *p, size_t n, err_info *err)
{
    struct trace_bin_enc *e = w->bin;
    while (n) {
        if (e->in_len == ENC_INPUT_BYTES && enc_flush(w, ZSTD_e_continue, err) < 0)
            return -1;
        size_t k = ENC_INPUT_BYTES - e->in_len;
        if (k > n)
            k = n;
        memcpy(e->in + e->in_len, p, k);
        e->in_len += k;
        p += k;
        n -= k;
    }
    return 0;
}

static int enc_record(trace_writer *w, uint8_t tag, const uint8_t *payload, size_t len,
                      err_info *err)
{
    uint8_t head[11];
    head[0] = tag;
    size_t h = 1 + trace_put_varint(head + 1, len);
    if (enc_append(w, head, h, err) < 0 || enc_append(w, payload, len, err) < 0)
        return -1;
    w->loc++;
    return 0;
}

static uint8_t *scratch(struct trace_bin_enc *e, size_t n)
{
    if (n > e->scratch_cap) {
        e->scratch_cap = n;
        e->scratch = xrealloc(e->scratch, n);
    }
    return e->scratch;
}

static size_t put_str(uint8_t *p, const char *s)
{
    size_t n = strlen(s);
    size_t h = trace_put_varint(p, n);
    memcpy(p + h, s, n);
    return h + n;
}

/* 10 bytes of length prefix per string is the most a varint takes */
static size_t str_room(const char *s)
{
    return strlen(s) + 10;
}

static size_t put_delta32(uint8_t *p, uint32_t v, uint32_t prev)
{
    return trace_put_varint(p, trace_zigzag((uint64_t)((int64_t)v - (int64_t)prev)));
}

static int enc_open(trace_writer *w, int level, err_info *err)
{
    struct trace_bin_enc *e = xcalloc(1, sizeof *e);
    w->bin = e;
    e->cctx = ZSTD_createCCtx();
    if (!e->cctx) {
        err_set(err, "%s: zstd: cannot create a compression context", w->name);
        return -1;
    }
    size_t rc = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_compressionLevel, level);
    if (!ZSTD_isError(rc))
        rc = ZSTD_CCtx_setParameter(e->cctx, ZSTD_c_checksumFlag, 1);
    if (ZSTD_isError(rc)) {
        err_set(err, "%s: zstd: %s", w->name, ZSTD_getErrorName(rc));
        return -1;
    }
    e->in = xmalloc(ENC_INPUT_BYTES);
    e->pred = xcalloc(1, sizeof *e->pred);
    e->out_cap = ZSTD_CStreamOutSize();
    e->out = xmalloc(e->out_cap);
    uint8_t head[TRACE_BIN_HEADER_BYTES];
    memcpy(head, TRACE_BIN_MAGIC, 8);
    uint32_t v = TRACE_FORMAT_VERSION;
    for (int i = 0; i < 4; i++) {
        head[8 + i] = (uint8_t)(v >> (8 * i));
        head[12 + i] = 0; /* flags */
    }
    return write_out(w, head, sizeof head, err);
}

static int enc_meta(trace_writer *w, const char *key, const char *value, err_info *err)
{
    uint8_t *p = scratch(w->bin, str_room(key) + str_room(value));
    size_t n = put_str(p, key);
    n += put_str(p + n, value);
    return enc_record(w, TRACE_TAG_META, p, n, err);
}

static int enc_kernel(trace_writer *w, const trace_kernel *k, err_info *err)
{
    struct trace_bin_enc *e = w->bin;
    uint8_t *p = scratch(e, str_room(k->name) + str_room(k->demangled) + 13 * 10);
    size_t n = trace_put_varint(p, k->launch);
    n += put_str(p + n, k->name);
    n += put_str(p + n, k->demangled);
    for (int i = 0; i < 3; i++)
        n += trace_put_varint(p + n, k->grid[i]);
    for (int i = 0; i < 3; i++)
        n += trace_put_varint(p + n, k->block[i]);
    n += trace_put_varint(p + n, k->smem_static_bytes);
    n += trace_put_varint(p + n, k->smem_dynamic_bytes);
    n += trace_put_varint(p + n, k->regs_per_thread);
    n += trace_put_varint(p + n, k->local_bytes_per_thread);
    n += trace_put_varint(p + n, k->n_files);
    n += trace_put_varint(p + n, k->n_pcs);
    if (enc_record(w, TRACE_TAG_KERNEL, p, n, err) < 0)
        return -1;
    for (uint32_t i = 0; i < k->n_files; i++) {
        p = scratch(e, str_room(k->files[i]));
        if (enc_record(w, TRACE_TAG_FILE, p, put_str(p, k->files[i]), err) < 0)
            return -1;
    }
    for (uint32_t i = 0; i < k->n_pcs; i++) {
        const trace_pc_info *pc = &k->pcs[i];
        p = scratch(e, str_room(pc->sass) + 3 * 10 + 1);
        n = trace_put_varint(p, pc->pc);
        n += put_str(p + n, pc->sass);
        p[n++] = pc->cache_op;
        n += trace_put_varint(p + n, (uint64_t)((int64_t)pc->file + 1));
        n += trace_put_varint(p + n, pc->line);
        if (pc->ctrl & TRACE_CTRL_KNOWN) /* optional, last */
            n += trace_put_varint(p + n, pc->ctrl & ~TRACE_CTRL_KNOWN);
        if (enc_record(w, TRACE_TAG_PC, p, n, err) < 0)
            return -1;
    }
    delta_reset(&e->mem);
    delta_reset(&e->bar);
    predictor_reset(e->pred, trace_kernel_warps_per_cta(k));
    return 0;
}

static int enc_mem(trace_writer *w, const trace_mem *m, err_info *err)
{
    struct trace_bin_enc *e = w->bin;
    delta_state *s = &e->mem;
    uint8_t rec[3 + TRACE_MEM_MAX_PAYLOAD];
    uint8_t *p = rec + 3; /* room for the tag and a length of up to 2 bytes */
    bool full = m->active_mask == TRACE_FULL_MASK;
    bool sm_known = m->sm != TRACE_SM_UNKNOWN;
    uint64_t base, stride;
    bool list = !trace_mem_fit_stride(m, &base, &stride);

    *p++ = (uint8_t)(m->kind | m->space << MEMF0_SPACE_SHIFT |
                     log2_size(m->size_bytes) << MEMF0_LOG2SIZE_SHIFT |
                     (full ? MEMF0_FULL_MASK : 0));
    *p++ = (uint8_t)(m->cache_op | m->flags << MEMF1_FLAGS_SHIFT |
                     (sm_known ? MEMF1_SM_KNOWN : 0) | (list ? MEMF1_LIST : 0));
    prediction pd;
    predict_warp(e->pred, s, m->cta, m->warp, &pd);
    predict_pc(e->pred, s, m->pc, &pd);
    p += put_delta32(p, m->cta, s->cta);
    p += put_delta32(p, m->warp, s->warp);
    p += put_delta32(p, m->pc, pd.pc);
    s->cta = m->cta;
    s->warp = m->warp;
    s->pc = m->pc;
    if (sm_known) {
        p += trace_put_varint(p, trace_zigzag((uint64_t)((int64_t)m->sm - pd.sm)));
        s->sm = m->sm;
    }
    if (!full) {
        for (int i = 0; i < 4; i++)
            *p++ = (uint8_t)(m->active_mask >> (8 * i));
    }
    if (!list) {
        p += trace_put_varint(p, trace_zigzag(base - pd.base));
        p += trace_put_varint(p, trace_zigzag(stride));
        s->base = base;
    } else {
        uint64_t prev = pd.base;
        for (uint32_t r = m->active_mask; r; r &= r - 1) {
            uint64_t a = m->addr[__builtin_ctz(r)];
            p += trace_put_varint(p, trace_zigzag(a - prev));
            prev = a;
        }
        s->base = m->addr[__builtin_ctz(m->active_mask)];
    }
    predict_learn(e->pred, &pd, m->cta, m->warp, m->pc, m->sm, s->base);
    size_t len = (size_t)(p - (rec + 3));
    uint8_t *start;
    if (len < 0x80) {
        start = rec + 1;
        start[1] = (uint8_t)len;
    } else {
        start = rec;
        start[1] = (uint8_t)(len | 0x80);
        start[2] = (uint8_t)(len >> 7);
    }
    start[0] = TRACE_TAG_MEM;
    struct trace_bin_enc *b = e;
    size_t n = (size_t)(p - start);
    if (b->in_len + n <= ENC_INPUT_BYTES) { /* the usual case: no flush */
        memcpy(b->in + b->in_len, start, n);
        b->in_len += n;
        w->loc++;
        return 0;
    }
    if (enc_append(w, start, n, err) < 0)
        return -1;
    w->loc++;
    return 0;
}

static int enc_barrier(trace_writer *w, const trace_barrier *b, err_info *err)
{
    delta_state *s = &w->bin->bar;
    uint8_t p[1 + 4 * 10];
    size_t n = 0;
    bool sm_known = b->sm != TRACE_SM_UNKNOWN;
    p[n++] = (uint8_t)((sm_known ? BARF_SM_KNOWN : 0u) | (b->kind == TRACE_BAR_SHFL ? BARF_SHFL : 0u));
    n += put_delta32(p + n, b->cta, s->cta);
    n += put_delta32(p + n, b->warp, s->warp);
    n += put_delta32(p + n, b->pc, s->pc);
    s->cta = b->cta;
    s->warp = b->warp;
    s->pc = b->pc;
    if (sm_known) {
        n += trace_put_varint(p + n, trace_zigzag((uint64_t)((int64_t)b->sm - s->sm)));
        s->sm = b->sm;
    }
    return enc_record(w, TRACE_TAG_BARRIER, p, n, err);
}

static int enc_kernel_end(trace_writer *w, const trace_kernel_end *c, err_info *err)
{
    uint8_t p[20];
    size_t n = trace_put_varint(p, c->mem_records);
    n += trace_put_varint(p + n, c->barrier_records);
    return enc_record(w, TRACE_TAG_KERNEL_END, p, n, err);
}

static int enc_end(trace_writer *w, uint32_t kernels, bool complete, const char *reason,
                   err_info *err)
{
    uint8_t *p = scratch(w->bin, 11 + (reason ? str_room(reason) : 0));
    size_t n = trace_put_varint(p, kernels);
    p[n++] = complete ? 1 : 0;
    if (!complete)
        n += put_str(p + n, reason);
    if (enc_record(w, TRACE_TAG_END, p, n, err) < 0)
        return -1;
    return enc_flush(w, ZSTD_e_end, err);
}

static void enc_free(trace_writer *w)
{
    struct trace_bin_enc *e = w->bin;
    if (!e)
        return;
    ZSTD_freeCCtx(e->cctx);
    free(e->in);
    free(e->out);
    free(e->scratch);
    free(e->pred);
    free(e);
    w->bin = NULL;
}

const trace_enc_ops trace_bin_enc_ops = {
    .open = enc_open,
    .meta = enc_meta,
    .kernel = enc_kernel,
    .mem = enc_mem,
    .barrier = enc_barrier,
    .kernel_end = enc_kernel_end,
    .end = enc_end,
    .free = enc_free,
};

/* ======================================================================
 * Decoder
 * ====================================================================== */

struct trace_bin_dec {
    ZSTD_DCtx *dctx;
    uint8_t *in;           /* compressed bytes read from the file */
    size_t in_cap;
    ZSTD_inBuffer zin;
    bool in_eof;
    bool out_full;         /* zstd's last call filled the window: it may hold more */
    bool frame_done;       /* the last frame ended (checksum verified) and none is open */
    uint64_t compressed;   /* bytes of the zstd stream handed to zstd */
    uint8_t *buf;          /* window of decompressed bytes: records at [pos, end) */
    size_t cap, pos, end;
    char *strs;            /* NUL-terminated copies of the current record's strings */
    size_t strs_cap, strs_len;
    delta_state mem, bar;
    predictor *pred;
    bool avx2;             /* whole-warp strides expanded by trace_mem_expand_stride_full_avx2 */
};

static int dec_error(trace_reader *r, err_info *err, uint64_t rec_no, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int dec_error(trace_reader *r, err_info *err, uint64_t rec_no, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    trace_err_at(err, TRACE_FORMAT_BINARY, r->path, rec_no);
    return -1;
}

/* Make [pos, end) hold at least `need` bytes, unless the stream ends first
 * (the caller looks at what it got). -1 on a read or zstd error. */
static int dec_fill(trace_reader *r, size_t need, err_info *err)
{
    struct trace_bin_dec *d = r->bin;
    while (d->end - d->pos < need) {
        if (d->pos > 0) {
            memmove(d->buf, d->buf + d->pos, d->end - d->pos);
            d->end -= d->pos;
            d->pos = 0;
        }
        if (need > d->cap) {
            /* need <= header + TRACE_MAX_RECORD_BYTES, checked by the caller */
            d->cap = need;
            d->buf = xrealloc(d->buf, d->cap);
        }
        if (d->zin.pos == d->zin.size && !d->out_full) {
            if (d->in_eof)
                return 0;
            size_t n = fread(d->in, 1, d->in_cap, r->f);
            if (n == 0) {
                if (ferror(r->f)) {
                    err_set(err, "%s: read error: %s", r->path, strerror(errno));
                    return -1;
                }
                d->in_eof = true;
                continue;
            }
            d->zin.src = d->in;
            d->zin.size = n;
            d->zin.pos = 0;
            r->bytes += n;
        }
        ZSTD_outBuffer out = {d->buf, d->cap, d->end};
        size_t before = d->zin.pos;
        size_t ret = ZSTD_decompressStream(d->dctx, &out, &d->zin);
        if (ZSTD_isError(ret))
            return dec_error(r, err, r->records + 1, "corrupt compressed data (zstd: %s)",
                             ZSTD_getErrorName(ret));
        d->compressed += d->zin.pos - before;
        d->end = out.pos;
        d->out_full = out.pos == out.size;
        d->frame_done = ret == 0;
    }
    return 0;
}

/* ---- payload fields: every reader checks the payload's end ---------------- */

typedef struct cursor {
    const uint8_t *p, *end;
} cursor;

/* The error paths are kept out of line so that the field readers inline
 * into the memory-record decoder. */
static int __attribute__((noinline, cold))
varint_error(trace_reader *r, const cursor *c, const char *rec, const char *field, err_info *err)
{
    /* trace_get_varint leaves c->p at the field on failure */
    const uint8_t *p = c->p;
    while (p < c->end && (*p & 0x80))
        p++;
    return dec_error(r, err, r->loc, "%s record: %s: %s", rec, field,
                     p == c->end ? "the record ends before it" : "not a valid varint");
}

static int __attribute__((noinline, cold))
range_error(trace_reader *r, const char *rec, const char *field, err_info *err)
{
    return dec_error(r, err, r->loc, "%s record: %s delta leaves the 32-bit range", rec, field);
}

static inline int get_u64(trace_reader *r, cursor *c, uint64_t *v, const char *rec,
                          const char *field, err_info *err)
{
    if (__builtin_expect(trace_get_varint(&c->p, c->end, v) == 0, 1))
        return 0;
    return varint_error(r, c, rec, field, err);
}

static int get_u32(trace_reader *r, cursor *c, uint32_t *v, const char *rec, const char *field,
                   err_info *err)
{
    uint64_t x;
    if (get_u64(r, c, &x, rec, field, err) < 0)
        return -1;
    if (x > UINT32_MAX)
        return dec_error(r, err, r->loc, "%s record: %s %" PRIu64
                                         " is out of range (expected at most 4294967295)",
                         rec, field, x);
    *v = (uint32_t)x;
    return 0;
}

static int get_str(trace_reader *r, cursor *c, const char **out, const char *rec,
                   const char *field, err_info *err)
{
    struct trace_bin_dec *d = r->bin;
    uint64_t n;
    if (get_u64(r, c, &n, rec, field, err) < 0)
        return -1;
    if (n > TRACE_MAX_STRING_BYTES)
        return dec_error(r, err, r->loc, "%s record: %s of %" PRIu64
                                         " bytes (expected at most %u)", rec, field, n,
                         TRACE_MAX_STRING_BYTES);
    if (n > (uint64_t)(c->end - c->p))
        return dec_error(r, err, r->loc, "%s record: %s of %" PRIu64
                                         " bytes runs past the end of the record", rec, field, n);
    if (memchr(c->p, 0, n))
        return dec_error(r, err, r->loc, "%s record: %s contains a NUL byte", rec, field);
    /* strs was sized for the whole payload plus terminators */
    char *s = d->strs + d->strs_len;
    memcpy(s, c->p, n);
    s[n] = '\0';
    d->strs_len += n + 1;
    c->p += n;
    *out = s;
    return 0;
}

static int get_u8(trace_reader *r, cursor *c, uint8_t *v, const char *rec, const char *field,
                  err_info *err)
{
    if (c->p >= c->end)
        return dec_error(r, err, r->loc, "%s record: %s: the record ends before it", rec, field);
    *v = *c->p++;
    return 0;
}

/* a 32-bit field as a delta from prev */
static inline int get_delta32(trace_reader *r, cursor *c, uint32_t prev, uint32_t *v,
                              const char *rec, const char *field, err_info *err)
{
    uint64_t z;
    if (get_u64(r, c, &z, rec, field, err) < 0)
        return -1;
    uint64_t x = (uint64_t)prev + trace_unzigzag(z);
    if (__builtin_expect(x > UINT32_MAX, 0))
        return range_error(r, rec, field, err);
    *v = (uint32_t)x;
    return 0;
}

static int get_sm(trace_reader *r, cursor *c, int32_t prev, int32_t *v, const char *rec,
                  err_info *err)
{
    uint64_t z;
    if (get_u64(r, c, &z, rec, "sm", err) < 0)
        return -1;
    uint64_t x = (uint64_t)(int64_t)prev + trace_unzigzag(z);
    if (x > INT32_MAX)
        return dec_error(r, err, r->loc, "%s record: sm delta leaves the range 0..%d", rec,
                         INT32_MAX);
    *v = (int32_t)x;
    return 0;
}

static int check_end(trace_reader *r, const cursor *c, const char *rec, err_info *err)
{
    if (c->p != c->end)
        return dec_error(r, err, r->loc, "%s record has %zu bytes after its last field", rec,
                         (size_t)(c->end - c->p));
    return 0;
}

/* ---- records -------------------------------------------------------------- */

/* The field-by-field decoder: says exactly what is wrong. dec_mem falls back
 * on it for any record its fast path does not take. */
static int __attribute__((noinline))
dec_mem_checked(trace_reader *r, cursor *c, trace_event *ev, err_info *err)
{
    trace_mem *m = &ev->mem;
    delta_state *s = &r->bin->mem;
    static const char rec[] = "memory";
    if (c->end - c->p < 2)
        return dec_error(r, err, r->loc, "memory record: flags: the record ends before them");
    uint8_t f0 = c->p[0], f1 = c->p[1];
    c->p += 2;
    if (f1 & MEMF1_RESERVED)
        return dec_error(r, err, r->loc, "memory record: reserved flag bit set (flags 0x%02x "
                                         "0x%02x)", f0, f1);
    unsigned lg = (f0 >> MEMF0_LOG2SIZE_SHIFT) & 7u;
    if (lg > 4)
        return dec_error(r, err, r->loc, "memory record: access size 2^%u is invalid (expected "
                                         "1, 2, 4, 8 or 16)", lg);
    m->kind = f0 & MEMF0_KIND_MASK;
    m->space = (f0 >> MEMF0_SPACE_SHIFT) & 3u;
    m->size_bytes = (uint8_t)(1u << lg);
    m->cache_op = f1 & MEMF1_CACHE_MASK;
    m->flags = (f1 >> MEMF1_FLAGS_SHIFT) & TRACE_MEM_FLAGS_ALL;
    if (get_delta32(r, c, s->cta, &m->cta, rec, "cta", err) < 0 ||
        get_delta32(r, c, s->warp, &m->warp, rec, "warp", err) < 0)
        return -1;
    prediction pd;
    predict_warp(r->bin->pred, s, m->cta, m->warp, &pd);
    if (get_delta32(r, c, pd.pc, &m->pc, rec, "pc", err) < 0)
        return -1;
    predict_pc(r->bin->pred, s, m->pc, &pd);
    s->cta = m->cta;
    s->warp = m->warp;
    s->pc = m->pc;
    m->sm = TRACE_SM_UNKNOWN;
    if (f1 & MEMF1_SM_KNOWN) {
        if (get_sm(r, c, pd.sm, &m->sm, rec, err) < 0)
            return -1;
        s->sm = m->sm;
    }
    if (f0 & MEMF0_FULL_MASK) {
        m->active_mask = TRACE_FULL_MASK;
    } else {
        if (c->end - c->p < 4)
            return dec_error(r, err, r->loc, "memory record: mask: the record ends before it");
        m->active_mask = (uint32_t)c->p[0] | (uint32_t)c->p[1] << 8 | (uint32_t)c->p[2] << 16 |
                         (uint32_t)c->p[3] << 24;
        c->p += 4;
        if (m->active_mask == 0)
            return dec_error(r, err, r->loc, "active mask is 0 (expected at least one active "
                                             "lane)");
    }
    uint64_t z;
    if (!(f1 & MEMF1_LIST)) {
        uint64_t zs;
        if (get_u64(r, c, &z, rec, "base", err) < 0 || get_u64(r, c, &zs, rec, "stride", err) < 0)
            return -1;
        uint64_t base = pd.base + trace_unzigzag(z);
        s->base = base;
        ev->mem_strided = true;
        ev->mem_base = base;
        ev->mem_stride = trace_unzigzag(zs);
        ev->mem_lanes_pending = false;
        trace_mem_expand_stride(m, base, ev->mem_stride);
    } else {
        ev->mem_strided = false;
        ev->mem_lanes_pending = false;
        uint64_t prev = pd.base;
        uint32_t mask = m->active_mask;
        for (int l = 0; l < TRACE_WARP_LANES; l++) {
            if (!(mask >> l & 1u)) {
                m->addr[l] = 0;
                continue;
            }
            if (get_u64(r, c, &z, rec, "address", err) < 0)
                return -1;
            prev += trace_unzigzag(z);
            m->addr[l] = prev;
        }
        s->base = m->addr[__builtin_ctz(mask)];
    }
    predict_learn(r->bin->pred, &pd, m->cta, m->warp, m->pc, m->sm, s->base);
    return check_end(r, c, rec, err);
}

/* Read a zigzag delta on a 32-bit field; false when it is cut or leaves the range. */
static inline bool fast_delta32(const uint8_t **p, const uint8_t *end, uint32_t prev,
                                uint32_t *out)
{
    uint64_t z;
    if (trace_get_varint(p, end, &z) < 0)
        return false;
    uint64_t x = (uint64_t)prev + trace_unzigzag(z);
    *out = (uint32_t)x;
    return x <= UINT32_MAX;
}

/* The hot path: everything in locals, the delta state written only when the
 * whole record is good. Anything unusual goes to dec_mem_checked, which
 * decodes the same bytes again from the same state and names the problem. */
#if defined(__GNUC__)
__attribute__((always_inline)) /* into the reader's hot path: the cursor stays in registers */
#endif
static inline int dec_mem(trace_reader *r, cursor *c, trace_event *ev, err_info *err)
{
    trace_mem *m = &ev->mem;
    delta_state *s = &r->bin->mem;
    const uint8_t *p = c->p, *end = c->end;
    if (end - p < 2)
        return dec_mem_checked(r, c, ev, err);
    unsigned f0 = p[0], f1 = p[1];
    unsigned lg = (f0 >> MEMF0_LOG2SIZE_SHIFT) & 7u;
    p += 2;
    uint32_t cta, warp, pc, mask = TRACE_FULL_MASK;
    int32_t sm = TRACE_SM_UNKNOWN;
    if ((f1 & MEMF1_RESERVED) || lg > 4 || !fast_delta32(&p, end, s->cta, &cta) ||
        !fast_delta32(&p, end, s->warp, &warp))
        return dec_mem_checked(r, c, ev, err);
    prediction pd;
    predict_warp(r->bin->pred, s, cta, warp, &pd);
    if (!fast_delta32(&p, end, pd.pc, &pc))
        return dec_mem_checked(r, c, ev, err);
    predict_pc(r->bin->pred, s, pc, &pd);
    if (f1 & MEMF1_SM_KNOWN) {
        uint64_t z;
        if (trace_get_varint(&p, end, &z) < 0)
            return dec_mem_checked(r, c, ev, err);
        uint64_t x = (uint64_t)(int64_t)pd.sm + trace_unzigzag(z);
        if (x > INT32_MAX)
            return dec_mem_checked(r, c, ev, err);
        sm = (int32_t)x;
    }
    if (!(f0 & MEMF0_FULL_MASK)) {
        if (end - p < 4)
            return dec_mem_checked(r, c, ev, err);
        mask = (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
        p += 4;
        if (mask == 0)
            return dec_mem_checked(r, c, ev, err);
    }
    m->active_mask = mask;
    uint64_t base;
    if (!(f1 & MEMF1_LIST)) {
        uint64_t zb, zs;
        if (trace_get_varint(&p, end, &zb) < 0 || trace_get_varint(&p, end, &zs) < 0 || p != end)
            return dec_mem_checked(r, c, ev, err);
        base = pd.base + trace_unzigzag(zb);
        ev->mem_strided = true;
        ev->mem_base = base;
        ev->mem_stride = trace_unzigzag(zs);
        ev->mem_lanes_pending = mask == TRACE_FULL_MASK && r->opt.lazy_lanes;
        if (ev->mem_lanes_pending)
            m->addr[0] = base; /* the rest when asked (trace_event_fill_lanes) */
#if TRACE_AVX2_BUILDS
        else if (mask == TRACE_FULL_MASK && r->bin->avx2)
            trace_mem_expand_stride_full_avx2(m->addr, base, ev->mem_stride);
#endif
        else
            trace_mem_expand_stride(m, base, ev->mem_stride);
    } else {
        ev->mem_strided = false;
        ev->mem_lanes_pending = false;
        uint64_t prev = pd.base, z;
        for (int l = 0; l < TRACE_WARP_LANES; l++) {
            if (!(mask >> l & 1u)) {
                m->addr[l] = 0;
                continue;
            }
            if (trace_get_varint(&p, end, &z) < 0)
                return dec_mem_checked(r, c, ev, err);
            prev += trace_unzigzag(z);
            m->addr[l] = prev;
        }
        if (p != end)
            return dec_mem_checked(r, c, ev, err);
        base = m->addr[__builtin_ctz(mask)];
    }
    m->kind = (uint8_t)(f0 & MEMF0_KIND_MASK);
    m->space = (uint8_t)((f0 >> MEMF0_SPACE_SHIFT) & 3u);
    m->size_bytes = (uint8_t)(1u << lg);
    m->cache_op = (uint8_t)(f1 & MEMF1_CACHE_MASK);
    m->flags = (uint8_t)((f1 >> MEMF1_FLAGS_SHIFT) & TRACE_MEM_FLAGS_ALL);
    m->cta = s->cta = cta;
    m->warp = s->warp = warp;
    m->pc = s->pc = pc;
    m->sm = sm;
    if (sm != TRACE_SM_UNKNOWN)
        s->sm = sm;
    s->base = base;
    predict_learn(r->bin->pred, &pd, cta, warp, pc, sm, base);
    c->p = p;
    return 0;
}

static int dec_barrier(trace_reader *r, cursor *c, trace_barrier *b, err_info *err)
{
    delta_state *s = &r->bin->bar;
    static const char rec[] = "barrier";
    uint8_t f = 0;
    if (get_u8(r, c, &f, rec, "flags", err) < 0)
        return -1;
    if (f & ~(BARF_SM_KNOWN | BARF_SHFL))
        return dec_error(r, err, r->loc, "barrier record: flags 0x%02x has undefined bits "
                                         "(expected 0 to 3)", f);
    b->kind = f & BARF_SHFL ? TRACE_BAR_SHFL : TRACE_BAR_SYNC;
    if (get_delta32(r, c, s->cta, &b->cta, rec, "cta", err) < 0 ||
        get_delta32(r, c, s->warp, &b->warp, rec, "warp", err) < 0 ||
        get_delta32(r, c, s->pc, &b->pc, rec, "pc", err) < 0)
        return -1;
    s->cta = b->cta;
    s->warp = b->warp;
    s->pc = b->pc;
    b->sm = TRACE_SM_UNKNOWN;
    if (f & BARF_SM_KNOWN) {
        if (get_sm(r, c, s->sm, &b->sm, rec, err) < 0)
            return -1;
        s->sm = b->sm;
    }
    return check_end(r, c, rec, err);
}

static int dec_kernel(trace_reader *r, cursor *c, trace_rec *rec, err_info *err)
{
    static const char rn[] = "kernel";
    trace_kernel *k = &rec->kernel;
    trace_kernel_init(k);
    static const char *const grid_names[3] = {"grid x", "grid y", "grid z"};
    static const char *const block_names[3] = {"block x", "block y", "block z"};
    if (get_u32(r, c, &k->launch, rn, "launch", err) < 0 ||
        get_str(r, c, (const char **)&k->name, rn, "name", err) < 0 ||
        get_str(r, c, (const char **)&k->demangled, rn, "demangled name", err) < 0)
        return -1;
    for (int i = 0; i < 3; i++)
        if (get_u32(r, c, &k->grid[i], rn, grid_names[i], err) < 0)
            return -1;
    for (int i = 0; i < 3; i++)
        if (get_u32(r, c, &k->block[i], rn, block_names[i], err) < 0)
            return -1;
    if (get_u32(r, c, &k->smem_static_bytes, rn, "static shared bytes", err) < 0 ||
        get_u32(r, c, &k->smem_dynamic_bytes, rn, "dynamic shared bytes", err) < 0 ||
        get_u32(r, c, &k->regs_per_thread, rn, "registers", err) < 0 ||
        get_u32(r, c, &k->local_bytes_per_thread, rn, "local bytes", err) < 0 ||
        get_u32(r, c, &rec->n_files, rn, "file count", err) < 0 ||
        get_u32(r, c, &rec->n_pcs, rn, "pc count", err) < 0)
        return -1;
    rec->has_table_counts = true;
    delta_reset(&r->bin->mem);
    delta_reset(&r->bin->bar);
    predictor_reset(r->bin->pred, trace_kernel_warps_per_cta(k));
    return check_end(r, c, rn, err);
}

static int dec_pc(trace_reader *r, cursor *c, trace_pc_info *pc, err_info *err)
{
    static const char rn[] = "pc";
    uint64_t file;
    if (get_u32(r, c, &pc->pc, rn, "pc", err) < 0 ||
        get_str(r, c, (const char **)&pc->sass, rn, "SASS text", err) < 0 ||
        get_u8(r, c, &pc->cache_op, rn, "cache op", err) < 0 ||
        get_u64(r, c, &file, rn, "file", err) < 0 ||
        get_u32(r, c, &pc->line, rn, "line", err) < 0)
        return -1;
    if (file > TRACE_MAX_FILES)
        return dec_error(r, err, r->loc, "pc record: file %" PRIu64
                                         " (stored + 1) is out of range (expected at most %u)",
                         file, TRACE_MAX_FILES);
    pc->file = (int32_t)file - 1;
    pc->ctrl = 0;
    if (c->p < c->end) { /* the optional control word */
        uint64_t ctrl;
        if (get_u64(r, c, &ctrl, rn, "control word", err) < 0)
            return -1;
        if (ctrl >> TRACE_CTRL_BITS)
            return dec_error(r, err, r->loc, "pc record: control word 0x%" PRIx64
                                             " has more than %u bits", ctrl, TRACE_CTRL_BITS);
        pc->ctrl = (uint32_t)ctrl | TRACE_CTRL_KNOWN;
    }
    return check_end(r, c, rn, err);
}

static int dec_end(trace_reader *r, cursor *c, trace_rec *rec, err_info *err)
{
    static const char rn[] = "end";
    uint8_t complete = 0;
    if (get_u64(r, c, &rec->kernels, rn, "kernels", err) < 0 ||
        get_u8(r, c, &complete, rn, "complete", err) < 0)
        return -1;
    if (complete > 1)
        return dec_error(r, err, r->loc, "end record: complete flag %u (expected 0 or 1)",
                         complete);
    rec->complete = complete == 1;
    rec->str = NULL;
    if (!rec->complete && get_str(r, c, &rec->str, rn, "reason", err) < 0)
        return -1;
    return check_end(r, c, rn, err);
}

int trace_bin_dec_next(trace_reader *r, trace_rec *rec, trace_event *ev, err_info *err)
{
    struct trace_bin_dec *d = r->bin;
    uint64_t no = r->records + 1;
    if (d->end - d->pos < 11 && dec_fill(r, 11, err) < 0)
        return -1;
    if (d->pos == d->end) {
        if (d->frame_done)
            return 0; /* at a record boundary; the reader says what is missing */
        if (d->compressed == 0 && d->zin.size == 0)
            return dec_error(r, err, no, "truncated: the file ends after its header");
        return dec_error(r, err, no, "truncated: the file ends inside the compressed stream");
    }
    const uint8_t *start = d->buf + d->pos;
    uint8_t tag = start[0];
    const uint8_t *p = start + 1;
    uint64_t len;
    if (trace_get_varint(&p, d->buf + d->end, &len) < 0) {
        if (d->end - d->pos < 11)
            return dec_error(r, err, no, "truncated: the file ends inside the record's header");
        return dec_error(r, err, no, "record length is not a valid varint");
    }
    if (len > TRACE_MAX_RECORD_BYTES)
        return dec_error(r, err, no, "record length %" PRIu64 " exceeds the limit of %u bytes",
                         len, TRACE_MAX_RECORD_BYTES);
    size_t head = (size_t)(p - start);
    size_t whole = head + (size_t)len;
    if (d->end - d->pos < whole) {
        if (dec_fill(r, whole, err) < 0)
            return -1;
        if (d->end - d->pos < whole)
            return dec_error(r, err, no, "truncated: the file ends after %zu of the record's %zu "
                                         "bytes", d->end - d->pos, whole);
    }
    cursor c = {d->buf + d->pos + head, d->buf + d->pos + whole};
    d->pos += whole;
    r->records = no;
    r->loc = no;

    switch (tag) {
    case TRACE_TAG_MEM:
        rec->type = TREC_MEM;
        return dec_mem(r, &c, ev, err) < 0 ? -1 : 1;
    case TRACE_TAG_BARRIER:
        rec->type = TREC_BARRIER;
        return dec_barrier(r, &c, &ev->barrier, err) < 0 ? -1 : 1;
    case TRACE_TAG_KERNEL_END:
        rec->type = TREC_KERNEL_END;
        if (get_u64(r, &c, &rec->counts.mem_records, "kernel end", "memory count", err) < 0 ||
            get_u64(r, &c, &rec->counts.barrier_records, "kernel end", "barrier count", err) < 0)
            return -1;
        return check_end(r, &c, "kernel end", err) < 0 ? -1 : 1;
    default:
        break;
    }

    /* records with strings: room for all of them, NUL-terminated */
    if (d->strs_cap < len + 2) {
        d->strs_cap = len + 2;
        d->strs = xrealloc(d->strs, d->strs_cap);
    }
    d->strs_len = 0;
    switch (tag) {
    case TRACE_TAG_META:
        rec->type = TREC_META;
        if (get_str(r, &c, &rec->key, "meta", "key", err) < 0 ||
            get_str(r, &c, &rec->value, "meta", "value", err) < 0)
            return -1;
        return check_end(r, &c, "meta", err) < 0 ? -1 : 1;
    case TRACE_TAG_KERNEL:
        rec->type = TREC_KERNEL;
        return dec_kernel(r, &c, rec, err) < 0 ? -1 : 1;
    case TRACE_TAG_FILE:
        rec->type = TREC_FILE;
        rec->has_file_index = false;
        if (get_str(r, &c, &rec->str, "file", "path", err) < 0)
            return -1;
        return check_end(r, &c, "file", err) < 0 ? -1 : 1;
    case TRACE_TAG_PC:
        rec->type = TREC_PC;
        return dec_pc(r, &c, &rec->pc, err) < 0 ? -1 : 1;
    case TRACE_TAG_END:
        rec->type = TREC_END;
        return dec_end(r, &c, rec, err) < 0 ? -1 : 1;
    default:
        return dec_error(r, err, no, "unknown record tag %u (expected 1..8)", tag);
    }
}

/* The reader's hot path (trace_reader_next): the next record when it is a
 * memory record with a one- or two-byte length (a gather's 32 addresses take
 * two) whose bytes are all in the window, at least 11 of them as
 * trace_bin_dec_next asks before it refills (so zstd is called, and its
 * errors reported, at the same record either way). Anything else returns 0
 * with nothing consumed, for trace_bin_dec_next. */
int trace_bin_dec_next_mem(trace_reader *r, trace_event *ev, err_info *err)
{
    struct trace_bin_dec *d = r->bin;
    size_t avail = d->end - d->pos;
    const uint8_t *start = d->buf + d->pos;
    if (avail < 11 || start[0] != TRACE_TAG_MEM)
        return 0;
    size_t len = start[1];
    const uint8_t *body = start + 2;
    if (len >= 0x80) { /* the varint's two bytes, as trace_get_varint reads them */
        if (start[2] >= 0x80)
            return 0;
        len = (len & 0x7fu) | (size_t)start[2] << 7;
        body++;
    }
    size_t whole = (size_t)(body - start) + len;
    if (avail < whole)
        return 0;
    cursor c = {body, body + len};
    d->pos += whole;
    r->records++;
    r->loc = r->records;
    return dec_mem(r, &c, ev, err) < 0 ? -1 : 1;
}

int trace_bin_dec_finish(trace_reader *r, err_info *err)
{
    struct trace_bin_dec *d = r->bin;
    if (dec_fill(r, 1, err) < 0)
        return -1;
    if (d->end > d->pos) {
        err_set(err, "%s: data after the end record (record %" PRIu64 ")", r->path, r->records);
        return -1;
    }
    if (!d->frame_done) {
        err_set(err, "%s: truncated: the compressed stream ends before its checksum", r->path);
        return -1;
    }
    return 0;
}

int trace_bin_dec_open(trace_reader *r, const uint8_t *head, size_t n, err_info *err)
{
    if (n < TRACE_BIN_HEADER_BYTES) {
        err_set(err, "%s: truncated header: %zu of %d bytes", r->path, n, TRACE_BIN_HEADER_BYTES);
        return -1;
    }
    uint32_t version = 0, flags = 0;
    for (int i = 0; i < 4; i++) {
        version |= (uint32_t)head[8 + i] << (8 * i);
        flags |= (uint32_t)head[12 + i] << (8 * i);
    }
    if (version > TRACE_FORMAT_VERSION) {
        err_set(err, "%s: trace format version %" PRIu32 " is newer than this gpumemsim reads (%u)",
                r->path, version, TRACE_FORMAT_VERSION);
        return -1;
    }
    if (version == 0) {
        err_set(err, "%s: trace format version 0 is not valid (expected %u)", r->path,
                TRACE_FORMAT_VERSION);
        return -1;
    }
    if (flags != 0) {
        err_set(err, "%s: header flags 0x%" PRIx32 " are not defined in format version %u "
                     "(expected 0)", r->path, flags, TRACE_FORMAT_VERSION);
        return -1;
    }
    r->version = version;
    r->bytes = TRACE_BIN_HEADER_BYTES;
    struct trace_bin_dec *d = xcalloc(1, sizeof *d);
    r->bin = d;
    d->dctx = ZSTD_createDCtx();
    if (!d->dctx) {
        err_set(err, "%s: zstd: cannot create a decompression context", r->path);
        return -1;
    }
    size_t rc = ZSTD_DCtx_setParameter(d->dctx, ZSTD_d_windowLogMax, TRACE_ZSTD_WINDOW_LOG_MAX);
    if (ZSTD_isError(rc)) {
        err_set(err, "%s: zstd: %s", r->path, ZSTD_getErrorName(rc));
        return -1;
    }
    d->in_cap = ZSTD_DStreamInSize();
    d->in = xmalloc(d->in_cap);
    d->cap = DEC_WINDOW_BYTES;
    d->buf = xmalloc(d->cap);
    d->pred = xcalloc(1, sizeof *d->pred);
    d->avx2 = trace_cpu_has_avx2();
    return 0;
}

void trace_bin_dec_close(trace_reader *r)
{
    struct trace_bin_dec *d = r->bin;
    if (!d)
        return;
    ZSTD_freeDCtx(d->dctx);
    free(d->in);
    free(d->buf);
    free(d->strs);
    free(d->pred);
    free(d);
    r->bin = NULL;
}
