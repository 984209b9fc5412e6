/* capture_decode.c - raw warp records into trace_mem / trace_barrier
 * (rules in capture_decode.h). No allocation per record. */
#include "capture_decode.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

int capture_pc_map_build(capture_pc_map *map, const capture_sass_func *f, uint64_t code_bytes,
                         err_info *err)
{
    memset(map, 0, sizeof *map);
    if (code_bytes == 0 || code_bytes > (uint64_t)TRACE_MAX_PCS * CAPTURE_SASS_INST_BYTES) {
        err_set(err, "kernel code size %" PRIu64 " bytes is out of range (1..%" PRIu64 ")", code_bytes,
                (uint64_t)TRACE_MAX_PCS * CAPTURE_SASS_INST_BYTES);
        return -1;
    }
    map->code_bytes = code_bytes;
    map->n_slots = (uint32_t)((code_bytes + CAPTURE_SASS_INST_BYTES - 1) / CAPTURE_SASS_INST_BYTES);
    map->slots = xcalloc(map->n_slots, sizeof *map->slots);
    map->has_sass = f != NULL;
    if (!f)
        return 0;
    for (uint32_t i = 0; i < f->n_insts; i++) {
        const capture_sass_inst *in = &f->insts[i];
        if (in->pc % CAPTURE_SASS_INST_BYTES || in->pc >= code_bytes)
            continue; /* padding past the end the driver reports cannot be executed */
        capture_pc_slot *s = &map->slots[in->pc / CAPTURE_SASS_INST_BYTES];
        capture_op_classify(in->text, &s->op);
        s->known = true;
    }
    return 0;
}

uint32_t capture_pc_map_unseen(const capture_pc_map *map, const uint8_t *seen, capture_op_class cls,
                               uint32_t *first_pc)
{
    uint32_t n = 0;
    if (!map->has_sass || !seen)
        return 0;
    for (uint32_t i = 0; i < map->n_slots; i++) {
        if (!map->slots[i].known || map->slots[i].op.op_class != cls || seen[i])
            continue;
        if (n++ == 0)
            *first_pc = i * CAPTURE_SASS_INST_BYTES;
    }
    return n;
}

void capture_pc_map_free(capture_pc_map *map)
{
    free(map->slots);
    memset(map, 0, sizeof *map);
}

int capture_decoder_init(capture_decoder *d, const capture_launch *l, const capture_pc_map *map,
                         err_info *err)
{
    memset(d, 0, sizeof *d);
    d->l = *l;
    d->map = map;
    uint64_t ctas = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
    uint64_t threads = (uint64_t)l->block[0] * l->block[1] * l->block[2];
    if (ctas == 0 || ctas >= TRACE_MAX_CTAS || threads == 0 || threads > TRACE_MAX_BLOCK_THREADS) {
        err_set(err, "launch %u (%s): grid %ux%ux%u block %ux%ux%u is out of range", l->launch, l->name,
                l->grid[0], l->grid[1], l->grid[2], l->block[0], l->block[1], l->block[2]);
        return -1;
    }
    d->ctas = ctas;
    d->warps_per_cta = (uint32_t)((threads + TRACE_WARP_LANES - 1) / TRACE_WARP_LANES);
    uint32_t tail = (uint32_t)(threads % TRACE_WARP_LANES);
    d->last_warp_mask = tail ? (1u << tail) - 1 : TRACE_FULL_MASK;
    return 0;
}

static const char *raw_type_name(unsigned t)
{
    static const char *const names[CAPTURE_RAW_TYPE_COUNT] = {
        [CAPTURE_RAW_NONE] = "none",
        [CAPTURE_RAW_GLOBAL] = "global access",
        [CAPTURE_RAW_SHARED] = "shared access",
        [CAPTURE_RAW_LOCAL] = "local access",
        [CAPTURE_RAW_LDGSTS_GLOBAL] = "cp.async global read",
        [CAPTURE_RAW_LDGSTS_SHARED] = "cp.async shared write",
        [CAPTURE_RAW_MATRIX] = "ldmatrix/stmatrix",
        [CAPTURE_RAW_BARRIER] = "barrier",
        [CAPTURE_RAW_SHFL] = "shuffle",
    };
    return t < CAPTURE_RAW_TYPE_COUNT ? names[t] : "?";
}

/* Can an instruction of this class raise this callback? */
static bool class_fits(unsigned raw_type, capture_op_class c)
{
    switch (raw_type) {
    case CAPTURE_RAW_GLOBAL:
        return c == CAPTURE_OP_GLOBAL || c == CAPTURE_OP_GENERIC;
    case CAPTURE_RAW_SHARED:
        return c == CAPTURE_OP_SHARED || c == CAPTURE_OP_GENERIC;
    case CAPTURE_RAW_LOCAL:
        return c == CAPTURE_OP_LOCAL || c == CAPTURE_OP_GENERIC;
    case CAPTURE_RAW_LDGSTS_GLOBAL:
    case CAPTURE_RAW_LDGSTS_SHARED:
        return c == CAPTURE_OP_LDGSTS;
    case CAPTURE_RAW_MATRIX:
        return c == CAPTURE_OP_SHARED;
    case CAPTURE_RAW_BARRIER:
        return c == CAPTURE_OP_BARRIER;
    case CAPTURE_RAW_SHFL:
        return c == CAPTURE_OP_SHFL;
    default:
        return false;
    }
}

