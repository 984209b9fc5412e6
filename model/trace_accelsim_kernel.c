/* trace_accelsim_kernel.c - pass 1 over one kernel file: open it (an .xz is
 * first decompressed to a temporary file), read the header, then every line
 * once, sequentially: the thread-block structure (#BEGIN_TB, thread block,
 * warp, insts = N and exactly N instruction lines, #END_TB), every
 * instruction line checked (trace_accelsim_inst.c), the PC table collected
 * (one opcode per PC), and each warp's block of lines indexed by byte offset
 * (32 bytes per warp, whatever the file size) for pass 2 to read back.
 * Then the kernel record the trace gets (trace_accelsim_kfile_build).
 *
 * Allowed: missing warps of a thread block (they ran nothing). Refused: a
 * thread block outside the grid or missing, a warp outside the CTA or given
 * twice, a count that does not match its lines, a file ending inside a
 * thread block. */
#include "trace_accelsim_int.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PASS1_BUF_BYTES (1u << 16)
/* the trace reader's limit on one kernel's table strings (TRACE_MAX_TABLE_BYTES) */
#define TABLE_BYTES_LIMIT ((uint64_t)64 << 20)
#define LINEINFO_FILE "(source file not recorded: the Accel-Sim tracer gives line numbers only)"

/* ---- the PC table ----------------------------------------------------------------- */

static void pct_free(pc_table *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->e[i].opcode);
    free(t->e);
    free(t->slot);
    memset(t, 0, sizeof *t);
}

static uint32_t pc_hash(uint32_t pc)
{
    uint32_t h = pc * 0x9E3779B1u;
    return h ^ (h >> 15);
}

static void pct_rehash(pc_table *t, uint32_t slots)
{
    free(t->slot);
    t->slots = slots;
    t->slot = xcalloc(slots, sizeof *t->slot);
    for (uint32_t i = 0; i < t->n; i++) {
        uint32_t s = pc_hash(t->e[i].pc) & (slots - 1);
        while (t->slot[s])
            s = (s + 1) & (slots - 1);
        t->slot[s] = i + 1;
    }
}

/* Add or check in's PC: the same PC must always carry the same opcode and line. */
static int pct_add(pc_table *t, const inst *in, err_info *err)
{
    if (!t->slots)
        pct_rehash(t, 1024);
    uint32_t s = pc_hash(in->pc) & (t->slots - 1);
    for (; t->slot[s]; s = (s + 1) & (t->slots - 1)) {
        const pc_ent *e = &t->e[t->slot[s] - 1];
        if (e->pc != in->pc)
            continue;
        if (strcmp(e->opcode, in->opcode) != 0 || e->src_line != in->src_line) {
            err_set(err, "PC %04" PRIx32 " is %s (line %" PRIu32 ") here but %s (line %" PRIu32
                    ") before (expected one instruction per PC)", in->pc, in->opcode,
                    in->src_line, e->opcode, e->src_line);
            return -1;
        }
        return 0;
    }
    if (t->n >= TRACE_MAX_PCS) {
        err_set(err, "more than %u distinct PCs in one kernel (the trace format's limit)",
                TRACE_MAX_PCS);
        return -1;
    }
    t->bytes += strlen(in->opcode) + 1;
    if (t->bytes > TABLE_BYTES_LIMIT) {
        err_set(err, "the PC table's opcodes exceed %" PRIu64 " bytes (the trace format's limit)",
                TABLE_BYTES_LIMIT);
        return -1;
    }
    if (t->n == t->cap) {
        t->cap = t->cap ? 2 * t->cap : 256;
        t->e = xrealloc(t->e, (size_t)t->cap * sizeof *t->e);
    }
    t->e[t->n] = (pc_ent){in->pc, in->src_line, xstrdup(in->opcode), (uint8_t)in->op.cache};
    t->n++;
    t->slot[s] = t->n;
    if ((uint64_t)t->n * 2 > t->slots)
        pct_rehash(t, t->slots * 2);
    return 0;
}

static int cmp_pc(const void *a, const void *b)
{
    uint32_t x = ((const pc_ent *)a)->pc, y = ((const pc_ent *)b)->pc;
    return x < y ? -1 : x > y;
}

/* ---- pass 1: structure, checks, PC table, warp index ---------------------------- */

