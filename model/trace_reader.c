/* trace_reader.c - the one trace reader: detects the form from the first
 * bytes, then checks the order of records, every count and every record
 * (trace_*_validate) for both forms alike.
 *
 * The forms' decoders (trace_binary.c, trace_text.c) deliver raw records; the
 * state machine here turns them into events. A kernel's event is delivered
 * once its whole table (files, PCs) is read, which is known at the first
 * record that is not part of the table: that record is kept as a one-record
 * look-ahead. Memory is bounded by one kernel's metadata and one record. */
#include "trace_int.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void trace_err_one_line(err_info *err)
{
    if (!err)
        return;
    /* messages quote names, keys and fields from the trace: escape control
     * bytes so that a message stays one line */
    char out[ERR_MSG_BYTES];
    size_t o = 0;
    for (const unsigned char *s = (const unsigned char *)err->msg; *s && o + 5 < sizeof out; s++) {
        if (*s == '\n') {
            out[o++] = '\\';
            out[o++] = 'n';
        } else if (*s == '\t') {
            out[o++] = '\\';
            out[o++] = 't';
        } else if (*s < 0x20 || *s == 0x7f) {
            snprintf(out + o, 5, "\\x%02x", *s);
            o += 4;
        } else {
            out[o++] = (char)*s;
        }
    }
    out[o] = '\0';
    memcpy(err->msg, out, o + 1);
}

void trace_err_at(err_info *err, trace_format fmt, const char *path, uint64_t loc)
{
    if (fmt == TRACE_FORMAT_BINARY)
        err_prefix(err, "%s: record %" PRIu64, path, loc);
    else
        err_prefix(err, "%s:%" PRIu64, path, loc);
    trace_err_one_line(err);
}

/* The current record is wrong: prefix the validation message with its place. */
static int fail_at(trace_reader *r, err_info *err)
{
    trace_err_at(err, r->format, r->path, r->loc);
    return -1;
}

static int fail_here(trace_reader *r, err_info *err, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_here(trace_reader *r, err_info *err, const char *fmt, ...)
{
    if (err) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err->msg, sizeof err->msg, fmt, ap);
        va_end(ap);
    }
    return fail_at(r, err);
}

/* Every error ends here: remember it so that later calls repeat it. */
static int sticky(trace_reader *r, err_info *err, int rc)
{
    if (rc < 0) {
        trace_err_one_line(err);
        r->failed = true;
        if (err)
            memcpy(r->failed_msg, err->msg, sizeof r->failed_msg);
        else
            snprintf(r->failed_msg, sizeof r->failed_msg, "%s: unreadable trace", r->path);
    }
    return rc;
}

static const char *rec_name(trace_rec_type t)
{
    static const char *const names[TREC_COUNT] = {
        "meta", "kernel", "file", "pc", "memory", "barrier", "kernel end", "end",
    };
    return (unsigned)t < TREC_COUNT ? names[t] : "unknown";
}

static int raw_next(trace_reader *r, trace_rec *rec, trace_event *ev, err_info *err)
{
    if (r->has_pending) {
        r->has_pending = false;
        *rec = r->pending;
        r->loc = r->pending_loc;
        if (rec->type == TREC_MEM) {
            ev->mem = r->pending_mem;
            ev->mem_strided = r->pending_strided;
            ev->mem_base = r->pending_base;
            ev->mem_stride = r->pending_stride;
            ev->mem_lanes_pending = false; /* filled when it was kept */
        } else if (rec->type == TREC_BARRIER) {
            ev->barrier = r->pending_bar;
        }
        return 1;
    }
    if (r->format == TRACE_FORMAT_BINARY)
        return trace_bin_dec_next(r, rec, ev, err); /* sets mem_strided */
    ev->mem_strided = false; /* the text form's lanes are taken one by one */
    ev->mem_lanes_pending = false;
    return trace_text_dec_next(r, rec, ev, err);
}

