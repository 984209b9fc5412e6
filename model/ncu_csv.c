/* ncu_csv.c - readers for Nsight Compute's CSV output (metric reports and the
 * source page), see ncu_csv.h and docs/ncu-csv.md.
 *
 * Three layers: a streaming RFC-4180 record reader (quoted fields, doubled
 * quotes, line breaks inside quotes, CRLF; bounded record size; skips ncu's
 * "==PROF==" lines and keeps "==ERROR==" ones as notes), the value parser
 * (numbers as ncu prints them), and the two shape readers on top. Nothing here
 * knows what a metric means: the validation decides that. */
#include "ncu_csv.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

/* ---- messages ------------------------------------------------------------- */

/* Every message is "NAME:LINE: what was expected". */
__attribute__((format(printf, 4, 5)))
static int fail_at(err_info *err, const char *name, uint64_t line, const char *fmt, ...)
{
    char what[ERR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    err_set(err, "%s:%" PRIu64 ": %s", name, line, what);
    return -1;
}

/* Input echoed in a message or note: cut to fit buf (n - 4 characters and
 * "..."; messages use 64 bytes), control bytes shown as '?', so the line stays
 * one short line whatever the file holds. */
static const char *shown(const char *s, char *buf, size_t n)
{
    size_t max = n - 4;
    size_t i = 0;
    for (; i < max && s[i]; i++)
        buf[i] = (unsigned char)s[i] < 0x20 || s[i] == 0x7f ? '?' : s[i];
    if (s[i])
        memcpy(buf + i, "...", 4);
    else
        buf[i] = '\0';
    return buf;
}

/* ---- the record reader ---------------------------------------------------- */

typedef struct csv_reader {
    FILE *f;
    const char *name;
    uint64_t line;        /* number of the last physical line read */
    uint64_t record_line; /* first physical line of the current record */
    uint64_t bytes;       /* bytes read so far */
    char *raw;            /* the current record as written, NUL-terminated */
    size_t raw_len, raw_cap;
    char *text; /* the fields, unquoted, each NUL-terminated */
    size_t text_cap;
    char **fields; /* n_fields pointers into text */
    uint32_t n_fields, fields_cap;
    char **notes; /* "NAME:LINE: ==ERROR== ..." */
    uint32_t n_notes;
} csv_reader;

static void csv_init(csv_reader *r, FILE *f, const char *name)
{
    memset(r, 0, sizeof *r);
    r->f = f;
    r->name = name;
}

static void free_strings(char **v, uint32_t n)
{
    for (uint32_t i = 0; i < n; i++)
        free(v[i]);
    free(v);
}

static void csv_done(csv_reader *r)
{
    free(r->raw);
    free(r->text);
    free(r->fields);
    free_strings(r->notes, r->n_notes);
    r->raw = r->text = NULL;
    r->fields = r->notes = NULL;
    r->n_notes = 0;
}

static int raw_push(csv_reader *r, char c, err_info *err)
{
    if (r->raw_len + 1 >= NCU_CSV_RECORD_MAX_BYTES)
        return fail_at(err, r->name, r->line + 1,
                       "CSV record longer than %u bytes (NCU_CSV_RECORD_MAX_BYTES)",
                       NCU_CSV_RECORD_MAX_BYTES);
    if (r->raw_len + 1 >= r->raw_cap) {
        r->raw_cap = r->raw_cap ? r->raw_cap * 2 : 4096;
        r->raw = xrealloc(r->raw, r->raw_cap);
    }
    r->raw[r->raw_len++] = c;
    return 0;
}

/* Append one physical line to raw, without its "\n" or "\r\n". Returns 1, or 0
 * at the end of the file with nothing read, or -1. */
static int read_line(csv_reader *r, err_info *err)
{
    size_t start = r->raw_len;
    bool any = false;
    int c;
    while ((c = getc(r->f)) != EOF) {
        any = true;
        r->bytes++;
        if (c == '\n')
            break;
        if (c == '\0')
            return fail_at(err, r->name, r->line + 1, "NUL byte: expected ncu's CSV text");
        if (raw_push(r, (char)c, err) != 0)
            return -1;
    }
    if (ferror(r->f))
        return fail_at(err, r->name, r->line + 1, "read error: %s", strerror(errno));
    if (!any)
        return 0;
    if (r->line == UINT32_MAX)
        return fail_at(err, r->name, r->line, "more than %" PRIu32 " lines", UINT32_MAX);
    r->line++;
    if (r->raw_len > start && r->raw[r->raw_len - 1] == '\r')
        r->raw_len--;
    /* a UTF-8 byte-order mark is not part of the first field */
    if (r->line == 1 && r->raw_len - start >= 3 && memcmp(r->raw + start, "\xef\xbb\xbf", 3) == 0) {
        memmove(r->raw + start, r->raw + start + 3, r->raw_len - start - 3);
        r->raw_len -= 3;
    }
    if (r->raw_cap == 0)
        r->raw = xrealloc(r->raw, r->raw_cap = 4096);
    r->raw[r->raw_len] = '\0';
    return 1;
}

/* ncu's own lines: "==PROF== ...", "==WARNING== ...", "==ERROR== ...". */
static bool is_ncu_line(const char *s)
{
    if (s[0] != '=' || s[1] != '=')
        return false;
    size_t i = 2;
    while (s[i] >= 'A' && s[i] <= 'Z')
        i++;
    return i > 2 && s[i] == '=' && s[i + 1] == '=';
}

static int keep_note(csv_reader *r, err_info *err)
{
    if (r->n_notes == NCU_CSV_NOTES_MAX)
        return fail_at(err, r->name, r->line, "more than %u ==ERROR== lines (NCU_CSV_NOTES_MAX)",
                       NCU_CSV_NOTES_MAX);
    char note[ERR_MSG_BYTES];
    char cut[512];
    snprintf(note, sizeof note, "%s:%" PRIu64 ": %s", r->name, r->line, shown(r->raw, cut, sizeof cut));
    if (r->n_notes % 16 == 0)
        r->notes = xrealloc(r->notes, (r->n_notes + 16) * sizeof *r->notes);
    r->notes[r->n_notes++] = xstrdup(note);
    return 0;
}

/* Whether raw[from, to) ends inside a quoted field, given whether it starts in
 * one. Same rules as split_fields: a quote opens a quoted field only at the
 * start of a field, and "" inside one is a literal quote; so a stray quote in
 * an unquoted field gets its own message instead of swallowing lines. */
static bool still_quoted(const char *raw, size_t from, size_t to, bool in_quotes)
{
    bool field_start = !in_quotes;
    for (size_t i = from; i < to; i++) {
        char c = raw[i];
        if (in_quotes) {
            if (c == '"') {
                if (i + 1 < to && raw[i + 1] == '"')
                    i++;
                else
                    in_quotes = false;
            }
        } else if (c == ',') {
            field_start = true;
        } else {
            in_quotes = c == '"' && field_start;
            field_start = false;
        }
    }
    return in_quotes;
}

/* Split raw into fields (RFC 4180). */
static int split_fields(csv_reader *r, err_info *err)
{
    if (r->text_cap < r->raw_len + 1) {
        r->text_cap = r->raw_len + 1;
        r->text = xrealloc(r->text, r->text_cap);
    }
    const char *p = r->raw, *end = r->raw + r->raw_len;
    size_t out = 0;
    r->n_fields = 0;
    for (;;) {
        if (r->n_fields == NCU_CSV_FIELDS_MAX)
            return fail_at(err, r->name, r->record_line, "more than %u fields (NCU_CSV_FIELDS_MAX)",
                           NCU_CSV_FIELDS_MAX);
        if (r->n_fields == r->fields_cap) {
            r->fields_cap = r->fields_cap ? r->fields_cap * 2 : 64;
            r->fields = xrealloc(r->fields, r->fields_cap * sizeof *r->fields);
        }
        uint32_t k = r->n_fields + 1; /* 1-based, for messages */
        r->fields[r->n_fields++] = r->text + out;
        if (p < end && *p == '"') {
            p++;
            for (;;) {
                if (p == end) /* still_quoted() said closed: cannot happen */
                    return fail_at(err, r->name, r->record_line, "field %u: quote not closed", k);
                if (*p == '"') {
                    if (p + 1 < end && p[1] == '"') {
                        r->text[out++] = '"';
                        p += 2;
                        continue;
                    }
                    p++;
                    break;
                }
                r->text[out++] = *p++;
            }
            if (p < end && *p != ',')
                return fail_at(err, r->name, r->record_line,
                               "field %u: expected a comma or the end of the line after the closing quote",
                               k);
        } else {
            for (; p < end && *p != ','; p++) {
                if (*p == '"')
                    return fail_at(err, r->name, r->record_line,
                                   "field %u: quote inside an unquoted field (expected the whole field in quotes)",
                                   k);
                r->text[out++] = *p;
            }
        }
        r->text[out++] = '\0';
        if (p == end)
            return 0;
        p++; /* the comma */
    }
}

/* The next CSV record into r->fields. Skips blank lines and ncu's own lines
 * (keeping "==ERROR==" ones as notes); before the header also the program's
 * own output, i.e. every line that does not start with a quote. Returns 1, or
 * 0 at the end of the file, or -1. */
static int next_record(csv_reader *r, bool before_header, err_info *err)
{
    for (;;) {
        r->raw_len = 0;
        int rc = read_line(r, err);
        if (rc <= 0)
            return rc;
        r->record_line = r->line;
        if (r->raw_len == 0)
            continue;
        if (is_ncu_line(r->raw)) {
            if (strncmp(r->raw, "==ERROR==", 9) == 0 && keep_note(r, err) != 0)
                return -1;
            continue;
        }
        if (before_header && r->raw[0] != '"')
            continue;
        bool quoted = still_quoted(r->raw, 0, r->raw_len, false);
        while (quoted) {
            size_t from = r->raw_len;
            if (raw_push(r, '\n', err) != 0)
                return -1;
            rc = read_line(r, err);
            if (rc < 0)
                return -1;
            if (rc == 0)
                return fail_at(err, r->name, r->record_line,
                               "quoted field not closed before the end of the file");
            quoted = still_quoted(r->raw, from, r->raw_len, true);
        }
        return split_fields(r, err) == 0 ? 1 : -1;
    }
}

/* ---- values ----------------------------------------------------------------- */

typedef enum value_class { VALUE_ABSENT, VALUE_NUMBER, VALUE_TEXT, VALUE_BAD, VALUE_CLASS_COUNT } value_class;

static bool is_digit(char c)
{
    return c >= '0' && c <= '9';
}

/* A value as ncu prints it. Numbers: an optional '-', digits in thousands
 * groups or not ("131072", "131,072"), an optional fraction, an optional
 * exponent. "", "n/a" and "-" are absent. What starts like a number (a digit,
 * or '-' and a digit) but is not one is VALUE_BAD; anything else is a label. */
static value_class parse_value(const char *s, double *value, bool *is_integer, uint64_t *u)
{
    *value = (double)NAN;
    *is_integer = false;
    *u = 0;
    if (s[0] == '\0' || strcmp(s, "n/a") == 0 || strcmp(s, "-") == 0)
        return VALUE_ABSENT;
    const char *p = s;
    bool negative = *p == '-';
    if (negative)
        p++;
    if (!is_digit(*p))
        return VALUE_TEXT;

    char digits[64]; /* the number without separators, for strtod */
    size_t n = 0;
    if (negative)
        digits[n++] = '-';
    uint64_t acc = 0;
    bool overflow = false;
    size_t run = 0; /* digits since the start or the last separator */
    bool grouped = false;
    for (; is_digit(*p) || *p == ','; p++) {
        if (*p == ',') {
            /* "1,234,567": the first group 1-3 digits, then groups of exactly 3 */
            if (run == 0 || run > 3 || (grouped && run != 3))
                return VALUE_BAD;
            grouped = true;
            run = 0;
            continue;
        }
        unsigned d = (unsigned)(*p - '0');
        if (acc > (UINT64_MAX - d) / 10)
            overflow = true;
        acc = acc * 10 + d;
        run++;
        if (n + 1 >= sizeof digits)
            return VALUE_BAD;
        digits[n++] = *p;
    }
    if (grouped && run != 3)
        return VALUE_BAD;
    bool fraction = false, exponent = false;
    if (*p == '.') {
        fraction = true;
        digits[n++] = *p++;
        if (!is_digit(*p))
            return VALUE_BAD;
        for (; is_digit(*p); p++) {
            if (n + 1 >= sizeof digits)
                return VALUE_BAD;
            digits[n++] = *p;
        }
    }
    if (*p == 'e' || *p == 'E') {
        exponent = true;
        if (n + 2 >= sizeof digits)
            return VALUE_BAD;
        digits[n++] = *p++;
        if (*p == '+' || *p == '-')
            digits[n++] = *p++;
        if (!is_digit(*p))
            return VALUE_BAD;
        for (; is_digit(*p); p++) {
            if (n + 1 >= sizeof digits)
                return VALUE_BAD;
            digits[n++] = *p;
        }
    }
    if (*p != '\0')
        return VALUE_BAD;
    digits[n] = '\0';
    *value = strtod(digits, NULL);
    if (!negative && !fraction && !exponent && !overflow) {
        *is_integer = true;
        *u = acc;
    }
    return VALUE_NUMBER;
}

static const char number_form[] =
    "expected a number as ncu prints it (131,072 or 131072, 12.5, -3) or n/a";

/* ---- metric reports ------------------------------------------------------------ */

enum col {
    COL_ID,
    COL_KERNEL,
    COL_BLOCK,
    COL_GRID,
    COL_DEVICE,
    COL_CC,
    COL_SECTION,
    COL_METRIC,
    COL_UNIT,
    COL_VALUE,
    COL_RULE,
    COL_COUNT
};

static const char *const col_names[COL_COUNT] = {
    "ID",           "Kernel Name", "Block Size",  "Grid Size",    "Device",   "CC",
    "Section Name", "Metric Name", "Metric Unit", "Metric Value", "Rule Name",
};

/* The columns of --page raw that describe the launch rather than measure it;
 * every other column of that page is a metric. */
static const char *const launch_columns[] = {
    "ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Context",
    "Stream", "Block Size", "Grid Size", "Device", "CC",
};

typedef struct report_reader {
    csv_reader csv;
    ncu_report rep;
    uint32_t launches_cap, metrics_cap; /* of rep.launches, of the last launch's metrics */
    int col[COL_COUNT];                 /* column index, -1 when the header lacks it */
    uint32_t n_header;                  /* fields in the header row */
    uint64_t header_line;
    uint32_t min_fields; /* long format: fields a row needs (details rows omit the rule columns) */
} report_reader;

static void metric_free(ncu_metric *m)
{
    free(m->name);
    free(m->section);
    free(m->unit);
    free(m->text);
}

static void launch_free(ncu_launch *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        metric_free(&l->metrics[i]);
    free(l->metrics);
    free(l->kernel);
    free(l->block);
    free(l->grid);
    free(l->device);
    free(l->cc);
}

void ncu_report_free(ncu_report *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n; i++)
        launch_free(&r->launches[i]);
    free(r->launches);
    free_strings(r->notes, r->n_notes);
    memset(r, 0, sizeof *r);
}

