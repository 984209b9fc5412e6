/* capture_sass.c - SASS listings and resource usage into per-PC tables; the
 * opcode table (see capture_sass.h for the cache-operator rules).
 *
 * The parsers read what NVIDIA's tools print; they ignore lines they do not
 * need (directives, encodings) and refuse only what would make the table
 * wrong: an instruction outside a function, PCs that do not ascend, a
 * function listed twice, absurd sizes. Labels ("NAME:" lines) are kept per
 * function to turn nvdisasm's label operands into PCs. */
#include "capture_sass.h"

#include <ctype.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#define SASS_MAX_LINE_BYTES (1u << 20)
#define OPCODE_BYTES 64
#define OPCODE_MAX_PARTS 16

/* ---- opcodes ----------------------------------------------------------------- */

/* Copy the opcode token of an instruction (after an optional '{' and
 * predicate) into op; return a pointer just past it in sass. */
static const char *opcode_token(const char *sass, char *op, size_t op_bytes)
{
    const char *p = sass;
    while (*p == ' ' || *p == '\t' || *p == '{')
        p++;
    if (*p == '@') {
        while (*p && *p != ' ' && *p != '\t')
            p++;
        while (*p == ' ' || *p == '\t')
            p++;
    }
    size_t n = 0;
    while (*p && *p != ' ' && *p != '\t' && *p != ';' && *p != '}') {
        if (n + 1 < op_bytes)
            op[n++] = *p;
        p++;
    }
    op[n] = '\0';
    return p;
}

static size_t split_parts(char *op, char *parts[], size_t max)
{
    size_t n = 0;
    char *s = op;
    while (n < max) {
        parts[n++] = s;
        char *dot = strchr(s, '.');
        if (!dot)
            break;
        *dot = '\0';
        s = dot + 1;
    }
    return n;
}

static bool has_part(char *parts[], size_t n, const char *s)
{
    for (size_t i = 1; i < n; i++)
        if (strcmp(parts[i], s) == 0)
            return true;
    return false;
}

static bool has_strong(char *parts[], size_t n, const char *scope)
{
    for (size_t i = 1; i + 1 < n; i++)
        if (strcmp(parts[i], "STRONG") == 0 && strcmp(parts[i + 1], scope) == 0)
            return true;
    return false;
}

/* The cache operator a load or store implies (precedence in capture_sass.h). */
static trace_cache_op cache_op_of(char *parts[], size_t n)
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

static bool in_list(const char *base, const char *const list[])
{
    for (size_t i = 0; list[i]; i++)
        if (strcmp(base, list[i]) == 0)
            return true;
    return false;
}

/* LDC/ULDC: true when the operand names the constant bank of __constant__
 * variables, bank 3 on sm_70..sm_90 (probe: "LDC R5, c[0x3][R0]"). Bank 0
 * holds the kernel parameters and driver constants; bank 4 holds addresses
 * the loader patches in (PyTorch's assert path on the H200: "ULDC.64 UR4,
 * c[0x4][0x7c8]", then "LDC.64 R2, c[0x4][R2]"): neither is program data. A
 * bank given by a register (bindless constant buffers) counts as data. */
static bool const_user_bank(const char *operands)
{
    const char *c = strstr(operands, "c[");
    if (!c)
        return false;
    c += 2;
    if (strncmp(c, "0x", 2) != 0)
        return true;
    char *end;
    unsigned long bank = strtoul(c + 2, &end, 16);
    return end != c + 2 && bank == 3;
}

