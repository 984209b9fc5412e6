/* trace_text.c - the text form of trace format v1: one record per line, for
 * people to read, write by hand and diff. docs/trace-format.md has the
 * grammar; `gpumemsim trace dump` writes this form and every reader accepts
 * it (the first line, "gpumemsim-trace 1", tells it from the binary form).
 *
 * A line is a record keyword, positional fields, key=value fields in any
 * order and bare flags. Unknown or duplicate keys, missing required keys and
 * malformed numbers are errors with the line number; the meaning of records
 * (order, counts, ranges) is checked by trace_reader.c as for the binary form.
 * Lines are bounded (TEXT_MAX_LINE_BYTES) so a file without newlines cannot
 * make the reader allocate without bound. */
#include "trace_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* the longest line: a kernel line with two strings of the maximum length,
 * every byte escaped, plus its numbers */
#define TEXT_MAX_LINE_BYTES (4 * TRACE_MAX_STRING_BYTES + 4096)
#define TEXT_BLOCK_BYTES (64u << 10)
#define TEXT_MAX_FIELDS 48

typedef struct field {
    const char *key; /* NULL for a positional field */
    const char *val;
    bool quoted;     /* val was a "string" */
} field;

struct trace_text_dec {
    char *blk;              /* bytes read from the file, not yet split into lines */
    size_t blk_pos, blk_len;
    bool eof;
    char *line;             /* the current line, NUL-terminated */
    size_t line_len, line_cap;
    uint64_t lineno;
    field fields[TEXT_MAX_FIELDS];
    int n_fields;
};

/* ======================================================================
 * Decoder
 * ====================================================================== */

static int line_error(trace_reader *r, err_info *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int line_error(trace_reader *r, err_info *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    trace_err_at(err, TRACE_FORMAT_TEXT, r->path, r->text->lineno);
    return -1;
}

/* Next physical line into t->line. 1, 0 at the end of the file, -1. */
static int read_line(trace_reader *r, err_info *err)
{
    struct trace_text_dec *t = r->text;
    t->line_len = 0;
    bool any = false;
    for (;;) {
        if (t->blk_pos == t->blk_len) {
            if (t->eof)
                break;
            size_t n = fread(t->blk, 1, TEXT_BLOCK_BYTES, r->f);
            if (n == 0) {
                if (ferror(r->f)) {
                    err_set(err, "%s: read error: %s", r->path, strerror(errno));
                    return -1;
                }
                t->eof = true;
                continue;
            }
            t->blk_pos = 0;
            t->blk_len = n;
        }
        any = true;
        char *s = t->blk + t->blk_pos;
        size_t avail = t->blk_len - t->blk_pos;
        char *nl = memchr(s, '\n', avail);
        size_t n = nl ? (size_t)(nl - s) : avail;
        if (t->line_len + n > TEXT_MAX_LINE_BYTES) {
            t->lineno++;
            return line_error(r, err, "line longer than %u bytes", TEXT_MAX_LINE_BYTES);
        }
        if (t->line_len + n + 1 > t->line_cap) {
            t->line_cap = 2 * (t->line_len + n + 1);
            t->line = xrealloc(t->line, t->line_cap);
        }
        memcpy(t->line + t->line_len, s, n);
        t->line_len += n;
        t->blk_pos += n + (nl != NULL);
        r->bytes += n + (nl != NULL);
        if (nl)
            break;
    }
    if (!any)
        return 0;
    t->lineno++;
    t->line[t->line_len] = '\0';
    if (memchr(t->line, '\0', t->line_len))
        return line_error(r, err, "line contains a NUL byte (not a text trace line)");
    if (t->line_len && t->line[t->line_len - 1] == '\r')
        return line_error(r, err, "line ends with a carriage return (expected \\n line endings, "
                                  "not \\r\\n)");
    return 1;
}

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* A line with nothing to read: blank, or a comment. */
static bool is_empty_line(const char *s)
{
    while (is_blank(*s))
        s++;
    return *s == '\0' || *s == '#';
}

/* Unescape a "string" in place, starting at the opening quote *ps. On return
 * *ps points after the closing quote and *out at the NUL-terminated value. */
static int unquote(trace_reader *r, char **ps, const char **out, err_info *err)
{
    char *s = *ps + 1;
    char *d = s;
    const char *start = s;
    for (;;) {
        char c = *s++;
        if (c == '\0')
            return line_error(r, err, "unterminated string (expected a closing '\"')");
        if (c == '"')
            break;
        if (c == '\\') {
            char e = *s++;
            switch (e) {
            case '"': c = '"'; break;
            case '\\': c = '\\'; break;
            case 'n': c = '\n'; break;
            case 't': c = '\t'; break;
            default:
                if (e == '\0')
                    return line_error(r, err, "unterminated string (expected a closing '\"')");
                return line_error(r, err, "unknown escape \\%c in a string (expected \\\" \\\\ "
                                          "\\n or \\t)", e);
            }
        }
        *d++ = c;
    }
    size_t n = (size_t)(d - start);
    *d = '\0';
    if (n > TRACE_MAX_STRING_BYTES)
        return line_error(r, err, "string of %zu bytes (expected at most %u)", n,
                          TRACE_MAX_STRING_BYTES);
    *out = start;
    *ps = s;
    return 0;
}

/* Split t->line into fields, in place. */
static int split_fields(trace_reader *r, err_info *err)
{
    struct trace_text_dec *t = r->text;
    char *s = t->line;
    t->n_fields = 0;
    for (;;) {
        while (is_blank(*s))
            s++;
        if (*s == '\0')
            return 0;
        if (t->n_fields == TEXT_MAX_FIELDS)
            return line_error(r, err, "more than %d fields on a line", TEXT_MAX_FIELDS);
        field *f = &t->fields[t->n_fields++];
        f->key = NULL;
        f->quoted = false;
        if (*s == '"') {
            f->quoted = true;
            if (unquote(r, &s, &f->val, err) < 0)
                return -1;
        } else {
            char *start = s;
            while (*s && !is_blank(*s) && *s != '=' && *s != '"')
                s++;
            if (*s == '"')
                return line_error(r, err, "unexpected '\"' in \"%.40s\"", start);
            if (*s == '=') {
                *s++ = '\0';
                f->key = start;
                if (*start == '\0')
                    return line_error(r, err, "'=' without a key before it");
                if (*s == '"') {
                    f->quoted = true;
                    if (unquote(r, &s, &f->val, err) < 0)
                        return -1;
                } else {
                    char *v = s;
                    while (*s && !is_blank(*s) && *s != '"')
                        s++;
                    if (*s == '"')
                        return line_error(r, err, "unexpected '\"' in the value of %s", start);
                    if (s == v)
                        return line_error(r, err, "key %s has no value", start);
                    f->val = v;
                }
            } else {
                f->val = start;
            }
        }
        if (*s && !is_blank(*s))
            return line_error(r, err, "expected a space after the field ending at \"%.40s\"",
                              f->val);
        if (*s)
            *s++ = '\0';
    }
}

/* ---- numbers -------------------------------------------------------------- */

/* Decimal or 0x-hex, unsigned, the whole string. 0, -1 not a number, -2 too large. */
static int parse_u64(const char *s, uint64_t *out)
{
    uint64_t v = 0;
    unsigned base = 10;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        base = 16;
        s += 2;
    }
    if (*s == '\0')
        return -1;
    for (; *s; s++) {
        unsigned d;
        if (*s >= '0' && *s <= '9')
            d = (unsigned)(*s - '0');
        else if (base == 16 && *s >= 'a' && *s <= 'f')
            d = (unsigned)(*s - 'a' + 10);
        else if (base == 16 && *s >= 'A' && *s <= 'F')
            d = (unsigned)(*s - 'A' + 10);
        else
            return -1;
        if (v > (UINT64_MAX - d) / base)
            return -2;
        v = v * base + d;
    }
    *out = v;
    return 0;
}