/* "(256, 1, 1)" */
static bool parse_dim3(const char *s, uint32_t dim[3])
{
    const char *p = s;
    if (*p++ != '(')
        return false;
    for (int i = 0; i < 3; i++) {
        while (*p == ' ')
            p++;
        if (!is_digit(*p))
            return false;
        uint64_t v = 0;
        for (; is_digit(*p); p++) {
            v = v * 10 + (uint64_t)(*p - '0');
            if (v > UINT32_MAX)
                return false;
        }
        dim[i] = (uint32_t)v;
        if (*p++ != (i < 2 ? ',' : ')'))
            return false;
    }
    return *p == '\0';
}

static bool parse_u32(const char *s, uint32_t *out)
{
    uint64_t v = 0;
    if (!is_digit(*s))
        return false;
    for (; is_digit(*s); s++) {
        v = v * 10 + (uint64_t)(*s - '0');
        if (v > UINT32_MAX)
            return false;
    }
    *out = (uint32_t)v;
    return *s == '\0';
}

static const char *field(const report_reader *rd, enum col c)
{
    return rd->csv.fields[rd->col[c]];
}

/* Open a new launch from the current row's launch columns. */
static int launch_start(report_reader *rd, err_info *err)
{
    csv_reader *r = &rd->csv;
    char buf[64];
    uint32_t id;
    if (!parse_u32(field(rd, COL_ID), &id)) {
        if (strcmp(field(rd, COL_ID), "ID") == 0)
            return fail_at(err, r->name, r->record_line,
                           "a second header row (expected one ncu report per file)");
        return fail_at(err, r->name, r->record_line, "ID \"%s\" is not a launch number",
                       shown(field(rd, COL_ID), buf, sizeof buf));
    }
    if (rd->rep.n > 0 && id <= rd->rep.launches[rd->rep.n - 1].id)
        return fail_at(err, r->name, r->record_line,
                       "launch ID %" PRIu32 " after ID %" PRIu32
                       ": expected each launch's rows together, in increasing ID order, as ncu writes them",
                       id, rd->rep.launches[rd->rep.n - 1].id);
    uint32_t block[3], grid[3];
    if (!parse_dim3(field(rd, COL_BLOCK), block))
        return fail_at(err, r->name, r->record_line, "Block Size \"%s\": expected \"(x, y, z)\"",
                       shown(field(rd, COL_BLOCK), buf, sizeof buf));
    if (!parse_dim3(field(rd, COL_GRID), grid))
        return fail_at(err, r->name, r->record_line, "Grid Size \"%s\": expected \"(x, y, z)\"",
                       shown(field(rd, COL_GRID), buf, sizeof buf));
    if (rd->rep.n == NCU_CSV_LAUNCHES_MAX)
        return fail_at(err, r->name, r->record_line, "more than %u launches (NCU_CSV_LAUNCHES_MAX)",
                       NCU_CSV_LAUNCHES_MAX);
    if (rd->rep.n == rd->launches_cap) {
        rd->launches_cap = rd->launches_cap ? rd->launches_cap * 2 : 16;
        rd->rep.launches = xrealloc(rd->rep.launches, rd->launches_cap * sizeof *rd->rep.launches);
    }
    ncu_launch *l = &rd->rep.launches[rd->rep.n++];
    memset(l, 0, sizeof *l);
    l->id = id;
    l->kernel = xstrdup(field(rd, COL_KERNEL));
    l->block = xstrdup(field(rd, COL_BLOCK));
    l->grid = xstrdup(field(rd, COL_GRID));
    memcpy(l->block_dim, block, sizeof block);
    memcpy(l->grid_dim, grid, sizeof grid);
    l->device = xstrdup(field(rd, COL_DEVICE));
    l->cc = xstrdup(field(rd, COL_CC));
    l->line = (uint32_t)r->record_line;
    rd->metrics_cap = 0;
    return 0;
}

