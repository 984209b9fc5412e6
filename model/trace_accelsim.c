/* trace_accelsim.c - Accel-Sim trace collections (kernelslist.g and
 * kernel-N.traceg[.xz] of the NVBit tracer, versions 3 and later) to a
 * gpumemsim trace. The format, what maps to what and the interleaving rule are
 * in docs/accelsim.md; the interface is trace_accelsim.h.
 *
 * Per kernel file, two passes:
 *  1. read the header and every line once: check the structure (thread
 *     blocks, warps, insts = N and exactly N instruction lines) and every
 *     instruction line, collect the PC table, and index each warp's block of
 *     lines by byte offset (32 bytes per warp, whatever the file size);
 *  2. replay the kernel's CTAs on sm_count SMs, ctas_per_sm resident at a
 *     time, every resident warp reading its own block of lines by offset
 *     (pread, one line buffer per resident warp) and issuing one instruction
 *     per round; memory instructions and barriers become records.
 * A .xz kernel is first decompressed into an unlinked temporary file.
 *
 * Not modelled: timing (the order is plausible, not measured), SM ids (records
 * say unknown; gpu.c then places CTA c on SM c mod sm_count, as pass 2 does),
 * named barriers of fewer threads (every BAR.SYNC is a CTA barrier; a barrier
 * opens when every warp still running has arrived, so nothing can deadlock). */
#include "trace_accelsim.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <lzma.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

/* NVBit: "shmem range is [shmem_base_addr, shmem_base_addr+16MB)", and the
 * same for local memory (nvbit.h, nvbit_get_shmem_base_addr). */
#define WINDOW_BYTES ((uint64_t)16 << 20)
#define MAX_REG_OPERANDS 8u      /* the tracer's MAX_DST is 1, MAX_SRC 5 */
#define MAX_OPCODE_BYTES 128u
#define MAX_IMMEDIATES 2u        /* version 5 prints one, version 6 may print two */
#define PASS1_BUF_BYTES (1u << 16)
/* a line of ACCELSIM_MAX_LINE_BYTES with its newline, and the NUL put after it */
#define RD_BUF_BYTES (ACCELSIM_MAX_LINE_BYTES + 1u)
#define XZ_MEMLIMIT ((uint64_t)256 << 20)
/* the trace reader's limit on one kernel's table strings (TRACE_MAX_TABLE_BYTES) */
#define TABLE_BYTES_LIMIT ((uint64_t)64 << 20)
#define LINEINFO_FILE "(source file not recorded: the Accel-Sim tracer gives line numbers only)"

/* H200 limits for the derived occupancy (configs/h200.ini, as cmd_synth.c). */
#define H200_WARPS_PER_SM 64u
#define H200_REGS_PER_SM 65536u
#define H200_MAX_CTAS_PER_SM 32u
#define H200_SMEM_PER_SM (228u * 1024u)
#define H200_SMEM_RESERVED 1024u
#define MAX_REGS_PER_THREAD 255u

/* ---- messages ----------------------------------------------------------------- */

static int fail_at(err_info *err, const char *path, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int fail_at(err_info *err, const char *path, uint64_t line, const char *fmt, ...)
{
    if (err) {
        char msg[ERR_MSG_BYTES];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (line)
            err_set(err, "%s:%" PRIu64 ": %s", path, line, msg);
        else
            err_set(err, "%s: %s", path, msg);
    }
    return -1;
}

/* A message from a helper, placed at path:line. */
static int place(err_info *err, const char *path, uint64_t line)
{
    if (line)
        err_prefix(err, "%s:%" PRIu64, path, line);
    else
        err_prefix(err, "%s", path);
    return -1;
}

/* Quote at most 40 bytes of untrusted text, control bytes escaped. */
static const char *shown(const char *s, char out[64])
{
    size_t o = 0;
    for (; *s && o < 40; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c >= 0x7f) {
            snprintf(out + o, 5, "\\x%02x", c);
            o += 4;
        } else {
            out[o++] = (char)c;
        }
    }
    if (*s)
        out[o++] = '.', out[o++] = '.', out[o++] = '.';
    out[o] = '\0';
    return out;
}

/* ---- lines from a file descriptor, by offset ---------------------------------- */

typedef struct line_rd {
    int fd;
    char *buf;
    size_t cap, pos, end;
    size_t max_line;   /* a partial line this long without its newline is too long */
    uint64_t file_off; /* file offset of buf[0] */
    uint64_t line;     /* number of the line last returned */
    bool eof;
} line_rd;

static void rd_seek(line_rd *r, uint64_t off, uint64_t line)
{
    r->file_off = off;
    r->pos = r->end = 0;
    r->line = line;
    r->eof = false;
}

/* The offset of the next line. */
static uint64_t rd_tell(const line_rd *r)
{
    return r->file_off + r->pos;
}

/* Next line, NUL-terminated in place without its "\n" (and "\r"): 1, or 0 at
 * the end of the file, or -1 (too long, NUL byte, read error). */