static void keep_pending(trace_reader *r, const trace_rec *rec, trace_event *ev)
{
    r->pending = *rec;
    r->pending_loc = r->loc;
    if (rec->type == TREC_MEM) {
        trace_event_fill_lanes(ev);
        r->pending_mem = ev->mem;
        r->pending_strided = ev->mem_strided;
        r->pending_base = ev->mem_base;
        r->pending_stride = ev->mem_stride;
    } else if (rec->type == TREC_BARRIER) {
        r->pending_bar = ev->barrier;
    }
    r->has_pending = true;
}

static int add_meta(trace_reader *r, const trace_rec *rec, err_info *err)
{
    if (r->state != TRACE_RD_META)
        return fail_here(r, err, "meta record after the first kernel (metadata comes first)");
    if (trace_meta_key_check(rec->key, err) < 0)
        return fail_at(r, err);
    if (trace_meta_get(&r->meta, rec->key))
        return fail_here(r, err, "meta key %s given twice", rec->key);
    if (r->meta.n >= TRACE_MAX_META_ENTRIES)
        return fail_here(r, err, "more than %u meta entries", TRACE_MAX_META_ENTRIES);
    trace_meta_set(&r->meta, rec->key, rec->value);
    return 0;
}

static int begin_kernel(trace_reader *r, const trace_rec *rec, err_info *err)
{
    if (r->state == TRACE_RD_BODY || r->state == TRACE_RD_TABLE)
        return fail_here(r, err, "kernel record inside kernel launch %" PRIu32
                                 " (expected its kernel end record first)", r->kernel.launch);
    if (trace_kernel_validate_dims(&rec->kernel, err) < 0)
        return fail_at(r, err);
    if (rec->has_table_counts) {
        if (rec->n_files > TRACE_MAX_FILES)
            return fail_here(r, err, "%" PRIu32 " source files (expected at most %u)",
                             rec->n_files, TRACE_MAX_FILES);
        if (rec->n_pcs > TRACE_MAX_PCS)
            return fail_here(r, err, "%" PRIu32 " PC table entries (expected at most %u)",
                             rec->n_pcs, TRACE_MAX_PCS);
    }
    if (r->n_kernels == UINT32_MAX)
        return fail_here(r, err, "more than %" PRIu32 " kernels", UINT32_MAX);
    trace_kernel_free(&r->kernel);
    r->kernel = rec->kernel;
    r->kernel.name = xstrdup(rec->kernel.name);
    r->kernel.demangled = xstrdup(rec->kernel.demangled);
    r->kernel.n_files = 0;
    r->kernel.files = NULL;
    r->kernel.n_pcs = 0;
    r->kernel.pcs = NULL;
    r->files_cap = r->pcs_cap = 0;
    r->has_table_counts = rec->has_table_counts;
    r->decl_files = rec->n_files;
    r->decl_pcs = rec->n_pcs;
    r->table_bytes = 0;
    r->kernel_loc = r->loc;
    r->n_mem = r->n_bar = 0;
    r->n_kernels++;
    r->state = TRACE_RD_TABLE;
    return 0;
}

/* Count a table string against TRACE_MAX_TABLE_BYTES before it is copied. */
static int table_room(trace_reader *r, const char *what, const char *s, err_info *err)
{
    uint64_t n = strlen(s) + 1;
    if (r->table_bytes + n > TRACE_MAX_TABLE_BYTES)
        return fail_here(r, err, "%s: the table of kernel launch %" PRIu32 " holds more than %"
                                 PRIu64 " bytes of file names and SASS text (at %" PRIu32
                                 " files and %" PRIu32 " PCs)", what, r->kernel.launch,
                         TRACE_MAX_TABLE_BYTES, r->kernel.n_files, r->kernel.n_pcs);
    r->table_bytes += n;
    return 0;
}