/* Long format: every row of a launch repeats its launch columns; they must agree. */
static int launch_same(report_reader *rd, const ncu_launch *l, err_info *err)
{
    const struct {
        enum col c;
        const char *v;
    } same[] = {
        {COL_KERNEL, l->kernel}, {COL_BLOCK, l->block}, {COL_GRID, l->grid},
        {COL_DEVICE, l->device}, {COL_CC, l->cc},
    };
    for (size_t i = 0; i < sizeof same / sizeof same[0]; i++)
        if (strcmp(field(rd, same[i].c), same[i].v) != 0) {
            char a[64], b[64];
            return fail_at(err, rd->csv.name, rd->csv.record_line,
                           "launch %" PRIu32 ": %s \"%s\" differs from \"%s\" on line %" PRIu32
                           " (expected one value per launch)",
                           l->id, col_names[same[i].c], shown(field(rd, same[i].c), a, sizeof a),
                           shown(same[i].v, b, sizeof b), l->line);
        }
    return 0;
}

/* Append a metric to the last launch. kind/value come from text. */
static int metric_add(report_reader *rd, const char *name, const char *section, const char *unit,
                      const char *text, uint64_t line, err_info *err)
{
    ncu_launch *l = &rd->rep.launches[rd->rep.n - 1];
    ncu_metric m = {0};
    value_class vc = parse_value(text, &m.value, &m.is_integer, &m.u);
    if (vc == VALUE_BAD) {
        char a[64], b[64];
        return fail_at(err, rd->csv.name, line, "metric %s: value \"%s\": %s", shown(name, a, sizeof a),
                       shown(text, b, sizeof b), number_form);
    }
    m.kind = vc == VALUE_NUMBER ? NCU_VALUE_NUMBER : vc == VALUE_TEXT ? NCU_VALUE_TEXT : NCU_VALUE_ABSENT;
    if (l->n == NCU_CSV_FIELDS_MAX)
        return fail_at(err, rd->csv.name, line, "launch %" PRIu32 ": more than %u metrics", l->id,
                       NCU_CSV_FIELDS_MAX);
    if (l->n == rd->metrics_cap) {
        rd->metrics_cap = rd->metrics_cap ? rd->metrics_cap * 2 : 32;
        l->metrics = xrealloc(l->metrics, rd->metrics_cap * sizeof *l->metrics);
    }
    m.name = xstrdup(name);
    m.section = xstrdup(section);
    m.unit = xstrdup(unit);
    m.text = xstrdup(text);
    m.line = (uint32_t)line;
    l->metrics[l->n++] = m;
    return 0;
}

