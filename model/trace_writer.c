/* trace_writer.c - the one trace writer: checks the order of calls and
 * validates every record with the reader's rules before the form's encoder
 * (trace_binary.c, trace_text.c) writes it, so a trace that was written can
 * always be read back. Counts for the kernel-end and end records are kept
 * here. A record that fails validation is not written and the writer stays
 * usable; an I/O error is final (later calls repeat it). */
#include "trace_int.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const trace_enc_ops *enc(const trace_writer *w)
{
    return w->format == TRACE_FORMAT_BINARY ? &trace_bin_enc_ops : &trace_text_enc_ops;
}

/* The record about to be written is wrong: place the message. */
static int bad_record(trace_writer *w, err_info *err)
{
    trace_err_at(err, w->format, w->name, w->loc + 1);
    return -1;
}

/* An encoder failed (I/O): the writer is done for. */
static int io_failed(trace_writer *w, err_info *err)
{
    trace_err_one_line(err);
    w->failed = true;
    if (err)
        memcpy(w->failed_msg, err->msg, sizeof w->failed_msg);
    else
        snprintf(w->failed_msg, sizeof w->failed_msg, "%s: write error", w->name);
    return -1;
}

static int check_failed(const trace_writer *w, err_info *err)
{
    if (w->failed) {
        err_set(err, "%s", w->failed_msg);
        return -1;
    }
    return 0;
}

static void writer_free(trace_writer *w)
{
    enc(w)->free(w);
    trace_kernel_free(&w->kernel);
    free(w->name);
    free(w);
}

trace_writer *trace_writer_open_stream(FILE *f, const char *name, trace_format fmt,
                                       int zstd_level, const trace_meta *meta, err_info *err)
{
    if ((unsigned)fmt >= TRACE_FORMAT_COUNT) {
        err_set(err, "%s: unknown trace format %d", name, (int)fmt);
        return NULL;
    }
    if (fmt == TRACE_FORMAT_BINARY && (zstd_level < 0 || zstd_level > 19)) {
        err_set(err, "%s: zstd level %d is out of range (expected 1..19, or 0 for the default 3)",
                name, zstd_level);
        return NULL;
    }
    if (meta && trace_meta_validate(meta, err) < 0) {
        err_prefix(err, "%s", name);
        trace_err_one_line(err);
        return NULL;
    }
    trace_writer *w = xcalloc(1, sizeof *w);
    w->name = xstrdup(name);
    w->format = fmt;
    w->f = f;
    trace_kernel_init(&w->kernel);
    if (enc(w)->open(w, zstd_level ? zstd_level : 3, err) < 0) {
        writer_free(w);
        return NULL;
    }
    for (uint32_t i = 0; meta && i < meta->n; i++) {
        if (enc(w)->meta(w, meta->keys[i], meta->values[i], err) < 0) {
            writer_free(w);
            return NULL;
        }
    }
    return w;
}

trace_writer *trace_writer_open(const char *path, trace_format fmt, int zstd_level,
                                const trace_meta *meta, err_info *err)
{
    bool is_stdout = strcmp(path, "-") == 0;
    FILE *f = is_stdout ? stdout : fopen(path, "wb");
    if (!f) {
        err_set(err, "%s: cannot create: %s", path, strerror(errno));
        trace_err_one_line(err);
        return NULL;
    }
    trace_writer *w = trace_writer_open_stream(f, is_stdout ? "standard output" : path, fmt,
                                               zstd_level, meta, err);
    if (!w) {
        trace_err_one_line(err);
        if (!is_stdout) {
            /* drop what was created, but never a device such as /dev/null */
            struct stat st;
            bool regular = fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode);
            fclose(f);
            if (regular)
                remove(path);
        }
        return NULL;
    }
    w->own_file = !is_stdout;
    return w;
}