void trace_accelsim_kfile_free(kfile *f)
{
    free(f->h.name);
    pct_free(&f->pcs);
    free(f->w);
    free(f->cta_start);
    trace_kernel_free(&f->k);
    if (f->fd >= 0)
        close(f->fd);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

static int cmp_warp(const void *a, const void *b)
{
    const warp_ent *x = a, *y = b;
    if (x->cta != y->cta)
        return x->cta < y->cta ? -1 : 1;
    return x->warp < y->warp ? -1 : x->warp > y->warp;
}

/* "KEY = VALUE" with KEY one of the body's words; returns VALUE or NULL. */
static char *body_value(char *s, const char *key)
{
    size_t n = strlen(key);
    if (strncmp(s, key, n) != 0)
        return NULL;
    s += n;
    while (*s == ' ' || *s == '\t')
        s++;
    if (*s != '=')
        return NULL;
    s++;
    trace_accelsim_trim(&s);
    return s;
}

typedef enum body_state { B_OUTSIDE, B_TB_HEAD, B_TB, B_WARP_HEAD, B_WARP } body_state;

static int pass1(kfile *f, line_rd *r, err_info *err)
{
    const kheader *h = &f->h;
    char sh[64];
    uint64_t threads = (uint64_t)h->block[0] * h->block[1] * h->block[2];
    f->ctas = (uint64_t)h->grid[0] * h->grid[1] * h->grid[2];
    f->warps_per_cta = (uint32_t)((threads + TRACE_WARP_LANES - 1) / TRACE_WARP_LANES);
    body_state st = B_OUTSIDE;
    uint32_t tb[3] = {0, 0, 0}, cta = 0, warp = 0;
    uint64_t left = 0, declared = 0, tb_line = 0;
    inst in;
    char *line;
    int rc;
    while ((rc = trace_accelsim_rd_line(r, f->path, &line, err)) == 1) {
        if (f->tick && (r->line & (ACCELSIM_TICK_EVERY - 1)) == 0) {
            f->tick->p.lines = r->line;
            trace_accelsim_tick(f->tick);
        }
        char *s = line;
        trace_accelsim_trim(&s);
        if (!*s)
            continue;
        if (st == B_WARP && isxdigit((unsigned char)*s)) {
            if (trace_accelsim_parse_inst(s, h, &in, err) < 0 || pct_add(&f->pcs, &in, err) < 0)
                return trace_accelsim_place(err, f->path, r->line);
            if (--left == 0)
                st = B_TB;
            continue;
        }
        if (st == B_WARP)
            return trace_accelsim_fail_at(
                err, f->path, r->line,
                "'%s': warp %" PRIu32 " of thread block "
                "(%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") has %" PRIu64 " instruction "
                "lines (expected insts = %" PRIu64 ")",
                trace_accelsim_shown(s, sh), warp, tb[0], tb[1], tb[2], declared - left, declared);
        char *v;
        switch (st) {
        case B_OUTSIDE:
            if (strcmp(s, "#BEGIN_TB") != 0)
                return trace_accelsim_fail_at(err, f->path, r->line, "'%s' (expected #BEGIN_TB)",
                                              trace_accelsim_shown(s, sh));
            st = B_TB_HEAD;
            tb_line = r->line;
            break;
        case B_TB_HEAD: {
            unsigned long long x, y, z;
            char tail;
            v = body_value(s, "thread block");
            if (!v || sscanf(v, "%llu,%llu,%llu%c", &x, &y, &z, &tail) != 3 || strchr(v, '-') ||
                strchr(v, ' '))
                return trace_accelsim_fail_at(err, f->path, r->line,
                                              "'%s' (expected 'thread block = X,Y,Z')",
                                              trace_accelsim_shown(s, sh));
            if (x >= h->grid[0] || y >= h->grid[1] || z >= h->grid[2])
                return trace_accelsim_fail_at(err, f->path, r->line,
                                              "thread block (%llu,%llu,%llu) is outside "
                                              "the grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")",
                                              x, y, z, h->grid[0], h->grid[1], h->grid[2]);
            tb[0] = (uint32_t)x, tb[1] = (uint32_t)y, tb[2] = (uint32_t)z;
            cta = (uint32_t)(x + h->grid[0] * (y + (uint64_t)h->grid[1] * z));
            st = B_TB;
            break;
        }
        case B_TB:
            if (strcmp(s, "#END_TB") == 0) {
                st = B_OUTSIDE;
            } else if ((v = body_value(s, "warp"))) {
                uint64_t wv;
                if (!trace_accelsim_parse_dec(v, UINT32_MAX, &wv) || wv >= f->warps_per_cta)
                    return trace_accelsim_fail_at(
                        err, f->path, r->line,
                        "'%s' (expected 'warp = W' with W "
                        "below the %" PRIu32 " warps of a CTA of %" PRIu64 " threads)",
                        trace_accelsim_shown(s, sh), f->warps_per_cta, threads);
                warp = (uint32_t)wv;
                st = B_WARP_HEAD;
            } else if (body_value(s, "cluster id") || body_value(s, "cluster cta") ||
                       body_value(s, "cluster rank")) {
                /* Accel-Sim 2.0's cluster placement: not modelled */
            } else if (isxdigit((unsigned char)*s) && declared) {
                return trace_accelsim_fail_at(err, f->path, r->line,
                                              "an instruction line after the %" PRIu64
                                              " that warp %" PRIu32
                                              " declares (expected 'warp = W' or "
                                              "#END_TB)",
                                              declared, warp);
            } else {
                return trace_accelsim_fail_at(
                    err, f->path, r->line,
                    "'%s' (expected 'warp = W' or #END_TB in "
                    "thread block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") begun on "
                    "line %" PRIu64 ")",
                    trace_accelsim_shown(s, sh), tb[0], tb[1], tb[2], tb_line);
            }
            break;
        case B_WARP_HEAD:
            v = body_value(s, "insts");
            if (!v || !trace_accelsim_parse_dec(v, UINT64_MAX, &declared))
                return trace_accelsim_fail_at(err, f->path, r->line,
                                              "'%s' (expected 'insts = N' after 'warp = "
                                              "%" PRIu32 "')",
                                              trace_accelsim_shown(s, sh), warp);
            if (f->n_w >= ACCELSIM_MAX_WARPS)
                return trace_accelsim_fail_at(err, f->path, r->line,
                                              "more than %u warps in one kernel (the "
                                              "limit of gpumemsim's Accel-Sim import)",
                                              ACCELSIM_MAX_WARPS);
            if (f->n_w == f->cap_w) {
                f->cap_w = f->cap_w ? 2 * f->cap_w : 1024;
                f->w = xrealloc(f->w, (size_t)f->cap_w * sizeof *f->w);
            }
            f->w[f->n_w++] = (warp_ent){trace_accelsim_rd_tell(r), r->line, declared, cta, warp};
            left = declared;
            st = left ? B_WARP : B_TB;
            break;
        case B_WARP:
            break;
        }
    }
    if (rc < 0)
        return -1;
    if (st != B_OUTSIDE)
        return trace_accelsim_fail_at(err, f->path, r->line,
                                      "the file ends inside thread block (%" PRIu32 ",%" PRIu32
                                      ",%" PRIu32 ") begun on line %" PRIu64 " (%s)",
                                      tb[0], tb[1], tb[2], tb_line,
                                      st == B_WARP ? "a warp has fewer instruction lines than "
                                                     "its insts = N"
                                                   : "expected #END_TB");

    /* every CTA of the grid once, each warp at most once */
    if (f->n_w)
        qsort(f->w, f->n_w, sizeof *f->w, cmp_warp);
    uint64_t distinct = 0;
    for (uint32_t i = 0; i < f->n_w; i++) {
        if (i > 0 && f->w[i].cta == f->w[i - 1].cta && f->w[i].warp == f->w[i - 1].warp)
            return trace_accelsim_fail_at(err, f->path, f->w[i].line,
                                          "warp %" PRIu32 " of CTA %" PRIu32
                                          " again (first on line %" PRIu64
                                          "; expected each warp once)",
                                          f->w[i].warp, f->w[i].cta, f->w[i - 1].line);
        distinct += i == 0 || f->w[i].cta != f->w[i - 1].cta;
    }
    if (distinct != f->ctas)
        return trace_accelsim_fail_at(err, f->path, 0,
                                      "%" PRIu64 " thread blocks with warps, but the grid (%" PRIu32
                                      ",%" PRIu32 ",%" PRIu32 ") has %" PRIu64
                                      " (expected every thread "
                                      "block of the kernel: is the file cut short?)",
                                      distinct, h->grid[0], h->grid[1], h->grid[2], f->ctas);
    f->cta_start = xmalloc((size_t)(f->ctas + 1) * sizeof *f->cta_start);
    for (uint32_t i = 0, c = 0; i <= f->n_w; i++)
        while (c <= f->ctas && (i == f->n_w || c <= f->w[i].cta))
            f->cta_start[c++] = i;
    return 0;
}