void capture_op_classify(const char *sass, capture_op *out)
{
    static const char *const tma[] = {"UTMALDG", "UTMASTG", "UTMAREDG", "UTMAPF", NULL};
    static const char *const tex[] = {"TEX", "TLD", "TLD4", "TXD", "TEXS", "TLDS", "TLD4S", NULL};
    static const char *const surf[] = {"SULD", "SUST", "SUATOM", "SURED", NULL};
    static const char *const bulk[] = {"UBLKCP", "UBLKRED", "UBLKPF", NULL};

    memset(out, 0, sizeof *out);
    out->op_class = CAPTURE_OP_OTHER;
    out->cache_op = TRACE_CACHE_DEFAULT;

    char op[OPCODE_BYTES];
    const char *operands = opcode_token(sass, op, sizeof op);
    char *parts[OPCODE_MAX_PARTS];
    size_t n = split_parts(op, parts, OPCODE_MAX_PARTS);
    const char *base = parts[0];

    if (!strcmp(base, "LDG") || !strcmp(base, "STG")) {
        out->op_class = CAPTURE_OP_GLOBAL;
        out->cache_op = (uint8_t)cache_op_of(parts, n);
    } else if (!strcmp(base, "ATOMG") || !strcmp(base, "REDG")) {
        out->op_class = CAPTURE_OP_GLOBAL;
        out->atomic = true;
        out->red = base[0] == 'R';
    } else if (!strcmp(base, "LD") || !strcmp(base, "ST")) {
        out->op_class = CAPTURE_OP_GENERIC;
        out->cache_op = (uint8_t)cache_op_of(parts, n);
    } else if (!strcmp(base, "ATOM") || !strcmp(base, "RED")) {
        out->op_class = CAPTURE_OP_GENERIC;
        out->atomic = true;
        out->red = base[0] == 'R';
    } else if (!strcmp(base, "LDS") || !strcmp(base, "STS") || !strcmp(base, "LDSM") ||
               !strcmp(base, "STSM")) {
        out->op_class = CAPTURE_OP_SHARED;
    } else if (!strcmp(base, "ATOMS")) {
        out->op_class = CAPTURE_OP_SHARED;
        out->atomic = true;
    } else if (!strcmp(base, "LDL") || !strcmp(base, "STL")) {
        out->op_class = CAPTURE_OP_LOCAL;
        out->cache_op = (uint8_t)cache_op_of(parts, n);
    } else if (!strcmp(base, "LDGSTS")) {
        out->op_class = CAPTURE_OP_LDGSTS;
        out->cache_op = has_part(parts, n, "BYPASS") ? TRACE_CACHE_CG : TRACE_CACHE_CA;
    } else if (!strcmp(base, "BAR")) {
        out->op_class = CAPTURE_OP_BARRIER;
    } else if (!strcmp(base, "SHFL")) {
        out->op_class = CAPTURE_OP_SHFL;
    } else if (in_list(base, tma)) {
        out->op_class = CAPTURE_OP_TMA;
    } else if (in_list(base, tex)) {
        out->op_class = CAPTURE_OP_TEXTURE;
    } else if (in_list(base, surf)) {
        out->op_class = CAPTURE_OP_SURFACE;
    } else if (in_list(base, bulk)) {
        out->op_class = CAPTURE_OP_BULK;
    } else if ((!strcmp(base, "LDC") || !strcmp(base, "ULDC")) && const_user_bank(operands)) {
        out->op_class = CAPTURE_OP_CONST_USER;
    }
}

bool capture_op_missing_from_trace(capture_op_class c)
{
    return c == CAPTURE_OP_TMA || c == CAPTURE_OP_TEXTURE || c == CAPTURE_OP_SURFACE ||
           c == CAPTURE_OP_CONST_USER || c == CAPTURE_OP_BULK;
}

const char *capture_op_class_name(capture_op_class c)
{
    static const char *const names[CAPTURE_OP_COUNT] = {
        [CAPTURE_OP_OTHER] = "other",
        [CAPTURE_OP_GLOBAL] = "global",
        [CAPTURE_OP_GENERIC] = "generic",
        [CAPTURE_OP_SHARED] = "shared",
        [CAPTURE_OP_LOCAL] = "local",
        [CAPTURE_OP_LDGSTS] = "cp.async",
        [CAPTURE_OP_BARRIER] = "barrier",
        [CAPTURE_OP_SHFL] = "shuffle",
        [CAPTURE_OP_TMA] = "TMA tensor copy",
        [CAPTURE_OP_TEXTURE] = "texture fetch",
        [CAPTURE_OP_SURFACE] = "surface access",
        [CAPTURE_OP_CONST_USER] = "load of __constant__ data",
        [CAPTURE_OP_BULK] = "bulk copy (cp.async.bulk, not recorded)",
    };
    return (unsigned)c < CAPTURE_OP_COUNT ? names[c] : "?";
}

