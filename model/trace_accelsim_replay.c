/* trace_accelsim_replay.c - pass 2 over one kernel file: its CTAs replayed
 * in an order a capture could have recorded (docs/accelsim.md, "The
 * interleaving"). CTA c runs on SM c mod sm_count, each SM running its CTAs
 * in launch order, ctas_per_sm at a time (slots); in each round every
 * resident warp that is not waiting at a barrier issues its next instruction,
 * memory or not, read from its own block of the file by offset (pread, one
 * line buffer per resident warp). Memory instructions with an active lane and
 * barriers become records; the space of a generic access and the offsets in
 * the shared and local windows are resolved here.
 *
 * Not modelled: timing (the order is plausible, not measured), SM ids
 * (records say unknown; gpu.c then places CTA c on SM c mod sm_count, as this
 * pass does), named barriers of fewer threads (every BAR.SYNC is a CTA
 * barrier; a barrier opens when every warp still running has arrived, so
 * nothing can deadlock). */
#include "gpu.h"
#include "trace_accelsim_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

/* NVBit: "shmem range is [shmem_base_addr, shmem_base_addr+16MB)", and the
 * same for local memory (nvbit.h, nvbit_get_shmem_base_addr). */
#define WINDOW_BYTES ((uint64_t)16 << 20)

/* H200 limits for the derived occupancy (configs/h200.ini, as cmd_synth.c). */
#define H200_THREADS_PER_SM 2048u
#define H200_REGS_PER_SM 65536u
#define H200_MAX_CTAS_PER_SM 32u
#define H200_SMEM_PER_SM (228u * 1024u)
#define H200_SMEM_RESERVED 1024u

/* ---- pass 2: the resident warps, interleaved -------------------------------------- */

enum { W_RUN, W_BLOCKED, W_DONE };

typedef struct wstream {
    line_rd rd;
    uint64_t left;
    uint32_t warp;
    uint8_t state;
} wstream;

typedef struct slot {
    uint32_t sm;
    bool busy;
    uint32_t cta;
    uint32_t live, blocked;
    wstream *w; /* [warps_per_cta] */
} slot;

typedef struct replay {
    kfile *f;
    trace_writer *wr;
    accelsim_summary *sum;
    uint32_t sm_count;
    uint64_t *next_cta; /* [sm_count]: the next CTA each SM starts */
    slot *slots;
    uint32_t n_slots, busy;
    char *bufs;
    inst in;
    trace_mem m;
} replay;

/* Start SM s's next CTA in slot sl, if it has one. */
static void slot_start(replay *p, slot *sl)
{
    kfile *f = p->f;
    for (;;) {
        uint64_t c = p->next_cta[sl->sm];
        if (c >= f->ctas) {
            if (sl->busy)
                p->busy--;
            sl->busy = false;
            return;
        }
        p->next_cta[sl->sm] = c + p->sm_count;
        if (!sl->busy)
            p->busy++;
        sl->busy = true;
        sl->cta = (uint32_t)c;
        sl->live = sl->blocked = 0;
        for (uint32_t w = 0; w < f->warps_per_cta; w++)
            sl->w[w].state = W_DONE;
        for (uint32_t i = f->cta_start[c]; i < f->cta_start[c + 1]; i++) {
            const warp_ent *e = &f->w[i];
            wstream *ws = &sl->w[e->warp];
            trace_accelsim_rd_seek(&ws->rd, e->offset, e->line);
            ws->left = e->insts;
            ws->warp = e->warp;
            ws->state = e->insts ? W_RUN : W_DONE;
            sl->live += e->insts != 0;
        }
        if (sl->live)
            return;
    }
}

static void slot_release_if_all_arrived(slot *sl, uint32_t warps)
{
    if (sl->live == 0 || sl->blocked != sl->live)
        return;
    for (uint32_t w = 0; w < warps; w++)
        if (sl->w[w].state == W_BLOCKED)
            sl->w[w].state = W_RUN;
    sl->blocked = 0;
}

/* The address of a lane in a space's window: either inside the window the
 * header gives (then the offset from its start) or already an offset. */
static bool window_offset(uint64_t a, uint64_t base, bool has_base, uint64_t *off)
{
    if (has_base && a >= base && a - base < WINDOW_BYTES) {
        *off = a - base;
        return true;
    }
    if (a < WINDOW_BYTES) {
        *off = a;
        return true;
    }
    return false;
}