static int cmp_metric_ptr(const void *a, const void *b)
{
    const ncu_metric *x = *(const ncu_metric *const *)a, *y = *(const ncu_metric *const *)b;
    int c = strcmp(x->name, y->name);
    if (c == 0)
        c = strcmp(x->section, y->section);
    if (c == 0)
        c = (x->line > y->line) - (x->line < y->line);
    return c;
}

/* A launch with one metric twice would make the comparison pick one silently. */
static int launch_check_unique(report_reader *rd, const ncu_launch *l, err_info *err)
{
    if (l->n < 2)
        return 0;
    const ncu_metric **v = xmalloc(l->n * sizeof *v);
    for (uint32_t i = 0; i < l->n; i++)
        v[i] = &l->metrics[i];
    qsort(v, l->n, sizeof *v, cmp_metric_ptr);
    int rc = 0;
    for (uint32_t i = 1; i < l->n && rc == 0; i++)
        if (strcmp(v[i]->name, v[i - 1]->name) == 0 && strcmp(v[i]->section, v[i - 1]->section) == 0) {
            char a[64];
            rc = fail_at(err, rd->csv.name, v[i]->line,
                         "launch %" PRIu32 ": metric %s appears twice (also on line %" PRIu32
                         "; expected each metric once per launch)",
                         l->id, shown(v[i]->name, a, sizeof a), v[i - 1]->line);
        }
    free(v);
    return rc;
}

static int find_column(char **fields, uint32_t n, const char *name)
{
    for (uint32_t i = 0; i < n; i++)
        if (strcmp(fields[i], name) == 0)
            return (int)i;
    return -1;
}

/* The rows of --csv [--metrics]: one per (launch, metric). */
static int read_long(report_reader *rd, err_info *err)
{
    csv_reader *r = &rd->csv;
    int rc;
    while ((rc = next_record(r, false, err)) == 1) {
        if (r->n_fields != rd->n_header &&
            (r->n_fields < rd->min_fields || r->n_fields > rd->n_header))
            return fail_at(err, r->name, r->record_line,
                           "%" PRIu32 " fields: expected %" PRIu32 " as in the header on line %" PRIu64,
                           r->n_fields, rd->n_header, rd->header_line);
        if (field(rd, COL_METRIC)[0] == '\0') {
            /* the details page's rule rows carry ncu's advice, not a metric */
            if (rd->col[COL_RULE] >= 0 && (uint32_t)rd->col[COL_RULE] < r->n_fields &&
                field(rd, COL_RULE)[0] != '\0')
                continue;
            return fail_at(err, r->name, r->record_line, "empty Metric Name (expected a metric)");
        }
        uint32_t id;
        ncu_launch *cur = rd->rep.n ? &rd->rep.launches[rd->rep.n - 1] : NULL;
        if (cur && parse_u32(field(rd, COL_ID), &id) && id == cur->id) {
            if (launch_same(rd, cur, err) != 0)
                return -1;
        } else {
            if (cur && launch_check_unique(rd, cur, err) != 0)
                return -1;
            if (launch_start(rd, err) != 0)
                return -1;
        }
        if (metric_add(rd, field(rd, COL_METRIC), field(rd, COL_SECTION), field(rd, COL_UNIT),
                       field(rd, COL_VALUE), r->record_line, err) != 0)
            return -1;
    }
    if (rc < 0)
        return -1;
    if (rd->rep.n > 0)
        return launch_check_unique(rd, &rd->rep.launches[rd->rep.n - 1], err);
    return 0;
}

static bool is_launch_column(const char *name)
{
    for (size_t i = 0; i < sizeof launch_columns / sizeof launch_columns[0]; i++)
        if (strcmp(name, launch_columns[i]) == 0)
            return true;
    return false;
}