/* The kernel record and its PC table. */
int trace_accelsim_kfile_build(kfile *f, accelsim_summary *sum, err_info *err)
{
    const kheader *h = &f->h;
    trace_kernel *k = &f->k;
    trace_kernel_init(k);
    k->launch = (uint32_t)(h->id - 1); /* Accel-Sim numbers kernels from 1 */
    k->name = xstrdup(h->name);
    k->demangled = xstrdup(h->name);
    memcpy(k->grid, h->grid, sizeof k->grid);
    memcpy(k->block, h->block, sizeof k->block);
    k->smem_static_bytes = h->shmem; /* the tracer gives static + dynamic in one number */
    if (h->nregs <= MAX_REGS_PER_THREAD) {
        k->regs_per_thread = h->nregs;
    } else if (sum) {
        if (sum->bad_nregs++ == 0) {
            sum->bad_nregs_first_id = (uint32_t)h->id;
            sum->bad_nregs_first_value = h->nregs;
        }
    }
    bool lines = false;
    for (uint32_t i = 0; i < f->pcs.n; i++)
        lines |= f->pcs.e[i].src_line != 0;
    if (lines) {
        k->n_files = 1;
        k->files = xcalloc(1, sizeof *k->files);
        k->files[0] = xstrdup(LINEINFO_FILE);
    }
    if (f->pcs.n)
        qsort(f->pcs.e, f->pcs.n, sizeof *f->pcs.e, cmp_pc);
    k->n_pcs = f->pcs.n;
    k->pcs = xcalloc(f->pcs.n ? f->pcs.n : 1, sizeof *k->pcs);
    for (uint32_t i = 0; i < f->pcs.n; i++) {
        const pc_ent *e = &f->pcs.e[i];
        k->pcs[i] = (trace_pc_info){.pc = e->pc, .sass = xstrdup(e->opcode), .cache_op = e->cache,
                                    .file = e->src_line ? 0 : -1, .line = e->src_line};
    }
    if (trace_kernel_validate(k, err) < 0) {
        err_prefix(err, "kernel header");
        return trace_accelsim_place(err, f->path, 0);
    }
    return 0;
}