/* ---- module listings ------------------------------------------------------- */

void capture_sass_module_init(capture_sass_module *m)
{
    memset(m, 0, sizeof *m);
}

static void func_free(capture_sass_func *f)
{
    free(f->name);
    for (uint32_t i = 0; i < f->n_insts; i++)
        free(f->insts[i].text);
    free(f->insts);
    for (uint32_t i = 0; i < f->n_files; i++)
        free(f->files[i]);
    free(f->files);
    memset(f, 0, sizeof *f);
}

void capture_sass_module_free(capture_sass_module *m)
{
    for (uint32_t i = 0; i < m->n_funcs; i++)
        func_free(&m->funcs[i]);
    free(m->funcs);
    memset(m, 0, sizeof *m);
}

const capture_sass_func *capture_sass_find(const capture_sass_module *m, const char *fname)
{
    for (uint32_t i = 0; i < m->n_funcs; i++)
        if (strcmp(m->funcs[i].name, fname) == 0)
            return &m->funcs[i];
    return NULL;
}

static capture_sass_func *find_mut(capture_sass_module *m, const char *fname)
{
    return (capture_sass_func *)capture_sass_find(m, fname);
}

static capture_sass_func *add_func(capture_sass_module *m, const char *fname, size_t len)
{
    m->funcs = xrealloc(m->funcs, (m->n_funcs + 1) * sizeof *m->funcs);
    capture_sass_func *f = &m->funcs[m->n_funcs++];
    memset(f, 0, sizeof *f);
    f->name = xmalloc(len + 1);
    memcpy(f->name, fname, len);
    f->name[len] = '\0';
    return f;
}

/* Read one line into *buf (without the newline). Returns 1, 0 at end, -1 on
 * a line longer than SASS_MAX_LINE_BYTES. */
static int read_line(FILE *f, char **buf, size_t *cap)
{
    ssize_t n = getline(buf, cap, f);
    if (n < 0)
        return 0;
    if ((size_t)n > SASS_MAX_LINE_BYTES)
        return -1;
    while (n > 0 && ((*buf)[n - 1] == '\n' || (*buf)[n - 1] == '\r'))
        (*buf)[--n] = '\0';
    return 1;
}

static const char *skip_ws(const char *p)
{
    while (*p == ' ' || *p == '\t')
        p++;
    return p;
}

/* A function name starting at p, ending at a blank, a comma or the end. */
static size_t name_len(const char *p)
{
    size_t n = 0;
    while (p[n] && p[n] != ' ' && p[n] != '\t' && p[n] != ',')
        n++;
    return n;
}

/* An encoding word "/\* 0x<16 hex digits> *\/" at p (after blanks): 1 with
 * its value, 0 when there is none. */
static int parse_word(const char *p, uint64_t *out)
{
    p = skip_ws(p);
    if (strncmp(p, "/* 0x", 5) != 0)
        return 0;
    p += 5;
    uint64_t v = 0;
    int digits = 0;
    for (; isxdigit((unsigned char)*p); p++, digits++)
        v = v * 16 + (uint64_t)(isdigit((unsigned char)*p) ? *p - '0' : tolower((unsigned char)*p) - 'a' + 10);
    if (digits != 16 || strncmp(skip_ws(p), "*/", 2) != 0)
        return 0;
    *out = v;
    return 1;
}

/* Parse "/\*HEX*\/ TEXT ;": returns 1 with pc and the text span, 0 when the line
 * is not an instruction. */
