/* capture_inject.c - libgpumemsim_capture.so, the injection library of
 * gpumemsim-capture. The CUDA driver loads it through CUDA_INJECTION64_PATH
 * and calls InitializeInjection(); it subscribes to the Compute Sanitizer
 * API, patches every module as it loads, and writes the trace as launches
 * finish.
 *
 * Per selected launch: LAUNCH_BEGIN hands the kernel a device control block
 * and record buffer (sanitizerSetLaunchCallbackData: per launch, so several
 * streams never share one); LAUNCH_END waits for the kernel
 * (sanitizerStreamSynchronize: recorded launches are serialized), checks that
 * every thread ran to EXIT, copies the records back in chunks through pinned
 * memory, decodes them (capture_decode.h) and writes the kernel. The first
 * time a kernel is recorded its SASS is listed from the module image saved at
 * load (nvdisasm -g -c -hex -fun INDEX, the whole module if that fails) and its
 * resources read (cuobjdump -res-usage); both run as child processes, never
 * through the CUDA API, which callbacks must not call. Launches that
 * are not selected, and kernel nodes of CUDA graphs (not traced), run with a
 * control block whose recording is off, so patched code never sees a stale
 * pointer.
 *
 * Nothing is lost quietly: a full buffer, --max-records, a kernel that fails
 * on the device, a record that does not decode, or a graph launch that was
 * selected all end the trace with an END record marked incomplete and a
 * reason; after a fatal one, no more launches are recorded. At exit (atexit)
 * the trace is closed; on a fatal signal a best-effort close is attempted.
 *
 * Not handled: device-launched graphs, several subscribers (ncu,
 * compute-sanitizer), programs that fork and use CUDA in the child. */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <sanitizer.h>

#include "capture_decode.h"
#include "capture_elf.h"
#include "capture_opts.h"
#include "capture_rec.h"
#include "capture_sass.h"
#include "capture_util.h"
#include "err.h"
#include "trace.h"

#define EXPORT __attribute__((visibility("default")))

/* The C++ runtime's demangler (libstdc++, linked in: C linkage). */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

/* The patch fatbin, embedded by patches_blob.S. */
extern const unsigned char gms_capture_patches_fatbin[];

#define STAGING_BYTES ((uint64_t)64 << 20) /* pinned copy-back chunk */
#define MAX_CONTEXTS 64
#define PATH_BYTES 4096

typedef struct buf_slot {
    capture_tracker *dev_tracker; /* device */
    capture_raw_rec *dev_recs;    /* device */
    uint64_t cap_recs;
    capture_tracker host;         /* the block copied to the device at launch begin */
    bool busy;
    bool broken;                  /* its kernel failed: never reused */
} buf_slot;

typedef struct ctx_state {
    CUcontext ctx;
    bool live;
    bool patches_tried, patches_ok;
    capture_tracker *off_tracker; /* device, all zero: recording off */
    capture_raw_rec *staging;     /* pinned host memory */
    uint64_t staging_recs;
    buf_slot **slots;             /* each allocated alone: in-flight launches point at them */
    uint32_t n_slots;
} ctx_state;

typedef struct module_state {
    CUmodule module;
    CUcontext ctx;
    uint32_t seq;
    bool live;
    bool patched;
    char patch_err[256];
    char *cubin_path;            /* NULL: the driver gave no ELF image */
    bool sass_tried, sass_ok;
    capture_sass_module sass;    /* the whole module's listing: only when one kernel's could not be had */
    bool res_tried;
    capture_sass_module res;     /* cuobjdump -res-usage of the module */
} module_state;

typedef struct func_state {
    CUfunction function;
    CUmodule module;
    char *mangled;
    char *demangled;
    bool own_tried;
    capture_sass_module own;     /* this kernel's listing (nvdisasm -fun) */
    bool prepared;               /* tmpl and map built */
    trace_kernel tmpl;           /* PC table, files, resources: shared by every launch */
    capture_pc_map map;
    uint8_t *seen;               /* per instruction slot of map: a record came from it (this launch) */
    uint64_t map_bytes;
} func_state;

typedef struct launch_state {
    uint64_t index;
    Sanitizer_LaunchHandle hLaunch;
    Sanitizer_StreamHandle hStream;
    ctx_state *ctx;
    buf_slot *slot;
    func_state *fn;
    module_state *mod;
    CUdevice device;
    uint32_t grid[3], block[3];
    uint64_t code_pc, code_bytes;
    uint32_t tag;
    double t_begin, t_synced;   /* ms: LAUNCH_BEGIN; the kernel done (for --verbose) */
    double ms_sass, ms_copy, ms_write;
} launch_state;

static struct {
    pthread_mutex_t lock; /* recursive: sanitizer calls made inside a callback may call back */
    pid_t pid;
    bool active;
    capture_opts opts;
    capture_select sel;
    const char *tmpdir, *status_path, *nvdisasm, *cuobjdump, *gpus, *driver, *cuda, *command;
    Sanitizer_SubscriberHandle sub;
    trace_writer *w;
    bool writer_open;
    bool finished; /* the END record is written (or could not be) */
    bool stopped;  /* a fatal problem: nothing more is recorded */
    bool in_writer;
    uint64_t launches, graph_launches, recorded, mem_records, barrier_records, prefetches;
    uint64_t graph_selected, graph_first;
    char graph_first_name[256];
    uint32_t next_seq, next_tag;
    ctx_state *ctxs[MAX_CONTEXTS];
    uint32_t n_ctxs;
    module_state **mods;
    uint32_t n_mods;
    func_state **funcs;
    uint32_t n_funcs;
    bool warned_set_data;
    uint32_t smem_reserved; /* the driver's shared memory per CTA, which cuobjdump's SHARED counts */
} G = {.lock = PTHREAD_RECURSIVE_MUTEX_INITIALIZER_NP};

static _Thread_local launch_state *t_launch; /* between LAUNCH_BEGIN and LAUNCH_END */
static _Thread_local int t_depth;            /* inside one of our callbacks */

static const int fatal_signals[] = {SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT};
#define N_FATAL (sizeof fatal_signals / sizeof fatal_signals[0])
static struct sigaction old_actions[N_FATAL];