static int rd_line(line_rd *r, const char *path, char **out, err_info *err)
{
    for (;;) {
        char *nl = memchr(r->buf + r->pos, '\n', r->end - r->pos);
        if (nl || (r->eof && r->end > r->pos)) {
            char *s = r->buf + r->pos;
            size_t len = nl ? (size_t)(nl - s) : r->end - r->pos;
            r->line++;
            if (len + (nl != NULL) > r->max_line)
                return fail_at(err, path, r->line, "line longer than %zu bytes (the limit of "
                               "gpumemsim's Accel-Sim import)", r->max_line);
            if (nl)
                r->pos += len + 1;
            else
                r->pos = r->end;
            if (memchr(s, '\0', len))
                return fail_at(err, path, r->line, "NUL byte in a line (expected text)");
            if (len > 0 && s[len - 1] == '\r')
                len--;
            s[len] = '\0'; /* the '\n', or the byte after the data (cap has room) */
            *out = s;
            return 1;
        }
        if (r->eof)
            return 0;
        if (r->end - r->pos >= r->max_line)
            return fail_at(err, path, r->line + 1, "line longer than %zu bytes (the limit of "
                           "gpumemsim's Accel-Sim import)", r->max_line);
        /* move the partial line to the front and read more */
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->file_off += r->pos;
        r->end -= r->pos;
        r->pos = 0;
        ssize_t n = pread(r->fd, r->buf + r->end, r->cap - 1 - r->end,
                          (off_t)(r->file_off + r->end));
        if (n < 0)
            return fail_at(err, path, 0, "read error: %s", strerror(errno));
        if (n == 0)
            r->eof = true;
        r->end += (size_t)n;
    }
}

/* ---- numbers -------------------------------------------------------------------- */

static char *next_tok(char **p)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s) {
        *p = s;
        return NULL;
    }
    char *t = s;
    while (*s && *s != ' ' && *s != '\t')
        s++;
    if (*s)
        *s++ = '\0';
    *p = s;
    return t;
}