static int parse_inst(const char *line, uint32_t *pc, const char **text, size_t *text_len)
{
    const char *p = skip_ws(line);
    if (p[0] != '/' || p[1] != '*' || !isxdigit((unsigned char)p[2]))
        return 0;
    p += 2;
    uint64_t v = 0;
    int digits = 0;
    while (isxdigit((unsigned char)*p)) {
        int d = isdigit((unsigned char)*p) ? *p - '0' : (tolower((unsigned char)*p) - 'a' + 10);
        v = v * 16 + (uint64_t)d;
        if (++digits > 8)
            return 0;
        p++;
    }
    if (p[0] != '*' || p[1] != '/')
        return 0;
    p = skip_ws(p + 2);
    if (*p == '{')
        p = skip_ws(p + 1);
    const char *semi = strchr(p, ';');
    if (!semi)
        return 0;
    const char *end = semi;
    while (end > p && (end[-1] == ' ' || end[-1] == '\t'))
        end--;
    if (end == p)
        return 0;
    *pc = (uint32_t)v;
    *text = p;
    *text_len = (size_t)(end - p);
    return 1;
}

static int32_t intern_file(capture_sass_func *f, const char *path, size_t len)
{
    for (uint32_t i = 0; i < f->n_files; i++)
        if (strlen(f->files[i]) == len && memcmp(f->files[i], path, len) == 0)
            return (int32_t)i;
    if (f->n_files >= TRACE_MAX_FILES)
        return -2;
    f->files = xrealloc(f->files, (f->n_files + 1) * sizeof *f->files);
    char *s = xmalloc(len + 1);
    memcpy(s, path, len);
    s[len] = '\0';
    f->files[f->n_files] = s;
    return (int32_t)f->n_files++;
}

/* ---- labels: nvdisasm's branch targets ------------------------------------ */

/* nvdisasm -g -c writes a branch target as a label operand ("BRA `(.L_x_0)",
 * "BSSY B0, `(.L_x_1)", "CALL.REL.NOINC `($k$__internal_0)") and the label on
 * its own line (".L_x_0:") before the instruction it names. The trace wants
 * the target as the function-relative PC that cuobjdump -sass prints
 * ("BRA 0x1a0": model/sassflow.c reads the first "0x" of the text), so each
 * function's labels are collected with their PCs and its label operands
 * rewritten when the function ends. A label of another function (a call to
 * a separate device function, vprintf) or one defined twice keeps its
 * text: there is no PC of this function to put there. */

typedef struct sass_label {
    char *name;
    uint32_t pc;
    bool twice; /* defined more than once in the function: not rewritten */
} sass_label;

typedef struct label_table {
    uint32_t n, cap;
    uint32_t pending; /* the last `pending` labels wait for the next instruction's PC */
    sass_label *v;
} label_table;

static void labels_clear(label_table *t)
{
    for (uint32_t i = 0; i < t->n; i++)
        free(t->v[i].name);
    t->n = 0;
    t->pending = 0;
}

static bool label_char(char c)
{
    return isalnum((unsigned char)c) || c == '_' || c == '$' || c == '.';
}

/* A label line "NAME:" (blanks around it): returns the name's length, 0 when
 * the line is something else. */
static size_t label_line(const char *p, const char **name)
{
    size_t n = 0;
    while (label_char(p[n]))
        n++;
    if (n == 0 || p[n] != ':' || *skip_ws(p + n + 1) != '\0')
        return 0;
    *name = p;
    return n;
}

static void label_add(label_table *t, const char *name, size_t len)
{
    if (t->n == t->cap) {
        t->cap = t->cap ? t->cap * 2 : 16;
        t->v = xrealloc(t->v, t->cap * sizeof *t->v);
    }
    sass_label *l = &t->v[t->n++];
    l->name = xmalloc(len + 1);
    memcpy(l->name, name, len);
    l->name[len] = '\0';
    l->pc = 0;
    l->twice = false;
    t->pending++;
}

static void labels_resolve(label_table *t, uint32_t pc)
{
    for (uint32_t i = t->n - t->pending; i < t->n; i++)
        t->v[i].pc = pc;
    t->pending = 0;
}

static int label_cmp(const void *a, const void *b)
{
    return strcmp(((const sass_label *)a)->name, ((const sass_label *)b)->name);
}

/* inst's text with every "`(NAME)" of a label in t (sorted) replaced by
 * "0x<pc>"; NULL when nothing changes. */