static const struct {
    Sanitizer_InstructionId id;
    const char *patch;
} patch_table[] = {
    {SANITIZER_INSTRUCTION_GLOBAL_MEMORY_ACCESS, "gms_cb_global"},
    {SANITIZER_INSTRUCTION_SHARED_MEMORY_ACCESS, "gms_cb_shared"},
    {SANITIZER_INSTRUCTION_LOCAL_MEMORY_ACCESS, "gms_cb_local"},
    {SANITIZER_INSTRUCTION_MEMCPY_ASYNC, "gms_cb_memcpy_async"},
    {SANITIZER_INSTRUCTION_MATRIX_MEMORY_ACCESS, "gms_cb_matrix"},
    {SANITIZER_INSTRUCTION_BARRIER, "gms_cb_barrier"},
    {SANITIZER_INSTRUCTION_SHFL, "gms_cb_shfl"},
    {SANITIZER_INSTRUCTION_BLOCK_EXIT, "gms_cb_block_exit"},
};

/* ---- messages, status, the trace file ---------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
    char line[ERR_MSG_BYTES + 256];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(line, sizeof line, fmt, ap);
    va_end(ap);
    fprintf(stderr, CAPTURE_TOOL_NAME ": %s\n", line);
}

static const char *san_error(SanitizerResult r)
{
    const char *s = NULL;
    if (sanitizerGetResultString(r, &s) != SANITIZER_SUCCESS || !s)
        return "unknown error";
    return s;
}

/* The outcome for the wrapper: "complete\n" or "incomplete\tREASON\n". */
static void write_status(bool complete, const char *reason)
{
    if (!G.status_path)
        return;
    FILE *f = fopen(G.status_path, "w");
    if (!f)
        return;
    if (complete)
        fprintf(f, "complete\t%" PRIu64 "\t%" PRIu64 "\n", G.recorded, G.launches);
    else
        fprintf(f, "incomplete\t%s\n", reason);
    fclose(f);
}

static bool open_writer(CUdevice device)
{
    if (G.writer_open)
        return true;
    if (G.finished)
        return false;
    trace_meta meta;
    trace_meta_init(&meta);
    trace_meta_set(&meta, "capture_tool", CAPTURE_TOOL_NAME);
    trace_meta_set(&meta, "capture_version", CAPTURE_VERSION);
    capture_gpu gpu;
    err_info err;
    err_clear(&err);
    if (G.gpus && capture_gpu_lookup(G.gpus, (uint32_t)device, &gpu, &err) == 0) {
        char v[32];
        trace_meta_set(&meta, "gpu", gpu.name);
        snprintf(v, sizeof v, "%u.%u", gpu.cc_major, gpu.cc_minor);
        trace_meta_set(&meta, "cc", v);
        G.smem_reserved = gpu.cc_major >= 8 ? 1024u : 0u; /* [DOC] 1 KB per block from sm_80 on */
        snprintf(v, sizeof v, "%u", gpu.sm_count);
        trace_meta_set(&meta, "sm_count", v);
    } else {
        say("warning: no description of GPU %d (%s); gpu, cc and sm_count are \"unknown\"", (int)device,
            err.msg[0] ? err.msg : CAPTURE_ENV_GPUS " unset");
        trace_meta_set(&meta, "gpu", "unknown");
        trace_meta_set(&meta, "cc", "unknown");
        trace_meta_set(&meta, "sm_count", "unknown");
    }
    trace_meta_set(&meta, "driver", G.driver ? G.driver : "unknown");
    trace_meta_set(&meta, "cuda", G.cuda ? G.cuda : "unknown");
    char date[32];
    capture_iso8601_utc(time(NULL), date, sizeof date);
    trace_meta_set(&meta, "date", date);
    if (G.command)
        trace_meta_set(&meta, "command", G.command);
    if (G.opts.kernel_regex)
        trace_meta_set(&meta, "select_kernel", G.opts.kernel_regex);
    if (G.opts.launch_text)
        trace_meta_set(&meta, "select_launch", G.opts.launch_text);
    G.in_writer = true;
    G.w = trace_writer_open(G.opts.output, G.opts.format, (int)G.opts.zstd_level, &meta, &err);
    G.in_writer = false;
    trace_meta_free(&meta);
    if (!G.w) {
        say("cannot write the trace: %s", err.msg);
        G.finished = true;
        G.stopped = true;
        write_status(false, err.msg);
        return false;
    }
    G.writer_open = true;
    return true;
}

/* Write the END record (opening the trace first if nothing was written yet). */
static void close_trace(bool complete, const char *reason)
{
    if (G.finished)
        return;
    if (!G.writer_open && !open_writer(0))
        return;
    err_info err;
    err_clear(&err);
    G.in_writer = true;
    int rc = trace_writer_close(G.w, complete, complete ? NULL : reason, &err);
    G.in_writer = false;
    G.w = NULL;
    G.writer_open = false;
    G.finished = true;
    if (rc < 0) {
        say("cannot finish the trace %s: %s", G.opts.output, err.msg);
        write_status(false, err.msg);
        return;
    }
    write_status(complete, reason);
    say("%s %s: %" PRIu64 " of %" PRIu64 " kernel launches recorded, %" PRIu64 " memory and %" PRIu64
        " barrier records%s%s", complete ? "wrote" : "wrote INCOMPLETE trace", G.opts.output, G.recorded,
        G.launches, G.mem_records, G.barrier_records, complete ? "" : "; ", complete ? "" : reason);
}