int trace_accelsim_kfile_open(kfile *f, const char *path, bool xz, const accelsim_options *opt,
                              err_info *err)
{
    f->path = path;
    if (xz) {
        if (trace_accelsim_xz_to_tmp(path, opt->tmp_dir, &f->fd, err) < 0)
            return -1;
    } else {
        f->fd = open(path, O_RDONLY);
        if (f->fd < 0)
            return trace_accelsim_fail_at(err, path, 0, "cannot open: %s", strerror(errno));
    }
    /* a large buffer for the sequential pass, the same line limit as pass 2 */
    line_rd r = {.fd = f->fd, .buf = xmalloc(PASS1_BUF_BYTES), .cap = PASS1_BUF_BYTES,
                 .max_line = ACCELSIM_MAX_LINE_BYTES};
    char *big = r.buf;
    int rc = trace_accelsim_read_header(&r, path, &f->h, err);
    if (rc == 0) {
        uint64_t ctas = (uint64_t)f->h.grid[0] * f->h.grid[1] * f->h.grid[2];
        uint64_t threads = (uint64_t)f->h.block[0] * f->h.block[1] * f->h.block[2];
        if (ctas == 0 || threads == 0 || threads > TRACE_MAX_BLOCK_THREADS)
            rc = trace_accelsim_fail_at(err, path, 0,
                                        "grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32
                                        ") and block (%" PRIu32 ",%" PRIu32 ",%" PRIu32
                                        ") (expected no 0 and at most %u threads "
                                        "per block)",
                                        f->h.grid[0], f->h.grid[1], f->h.grid[2], f->h.block[0],
                                        f->h.block[1], f->h.block[2], TRACE_MAX_BLOCK_THREADS);
        else if (ctas > ACCELSIM_MAX_WARPS)
            rc = trace_accelsim_fail_at(err, path, 0,
                                        "a grid of %" PRIu64 " CTAs has more warps than the %u of "
                                        "one kernel gpumemsim's Accel-Sim import takes",
                                        ctas, ACCELSIM_MAX_WARPS);
    }
    if (rc == 0)
        rc = pass1(f, &r, err);
    free(big);
    return rc;
}