/* Fill p->m from p->in of (slot, warp). Fails with a bare message. */
static int make_mem(replay *p, const slot *sl, uint32_t warp, err_info *err)
{
    const inst *in = &p->in;
    const kheader *h = &p->f->h;
    trace_mem *m = &p->m;
    m->cta = sl->cta;
    m->warp = warp;
    m->sm = TRACE_SM_UNKNOWN;
    m->pc = in->pc;
    m->kind = (uint8_t)in->op.kind;
    m->size_bytes = (uint8_t)in->size_bytes;
    m->cache_op = (uint8_t)in->op.cache;
    m->flags = 0;
    m->active_mask = in->mask;
    memcpy(m->addr, in->addr, sizeof m->addr);
    bool has_s = h->seen[H_SHMEM_BASE], has_l = h->seen[H_LOCAL_BASE];
    op_space sp = in->op.space;
    unsigned first = (unsigned)__builtin_ctz(in->mask);
    uint64_t a0 = in->addr[first];
    if (sp == OPS_GENERIC || sp == OPS_LDGSTS) {
        /* by the first active lane's window; the others must agree */
        if (sp == OPS_GENERIC && (!has_s || !has_l)) {
            err_set(err, "%s is a generic access, but the header gives no '-shmem base_addr' "
                    "and '-local mem base_addr' to resolve it by", in->opcode);
            return -1;
        }
        bool in_s = has_s && a0 >= h->shmem_base && a0 - h->shmem_base < WINDOW_BYTES;
        bool in_l = sp == OPS_GENERIC && has_l && a0 >= h->local_base &&
                    a0 - h->local_base < WINDOW_BYTES;
        if (sp == OPS_GENERIC)
            m->flags |= TRACE_MEM_GENERIC;
        else {
            m->flags |= TRACE_MEM_LDGSTS;
            m->kind = in_s ? TRACE_KIND_ST : TRACE_KIND_LD;
        }
        sp = in_s ? OPS_SHARED : in_l ? OPS_LOCAL : OPS_GLOBAL;
        for (unsigned l = first + 1; l < TRACE_WARP_LANES; l++) {
            if (!(in->mask >> l & 1u))
                continue;
            uint64_t a = in->addr[l];
            bool s2 = has_s && a >= h->shmem_base && a - h->shmem_base < WINDOW_BYTES;
            bool l2 = in->op.space == OPS_GENERIC && has_l && a >= h->local_base &&
                      a - h->local_base < WINDOW_BYTES;
            if (s2 != in_s || l2 != in_l) {
                err_set(err, "%s: lane %u's address 0x%" PRIx64 " is in another memory space "
                        "than lane %u's 0x%" PRIx64 " (expected one space per instruction)",
                        in->opcode, l, a, first, a0);
                return -1;
            }
        }
    }
    if (sp == OPS_SHARED || sp == OPS_LOCAL) {
        bool sh = sp == OPS_SHARED;
        uint64_t base = sh ? h->shmem_base : h->local_base;
        bool has = sh ? has_s : has_l;
        for (unsigned l = first; l < TRACE_WARP_LANES; l++) {
            if (!(in->mask >> l & 1u))
                continue;
            if (!window_offset(in->addr[l], base, has, &m->addr[l])) {
                err_set(err, "%s: lane %u's address 0x%" PRIx64 " is neither in the %s window "
                        "[0x%" PRIx64 ", +16 MiB) nor an offset below 16 MiB", in->opcode, l,
                        in->addr[l], sh ? "shared" : "local", base);
                return -1;
            }
        }
        m->space = sh ? TRACE_SPACE_SHARED : TRACE_SPACE_LOCAL;
    } else {
        m->space = TRACE_SPACE_GLOBAL;
    }
    return trace_mem_validate(&p->f->k, m, err);
}

/* One more record written: progress every ACCELSIM_TICK_EVERY records. */
static void count_record(replay *p)
{
    accelsim_tick *t = p->f->tick;
    if (!t)
        return;
    t->p.records++;
    if ((t->p.records & (ACCELSIM_TICK_EVERY - 1)) == 0)
        trace_accelsim_tick(t);
}