static int cmp_str_ptr(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The rows of --page raw: a units row, then one row per launch. */
static int read_wide(report_reader *rd, err_info *err)
{
    csv_reader *r = &rd->csv;
    uint32_t n = rd->n_header;
    char **names = xmalloc(n * sizeof *names);
    for (uint32_t i = 0; i < n; i++)
        names[i] = xstrdup(r->fields[i]);
    char **units = NULL;
    char **sorted = NULL;
    int rc = -1;

    /* Duplicate metric columns would make the comparison pick one silently. */
    sorted = xmalloc(n * sizeof *sorted);
    memcpy(sorted, names, n * sizeof *sorted);
    qsort(sorted, n, sizeof *sorted, cmp_str_ptr);
    for (uint32_t i = 1; i < n; i++)
        if (strcmp(sorted[i], sorted[i - 1]) == 0) {
            char a[64];
            fail_at(err, r->name, rd->header_line, "column \"%s\" appears twice in the header",
                    shown(sorted[i], a, sizeof a));
            goto out;
        }

    int got = next_record(r, false, err);
    if (got < 0)
        goto out;
    if (got == 0 || r->n_fields != n || r->fields[0][0] != '\0') {
        fail_at(err, r->name, got == 0 ? r->line : r->record_line,
                "expected the units row of --page raw (%" PRIu32 " fields, the ID field empty) after the header on line %" PRIu64,
                n, rd->header_line);
        goto out;
    }
    units = xmalloc(n * sizeof *units);
    for (uint32_t i = 0; i < n; i++)
        units[i] = xstrdup(r->fields[i]);

    while ((got = next_record(r, false, err)) == 1) {
        if (r->n_fields != n) {
            fail_at(err, r->name, r->record_line,
                    "%" PRIu32 " fields: expected %" PRIu32 " as in the header on line %" PRIu64,
                    r->n_fields, n, rd->header_line);
            goto out;
        }
        if (launch_start(rd, err) != 0)
            goto out;
        for (uint32_t i = 0; i < n; i++)
            if (!is_launch_column(names[i]) &&
                metric_add(rd, names[i], "", units[i], r->fields[i], r->record_line, err) != 0)
                goto out;
    }
    rc = got < 0 ? -1 : 0;
out:
    free_strings(names, n);
    if (units)
        free_strings(units, n);
    free(sorted);
    return rc;
}

/* Find the header row and tell the formats apart by its columns. */
static int read_header(report_reader *rd, err_info *err)
{
    csv_reader *r = &rd->csv;
    int rc = next_record(r, true, err);
    if (rc < 0)
        return -1;
    if (rc == 0) {
        if (r->bytes == 0)
            return fail_at(err, r->name, 1, "empty file: expected ncu --csv output");
        char said[ERR_MSG_BYTES / 2];
        said[0] = '\0';
        if (r->n_notes > 0)
            snprintf(said, sizeof said, " (ncu said: %s)", r->notes[0]);
        return fail_at(err, r->name, r->line ? r->line : 1,
                       "end of file before ncu's CSV header row (\"ID\",\"Process ID\",...): "
                       "expected the output of ncu --csv --metrics or --page raw --csv%s",
                       said);
    }
    rd->header_line = r->record_line;
    rd->n_header = r->n_fields;
    const char *first = r->fields[0];
    if (strcmp(first, "Kernel Name") == 0 || strcmp(first, "File Path") == 0)
        return fail_at(err, r->name, r->record_line,
                       "this is ncu's source page (--page source): expected a metric report "
                       "(--csv --metrics or --page raw) whose header starts with \"ID\"");
    if (strcmp(first, "ID") != 0) {
        char buf[64];
        return fail_at(err, r->name, r->record_line,
                       "expected ncu's CSV header row starting with \"ID\" (ncu --csv --metrics or "
                       "--page raw --csv), found a row starting with \"%s\"",
                       shown(first, buf, sizeof buf));
    }
    for (int c = 0; c < COL_COUNT; c++)
        rd->col[c] = find_column(r->fields, r->n_fields, col_names[c]);
    rd->rep.format = rd->col[COL_METRIC] >= 0 ? NCU_FORMAT_LONG : NCU_FORMAT_WIDE;
    int last_required = rd->rep.format == NCU_FORMAT_LONG ? COL_VALUE : COL_CC;
    for (int c = 0; c <= last_required; c++) {
        if (rd->col[c] < 0)
            return fail_at(err, r->name, r->record_line,
                           "header has no \"%s\" column: expected ncu's --csv --metrics header "
                           "(\"ID\",...,\"Metric Name\",\"Metric Unit\",\"Metric Value\") or --page raw header",
                           col_names[c]);
        if ((uint32_t)rd->col[c] + 1 > rd->min_fields)
            rd->min_fields = (uint32_t)rd->col[c] + 1;
    }
    /* Only the details page (a "Rule Name" column) leaves trailing columns off. */
    if (rd->col[COL_RULE] < 0)
        rd->min_fields = rd->n_header;
    return 0;
}

int ncu_report_read_stream(FILE *f, const char *name, ncu_report *out, err_info *err)
{
    memset(out, 0, sizeof *out);
    report_reader rd;
    memset(&rd, 0, sizeof rd);
    csv_init(&rd.csv, f, name);
    int rc = read_header(&rd, err);
    if (rc == 0)
        rc = rd.rep.format == NCU_FORMAT_LONG ? read_long(&rd, err) : read_wide(&rd, err);
    if (rc == 0 && rd.rep.n == 0)
        rc = fail_at(err, name, rd.csv.line, "no launch rows after the header on line %" PRIu64
                     " (expected at least one profiled launch)", rd.header_line);
    if (rc != 0) {
        ncu_report_free(&rd.rep);
        csv_done(&rd.csv);
        return -1;
    }
    rd.rep.notes = rd.csv.notes;
    rd.rep.n_notes = rd.csv.n_notes;
    rd.csv.notes = NULL;
    rd.csv.n_notes = 0;
    csv_done(&rd.csv);
    *out = rd.rep;
    return 0;
}

int ncu_report_read(const char *path, ncu_report *out, err_info *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int rc = ncu_report_read_stream(f, path, out, err);
    fclose(f);
    return rc;
}

const ncu_metric *ncu_launch_metric(const ncu_launch *l, const char *name)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->metrics[i].name, name) == 0)
            return &l->metrics[i];
    return NULL;
}

const ncu_metric *ncu_launch_metric_in(const ncu_launch *l, const char *section, const char *name)
{
    for (uint32_t i = 0; i < l->n; i++)
        if (strcmp(l->metrics[i].name, name) == 0 && strcmp(l->metrics[i].section, section) == 0)
            return &l->metrics[i];
    return NULL;
}

/* ---- source page ------------------------------------------------------------- */

typedef enum source_view { VIEW_SASS, VIEW_CUDA_SASS, VIEW_COUNT } source_view;

typedef struct source_reader {
    csv_reader csv;
    source_view view;
    ncu_source_report rep;
    uint32_t kernels_cap;
    ncu_source_kernel *k; /* the block being read, NULL before the first */
    bool have_header;     /* k's column header has been read */
    uint32_t n_header;    /* fields in k's header row */
    uint32_t first_col;   /* field of the first metric column: 2 (sass), 4 (cuda,sass) */
    uint32_t rows_cap, texts_cap;
    uint32_t source_line; /* cuda,sass: the source line the next SASS rows belong to */
    uint64_t block_line;  /* line where the block began ("Kernel Name" or "File Path") */
} source_reader;

