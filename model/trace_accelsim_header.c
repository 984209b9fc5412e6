/* trace_accelsim_header.c - the header of a .traceg: the "-key = value"
 * lines up to "#traces format" (or any other '#' line, as Accel-Sim reads
 * it). Every key the tracer writes is known (an unknown or repeated key is an
 * error, not ignored); the required ones are checked, and tracer versions before 3 (thread block and warp on every line)
 * are refused by name. The values are parsed only: what they mean for the
 * trace (launch, registers, shared memory, cc) is trace_accelsim_kernel.c's. */
#include "trace_accelsim_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- the kernel header -------------------------------------------------------- */

static const char *const header_keys[H_COUNT] = {
    "kernel name", "kernel id", "grid dim", "block dim", "shmem", "nregs", "binary version",
    "cuda stream id", "shmem base_addr", "local mem base_addr", "nvbit version",
    "accelsim tracer version", "enable lineinfo", "warp size",
};

static bool parse_dim3(const char *s, uint32_t d[3])
{
    char tail;
    unsigned long long x, y, z;
    if (sscanf(s, "(%llu,%llu,%llu%c", &x, &y, &z, &tail) != 4 || tail != ')' ||
        s[strlen(s) - 1] != ')' || strchr(s, '-') || x > UINT32_MAX || y > UINT32_MAX ||
        z > UINT32_MAX)
        return false;
    /* nothing after the ')' */
    if (strchr(s, ')') != s + strlen(s) - 1)
        return false;
    d[0] = (uint32_t)x, d[1] = (uint32_t)y, d[2] = (uint32_t)z;
    return true;
}

/* One "-key = value" line. */
static int header_line(kheader *h, char *line, err_info *err)
{
    char sh[64];
    char *eq = strchr(line, '=');
    if (!eq) {
        err_set(err, "header line '%s' has no '=' (expected '-key = value')",
                trace_accelsim_shown(line, sh));
        return -1;
    }
    *eq = '\0';
    char *key = line + 1, *val = eq + 1;
    trace_accelsim_trim(&key);
    trace_accelsim_trim(&val);
    int k = 0;
    while (k < H_COUNT && strcmp(key, header_keys[k]) != 0)
        k++;
    if (k == H_COUNT) {
        err_set(err,
                "unknown header key '%s' (expected kernel name, kernel id, grid dim, block "
                "dim, shmem, nregs, binary version, cuda stream id, shmem base_addr, local mem "
                "base_addr, nvbit version, accelsim tracer version, enable lineinfo, warp size)",
                trace_accelsim_shown(key, sh));
        return -1;
    }
    if (h->seen[k]) {
        err_set(err, "header key '%s' given twice", header_keys[k]);
        return -1;
    }
    h->seen[k] = true;
    uint64_t v = 0;
    bool ok = true;
    switch (k) {
    case H_NAME:
        ok = *val != '\0' && strlen(val) <= TRACE_MAX_STRING_BYTES;
        if (ok)
            h->name = xstrdup(val);
        break;
    case H_ID:
        ok = trace_accelsim_parse_dec(val, UINT32_MAX, &v) && v >= 1;
        h->id = v;
        break;
    case H_GRID:
        ok = parse_dim3(val, h->grid);
        break;
    case H_BLOCK:
        ok = parse_dim3(val, h->block);
        break;
    case H_SHMEM:
        ok = trace_accelsim_parse_dec(val, UINT32_MAX, &v);
        h->shmem = (uint32_t)v;
        break;
    case H_NREGS:
        ok = trace_accelsim_parse_dec(val, UINT32_MAX, &v);
        h->nregs = (uint32_t)v;
        break;
    case H_BINARY:
        ok = trace_accelsim_parse_sdec(val, &h->binary_version);
        break;
    case H_STREAM:
        ok = trace_accelsim_parse_dec(val, UINT64_MAX, &v);
        break;
    case H_SHMEM_BASE:
        ok = trace_accelsim_parse_hex(val, UINT64_MAX, &h->shmem_base);
        break;
    case H_LOCAL_BASE:
        ok = trace_accelsim_parse_hex(val, UINT64_MAX, &h->local_base);
        break;
    case H_NVBIT:
        ok = strlen(val) < sizeof h->nvbit;
        if (ok)
            snprintf(h->nvbit, sizeof h->nvbit, "%s", val);
        break;
    case H_TRACER:
        ok = trace_accelsim_parse_dec(val, UINT32_MAX, &h->tracer_version);
        break;
    case H_LINEINFO:
        ok = trace_accelsim_parse_dec(val, 1, &v);
        h->lineinfo = v == 1;
        break;
    case H_WARP_SIZE:
        ok = trace_accelsim_parse_dec(val, UINT32_MAX, &v) && v == TRACE_WARP_LANES;
        break;
    }
    if (!ok) {
        static const char *const expected[H_COUNT] = {
            [H_NAME] = "a name of 1 to 65536 bytes",
            [H_ID] = "a decimal number from 1",
            [H_GRID] = "(X,Y,Z)",
            [H_BLOCK] = "(X,Y,Z)",
            [H_SHMEM] = "bytes, a decimal number",
            [H_NREGS] = "a decimal number",
            [H_BINARY] = "a decimal number",
            [H_STREAM] = "a decimal number",
            [H_SHMEM_BASE] = "a hexadecimal address",
            [H_LOCAL_BASE] = "a hexadecimal address",
            [H_NVBIT] = "a version of at most 63 bytes",
            [H_TRACER] = "a decimal number",
            [H_LINEINFO] = "0 or 1",
            [H_WARP_SIZE] = "32",
        };
        err_set(err, "%s = '%s' (expected %s)", header_keys[k], trace_accelsim_shown(val, sh),
                expected[k]);
        return -1;
    }
    return 0;
}