static int number(trace_reader *r, const char *what, const char *s, uint64_t max, uint64_t *out,
                  err_info *err)
{
    int rc = parse_u64(s, out);
    if (rc == -1)
        return line_error(r, err, "%s: \"%.40s\" is not a number (expected decimal or 0x-hex)",
                          what, s);
    if (rc == -2 || *out > max)
        return line_error(r, err, "%s: %.40s is out of range (expected at most %" PRIu64 ")", what,
                          s, max);
    return 0;
}

static int number32(trace_reader *r, const char *what, const char *s, uint32_t *out,
                    err_info *err)
{
    uint64_t v;
    if (number(r, what, s, UINT32_MAX, &v, err) < 0)
        return -1;
    *out = (uint32_t)v;
    return 0;
}

/* A signed 64-bit number (stride): optional '-', then as above. Stored as
 * its two's complement, since addresses are computed mod 2^64. */
static int number_signed(trace_reader *r, const char *what, const char *s, uint64_t *out,
                         err_info *err)
{
    bool neg = s[0] == '-';
    uint64_t v;
    if (number(r, what, s + neg, neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX, &v, err) < 0)
        return -1;
    *out = neg ? 0 - v : v;
    return 0;
}

/* "x,y,z", each a 32-bit number */
static int dims(trace_reader *r, const char *what, const char *s, uint32_t out[3], err_info *err)
{
    char buf[96];
    size_t n = strlen(s);
    if (n >= sizeof buf)
        return line_error(r, err, "%s: \"%.40s...\" is not X,Y,Z", what, s);
    memcpy(buf, s, n + 1);
    char *p = buf;
    for (int i = 0; i < 3; i++) {
        char *comma = strchr(p, ',');
        if ((i < 2) != (comma != NULL))
            return line_error(r, err, "%s: \"%s\" is not X,Y,Z (expected three numbers)", what, s);
        if (comma)
            *comma = '\0';
        if (number32(r, what, p, &out[i], err) < 0)
            return -1;
        p = comma ? comma + 1 : p;
    }
    return 0;
}

/* ---- keys ----------------------------------------------------------------- */

/* Collect key=value fields against a table of names; positional fields go
 * to pos (the record keyword excluded). */
typedef struct line_keys {
    const char *const *names;
    int n;
    const field *val[16]; /* by name index; NULL when absent */
    const field *pos[TEXT_MAX_FIELDS];
    int n_pos;
} line_keys;