static int add_file(trace_reader *r, const trace_rec *rec, err_info *err)
{
    trace_kernel *k = &r->kernel;
    if (r->state != TRACE_RD_TABLE)
        return fail_here(r, err, "file record %s (expected it right after its kernel record)",
                         r->state == TRACE_RD_BODY ? "after the kernel's first memory or barrier "
                                                     "record" : "outside a kernel");
    if (k->n_pcs > 0)
        return fail_here(r, err, "file record after PC records (a kernel's files come before "
                                 "its PCs)");
    if (rec->has_file_index && rec->file_index != k->n_files)
        return fail_here(r, err, "file index %" PRIu32 " (expected %" PRIu32
                                 ": files are numbered in order from 0)", rec->file_index,
                         k->n_files);
    if (r->has_table_counts && k->n_files >= r->decl_files)
        return fail_here(r, err, "more file records than the %" PRIu32
                                 " that kernel launch %" PRIu32 " declares", r->decl_files,
                         k->launch);
    if (k->n_files >= TRACE_MAX_FILES)
        return fail_here(r, err, "more than %u source files", TRACE_MAX_FILES);
    if (table_room(r, "file record", rec->str, err) < 0)
        return -1;
    if (k->n_files == r->files_cap) {
        r->files_cap = r->files_cap ? 2 * r->files_cap : 8;
        k->files = xrealloc(k->files, r->files_cap * sizeof *k->files);
    }
    k->files[k->n_files++] = xstrdup(rec->str);
    return 0;
}

static int add_pc(trace_reader *r, const trace_rec *rec, err_info *err)
{
    trace_kernel *k = &r->kernel;
    if (r->state != TRACE_RD_TABLE)
        return fail_here(r, err, "pc record %s (expected it right after its kernel record)",
                         r->state == TRACE_RD_BODY ? "after the kernel's first memory or barrier "
                                                     "record" : "outside a kernel");
    if (r->has_table_counts && k->n_files != r->decl_files)
        return fail_here(r, err, "pc record after %" PRIu32 " of the %" PRIu32
                                 " file records that kernel launch %" PRIu32 " declares",
                         k->n_files, r->decl_files, k->launch);
    if (r->has_table_counts && k->n_pcs >= r->decl_pcs)
        return fail_here(r, err, "more pc records than the %" PRIu32
                                 " that kernel launch %" PRIu32 " declares", r->decl_pcs,
                         k->launch);
    if (k->n_pcs >= TRACE_MAX_PCS)
        return fail_here(r, err, "more than %u PC table entries", TRACE_MAX_PCS);
    if (trace_pc_check(k, &rec->pc, k->n_pcs ? &k->pcs[k->n_pcs - 1] : NULL, err) < 0)
        return fail_at(r, err);
    if (table_room(r, "pc record", rec->pc.sass, err) < 0)
        return -1;
    if (k->n_pcs == r->pcs_cap) {
        r->pcs_cap = r->pcs_cap ? 2 * r->pcs_cap : 16;
        k->pcs = xrealloc(k->pcs, r->pcs_cap * sizeof *k->pcs);
    }
    k->pcs[k->n_pcs] = rec->pc;
    k->pcs[k->n_pcs].sass = xstrdup(rec->pc.sass);
    k->n_pcs++;
    return 0;
}

/* The kernel's table is complete (the current record is not part of it). */
static int end_table(trace_reader *r, err_info *err)
{
    trace_kernel *k = &r->kernel;
    if (r->has_table_counts && (k->n_files != r->decl_files || k->n_pcs != r->decl_pcs))
        return fail_here(r, err, "kernel launch %" PRIu32 " declares %" PRIu32 " files and %"
                                 PRIu32 " PCs, but %" PRIu32 " file and %" PRIu32
                                 " pc records precede this %s record", k->launch, r->decl_files,
                         r->decl_pcs, k->n_files, k->n_pcs, rec_name(r->pending.type));
    if (trace_kernel_validate(k, err) < 0) {
        trace_err_at(err, r->format, r->path, r->kernel_loc);
        return -1;
    }
    trace_mem_limits_of(k, &r->limits);
    r->state = TRACE_RD_BODY;
    return 0;
}