static bool valid_size(unsigned s)
{
    return s == 1 || s == 2 || s == 4 || s == 8 || s == 16;
}

/* Message prefix for a record: "launch 3 (k): record 17: ". */
#define FAIL(...)                                                                                   \
    do {                                                                                            \
        err_set(err, __VA_ARGS__);                                                                  \
        err_prefix(err, "launch %u (%s): record %" PRIu64, d->l.launch, d->l.name, slot);         \
        return -1;                                                                                  \
    } while (0)

int capture_decode(capture_decoder *d, const capture_raw_rec *raw, uint64_t slot, capture_out *out,
                   err_info *err)
{
    if (raw->tag != d->l.tag)
        FAIL("the slot was claimed but never written (tag 0x%08x, expected 0x%08x)", raw->tag, d->l.tag);
    unsigned type = raw->type;
    if (type == CAPTURE_RAW_NONE || type >= CAPTURE_RAW_TYPE_COUNT)
        FAIL("unknown record type %u", type);
    if (d->ldgsts_open && type != CAPTURE_RAW_LDGSTS_SHARED)
        FAIL("the cp.async global read before it has no shared write");
    uint32_t mask = raw->active_mask;
    if (mask == 0)
        FAIL("active mask is 0");
    if (raw->cta >= d->ctas)
        FAIL("CTA %u is outside the grid (%" PRIu64 " CTAs)", raw->cta, d->ctas);
    if (raw->warp >= d->warps_per_cta)
        FAIL("warp %u is outside the CTA (%u warps)", raw->warp, d->warps_per_cta);
    if (raw->warp == d->warps_per_cta - 1 && (mask & ~d->last_warp_mask))
        FAIL("active mask 0x%08x has lanes beyond the CTA's last thread (0x%08x)", mask, d->last_warp_mask);
    if (raw->sm > (uint32_t)INT32_MAX)
        FAIL("SM id %u is out of range", raw->sm);

    /* where the instruction is, and what the listing says it is */
    uint32_t pc;
    const capture_pc_slot *ps = NULL;
    if (raw->pc >= d->l.code_pc && raw->pc - d->l.code_pc < d->l.code_bytes) {
        uint64_t off = raw->pc - d->l.code_pc;
        pc = (uint32_t)off;
        if (d->map && d->map->has_sass) {
            uint64_t i = off / CAPTURE_SASS_INST_BYTES;
            if (off % CAPTURE_SASS_INST_BYTES || i >= d->map->n_slots || !d->map->slots[i].known)
                FAIL("pc 0x%04x is not at an instruction of the kernel's listing", pc);
            ps = &d->map->slots[i];
            if (d->seen)
                d->seen[i] = 1;
        }
    } else {
        /* separately compiled device code (-rdc): kept, with the offset taken
         * modulo 2^32, but nothing can be learned from SASS */
        pc = (uint32_t)(raw->pc - d->l.code_pc);
        d->n_outside_code++;
    }
    if (ps && !class_fits(type, (capture_op_class)ps->op.op_class)) {
        if (ps->op.op_class != CAPTURE_OP_OTHER)
            FAIL("a %s at pc 0x%04x, whose opcode is a %s instruction: the PC mapping is wrong",
                 raw_type_name(type), pc, capture_op_class_name((capture_op_class)ps->op.op_class));
        /* an opcode the table does not know as a memory instruction: keep
         * what the API reported, refine nothing, let the caller say so */
        if (d->n_unknown_opcode++ == 0)
            d->first_unknown_pc = pc;
        ps = NULL;
    }

    memset(out, 0, sizeof *out);
    if (type == CAPTURE_RAW_BARRIER || type == CAPTURE_RAW_SHFL) {
        out->type = CAPTURE_OUT_BARRIER;
        out->barrier.cta = raw->cta;
        out->barrier.warp = raw->warp;
        out->barrier.sm = (int32_t)raw->sm;
        out->barrier.pc = pc;
        out->barrier.kind = type == CAPTURE_RAW_SHFL ? TRACE_BAR_SHFL : TRACE_BAR_SYNC;
        d->n_barrier++;
        return 0;
    }

    trace_mem *m = &out->mem;
    unsigned size = raw->size_bytes;
    unsigned rw = raw->flags & (CAPTURE_SAN_READ | CAPTURE_SAN_WRITE);
    m->cache_op = TRACE_CACHE_DEFAULT;

    switch (type) {
    case CAPTURE_RAW_GLOBAL:
    case CAPTURE_RAW_SHARED:
    case CAPTURE_RAW_LOCAL:
        if (raw->flags & CAPTURE_SAN_PREFETCH) {
            out->type = CAPTURE_OUT_SKIP;
            d->n_prefetch++;
            return 0;
        }
        if (rw == 0)
            FAIL("flags 0x%x say neither read nor write", raw->flags);
        m->space = type == CAPTURE_RAW_GLOBAL ? TRACE_SPACE_GLOBAL
                   : type == CAPTURE_RAW_SHARED ? TRACE_SPACE_SHARED : TRACE_SPACE_LOCAL;
        if (rw == CAPTURE_SAN_READ)
            m->kind = TRACE_KIND_LD;
        else if (rw == CAPTURE_SAN_WRITE)
            m->kind = TRACE_KIND_ST;
        else
            m->kind = ps && ps->op.red ? TRACE_KIND_RED : TRACE_KIND_ATOM;
        if (m->space == TRACE_SPACE_LOCAL && rw == (CAPTURE_SAN_READ | CAPTURE_SAN_WRITE))
            FAIL("an atomic on local memory");
        if (ps && ps->op.op_class == CAPTURE_OP_GENERIC)
            m->flags |= TRACE_MEM_GENERIC;
        if (ps && m->space != TRACE_SPACE_SHARED && !ps->op.atomic)
            m->cache_op = ps->op.cache_op;
        break;
    case CAPTURE_RAW_LDGSTS_GLOBAL:
        if (size != 4 && size != 8 && size != 16)
            FAIL("cp.async size %u (expected 4, 8 or 16)", size);
        m->space = TRACE_SPACE_GLOBAL;
        m->kind = TRACE_KIND_LD;
        m->flags = TRACE_MEM_LDGSTS;
        if (ps)
            m->cache_op = ps->op.cache_op;
        d->ldgsts_open = true;
        d->ldgsts_pc = raw->pc;
        d->ldgsts_cta = raw->cta;
        d->ldgsts_warp = raw->warp;
        d->ldgsts_mask = mask;
        break;
    case CAPTURE_RAW_LDGSTS_SHARED:
        if (!d->ldgsts_open || d->ldgsts_pc != raw->pc || d->ldgsts_cta != raw->cta ||
            d->ldgsts_warp != raw->warp || d->ldgsts_mask != mask)
            FAIL("a cp.async shared write that does not follow its global read");
        if (size != 4 && size != 8 && size != 16)
            FAIL("cp.async size %u (expected 4, 8 or 16)", size);
        d->ldgsts_open = false;
        m->space = TRACE_SPACE_SHARED;
        m->kind = TRACE_KIND_ST;
        m->flags = TRACE_MEM_LDGSTS;
        break;
    case CAPTURE_RAW_MATRIX: {
        unsigned count = raw->count;
        if (count != 1 && count != 2 && count != 4)
            FAIL("ldmatrix/stmatrix count %u (expected 1, 2 or 4)", count);
        if (size != 16)
            FAIL("ldmatrix/stmatrix row size %u (expected 16)", size);
        if (rw != CAPTURE_SAN_READ && rw != CAPTURE_SAN_WRITE)
            FAIL("ldmatrix/stmatrix flags 0x%x (expected read or write)", raw->flags);
        uint32_t rows = count == 4 ? TRACE_FULL_MASK : (1u << (8 * count)) - 1;
        mask &= rows;
        if (mask == 0)
            FAIL("ldmatrix/stmatrix of %u matrices with no active lane among the first %u", count, 8 * count);
        m->space = TRACE_SPACE_SHARED;
        m->kind = rw == CAPTURE_SAN_READ ? TRACE_KIND_LD : TRACE_KIND_ST;
        break;
    }
    default:
        FAIL("unknown record type %u", type);
    }
    if (!valid_size(size))
        FAIL("access size %u (expected 1, 2, 4, 8 or 16)", size);

    m->cta = raw->cta;
    m->warp = raw->warp;
    m->sm = (int32_t)raw->sm;
    m->pc = pc;
    m->size_bytes = (uint8_t)size;
    m->active_mask = mask;
    for (unsigned l = 0; l < TRACE_WARP_LANES; l++) {
        if (!(mask >> l & 1u))
            continue; /* inactive lanes stay 0: the device never wrote them */
        uint64_t a = raw->addr[l];
        if (a % size)
            FAIL("lane %u: address 0x%" PRIx64 " is not aligned to the access size %u", l, a, size);
        m->addr[l] = a;
    }
    out->type = CAPTURE_OUT_MEM;
    d->n_mem++;
    return 0;
}

int capture_decoder_finish(capture_decoder *d, err_info *err)
{
    if (d->ldgsts_open) {
        err_set(err, "launch %u (%s): the last cp.async global read has no shared write", d->l.launch,
                d->l.name);
        return -1;
    }
    return 0;
}