static int take_keys(trace_reader *r, const char *what, const char *const *names, int n,
                     line_keys *lk, err_info *err)
{
    struct trace_text_dec *t = r->text;
    lk->names = names;
    lk->n = n;
    lk->n_pos = 0;
    for (int i = 0; i < n; i++)
        lk->val[i] = NULL;
    for (int i = 1; i < t->n_fields; i++) {
        const field *f = &t->fields[i];
        if (!f->key) {
            lk->pos[lk->n_pos++] = f;
            continue;
        }
        int k = 0;
        while (k < n && strcmp(names[k], f->key) != 0)
            k++;
        if (k == n) {
            char list[256] = "";
            for (int j = 0; j < n; j++) {
                strncat(list, names[j], sizeof list - strlen(list) - 1);
                if (j + 1 < n)
                    strncat(list, ", ", sizeof list - strlen(list) - 1);
            }
            return line_error(r, err, "unknown key %.40s in a %s line (expected %s)", f->key, what,
                              list);
        }
        if (lk->val[k])
            return line_error(r, err, "key %s given twice", f->key);
        lk->val[k] = f;
    }
    return 0;
}

/* The value of key index k: required (error when absent) or NULL when absent. */
static int key_bare(trace_reader *r, const char *what, line_keys *lk, int k, bool required,
                    const char **out, err_info *err)
{
    const field *f = lk->val[k];
    *out = NULL;
    if (!f) {
        if (required)
            return line_error(r, err, "missing key %s in a %s line", lk->names[k], what);
        return 0;
    }
    if (f->quoted)
        return line_error(r, err, "key %s takes a number or a name, not a \"string\"",
                          lk->names[k]);
    *out = f->val;
    return 0;
}

static int key_u32(trace_reader *r, const char *what, line_keys *lk, int k, bool required,
                   uint32_t dflt, uint32_t *out, err_info *err)
{
    const char *s;
    if (key_bare(r, what, lk, k, required, &s, err) < 0)
        return -1;
    *out = dflt;
    return s ? number32(r, lk->names[k], s, out, err) : 0;
}

static int key_string(trace_reader *r, const char *what, line_keys *lk, int k, bool required,
                      const char **out, err_info *err)
{
    const field *f = lk->val[k];
    *out = NULL;
    if (!f) {
        if (required)
            return line_error(r, err, "missing key %s in a %s line", lk->names[k], what);
        return 0;
    }
    if (!f->quoted)
        return line_error(r, err, "key %s takes a \"string\"", lk->names[k]);
    *out = f->val;
    return 0;
}

/* ---- one parser per record keyword ----------------------------------------- */

static const char USAGE_META[] = "meta KEY \"VALUE\"";
static const char USAGE_FILE[] = "file INDEX \"PATH\"";
static const char USAGE_PC[] = "pc PC \"SASS\" [cache=OP] [src=FILE:LINE] [ctrl=0xBITS]";
static const char USAGE_MEM[] = "KIND SPACE SIZE cta= warp= [sm=] pc= [cache=] [generic] [ldgsts] "
                                "mask= (base= stride= | addrs=)";
static const char USAGE_END[] = "end kernel mem=N bar=N, or end trace kernels=N complete|"
                                "incomplete \"REASON\"";

static int parse_meta(trace_reader *r, trace_rec *rec, err_info *err)
{
    line_keys lk;
    if (take_keys(r, "meta", NULL, 0, &lk, err) < 0)
        return -1;
    if (lk.n_pos != 2 || lk.pos[0]->quoted || !lk.pos[1]->quoted)
        return line_error(r, err, "malformed meta line (expected: %s)", USAGE_META);
    rec->type = TREC_META;
    rec->key = lk.pos[0]->val;
    rec->value = lk.pos[1]->val;
    return 0;
}

enum { K_LAUNCH, K_GRID, K_BLOCK, K_NAME, K_DEMANGLED, K_SMEM_STATIC, K_SMEM_DYNAMIC, K_REGS,
       K_LOCAL, K_COUNT };
static const char *const kernel_keys[K_COUNT] = {
    "launch", "grid", "block", "name", "demangled", "smem_static", "smem_dynamic", "regs", "local",
};

static int parse_kernel(trace_reader *r, trace_rec *rec, err_info *err)
{
    static const char w[] = "kernel";
    line_keys lk;
    if (take_keys(r, w, kernel_keys, K_COUNT, &lk, err) < 0)
        return -1;
    if (lk.n_pos != 0)
        return line_error(r, err, "unexpected field \"%.40s\" in a kernel line (expected only "
                                  "key=value fields)", lk.pos[0]->val);
    trace_kernel *k = &rec->kernel;
    trace_kernel_init(k);
    const char *grid, *block;
    if (key_u32(r, w, &lk, K_LAUNCH, true, 0, &k->launch, err) < 0 ||
        key_bare(r, w, &lk, K_GRID, true, &grid, err) < 0 ||
        dims(r, "grid", grid, k->grid, err) < 0 ||
        key_bare(r, w, &lk, K_BLOCK, true, &block, err) < 0 ||
        dims(r, "block", block, k->block, err) < 0 ||
        key_string(r, w, &lk, K_NAME, true, (const char **)&k->name, err) < 0 ||
        key_string(r, w, &lk, K_DEMANGLED, false, (const char **)&k->demangled, err) < 0 ||
        key_u32(r, w, &lk, K_SMEM_STATIC, false, 0, &k->smem_static_bytes, err) < 0 ||
        key_u32(r, w, &lk, K_SMEM_DYNAMIC, false, 0, &k->smem_dynamic_bytes, err) < 0 ||
        key_u32(r, w, &lk, K_REGS, false, 0, &k->regs_per_thread, err) < 0 ||
        key_u32(r, w, &lk, K_LOCAL, false, 0, &k->local_bytes_per_thread, err) < 0)
        return -1;
    if (!k->demangled)
        k->demangled = k->name;
    rec->type = TREC_KERNEL;
    rec->has_table_counts = false;
    return 0;
}

