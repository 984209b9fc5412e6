/* fuzz_common.c - see fuzz_common.h. */
#define _GNU_SOURCE /* memfd_create */
#include "fuzz_common.h"

#include <stdarg.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#ifndef GMS_FUZZ_DEFAULT_CONFIG
#define GMS_FUZZ_DEFAULT_CONFIG "configs/h200.ini"
#endif

void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
{
    fprintf(stderr, "%s:%d: fuzz check failed: %s: ", file, line, cond);
    va_list ap;
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fputc('\n', stderr);
    abort();
}

/* ---- inputs ------------------------------------------------------------------ */

#define MEMFILE_SLOTS 4

const char *fuzz_memfile(int slot, const void *data, size_t size)
{
    static int fds[MEMFILE_SLOTS] = {-1, -1, -1, -1};
    static char paths[MEMFILE_SLOTS][64];
    fuzz_check(slot >= 0 && slot < MEMFILE_SLOTS, "slot %d", slot);
    if (fds[slot] < 0) {
        fds[slot] = memfd_create("gms-fuzz", 0);
        fuzz_check(fds[slot] >= 0, "memfd_create failed");
        snprintf(paths[slot], sizeof paths[slot], "/proc/self/fd/%d", fds[slot]);
    }
    int fd = fds[slot];
    fuzz_check(ftruncate(fd, 0) == 0, "ftruncate failed");
    const char *p = data;
    size_t done = 0;
    while (done < size) {
        ssize_t n = pwrite(fd, p + done, size - done, (off_t)done);
        fuzz_check(n > 0, "pwrite failed");
        done += (size_t)n;
    }
    return paths[slot];
}

FILE *fuzz_memstream(const uint8_t *data, size_t size)
{
    /* fmemopen of 0 bytes is not portable; an empty stream is /dev/null */
    FILE *f = size ? fmemopen((void *)data, size, "r") : fopen("/dev/null", "r");
    fuzz_check(f != NULL, "cannot open a stream on %zu bytes", size);
    return f;
}

/* ---- the H200 model ------------------------------------------------------------ */

const cfg_gpu *fuzz_h200(void)
{
    static cfg_gpu cfg;
    static bool loaded;
    if (!loaded) {
        const char *path = getenv("GMS_FUZZ_CONFIG");
        if (!path)
            path = GMS_FUZZ_DEFAULT_CONFIG;
        err_info err;
        err_clear(&err);
        fuzz_check(cfg_load(path, &cfg, &err) == 0, "%s", err.msg);
        loaded = true;
    }
    return &cfg;
}

gpu *fuzz_h200_gpu(void)
{
    static gpu *g;
    if (!g) {
        g = gpu_create(fuzz_h200());
        fuzz_check(fuzz_h200()->cold_caches_per_kernel,
                   "the fuzz config must empty caches per kernel, or inputs would share state");
    }
    return g;
}

/* ---- traces ------------------------------------------------------------------- */

/* A refusal is one line that names the trace. */
static void check_message(const err_info *err, const char *path)
{
    fuzz_check(err->msg[0] != '\0', "a refused trace left no message");
    fuzz_check(strchr(err->msg, '\n') == NULL, "message is not one line: %s", err->msg);
    size_t n = strlen(path);
    fuzz_check(strncmp(err->msg, path, n) == 0 && (err->msg[n] == ':'),
               "message does not start with \"%s:\": %s", path, err->msg);
}

/* The SM count of the GPU the trace came from, as sim/replay.c reads it. */
static uint32_t trace_sm_count(const trace_reader *r)
{
    const char *v = trace_meta_get(trace_reader_meta(r), "sm_count");
    if (!v)
        return 0;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    return (*end == '\0' && n > 0 && n < 100000) ? (uint32_t)n : 0;
}

/* The breakdown of a kernel just ended: PCs strictly ascending, and one
 * execution per memory or barrier record, but for the shared halves of
 * cp.async (the same execution as their global halves: model/gpu.c) and
 * the warp shuffles recorded as waypoints (no memory instruction: gpu.c's
 * gpu_barrier counts none). */