static int end_trace(trace_reader *r, const trace_rec *rec, err_info *err)
{
    if (r->state == TRACE_RD_BODY)
        return fail_here(r, err, "end record inside kernel launch %" PRIu32
                                 " (expected its kernel end record first)", r->kernel.launch);
    if (rec->kernels != r->n_kernels)
        return fail_here(r, err, "end record counts %" PRIu64 " kernels, but the trace has %"
                                 PRIu32, rec->kernels, r->n_kernels);
    if (!rec->complete) {
        r->incomplete = true;
        free(r->reason);
        r->reason = xstrdup(rec->str ? rec->str : "");
        if (!r->opt.allow_incomplete)
            return fail_here(r, err, "incomplete trace: %s (use --allow-incomplete to read it "
                                     "anyway)", r->reason);
    }
    int rc = r->format == TRACE_FORMAT_BINARY ? trace_bin_dec_finish(r, err)
                                              : trace_text_dec_finish(r, err);
    if (rc < 0)
        return -1;
    r->state = TRACE_RD_DONE;
    return 0;
}

static int truncated(trace_reader *r, err_info *err)
{
    char where[128];
    if (r->state == TRACE_RD_TABLE || r->state == TRACE_RD_BODY)
        snprintf(where, sizeof where, "the file ends inside kernel launch %" PRIu32,
                 r->kernel.launch);
    else
        snprintf(where, sizeof where, "the file ends after %" PRIu32 " complete kernel%s",
                 r->n_kernels, r->n_kernels == 1 ? "" : "s");
    err_set(err, "%s: truncated after %s %" PRIu64 ": no end record (%s)", r->path,
            r->format == TRACE_FORMAT_BINARY ? "record" : "line", r->loc, where);
    return -1;
}

/* Read records until one makes an event (1), the trace ends cleanly (0), or
 * something is wrong (-1). */
/* A memory record inside a kernel: validated, counted, handed out. */
/* The full check of a strided record that is not plainly valid, which may
 * read (and name) its lanes. */
static __attribute__((noinline)) int validate_strided(trace_reader *r, trace_event *ev, err_info *err)
{
    trace_event_fill_lanes(ev);
    return trace_mem_validate_strided(&r->kernel, &r->limits, &ev->mem, ev->mem_base,
                                      ev->mem_stride, err);
}

__attribute__((always_inline)) static inline int accept_mem(trace_reader *r, trace_event *ev,
                                                         err_info *err)
{
    if (ev->mem_strided
            ? !trace_mem_strided_plainly_valid(&r->limits, &ev->mem, ev->mem_base, ev->mem_stride) &&
                  validate_strided(r, ev, err) < 0
            : trace_mem_validate_limits(&r->kernel, &r->limits, &ev->mem, err) < 0)
        return fail_at(r, err);
    r->n_mem++;
    ev->type = TRACE_EV_MEM;
    ev->kernel = &r->kernel;
    return 1;
}