static int parse_file(trace_reader *r, trace_rec *rec, err_info *err)
{
    line_keys lk;
    if (take_keys(r, "file", NULL, 0, &lk, err) < 0)
        return -1;
    if (lk.n_pos != 2 || lk.pos[0]->quoted || !lk.pos[1]->quoted)
        return line_error(r, err, "malformed file line (expected: %s)", USAGE_FILE);
    if (number32(r, "file index", lk.pos[0]->val, &rec->file_index, err) < 0)
        return -1;
    rec->type = TREC_FILE;
    rec->has_file_index = true;
    rec->str = lk.pos[1]->val;
    return 0;
}

static int parse_cache(trace_reader *r, const char *s, uint8_t *out, err_info *err)
{
    trace_cache_op c;
    if (trace_cache_op_parse(s, &c) < 0)
        return line_error(r, err, "unknown cache op %.40s (expected default, ca, cg, cs, nc, lu "
                                  "or cv)", s);
    *out = (uint8_t)c;
    return 0;
}

static int parse_pc(trace_reader *r, trace_rec *rec, err_info *err)
{
    static const char *const keys[] = {"cache", "src", "ctrl"};
    line_keys lk;
    if (take_keys(r, "pc", keys, 3, &lk, err) < 0)
        return -1;
    if (lk.n_pos != 2 || lk.pos[0]->quoted || !lk.pos[1]->quoted)
        return line_error(r, err, "malformed pc line (expected: %s)", USAGE_PC);
    trace_pc_info *pc = &rec->pc;
    const char *cache, *src, *ctrl;
    if (number32(r, "pc", lk.pos[0]->val, &pc->pc, err) < 0 ||
        key_bare(r, "pc", &lk, 0, false, &cache, err) < 0 ||
        key_bare(r, "pc", &lk, 1, false, &src, err) < 0 ||
        key_bare(r, "pc", &lk, 2, false, &ctrl, err) < 0)
        return -1;
    pc->ctrl = 0;
    if (ctrl) {
        uint64_t v;
        if (number(r, "ctrl", ctrl, (1u << TRACE_CTRL_BITS) - 1u, &v, err) < 0)
            return -1;
        pc->ctrl = (uint32_t)v | TRACE_CTRL_KNOWN;
    }
    pc->sass = (char *)lk.pos[1]->val;
    pc->cache_op = TRACE_CACHE_DEFAULT;
    if (cache && parse_cache(r, cache, &pc->cache_op, err) < 0)
        return -1;
    pc->file = -1;
    pc->line = 0;
    if (src) {
        char buf[64];
        const char *colon = strchr(src, ':');
        size_t fl = colon ? (size_t)(colon - src) : 0;
        if (!colon || fl == 0 || fl >= sizeof buf)
            return line_error(r, err, "src: \"%.40s\" is not FILE:LINE", src);
        memcpy(buf, src, fl);
        buf[fl] = '\0';
        uint64_t f;
        if (strcmp(buf, "-1") == 0)
            pc->file = -1;
        else if (number(r, "src file", buf, TRACE_MAX_FILES, &f, err) < 0)
            return -1;
        else
            pc->file = (int32_t)f;
        if (number32(r, "src line", colon + 1, &pc->line, err) < 0)
            return -1;
    }
    rec->type = TREC_PC;
    return 0;
}

enum { M_CTA, M_WARP, M_SM, M_PC, M_CACHE, M_MASK, M_BASE, M_STRIDE, M_ADDRS, M_COUNT };
static const char *const mem_keys[M_COUNT] = {
    "cta", "warp", "sm", "pc", "cache", "mask", "base", "stride", "addrs",
};

static int parse_sm(trace_reader *r, const char *s, int32_t *out, err_info *err)
{
    uint64_t v;
    *out = TRACE_SM_UNKNOWN;
    if (s) {
        if (number(r, "sm", s, INT32_MAX, &v, err) < 0)
            return -1;
        *out = (int32_t)v;
    }
    return 0;
}