static void check_breakdown(const gpu *g, const trace_kernel_end *counts, uint64_t uncounted)
{
    uint32_t n;
    const gpu_pc_stats *pcs = gpu_pc_breakdown(g, &n);
    uint64_t executions = 0;
    for (uint32_t i = 0; i < n; i++) {
        fuzz_check(i == 0 || pcs[i - 1].pc < pcs[i].pc, "PCs not ascending at %u", i);
        executions += pcs[i].executions;
    }
    fuzz_check(executions + uncounted == counts->mem_records + counts->barrier_records,
               "%llu executions for %llu records (%llu cp.async shared halves and shuffles)",
               (unsigned long long)executions, (unsigned long long)(counts->mem_records + counts->barrier_records),
               (unsigned long long)uncounted);
}

static bool same_str(const char *a, const char *b)
{
    return (a == NULL && b == NULL) || (a && b && strcmp(a, b) == 0);
}

static void check_same_kernel(const trace_kernel *a, const trace_kernel *b)
{
    fuzz_check(a->launch == b->launch && same_str(a->name, b->name) &&
                   same_str(a->demangled, b->demangled) &&
                   memcmp(a->grid, b->grid, sizeof a->grid) == 0 &&
                   memcmp(a->block, b->block, sizeof a->block) == 0 &&
                   a->smem_static_bytes == b->smem_static_bytes &&
                   a->smem_dynamic_bytes == b->smem_dynamic_bytes &&
                   a->regs_per_thread == b->regs_per_thread &&
                   a->local_bytes_per_thread == b->local_bytes_per_thread &&
                   a->n_files == b->n_files && a->n_pcs == b->n_pcs,
               "kernel launch %u differs after conversion", a->launch);
    for (uint32_t i = 0; i < a->n_files; i++)
        fuzz_check(same_str(a->files[i], b->files[i]), "file %u differs after conversion", i);
    for (uint32_t i = 0; i < a->n_pcs; i++) {
        const trace_pc_info *p = &a->pcs[i], *q = &b->pcs[i];
        fuzz_check(p->pc == q->pc && same_str(p->sass, q->sass) && p->cache_op == q->cache_op &&
                       p->file == q->file && p->line == q->line,
                   "pc table entry %u differs after conversion", i);
    }
}

static void check_same_event(const trace_event *a, const trace_event *b, uint64_t n)
{
    fuzz_check(a->type == b->type, "event %llu: type %d became %d", (unsigned long long)n,
               (int)a->type, (int)b->type);
    switch (a->type) {
    case TRACE_EV_KERNEL:
        check_same_kernel(a->kernel, b->kernel);
        break;
    case TRACE_EV_MEM: {
        const trace_mem *x = &a->mem, *y = &b->mem;
        fuzz_check(x->cta == y->cta && x->warp == y->warp && x->sm == y->sm && x->pc == y->pc &&
                       x->kind == y->kind && x->space == y->space &&
                       x->size_bytes == y->size_bytes && x->cache_op == y->cache_op &&
                       x->flags == y->flags && x->active_mask == y->active_mask &&
                       memcmp(x->addr, y->addr, sizeof x->addr) == 0,
                   "event %llu: memory record differs after conversion", (unsigned long long)n);
        break;
    }
    case TRACE_EV_BARRIER:
        fuzz_check(a->barrier.cta == b->barrier.cta && a->barrier.warp == b->barrier.warp &&
                       a->barrier.sm == b->barrier.sm && a->barrier.pc == b->barrier.pc,
                   "event %llu: barrier differs after conversion", (unsigned long long)n);
        break;
    case TRACE_EV_KERNEL_END:
        fuzz_check(a->kernel_end.mem_records == b->kernel_end.mem_records &&
                       a->kernel_end.barrier_records == b->kernel_end.barrier_records,
                   "event %llu: kernel end differs after conversion", (unsigned long long)n);
        break;
    case TRACE_EV_COUNT:
        fuzz_check(0, "event type TRACE_EV_COUNT");
    }
}