static int step(trace_reader *r, trace_event *ev, err_info *err)
{
    trace_rec cur;
    trace_rec *rec = &cur;
    for (;;) {
        int rc = raw_next(r, rec, ev, err);
        if (rc < 0)
            return -1;
        if (rc == 0)
            return truncated(r, err);

        /* the hot path first */
        if (rec->type == TREC_MEM && r->state == TRACE_RD_BODY)
            return accept_mem(r, ev, err);
        if (r->state == TRACE_RD_TABLE && rec->type != TREC_FILE && rec->type != TREC_PC) {
            keep_pending(r, rec, ev);
            if (end_table(r, err) < 0)
                return -1;
            ev->type = TRACE_EV_KERNEL;
            ev->kernel = &r->kernel;
            return 1;
        }
        if (r->state == TRACE_RD_META && rec->type != TREC_META)
            r->state = TRACE_RD_TOP;

        switch (rec->type) {
        case TREC_META:
            if (add_meta(r, rec, err) < 0)
                return -1;
            break;
        case TREC_KERNEL:
            if (begin_kernel(r, rec, err) < 0)
                return -1;
            break;
        case TREC_FILE:
            if (add_file(r, rec, err) < 0)
                return -1;
            break;
        case TREC_PC:
            if (add_pc(r, rec, err) < 0)
                return -1;
            break;
        case TREC_MEM:
            return fail_here(r, err, "memory record outside a kernel (expected a kernel record "
                                     "first)");
        case TREC_BARRIER:
            if (r->state != TRACE_RD_BODY)
                return fail_here(r, err, "barrier record outside a kernel (expected a kernel "
                                         "record first)");
            if (trace_barrier_validate(&r->kernel, &ev->barrier, err) < 0)
                return fail_at(r, err);
            r->n_bar++;
            ev->type = TRACE_EV_BARRIER;
            ev->kernel = &r->kernel;
            return 1;
        case TREC_KERNEL_END:
            if (r->state != TRACE_RD_BODY)
                return fail_here(r, err, "kernel end record outside a kernel");
            if (rec->counts.mem_records != r->n_mem || rec->counts.barrier_records != r->n_bar)
                return fail_here(r, err, "kernel end counts %" PRIu64 " memory and %" PRIu64
                                         " barrier records, but kernel launch %" PRIu32
                                         " has %" PRIu64 " and %" PRIu64,
                                 rec->counts.mem_records, rec->counts.barrier_records,
                                 r->kernel.launch, r->n_mem, r->n_bar);
            r->state = TRACE_RD_TOP;
            ev->type = TRACE_EV_KERNEL_END;
            ev->kernel = &r->kernel;
            ev->kernel_end = rec->counts;
            return 1;
        case TREC_END:
            return end_trace(r, rec, err) < 0 ? -1 : 0;
        case TREC_COUNT:
            break;
        }
    }
}

trace_reader *trace_reader_open(const char *path, const trace_reader_options *opt, err_info *err)
{
    bool is_stdin = strcmp(path, "-") == 0;
    FILE *f = is_stdin ? stdin : fopen(path, "rb");
    if (!f) {
        err_set(err, "%s: cannot open: %s", path, strerror(errno));
        trace_err_one_line(err);
        return NULL;
    }
    trace_reader *r = xcalloc(1, sizeof *r);
    r->path = xstrdup(is_stdin ? "standard input" : path);
    r->f = f;
    r->own_file = !is_stdin;
    if (opt)
        r->opt = *opt;
    trace_meta_init(&r->meta);
    trace_kernel_init(&r->kernel);
    r->state = TRACE_RD_META;

    /* the first 16 bytes tell the form: the binary header, or the text header line */
    uint8_t head[TRACE_BIN_HEADER_BYTES];
    size_t n = fread(head, 1, sizeof head, f);
    int rc;
    if (n < sizeof head && ferror(f)) {
        err_set(err, "%s: read error: %s", r->path, strerror(errno));
        rc = -1;
    } else if (n == 0) {
        err_set(err, "%s: empty file (expected a gpumemsim trace)", r->path);
        rc = -1;
    } else if (memcmp(head, TRACE_BIN_MAGIC, n < 8 ? n : 8) == 0) {
        r->format = TRACE_FORMAT_BINARY;
        rc = trace_bin_dec_open(r, head, n, err);
    } else if (n >= strlen(TRACE_TEXT_MAGIC) &&
               memcmp(head, TRACE_TEXT_MAGIC, strlen(TRACE_TEXT_MAGIC)) == 0) {
        r->format = TRACE_FORMAT_TEXT;
        rc = trace_text_dec_open(r, head, n, err);
    } else {
        err_set(err, "%s: not a gpumemsim trace (expected the binary header \"GMSTRACE\" or the "
                     "text header line \"gpumemsim-trace 1\")", r->path);
        rc = -1;
    }
    if (rc == 0) {
        /* the metadata, up to the first other record, which is kept for next() */
        trace_event ev;
        trace_rec rec;
        for (;;) {
            rc = raw_next(r, &rec, &ev, err);
            if (rc < 0)
                break;
            if (rc == 0) {
                rc = truncated(r, err);
                break;
            }
            if (rec.type != TREC_META) {
                keep_pending(r, &rec, &ev);
                /* a trace of no kernels ends here, and is checked here */
                if (rec.type == TREC_END)
                    rc = step(r, &ev, err) < 0 ? -1 : 0;
                break;
            }
            if ((rc = add_meta(r, &rec, err)) < 0)
                break;
        }
    }
    if (rc < 0) {
        trace_err_one_line(err);
        trace_reader_close(r);
        return NULL;
    }
    return r;
}