static int parse_addrs(trace_reader *r, const char *s, trace_mem *m, err_info *err)
{
    int want = __builtin_popcount(m->active_mask);
    uint64_t a[TRACE_WARP_LANES];
    int n = 0;
    char buf[32];
    for (const char *p = s;;) {
        const char *comma = strchr(p, ',');
        size_t len = comma ? (size_t)(comma - p) : strlen(p);
        if (n == TRACE_WARP_LANES)
            return line_error(r, err, "addrs lists more than %d addresses", TRACE_WARP_LANES);
        if (len == 0 || len >= sizeof buf)
            return line_error(r, err, "addrs: address %d is %s", n + 1,
                              len ? "too long" : "empty");
        memcpy(buf, p, len);
        buf[len] = '\0';
        if (number(r, "addrs", buf, UINT64_MAX, &a[n], err) < 0)
            return -1;
        n++;
        if (!comma)
            break;
        p = comma + 1;
    }
    if (n != want)
        return line_error(r, err, "addrs lists %d addresses but mask 0x%08" PRIx32
                                  " has %d active lanes (expected one address per active lane)",
                          n, m->active_mask, want);
    int i = 0;
    for (int l = 0; l < TRACE_WARP_LANES; l++)
        m->addr[l] = (m->active_mask >> l & 1u) ? a[i++] : 0;
    return 0;
}

static int parse_mem(trace_reader *r, trace_kind kind, trace_rec *rec, trace_mem *m,
                     err_info *err)
{
    const char *w = trace_kind_name(kind);
    line_keys lk;
    if (take_keys(r, w, mem_keys, M_COUNT, &lk, err) < 0)
        return -1;
    if (lk.n_pos < 2 || lk.pos[0]->quoted || lk.pos[1]->quoted)
        return line_error(r, err, "malformed %s line (expected: %s)", w, USAGE_MEM);
    trace_space space;
    if (trace_space_parse(lk.pos[0]->val, &space) < 0)
        return line_error(r, err, "unknown space %.40s (expected global, shared or local)",
                          lk.pos[0]->val);
    uint64_t size;
    if (number(r, "size", lk.pos[1]->val, 255, &size, err) < 0)
        return -1;
    m->kind = (uint8_t)kind;
    m->space = (uint8_t)space;
    m->size_bytes = (uint8_t)size;
    m->flags = 0;
    for (int i = 2; i < lk.n_pos; i++) {
        const field *f = lk.pos[i];
        uint8_t bit = 0;
        if (!f->quoted && strcmp(f->val, "generic") == 0)
            bit = TRACE_MEM_GENERIC;
        else if (!f->quoted && strcmp(f->val, "ldgsts") == 0)
            bit = TRACE_MEM_LDGSTS;
        if (!bit)
            return line_error(r, err, "unknown flag %s%.40s%s in a %s line (expected generic or "
                                      "ldgsts)", f->quoted ? "\"" : "", f->val,
                              f->quoted ? "\"" : "", w);
        if (m->flags & bit)
            return line_error(r, err, "flag %s given twice", f->val);
        m->flags |= bit;
    }
    const char *sm, *cache, *base, *stride, *addrs;
    if (key_u32(r, w, &lk, M_CTA, true, 0, &m->cta, err) < 0 ||
        key_u32(r, w, &lk, M_WARP, true, 0, &m->warp, err) < 0 ||
        key_bare(r, w, &lk, M_SM, false, &sm, err) < 0 || parse_sm(r, sm, &m->sm, err) < 0 ||
        key_u32(r, w, &lk, M_PC, true, 0, &m->pc, err) < 0 ||
        key_bare(r, w, &lk, M_CACHE, false, &cache, err) < 0 ||
        key_u32(r, w, &lk, M_MASK, true, 0, &m->active_mask, err) < 0 ||
        key_bare(r, w, &lk, M_BASE, false, &base, err) < 0 ||
        key_bare(r, w, &lk, M_STRIDE, false, &stride, err) < 0 ||
        key_bare(r, w, &lk, M_ADDRS, false, &addrs, err) < 0)
        return -1;
    m->cache_op = TRACE_CACHE_DEFAULT;
    if (cache && parse_cache(r, cache, &m->cache_op, err) < 0)
        return -1;
    if (m->active_mask == 0)
        return line_error(r, err, "active mask is 0 (expected at least one active lane)");
    if (addrs && (base || stride))
        return line_error(r, err, "give either base= and stride= or addrs=, not both");
    if (addrs) {
        if (parse_addrs(r, addrs, m, err) < 0)
            return -1;
    } else if (base && stride) {
        uint64_t b, s;
        if (number(r, "base", base, UINT64_MAX, &b, err) < 0 ||
            number_signed(r, "stride", stride, &s, err) < 0)
            return -1;
        trace_mem_expand_stride(m, b, s);
    } else if (base || stride) {
        return line_error(r, err, "%s without %s (expected both, or addrs=)",
                          base ? "base=" : "stride=", base ? "stride=" : "base=");
    } else {
        return line_error(r, err, "missing the addresses (expected base= and stride=, or addrs=)");
    }
    rec->type = TREC_MEM;
    return 0;
}

/* a "bar" line, or (kind TRACE_BAR_SHFL) a "shfl" line: the same fields */
static int parse_bar(trace_reader *r, trace_rec *rec, trace_barrier *b, trace_bar_kind kind, err_info *err)
{
    static const char *const keys[] = {"cta", "warp", "sm", "pc"};
    const char *what = kind == TRACE_BAR_SHFL ? "shfl" : "bar";
    line_keys lk;
    const char *sm;
    if (take_keys(r, what, keys, 4, &lk, err) < 0)
        return -1;
    if (lk.n_pos != 0)
        return line_error(r, err, "unexpected field \"%.40s\" in a %s line (expected cta= warp= "
                                  "[sm=] pc=)", lk.pos[0]->val, what);
    if (key_u32(r, what, &lk, 0, true, 0, &b->cta, err) < 0 ||
        key_u32(r, what, &lk, 1, true, 0, &b->warp, err) < 0 ||
        key_bare(r, what, &lk, 2, false, &sm, err) < 0 || parse_sm(r, sm, &b->sm, err) < 0 ||
        key_u32(r, what, &lk, 3, true, 0, &b->pc, err) < 0)
        return -1;
    b->kind = (uint8_t)kind;
    rec->type = TREC_BARRIER;
    return 0;
}

