/* replay.c - drive a gpu model with one trace, kernel by kernel.
 *
 * Kernels that the --kernel regex does not select are still read in full (so
 * a damaged trace is reported whatever the filter) but not simulated.
 *
 * Read-ahead: inside a kernel the reader runs up to READ_AHEAD records (and
 * READ_AHEAD_LINES announced lines: more would be pushed out of the CPU's
 * caches before use) ahead of the model, and each memory record is announced
 * to the model (gpu_prepare) when it is read, so that the tag-array sets it
 * will touch are on their way into the CPU's caches by the time it is
 * simulated: the model is bound by memory latency, and this overlaps it. A
 * global load or store is also coalesced then, into the model's slot of its
 * ring entry, and simulated from it (gpu_mem_prepared). Records are still
 * simulated one by one in trace order, so every count is the same. The read-ahead stops
 * at any record that is not a memory record or a barrier (a kernel, its end):
 * those are handled with nothing read beyond them, so a kernel's callback
 * happens before a later record's error, and ev.kernel stays valid. */
#include "replay.h"

#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifndef READ_AHEAD
#define READ_AHEAD 8u          /* records at most; a power of two */
#endif
#ifndef READ_AHEAD_LINES
#define READ_AHEAD_LINES 64u    /* lines announced at most: 2 gathers, or 8 coalesced records */
#endif

typedef struct progress {
    bool on;
    uint64_t file_bytes;
    double last_s;
    const char *path;
} progress;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void progress_show(progress *p, const trace_reader *r, const trace_kernel *k, uint64_t records)
{
    double t = now_s();
    if (t - p->last_s < 0.25)
        return;
    p->last_s = t;
    double pct = p->file_bytes ? 100.0 * (double)trace_reader_bytes(r) / (double)p->file_bytes : 0.0;
    fprintf(stderr, "\r\033[Kgpumemsim: %s: kernel %u %.40s: %.1f M records, %.0f%%", p->path,
            k ? k->launch : 0, k ? k->demangled : "", (double)records / 1e6, pct > 100 ? 100 : pct);
    fflush(stderr);
}

static void progress_done(progress *p)
{
    if (p->on && p->last_s > 0)
        fputs("\r\033[K", stderr);
}

/* The SM count of the GPU the trace was captured on, 0 when not recorded. */
static uint32_t trace_sm_count(const trace_reader *r)
{
    const char *v = trace_meta_get(trace_reader_meta(r), "sm_count");
    if (!v)
        return 0;
    char *end;
    unsigned long n = strtoul(v, &end, 10);
    return (*end == '\0' && n > 0 && n < 100000) ? (uint32_t)n : 0;
}

int replay_options_check(const replay_options *opt, err_info *err)
{
    if (opt && opt->time_order && !opt->timing) {
        err_set(err, "--time-order orders the records by the timing model's clocks: it needs --timing");
        return -1;
    }
    if (!opt || !opt->kernel_regex)
        return 0;
    regex_t re;
    int rc = regcomp(&re, opt->kernel_regex, REG_EXTENDED | REG_NOSUB);
    if (rc != 0) {
        char buf[256];
        regerror(rc, &re, buf, sizeof buf);
        err_set(err, "--kernel '%s': not a valid regular expression: %s", opt->kernel_regex, buf);
        return -1;
    }
    regfree(&re);
    return 0;
}

/* ---- time order (--time-order) ------------------------------------------------------ */

/* Records a kernel replayed in time order reads ahead at most: 64 Ki trace
 * events (~20 MiB), so that memory stays bounded whatever the trace's length. */
#define TIME_ORDER_WINDOW 65536u

/* A kernel's records replayed in the timing model's time order rather than
 * the trace's (the trace's order is the capture's, under instrumentation):
 * of the records read ahead (up to `window`), each warp's in its own order,
 * the next is that of the warp that would issue soonest (timing_next_issue).
 * The functional model sees the same order, so its L1 and L2 hits follow
 * time too. Reads up to and including the kernel's end record, which it
 * leaves in *end (type TRACE_EV_COUNT when the trace ended first). */