static char *rewrite_labels(const char *text, const label_table *t)
{
    if (!strstr(text, "`("))
        return NULL;
    size_t cap = strlen(text) + 1, len = 0;
    char *out = xmalloc(cap);
    bool changed = false;
    const char *p = text;
    while (*p) {
        const char *open = strstr(p, "`(");
        const char *close = open ? strchr(open + 2, ')') : NULL;
        const sass_label *hit = NULL;
        if (close) {
            size_t nl = (size_t)(close - open - 2);
            char key[TRACE_MAX_STRING_BYTES];
            if (nl < sizeof key) {
                memcpy(key, open + 2, nl);
                key[nl] = '\0';
                sass_label probe = {.name = key};
                hit = bsearch(&probe, t->v, t->n, sizeof *t->v, label_cmp);
                if (hit && hit->twice)
                    hit = NULL;
            }
        }
        const char *copy_end = hit ? open : (close ? close + 1 : p + strlen(p));
        char pc_text[16];
        int pc_len = hit ? snprintf(pc_text, sizeof pc_text, "0x%" PRIx32, hit->pc) : 0;
        size_t need = len + (size_t)(copy_end - p) + (size_t)pc_len + 1;
        if (need > cap) {
            cap = need * 2;
            out = xrealloc(out, cap);
        }
        memcpy(out + len, p, (size_t)(copy_end - p));
        len += (size_t)(copy_end - p);
        if (hit) {
            memcpy(out + len, pc_text, (size_t)pc_len);
            len += (size_t)pc_len;
            changed = true;
            p = close + 1;
        } else {
            p = copy_end;
        }
    }
    out[len] = '\0';
    if (!changed || len >= TRACE_MAX_STRING_BYTES) {
        free(out);
        return NULL;
    }
    return out;
}

/* The function ends: labels after its last instruction name its end (the
 * next 16-byte instruction slot, sm_70 and later), then its label operands
 * become PCs. */
static void labels_apply(capture_sass_func *f, label_table *t)
{
    if (t->pending)
        labels_resolve(t, f->n_insts ? f->insts[f->n_insts - 1].pc + 16u : 0);
    if (t->n) {
        qsort(t->v, t->n, sizeof *t->v, label_cmp);
        for (uint32_t i = 1; i < t->n; i++)
            if (strcmp(t->v[i - 1].name, t->v[i].name) == 0)
                t->v[i - 1].twice = t->v[i].twice = true;
        for (uint32_t i = 0; i < f->n_insts; i++) {
            char *s = rewrite_labels(f->insts[i].text, t);
            if (s) {
                free(f->insts[i].text);
                f->insts[i].text = s;
            }
        }
    }
    labels_clear(t);
}