static int parse_end(trace_reader *r, trace_rec *rec, err_info *err)
{
    struct trace_text_dec *t = r->text;
    if (t->n_fields < 2 || t->fields[1].key || t->fields[1].quoted)
        return line_error(r, err, "malformed end line (expected: %s)", USAGE_END);
    line_keys lk;
    if (strcmp(t->fields[1].val, "kernel") == 0) {
        static const char *const keys[] = {"mem", "bar"};
        if (take_keys(r, "end kernel", keys, 2, &lk, err) < 0)
            return -1;
        if (lk.n_pos != 1)
            return line_error(r, err, "malformed end kernel line (expected: end kernel mem=N "
                                      "bar=N)");
        const char *mem, *bar;
        if (key_bare(r, "end kernel", &lk, 0, true, &mem, err) < 0 ||
            number(r, "mem", mem, UINT64_MAX, &rec->counts.mem_records, err) < 0 ||
            key_bare(r, "end kernel", &lk, 1, true, &bar, err) < 0 ||
            number(r, "bar", bar, UINT64_MAX, &rec->counts.barrier_records, err) < 0)
            return -1;
        rec->type = TREC_KERNEL_END;
        return 0;
    }
    if (strcmp(t->fields[1].val, "trace") == 0) {
        static const char *const keys[] = {"kernels"};
        if (take_keys(r, "end trace", keys, 1, &lk, err) < 0)
            return -1;
        const char *kernels;
        if (key_bare(r, "end trace", &lk, 0, true, &kernels, err) < 0 ||
            number(r, "kernels", kernels, UINT64_MAX, &rec->kernels, err) < 0)
            return -1;
        /* pos[0] is "trace" */
        bool ok = false;
        if (lk.n_pos == 2 && !lk.pos[1]->quoted && strcmp(lk.pos[1]->val, "complete") == 0) {
            rec->complete = true;
            rec->str = NULL;
            ok = true;
        } else if (lk.n_pos == 3 && !lk.pos[1]->quoted &&
                   strcmp(lk.pos[1]->val, "incomplete") == 0 && lk.pos[2]->quoted) {
            rec->complete = false;
            rec->str = lk.pos[2]->val;
            ok = true;
        }
        if (!ok)
            return line_error(r, err, "malformed end trace line (expected: end trace kernels=N "
                                      "complete, or end trace kernels=N incomplete \"REASON\")");
        rec->type = TREC_END;
        return 0;
    }
    return line_error(r, err, "malformed end line (expected: %s)", USAGE_END);
}

static int parse_record(trace_reader *r, trace_rec *rec, trace_event *ev, err_info *err)
{
    struct trace_text_dec *t = r->text;
    if (split_fields(r, err) < 0)
        return -1;
    const field *f = &t->fields[0];
    if (f->key || f->quoted)
        return line_error(r, err, "a line starts with a record keyword (meta, kernel, file, pc, "
                                  "ld, st, atom, red, bar, shfl, end), not \"%.40s\"",
                          f->key ? f->key : f->val);
    const char *kw = f->val;
    trace_kind kind;
    if (trace_kind_parse(kw, &kind) == 0)
        return parse_mem(r, kind, rec, &ev->mem, err);
    if (strcmp(kw, "bar") == 0)
        return parse_bar(r, rec, &ev->barrier, TRACE_BAR_SYNC, err);
    if (strcmp(kw, "shfl") == 0)
        return parse_bar(r, rec, &ev->barrier, TRACE_BAR_SHFL, err);
    if (strcmp(kw, "pc") == 0)
        return parse_pc(r, rec, err);
    if (strcmp(kw, "kernel") == 0)
        return parse_kernel(r, rec, err);
    if (strcmp(kw, "file") == 0)
        return parse_file(r, rec, err);
    if (strcmp(kw, "end") == 0)
        return parse_end(r, rec, err);
    if (strcmp(kw, "meta") == 0)
        return parse_meta(r, rec, err);
    if (strcmp(kw, TRACE_TEXT_MAGIC) == 0)
        return line_error(r, err, "a second header line (the header is only the first line)");
    return line_error(r, err, "unknown record %.40s (expected meta, kernel, file, pc, ld, st, "
                              "atom, red, bar, shfl or end)", kw);
}

int trace_text_dec_next(trace_reader *r, trace_rec *rec, trace_event *ev, err_info *err)
{
    struct trace_text_dec *t = r->text;
    for (;;) {
        int rc = read_line(r, err);
        if (rc <= 0)
            return rc;
        if (is_empty_line(t->line))
            continue;
        r->loc = t->lineno;
        r->records++;
        return parse_record(r, rec, ev, err) < 0 ? -1 : 1;
    }
}