int trace_writer_kernel(trace_writer *w, const trace_kernel *k, err_info *err)
{
    if (check_failed(w, err) < 0)
        return -1;
    if (w->in_kernel) {
        err_set(err, "kernel launch %" PRIu32 " begins while kernel launch %" PRIu32
                     " is still open (end it first)", k->launch, w->kernel.launch);
        return bad_record(w, err);
    }
    if (w->n_kernels == UINT32_MAX) {
        err_set(err, "more than %" PRIu32 " kernels", UINT32_MAX);
        return bad_record(w, err);
    }
    if (trace_kernel_validate(k, err) < 0)
        return bad_record(w, err);
    trace_kernel_free(&w->kernel);
    trace_kernel_copy(&w->kernel, k);
    if (enc(w)->kernel(w, k, err) < 0)
        return io_failed(w, err);
    w->in_kernel = true;
    w->n_mem = w->n_bar = 0;
    w->n_kernels++;
    return 0;
}

int trace_writer_mem(trace_writer *w, const trace_mem *m, err_info *err)
{
    if (check_failed(w, err) < 0)
        return -1;
    if (!w->in_kernel) {
        err_set(err, "memory record outside a kernel (write a kernel record first)");
        return bad_record(w, err);
    }
    if (trace_mem_validate(&w->kernel, m, err) < 0)
        return bad_record(w, err);
    if (enc(w)->mem(w, m, err) < 0)
        return io_failed(w, err);
    w->n_mem++;
    return 0;
}

int trace_writer_barrier(trace_writer *w, const trace_barrier *b, err_info *err)
{
    if (check_failed(w, err) < 0)
        return -1;
    if (!w->in_kernel) {
        err_set(err, "barrier record outside a kernel (write a kernel record first)");
        return bad_record(w, err);
    }
    if (trace_barrier_validate(&w->kernel, b, err) < 0)
        return bad_record(w, err);
    if (enc(w)->barrier(w, b, err) < 0)
        return io_failed(w, err);
    w->n_bar++;
    return 0;
}

int trace_writer_kernel_end(trace_writer *w, err_info *err)
{
    if (check_failed(w, err) < 0)
        return -1;
    if (!w->in_kernel) {
        err_set(err, "kernel end outside a kernel");
        return bad_record(w, err);
    }
    trace_kernel_end c = {.mem_records = w->n_mem, .barrier_records = w->n_bar};
    if (enc(w)->kernel_end(w, &c, err) < 0)
        return io_failed(w, err);
    w->in_kernel = false;
    trace_kernel_free(&w->kernel);
    return 0;
}

int trace_writer_close(trace_writer *w, bool complete, const char *reason, err_info *err)
{
    int rc = check_failed(w, err);
    if (rc == 0 && w->in_kernel)
        rc = trace_writer_kernel_end(w, err);
    if (!complete && !reason)
        reason = "";
    if (rc == 0 && !complete && strlen(reason) > TRACE_MAX_STRING_BYTES) {
        err_set(err, "reason of %zu bytes (expected at most %u)", strlen(reason),
                TRACE_MAX_STRING_BYTES);
        rc = bad_record(w, err);
    }
    if (rc == 0 && enc(w)->end(w, w->n_kernels, complete, complete ? NULL : reason, err) < 0)
        rc = -1;
    if (rc == 0 && fflush(w->f) != 0) {
        err_set(err, "%s: write error: %s", w->name, strerror(errno));
        rc = -1;
    }
    if (rc == 0 && ferror(w->f)) {
        err_set(err, "%s: write error", w->name);
        rc = -1;
    }
    if (w->own_file && fclose(w->f) != 0 && rc == 0) {
        err_set(err, "%s: write error: %s", w->name, strerror(errno));
        rc = -1;
    }
    if (rc < 0)
        trace_err_one_line(err);
    writer_free(w);
    return rc;
}

uint64_t trace_writer_bytes(const trace_writer *w)
{
    return w->bytes;
}