/* A fatal problem: say why, end the trace as incomplete, record nothing more. */
static void stop_capture(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void stop_capture(const char *fmt, ...)
{
    if (G.finished)
        return;
    char reason[ERR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(reason, sizeof reason, fmt, ap);
    va_end(ap);
    G.stopped = true;
    say("%s", reason);
    close_trace(false, reason);
}

/* ---- contexts, modules, functions ------------------------------------------ */

static ctx_state *ctx_get(CUcontext ctx)
{
    for (uint32_t i = 0; i < G.n_ctxs; i++)
        if (G.ctxs[i]->live && G.ctxs[i]->ctx == ctx)
            return G.ctxs[i];
    for (uint32_t i = 0; i < G.n_ctxs; i++)
        if (!G.ctxs[i]->live) { /* reuse a destroyed context's entry */
            memset(G.ctxs[i], 0, sizeof *G.ctxs[i]);
            G.ctxs[i]->ctx = ctx;
            G.ctxs[i]->live = true;
            return G.ctxs[i];
        }
    if (G.n_ctxs == MAX_CONTEXTS)
        return NULL;
    ctx_state *c = xcalloc(1, sizeof *c);
    c->ctx = ctx;
    c->live = true;
    G.ctxs[G.n_ctxs++] = c;
    return c;
}

/* The recording-off control block, allocated the first time it is needed. */
static capture_tracker *ctx_off_tracker(ctx_state *c, Sanitizer_StreamHandle stream)
{
    if (c->off_tracker)
        return c->off_tracker;
    void *p = NULL;
    SanitizerResult r = sanitizerAlloc(c->ctx, &p, sizeof(capture_tracker));
    if (r == SANITIZER_SUCCESS)
        r = sanitizerMemset(p, 0, sizeof(capture_tracker), stream);
    if (r != SANITIZER_SUCCESS) {
        stop_capture("cannot allocate %zu bytes of device memory for the tracer: %s", sizeof(capture_tracker),
                     san_error(r));
        return NULL;
    }
    c->off_tracker = p;
    return c->off_tracker;
}

static module_state *module_find(CUmodule m)
{
    for (uint32_t i = G.n_mods; i-- > 0;)
        if (G.mods[i]->live && G.mods[i]->module == m)
            return G.mods[i];
    return NULL;
}

static void func_free(func_state *f)
{
    capture_sass_module_free(&f->own);
    free(f->mangled);
    free(f->demangled);
    capture_kernel_clear(&f->tmpl);
    capture_pc_map_free(&f->map);
    free(f->seen);
    free(f);
}

static func_state *func_get(CUfunction function, CUmodule module, const char *name)
{
    for (uint32_t i = 0; i < G.n_funcs; i++)
        if (G.funcs[i]->function == function && G.funcs[i]->module == module &&
            strcmp(G.funcs[i]->mangled, name) == 0)
            return G.funcs[i];
    func_state *f = xcalloc(1, sizeof *f);
    f->function = function;
    f->module = module;
    f->mangled = xstrdup(name);
    f->demangled = capture_demangle(name, __cxa_demangle);
    G.funcs = xrealloc(G.funcs, (G.n_funcs + 1) * sizeof *G.funcs);
    G.funcs[G.n_funcs++] = f;
    return f;
}

static void module_loaded(const Sanitizer_ResourceModuleData *d)
{
    ctx_state *c = ctx_get(d->context);
    if (!c) {
        stop_capture("more than %d CUDA contexts: not supported", MAX_CONTEXTS);
        return;
    }
    if (!c->patches_tried) {
        c->patches_tried = true;
        SanitizerResult r = sanitizerAddPatches(gms_capture_patches_fatbin, d->context);
        c->patches_ok = r == SANITIZER_SUCCESS;
        if (!c->patches_ok)
            stop_capture("cannot load the patch functions into a CUDA context: %s", san_error(r));
    }
    module_state *m = xcalloc(1, sizeof *m);
    m->module = d->module;
    m->ctx = d->context;
    m->seq = G.next_seq++;
    m->live = true;
    G.mods = xrealloc(G.mods, (G.n_mods + 1) * sizeof *G.mods);
    G.mods[G.n_mods++] = m;

    if (c->patches_ok) {
        SanitizerResult r = SANITIZER_SUCCESS;
        const char *what = "sanitizerPatchModule";
        for (size_t i = 0; i < sizeof patch_table / sizeof patch_table[0] && r == SANITIZER_SUCCESS; i++) {
            if (patch_table[i].id == SANITIZER_INSTRUCTION_SHFL && !G.opts.shuffles)
                continue; /* --shuffles only */
            r = sanitizerPatchInstructions(patch_table[i].id, d->module, patch_table[i].patch);
            what = patch_table[i].patch;
        }
        if (r == SANITIZER_SUCCESS) {
            r = sanitizerPatchModule(d->module);
            what = "sanitizerPatchModule";
        }
        m->patched = r == SANITIZER_SUCCESS;
        if (!m->patched)
            snprintf(m->patch_err, sizeof m->patch_err, "%s: %s", what, san_error(r));
    } else {
        snprintf(m->patch_err, sizeof m->patch_err, "the patch functions are not loaded");
    }

    /* keep the exact image for the disassembler (pCubin is only valid now) */
    if (d->pCubin && d->cubinSize >= 4 && memcmp(d->pCubin, "\177ELF", 4) == 0 && G.tmpdir) {
        char path[PATH_BYTES];
        snprintf(path, sizeof path, "%s/module%u.cubin", G.tmpdir, m->seq);
        FILE *f = fopen(path, "wb");
        bool ok = f && fwrite(d->pCubin, 1, d->cubinSize, f) == d->cubinSize;
        if (f && fclose(f) != 0)
            ok = false;
        if (ok)
            m->cubin_path = xstrdup(path);
        else
            say("warning: cannot save module %u to %s: %s", m->seq, path, strerror(errno));
    }
}

static void module_unloading(const Sanitizer_ResourceModuleData *d)
{
    module_state *m = module_find(d->module);
    if (!m)
        return;
    m->live = false;
    capture_sass_module_free(&m->sass);
    capture_sass_module_free(&m->res);
    /* the driver may hand out the same handles again */
    uint32_t keep = 0;
    for (uint32_t i = 0; i < G.n_funcs; i++) {
        if (G.funcs[i]->module == d->module)
            func_free(G.funcs[i]);
        else
            G.funcs[keep++] = G.funcs[i];
    }
    G.n_funcs = keep;
}

static void context_destroying(const Sanitizer_ResourceContextData *d)
{
    for (uint32_t i = 0; i < G.n_ctxs; i++) {
        ctx_state *c = G.ctxs[i];
        if (c->live && c->ctx == d->context) {
            for (uint32_t j = 0; j < c->n_slots; j++)
                free(c->slots[j]); /* device and pinned memory go with the context */
            free(c->slots);
            memset(c, 0, sizeof *c);
        }
    }
    for (uint32_t i = 0; i < G.n_mods; i++)
        if (G.mods[i]->live && G.mods[i]->ctx == d->context) {
            G.mods[i]->live = false;
            capture_sass_module_free(&G.mods[i]->sass);
            capture_sass_module_free(&G.mods[i]->res);
        }
}

typedef int (*listing_parser)(FILE *f, const char *name, capture_sass_module *m, err_info *err);

/* Run a tool with its output into the temporary folder (file `what`) and
 * parse that; false, after a warning, when either fails. */
static bool run_and_parse(const char *const argv[], const char *what, listing_parser parse, capture_sass_module *dst)
{
    char out[PATH_BYTES];
    err_info err;
    err_clear(&err);
    snprintf(out, sizeof out, "%s/%s", G.tmpdir ? G.tmpdir : "/tmp", what);
    if (capture_run_tool(argv, out, &err) < 0) {
        say("warning: %s", err.msg);
        return false;
    }
    FILE *f = fopen(out, "r");
    if (!f) {
        say("warning: %s: %s", out, strerror(errno));
        return false;
    }
    int rc = parse(f, out, dst, &err);
    fclose(f);
    if (rc < 0)
        say("warning: %s", err.msg);
    return rc == 0;
}

static bool have_tools(module_state *m)
{
    if (!m->cubin_path) {
        say("warning: module %u: the driver gave no ELF image to disassemble", m->seq);
        return false;
    }
    if (!G.nvdisasm || !G.cuobjdump) {
        say("warning: nvdisasm or cuobjdump unknown (" CAPTURE_ENV_NVDISASM ", " CAPTURE_ENV_CUOBJDUMP ")");
        return false;
    }
    return true;
}

/* The whole module's listing, once: the fallback when a kernel cannot be
 * disassembled alone (slow for library modules of hundreds of kernels). */
static bool module_sass(module_state *m)
{
    if (m->sass_tried)
        return m->sass_ok;
    m->sass_tried = true;
    capture_sass_module_init(&m->sass);
    if (!have_tools(m))
        return false;
    char what[64];
    snprintf(what, sizeof what, "module%u.sass", m->seq);
    const char *argv[] = {G.nvdisasm, "-g", "-c", "-hex", m->cubin_path, NULL};
    m->sass_ok = run_and_parse(argv, what, capture_sass_parse, &m->sass);
    if (!m->sass_ok)
        capture_sass_module_free(&m->sass);
    return m->sass_ok;
}

/* Registers, stack, static shared and local memory of the module's kernels. */
static void module_res(module_state *m)
{
    if (m->res_tried)
        return;
    m->res_tried = true;
    capture_sass_module_init(&m->res);
    if (!have_tools(m))
        return;
    char what[64];
    snprintf(what, sizeof what, "module%u.res", m->seq);
    const char *argv[] = {G.cuobjdump, "-res-usage", m->cubin_path, NULL};
    if (!run_and_parse(argv, what, capture_res_usage_parse, &m->res))
        capture_sass_module_free(&m->res);
}

/* The kernel's symbol index in its cubin, for nvdisasm -fun. */
static bool kernel_symbol(const module_state *m, const char *name, uint32_t *index)
{
    FILE *f = fopen(m->cubin_path, "rb");
    if (!f)
        return false;
    unsigned char *img = NULL;
    long size = -1;
    if (fseek(f, 0, SEEK_END) == 0 && (size = ftell(f)) > 0 && fseek(f, 0, SEEK_SET) == 0) {
        img = xmalloc((size_t)size);
        if (fread(img, 1, (size_t)size, f) != (size_t)size)
            size = -1;
    }
    fclose(f);
    err_info err;
    err_clear(&err);
    int rc = size > 0 ? capture_elf_function_index(img, (size_t)size, name, index, &err) : -1;
    free(img);
    if (rc < 0)
        say("warning: module %u: %s", m->seq, err.msg[0] ? err.msg : "cannot read the saved cubin");
    return rc == 1;
}

/* The kernel's listing: nvdisasm -g -c -hex -fun INDEX (SASS with source lines
 * when the program was built with -lineinfo), else the whole module's. */
static const capture_sass_func *func_sass(func_state *fn, module_state *m)
{
    if (!m || !have_tools(m))
        return NULL;
    const capture_sass_func *sf = NULL;
    if (!fn->own_tried) {
        fn->own_tried = true;
        capture_sass_module_init(&fn->own);
        uint32_t idx;
        if (kernel_symbol(m, fn->mangled, &idx)) {
            char what[64], fun[16];
            snprintf(what, sizeof what, "module%u.sym%u.sass", m->seq, idx);
            snprintf(fun, sizeof fun, "%u", idx);
            const char *argv[] = {G.nvdisasm, "-g", "-c", "-hex", "-fun", fun, m->cubin_path, NULL};
            if (!run_and_parse(argv, what, capture_sass_parse, &fn->own))
                capture_sass_module_free(&fn->own);
        }
    }
    sf = capture_sass_find(&fn->own, fn->mangled);
    if ((!sf || sf->n_insts == 0) && module_sass(m))
        sf = capture_sass_find(&m->sass, fn->mangled);
    return sf && sf->n_insts ? sf : NULL;
}

/* The SASS text at pc in the kernel's listing, for messages. */
static const char *sass_text_at(func_state *fn, module_state *m, uint32_t pc)
{
    const capture_sass_func *sf = capture_sass_find(&fn->own, fn->mangled);
    if ((!sf || !sf->n_insts) && m)
        sf = capture_sass_find(&m->sass, fn->mangled);
    for (uint32_t i = 0; sf && i < sf->n_insts; i++)
        if (sf->insts[i].pc == pc)
            return sf->insts[i].text;
    return "?";
}

/* The per-function part of every launch's kernel record, and the PC map. */
static void func_prepare(func_state *fn, module_state *m, uint64_t code_bytes)
{
    if (fn->prepared && fn->map_bytes == code_bytes)
        return;
    capture_kernel_clear(&fn->tmpl);
    capture_pc_map_free(&fn->map);
    free(fn->seen);
    fn->seen = NULL;
    const capture_sass_func *sf = func_sass(fn, m);
    capture_sass_func merged;
    if (!sf) {
        say("warning: no SASS for kernel %s: its records keep what the API reports (no generic flag, no red, "
            "default cache operator)", fn->demangled);
    } else {
        /* the listing and the resource usage come from two tools */
        merged = *sf;
        module_res(m);
        const capture_sass_func *r = capture_sass_find(&m->res, fn->mangled);
        merged.has_res = r && r->has_res;
        if (merged.has_res) {
            merged.regs = r->regs;
            merged.stack_bytes = r->stack_bytes;
            merged.shared_bytes = r->shared_bytes;
            merged.local_bytes = r->local_bytes;
        }
        capture_kernel_set_sass(&fn->tmpl, &merged);
        if (!merged.has_res)
            say("warning: no resource usage for kernel %s: registers, static shared and local memory are 0",
                fn->demangled);
        char msg[ERR_MSG_BYTES];
        if (capture_sass_missing_summary(sf, msg, sizeof msg) > 0)
            say("warning: kernel %s has instructions whose memory traffic the Compute Sanitizer API does not "
                "report, so its trace is incomplete: %s", fn->demangled, msg);
    }
    err_info err;
    err_clear(&err);
    if (capture_pc_map_build(&fn->map, sf, code_bytes, &err) < 0) {
        /* code_bytes came from the driver: keep going without SASS */
        say("warning: kernel %s: %s", fn->demangled, err.msg);
        capture_pc_map_build(&fn->map, NULL, CAPTURE_SASS_INST_BYTES, &err);
    }
    fn->seen = xcalloc(fn->map.n_slots, 1);
    fn->map_bytes = code_bytes;
    fn->prepared = true;
}

/* ---- launches ----------------------------------------------------------------- */

static void set_launch_data(const Sanitizer_LaunchData *ld, capture_tracker *t)
{
    if (!t)
        return;
    SanitizerResult r = sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, t);
    if (r != SANITIZER_SUCCESS) {
        /* per function instead: better than a patched kernel reading garbage */
        SanitizerResult r2 = sanitizerSetCallbackData(ld->function, t);
        if (!G.warned_set_data) {
            G.warned_set_data = true;
            say("warning: sanitizerSetLaunchCallbackData: %s (kernel %s); per-function data: %s",
                san_error(r), ld->functionName, san_error(r2));
        }
    }
}

static buf_slot *slot_get(ctx_state *c, uint64_t idx, const char *name)
{
    for (uint32_t i = 0; i < c->n_slots; i++)
        if (!c->slots[i]->busy && !c->slots[i]->broken)
            return c->slots[i];
    uint64_t bytes = G.opts.buffer_mb << 20;
    if (G.opts.max_records && G.opts.max_records * sizeof(capture_raw_rec) < bytes)
        bytes = G.opts.max_records * sizeof(capture_raw_rec);
    void *tracker = NULL, *recs = NULL;
    SanitizerResult r = sanitizerAlloc(c->ctx, &tracker, sizeof(capture_tracker));
    if (r == SANITIZER_SUCCESS)
        r = sanitizerAlloc(c->ctx, &recs, bytes);
    if (r != SANITIZER_SUCCESS) {
        if (tracker)
            sanitizerFree(c->ctx, tracker);
        stop_capture("launch %" PRIu64 " (%s): cannot allocate %" PRIu64 " MB of device memory for its records: "
                     "%s (use a smaller --buffer-mb)", idx, name, bytes >> 20, san_error(r));
        return NULL;
    }
    if (!c->staging) {
        void *p = NULL;
        r = sanitizerAllocHost(c->ctx, &p, STAGING_BYTES);
        if (r != SANITIZER_SUCCESS) {
            stop_capture("cannot allocate %" PRIu64 " MB of pinned host memory: %s", STAGING_BYTES >> 20,
                         san_error(r));
            return NULL;
        }
        c->staging = p;
        c->staging_recs = STAGING_BYTES / sizeof(capture_raw_rec);
    }
    buf_slot *s = xcalloc(1, sizeof *s);
    c->slots = xrealloc(c->slots, (c->n_slots + 1) * sizeof *c->slots);
    c->slots[c->n_slots++] = s;
    s->dev_tracker = tracker;
    s->dev_recs = recs;
    s->cap_recs = bytes / sizeof(capture_raw_rec);
    return s;
}

static void launch_begin(const Sanitizer_LaunchData *ld)
{
    if (t_launch) {
        /* the previous launch of this thread never reached LAUNCH_END */
        launch_state *old = t_launch;
        t_launch = NULL;
        old->slot->broken = true;
        stop_capture("launch %" PRIu64 " (%s) began but never ended (did the launch fail?): its records are lost",
                     old->index, old->fn->demangled);
        free(old);
    }
    uint64_t idx = G.launches++;
    ctx_state *c = ctx_get(ld->context);
    if (!c) {
        stop_capture("more than %d CUDA contexts: not supported", MAX_CONTEXTS);
        return;
    }
    capture_tracker *off = ctx_off_tracker(c, ld->hStream);
    func_state *fn = func_get(ld->function, ld->module, ld->functionName);
    if (G.stopped || !capture_select_launch(&G.sel, idx, fn->demangled)) {
        set_launch_data(ld, off);
        return;
    }
    module_state *m = module_find(ld->module);
    if (!m || !m->patched) {
        set_launch_data(ld, off);
        stop_capture("launch %" PRIu64 " (%s): its module is not patched (%s)", idx, fn->demangled,
                     m ? m->patch_err : "the module was never reported as loaded");
        return;
    }
    uint64_t pc = 0, size = 0;
    SanitizerResult r = sanitizerGetFunctionPcAndSize(ld->module, ld->functionName, &pc, &size);
    if (r != SANITIZER_SUCCESS || size == 0) {
        set_launch_data(ld, off);
        stop_capture("launch %" PRIu64 " (%s): cannot locate its code: %s", idx, fn->demangled, san_error(r));
        return;
    }
    buf_slot *s = slot_get(c, idx, fn->demangled);
    if (!s) {
        set_launch_data(ld, off);
        return;
    }
    uint32_t tag = ++G.next_tag;
    memset(&s->host, 0, sizeof s->host);
    s->host.cap = s->cap_recs;
    if (G.opts.max_records && G.opts.max_records < s->host.cap)
        s->host.cap = G.opts.max_records;
    s->host.buf = (uint64_t)(uintptr_t)s->dev_recs;
    s->host.enabled = 1;
    s->host.tag = tag;
    r = sanitizerMemcpyHostToDeviceAsync(s->dev_tracker, &s->host, sizeof s->host, ld->hStream);
    if (r == SANITIZER_SUCCESS)
        r = sanitizerSetLaunchCallbackData(ld->hLaunch, ld->function, ld->hStream, s->dev_tracker);
    if (r != SANITIZER_SUCCESS) {
        set_launch_data(ld, off);
        stop_capture("launch %" PRIu64 " (%s): cannot hand the kernel its record buffer: %s", idx, fn->demangled,
                     san_error(r));
        return;
    }
    s->busy = true;
    launch_state *L = xcalloc(1, sizeof *L);
    L->index = idx;
    L->hLaunch = ld->hLaunch;
    L->hStream = ld->hStream;
    L->ctx = c;
    L->slot = s;
    L->fn = fn;
    L->mod = m;
    L->device = ld->device;
    L->grid[0] = ld->gridDim_x;
    L->grid[1] = ld->gridDim_y;
    L->grid[2] = ld->gridDim_z;
    L->block[0] = ld->blockDim_x;
    L->block[1] = ld->blockDim_y;
    L->block[2] = ld->blockDim_z;
    L->code_pc = pc;
    L->code_bytes = size;
    L->tag = tag;
    L->t_begin = now_ms();
    t_launch = L;
}

/* Copy the launch's records back, decode and write them. Returns the number
 * of slots the device claimed (more than were stored on overflow), or -1
 * after stop_capture. */
static int64_t write_launch(launch_state *L, const capture_tracker *h)
{
    ctx_state *c = L->ctx;
    func_state *fn = L->fn;
    double t_prep = now_ms();
    func_prepare(fn, L->mod, L->code_bytes);
    L->ms_sass = now_ms() - t_prep;

    trace_kernel k = fn->tmpl; /* shallow: the PC table and files stay the function's */
    k.launch = (uint32_t)L->index;
    k.name = fn->mangled;
    k.demangled = fn->demangled;
    memcpy(k.grid, L->grid, sizeof k.grid);
    memcpy(k.block, L->block, sizeof k.block);
    k.smem_dynamic_bytes = h->dyn_smem_valid ? h->dyn_smem_bytes : 0;

    capture_launch cl = {.launch = (uint32_t)L->index, .name = fn->demangled, .code_pc = L->code_pc,
                         .code_bytes = L->code_bytes, .tag = L->tag};
    memcpy(cl.grid, L->grid, sizeof cl.grid);
    memcpy(cl.block, L->block, sizeof cl.block);
    err_info err;
    err_clear(&err);
    capture_decoder dec;
    if (capture_decoder_init(&dec, &cl, &fn->map, &err) < 0) {
        stop_capture("%s", err.msg);
        return -1;
    }
    memset(fn->seen, 0, fn->map.n_slots);
    dec.seen = fn->seen;
    if (!open_writer(L->device))
        return -1;
    /* after open_writer, which learnt the GPU's reservation */
    k.smem_static_bytes = capture_static_smem(k.smem_static_bytes, G.smem_reserved);
    G.in_writer = true;
    int rc = trace_writer_kernel(G.w, &k, &err);
    G.in_writer = false;
    if (rc < 0) {
        stop_capture("launch %" PRIu64 " (%s): %s", L->index, fn->demangled, err.msg);
        return -1;
    }
    uint64_t stored = h->count < h->cap ? h->count : h->cap;
    for (uint64_t done = 0; done < stored;) {
        uint64_t n = stored - done < c->staging_recs ? stored - done : c->staging_recs;
        double t0 = now_ms();
        SanitizerResult r = sanitizerMemcpyDeviceToHost(c->staging, L->slot->dev_recs + done,
                                                        n * sizeof(capture_raw_rec), L->hStream);
        double t1 = now_ms();
        L->ms_copy += t1 - t0;
        if (r != SANITIZER_SUCCESS) {
            stop_capture("launch %" PRIu64 " (%s): cannot copy its records back: %s", L->index, fn->demangled,
                         san_error(r));
            return -1;
        }
        for (uint64_t i = 0; i < n; i++) {
            capture_out out;
            if (capture_decode(&dec, &c->staging[i], done + i, &out, &err) < 0) {
                stop_capture("%s", err.msg);
                return -1;
            }
            G.in_writer = true;
            rc = 0;
            if (out.type == CAPTURE_OUT_MEM)
                rc = trace_writer_mem(G.w, &out.mem, &err);
            else if (out.type == CAPTURE_OUT_BARRIER)
                rc = trace_writer_barrier(G.w, &out.barrier, &err);
            G.in_writer = false;
            if (rc < 0) {
                stop_capture("launch %" PRIu64 " (%s): %s", L->index, fn->demangled, err.msg);
                return -1;
            }
        }
        done += n;
        L->ms_write += now_ms() - t1;
    }
    if (h->count <= h->cap && capture_decoder_finish(&dec, &err) < 0) {
        stop_capture("%s", err.msg);
        return -1;
    }
    G.in_writer = true;
    rc = trace_writer_kernel_end(G.w, &err);
    G.in_writer = false;
    if (rc < 0) {
        stop_capture("launch %" PRIu64 " (%s): %s", L->index, fn->demangled, err.msg);
        return -1;
    }
    G.recorded++;
    G.mem_records += dec.n_mem;
    G.barrier_records += dec.n_barrier;
    G.prefetches += dec.n_prefetch;
    if (dec.n_unknown_opcode) {
        const char *text = sass_text_at(fn, L->mod, dec.first_unknown_pc);
        say("warning: launch %" PRIu64 " (%s): %" PRIu64 " records at instructions capture_sass.c does not know "
            "as memory instructions (first: '%s' at 0x%04x): kept as the API reported them, without SASS "
            "refinement", L->index, fn->demangled, dec.n_unknown_opcode, text, dec.first_unknown_pc);
    }
    uint32_t first_local = 0;
    uint32_t unseen_local = capture_pc_map_unseen(&fn->map, fn->seen, CAPTURE_OP_LOCAL, &first_local);
    if (unseen_local && h->count <= h->cap)
        say("warning: launch %" PRIu64 " (%s): %u local-memory instructions produced no record (first: '%s' at "
            "0x%04x): either they did not run, or they are register spills, which the Compute Sanitizer API does "
            "not report; then the trace lacks their traffic (`gpumemsim trace check` against ncu shows it)",
            L->index, fn->demangled, unseen_local, sass_text_at(fn, L->mod, first_local), first_local);
    if (dec.n_outside_code)
        say("warning: launch %" PRIu64 " (%s): %" PRIu64 " records at PCs outside the kernel's code (separately "
            "compiled device functions?): no SASS for them", L->index, fn->demangled, dec.n_outside_code);
    if (G.opts.verbose)
        say("launch %" PRIu64 " %s: grid %ux%ux%u block %ux%ux%u: %" PRIu64 " memory, %" PRIu64
            " barrier records (%.1f ms: launch to kernel done %.1f, disassembly %.1f, copy back %.1f, decode and "
            "write %.1f)", L->index, fn->demangled, L->grid[0], L->grid[1], L->grid[2], L->block[0], L->block[1],
            L->block[2], dec.n_mem, dec.n_barrier, now_ms() - L->t_begin, L->t_synced - L->t_begin, L->ms_sass,
            L->ms_copy, L->ms_write);
    return (int64_t)h->count;
}

static void launch_end(const Sanitizer_LaunchData *ld)
{
    launch_state *L = t_launch;
    if (!L || L->hLaunch != ld->hLaunch)
        return;
    t_launch = NULL;
    const char *name = L->fn->demangled;
    SanitizerResult r = sanitizerStreamSynchronize(L->hStream);
    L->t_synced = now_ms();
    capture_tracker h;
    if (r == SANITIZER_SUCCESS)
        r = sanitizerMemcpyDeviceToHost(&h, L->slot->dev_tracker, sizeof h, L->hStream);
    if (r != SANITIZER_SUCCESS) {
        L->slot->broken = true;
        stop_capture("launch %" PRIu64 " (%s) failed on the device (%s; the kernel faulted, trapped or hit an "
                     "assert?): its records are lost", L->index, name, san_error(r));
        free(L);
        return;
    }
    /* a sanity check of the patches, not of the records: every thread of a
     * finished grid passes BLOCK_EXIT; say so loudly if that ever fails */
    uint64_t threads = (uint64_t)L->grid[0] * L->grid[1] * L->grid[2] * L->block[0] * L->block[1] * L->block[2];
    if (h.exited_threads != threads)
        say("warning: launch %" PRIu64 " (%s): %" PRIu64 " of its %" PRIu64 " threads were seen at EXIT; the "
            "records are kept, but the tracer's view of this kernel is suspect", L->index, name,
            h.exited_threads, threads);
    int64_t claimed = write_launch(L, &h);
    L->slot->busy = false;
    if (claimed >= 0 && (uint64_t)claimed > h.cap) {
        if (G.opts.max_records && h.cap == G.opts.max_records)
            stop_capture("launch %" PRIu64 " (%s) executed %" PRIu64 " warp-level memory instructions and "
                         "barriers, more than --max-records %" PRIu64 ": its records stop there", L->index, name,
                         (uint64_t)claimed, G.opts.max_records);
        else
            stop_capture("launch %" PRIu64 " (%s) produced %" PRIu64 " warp records but the device buffer holds "
                         "%" PRIu64 " (--buffer-mb %" PRIu64 "): its records stop there; rerun with --buffer-mb "
                         "%" PRIu64 " or more", L->index, name, (uint64_t)claimed, h.cap, G.opts.buffer_mb,
                         ((uint64_t)claimed * sizeof(capture_raw_rec) >> 20) + 1);
    }
    free(L);
}

static void graph_node_begin(const Sanitizer_GraphNodeLaunchData *d)
{
    if (d->nodeType != CU_GRAPH_NODE_TYPE_KERNEL)
        return;
    const Sanitizer_LaunchData *ld = &d->launchData;
    ctx_state *c = ctx_get(ld->context);
    if (c)
        set_launch_data(ld, ctx_off_tracker(c, ld->hStream));
    if (d->isGraphUpload)
        return;
    uint64_t idx = G.launches++;
    G.graph_launches++;
    func_state *fn = func_get(ld->function, ld->module, ld->functionName);
    if (G.stopped || !capture_select_launch(&G.sel, idx, fn->demangled))
        return;
    if (G.graph_selected++ == 0) {
        G.graph_first = idx;
        snprintf(G.graph_first_name, sizeof G.graph_first_name, "%s", fn->demangled);
        say("launch %" PRIu64 " (%s) is a kernel node of a CUDA graph: graph launches are not traced, so the "
            "trace will be marked incomplete (choose other launches with --launch or --kernel)", idx,
            fn->demangled);
    }
}

/* ---- the subscriber ------------------------------------------------------------ */

static void SANITIZERAPI on_callback(void *ud, Sanitizer_CallbackDomain dom, Sanitizer_CallbackId cbid,
                                     const void *data)
{
    (void)ud;
    if (!G.active || getpid() != G.pid)
        return;
    enum { NONE, MOD_LOADED, MOD_UNLOADING, CTX_DESTROYING, LAUNCH_BEGIN, LAUNCH_END, GRAPH_NODE } what = NONE;
    if (dom == SANITIZER_CB_DOMAIN_RESOURCE) {
        if (cbid == SANITIZER_CBID_RESOURCE_MODULE_LOADED)
            what = MOD_LOADED;
        else if (cbid == SANITIZER_CBID_RESOURCE_MODULE_UNLOAD_STARTING)
            what = MOD_UNLOADING;
        else if (cbid == SANITIZER_CBID_RESOURCE_CONTEXT_DESTROY_STARTING)
            what = CTX_DESTROYING;
    } else if (dom == SANITIZER_CB_DOMAIN_LAUNCH) {
        if (cbid == SANITIZER_CBID_LAUNCH_BEGIN)
            what = LAUNCH_BEGIN;
        else if (cbid == SANITIZER_CBID_LAUNCH_END)
            what = LAUNCH_END;
    } else if (dom == SANITIZER_CB_DOMAIN_GRAPHS && cbid == SANITIZER_CBID_GRAPHS_NODE_LAUNCH_BEGIN) {
        what = GRAPH_NODE;
    }
    if (what == NONE)
        return;
    pthread_mutex_lock(&G.lock);
    t_depth++;
    switch (what) {
    case MOD_LOADED:
        module_loaded(data);
        break;
    case MOD_UNLOADING:
        module_unloading(data);
        break;
    case CTX_DESTROYING:
        context_destroying(data);
        break;
    case LAUNCH_BEGIN:
        launch_begin(data);
        break;
    case LAUNCH_END:
        launch_end(data);
        break;
    case GRAPH_NODE:
        graph_node_begin(data);
        break;
    case NONE:
        break;
    }
    t_depth--;
    pthread_mutex_unlock(&G.lock);
}

static void on_exit_handler(void)
{
    if (!G.active || getpid() != G.pid)
        return;
    pthread_mutex_lock(&G.lock);
    if (t_launch) {
        stop_capture("the program exited during launch %" PRIu64 " (%s)", t_launch->index,
                     t_launch->fn->demangled);
    } else if (G.graph_selected) {
        char reason[ERR_MSG_BYTES];
        snprintf(reason, sizeof reason, "%" PRIu64 " selected launch%s came from CUDA graphs and %s not traced "
                 "(first: launch %" PRIu64 ", %s)", G.graph_selected, G.graph_selected == 1 ? "" : "es",
                 G.graph_selected == 1 ? "was" : "were", G.graph_first, G.graph_first_name);
        close_trace(false, reason);
    } else {
        if (G.recorded == 0 && !G.finished)
            say("warning: no kernel launch was recorded (%" PRIu64 " launches seen)", G.launches);
        close_trace(true, NULL);
    }
    G.active = false;
    pthread_mutex_unlock(&G.lock);
}

/* Best effort: the process is going down and nothing here is
 * async-signal-safe, so it is only tried when no thread is inside the tracer
 * or the writer. Otherwise the trace ends without an END record, which every
 * reader reports as truncated. */
static void on_fatal_signal(int sig)
{
    size_t i = 0;
    while (i < N_FATAL && fatal_signals[i] != sig)
        i++;
    if (G.active && getpid() == G.pid && !G.finished && !G.in_writer && t_depth == 0 &&
        pthread_mutex_trylock(&G.lock) == 0) {
        char reason[128];
        snprintf(reason, sizeof reason, "the program was killed by signal %d (%s)", sig,
                 sig == SIGSEGV ? "SIGSEGV" : sig == SIGABRT ? "SIGABRT" : sig == SIGBUS ? "SIGBUS"
                 : sig == SIGFPE ? "SIGFPE" : "SIGILL");
        stop_capture("%s", reason);
        G.active = false;
        pthread_mutex_unlock(&G.lock);
    }
    if (i < N_FATAL)
        sigaction(sig, &old_actions[i], NULL);
    raise(sig);
}

static const char *env(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] ? v : NULL;
}