/* Warp ws of slot sl issues its next instruction. */
static int issue(replay *p, slot *sl, wstream *ws, err_info *err)
{
    kfile *f = p->f;
    char *line, *s;
    int rc;
    do {
        rc = trace_accelsim_rd_line(&ws->rd, f->path, &line, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return trace_accelsim_fail_at(err, f->path, ws->rd.line,
                                          "the file ends inside warp %" PRIu32 " of CTA %" PRIu32
                                          " (it changed since it was first read?)",
                                          ws->warp, sl->cta);
        s = line;
        trace_accelsim_trim(&s);
    } while (!*s);
    if (trace_accelsim_parse_inst(s, &f->h, &p->in, err) < 0)
        return trace_accelsim_place(err, f->path, ws->rd.line);
    ws->left--;
    const inst *in = &p->in;
    if (in->op.cls == OPC_OTHER) {
        p->sum->other_insts++;
    } else if (in->mask == 0) {
        p->sum->pred_off_insts++;
    } else if (in->op.cls == OPC_BARRIER) {
        trace_barrier b = {sl->cta, ws->warp, TRACE_SM_UNKNOWN, in->pc, TRACE_BAR_SYNC};
        if (trace_writer_barrier(p->wr, &b, err) < 0)
            return -1;
        p->sum->barrier_records++;
        count_record(p);
        if (ws->left) {
            ws->state = W_BLOCKED;
            sl->blocked++;
        }
    } else {
        if (make_mem(p, sl, ws->warp, err) < 0)
            return trace_accelsim_place(err, f->path, ws->rd.line);
        if (trace_writer_mem(p->wr, &p->m, err) < 0)
            return -1;
        p->sum->mem_records++;
        count_record(p);
    }
    if (ws->left == 0) {
        ws->state = W_DONE;
        sl->live--;
    }
    slot_release_if_all_arrived(sl, f->warps_per_cta);
    return 0;
}

int trace_accelsim_replay(kfile *f, uint32_t sm_count, uint32_t ctas_per_sm, trace_writer *wr,
                          accelsim_summary *sum, err_info *err)
{
    replay p;
    memset(&p, 0, sizeof p);
    p.f = f;
    p.wr = wr;
    p.sum = sum;
    p.sm_count = sm_count;
    /* slot k of SM j exists when SM j has more than k CTAs (CTA c runs on SM c mod N) */
    uint64_t n_slots = 0;
    for (uint32_t k = 0; k < ctas_per_sm; k++)
        for (uint32_t j = 0; j < sm_count; j++)
            n_slots += f->ctas > j && (f->ctas - j + sm_count - 1) / sm_count > k;
    uint64_t warps = n_slots * f->warps_per_cta;
    if (warps > ACCELSIM_MAX_RESIDENT_WARPS)
        return trace_accelsim_fail_at(
            err, f->path, 0,
            "%" PRIu64 " resident warps (%" PRIu64 " CTAs of %" PRIu32 " warps on %" PRIu32
            " SMs) exceed the limit of %u: use a smaller "
            "--ctas-per-sm or --sm-count",
            warps, n_slots, f->warps_per_cta, sm_count, ACCELSIM_MAX_RESIDENT_WARPS);
    p.n_slots = (uint32_t)n_slots;
    p.next_cta = xcalloc(sm_count, sizeof *p.next_cta);
    for (uint32_t j = 0; j < sm_count; j++)
        p.next_cta[j] = j;
    p.slots = xcalloc(n_slots ? n_slots : 1, sizeof *p.slots);
    wstream *streams = xcalloc(warps ? warps : 1, sizeof *streams);
    p.bufs = xmalloc(warps ? warps * RD_BUF_BYTES : 1);
    for (uint64_t i = 0; i < warps; i++) {
        streams[i].rd.fd = f->fd;
        streams[i].rd.buf = p.bufs + i * RD_BUF_BYTES;
        streams[i].rd.cap = RD_BUF_BYTES;
        streams[i].rd.max_line = ACCELSIM_MAX_LINE_BYTES;
    }
    uint32_t i = 0;
    for (uint32_t k = 0; k < ctas_per_sm; k++) {
        for (uint32_t j = 0; j < sm_count; j++) {
            if (!(f->ctas > j && (f->ctas - j + sm_count - 1) / sm_count > k))
                continue;
            slot *sl = &p.slots[i];
            sl->sm = j;
            sl->w = streams + (uint64_t)i * f->warps_per_cta;
            slot_start(&p, sl);
            i++;
        }
    }
    int rc = 0;
    while (rc == 0 && p.busy) {
        for (uint32_t s = 0; rc == 0 && s < p.n_slots; s++) {
            slot *sl = &p.slots[s];
            if (!sl->busy)
                continue;
            for (uint32_t w = 0; w < f->warps_per_cta; w++) {
                if (sl->w[w].state != W_RUN)
                    continue;
                if ((rc = issue(&p, sl, &sl->w[w], err)) < 0)
                    break;
                if (sl->live == 0) { /* its next CTA starts in the next round */
                    slot_start(&p, sl);
                    break;
                }
            }
        }
    }
    free(p.next_cta);
    free(p.slots);
    free(streams);
    free(p.bufs);
    return rc;
}

uint32_t trace_accelsim_ctas_per_sm(uint32_t threads_per_cta, uint32_t regs_per_thread,
                                    uint32_t smem_bytes)
{
    static const gpu_sm_limits h200 = {H200_MAX_CTAS_PER_SM, H200_THREADS_PER_SM, H200_REGS_PER_SM,
                                       H200_SMEM_PER_SM};
    uint64_t warps = (threads_per_cta + TRACE_WARP_LANES - 1) / TRACE_WARP_LANES;
    if (warps == 0)
        warps = 1;
    uint64_t warp_threads = warps * TRACE_WARP_LANES;
    /* a register count the tracer did not know (above 255) is no limit */
    uint64_t regs = regs_per_thread >= 1 && regs_per_thread <= MAX_REGS_PER_THREAD
                        ? (uint64_t)regs_per_thread * warp_threads
                        : 0;
    uint32_t n = gpu_ctas_per_sm(&h200, warp_threads, regs, (uint64_t)smem_bytes + H200_SMEM_RESERVED);
    return n ? n : 1;
}