static void source_kernel_free(ncu_source_kernel *k)
{
    free(k->kernel);
    free(k->source_file);
    for (uint32_t i = 0; i < k->n_rows; i++)
        free(k->rows[i].sass);
    free(k->rows);
    free_strings(k->column_names, k->n_cols);
    free(k->values);
    for (uint32_t i = 0; i < k->n_texts; i++)
        free(k->texts[i].text);
    free(k->texts);
}

void ncu_source_free(ncu_source_report *r)
{
    if (!r)
        return;
    for (uint32_t i = 0; i < r->n; i++)
        source_kernel_free(&r->kernels[i]);
    free(r->kernels);
    free_strings(r->notes, r->n_notes);
    memset(r, 0, sizeof *r);
}

static bool parse_hex_address(const char *s, uint64_t *out)
{
    if (s[0] != '0' || (s[1] != 'x' && s[1] != 'X') || s[2] == '\0')
        return false;
    uint64_t v = 0;
    for (const char *p = s + 2; *p; p++) {
        unsigned d;
        if (*p >= '0' && *p <= '9')
            d = (unsigned)(*p - '0');
        else if (*p >= 'a' && *p <= 'f')
            d = (unsigned)(*p - 'a' + 10);
        else if (*p >= 'A' && *p <= 'F')
            d = (unsigned)(*p - 'A' + 10);
        else
            return false;
        if (v >> 60)
            return false;
        v = v << 4 | d;
    }
    *out = v;
    return true;
}

static int cmp_text_cell(const void *a, const void *b)
{
    const ncu_source_text *x = a, *y = b;
    if (x->row != y->row)
        return x->row < y->row ? -1 : 1;
    return (x->col > y->col) - (x->col < y->col);
}

/* The texts of one row: [*lo, *hi) in k->texts, which is sorted by (row, col). */
static void row_texts(const ncu_source_kernel *k, uint32_t row, uint32_t *lo, uint32_t *hi)
{
    uint32_t a = 0, b = k->n_texts;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (k->texts[mid].row < row)
            a = mid + 1;
        else
            b = mid;
    }
    *lo = a;
    while (a < k->n_texts && k->texts[a].row == row)
        a++;
    *hi = a;
}

static bool rows_identical(const ncu_source_kernel *k, uint32_t a, uint32_t b)
{
    if (strcmp(k->rows[a].sass, k->rows[b].sass) != 0)
        return false;
    /* NAN is one bit pattern here (the NAN macro), so bytes compare cells */
    if (memcmp(&k->values[(size_t)a * k->n_cols], &k->values[(size_t)b * k->n_cols],
               k->n_cols * sizeof *k->values) != 0)
        return false;
    uint32_t alo, ahi, blo, bhi;
    row_texts(k, a, &alo, &ahi);
    row_texts(k, b, &blo, &bhi);
    if (ahi - alo != bhi - blo)
        return false;
    for (uint32_t i = 0; i < ahi - alo; i++)
        if (k->texts[alo + i].col != k->texts[blo + i].col ||
            strcmp(k->texts[alo + i].text, k->texts[blo + i].text) != 0)
            return false;
    return true;
}

typedef struct row_key {
    uint64_t address;
    uint32_t index; /* row in file order */
} row_key;

static int cmp_row_key(const void *a, const void *b)
{
    const row_key *x = a, *y = b;
    if (x->address != y->address)
        return x->address < y->address ? -1 : 1;
    return (x->index > y->index) - (x->index < y->index);
}

/* cuda,sass: ncu lists instructions under their source lines and repeats some
 * (after a "..." row); put rows in address order and keep each instruction's
 * first listing. A repeat that differs from it is an error, not a choice. */
static int dedup_rows(source_reader *sr, err_info *err)
{
    ncu_source_kernel *k = sr->k;
    uint32_t n = k->n_rows;
    row_key *keys = xmalloc(n * sizeof *keys);
    for (uint32_t i = 0; i < n; i++)
        keys[i] = (row_key){k->rows[i].address, i};
    qsort(keys, n, sizeof *keys, cmp_row_key);

    uint32_t *new_of = xmalloc(n * sizeof *new_of); /* file row -> kept row, or UINT32_MAX */
    uint32_t kept = 0, last = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t row = keys[i].index;
        if (kept > 0 && keys[i].address == k->rows[last].address) {
            if (!rows_identical(k, last, row)) {
                int rc = fail_at(err, sr->csv.name, k->rows[row].line,
                                 "instruction 0x%" PRIx64 " listed again with other values than on line %" PRIu32
                                 " (expected ncu's repeats to be identical)",
                                 k->rows[row].address, k->rows[last].line);
                free(new_of);
                free(keys);
                return rc;
            }
            new_of[row] = UINT32_MAX;
            continue;
        }
        new_of[row] = kept++;
        last = row;
    }
    free(keys);

    ncu_source_row *rows = xmalloc(kept * sizeof *rows);
    double *values = xmalloc((size_t)kept * k->n_cols * sizeof *values);
    for (uint32_t old = 0; old < n; old++) {
        if (new_of[old] == UINT32_MAX) {
            free(k->rows[old].sass);
            continue;
        }
        rows[new_of[old]] = k->rows[old];
        memcpy(&values[(size_t)new_of[old] * k->n_cols], &k->values[(size_t)old * k->n_cols],
               k->n_cols * sizeof *values);
    }
    uint32_t nt = 0;
    for (uint32_t i = 0; i < k->n_texts; i++) {
        ncu_source_text t = k->texts[i];
        if (new_of[t.row] == UINT32_MAX) {
            free(t.text);
            continue;
        }
        t.row = new_of[t.row];
        k->texts[nt++] = t;
    }
    if (nt > 1)
        qsort(k->texts, nt, sizeof *k->texts, cmp_text_cell);
    free(new_of);
    free(k->rows);
    free(k->values);
    k->rows = rows;
    k->values = values;
    k->n_rows = kept;
    k->n_texts = nt;
    return 0;
}

/* End of a kernel block: check it, put cuda,sass rows in order, compute PCs. */
static int finish_kernel(source_reader *sr, err_info *err)
{
    ncu_source_kernel *k = sr->k;
    if (!k)
        return 0;
    if (!sr->have_header)
        return fail_at(err, sr->csv.name, k->line,
                       "kernel block has no column header row (expected it on the next line)");
    if (k->n_rows == 0)
        return fail_at(err, sr->csv.name, k->line,
                       "kernel block has no instruction rows (expected one row per SASS instruction)");
    if (sr->view == VIEW_CUDA_SASS && dedup_rows(sr, err) != 0)
        return -1;
    /* The entry is the first row (sass view, checked in address order) or the
     * lowest address (cuda,sass, sorted above): the same instruction. */
    k->base_address = k->rows[0].address;
    for (uint32_t i = 0; i < k->n_rows; i++)
        k->rows[i].pc_offset = k->rows[i].address - k->base_address;
    sr->k = NULL;
    return 0;
}