static void capture_init(void)
{
    if (!env(CAPTURE_ENV_OUTPUT)) {
        fprintf(stderr, "libgpumemsim_capture.so: not started by " CAPTURE_TOOL_NAME " (" CAPTURE_ENV_OUTPUT
                " is unset): not tracing\n");
        return;
    }
    const char *pid = env(CAPTURE_ENV_PID);
    if (pid && strtol(pid, NULL, 10) != (long)getpid()) {
        say("not tracing process %ld, a child of the traced program (only the program itself is traced)",
            (long)getpid());
        return;
    }
    G.pid = getpid();
    G.status_path = env(CAPTURE_ENV_STATUS);
    err_info err;
    err_clear(&err);
    if (capture_opts_from_env(&G.opts, env, &err) < 0 || capture_select_init(&G.sel, &G.opts, &err) < 0) {
        say("%s", err.msg);
        write_status(false, err.msg);
        return;
    }
    G.tmpdir = env(CAPTURE_ENV_TMPDIR);
    G.nvdisasm = env(CAPTURE_ENV_NVDISASM);
    G.cuobjdump = env(CAPTURE_ENV_CUOBJDUMP);
    G.gpus = env(CAPTURE_ENV_GPUS);
    G.driver = env(CAPTURE_ENV_DRIVER);
    G.cuda = env(CAPTURE_ENV_CUDA);
    G.command = env(CAPTURE_ENV_COMMAND);
    G.next_tag = (uint32_t)G.pid << 12;

    SanitizerResult r = sanitizerSubscribe(&G.sub, on_callback, NULL);
    if (r != SANITIZER_SUCCESS) {
        stop_capture("cannot subscribe to the Compute Sanitizer API (%s): another CUDA tool (ncu, "
                     "compute-sanitizer, a profiler) is probably attached; only one can be", san_error(r));
        return;
    }
    const Sanitizer_CallbackDomain domains[] = {SANITIZER_CB_DOMAIN_RESOURCE, SANITIZER_CB_DOMAIN_LAUNCH,
                                                SANITIZER_CB_DOMAIN_GRAPHS};
    for (size_t i = 0; i < sizeof domains / sizeof domains[0]; i++) {
        r = sanitizerEnableDomain(1, G.sub, domains[i]);
        if (r != SANITIZER_SUCCESS) {
            stop_capture("cannot enable Compute Sanitizer callbacks (domain %d): %s", (int)domains[i],
                         san_error(r));
            return;
        }
    }
    G.active = true;
    atexit(on_exit_handler);
    for (size_t i = 0; i < N_FATAL; i++) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_fatal_signal;
        sigemptyset(&sa.sa_mask);
        sigaction(fatal_signals[i], &sa, &old_actions[i]);
    }
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;

/* Called by the CUDA driver for the library named in CUDA_INJECTION64_PATH;
 * 1 tells it the library initialized. */
EXPORT int InitializeInjection(void);
EXPORT int InitializeInjection(void)
{
    pthread_once(&init_once, capture_init);
    return 1;
}