/* Read the header up to the "#traces format" line (any '#' line but a thread
 * block's). */
int trace_accelsim_read_header(line_rd *r, const char *path, kheader *h, err_info *err)
{
    char *line;
    int rc;
    char sh[64];
    while ((rc = trace_accelsim_rd_line(r, path, &line, err)) == 1) {
        char *s = line;
        trace_accelsim_trim(&s);
        if (!*s)
            continue;
        if (*s == '#') {
            /* The tracer writes "#traces format = ..."; Accel-Sim's reader
             * (trace_parser.cc, parse_kernel_info) ends the header at any '#'
             * line, and hand-made kernels use a bare "#": so do we, but a
             * thread block right after the header means the line is missing. */
            if (strcmp(s, "#BEGIN_TB") == 0 || strcmp(s, "#END_TB") == 0)
                return trace_accelsim_fail_at(err, path, r->line,
                                              "'%s' (expected the '#traces format' line "
                                              "after the kernel header)",
                                              trace_accelsim_shown(s, sh));
            break;
        }
        if (*s != '-')
            return trace_accelsim_fail_at(err, path, r->line,
                                          "'%s' (expected a header line '-key = value' or "
                                          "the '#traces format' line)",
                                          trace_accelsim_shown(s, sh));
        if (header_line(h, s, err) < 0)
            return trace_accelsim_place(err, path, r->line);
    }
    if (rc < 0)
        return -1;
    if (rc == 0)
        return trace_accelsim_fail_at(err, path, r->line,
                                      "the file ends in the kernel header (expected the "
                                      "'#traces format' line, then the thread blocks)");
    static const int required[] = {H_NAME, H_ID, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_TRACER};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!h->seen[required[i]])
            return trace_accelsim_fail_at(err, path, r->line,
                                          "the kernel header has no '-%s = ' line",
                                          header_keys[required[i]]);
    if (h->tracer_version < 3)
        return trace_accelsim_fail_at(err, path, 0,
                                      "accelsim tracer version %" PRIu64 " (expected 3 or later: "
                                      "older traces carry thread block and warp on every line)",
                                      h->tracer_version);
    return 0;
}