/* A two-field label record: "Kernel Name","NAME", (ncu adds a trailing comma). */
static int label_value(source_reader *sr, const char **value, err_info *err)
{
    csv_reader *r = &sr->csv;
    bool ok = r->n_fields >= 2;
    for (uint32_t i = 2; ok && i < r->n_fields; i++)
        ok = r->fields[i][0] == '\0';
    if (!ok)
        return fail_at(err, r->name, r->record_line, "expected \"%s\",\"VALUE\" on this line",
                       r->fields[0]);
    *value = r->fields[1];
    return 0;
}

static int start_kernel(source_reader *sr, const char *kernel, const char *file, err_info *err)
{
    csv_reader *r = &sr->csv;
    if (finish_kernel(sr, err) != 0)
        return -1;
    if (sr->rep.n == NCU_SOURCE_KERNELS_MAX)
        return fail_at(err, r->name, r->record_line,
                       "more than %u kernel blocks (NCU_SOURCE_KERNELS_MAX)", NCU_SOURCE_KERNELS_MAX);
    if (sr->rep.n == sr->kernels_cap) {
        sr->kernels_cap = sr->kernels_cap ? sr->kernels_cap * 2 : 8;
        sr->rep.kernels = xrealloc(sr->rep.kernels, sr->kernels_cap * sizeof *sr->rep.kernels);
    }
    ncu_source_kernel *k = &sr->rep.kernels[sr->rep.n++];
    memset(k, 0, sizeof *k);
    k->kernel = xstrdup(kernel);
    k->source_file = file ? xstrdup(file) : NULL;
    k->line = (uint32_t)(sr->view == VIEW_CUDA_SASS ? sr->block_line : r->record_line);
    sr->k = k;
    sr->have_header = false;
    sr->rows_cap = sr->texts_cap = 0;
    sr->source_line = 0;
    return 0;
}

static int read_column_header(source_reader *sr, err_info *err)
{
    csv_reader *r = &sr->csv;
    static const char *const lead[VIEW_COUNT][4] = {
        {"Address", "Source"},
        {"Line No", "Source", "Address", "Source"},
    };
    ncu_source_kernel *k = sr->k;
    if (!k || sr->have_header)
        return fail_at(err, r->name, r->record_line,
                       "column header row outside a kernel block (expected it right after \"%s\")",
                       sr->view == VIEW_SASS ? "Kernel Name" : "Function Name");
    bool ok = r->n_fields >= sr->first_col;
    for (uint32_t i = 0; ok && i < sr->first_col; i++)
        ok = strcmp(r->fields[i], lead[sr->view][i]) == 0;
    if (!ok)
        return fail_at(err, r->name, r->record_line, "expected a header row starting with %s",
                       sr->view == VIEW_SASS ? "\"Address\",\"Source\""
                                             : "\"Line No\",\"Source\",\"Address\",\"Source\"");
    k->n_cols = r->n_fields - sr->first_col;
    k->column_names = xmalloc((k->n_cols ? k->n_cols : 1) * sizeof *k->column_names);
    for (uint32_t i = 0; i < k->n_cols; i++)
        k->column_names[i] = xstrdup(r->fields[sr->first_col + i]);
    sr->n_header = r->n_fields;
    sr->have_header = true;
    return 0;
}

static int add_text_cell(source_reader *sr, uint32_t row, uint32_t col, const char *text)
{
    ncu_source_kernel *k = sr->k;
    if (k->n_texts == sr->texts_cap) {
        sr->texts_cap = sr->texts_cap ? sr->texts_cap * 2 : 64;
        k->texts = xrealloc(k->texts, sr->texts_cap * sizeof *k->texts);
    }
    k->texts[k->n_texts++] = (ncu_source_text){row, col, xstrdup(text)};
    return 0;
}

/* One instruction row (or, in the cuda,sass view, a source-line row or a
 * "..." gap row, which only set the line / are skipped). */
static int read_row(source_reader *sr, err_info *err)
{
    csv_reader *r = &sr->csv;
    ncu_source_kernel *k = sr->k;
    char buf[64];
    if (!k || !sr->have_header)
        return fail_at(err, r->name, r->record_line, "expected %s before instruction rows",
                       sr->view == VIEW_SASS ? "a \"Kernel Name\" line and a header row"
                                             : "\"File Path\", \"Function Name\" and a header row");
    if (r->n_fields != sr->n_header)
        return fail_at(err, r->name, r->record_line,
                       "%" PRIu32 " fields: expected %" PRIu32 " as in the kernel's header row",
                       r->n_fields, sr->n_header);
    const char *addr_text = r->fields[0], *sass = r->fields[1];
    if (sr->view == VIEW_CUDA_SASS) {
        if (strcmp(r->fields[2], "...") == 0)
            return 0;
        if (r->fields[0][0] != '\0') {
            /* the line's totals: the sum of its instructions' rows, not kept */
            if (!parse_u32(r->fields[0], &sr->source_line))
                return fail_at(err, r->name, r->record_line, "Line No \"%s\": expected a line number",
                               shown(r->fields[0], buf, sizeof buf));
            return 0;
        }
        addr_text = r->fields[2];
        sass = r->fields[3];
    }
    uint64_t address;
    if (!parse_hex_address(addr_text, &address))
        return fail_at(err, r->name, r->record_line,
                       "Address \"%s\": expected a hexadecimal address such as 0x7f3fdd7a00c0",
                       shown(addr_text, buf, sizeof buf));
    if (sr->view == VIEW_SASS && k->n_rows > 0 && address <= k->rows[k->n_rows - 1].address)
        return fail_at(err, r->name, r->record_line,
                       "address 0x%" PRIx64 " is not above the previous row's 0x%" PRIx64
                       " (expected the sass view in address order, starting at the kernel's entry)",
                       address, k->rows[k->n_rows - 1].address);
    if (((uint64_t)k->n_rows + 1) * (k->n_cols ? k->n_cols : 1) > NCU_SOURCE_CELLS_MAX)
        return fail_at(err, r->name, r->record_line,
                       "kernel block larger than %u cells (NCU_SOURCE_CELLS_MAX)", NCU_SOURCE_CELLS_MAX);
    if (k->n_rows == sr->rows_cap) {
        sr->rows_cap = sr->rows_cap ? sr->rows_cap * 2 : 64;
        k->rows = xrealloc(k->rows, sr->rows_cap * sizeof *k->rows);
        k->values = xrealloc(k->values, (size_t)sr->rows_cap * (k->n_cols ? k->n_cols : 1) * sizeof *k->values);
    }
    while (*sass == ' ' || *sass == '\t')
        sass++;
    uint32_t row = k->n_rows;
    k->rows[row] = (ncu_source_row){
        .address = address,
        .sass = xstrdup(sass),
        .source_line = sr->view == VIEW_CUDA_SASS ? sr->source_line : 0,
        .line = (uint32_t)r->record_line,
    };
    k->n_rows++;
    for (uint32_t c = 0; c < k->n_cols; c++) {
        const char *cell = r->fields[sr->first_col + c];
        double v;
        bool is_int;
        uint64_t u;
        /* Columns mix numbers and labels ("Global", "32(2)"): a cell that is
         * not wholly a number is kept as text. */
        value_class vc = parse_value(cell, &v, &is_int, &u);
        k->values[(size_t)row * k->n_cols + c] = vc == VALUE_NUMBER ? v : (double)NAN;
        if (vc == VALUE_TEXT || vc == VALUE_BAD)
            add_text_cell(sr, row, c, cell);
    }
    return 0;
}

