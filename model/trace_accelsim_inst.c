/* trace_accelsim_inst.c - one instruction line of a .traceg (tracer version 3
 * and later):
 *   [line] PC mask dest_num [R..] OPCODE src_num [R..] mem_width [mode addrs] [imm [imm2]]
 * parsed and checked field by field, the addresses decompressed (list_all,
 * base_stride, base_delta) into one address per active lane, and the opcode
 * classified: memory (kind, space, cache operator, by the rules of the
 * capture tool), barrier, or other (skipped by the import).
 *
 * Not here: what the addresses mean (the space of a generic access, the
 * shared and local windows) is resolved when the record is made
 * (trace_accelsim_replay.c); the same PC carrying one opcode is checked by the
 * PC table (trace_accelsim_kernel.c). */
#include "trace_accelsim_int.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#define MAX_REG_OPERANDS 8u      /* the tracer's MAX_DST is 1, MAX_SRC 5 */
#define MAX_IMMEDIATES 2u        /* version 5 prints one, version 6 may print two */

/* ---- opcodes ---------------------------------------------------------------------- */

static bool has_part(char *const parts[], size_t n, const char *s)
{
    for (size_t i = 1; i < n; i++)
        if (strcmp(parts[i], s) == 0)
            return true;
    return false;
}

static bool has_strong(char *const parts[], size_t n, const char *scope)
{
    for (size_t i = 1; i + 1 < n; i++)
        if (strcmp(parts[i], "STRONG") == 0 && strcmp(parts[i + 1], scope) == 0)
            return true;
    return false;
}

/* The cache operator of a load or store, by the rules of the capture tool
 * (capture/host/capture_sass.c; measured on sm_90, hardware-facts.md): a
 * .SYS without .STRONG (Volta/Turing's plain loads) is the default. */
static trace_cache_op cache_of(char *const parts[], size_t n)
{
    if (has_strong(parts, n, "SYS"))
        return TRACE_CACHE_CV;
    if (has_strong(parts, n, "GPU"))
        return TRACE_CACHE_CG;
    if (has_part(parts, n, "CONSTANT"))
        return TRACE_CACHE_NC;
    if (has_part(parts, n, "LU"))
        return TRACE_CACHE_LU;
    if (has_part(parts, n, "EF"))
        return TRACE_CACHE_CS;
    if (has_strong(parts, n, "SM"))
        return TRACE_CACHE_CA;
    return TRACE_CACHE_DEFAULT;
}

#define KNOWN_MEMORY_OPCODES "LDG, STG, ATOMG, REDG, LD, ST, ATOM, RED, LDS, STS, LDSM, STSM, " \
                             "ATOMS, LDL, STL, LDGSTS"

static op_info classify(const char *opcode)
{
    char op[MAX_OPCODE_BYTES];
    snprintf(op, sizeof op, "%s", opcode);
    char *parts[MAX_OPCODE_BYTES / 2];
    size_t n = 0;
    for (char *p = op, *dot; n < sizeof parts / sizeof parts[0]; p = dot + 1) {
        parts[n++] = p;
        dot = strchr(p, '.');
        if (!dot)
            break;
        *dot = '\0';
    }
    const char *b = parts[0];
    op_info o = {OPC_MEMORY, TRACE_KIND_LD, OPS_GLOBAL, TRACE_CACHE_DEFAULT, 0};
    if (!strcmp(b, "LDG") || !strcmp(b, "STG")) {
        o.kind = b[0] == 'L' ? TRACE_KIND_LD : TRACE_KIND_ST;
        o.cache = cache_of(parts, n);
    } else if (!strcmp(b, "ATOMG") || !strcmp(b, "REDG")) {
        o.kind = b[0] == 'A' ? TRACE_KIND_ATOM : TRACE_KIND_RED;
    } else if (!strcmp(b, "LD") || !strcmp(b, "ST")) {
        o.kind = b[0] == 'L' ? TRACE_KIND_LD : TRACE_KIND_ST;
        o.space = OPS_GENERIC;
        o.cache = cache_of(parts, n);
    } else if (!strcmp(b, "ATOM") || !strcmp(b, "RED")) {
        o.kind = b[0] == 'A' ? TRACE_KIND_ATOM : TRACE_KIND_RED;
        o.space = OPS_GENERIC;
    } else if (!strcmp(b, "LDS") || !strcmp(b, "LDSM") || !strcmp(b, "STS") ||
               !strcmp(b, "STSM")) {
        o.kind = b[0] == 'L' ? TRACE_KIND_LD : TRACE_KIND_ST;
        o.space = OPS_SHARED;
    } else if (!strcmp(b, "ATOMS")) {
        o.kind = TRACE_KIND_ATOM;
        o.space = OPS_SHARED;
    } else if (!strcmp(b, "LDL") || !strcmp(b, "STL")) {
        o.kind = b[1] == 'D' ? TRACE_KIND_LD : TRACE_KIND_ST;
        o.space = OPS_LOCAL;
        o.cache = cache_of(parts, n);
    } else if (!strcmp(b, "LDGSTS")) {
        o.space = OPS_LDGSTS;
        o.cache = has_part(parts, n, "BYPASS") ? TRACE_CACHE_CG : TRACE_CACHE_CA;
    } else if (!strcmp(b, "BAR") && n > 1 &&
               (!strcmp(parts[1], "SYNC") || !strcmp(parts[1], "RED"))) {
        o.cls = OPC_BARRIER;
    } else {
        o.cls = OPC_OTHER;
    }
    if (o.cls == OPC_MEMORY)
        o.signed_bytes = has_part(parts, n, "S8") ? 1 : has_part(parts, n, "S16") ? 2 : 0;
    return o;
}