typedef struct to_warp {
    int32_t head, tail; /* pool indexes of its first and last records read, -1: none */
} to_warp;
typedef struct to_heap_entry {
    uint64_t key;
    uint32_t warp;
} to_heap_entry;

static void heap_push(to_heap_entry *h, uint32_t *n, uint64_t key, uint32_t warp)
{
    uint32_t i = (*n)++;
    while (i > 0) {
        uint32_t p = (i - 1u) / 2u;
        if (h[p].key < key || (h[p].key == key && h[p].warp <= warp))
            break;
        h[i] = h[p];
        i = p;
    }
    h[i] = (to_heap_entry){key, warp};
}

static to_heap_entry heap_pop(to_heap_entry *h, uint32_t *n)
{
    to_heap_entry top = h[0], last = h[--*n];
    uint32_t i = 0;
    for (;;) {
        uint32_t c = 2u * i + 1u;
        if (c >= *n)
            break;
        if (c + 1u < *n && (h[c + 1u].key < h[c].key || (h[c + 1u].key == h[c].key && h[c + 1u].warp < h[c].warp)))
            c++;
        if (last.key < h[c].key || (last.key == h[c].key && last.warp <= h[c].warp))
            break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return top;
}

/* The warp a memory record or barrier belongs to, and the trace's SM for it. */
static void event_warp(const trace_event *ev, uint32_t *cta, uint32_t *warp, int32_t *sm)
{
    bool mem = ev->type == TRACE_EV_MEM;
    *cta = mem ? ev->mem.cta : ev->barrier.cta;
    *warp = mem ? ev->mem.warp : ev->barrier.warp;
    *sm = mem ? ev->mem.sm : ev->barrier.sm;
}

/* When the warp of record ev, its next, would issue (timing_next_issue). */
static uint64_t next_issue(const timing *tm, const trace_event *ev)
{
    uint32_t cta, warp;
    int32_t sm;
    event_warp(ev, &cta, &warp, &sm);
    return timing_next_issue(tm, cta, warp, sm);
}

static int replay_kernel_time_ordered(trace_reader *r, gpu *g, timing *tm, const trace_kernel *k, uint32_t window,
                                      trace_event *end, err_info *err)
{
    uint32_t wpc = trace_kernel_warps_per_cta(k);
    uint64_t n_warps = trace_kernel_ctas(k) * wpc;
    to_warp *warps = xcalloc(n_warps, sizeof *warps);
    for (uint64_t i = 0; i < n_warps; i++)
        warps[i].head = warps[i].tail = -1;
    trace_event *pool = xcalloc(window, sizeof *pool);
    int32_t *next = xcalloc(window, sizeof *next);
    int32_t free_head = 0;
    for (uint32_t i = 0; i < window; i++)
        next[i] = i + 1u < window ? (int32_t)(i + 1u) : -1;
    to_heap_entry *heap = xcalloc(window, sizeof *heap);
    uint32_t n_heap = 0;
    gpu_prep *prep = gpu_prep_create(1);
    int rc = 0;
    bool ended = false;
    for (;;) {
        while (!ended && free_head >= 0) {
            int32_t at = free_head;
            trace_event *ev = &pool[at];
            int got = trace_reader_next(r, ev, err);
            if (got <= 0) {
                rc = got < 0 ? -1 : 0;
                ended = true; /* the trace ended inside the kernel: the reader says why */
                break;
            }
            if (ev->type != TRACE_EV_MEM && ev->type != TRACE_EV_BARRIER) {
                *end = *ev;
                ended = true;
                break;
            }
            uint32_t cta, wp;
            int32_t sm;
            event_warp(ev, &cta, &wp, &sm);
            uint64_t wid = (uint64_t)cta * wpc + wp; /* < n_warps: the reader checked CTA and warp */
            free_head = next[at];
            next[at] = -1;
            to_warp *w = &warps[wid];
            if (w->tail >= 0)
                next[w->tail] = at;
            else {
                w->head = at;
                heap_push(heap, &n_heap, timing_next_issue(tm, cta, wp, sm), (uint32_t)wid);
            }
            w->tail = at;
        }
        if (rc != 0 || n_heap == 0)
            break;
        to_heap_entry top = heap_pop(heap, &n_heap);
        to_warp *w = &warps[top.warp];
        int32_t at = w->head;
        trace_event *ev = &pool[at];
        uint64_t key = next_issue(tm, ev);
        if (key > top.key) { /* it moved on since: back in line */
            heap_push(heap, &n_heap, key, top.warp);
            continue;
        }
        if (ev->type == TRACE_EV_MEM) {
            gpu_prepare(g, ev, prep, 0);
            gpu_mem_prepared(g, ev, prep, 0);
        } else {
            gpu_barrier(g, &ev->barrier);
            timing_barrier(tm, &ev->barrier);
        }
        w->head = next[at];
        if (w->head < 0)
            w->tail = -1;
        next[at] = free_head;
        free_head = at;
        if (w->head >= 0)
            heap_push(heap, &n_heap, next_issue(tm, &pool[w->head]), top.warp);
    }
    gpu_prep_destroy(prep);
    free(heap);
    free(next);
    free(pool);
    free(warps);
    return rc;
}

int replay_trace(const char *path, const cfg_gpu *cfg, const replay_options *opt,
                 replay_fn fn, void *ctx, err_info *err)
{
    regex_t re;
    bool have_re = opt && opt->kernel_regex;
    if (have_re) {
        int rc = regcomp(&re, opt->kernel_regex, REG_EXTENDED | REG_NOSUB);
        if (rc != 0) {
            char buf[256];
            regerror(rc, &re, buf, sizeof buf);
            err_set(err, "--kernel '%s': not a valid regular expression: %s", opt->kernel_regex, buf);
            return -1;
        }
    }
    /* lazy lanes: the model writes a strided warp's 32 lanes only where it
     * needs them; not for the timing layer, which sees every record's */
    trace_reader_options ropt = {.allow_incomplete = opt && opt->allow_incomplete,
                                 .lazy_lanes = !(opt && opt->timing)};
    trace_reader *r = trace_reader_open(path, &ropt, err);
    if (!r) {
        if (have_re)
            regfree(&re);
        return -1;
    }
    progress prog = {.on = opt && opt->progress && isatty(STDERR_FILENO), .path = path};
    struct stat st;
    if (prog.on && stat(path, &st) == 0)
        prog.file_bytes = (uint64_t)st.st_size;

    gpu *g = gpu_create(cfg);
    timing *tm = NULL;
    if (opt && opt->timing) {
        tm = timing_create(cfg);
        timing_keep_pc_cycles(tm, opt->pc_cycles);
        timing_set_timeline(tm, opt->timeline);
        gpu_observer obs = timing_observer(tm);
        gpu_set_observer(g, &obs);
    }
    uint32_t sm_count = trace_sm_count(r);
    bool simulating = false;
    uint64_t records = 0;
    int rc = 0;
    /* ring[head .. head + count) are read and not yet simulated; filling stops
     * after a record that is neither a memory record nor a barrier */
    _Static_assert((READ_AHEAD & (READ_AHEAD - 1u)) == 0, "READ_AHEAD is a power of two");
    trace_event *ring = xcalloc(READ_AHEAD, sizeof *ring);
    gpu_prep *prep = gpu_prep_create(READ_AHEAD); /* ring[i]'s early work is in slot i */
    uint32_t lines[READ_AHEAD];   /* lines each record in the ring announced */
    uint32_t head = 0, count = 0, ahead_lines = 0;
    bool more = true;     /* the reader has not ended or failed */
    bool body = false;    /* the last record read was a memory record or a barrier */
    for (;;) {
        while (more && count < READ_AHEAD && (count == 0 || body) &&
               ahead_lines < READ_AHEAD_LINES) {
            uint32_t at = (head + count) & (READ_AHEAD - 1u);
            trace_event *slot = &ring[at];
            int got = trace_reader_next(r, slot, err);
            if (got <= 0) {
                more = false;
                if (got < 0)
                    rc = -1;
                break;
            }
            body = slot->type == TRACE_EV_MEM || slot->type == TRACE_EV_BARRIER;
            lines[at] = slot->type == TRACE_EV_MEM && simulating ? gpu_prepare(g, slot, prep, at) : 0;
            ahead_lines += lines[at];
            count++;
        }
        /* a read error stops at once: the records still in the ring are
         * memory records and barriers, whose simulation no one would see */
        if (rc != 0 || count == 0)
            break;
        trace_event *ev = &ring[head];
        const uint32_t at = head;
        ahead_lines -= lines[head];
        head = (head + 1u) & (READ_AHEAD - 1u);
        count--;
        switch (ev->type) {
        case TRACE_EV_KERNEL:
            simulating = !have_re || regexec(&re, ev->kernel->demangled, 0, NULL, 0) == 0 ||
                         regexec(&re, ev->kernel->name, 0, NULL, 0) == 0;
            if (simulating && gpu_kernel_begin(g, ev->kernel, sm_count, err) != 0) {
                err_prefix(err, "%s: kernel %u (%s)", path, ev->kernel->launch, ev->kernel->demangled);
                rc = -1;
            } else if (simulating && tm) {
                timing_kernel_begin(tm, ev->kernel, gpu_kernel_info_get(g));
                if (opt->time_order) {
                    trace_event *endev = &ring[head]; /* the ring is empty: nothing is read beyond a kernel record */
                    endev->type = TRACE_EV_COUNT;
                    rc = replay_kernel_time_ordered(r, g, tm, ev->kernel, TIME_ORDER_WINDOW, endev, err);
                    if (rc == 0 && endev->type != TRACE_EV_COUNT) {
                        lines[head] = 0;
                        count = 1;
                        body = false;
                    } else if (rc == 0) {
                        more = false;
                    }
                }
            }
            break;
        case TRACE_EV_MEM:
            if (simulating)
                gpu_mem_prepared(g, ev, prep, at);
            if ((++records & 0xffff) == 0 && prog.on)
                progress_show(&prog, r, ev->kernel, records);
            break;
        case TRACE_EV_BARRIER:
            if (simulating) {
                gpu_barrier(g, &ev->barrier);
                if (tm)
                    timing_barrier(tm, &ev->barrier);
            }
            break;
        case TRACE_EV_KERNEL_END:
            if (simulating) {
                replay_kernel_result res = {.trace_path = path, .kernel = ev->kernel};
                gpu_kernel_end(g, &res.totals);
                res.pcs = gpu_pc_breakdown(g, &res.n_pcs);
                res.info = *gpu_kernel_info_get(g);
                timing_result tr;
                if (tm) {
                    timing_kernel_end(tm, &tr);
                    res.timing = &tr;
                    /* the L2 reads are those left after the L2 request
                     * coalescer: what it merged never reached a slice */
                    lrc_counts_apply(&tr.lrc, &res.totals);
                    /* and the writes those merged in an SM's write queue */
                    wqueue_counts_apply(&tr.wq, &res.totals);
                }
                if (fn && fn(ctx, &res, err) != 0)
                    rc = -1;
            }
            simulating = false;
            break;
        case TRACE_EV_COUNT:
            break;
        }
        if (rc != 0)
            break;
    }
    free(ring);
    gpu_prep_destroy(prep);
    progress_done(&prog);
    const char *reason = NULL;
    if (rc == 0 && trace_reader_incomplete(r, &reason))
        fprintf(stderr, "gpumemsim: warning: %s: the capture is marked incomplete (%s); its counts are partial\n",
                path, reason ? reason : "no reason recorded");
    gpu_destroy(g);
    timing_destroy(tm);
    trace_reader_close(r);
    if (have_re)
        regfree(&re);
    return rc;
}