trace_format trace_reader_format(const trace_reader *r)
{
    return r->format;
}

uint32_t trace_reader_version(const trace_reader *r)
{
    return r->version;
}

const trace_meta *trace_reader_meta(const trace_reader *r)
{
    return &r->meta;
}

const char *trace_reader_path(const trace_reader *r)
{
    return r->path;
}

/* Everything but the hot path's good records: its failures (failed < 0,
 * the message set), the record state machine. Out of line, so that the hot
 * path saves no registers for it. */
static __attribute__((noinline)) int next_slow(trace_reader *r, trace_event *ev, err_info *err,
                                               int failed)
{
    if (failed < 0)
        return sticky(r, err, -1);
    if (r->failed) {
        err_set(err, "%s", r->failed_msg);
        return -1;
    }
    if (r->state == TRACE_RD_DONE)
        return 0;
    return sticky(r, err, step(r, ev, err));
}

int trace_reader_next(trace_reader *r, trace_event *ev, err_info *err)
{
    /* the hot path: a binary memory record inside a kernel, decoded and
     * validated without the record state machine (step would do the same) */
    if (r->state == TRACE_RD_BODY && r->format == TRACE_FORMAT_BINARY && !r->has_pending &&
        !r->failed) {
        int rc = trace_bin_dec_next_mem(r, ev, err);
        if (rc > 0 && (rc = accept_mem(r, ev, err)) > 0)
            return rc;
        if (rc < 0)
            return next_slow(r, ev, err, -1);
    }
    return next_slow(r, ev, err, 0);
}

void trace_event_fill_lanes(trace_event *ev)
{
    if (!ev->mem_lanes_pending)
        return;
    assert(ev->mem_strided && ev->mem.active_mask == TRACE_FULL_MASK && ev->mem.addr[0] == ev->mem_base);
#if TRACE_AVX2_BUILDS
    if (trace_cpu_has_avx2())
        trace_mem_expand_stride_full_avx2(ev->mem.addr, ev->mem_base, ev->mem_stride);
    else
#endif
        trace_mem_expand_stride(&ev->mem, ev->mem_base, ev->mem_stride);
    ev->mem_lanes_pending = false;
}

uint32_t trace_reader_kernels(const trace_reader *r)
{
    return r->n_kernels;
}

bool trace_reader_incomplete(const trace_reader *r, const char **reason)
{
    if (reason)
        *reason = r->incomplete ? r->reason : NULL;
    return r->incomplete;
}

uint64_t trace_reader_bytes(const trace_reader *r)
{
    return r->bytes;
}

void trace_reader_close(trace_reader *r)
{
    if (!r)
        return;
    if (r->bin)
        trace_bin_dec_close(r);
    if (r->text)
        trace_text_dec_close(r);
    if (r->own_file && r->f)
        fclose(r->f);
    trace_meta_free(&r->meta);
    trace_kernel_free(&r->kernel);
    free(r->reason);
    free(r->path);
    free(r);
}