int trace_text_dec_finish(trace_reader *r, err_info *err)
{
    struct trace_text_dec *t = r->text;
    for (;;) {
        int rc = read_line(r, err);
        if (rc <= 0)
            return rc;
        if (!is_empty_line(t->line))
            return line_error(r, err, "unexpected line after the end of the trace (the end "
                                      "trace line comes last)");
    }
}

int trace_text_dec_open(trace_reader *r, const uint8_t *head, size_t n, err_info *err)
{
    struct trace_text_dec *t = xcalloc(1, sizeof *t);
    r->text = t;
    t->blk = xmalloc(TEXT_BLOCK_BYTES);
    memcpy(t->blk, head, n);
    t->blk_len = n;
    int rc = read_line(r, err);
    if (rc < 0)
        return -1;
    if (split_fields(r, err) < 0)
        return -1;
    uint64_t version;
    if (t->n_fields != 2 || strcmp(t->fields[0].val, TRACE_TEXT_MAGIC) != 0 ||
        t->fields[0].key || t->fields[1].key || t->fields[1].quoted ||
        parse_u64(t->fields[1].val, &version) != 0)
        return line_error(r, err, "malformed header line (expected \"%s %u\")", TRACE_TEXT_MAGIC,
                          TRACE_FORMAT_VERSION);
    if (version > TRACE_FORMAT_VERSION)
        return line_error(r, err, "trace format version %" PRIu64
                                  " is newer than this gpumemsim reads (%u)", version,
                          TRACE_FORMAT_VERSION);
    if (version == 0)
        return line_error(r, err, "trace format version 0 is not valid (expected %u)",
                          TRACE_FORMAT_VERSION);
    r->version = (uint32_t)version;
    r->loc = t->lineno;
    return 0;
}

void trace_text_dec_close(trace_reader *r)
{
    struct trace_text_dec *t = r->text;
    if (!t)
        return;
    free(t->blk);
    free(t->line);
    free(t);
    r->text = NULL;
}

/* ======================================================================
 * Encoder
 * ====================================================================== */

struct trace_text_enc {
    char *p;
    size_t len, cap;
};

static void sb_reserve(struct trace_text_enc *b, size_t extra)
{
    if (b->len + extra > b->cap) {
        b->cap = 2 * (b->len + extra);
        b->p = xrealloc(b->p, b->cap);
    }
}