static int source_record(source_reader *sr, bool *want_function, char **file, err_info *err)
{
    csv_reader *r = &sr->csv;
    const char *first = r->fields[0];
    const char *value;
    if (*want_function) {
        if (strcmp(first, "Function Name") != 0)
            return fail_at(err, r->name, r->record_line,
                           "expected \"Function Name\",\"NAME\" after the \"File Path\" line");
        *want_function = false;
        if (label_value(sr, &value, err) != 0)
            return -1;
        return start_kernel(sr, value, *file, err);
    }
    if (sr->view == VIEW_SASS && strcmp(first, "Kernel Name") == 0) {
        if (label_value(sr, &value, err) != 0)
            return -1;
        return start_kernel(sr, value, NULL, err);
    }
    if (sr->view == VIEW_CUDA_SASS && strcmp(first, "File Path") == 0) {
        if (label_value(sr, &value, err) != 0 || finish_kernel(sr, err) != 0)
            return -1;
        free(*file);
        *file = xstrdup(value);
        sr->block_line = r->record_line;
        *want_function = true;
        return 0;
    }
    if (strcmp(first, sr->view == VIEW_SASS ? "Address" : "Line No") == 0)
        return read_column_header(sr, err);
    return read_row(sr, err);
}

int ncu_source_read_stream(FILE *f, const char *name, ncu_source_report *out, err_info *err)
{
    memset(out, 0, sizeof *out);
    source_reader sr;
    memset(&sr, 0, sizeof sr);
    csv_init(&sr.csv, f, name);
    csv_reader *r = &sr.csv;
    char *file = NULL;
    bool want_function = false;
    char buf[64];
    int rc = next_record(r, true, err);
    if (rc == 0) {
        if (r->bytes == 0)
            rc = fail_at(err, name, 1, "empty file: expected ncu --page source --csv output");
        else
            rc = fail_at(err, name, r->line ? r->line : 1,
                         "end of file before the first kernel block: expected ncu --page source --csv "
                         "output starting with \"Kernel Name\" or \"File Path\"");
    } else if (rc == 1) {
        if (strcmp(r->fields[0], "Kernel Name") == 0) {
            sr.view = VIEW_SASS;
            sr.first_col = 2;
        } else if (strcmp(r->fields[0], "File Path") == 0) {
            sr.view = VIEW_CUDA_SASS;
            sr.first_col = 4;
        } else if (strcmp(r->fields[0], "ID") == 0) {
            rc = fail_at(err, name, r->record_line,
                         "this is a metric report (its header starts with \"ID\"): expected ncu's "
                         "source page (--page source --csv), starting with \"Kernel Name\" or \"File Path\"");
        } else {
            rc = fail_at(err, name, r->record_line,
                         "expected ncu's source page (--page source --csv) starting with \"Kernel Name\" "
                         "or \"File Path\", found a row starting with \"%s\"",
                         shown(r->fields[0], buf, sizeof buf));
        }
        while (rc == 1) {
            if (source_record(&sr, &want_function, &file, err) != 0)
                rc = -1;
            else
                rc = next_record(r, false, err);
        }
        if (rc == 0 && want_function)
            rc = fail_at(err, name, r->line, "end of file after \"File Path\": expected \"Function Name\"");
        if (rc == 0)
            rc = finish_kernel(&sr, err);
    }
    free(file);
    if (rc != 0) {
        ncu_source_free(&sr.rep);
        csv_done(r);
        return -1;
    }
    sr.rep.notes = r->notes;
    sr.rep.n_notes = r->n_notes;
    r->notes = NULL;
    r->n_notes = 0;
    csv_done(r);
    *out = sr.rep;
    return 0;
}

int ncu_source_read(const char *path, ncu_source_report *out, err_info *err)
{
    memset(out, 0, sizeof *out);
    FILE *f = fopen(path, "rb");
    if (!f) {
        err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int rc = ncu_source_read_stream(f, path, out, err);
    fclose(f);
    return rc;
}

int ncu_source_column(const ncu_source_kernel *k, const char *name)
{
    for (uint32_t i = 0; i < k->n_cols; i++)
        if (strcmp(k->column_names[i], name) == 0)
            return (int)i;
    return -1;
}

double ncu_source_value(const ncu_source_kernel *k, uint32_t row, uint32_t col)
{
    if (row >= k->n_rows || col >= k->n_cols)
        return (double)NAN;
    return k->values[(size_t)row * k->n_cols + col];
}

const char *ncu_source_text_at(const ncu_source_kernel *k, uint32_t row, uint32_t col)
{
    if (k->n_texts == 0) /* texts may be NULL, which bsearch must not get */
        return NULL;
    ncu_source_text key = {row, col, NULL};
    const ncu_source_text *t = bsearch(&key, k->texts, k->n_texts, sizeof *k->texts, cmp_text_cell);
    return t ? t->text : NULL;
}

int64_t ncu_source_row_at(const ncu_source_kernel *k, uint64_t pc_offset)
{
    uint32_t a = 0, b = k->n_rows;
    while (a < b) {
        uint32_t mid = a + (b - a) / 2;
        if (k->rows[mid].pc_offset < pc_offset)
            a = mid + 1;
        else
            b = mid;
    }
    return a < k->n_rows && k->rows[a].pc_offset == pc_offset ? (int64_t)a : -1;
}