static bool parse_dec(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s))
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (d > max || v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* A signed decimal that fits int64. */
static bool parse_sdec(const char *s, int64_t *out)
{
    if (!s)
        return false;
    bool neg = *s == '-';
    uint64_t v;
    if (!parse_dec(s + neg, neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX, &v))
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Hexadecimal with an optional 0x, at most 16 digits. */
static bool parse_hex(const char *s, uint64_t max, uint64_t *out)
{
    if (!s)
        return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    size_t n = strlen(s);
    if (n == 0 || n > 16)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        int c = (unsigned char)*s, d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        v = v << 4 | (uint64_t)d;
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* ---- opcodes ---------------------------------------------------------------------- */

typedef enum op_space {
    OPS_GLOBAL,
    OPS_SHARED,
    OPS_LOCAL,
    OPS_GENERIC, /* LD/ST/ATOM/RED: by the header's shared and local windows */
    OPS_LDGSTS   /* cp.async: its global read (or, in a shared window, its shared write) */
} op_space;

typedef enum op_class {
    OPC_OTHER,   /* skipped */
    OPC_BARRIER, /* BAR.SYNC, BAR.RED */
    OPC_MEMORY
} op_class;

typedef struct op_info {
    op_class cls;
    trace_kind kind;
    op_space space;
    trace_cache_op cache;
} op_info;

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
    op_info o = {OPC_MEMORY, TRACE_KIND_LD, OPS_GLOBAL, TRACE_CACHE_DEFAULT};
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
    } else if (!strcmp(b, "BAR") && n > 1 && (!strcmp(parts[1], "SYNC") || !strcmp(parts[1], "RED"))) {
        o.cls = OPC_BARRIER;
    } else {
        o.cls = OPC_OTHER;
    }
    return o;
}

/* ---- the kernel header -------------------------------------------------------- */

enum {
    H_NAME, H_ID, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_BINARY, H_STREAM, H_SHMEM_BASE,
    H_LOCAL_BASE, H_NVBIT, H_TRACER, H_LINEINFO, H_WARP_SIZE, H_COUNT
};

static const char *const header_keys[H_COUNT] = {
    "kernel name", "kernel id", "grid dim", "block dim", "shmem", "nregs", "binary version",
    "cuda stream id", "shmem base_addr", "local mem base_addr", "nvbit version",
    "accelsim tracer version", "enable lineinfo", "warp size",
};

typedef struct kheader {
    bool seen[H_COUNT];
    char *name;
    uint64_t id;
    uint32_t grid[3], block[3];
    uint32_t shmem, nregs;
    int64_t binary_version;
    uint64_t tracer_version;
    bool lineinfo;
    uint64_t shmem_base, local_base;
    char nvbit[64];
} kheader;

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

static void trim(char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
    size_t n = strlen(*s);
    while (n > 0 && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t'))
        (*s)[--n] = '\0';
}

/* One "-key = value" line. */
static int header_line(kheader *h, char *line, err_info *err)
{
    char sh[64];
    char *eq = strchr(line, '=');
    if (!eq) {
        err_set(err, "header line '%s' has no '=' (expected '-key = value')", shown(line, sh));
        return -1;
    }
    *eq = '\0';
    char *key = line + 1, *val = eq + 1;
    trim(&key);
    trim(&val);
    int k = 0;
    while (k < H_COUNT && strcmp(key, header_keys[k]) != 0)
        k++;
    if (k == H_COUNT) {
        err_set(err, "unknown header key '%s' (expected kernel name, kernel id, grid dim, block "
                "dim, shmem, nregs, binary version, cuda stream id, shmem base_addr, local mem "
                "base_addr, nvbit version, accelsim tracer version, enable lineinfo, warp size)",
                shown(key, sh));
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
        ok = parse_dec(val, UINT32_MAX, &v) && v >= 1;
        h->id = v;
        break;
    case H_GRID:
        ok = parse_dim3(val, h->grid);
        break;
    case H_BLOCK:
        ok = parse_dim3(val, h->block);
        break;
    case H_SHMEM:
        ok = parse_dec(val, UINT32_MAX, &v);
        h->shmem = (uint32_t)v;
        break;
    case H_NREGS:
        ok = parse_dec(val, UINT32_MAX, &v);
        h->nregs = (uint32_t)v;
        break;
    case H_BINARY:
        ok = parse_sdec(val, &h->binary_version);
        break;
    case H_STREAM:
        ok = parse_dec(val, UINT64_MAX, &v);
        break;
    case H_SHMEM_BASE:
        ok = parse_hex(val, UINT64_MAX, &h->shmem_base);
        break;
    case H_LOCAL_BASE:
        ok = parse_hex(val, UINT64_MAX, &h->local_base);
        break;
    case H_NVBIT:
        ok = strlen(val) < sizeof h->nvbit;
        if (ok)
            snprintf(h->nvbit, sizeof h->nvbit, "%s", val);
        break;
    case H_TRACER:
        ok = parse_dec(val, UINT32_MAX, &h->tracer_version);
        break;
    case H_LINEINFO:
        ok = parse_dec(val, 1, &v);
        h->lineinfo = v == 1;
        break;
    case H_WARP_SIZE:
        ok = parse_dec(val, UINT32_MAX, &v) && v == TRACE_WARP_LANES;
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
        err_set(err, "%s = '%s' (expected %s)", header_keys[k], shown(val, sh), expected[k]);
        return -1;
    }
    return 0;
}

/* Read the header up to the "#traces format" line. */
static int read_header(line_rd *r, const char *path, kheader *h, err_info *err)
{
    char *line;
    int rc;
    char sh[64];
    while ((rc = rd_line(r, path, &line, err)) == 1) {
        char *s = line;
        trim(&s);
        if (!*s)
            continue;
        if (*s == '#') {
            if (strncmp(s, "#traces format", 14) != 0)
                return fail_at(err, path, r->line, "'%s' (expected the '#traces format' line "
                               "after the kernel header)", shown(s, sh));
            break;
        }
        if (*s != '-')
            return fail_at(err, path, r->line, "'%s' (expected a header line '-key = value' or "
                           "the '#traces format' line)", shown(s, sh));
        if (header_line(h, s, err) < 0)
            return place(err, path, r->line);
    }
    if (rc < 0)
        return -1;
    if (rc == 0)
        return fail_at(err, path, r->line, "the file ends in the kernel header (expected the "
                       "'#traces format' line, then the thread blocks)");
    static const int required[] = {H_NAME, H_ID, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_TRACER};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!h->seen[required[i]])
            return fail_at(err, path, r->line, "the kernel header has no '-%s = ' line",
                           header_keys[required[i]]);
    if (h->tracer_version < 3)
        return fail_at(err, path, 0, "accelsim tracer version %" PRIu64 " (expected 3 or later: "
                       "older traces carry thread block and warp on every line)",
                       h->tracer_version);
    return 0;
}

/* ---- one instruction line ------------------------------------------------------ */

typedef struct inst {
    uint32_t src_line; /* with lineinfo, else 0 */
    uint32_t pc;
    uint32_t mask;
    const char *opcode;
    op_info op;
    uint32_t mem_width;
    uint64_t addr[TRACE_WARP_LANES]; /* active lanes; 0 elsewhere */
} inst;

static bool is_register(const char *t)
{
    if (!isupper((unsigned char)*t))
        return false;
    while (isupper((unsigned char)*t))
        t++;
    uint64_t v;
    return parse_dec(t, UINT32_MAX, &v);
}

/* Parse line s (modified in place) into in. Fails with a bare message. */
static int parse_inst(char *s, const kheader *h, inst *in, err_info *err)
{
    char sh[64];
    char *p = s, *t;
    uint64_t v;
    memset(in->addr, 0, sizeof in->addr);
    in->src_line = 0;
    if (h->lineinfo) {
        t = next_tok(&p);
        if (!parse_dec(t, UINT32_MAX, &v)) {
            err_set(err, "'%s' (expected the source line number: the header says enable "
                    "lineinfo = 1)", shown(t ? t : "", sh));
            return -1;
        }
        in->src_line = (uint32_t)v;
    }
    t = next_tok(&p);
    if (!parse_hex(t, UINT32_MAX, &v)) {
        err_set(err, "PC '%s' (expected a hexadecimal PC below 2^32)", shown(t ? t : "", sh));
        return -1;
    }
    in->pc = (uint32_t)v;
    t = next_tok(&p);
    if (!parse_hex(t, UINT32_MAX, &v)) {
        err_set(err, "active mask '%s' (expected 8 hexadecimal digits)", shown(t ? t : "", sh));
        return -1;
    }
    in->mask = (uint32_t)v;
    for (int side = 0; side < 2; side++) {
        t = next_tok(&p);
        if (!parse_dec(t, MAX_REG_OPERANDS, &v)) {
            err_set(err, "'%s' (expected the number of %s registers, 0..%u)",
                    shown(t ? t : "", sh), side ? "source" : "destination", MAX_REG_OPERANDS);
            return -1;
        }
        for (uint64_t i = 0; i < v; i++) {
            char *reg = next_tok(&p);
            if (!reg || !is_register(reg)) {
                err_set(err, "'%s' (expected %s register %" PRIu64 " of %" PRIu64 ", e.g. R12)",
                        shown(reg ? reg : "", sh), side ? "source" : "destination", i + 1, v);
                return -1;
            }
        }
        if (side == 0) {
            t = next_tok(&p);
            if (!t || !isupper((unsigned char)*t) || strlen(t) >= MAX_OPCODE_BYTES) {
                err_set(err, "opcode '%s' (expected a SASS opcode such as LDG.E.128, of at most "
                        "%u bytes)", shown(t ? t : "", sh), MAX_OPCODE_BYTES - 1);
                return -1;
            }
            in->opcode = t;
            in->op = classify(t);
        }
    }
    t = next_tok(&p);
    if (!parse_dec(t, UINT32_MAX, &v)) {
        err_set(err, "mem_width '%s' (expected bytes per thread, 0 for no memory access)",
                shown(t ? t : "", sh));
        return -1;
    }
    in->mem_width = (uint32_t)v;
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
        t = next_tok(&p);
        uint64_t mode;
        if (!parse_dec(t, 2, &mode)) {
            err_set(err, "address mode '%s' (expected 0 list_all, 1 base_stride or 2 "
                     "base_delta)", shown(t ? t : "", sh));
            return -1;
        }
        unsigned active = (unsigned)__builtin_popcount(in->mask);
        if (mode == 0) {
            for (unsigned l = 0; l < TRACE_WARP_LANES; l++) {
                if (!(in->mask >> l & 1u))
                    continue;
                t = next_tok(&p);
                if (!parse_hex(t, UINT64_MAX, &in->addr[l])) {
                    err_set(err, "list_all: '%s' (expected the hexadecimal address of lane %u; "
                            "the mask has %u active lanes)", shown(t ? t : "", sh), l, active);
                    return -1;
                }
            }
        } else {
            uint64_t base;
            t = next_tok(&p);
            if (!parse_hex(t, UINT64_MAX, &base)) {
                err_set(err, "%s: '%s' (expected a hexadecimal base address)",
                        mode == 1 ? "base_stride" : "base_delta", shown(t ? t : "", sh));
                return -1;
            }
            int64_t step = 0;
            if (mode == 1) {
                t = next_tok(&p);
                if (!parse_sdec(t, &step)) {
                    err_set(err, "base_stride: stride '%s' (expected a signed decimal number)",
                            shown(t ? t : "", sh));
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
                        t = next_tok(&p);
                        if (!parse_sdec(t, &step)) {
                            err_set(err, "base_delta: '%s' (expected the signed decimal delta "
                                    "of lane %u from the previous active lane; the mask has %u "
                                    "active lanes)", shown(t ? t : "", sh), l, active);
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
    for (unsigned i = 0; (t = next_tok(&p)) != NULL; i++) {
        int64_t imm;
        if (i >= MAX_IMMEDIATES || !parse_sdec(t, &imm)) {
            err_set(err, "'%s' after the %s (expected at most %u decimal immediates, then the "
                    "end of the line)", shown(t, sh), in->mem_width ? "addresses" : "mem_width",
                    MAX_IMMEDIATES);
            return -1;
        }
    }
    return 0;
}

/* ---- the PC table ----------------------------------------------------------------- */

typedef struct pc_ent {
    uint32_t pc;
    uint32_t src_line;
    char *opcode;
    uint8_t cache;
} pc_ent;

typedef struct pc_table {
    pc_ent *e;
    uint32_t n, cap;
    uint32_t *slot; /* open addressing: index + 1, 0 = empty */
    uint32_t slots; /* a power of two, > 2 n */
    uint64_t bytes;
} pc_table;

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

typedef struct warp_ent {
    uint64_t offset; /* of the line after "insts = N" */
    uint64_t line;   /* number of the "insts = N" line */
    uint64_t insts;
    uint32_t cta, warp;
} warp_ent;

typedef struct kfile {
    const char *path; /* for messages: the kernel file as the list names it */
    int fd;
    kheader h;
    uint64_t body_off, body_line; /* after the header */
    pc_table pcs;
    warp_ent *w;
    uint32_t n_w, cap_w;
    uint32_t *cta_start; /* [ctas + 1]: first index entry of each CTA */
    uint64_t ctas;
    uint32_t warps_per_cta;
    trace_kernel k;
} kfile;

static void kfile_free(kfile *f)
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
    trim(&s);
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
    while ((rc = rd_line(r, f->path, &line, err)) == 1) {
        char *s = line;
        trim(&s);
        if (!*s)
            continue;
        if (st == B_WARP && isxdigit((unsigned char)*s)) {
            if (parse_inst(s, h, &in, err) < 0 || pct_add(&f->pcs, &in, err) < 0)
                return place(err, f->path, r->line);
            if (--left == 0)
                st = B_TB;
            continue;
        }
        if (st == B_WARP)
            return fail_at(err, f->path, r->line, "'%s': warp %" PRIu32 " of thread block "
                           "(%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") has %" PRIu64 " instruction "
                           "lines (expected insts = %" PRIu64 ")", shown(s, sh), warp, tb[0],
                           tb[1], tb[2], declared - left, declared);
        char *v;
        switch (st) {
        case B_OUTSIDE:
            if (strcmp(s, "#BEGIN_TB") != 0)
                return fail_at(err, f->path, r->line, "'%s' (expected #BEGIN_TB)", shown(s, sh));
            st = B_TB_HEAD;
            tb_line = r->line;
            break;
        case B_TB_HEAD: {
            unsigned long long x, y, z;
            char tail;
            v = body_value(s, "thread block");
            if (!v || sscanf(v, "%llu,%llu,%llu%c", &x, &y, &z, &tail) != 3 || strchr(v, '-') ||
                strchr(v, ' '))
                return fail_at(err, f->path, r->line, "'%s' (expected 'thread block = X,Y,Z')",
                               shown(s, sh));
            if (x >= h->grid[0] || y >= h->grid[1] || z >= h->grid[2])
                return fail_at(err, f->path, r->line, "thread block (%llu,%llu,%llu) is outside "
                               "the grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ")", x, y, z,
                               h->grid[0], h->grid[1], h->grid[2]);
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
                if (!parse_dec(v, UINT32_MAX, &wv) || wv >= f->warps_per_cta)
                    return fail_at(err, f->path, r->line, "'%s' (expected 'warp = W' with W "
                                   "below the %" PRIu32 " warps of a CTA of %" PRIu64 " threads)",
                                   shown(s, sh), f->warps_per_cta, threads);
                warp = (uint32_t)wv;
                st = B_WARP_HEAD;
            } else if (body_value(s, "cluster id") || body_value(s, "cluster cta") ||
                       body_value(s, "cluster rank")) {
                /* Accel-Sim 2.0's cluster placement: not modelled */
            } else if (isxdigit((unsigned char)*s) && declared) {
                return fail_at(err, f->path, r->line, "an instruction line after the %" PRIu64
                               " that warp %" PRIu32 " declares (expected 'warp = W' or "
                               "#END_TB)", declared, warp);
            } else {
                return fail_at(err, f->path, r->line, "'%s' (expected 'warp = W' or #END_TB in "
                               "thread block (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") begun on "
                               "line %" PRIu64 ")", shown(s, sh), tb[0], tb[1], tb[2], tb_line);
            }
            break;
        case B_WARP_HEAD:
            v = body_value(s, "insts");
            if (!v || !parse_dec(v, UINT64_MAX, &declared))
                return fail_at(err, f->path, r->line, "'%s' (expected 'insts = N' after 'warp = "
                               "%" PRIu32 "')", shown(s, sh), warp);
            if (f->n_w >= ACCELSIM_MAX_WARPS)
                return fail_at(err, f->path, r->line, "more than %u warps in one kernel (the "
                               "limit of gpumemsim's Accel-Sim import)", ACCELSIM_MAX_WARPS);
            if (f->n_w == f->cap_w) {
                f->cap_w = f->cap_w ? 2 * f->cap_w : 1024;
                f->w = xrealloc(f->w, (size_t)f->cap_w * sizeof *f->w);
            }
            f->w[f->n_w++] = (warp_ent){rd_tell(r), r->line, declared, cta, warp};
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
        return fail_at(err, f->path, r->line, "the file ends inside thread block (%" PRIu32 ",%"
                       PRIu32 ",%" PRIu32 ") begun on line %" PRIu64 " (%s)", tb[0], tb[1],
                       tb[2], tb_line, st == B_WARP ? "a warp has fewer instruction lines than "
                       "its insts = N" : "expected #END_TB");

    /* every CTA of the grid once, each warp at most once */
    if (f->n_w)
        qsort(f->w, f->n_w, sizeof *f->w, cmp_warp);
    uint64_t distinct = 0;
    for (uint32_t i = 0; i < f->n_w; i++) {
        if (i > 0 && f->w[i].cta == f->w[i - 1].cta && f->w[i].warp == f->w[i - 1].warp)
            return fail_at(err, f->path, f->w[i].line, "warp %" PRIu32 " of CTA %" PRIu32
                           " again (first on line %" PRIu64 "; expected each warp once)",
                           f->w[i].warp, f->w[i].cta, f->w[i - 1].line);
        distinct += i == 0 || f->w[i].cta != f->w[i - 1].cta;
    }
    if (distinct != f->ctas)
        return fail_at(err, f->path, 0, "%" PRIu64 " thread blocks with warps, but the grid (%"
                       PRIu32 ",%" PRIu32 ",%" PRIu32 ") has %" PRIu64 " (expected every thread "
                       "block of the kernel: is the file cut short?)", distinct, h->grid[0],
                       h->grid[1], h->grid[2], f->ctas);
    f->cta_start = xmalloc((size_t)(f->ctas + 1) * sizeof *f->cta_start);
    for (uint32_t i = 0, c = 0; i <= f->n_w; i++)
        while (c <= f->ctas && (i == f->n_w || c <= f->w[i].cta))
            f->cta_start[c++] = i;
    return 0;
}

/* The kernel record and its PC table. */
static int build_kernel(kfile *f, accelsim_summary *sum, err_info *err)
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
        k->pcs[i] = (trace_pc_info){e->pc, xstrdup(e->opcode), e->cache,
                                    e->src_line ? 0 : -1, e->src_line};
    }
    if (trace_kernel_validate(k, err) < 0) {
        err_prefix(err, "kernel header");
        return place(err, f->path, 0);
    }
    return 0;
}

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
            rd_seek(&ws->rd, e->offset, e->line);
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
    m->size_bytes = (uint8_t)in->mem_width;
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

/* Warp ws of slot sl issues its next instruction. */
static int issue(replay *p, slot *sl, wstream *ws, err_info *err)
{
    kfile *f = p->f;
    char *line, *s;
    int rc;
    do {
        rc = rd_line(&ws->rd, f->path, &line, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return fail_at(err, f->path, ws->rd.line, "the file ends inside warp %" PRIu32
                           " of CTA %" PRIu32 " (it changed since it was first read?)",
                           ws->warp, sl->cta);
        s = line;
        trim(&s);
    } while (!*s);
    if (parse_inst(s, &f->h, &p->in, err) < 0)
        return place(err, f->path, ws->rd.line);
    ws->left--;
    const inst *in = &p->in;
    if (in->op.cls == OPC_OTHER) {
        p->sum->other_insts++;
    } else if (in->mask == 0) {
        p->sum->pred_off_insts++;
    } else if (in->op.cls == OPC_BARRIER) {
        trace_barrier b = {sl->cta, ws->warp, TRACE_SM_UNKNOWN, in->pc};
        if (trace_writer_barrier(p->wr, &b, err) < 0)
            return -1;
        p->sum->barrier_records++;
        if (ws->left) {
            ws->state = W_BLOCKED;
            sl->blocked++;
        }
    } else {
        if (make_mem(p, sl, ws->warp, err) < 0)
            return place(err, f->path, ws->rd.line);
        if (trace_writer_mem(p->wr, &p->m, err) < 0)
            return -1;
        p->sum->mem_records++;
    }
    if (ws->left == 0) {
        ws->state = W_DONE;
        sl->live--;
    }
    slot_release_if_all_arrived(sl, f->warps_per_cta);
    return 0;
}

static int pass2(kfile *f, uint32_t sm_count, uint32_t ctas_per_sm, trace_writer *wr,
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
        return fail_at(err, f->path, 0, "%" PRIu64 " resident warps (%" PRIu64 " CTAs of %" PRIu32
                       " warps on %" PRIu32 " SMs) exceed the limit of %u: use a smaller "
                       "--ctas-per-sm or --sm-count", warps, n_slots, f->warps_per_cta, sm_count,
                       ACCELSIM_MAX_RESIDENT_WARPS);
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
    uint32_t warps = (threads_per_cta + TRACE_WARP_LANES - 1) / TRACE_WARP_LANES;
    if (warps == 0)
        warps = 1;
    uint32_t n = H200_MAX_CTAS_PER_SM;
    if (H200_WARPS_PER_SM / warps < n)
        n = H200_WARPS_PER_SM / warps;
    if (regs_per_thread >= 1 && regs_per_thread <= MAX_REGS_PER_THREAD) {
        uint32_t r = H200_REGS_PER_SM / (regs_per_thread * warps * TRACE_WARP_LANES);
        if (r < n)
            n = r;
    }
    uint64_t smem = (uint64_t)smem_bytes + H200_SMEM_RESERVED;
    if (H200_SMEM_PER_SM / smem < n)
        n = (uint32_t)(H200_SMEM_PER_SM / smem);
    return n ? n : 1;
}

/* ---- files: plain, or .xz into a temporary file ------------------------------------ */

static bool ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

static int xz_to_tmp(const char *path, const char *tmp_dir, int *out_fd, err_info *err)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return fail_at(err, path, 0, "cannot open: %s", strerror(errno));
    if (!tmp_dir || !*tmp_dir)
        tmp_dir = getenv("TMPDIR");
    if (!tmp_dir || !*tmp_dir)
        tmp_dir = "/tmp";
    size_t tn = strlen(tmp_dir) + 32;
    char *tmpl = xmalloc(tn);
    snprintf(tmpl, tn, "%s/gpumemsim-accelsim-XXXXXX", tmp_dir);
    int fd = mkstemp(tmpl);
    if (fd < 0) {
        fail_at(err, path, 0, "cannot create a temporary file in %s to decompress into: %s",
                tmp_dir, strerror(errno));
        free(tmpl);
        fclose(in);
        return -1;
    }
    unlink(tmpl); /* gone when closed, whatever happens */
    free(tmpl);
    lzma_stream zs = LZMA_STREAM_INIT;
    int rc = 0;
    if (lzma_stream_decoder(&zs, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
        rc = fail_at(err, path, 0, "cannot start the xz decoder");
    uint8_t ibuf[1 << 16], obuf[1 << 16];
    lzma_action action = LZMA_RUN;
    while (rc == 0) {
        if (zs.avail_in == 0 && action == LZMA_RUN) {
            zs.next_in = ibuf;
            zs.avail_in = fread(ibuf, 1, sizeof ibuf, in);
            if (ferror(in)) {
                rc = fail_at(err, path, 0, "read error: %s", strerror(errno));
                break;
            }
            if (feof(in))
                action = LZMA_FINISH;
        }
        zs.next_out = obuf;
        zs.avail_out = sizeof obuf;
        lzma_ret ret = lzma_code(&zs, action);
        size_t n = sizeof obuf - zs.avail_out;
        for (size_t o = 0; o < n;) {
            ssize_t wn = write(fd, obuf + o, n - o);
            if (wn < 0) {
                rc = fail_at(err, path, 0, "writing the decompressed kernel to %s: %s", tmp_dir,
                             strerror(errno));
                break;
            }
            o += (size_t)wn;
        }
        if (rc < 0 || ret == LZMA_STREAM_END)
            break;
        if (ret == LZMA_OK)
            continue;
        const char *why = ret == LZMA_FORMAT_ERROR ? "not an xz file"
                          : ret == LZMA_MEMLIMIT_ERROR ? "the xz stream needs more than 256 MiB "
                                                         "to decode"
                          : ret == LZMA_BUF_ERROR ? "the xz stream is truncated"
                          : ret == LZMA_DATA_ERROR || ret == LZMA_OPTIONS_ERROR ? "corrupt xz data"
                          : "xz decoder error";
        rc = fail_at(err, path, 0, "%s (expected an xz-compressed .traceg)", why);
    }
    lzma_end(&zs);
    fclose(in);
    if (rc < 0) {
        close(fd);
        return -1;
    }
    *out_fd = fd;
    return 0;
}

/* Open and check one kernel file (pass 1). */
static int kfile_open(kfile *f, const char *path, bool xz, const accelsim_options *opt,
                      err_info *err)
{
    f->path = path;
    if (xz) {
        if (xz_to_tmp(path, opt->tmp_dir, &f->fd, err) < 0)
            return -1;
    } else {
        f->fd = open(path, O_RDONLY);
        if (f->fd < 0)
            return fail_at(err, path, 0, "cannot open: %s", strerror(errno));
    }
    /* a large buffer for the sequential pass, the same line limit as pass 2 */
    line_rd r = {.fd = f->fd, .buf = xmalloc(PASS1_BUF_BYTES), .cap = PASS1_BUF_BYTES,
                 .max_line = ACCELSIM_MAX_LINE_BYTES};
    char *big = r.buf;
    int rc = read_header(&r, path, &f->h, err);
    if (rc == 0) {
        uint64_t ctas = (uint64_t)f->h.grid[0] * f->h.grid[1] * f->h.grid[2];
        uint64_t threads = (uint64_t)f->h.block[0] * f->h.block[1] * f->h.block[2];
        if (ctas == 0 || threads == 0 || threads > TRACE_MAX_BLOCK_THREADS)
            rc = fail_at(err, path, 0, "grid (%" PRIu32 ",%" PRIu32 ",%" PRIu32 ") and block (%"
                         PRIu32 ",%" PRIu32 ",%" PRIu32 ") (expected no 0 and at most %u threads "
                         "per block)", f->h.grid[0], f->h.grid[1], f->h.grid[2], f->h.block[0],
                         f->h.block[1], f->h.block[2], TRACE_MAX_BLOCK_THREADS);
        else if (ctas > ACCELSIM_MAX_WARPS)
            rc = fail_at(err, path, 0, "a grid of %" PRIu64 " CTAs has more warps than the %u of "
                         "one kernel gpumemsim's Accel-Sim import takes", ctas,
                         ACCELSIM_MAX_WARPS);
    }
    if (rc == 0)
        rc = pass1(f, &r, err);
    free(big);
    return rc;
}

/* ---- the collection ----------------------------------------------------------------- */

typedef struct klist {
    char **paths; /* as opened: the list's directory joined with the line */
    bool *xz;
    uint32_t n, cap;
    uint32_t memcpy_count;
    uint64_t memcpy_bytes;
} klist;

static void klist_free(klist *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    free(l->xz);
}

static void klist_add(klist *l, char *path, bool xz)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->paths = xrealloc(l->paths, l->cap * sizeof *l->paths);
        l->xz = xrealloc(l->xz, l->cap * sizeof *l->xz);
    }
    l->paths[l->n] = path;
    l->xz[l->n++] = xz;
}

static int read_list(const char *path, klist *l, err_info *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return fail_at(err, path, 0, "cannot open: %s", strerror(errno));
    char *buf = xmalloc(RD_BUF_BYTES);
    line_rd r = {.fd = fd, .buf = buf, .cap = RD_BUF_BYTES, .max_line = ACCELSIM_MAX_LINE_BYTES};
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    char sh[64];
    char *line;
    int rc;
    while ((rc = rd_line(&r, path, &line, err)) == 1) {
        char *s = line;
        trim(&s);
        if (!*s)
            continue;
        if (strncmp(s, "MemcpyHtoD,", 11) == 0 || strncmp(s, "MemcpyDtoH,", 11) == 0) {
            char *addr = s + 11, *comma = strchr(addr, ',');
            uint64_t a, n;
            if (comma)
                *comma = '\0';
            bool ok = comma && parse_hex(addr, UINT64_MAX, &a) && parse_dec(comma + 1, UINT64_MAX, &n);
            if (comma)
                *comma = ',';
            if (!ok) {
                rc = fail_at(err, path, r.line, "'%s' (expected 'MemcpyHtoD,0xADDRESS,BYTES')",
                             shown(s, sh));
                break;
            }
            l->memcpy_count++;
            l->memcpy_bytes += n;
            continue;
        }
        bool xz = ends_with(s, ".traceg.xz");
        if (strncmp(s, "kernel", 6) != 0 || (!xz && !ends_with(s, ".traceg"))) {
            rc = fail_at(err, path, r.line, "'%s' (expected 'MemcpyHtoD,0xADDRESS,BYTES' or a "
                         "kernel file 'kernel-N...traceg' or '...traceg.xz')", shown(s, sh));
            break;
        }
        if (l->n >= ACCELSIM_MAX_KERNELS) {
            rc = fail_at(err, path, r.line, "more than %u kernels (the limit of gpumemsim's "
                         "Accel-Sim import)", ACCELSIM_MAX_KERNELS);
            break;
        }
        size_t n = dir_len + strlen(s) + 1;
        char *p = xmalloc(n);
        snprintf(p, n, "%.*s%s", (int)dir_len, path, s);
        klist_add(l, p, xz);
    }
    free(buf);
    close(fd);
    if (rc < 0)
        return -1;
    if (l->n == 0)
        return fail_at(err, path, 0, "no kernel lines (expected at least one kernel-N.traceg)");
    return 0;
}

static void meta_u64(trace_meta *m, const char *key, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    trace_meta_set(m, key, b);
}

int trace_accelsim_import(const char *path, const char *out_path, const accelsim_options *opt_in,
                    accelsim_summary *sum_out, err_info *err)
{
    accelsim_options opt = *opt_in;
    accelsim_summary sum;
    memset(&sum, 0, sizeof sum);
    if (opt.sm_count == 0)
        opt.sm_count = ACCELSIM_DEFAULT_SM_COUNT;
    if (opt.sm_count > ACCELSIM_MAX_SM_COUNT || opt.ctas_per_sm > ACCELSIM_MAX_CTAS_PER_SM) {
        err_set(err, "sm_count %" PRIu32 " and ctas_per_sm %" PRIu32 " (expected at most %u and "
                "%u)", opt.sm_count, opt.ctas_per_sm, ACCELSIM_MAX_SM_COUNT,
                ACCELSIM_MAX_CTAS_PER_SM);
        return -1;
    }
    klist l;
    memset(&l, 0, sizeof l);
    accelsim_input in = opt.input;
    if (in == ACCELSIM_INPUT_AUTO)
        in = ends_with(path, ".traceg") ? ACCELSIM_INPUT_TRACEG
             : ends_with(path, ".traceg.xz") ? ACCELSIM_INPUT_TRACEG_XZ : ACCELSIM_INPUT_LIST;
    if (in == ACCELSIM_INPUT_LIST) {
        if (read_list(path, &l, err) < 0) {
            klist_free(&l);
            return -1;
        }
    } else {
        klist_add(&l, xstrdup(path), in == ACCELSIM_INPUT_TRACEG_XZ);
    }

    trace_writer *w = NULL;
    kfile f;
    memset(&f, 0, sizeof f);
    f.fd = -1;
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < l.n; i++) {
        kfile_free(&f);
        rc = kfile_open(&f, l.paths[i], l.xz[i], &opt, err);
        if (rc == 0)
            rc = build_kernel(&f, &sum, err);
        if (rc == 0 && !w) {
            /* the metadata, from the list and the first kernel's header */
            trace_meta m;
            trace_meta_init(&m);
            trace_meta_set(&m, "capture_tool", "accel-sim tracer (NVBit), imported by gpumemsim "
                                               "trace import");
            meta_u64(&m, "capture_version", f.h.tracer_version);
            if (f.h.nvbit[0])
                trace_meta_set(&m, "accelsim_nvbit_version", f.h.nvbit);
            if (f.h.binary_version >= 10 && f.h.binary_version < 1000) {
                char cc[16];
                snprintf(cc, sizeof cc, "%d.%d", (int)(f.h.binary_version / 10),
                         (int)(f.h.binary_version % 10));
                trace_meta_set(&m, "cc", cc);
            }
            meta_u64(&m, "accelsim_kernels", l.n);
            meta_u64(&m, "accelsim_memcpy", l.memcpy_count);
            meta_u64(&m, "accelsim_memcpy_bytes", l.memcpy_bytes);
            meta_u64(&m, "accelsim_sm_count", opt.sm_count);
            if (opt.ctas_per_sm)
                meta_u64(&m, "trace_accelsim_ctas_per_sm", opt.ctas_per_sm);
            else
                trace_meta_set(&m, "trace_accelsim_ctas_per_sm", "derived per kernel (H200 limits)");
            trace_meta_set(&m, "accelsim_interleave", "round robin, one instruction per resident "
                                                      "warp; CTA c on SM c mod sm_count");
            w = trace_writer_open(out_path, opt.format, opt.zstd_level, &m, err);
            trace_meta_free(&m);
            if (!w)
                rc = -1;
        }
        if (rc == 0)
            rc = trace_writer_kernel(w, &f.k, err);
        if (rc == 0) {
            uint32_t k = opt.ctas_per_sm;
            if (!k)
                k = trace_accelsim_ctas_per_sm(trace_kernel_threads_per_cta(&f.k), f.h.nregs, f.h.shmem);
            rc = pass2(&f, opt.sm_count, k, w, &sum, err);
        }
        if (rc == 0)
            rc = trace_writer_kernel_end(w, err);
        if (rc == 0)
            sum.kernels++;
    }
    kfile_free(&f);
    if (w) {
        if (rc < 0) {
            err_info ignored;
            trace_writer_close(w, false, "gpumemsim trace import stopped on an error", &ignored);
        } else {
            rc = trace_writer_close(w, true, NULL, err);
        }
    }
    sum.memcpy_count = l.memcpy_count;
    sum.memcpy_bytes = l.memcpy_bytes;
    klist_free(&l);
    if (sum_out)
        *sum_out = sum;
    return rc;
}