int capture_sass_parse(FILE *in, const char *name, capture_sass_module *m, err_info *err)
{
    char *buf = NULL;
    size_t cap = 0;
    uint64_t lineno = 0;
    capture_sass_func *cur = NULL;
    uint32_t cur_index = 0;
    int32_t loc_file = -1;
    uint32_t loc_line = 0;
    uint32_t insts_cap = 0;
    label_table labels = {0};
    int rc = 0;
    int r;
    /* the instruction whose encoding's first word its line printed (-hex):
     * the next line's word, the upper one, holds its control bits (bits
     * 105-127 of the 128-bit instruction, sm_70 and later) */
    capture_sass_inst *want_upper = NULL;

    while ((r = read_line(in, &buf, &cap)) == 1) {
        lineno++;
        const char *p = skip_ws(buf);
        uint64_t word;
        if (want_upper && parse_word(p, &word)) {
            want_upper->ctrl = (uint32_t)(word >> 41) | TRACE_CTRL_KNOWN;
            want_upper = NULL;
            continue;
        }
        want_upper = NULL;
        const char *fname = NULL;
        size_t flen = 0;
        bool section_end = false;

        if (strncmp(p, "//---------------------", 23) == 0) {
            const char *q = skip_ws(p + 23);
            if (strncmp(q, ".text.", 6) == 0) {
                fname = q + 6;
                flen = name_len(fname);
            } else {
                section_end = true;
            }
        } else if (strncmp(p, ".section", 8) == 0 && (p[8] == ' ' || p[8] == '\t')) {
            /* not .sectionflags or .sectioninfo, which follow it */
            const char *q = skip_ws(p + 8);
            if (strncmp(q, ".text.", 6) == 0) {
                fname = q + 6;
                flen = name_len(fname);
            } else {
                section_end = true;
            }
        } else if (strncmp(p, "Function : ", 11) == 0) {
            fname = skip_ws(p + 11);
            flen = name_len(fname);
        } else if (strncmp(p, "//## File \"", 11) == 0) {
            const char *path = p + 11;
            const char *close = strchr(path, '"');
            const char *ln = close ? strstr(close, ", line ") : NULL;
            if (!close || !ln) {
                err_set(err, "%s: line %" PRIu64 ": expected '//## File \"PATH\", line N'", name, lineno);
                rc = -1;
                break;
            }
            char *end;
            unsigned long v = strtoul(ln + 7, &end, 10);
            if (end == ln + 7 || v > UINT32_MAX) {
                err_set(err, "%s: line %" PRIu64 ": bad line number in '//## File' annotation", name, lineno);
                rc = -1;
                break;
            }
            if (cur) {
                int32_t fi = intern_file(cur, path, (size_t)(close - path));
                if (fi == -2) {
                    err_set(err, "%s: line %" PRIu64 ": function %s names more than %u source files",
                            name, lineno, cur->name, TRACE_MAX_FILES);
                    rc = -1;
                    break;
                }
                loc_file = fi;
                loc_line = (uint32_t)v;
            }
            continue;
        }

        if (section_end) {
            if (cur)
                labels_apply(&m->funcs[cur_index], &labels);
            cur = NULL;
            continue;
        }
        if (fname) {
            if (flen == 0 || flen >= TRACE_MAX_STRING_BYTES) {
                err_set(err, "%s: line %" PRIu64 ": bad function name", name, lineno);
                rc = -1;
                break;
            }
            if (cur && strlen(cur->name) == flen && memcmp(cur->name, fname, flen) == 0)
                continue; /* nvdisasm names a function twice: banner, then .section */
            char tmp[TRACE_MAX_STRING_BYTES];
            memcpy(tmp, fname, flen);
            tmp[flen] = '\0';
            if (find_mut(m, tmp)) {
                err_set(err, "%s: line %" PRIu64 ": function %s is listed twice", name, lineno, tmp);
                rc = -1;
                break;
            }
            if (cur)
                labels_apply(&m->funcs[cur_index], &labels);
            cur = add_func(m, fname, flen);
            cur_index = m->n_funcs - 1;
            insts_cap = 0;
            loc_file = -1;
            loc_line = 0;
            continue;
        }

        const char *label;
        size_t label_len = label_line(p, &label);
        if (label_len) {
            if (cur)
                label_add(&labels, label, label_len);
            continue;
        }

        uint32_t pc;
        const char *text;
        size_t tlen;
        if (!parse_inst(buf, &pc, &text, &tlen))
            continue;
        if (!cur) {
            err_set(err, "%s: line %" PRIu64 ": instruction outside any function", name, lineno);
            rc = -1;
            break;
        }
        cur = &m->funcs[cur_index]; /* add_func may have moved the array */
        if (cur->n_insts > 0 && pc <= cur->insts[cur->n_insts - 1].pc) {
            err_set(err, "%s: line %" PRIu64 ": function %s: offset 0x%04x does not follow 0x%04x",
                    name, lineno, cur->name, pc, cur->insts[cur->n_insts - 1].pc);
            rc = -1;
            break;
        }
        if (cur->n_insts >= TRACE_MAX_PCS || tlen >= TRACE_MAX_STRING_BYTES) {
            err_set(err, "%s: line %" PRIu64 ": function %s: more than %u instructions or an instruction "
                    "longer than %u bytes", name, lineno, cur->name, TRACE_MAX_PCS, TRACE_MAX_STRING_BYTES);
            rc = -1;
            break;
        }
        if (cur->n_insts == insts_cap) {
            insts_cap = insts_cap ? insts_cap * 2 : 64;
            cur->insts = xrealloc(cur->insts, insts_cap * sizeof *cur->insts);
        }
        capture_sass_inst *in_ = &cur->insts[cur->n_insts++];
        in_->pc = pc;
        in_->text = xmalloc(tlen + 1);
        memcpy(in_->text, text, tlen);
        in_->text[tlen] = '\0';
        in_->file = loc_file;
        in_->line = loc_line;
        in_->ctrl = 0;
        const char *semi = strchr(text + tlen, ';');
        if (semi && parse_word(semi + 1, &word))
            want_upper = in_;
        labels_resolve(&labels, pc);
    }
    if (rc == 0 && cur)
        labels_apply(&m->funcs[cur_index], &labels);
    labels_clear(&labels);
    free(labels.v);
    if (r < 0 && rc == 0) {
        err_set(err, "%s: line %" PRIu64 ": line longer than %u bytes", name, lineno + 1, SASS_MAX_LINE_BYTES);
        rc = -1;
    }
    if (rc == 0 && ferror(in)) {
        err_set(err, "%s: read error", name);
        rc = -1;
    }
    free(buf);
    return rc;
}