/* Read the original and the converted trace side by side: same events. */
static void compare_traces(const char *orig, const char *conv)
{
    trace_reader_options ro = {.allow_incomplete = true};
    err_info e1, e2;
    err_clear(&e1);
    err_clear(&e2);
    trace_reader *a = trace_reader_open(orig, &ro, &e1);
    fuzz_check(a != NULL, "the original no longer opens: %s", e1.msg);
    trace_reader *b = trace_reader_open(conv, &ro, &e2);
    fuzz_check(b != NULL, "the converted trace does not open: %s", e2.msg);
    const trace_meta *ma = trace_reader_meta(a), *mb = trace_reader_meta(b);
    fuzz_check(ma->n == mb->n, "%u meta entries became %u", ma->n, mb->n);
    for (uint32_t i = 0; i < ma->n; i++)
        fuzz_check(same_str(ma->keys[i], mb->keys[i]) && same_str(ma->values[i], mb->values[i]),
                   "meta entry %u differs after conversion", i);
    trace_event ea, eb;
    for (uint64_t n = 0;; n++) {
        int ga = trace_reader_next(a, &ea, &e1);
        int gb = trace_reader_next(b, &eb, &e2);
        fuzz_check(ga >= 0, "the original fails on the second reading: %s", e1.msg);
        fuzz_check(gb >= 0, "the converted trace fails: %s", e2.msg);
        fuzz_check(ga == gb, "event %llu: one trace ended, the other did not",
                   (unsigned long long)n);
        if (ga == 0)
            break;
        check_same_event(&ea, &eb, n);
    }
    const char *ra, *rb;
    bool ia = trace_reader_incomplete(a, &ra), ib = trace_reader_incomplete(b, &rb);
    fuzz_check(ia == ib && same_str(ra, rb), "the incomplete mark differs after conversion");
    fuzz_check(trace_reader_kernels(a) == trace_reader_kernels(b), "kernel counts differ");
    trace_reader_close(a);
    trace_reader_close(b);
}

/* Write what the reader gives in the other form (fmt) to memory; the caller
 * frees *buf. The trace was accepted by the reader already. */
static void convert_trace(const char *path, trace_format fmt, char **buf, size_t *len)
{
    trace_reader_options ro = {.allow_incomplete = true};
    err_info err, werr;
    err_clear(&err);
    err_clear(&werr);
    trace_reader *r = trace_reader_open(path, &ro, &err);
    fuzz_check(r != NULL, "the accepted trace no longer opens: %s", err.msg);
    FILE *out = open_memstream(buf, len);
    fuzz_check(out != NULL, "open_memstream failed");
    trace_writer *w = trace_writer_open_stream(out, "converted", fmt, 1, trace_reader_meta(r),
                                               &werr);
    fuzz_check(w != NULL, "the writer refuses the metadata the reader accepted: %s", werr.msg);
    trace_event ev;
    int got;
    while ((got = trace_reader_next(r, &ev, &err)) > 0) {
        int wrc = 0;
        switch (ev.type) {
        case TRACE_EV_KERNEL:
            wrc = trace_writer_kernel(w, ev.kernel, &werr);
            break;
        case TRACE_EV_MEM:
            wrc = trace_writer_mem(w, &ev.mem, &werr);
            break;
        case TRACE_EV_BARRIER:
            wrc = trace_writer_barrier(w, &ev.barrier, &werr);
            break;
        case TRACE_EV_KERNEL_END:
            wrc = trace_writer_kernel_end(w, &werr);
            break;
        case TRACE_EV_COUNT:
            fuzz_check(0, "event type TRACE_EV_COUNT");
        }
        fuzz_check(wrc == 0, "the writer refuses an event (type %d) the reader accepted: %s",
                   (int)ev.type, werr.msg);
    }
    fuzz_check(got == 0, "the accepted trace fails on the second reading: %s", err.msg);
    const char *reason = NULL;
    bool incomplete = trace_reader_incomplete(r, &reason);
    /* before the reader closes: reason is the reader's */
    fuzz_check(trace_writer_close(w, !incomplete, reason, &werr) == 0,
               "the writer cannot end the trace: %s", werr.msg);
    fclose(out);
    trace_reader_close(r);
}