static void sb_printf(struct trace_text_enc *b, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
static void sb_printf(struct trace_text_enc *b, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
    va_end(ap);
    if (n >= 0 && (size_t)n >= b->cap - b->len) {
        sb_reserve(b, (size_t)n + 1);
        va_start(ap, fmt);
        n = vsnprintf(b->p + b->len, b->cap - b->len, fmt, ap);
        va_end(ap);
    }
    if (n > 0)
        b->len += (size_t)n;
}

/* "s" with \" \\ \n \t escaped */
static void sb_quoted(struct trace_text_enc *b, const char *s)
{
    sb_reserve(b, 2 * strlen(s) + 3);
    char *d = b->p + b->len;
    *d++ = '"';
    for (; *s; s++) {
        switch (*s) {
        case '"': *d++ = '\\'; *d++ = '"'; break;
        case '\\': *d++ = '\\'; *d++ = '\\'; break;
        case '\n': *d++ = '\\'; *d++ = 'n'; break;
        case '\t': *d++ = '\\'; *d++ = 't'; break;
        default: *d++ = *s; break;
        }
    }
    *d++ = '"';
    *d = '\0';
    b->len = (size_t)(d - b->p);
}

static struct trace_text_enc *tenc(trace_writer *w)
{
    return w->text;
}

/* Write the buffered line(s); `lines` says how many it holds. */
static int sb_flush(trace_writer *w, uint64_t lines, err_info *err)
{
    struct trace_text_enc *b = tenc(w);
    if (b->len && fwrite(b->p, 1, b->len, w->f) != b->len) {
        err_set(err, "%s: write error: %s", w->name, strerror(errno));
        return -1;
    }
    w->bytes += b->len;
    w->loc += lines;
    b->len = 0;
    return 0;
}

static int tenc_open(trace_writer *w, int level, err_info *err)
{
    (void)level;
    struct trace_text_enc *b = xcalloc(1, sizeof *b);
    w->text = b;
    b->cap = 4096;
    b->p = xmalloc(b->cap);
    sb_printf(b, "%s %u\n", TRACE_TEXT_MAGIC, TRACE_FORMAT_VERSION);
    return sb_flush(w, 1, err);
}

static int tenc_meta(trace_writer *w, const char *key, const char *value, err_info *err)
{
    struct trace_text_enc *b = tenc(w);
    sb_printf(b, "meta %s ", key);
    sb_quoted(b, value);
    sb_printf(b, "\n");
    return sb_flush(w, 1, err);
}

static int tenc_kernel(trace_writer *w, const trace_kernel *k, err_info *err)
{
    struct trace_text_enc *b = tenc(w);
    sb_printf(b, "kernel launch=%" PRIu32 " grid=%" PRIu32 ",%" PRIu32 ",%" PRIu32
                 " block=%" PRIu32 ",%" PRIu32 ",%" PRIu32 " name=",
              k->launch, k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
              k->block[2]);
    sb_quoted(b, k->name);
    sb_printf(b, " demangled=");
    sb_quoted(b, k->demangled);
    sb_printf(b, " smem_static=%" PRIu32 " smem_dynamic=%" PRIu32 " regs=%" PRIu32
                 " local=%" PRIu32 "\n", k->smem_static_bytes, k->smem_dynamic_bytes,
              k->regs_per_thread, k->local_bytes_per_thread);
    if (sb_flush(w, 1, err) < 0)
        return -1;
    for (uint32_t i = 0; i < k->n_files; i++) {
        sb_printf(b, "file %" PRIu32 " ", i);
        sb_quoted(b, k->files[i]);
        sb_printf(b, "\n");
        if (sb_flush(w, 1, err) < 0)
            return -1;
    }
    for (uint32_t i = 0; i < k->n_pcs; i++) {
        const trace_pc_info *p = &k->pcs[i];
        sb_printf(b, "pc 0x%04" PRIx32 " ", p->pc);
        sb_quoted(b, p->sass);
        sb_printf(b, " cache=%s", trace_cache_op_name((trace_cache_op)p->cache_op));
        if (p->file != -1 || p->line != 0)
            sb_printf(b, " src=%" PRId32 ":%" PRIu32, p->file, p->line);
        if (p->ctrl & TRACE_CTRL_KNOWN)
            sb_printf(b, " ctrl=0x%06" PRIx32, p->ctrl & ~TRACE_CTRL_KNOWN);
        sb_printf(b, "\n");
        if (sb_flush(w, 1, err) < 0)
            return -1;
    }
    return 0;
}

static int tenc_mem(trace_writer *w, const trace_mem *m, err_info *err)
{
    struct trace_text_enc *b = tenc(w);
    sb_reserve(b, 1024);
    sb_printf(b, "%s %s %u cta=%" PRIu32 " warp=%" PRIu32, trace_kind_name((trace_kind)m->kind),
              trace_space_name((trace_space)m->space), m->size_bytes, m->cta, m->warp);
    if (m->sm != TRACE_SM_UNKNOWN)
        sb_printf(b, " sm=%" PRId32, m->sm);
    sb_printf(b, " pc=0x%" PRIx32, m->pc);
    if (m->cache_op != TRACE_CACHE_DEFAULT)
        sb_printf(b, " cache=%s", trace_cache_op_name((trace_cache_op)m->cache_op));
    if (m->flags & TRACE_MEM_GENERIC)
        sb_printf(b, " generic");
    if (m->flags & TRACE_MEM_LDGSTS)
        sb_printf(b, " ldgsts");
    sb_printf(b, " mask=0x%08" PRIx32, m->active_mask);
    uint64_t base, stride;
    if (trace_mem_fit_stride(m, &base, &stride)) {
        sb_printf(b, " base=0x%" PRIx64 " stride=%" PRId64 "\n", base, (int64_t)stride);
    } else {
        sb_printf(b, " addrs=");
        const char *sep = "";
        for (int l = 0; l < TRACE_WARP_LANES; l++) {
            if (m->active_mask >> l & 1u) {
                sb_printf(b, "%s0x%" PRIx64, sep, m->addr[l]);
                sep = ",";
            }
        }
        sb_printf(b, "\n");
    }
    return sb_flush(w, 1, err);
}

static int tenc_barrier(trace_writer *w, const trace_barrier *bar, err_info *err)
{
    struct trace_text_enc *b = tenc(w);
    sb_printf(b, "%s cta=%" PRIu32 " warp=%" PRIu32, bar->kind == TRACE_BAR_SHFL ? "shfl" : "bar", bar->cta,
              bar->warp);
    if (bar->sm != TRACE_SM_UNKNOWN)
        sb_printf(b, " sm=%" PRId32, bar->sm);
    sb_printf(b, " pc=0x%" PRIx32 "\n", bar->pc);
    return sb_flush(w, 1, err);
}

static int tenc_kernel_end(trace_writer *w, const trace_kernel_end *c, err_info *err)
{
    struct trace_text_enc *b = tenc(w);
    sb_printf(b, "end kernel mem=%" PRIu64 " bar=%" PRIu64 "\n", c->mem_records,
              c->barrier_records);
    return sb_flush(w, 1, err);
}

static int tenc_end(trace_writer *w, uint32_t kernels, bool complete, const char *reason,
                    err_info *err)
{
    struct trace_text_enc *b = tenc(w);
    sb_printf(b, "end trace kernels=%" PRIu32 " %s", kernels, complete ? "complete" : "incomplete");
    if (!complete) {
        sb_printf(b, " ");
        sb_quoted(b, reason);
    }
    sb_printf(b, "\n");
    return sb_flush(w, 1, err);
}

static void tenc_free(trace_writer *w)
{
    struct trace_text_enc *b = tenc(w);
    if (!b)
        return;
    free(b->p);
    free(b);
    w->text = NULL;
}

const trace_enc_ops trace_text_enc_ops = {
    .open = tenc_open,
    .meta = tenc_meta,
    .kernel = tenc_kernel,
    .mem = tenc_mem,
    .barrier = tenc_barrier,
    .kernel_end = tenc_kernel_end,
    .end = tenc_end,
    .free = tenc_free,
};