/* One "KEY:VALUE" token of a res-usage line. */
static int res_value(const char *line, const char *key, uint32_t *out, bool *found)
{
    size_t kl = strlen(key);
    const char *p = line;
    while ((p = strstr(p, key)) != NULL) {
        bool at_start = p == line || p[-1] == ' ' || p[-1] == '\t';
        if (at_start && p[kl] == ':') {
            char *end;
            unsigned long long v = strtoull(p + kl + 1, &end, 10);
            if (end == p + kl + 1 || v > UINT32_MAX)
                return -1;
            *out = (uint32_t)v;
            *found = true;
            return 0;
        }
        p += kl;
    }
    return 0;
}

int capture_res_usage_parse(FILE *in, const char *name, capture_sass_module *m, err_info *err)
{
    char *buf = NULL;
    size_t cap = 0;
    uint64_t lineno = 0;
    int32_t cur = -1;
    int rc = 0;
    int r;

    while ((r = read_line(in, &buf, &cap)) == 1) {
        lineno++;
        const char *p = skip_ws(buf);
        if (strncmp(p, "Function ", 9) == 0) {
            const char *fname = p + 9;
            size_t len = strlen(fname);
            while (len > 0 && (fname[len - 1] == ' ' || fname[len - 1] == '\t'))
                len--;
            if (len > 0 && fname[len - 1] == ':')
                len--;
            if (len == 0 || len >= TRACE_MAX_STRING_BYTES) {
                err_set(err, "%s: line %" PRIu64 ": bad function name", name, lineno);
                rc = -1;
                break;
            }
            char tmp[TRACE_MAX_STRING_BYTES];
            memcpy(tmp, fname, len);
            tmp[len] = '\0';
            capture_sass_func *f = find_mut(m, tmp);
            if (!f)
                f = add_func(m, tmp, len);
            cur = (int32_t)(f - m->funcs);
            continue;
        }
        if (strncmp(p, "Common:", 7) == 0 || strncmp(p, "Resource usage", 14) == 0) {
            cur = -1;
            continue;
        }
        if (cur < 0 || strncmp(p, "REG:", 4) != 0)
            continue;
        capture_sass_func *f = &m->funcs[cur];
        bool found_reg = false, found_other = false;
        uint32_t reg = 0, stack = 0, shared = 0, local = 0;
        if (res_value(p, "REG", &reg, &found_reg) < 0 || res_value(p, "STACK", &stack, &found_other) < 0 ||
            res_value(p, "SHARED", &shared, &found_other) < 0 || res_value(p, "LOCAL", &local, &found_other) < 0 ||
            !found_reg) {
            err_set(err, "%s: line %" PRIu64 ": expected 'REG:n STACK:n SHARED:n LOCAL:n' for function %s",
                    name, lineno, f->name);
            rc = -1;
            break;
        }
        f->has_res = true;
        f->regs = reg;
        f->stack_bytes = stack;
        f->shared_bytes = shared;
        f->local_bytes = local;
        cur = -1;
    }
    if (r < 0 && rc == 0) {
        err_set(err, "%s: line %" PRIu64 ": line longer than %u bytes", name, lineno + 1, SASS_MAX_LINE_BYTES);
        rc = -1;
    }
    free(buf);
    return rc;
}