int fuzz_trace(const char *path, gpu *g, trace_format convert)
{
    trace_reader_options ro = {.allow_incomplete = true};
    err_info err;
    err_clear(&err);
    trace_reader *r = trace_reader_open(path, &ro, &err);
    if (!r) {
        check_message(&err, path);
        return -1;
    }
    uint32_t sm_count = trace_sm_count(r);

    bool simulating = false;
    uint64_t uncounted = 0; /* cp.async shared halves and shuffles of the current kernel (check_breakdown) */
    int rc = 0;
    trace_event ev;
    for (;;) {
        int got = trace_reader_next(r, &ev, &err);
        if (got < 0) {
            check_message(&err, path);
            /* the failure is sticky and says the same again */
            err_info again;
            err_clear(&again);
            fuzz_check(trace_reader_next(r, &ev, &again) < 0 && strcmp(again.msg, err.msg) == 0,
                       "a second call after the error says \"%s\"", again.msg);
            rc = -1;
            break;
        }
        if (got == 0) {
            fuzz_check(trace_reader_next(r, &ev, &err) == 0, "a second call after the end");
            break;
        }
        switch (ev.type) {
        case TRACE_EV_KERNEL: {
            err_info kerr;
            err_clear(&kerr);
            fuzz_check(trace_kernel_validate(ev.kernel, &kerr) == 0,
                       "the reader delivered a kernel that does not validate: %s", kerr.msg);
            for (uint32_t i = 0; i < ev.kernel->n_pcs; i++)
                fuzz_check(trace_kernel_find_pc(ev.kernel, ev.kernel->pcs[i].pc) ==
                               &ev.kernel->pcs[i], "find_pc misses entry %u", i);
            uncounted = 0;
            simulating = gpu_kernel_begin(g, ev.kernel, sm_count, &kerr) == 0;
            if (!simulating)
                fuzz_check(kerr.msg[0] != '\0' && strchr(kerr.msg, '\n') == NULL,
                           "gpu_kernel_begin refused without a one-line message: %s", kerr.msg);
            break;
        }
        case TRACE_EV_MEM:
            if (simulating) {
                gpu_mem(g, &ev.mem);
                uncounted += (ev.mem.flags & TRACE_MEM_LDGSTS) && ev.mem.space == TRACE_SPACE_SHARED;
            }
            break;
        case TRACE_EV_BARRIER:
            if (simulating) {
                gpu_barrier(g, &ev.barrier);
                uncounted += ev.barrier.kind == TRACE_BAR_SHFL;
            }
            break;
        case TRACE_EV_KERNEL_END:
            if (simulating) {
                stats s;
                gpu_kernel_end(g, &s);
                check_breakdown(g, &ev.kernel_end, uncounted);
            }
            uncounted = 0;
            simulating = false;
            break;
        case TRACE_EV_COUNT:
            fuzz_check(0, "event type TRACE_EV_COUNT");
        }
    }
    /* a trace cut inside a kernel leaves the model inside it: end it, as a
     * caller that stops at the error would before its next trace */
    if (simulating) {
        stats s;
        gpu_kernel_end(g, &s);
    }
    bool incomplete = rc == 0 && trace_reader_incomplete(r, NULL);
    trace_reader_close(r);

    /* without allow_incomplete, a trace marked incomplete is refused by name */
    if (incomplete) {
        trace_reader_options strict = {.allow_incomplete = false};
        err_clear(&err);
        r = trace_reader_open(path, &strict, &err);
        int got = r ? 1 : -1;
        while (got == 1)
            got = trace_reader_next(r, &ev, &err);
        trace_reader_close(r);
        fuzz_check(got < 0 && strstr(err.msg, ": incomplete trace: ") != NULL,
                   "an incomplete trace read without allow_incomplete: %s", err.msg);
        check_message(&err, path);
    }

    /* the conversion only for traces the reader accepted: most mutated
     * inputs are refused, and the writer would be wasted on them */
    if (rc == 0 && convert != TRACE_FORMAT_COUNT) {
        char *buf = NULL;
        size_t len = 0;
        convert_trace(path, convert, &buf, &len);
        compare_traces(path, fuzz_memfile(1, buf, len));
        free(buf);
    }
    return rc;
}