/* ---- one instruction line ------------------------------------------------------ */

static bool is_register(const char *t)
{
    if (!isupper((unsigned char)*t))
        return false;
    while (isupper((unsigned char)*t))
        t++;
    uint64_t v;
    return trace_accelsim_parse_dec(t, UINT32_MAX, &v);
}

/* Parse line s (modified in place) into in. Fails with a bare message. */
int trace_accelsim_parse_inst(char *s, const kheader *h, inst *in, err_info *err)
{
    char sh[64];
    char *p = s, *t;
    uint64_t v;
    memset(in->addr, 0, sizeof in->addr);
    in->src_line = 0;
    if (h->lineinfo) {
        t = trace_accelsim_next_tok(&p);
        if (!trace_accelsim_parse_dec(t, UINT32_MAX, &v)) {
            err_set(err,
                    "'%s' (expected the source line number: the header says enable "
                    "lineinfo = 1)",
                    trace_accelsim_shown(t ? t : "", sh));
            return -1;
        }
        in->src_line = (uint32_t)v;
    }
    t = trace_accelsim_next_tok(&p);
    if (!trace_accelsim_parse_hex(t, UINT32_MAX, &v)) {
        err_set(err, "PC '%s' (expected a hexadecimal PC below 2^32)",
                trace_accelsim_shown(t ? t : "", sh));
        return -1;
    }
    in->pc = (uint32_t)v;
    t = trace_accelsim_next_tok(&p);
    if (!trace_accelsim_parse_hex(t, UINT32_MAX, &v)) {
        err_set(err, "active mask '%s' (expected 8 hexadecimal digits)",
                trace_accelsim_shown(t ? t : "", sh));
        return -1;
    }
    in->mask = (uint32_t)v;
    for (int side = 0; side < 2; side++) {
        t = trace_accelsim_next_tok(&p);
        if (!trace_accelsim_parse_dec(t, MAX_REG_OPERANDS, &v)) {
            err_set(err, "'%s' (expected the number of %s registers, 0..%u)",
                    trace_accelsim_shown(t ? t : "", sh), side ? "source" : "destination",
                    MAX_REG_OPERANDS);
            return -1;
        }
        for (uint64_t i = 0; i < v; i++) {
            char *reg = trace_accelsim_next_tok(&p);
            if (!reg || !is_register(reg)) {
                err_set(err, "'%s' (expected %s register %" PRIu64 " of %" PRIu64 ", e.g. R12)",
                        trace_accelsim_shown(reg ? reg : "", sh), side ? "source" : "destination",
                        i + 1, v);
                return -1;
            }
        }
        if (side == 0) {
            t = trace_accelsim_next_tok(&p);
            if (!t || !isupper((unsigned char)*t) || strlen(t) >= MAX_OPCODE_BYTES) {
                err_set(err,
                        "opcode '%s' (expected a SASS opcode such as LDG.E.128, of at most "
                        "%u bytes)",
                        trace_accelsim_shown(t ? t : "", sh), MAX_OPCODE_BYTES - 1);
                return -1;
            }
            in->opcode = t;
            in->op = classify(t);
        }
    }
    t = trace_accelsim_next_tok(&p);
    if (!trace_accelsim_parse_dec(t, UINT32_MAX, &v)) {
        err_set(err, "mem_width '%s' (expected bytes per thread, 0 for no memory access)",
                trace_accelsim_shown(t ? t : "", sh));
        return -1;
    }
    in->mem_width = (uint32_t)v;
    in->size_bytes = in->mem_width;
    if (in->mem_width > 0 && in->op.cls != OPC_MEMORY) {
        err_set(err, "opcode %s carries memory addresses (mem_width %" PRIu32 ") but is not an "
                "instruction gpumemsim imports (expected one of " KNOWN_MEMORY_OPCODES ")",
                in->opcode, in->mem_width);
        return -1;
    }
    if (in->op.cls == OPC_MEMORY) {
        uint32_t w = in->mem_width;
        if (w != 1 && w != 2 && w != 4 && w != 8 && w != 16) {
            err_set(err, "%s: mem_width %" PRIu32 " (expected 1, 2, 4, 8 or 16 bytes per thread)",
                    in->opcode, w);
            return -1;
        }
        /* the tracer writes 4 for .S8 and .S16 (tracer_tool.cu,
         * get_datawidth_from_opcode): a signed byte load at an odd address
         * would be a misaligned 4-byte access */
        if (in->op.signed_bytes && w != in->op.signed_bytes) {
            if (w != 4) {
                err_set(err, "%s: mem_width %" PRIu32 " (expected %" PRIu32 ", or 4 as the "
                        "tracer writes for a signed sub-word access)", in->opcode, w,
                        in->op.signed_bytes);
                return -1;
            }
            in->size_bytes = in->op.signed_bytes;
        }
        t = trace_accelsim_next_tok(&p);
        uint64_t mode;
        if (!trace_accelsim_parse_dec(t, 2, &mode)) {
            err_set(err,
                    "address mode '%s' (expected 0 list_all, 1 base_stride or 2 "
                    "base_delta)",
                    trace_accelsim_shown(t ? t : "", sh));
            return -1;
        }
        unsigned active = (unsigned)__builtin_popcount(in->mask);
        if (mode == 0) {
            for (unsigned l = 0; l < TRACE_WARP_LANES; l++) {
                if (!(in->mask >> l & 1u))
                    continue;
                t = trace_accelsim_next_tok(&p);
                if (!trace_accelsim_parse_hex(t, UINT64_MAX, &in->addr[l])) {
                    err_set(err,
                            "list_all: '%s' (expected the hexadecimal address of lane %u; "
                            "the mask has %u active lanes)",
                            trace_accelsim_shown(t ? t : "", sh), l, active);
                    return -1;
                }
            }
        } else {
            uint64_t base;
            t = trace_accelsim_next_tok(&p);
            if (!trace_accelsim_parse_hex(t, UINT64_MAX, &base)) {
                err_set(err, "%s: '%s' (expected a hexadecimal base address)",
                        mode == 1 ? "base_stride" : "base_delta",
                        trace_accelsim_shown(t ? t : "", sh));
                return -1;
            }
            int64_t step = 0;
            if (mode == 1) {
                t = trace_accelsim_next_tok(&p);
                if (!trace_accelsim_parse_sdec(t, &step)) {
                    err_set(err, "base_stride: stride '%s' (expected a signed decimal number)",
                            trace_accelsim_shown(t ? t : "", sh));
                    return -1;
                }
                if (in->mask) {
                    unsigned first = (unsigned)__builtin_ctz(in->mask);
                    uint64_t run = in->mask >> first;
                    if (run & (run + 1)) {
                        err_set(err, "base_stride with active mask %08" PRIx32 " (expected the "
                                "active lanes in one run, as the tracer writes it)", in->mask);
                        return -1;
                    }
                }
            }
            uint64_t a = base;
            bool first = true;
            for (unsigned l = 0; l < TRACE_WARP_LANES; l++) {
                if (!(in->mask >> l & 1u))
                    continue;
                if (!first) {
                    if (mode == 2) {
                        t = trace_accelsim_next_tok(&p);
                        if (!trace_accelsim_parse_sdec(t, &step)) {
                            err_set(err,
                                    "base_delta: '%s' (expected the signed decimal delta "
                                    "of lane %u from the previous active lane; the mask has %u "
                                    "active lanes)",
                                    trace_accelsim_shown(t ? t : "", sh), l, active);
                            return -1;
                        }
                    }
                    a += (uint64_t)step;
                }
                in->addr[l] = a;
                first = false;
            }
        }
    }
    for (unsigned i = 0; (t = trace_accelsim_next_tok(&p)) != NULL; i++) {
        int64_t imm;
        if (i >= MAX_IMMEDIATES || !trace_accelsim_parse_sdec(t, &imm)) {
            err_set(err,
                    "'%s' after the %s (expected at most %u decimal immediates, then the "
                    "end of the line)",
                    trace_accelsim_shown(t, sh), in->mem_width ? "addresses" : "mem_width",
                    MAX_IMMEDIATES);
            return -1;
        }
    }
    return 0;
}