/* ---- trace kernels --------------------------------------------------------- */

void capture_kernel_clear(trace_kernel *k)
{
    free(k->name);
    free(k->demangled);
    for (uint32_t i = 0; i < k->n_files; i++)
        free(k->files[i]);
    free(k->files);
    for (uint32_t i = 0; i < k->n_pcs; i++)
        free(k->pcs[i].sass);
    free(k->pcs);
    memset(k, 0, sizeof *k);
}

void capture_kernel_set_sass(trace_kernel *k, const capture_sass_func *f)
{
    for (uint32_t i = 0; i < k->n_files; i++)
        free(k->files[i]);
    free(k->files);
    for (uint32_t i = 0; i < k->n_pcs; i++)
        free(k->pcs[i].sass);
    free(k->pcs);
    k->files = NULL;
    k->n_files = 0;
    k->pcs = NULL;
    k->n_pcs = 0;

    /* the kernel's file index for each of f's files, -1 until used */
    int32_t *remap = xmalloc((f->n_files ? f->n_files : 1) * sizeof *remap);
    for (uint32_t i = 0; i < f->n_files; i++)
        remap[i] = -1;
    k->pcs = f->n_insts ? xcalloc(f->n_insts, sizeof *k->pcs) : NULL;
    for (uint32_t i = 0; i < f->n_insts; i++) {
        const capture_sass_inst *in_ = &f->insts[i];
        capture_op op;
        capture_op_classify(in_->text, &op); /* TRACE_CACHE_DEFAULT for all but loads and stores */
        trace_pc_info *pi = &k->pcs[k->n_pcs++];
        pi->pc = in_->pc;
        pi->sass = xstrdup(in_->text);
        pi->cache_op = op.cache_op;
        pi->file = -1;
        pi->line = in_->line;
        pi->ctrl = in_->ctrl;
        if (in_->file >= 0 && (uint32_t)in_->file < f->n_files) {
            if (remap[in_->file] < 0) {
                k->files = xrealloc(k->files, (k->n_files + 1) * sizeof *k->files);
                k->files[k->n_files] = xstrdup(f->files[in_->file]);
                remap[in_->file] = (int32_t)k->n_files++;
            }
            pi->file = remap[in_->file];
        }
    }
    free(remap);
    if (f->has_res) {
        k->smem_static_bytes = f->shared_bytes;
        k->regs_per_thread = f->regs;
        k->local_bytes_per_thread = f->stack_bytes + f->local_bytes;
    }
}

uint32_t capture_static_smem(uint32_t res_shared, uint32_t reserved)
{
    return res_shared >= reserved ? res_shared - reserved : res_shared;
}

uint32_t capture_sass_missing_summary(const capture_sass_func *f, char *msg, size_t msg_bytes)
{
    uint32_t count[CAPTURE_OP_COUNT] = {0};
    int32_t first[CAPTURE_OP_COUNT];
    for (int c = 0; c < CAPTURE_OP_COUNT; c++)
        first[c] = -1;
    uint32_t total = 0;
    for (uint32_t i = 0; i < f->n_insts; i++) {
        capture_op op;
        capture_op_classify(f->insts[i].text, &op);
        if (!capture_op_missing_from_trace((capture_op_class)op.op_class))
            continue;
        if (count[op.op_class]++ == 0)
            first[op.op_class] = (int32_t)i;
        total++;
    }
    if (msg_bytes)
        msg[0] = '\0';
    size_t used = 0;
    for (int c = 0; c < CAPTURE_OP_COUNT && msg_bytes; c++) {
        if (!count[c])
            continue;
        const capture_sass_inst *in_ = &f->insts[first[c]];
        int w = snprintf(msg + used, msg_bytes - used, "%s%u %s (first: '%s' at 0x%04x)", used ? ", " : "",
                         count[c], capture_op_class_name((capture_op_class)c), in_->text, in_->pc);
        if (w < 0 || (size_t)w >= msg_bytes - used)
            break;
        used += (size_t)w;
    }
    return total;
}
