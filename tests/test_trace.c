/* test_trace.c - trace format v1: round trips of both forms, the exact message
 * of every kind of bad input, truncation and bit flips, the size target of
 * the binary encoding, and `gpumemsim trace info|dump`.
 *
 * Files go to a private directory under /tmp, removed at the end. */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <zstd.h>

#include "commands.h"
#include "suites.h"
#include "trace.h"

/* ---- files ------------------------------------------------------------------ */

static char tmp_dir[64];

static void make_tmp_dir(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gms-trace-test-XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(tmp_dir));
}

static void remove_tmp_dir(void)
{
    DIR *d = opendir(tmp_dir);
    if (!d)
        return;
    struct dirent *e;
    char p[512];
    while ((e = readdir(d))) {
        if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
            continue;
        snprintf(p, sizeof p, "%s/%s", tmp_dir, e->d_name);
        unlink(p);
    }
    closedir(d);
    rmdir(tmp_dir);
}

/* a path in the test directory; a few live at once */
static const char *tpath(const char *name)
{
    static char bufs[8][256];
    static int next;
    char *b = bufs[next++ % 8];
    snprintf(b, 256, "%s/%s", tmp_dir, name);
    return b;
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    /* a new file, not a truncated one: ext4 flushes a rewritten file on close */
    unlink(path);
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

static void write_text(const char *path, const char *s)
{
    write_bytes(path, s, strlen(s));
}

static char *read_file(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "cannot open %s", path);
    size_t cap = 4096, len = 0;
    char *b = malloc(cap);
    size_t k;
    while ((k = fread(b + len, 1, cap - len - 1, f)) > 0) {
        len += k;
        if (cap - len - 1 == 0)
            b = realloc(b, cap *= 2);
    }
    fclose(f);
    b[len] = '\0';
    if (n)
        *n = len;
    return b;
}

static uint64_t file_size(const char *path)
{
    struct stat st;
    ck_assert_int_eq(stat(path, &st), 0);
    return (uint64_t)st.st_size;
}

/* A binary trace with the given header and raw record bytes, compressed
 * with a checksum like the writer does. */
static void write_raw_binary(const char *path, uint32_t version, uint32_t flags,
                             const uint8_t *recs, size_t n)
{
    uint8_t *buf = malloc(16 + ZSTD_compressBound(n));
    memcpy(buf, "GMSTRACE", 8);
    for (int i = 0; i < 4; i++) {
        buf[8 + i] = (uint8_t)(version >> (8 * i));
        buf[12 + i] = (uint8_t)(flags >> (8 * i));
    }
    ZSTD_CCtx *c = ZSTD_createCCtx();
    ZSTD_CCtx_setParameter(c, ZSTD_c_checksumFlag, 1);
    size_t z = ZSTD_compress2(c, buf + 16, ZSTD_compressBound(n), recs, n);
    ck_assert(!ZSTD_isError(z));
    ZSTD_freeCCtx(c);
    write_bytes(path, buf, 16 + z);
    free(buf);
}

/* Read a whole trace. Returns 0, or -1 with the message in err. */
static int read_all(const char *path, bool allow_incomplete, err_info *err)
{
    trace_reader_options opt = {.allow_incomplete = allow_incomplete};
    err_clear(err);
    trace_reader *r = trace_reader_open(path, &opt, err);
    if (!r)
        return -1;
    trace_event ev;
    int rc;
    while ((rc = trace_reader_next(r, &ev, err)) == 1)
        ;
    trace_reader_close(r);
    return rc;
}

/* The one-line message reading path gives; fails the test if it reads. */
static const char *read_error(const char *path)
{
    static err_info err;
    ck_assert_msg(read_all(path, false, &err) == -1, "%s was read without an error", path);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message is not one line: %s", err.msg);
    return err.msg;
}

/* The message for a text trace made of `body` (lines after the header). */
static const char *text_error(const char *body)
{
    const char *p = tpath("bad.txt");
    char *s = malloc(strlen(body) + 32);
    sprintf(s, "gpumemsim-trace 1\n%s", body);
    write_text(p, s);
    free(s);
    return read_error(p);
}

/* For loops: Check records every passing ck_assert, which is slow when forked. */
#define CHECK(cond, ...)                                                               \
    do {                                                                               \
        if (!(cond))                                                                   \
            ck_abort_msg(__VA_ARGS__);                                                 \
    } while (0)

#define ck_assert_msg_is(got, ...)                                                     \
    do {                                                                               \
        char want_[1024];                                                              \
        snprintf(want_, sizeof want_, __VA_ARGS__);                                    \
        ck_assert_str_eq(got, want_);                                                  \
    } while (0)

/* ---- a sample trace: everything the format can say ------------------------------ */

typedef struct rng {
    uint64_t s;
} rng;

static uint64_t rnd(rng *r)
{
    r->s ^= r->s << 13;
    r->s ^= r->s >> 7;
    r->s ^= r->s << 17;
    return r->s;
}

static void set_meta(trace_meta *m)
{
    trace_meta_init(m);
    trace_meta_set(m, "capture_tool", "gpumemsim-capture");
    trace_meta_set(m, "capture_version", "0.1");
    trace_meta_set(m, "gpu", "NVIDIA H200");
    trace_meta_set(m, "cc", "9.0");
    trace_meta_set(m, "sm_count", "132");
    trace_meta_set(m, "note", "a \"quoted\"\tvalue\nline 2 \\ end");
}

static void sample_kernel(int i, trace_kernel *k)
{
    trace_kernel_init(k);
    if (i == 0) {
        k->launch = 0;
        k->name = strdup("_Z3fooPfS_");
        k->demangled = strdup("foo(float*, float*)");
        k->grid[0] = 8, k->grid[1] = 2, k->grid[2] = 1;
        k->block[0] = 96, k->block[1] = 1, k->block[2] = 1;
        k->smem_static_bytes = 1024;
        k->smem_dynamic_bytes = 2048;
        k->regs_per_thread = 32;
        k->local_bytes_per_thread = 16;
        k->n_files = 2;
        k->files = malloc(2 * sizeof *k->files);
        k->files[0] = strdup("kernels/a.cu");
        k->files[1] = strdup("kernels/\"odd\" name\t.cu");
        /* control words: known (stall 4, yield, sets scoreboard 2, waits for
         * 0-2), unknown, the largest, and a known zero */
        static const trace_pc_info pcs[] = {
            {0x10, (char *)"LDG.E.128.CONSTANT R4, desc[UR6][R2.64]", TRACE_CACHE_NC, 0, 12,
             0x003f54u | TRACE_CTRL_KNOWN},
            {0x20, (char *)"STS [R3], R4", TRACE_CACHE_DEFAULT, 1, 40, 0},
            {0x30, (char *)"BAR.SYNC.DEFER_BLOCKING 0x0", TRACE_CACHE_DEFAULT, -1, 0, 0},
            {0x40, (char *)"ATOMG.E.ADD.STRONG.GPU PT, R5, desc[UR4][R2.64], R7", TRACE_CACHE_DEFAULT, 0,
             13, 0x7fffffu | TRACE_CTRL_KNOWN},
            {0x50, (char *)"NOP", TRACE_CACHE_CG, -1, 99, TRACE_CTRL_KNOWN},
        };
        k->n_pcs = 5;
        k->pcs = malloc(5 * sizeof *k->pcs);
        for (int p = 0; p < 5; p++) {
            k->pcs[p] = pcs[p];
            k->pcs[p].sass = strdup(pcs[p].sass);
        }
    } else {
        k->launch = 5;
        k->name = strdup("plain_c");
        k->demangled = strdup("plain_c");
        k->grid[0] = 3, k->grid[1] = 1, k->grid[2] = 1;
        k->block[0] = 8, k->block[1] = 5, k->block[2] = 1; /* 40 threads: warp 1 has 8 lanes */
    }
}

/* One record of the sample: 1 = memory (m), 2 = barrier (b). */
static int sample_event(rng *r, const trace_kernel *k, trace_mem *m, trace_barrier *b)
{
    uint32_t ctas = (uint32_t)trace_kernel_ctas(k);
    uint32_t warps = trace_kernel_warps_per_cta(k);
    uint32_t threads = trace_kernel_threads_per_cta(k);
    if (rnd(r) % 7 == 0) {
        b->cta = (uint32_t)(rnd(r) % ctas);
        b->warp = (uint32_t)(rnd(r) % warps);
        b->sm = rnd(r) % 3 == 0 ? TRACE_SM_UNKNOWN : (int32_t)(rnd(r) % 132);
        b->pc = 0x30;
        /* some are shuffles (no further draw: the sample stays as it was) */
        b->kind = (uint8_t)((b->cta + b->warp) % 3 == 0 ? TRACE_BAR_SHFL : TRACE_BAR_SYNC);
        return 2;
    }
    memset(m, 0, sizeof *m);
    m->kind = (uint8_t)(rnd(r) % TRACE_KIND_COUNT);
    m->space = (uint8_t)(rnd(r) % TRACE_SPACE_COUNT);
    if (m->space == TRACE_SPACE_LOCAL && m->kind >= TRACE_KIND_ATOM)
        m->kind -= 2;
    m->size_bytes = (uint8_t)(1u << (rnd(r) % 5));
    m->cache_op = (uint8_t)(rnd(r) % TRACE_CACHE_COUNT);
    m->flags = (uint8_t)(rnd(r) % 4);
    m->cta = (uint32_t)(rnd(r) % ctas);
    m->warp = (uint32_t)(rnd(r) % warps);
    m->sm = rnd(r) % 4 == 0 ? TRACE_SM_UNKNOWN : (int32_t)(rnd(r) % 132);
    m->pc = (uint32_t)(rnd(r) % 6) * 0x10;
    uint32_t first = m->warp * 32;
    uint32_t allowed = first + 32 <= threads ? 0xffffffffu : (1u << (threads - first)) - 1;
    switch (rnd(r) % 3) {
    case 0: m->active_mask = allowed; break;
    case 1: m->active_mask = (uint32_t)rnd(r) & allowed; break;
    default: m->active_mask = 1u << (rnd(r) % (uint32_t)__builtin_popcount(allowed)); break;
    }
    if (m->active_mask == 0)
        m->active_mask = 1;
    uint64_t size = m->size_bytes;
    bool global = m->space == TRACE_SPACE_GLOBAL;
    uint64_t base = global ? 0x7f0000000000ull + (rnd(r) % (1u << 20)) * size
                           : 4096 + (rnd(r) % (1u << 16)) * size;
    int mode = (int)(rnd(r) % 3);
    int64_t stride = ((int64_t)(rnd(r) % 7) - 2) * (int64_t)size;
    for (int l = 0; l < 32; l++) {
        if (!(m->active_mask >> l & 1))
            continue;
        if (mode == 0)
            m->addr[l] = base + (uint64_t)(stride * l);
        else if (mode == 1)
            m->addr[l] = global ? (rnd(r) & 0xffffffffffffull) & ~(size - 1)
                                : (rnd(r) & 0xffffffffull) & ~(size - 1);
        else
            m->addr[l] = base;
    }
    return 1;
}

#define SAMPLE_RECORDS 400

static void write_sample(trace_writer *w)
{
    err_info err;
    rng r = {0x9e3779b97f4a7c15ull};
    for (int ki = 0; ki < 2; ki++) {
        trace_kernel k;
        sample_kernel(ki, &k);
        ck_assert_msg(trace_writer_kernel(w, &k, &err) == 0, "%s", err.msg);
        for (int i = 0; i < SAMPLE_RECORDS; i++) {
            trace_mem m;
            trace_barrier b;
            if (sample_event(&r, &k, &m, &b) == 1)
                CHECK(trace_writer_mem(w, &m, &err) == 0, "%s", err.msg);
            else
                CHECK(trace_writer_barrier(w, &b, &err) == 0, "%s", err.msg);
        }
        ck_assert_msg(trace_writer_kernel_end(w, &err) == 0, "%s", err.msg);
        trace_kernel_free(&k);
    }
}

static void make_sample(const char *path, trace_format fmt)
{
    err_info err;
    trace_meta meta;
    set_meta(&meta);
    trace_writer *w = trace_writer_open(path, fmt, 0, &meta, &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    write_sample(w);
    ck_assert_msg(trace_writer_close(w, true, NULL, &err) == 0, "%s", err.msg);
    trace_meta_free(&meta);
}

static void assert_kernel_eq(const trace_kernel *a, const trace_kernel *b)
{
    ck_assert_uint_eq(a->launch, b->launch);
    ck_assert_str_eq(a->name, b->name);
    ck_assert_str_eq(a->demangled, b->demangled);
    for (int i = 0; i < 3; i++) {
        ck_assert_uint_eq(a->grid[i], b->grid[i]);
        ck_assert_uint_eq(a->block[i], b->block[i]);
    }
    ck_assert_uint_eq(a->smem_static_bytes, b->smem_static_bytes);
    ck_assert_uint_eq(a->smem_dynamic_bytes, b->smem_dynamic_bytes);
    ck_assert_uint_eq(a->regs_per_thread, b->regs_per_thread);
    ck_assert_uint_eq(a->local_bytes_per_thread, b->local_bytes_per_thread);
    ck_assert_uint_eq(a->n_files, b->n_files);
    for (uint32_t i = 0; i < a->n_files; i++)
        ck_assert_str_eq(a->files[i], b->files[i]);
    ck_assert_uint_eq(a->n_pcs, b->n_pcs);
    for (uint32_t i = 0; i < a->n_pcs; i++) {
        ck_assert_uint_eq(a->pcs[i].pc, b->pcs[i].pc);
        ck_assert_str_eq(a->pcs[i].sass, b->pcs[i].sass);
        ck_assert_uint_eq(a->pcs[i].cache_op, b->pcs[i].cache_op);
        ck_assert_int_eq(a->pcs[i].file, b->pcs[i].file);
        ck_assert_uint_eq(a->pcs[i].line, b->pcs[i].line);
        ck_assert_uint_eq(a->pcs[i].ctrl, b->pcs[i].ctrl);
    }
}

static bool mem_eq(const trace_mem *a, const trace_mem *b)
{
    if (a->cta != b->cta || a->warp != b->warp || a->sm != b->sm || a->pc != b->pc ||
        a->kind != b->kind || a->space != b->space || a->size_bytes != b->size_bytes ||
        a->cache_op != b->cache_op || a->flags != b->flags || a->active_mask != b->active_mask)
        return false;
    return memcmp(a->addr, b->addr, sizeof a->addr) == 0;
}

static bool barrier_eq(const trace_barrier *a, const trace_barrier *b)
{
    return a->cta == b->cta && a->warp == b->warp && a->sm == b->sm && a->pc == b->pc && a->kind == b->kind;
}

/* Read path and check it says exactly what write_sample wrote. */
static void check_sample(const char *path, trace_format fmt)
{
    err_info err;
    trace_reader *r = trace_reader_open(path, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_int_eq(trace_reader_format(r), fmt);
    ck_assert_uint_eq(trace_reader_version(r), 1);
    trace_meta meta;
    set_meta(&meta);
    const trace_meta *got = trace_reader_meta(r);
    ck_assert_uint_eq(got->n, meta.n);
    for (uint32_t i = 0; i < meta.n; i++) {
        ck_assert_str_eq(got->keys[i], meta.keys[i]);
        ck_assert_str_eq(got->values[i], meta.values[i]);
    }
    trace_meta_free(&meta);

    rng rg = {0x9e3779b97f4a7c15ull};
    trace_event ev;
    for (int ki = 0; ki < 2; ki++) {
        trace_kernel k;
        sample_kernel(ki, &k);
        ck_assert_msg(trace_reader_next(r, &ev, &err) == 1, "%s", err.msg);
        ck_assert_int_eq(ev.type, TRACE_EV_KERNEL);
        assert_kernel_eq(ev.kernel, &k);
        uint64_t mems = 0, bars = 0;
        for (int i = 0; i < SAMPLE_RECORDS; i++) {
            trace_mem m;
            trace_barrier b;
            int t = sample_event(&rg, &k, &m, &b);
            CHECK(trace_reader_next(r, &ev, &err) == 1, "%s", err.msg);
            if (t == 1) {
                CHECK(ev.type == TRACE_EV_MEM && mem_eq(&ev.mem, &m),
                      "memory record %d of kernel %d differs", i, ki);
                mems++;
            } else {
                CHECK(ev.type == TRACE_EV_BARRIER && barrier_eq(&ev.barrier, &b),
                      "barrier %d differs", i);
                bars++;
            }
        }
        ck_assert_msg(trace_reader_next(r, &ev, &err) == 1, "%s", err.msg);
        ck_assert_int_eq(ev.type, TRACE_EV_KERNEL_END);
        ck_assert_uint_eq(ev.kernel_end.mem_records, mems);
        ck_assert_uint_eq(ev.kernel_end.barrier_records, bars);
        trace_kernel_free(&k);
    }
    ck_assert_msg(trace_reader_next(r, &ev, &err) == 0, "%s", err.msg);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 0); /* stays at the end */
    ck_assert_uint_eq(trace_reader_kernels(r), 2);
    const char *reason = "x";
    ck_assert(!trace_reader_incomplete(r, &reason));
    ck_assert_ptr_null(reason);
    ck_assert_uint_eq(trace_reader_bytes(r), file_size(path));
    trace_reader_close(r);
}

/* ---- round trips ------------------------------------------------------------------ */

START_TEST(binary_round_trip)
{
    const char *p = tpath("sample.trace");
    make_sample(p, TRACE_FORMAT_BINARY);
    check_sample(p, TRACE_FORMAT_BINARY);
}
END_TEST

START_TEST(text_round_trip)
{
    const char *p = tpath("sample.txt");
    make_sample(p, TRACE_FORMAT_TEXT);
    check_sample(p, TRACE_FORMAT_TEXT);
}
END_TEST

/* Convert with the reader and writer (what `trace dump` does). */
static void convert(const char *in, const char *out, trace_format fmt)
{
    err_info err;
    trace_reader *r = trace_reader_open(in, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    trace_writer *w = trace_writer_open(out, fmt, 0, trace_reader_meta(r), &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    trace_event ev;
    int rc;
    while ((rc = trace_reader_next(r, &ev, &err)) == 1) {
        if (ev.type == TRACE_EV_KERNEL)
            rc = trace_writer_kernel(w, ev.kernel, &err);
        else if (ev.type == TRACE_EV_MEM)
            rc = trace_writer_mem(w, &ev.mem, &err);
        else if (ev.type == TRACE_EV_BARRIER)
            rc = trace_writer_barrier(w, &ev.barrier, &err);
        else
            rc = trace_writer_kernel_end(w, &err);
        ck_assert_msg(rc == 0, "%s", err.msg);
    }
    ck_assert_msg(rc == 0, "%s", err.msg);
    const char *reason;
    bool inc = trace_reader_incomplete(r, &reason);
    ck_assert_msg(trace_writer_close(w, !inc, reason, &err) == 0, "%s", err.msg);
    trace_reader_close(r);
}

START_TEST(text_binary_text_is_identical)
{
    const char *a = tpath("a.txt"), *b = tpath("b.trace"), *c = tpath("c.txt");
    make_sample(a, TRACE_FORMAT_TEXT);
    convert(a, b, TRACE_FORMAT_BINARY);
    check_sample(b, TRACE_FORMAT_BINARY);
    convert(b, c, TRACE_FORMAT_TEXT);
    char *ta = read_file(a, NULL), *tc = read_file(c, NULL);
    ck_assert_str_eq(ta, tc);
    free(ta);
    free(tc);
}
END_TEST

/* The committed binary was made from the committed text with this format
 * version; reading it guards against an unnoticed change of the encoding. */
START_TEST(committed_binary_dumps_to_committed_text)
{
    const char *c = tpath("small-dump.txt");
    convert("tests/data/traces/small.trace", c, TRACE_FORMAT_TEXT);
    char *want = read_file("tests/data/traces/small.txt", NULL), *got = read_file(c, NULL);
    ck_assert_str_eq(got, want);
    free(want);
    free(got);
}
END_TEST

/* The example of docs/trace-format.md, as written there. */
START_TEST(documented_example_reads)
{
    err_info err;
    trace_reader *r = trace_reader_open("tests/data/traces/example.txt", NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    ck_assert_str_eq(trace_meta_get(trace_reader_meta(r), "gpu"), "NVIDIA H200");
    ck_assert_str_eq(trace_meta_get(trace_reader_meta(r), "sm_count"), "132");
    ck_assert_ptr_null(trace_meta_get(trace_reader_meta(r), "driver"));
    trace_event ev;
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.type, TRACE_EV_KERNEL);
    ck_assert_str_eq(ev.kernel->demangled, "readOff(float*, float*, float*, int, int)");
    ck_assert_uint_eq(ev.kernel->n_pcs, 1);
    ck_assert_str_eq(ev.kernel->pcs[0].sass, "LDG.E R2, desc[UR4][R2.64]");
    ck_assert_uint_eq(ev.kernel->pcs[0].line, 12);
    ck_assert_str_eq(ev.kernel->files[0], "kernels/readSegment.cu");
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.type, TRACE_EV_MEM);
    ck_assert_int_eq(ev.mem.sm, 3);
    ck_assert_uint_eq(ev.mem.addr[31], 0x7f0000000000ull + 31 * 4);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_uint_eq(ev.mem.active_mask, 0xffff);
    ck_assert_int_eq(ev.mem.sm, TRACE_SM_UNKNOWN);
    ck_assert_uint_eq(ev.mem.addr[15], 0x478);
    ck_assert_uint_eq(ev.mem.addr[16], 0);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_uint_eq(ev.mem.kind, TRACE_KIND_ATOM);
    ck_assert_uint_eq(ev.mem.flags, TRACE_MEM_GENERIC);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.type, TRACE_EV_BARRIER);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(ev.type, TRACE_EV_KERNEL_END);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 0);
    trace_reader_close(r);
}
END_TEST

START_TEST(text_defaults_comments_and_any_key_order)
{
    const char *p = tpath("defaults.txt");
    write_text(p, "gpumemsim-trace 1\n"
                  "# a comment\n"
                  "\n"
                  "   \t\n"
                  "kernel name=\"k\" block=32,1,1 grid=2,1,1 launch=0x7\n"
                  "   # indented comment\n"
                  "ld local 16 pc=0x10 mask=0x3 warp=0 cta=1 stride=-16 base=0x100 ldgsts\n"
                  "red shared 8 cta=0 warp=0 pc=16 mask=3 addrs=0x8,0X10 cache=cv generic\n"
                  "end kernel bar=0 mem=2\n"
                  "end trace kernels=1 complete\n"
                  "# trailing comment\n");
    err_info err;
    trace_reader *r = trace_reader_open(p, NULL, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    trace_event ev;
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    const trace_kernel *k = ev.kernel;
    ck_assert_uint_eq(k->launch, 7);
    ck_assert_str_eq(k->demangled, "k");
    ck_assert_uint_eq(k->smem_static_bytes + k->smem_dynamic_bytes + k->regs_per_thread +
                          k->local_bytes_per_thread, 0);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_uint_eq(ev.mem.addr[0], 0x100);
    ck_assert_uint_eq(ev.mem.addr[1], 0xf0);
    ck_assert_uint_eq(ev.mem.cache_op, TRACE_CACHE_DEFAULT);
    ck_assert_uint_eq(ev.mem.flags, TRACE_MEM_LDGSTS);
    ck_assert_int_eq(ev.mem.sm, TRACE_SM_UNKNOWN);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_uint_eq(ev.mem.kind, TRACE_KIND_RED);
    ck_assert_uint_eq(ev.mem.addr[1], 0x10);
    ck_assert_uint_eq(ev.mem.cache_op, TRACE_CACHE_CV);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 0);
    trace_reader_close(r);
}
END_TEST

/* ---- what is not a trace -------------------------------------------------------- */

START_TEST(empty_file)
{
    const char *p = tpath("empty");
    write_text(p, "");
    ck_assert_msg_is(read_error(p), "%s: empty file (expected a gpumemsim trace)", p);
}
END_TEST

START_TEST(random_bytes_and_other_files)
{
    const char *p = tpath("random");
    uint8_t b[4096];
    rng r = {42};
    for (size_t i = 0; i < sizeof b; i++)
        b[i] = (uint8_t)rnd(&r);
    write_bytes(p, b, sizeof b);
#define NOT_A_TRACE "%s: not a gpumemsim trace (expected the binary header \"GMSTRACE\" or " \
                    "the text header line \"gpumemsim-trace 1\")"
    ck_assert_msg_is(read_error(p), NOT_A_TRACE, p);
    write_text(p, "hello, world\n");
    ck_assert_msg_is(read_error(p), NOT_A_TRACE, p);
#undef NOT_A_TRACE
    write_text(p, "GMST");
    ck_assert_msg_is(read_error(p), "%s: truncated header: 4 of 16 bytes", p);
    write_text(p, "gpumemsim-trace one\n");
    ck_assert_msg_is(read_error(p), "%s:1: malformed header line (expected \"gpumemsim-trace 1\")",
                     p);
    ck_assert_msg_is(read_error(tpath("missing")), "%s: cannot open: No such file or directory",
                     tpath("missing"));
}
END_TEST

START_TEST(newer_version_refused_by_name)
{
    const char *p = tpath("v2.trace");
    uint8_t end[] = {8, 2, 0, 1};
    write_raw_binary(p, 2, 0, end, sizeof end);
    ck_assert_msg_is(read_error(p), "%s: trace format version 2 is newer than this gpumemsim reads "
                                    "(1)", p);
    write_raw_binary(p, 0, 0, end, sizeof end);
    ck_assert_msg_is(read_error(p), "%s: trace format version 0 is not valid (expected 1)", p);
    write_raw_binary(p, 1, 4, end, sizeof end);
    ck_assert_msg_is(read_error(p), "%s: header flags 0x4 are not defined in format version 1 "
                                    "(expected 0)", p);
    write_raw_binary(p, 1, 0, end, sizeof end);
    err_info err;
    ck_assert_msg(read_all(p, false, &err) == 0, "%s", err.msg); /* the same, version 1 */

    const char *t = tpath("v2.txt");
    write_text(t, "gpumemsim-trace 2\nend trace kernels=0 complete\n");
    ck_assert_msg_is(read_error(t), "%s:1: trace format version 2 is newer than this gpumemsim "
                                    "reads (1)", t);
}
END_TEST

/* ---- truncation and corruption ---------------------------------------------------- */

static void make_small_binary(const char *path)
{
    err_info err;
    trace_meta meta;
    trace_meta_init(&meta);
    trace_meta_set(&meta, "gpu", "NVIDIA H200");
    trace_writer *w = trace_writer_open(path, TRACE_FORMAT_BINARY, 0, &meta, &err);
    ck_assert_msg(w != NULL, "%s", err.msg);
    trace_meta_free(&meta);
    rng r = {7};
    for (int ki = 0; ki < 2; ki++) {
        trace_kernel k;
        sample_kernel(ki, &k);
        ck_assert_msg(trace_writer_kernel(w, &k, &err) == 0, "%s", err.msg);
        for (int i = 0; i < 6; i++) {
            trace_mem m;
            trace_barrier b;
            if (sample_event(&r, &k, &m, &b) == 1)
                CHECK(trace_writer_mem(w, &m, &err) == 0, "%s", err.msg);
            else
                CHECK(trace_writer_barrier(w, &b, &err) == 0, "%s", err.msg);
        }
        ck_assert_msg(trace_writer_kernel_end(w, &err) == 0, "%s", err.msg);
        trace_kernel_free(&k);
    }
    ck_assert_msg(trace_writer_close(w, true, NULL, &err) == 0, "%s", err.msg);
}

START_TEST(truncated_binary_at_every_offset)
{
    const char *full = tpath("full.trace"), *cut = tpath("cut.trace");
    make_small_binary(full);
    size_t n;
    char *bytes = read_file(full, &n);
    ck_assert_uint_gt(n, 100);
    for (size_t len = 0; len < n; len++) {
        write_bytes(cut, bytes, len);
        err_info err;
        CHECK(read_all(cut, false, &err) == -1, "a cut at %zu bytes of %zu was read", len, n);
        CHECK(strncmp(err.msg, cut, strlen(cut)) == 0 && !strchr(err.msg, '\n'), "cut at %zu: %s",
              len, err.msg);
        if (len >= 16)
            CHECK(strstr(err.msg, "truncated") || strstr(err.msg, "corrupt"), "cut at %zu: %s",
                  len, err.msg);
    }
    write_bytes(cut, bytes, n);
    err_info err;
    ck_assert_msg(read_all(cut, false, &err) == 0, "%s", err.msg);
    free(bytes);
}
END_TEST

/* A flipped bit is found (checksum, decoding or validation), or it changed
 * nothing that is read (e.g. an unused zstd header bit): never a crash and
 * never a different trace. */
START_TEST(bit_flips_are_detected)
{
    const char *full = tpath("full.trace"), *flip = tpath("flip.trace"), *dump0 = tpath("d0.txt"),
               *dump1 = tpath("d1.txt");
    make_small_binary(full);
    convert(full, dump0, TRACE_FORMAT_TEXT);
    char *want = read_file(dump0, NULL);
    size_t n;
    char *bytes = read_file(full, &n);
    int failed = 0, same = 0;
    for (size_t i = 0; i < n; i++) {
        for (int bit = 0; bit < 8; bit++) {
            bytes[i] ^= (char)(1 << bit);
            write_bytes(flip, bytes, n);
            bytes[i] ^= (char)(1 << bit);
            err_info err;
            if (read_all(flip, false, &err) < 0) {
                CHECK(strncmp(err.msg, flip, strlen(flip)) == 0 && !strchr(err.msg, '\n'), "%s",
                      err.msg);
                failed++;
                continue;
            }
            convert(flip, dump1, TRACE_FORMAT_TEXT);
            char *got = read_file(dump1, NULL);
            CHECK(strcmp(got, want) == 0, "flipping bit %d of byte %zu changed the trace", bit, i);
            free(got);
            same++;
        }
    }
    ck_assert_int_eq(failed + same, (int)n * 8);
    /* harmless: unused zstd header bits, entropy-table bits that decode alike */
    ck_assert_msg(same * 50 < failed + same, "%d of %d flips went unnoticed", same, failed + same);
    free(bytes);
    free(want);
}
END_TEST

START_TEST(missing_end_record)
{
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1,1 block=32,1,1 name=\"k\"\n"
                                "ld global 4 cta=0 warp=0 pc=0 mask=1 addrs=0x10\n"
                                "end kernel mem=1 bar=0\n"),
                     "%s: truncated after line 4: no end record (the file ends after 1 complete "
                     "kernel)", tpath("bad.txt"));
    ck_assert_msg_is(text_error("kernel launch=3 grid=1,1,1 block=32,1,1 name=\"k\"\n"
                                "ld global 4 cta=0 warp=0 pc=0 mask=1 addrs=0x10\n"),
                     "%s: truncated after line 3: no end record (the file ends inside kernel "
                     "launch 3)", tpath("bad.txt"));
    ck_assert_msg_is(text_error(""), "%s: truncated after line 1: no end record (the file ends "
                                     "after 0 complete kernels)", tpath("bad.txt"));

    /* binary: records 1 (kernel) and 2 (kernel end), then nothing */
    const char *p = tpath("noend.trace");
    uint8_t recs[] = {2, 17, 0, 1, 'k', 1, 'k', 1, 1, 1, 32, 1, 1, 0, 0, 0, 0, 0, 0, 7, 2, 0, 0};
    write_raw_binary(p, 1, 0, recs, sizeof recs);
    ck_assert_msg_is(read_error(p), "%s: truncated after record 2: no end record (the file ends "
                                    "after 1 complete kernel)", p);
    write_raw_binary(p, 1, 0, recs, 0);
    ck_assert_msg_is(read_error(p), "%s: truncated after record 0: no end record (the file ends "
                                    "after 0 complete kernels)", p);
    uint8_t header_only[16] = "GMSTRACE\1\0\0\0\0\0\0";
    write_bytes(p, header_only, 16);
    ck_assert_msg_is(read_error(p), "%s: record 1: truncated: the file ends after its header", p);
}
END_TEST

static const char K1[] = "kernel launch=0 grid=2,1,1 block=40,1,1 name=\"k\"\n";

START_TEST(count_mismatch)
{
    char body[512];
    snprintf(body, sizeof body, "%sld global 4 cta=0 warp=0 pc=0 mask=1 addrs=0x10\n"
                                "bar cta=0 warp=0 pc=0x10\nend kernel mem=2 bar=1\n"
                                "end trace kernels=1 complete\n", K1);
    ck_assert_msg_is(text_error(body), "%s:5: kernel end counts 2 memory and 1 barrier records, "
                                       "but kernel launch 0 has 1 and 1", tpath("bad.txt"));
    snprintf(body, sizeof body, "%send kernel mem=0 bar=0\nend trace kernels=2 complete\n", K1);
    ck_assert_msg_is(text_error(body), "%s:4: end record counts 2 kernels, but the trace has 1",
                     tpath("bad.txt"));

    /* binary: a kernel end that says 1 memory record after none */
    const char *p = tpath("count.trace");
    uint8_t recs[] = {2, 17, 0, 1, 'k', 1, 'k', 1, 1, 1, 32, 1, 1, 0, 0, 0, 0, 0, 0,
                      7, 2, 1, 0, 8, 2, 1, 1};
    write_raw_binary(p, 1, 0, recs, sizeof recs);
    ck_assert_msg_is(read_error(p), "%s: record 2: kernel end counts 1 memory and 0 barrier "
                                    "records, but kernel launch 0 has 0 and 0", p);
    recs[21] = 0;
    recs[25] = 3;
    write_raw_binary(p, 1, 0, recs, sizeof recs);
    ck_assert_msg_is(read_error(p), "%s: record 3: end record counts 3 kernels, but the trace has "
                                    "1", p);
    recs[25] = 1;
    write_raw_binary(p, 1, 0, recs, sizeof recs);
    err_info err;
    ck_assert_msg(read_all(p, false, &err) == 0, "%s", err.msg);
    /* a kernel that declares 1 file but has none */
    recs[17] = 1;
    write_raw_binary(p, 1, 0, recs, sizeof recs);
    ck_assert_msg_is(read_error(p), "%s: record 2: kernel launch 0 declares 1 files and 0 PCs, "
                                    "but 0 file and 0 pc records precede this kernel end record",
                     p);
}
END_TEST

START_TEST(incomplete_trace)
{
    const char *p = tpath("inc.txt");
    char s[512];
    snprintf(s, sizeof s, "gpumemsim-trace 1\n%send kernel mem=0 bar=0\n"
                          "end trace kernels=1 incomplete \"traced program exited during kernel "
                          "1\"\n", K1);
    write_text(p, s);
    ck_assert_msg_is(read_error(p), "%s:4: incomplete trace: traced program exited during kernel 1 "
                                    "(use --allow-incomplete to read it anyway)", p);
    err_info err;
    trace_reader_options opt = {.allow_incomplete = true};
    trace_reader *r = trace_reader_open(p, &opt, &err);
    ck_assert_msg(r != NULL, "%s", err.msg);
    trace_event ev;
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 0);
    const char *reason;
    ck_assert(trace_reader_incomplete(r, &reason));
    ck_assert_str_eq(reason, "traced program exited during kernel 1");
    trace_reader_close(r);

    /* binary, written by the writer with an open kernel (which close ends) */
    const char *b = tpath("inc.trace");
    trace_writer *w = trace_writer_open(b, TRACE_FORMAT_BINARY, 5, NULL, &err);
    ck_assert_ptr_nonnull(w);
    trace_kernel k;
    sample_kernel(1, &k);
    ck_assert_int_eq(trace_writer_kernel(w, &k, &err), 0);
    trace_kernel_free(&k);
    ck_assert_int_eq(trace_writer_close(w, false, "out of \"disk\"", &err), 0);
    ck_assert_msg_is(read_error(b), "%s: record 3: incomplete trace: out of \"disk\" (use "
                                    "--allow-incomplete to read it anyway)", b);
    ck_assert_msg(read_all(b, true, &err) == 0, "%s", err.msg);

    /* a trace of no kernels is refused already by open */
    write_text(p, "gpumemsim-trace 1\nend trace kernels=0 incomplete \"\"\n");
    ck_assert_ptr_null(trace_reader_open(p, NULL, &err));
    ck_assert_msg_is(err.msg, "%s:2: incomplete trace:  (use --allow-incomplete to read it anyway)",
                     p);
    r = trace_reader_open(p, &opt, &err);
    ck_assert_ptr_nonnull(r);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 0);
    ck_assert(trace_reader_incomplete(r, &reason));
    trace_reader_close(r);
}
END_TEST

/* ---- record limits and validation -------------------------------------------------- */

START_TEST(binary_record_limits)
{
    const char *p = tpath("lim.trace");
    /* a memory record claiming 2^40 bytes */
    uint8_t huge[] = {5, 0x80, 0x80, 0x80, 0x80, 0x80, 0x20};
    write_raw_binary(p, 1, 0, huge, sizeof huge);
    ck_assert_msg_is(read_error(p), "%s: record 1: record length 1099511627776 exceeds the limit of "
                                    "16777216 bytes", p);
    uint8_t bad_varint[] = {5, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x7f, 0};
    write_raw_binary(p, 1, 0, bad_varint, sizeof bad_varint);
    ck_assert_msg_is(read_error(p), "%s: record 1: record length is not a valid varint", p);
    uint8_t tag[] = {9, 0};
    write_raw_binary(p, 1, 0, tag, sizeof tag);
    ck_assert_msg_is(read_error(p), "%s: record 1: unknown record tag 9 (expected 1..8)", p);
    /* a meta string longer than the limit */
    uint8_t meta[] = {1, 5, 0x81, 0x80, 0x04, 'a', 'b'};
    write_raw_binary(p, 1, 0, meta, sizeof meta);
    ck_assert_msg_is(read_error(p), "%s: record 1: meta record: key of 65537 bytes (expected at "
                                    "most 65536)", p);
    uint8_t meta2[] = {1, 4, 1, 'a', 5, 'b'};
    write_raw_binary(p, 1, 0, meta2, sizeof meta2);
    ck_assert_msg_is(read_error(p), "%s: record 1: meta record: value of 5 bytes runs past the end "
                                    "of the record", p);
    uint8_t meta3[] = {1, 5, 1, 'a', 1, 'b', 0};
    write_raw_binary(p, 1, 0, meta3, sizeof meta3);
    ck_assert_msg_is(read_error(p), "%s: record 1: meta record has 1 bytes after its last field",
                     p);
    uint8_t meta4[] = {1, 4, 1, 'a', 1, 0};
    write_raw_binary(p, 1, 0, meta4, sizeof meta4);
    ck_assert_msg_is(read_error(p), "%s: record 1: meta record: value contains a NUL byte", p);
    /* a kernel of 2^40 CTAs, one of 2048 threads */
    uint8_t grid[] = {2, 21, 0, 1, 'k', 1, 'k', 0x80, 0x80, 0x40, 0x80, 0x80, 0x40, 1, 32, 1, 1,
                      0, 0, 0, 0, 0, 0};
    write_raw_binary(p, 1, 0, grid, sizeof grid);
    ck_assert_msg_is(read_error(p), "%s: record 1: grid 1048576,1048576,1 has 1099511627776 CTAs "
                                    "(expected fewer than 4294967296)", p);
    uint8_t block[] = {2, 18, 0, 1, 'k', 1, 'k', 1, 1, 1, 0x80, 0x10, 1, 1, 0, 0, 0, 0, 0, 0};
    write_raw_binary(p, 1, 0, block, sizeof block);
    ck_assert_msg_is(read_error(p), "%s: record 1: block 2048,1,1 has 2048 threads (expected at "
                                    "most 1024)", p);
    /* a memory record with mask 0 and one out of its kernel's grid */
    uint8_t k32[] = {2, 17, 0, 1, 'k', 1, 'k', 1, 1, 1, 32, 1, 1, 0, 0, 0, 0, 0, 0};
    uint8_t recs[64];
    memcpy(recs, k32, sizeof k32);
    uint8_t mask0[] = {5, 11, 0x20, 0x00, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    memcpy(recs + sizeof k32, mask0, sizeof mask0);
    write_raw_binary(p, 1, 0, recs, sizeof k32 + sizeof mask0);
    ck_assert_msg_is(read_error(p), "%s: record 2: active mask is 0 (expected at least one active "
                                    "lane)", p);
    uint8_t cta1[] = {5, 7, 0xa0, 0x00, 2, 0, 0, 0, 8};
    memcpy(recs + sizeof k32, cta1, sizeof cta1);
    write_raw_binary(p, 1, 0, recs, sizeof k32 + sizeof cta1);
    ck_assert_msg_is(read_error(p), "%s: record 2: cta 1 is out of range (the grid has 1 CTAs)", p);
    uint8_t size32[] = {5, 7, 0xd0, 0x00, 0, 0, 0, 0, 8};
    memcpy(recs + sizeof k32, size32, sizeof size32);
    write_raw_binary(p, 1, 0, recs, sizeof k32 + sizeof size32);
    ck_assert_msg_is(read_error(p), "%s: record 2: memory record: access size 2^5 is invalid "
                                    "(expected 1, 2, 4, 8 or 16)", p);
    uint8_t short_mem[] = {5, 3, 0xa0, 0x00, 0};
    memcpy(recs + sizeof k32, short_mem, sizeof short_mem);
    write_raw_binary(p, 1, 0, recs, sizeof k32 + sizeof short_mem);
    ck_assert_msg_is(read_error(p), "%s: record 2: memory record: warp: the record ends before it",
                     p);
    uint8_t mem_before_kernel[] = {5, 7, 0xa0, 0x00, 0, 0, 0, 0, 8};
    write_raw_binary(p, 1, 0, mem_before_kernel, sizeof mem_before_kernel);
    ck_assert_msg_is(read_error(p), "%s: record 1: memory record outside a kernel (expected a "
                                    "kernel record first)", p);
}
END_TEST

START_TEST(text_kernel_limits)
{
    const char *p = tpath("bad.txt");
    ck_assert_msg_is(text_error("kernel launch=0 grid=1048576,1048576,1 block=32,1,1 name=\"k\"\n"),
                     "%s:2: grid 1048576,1048576,1 has 1099511627776 CTAs (expected fewer than "
                     "4294967296)", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1,1 block=2048,1,1 name=\"k\"\n"),
                     "%s:2: block 2048,1,1 has 2048 threads (expected at most 1024)", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,0,1 block=32,1,1 name=\"k\"\n"),
                     "%s:2: grid y is 0 (expected >= 1)", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1 block=32,1,1 name=\"k\"\n"),
                     "%s:2: grid: \"1,1\" is not X,Y,Z (expected three numbers)", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1,4294967296 block=32,1,1 name=\"k\"\n"),
                     "%s:2: grid: 4294967296 is out of range (expected at most 4294967295)", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1,1 block=32,1,1 name=\"\"\n"),
                     "%s:2: kernel name is empty (expected the mangled name)", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1,1 block=32,1,1 name=k\n"),
                     "%s:2: key name takes a \"string\"", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1,1 block=32,1,1\n"),
                     "%s:2: missing key name in a kernel line", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1,1 block=32,1,1 name=\"k\" regs=1 "
                                "regs=2\n"), "%s:2: key regs given twice", p);
    ck_assert_msg_is(text_error("kernel launch=0 grid=1,1,1 block=32,1,1 name=\"k\" color=red\n"),
                     "%s:2: unknown key color in a kernel line (expected launch, grid, block, "
                     "name, demangled, smem_static, smem_dynamic, regs, local)", p);
    ck_assert_msg_is(text_error("kernel launch=-1 grid=1,1,1 block=32,1,1 name=\"k\"\n"),
                     "%s:2: launch: \"-1\" is not a number (expected decimal or 0x-hex)", p);
    /* the PC table */
    char body[512];
    snprintf(body, sizeof body, "%spc 0x20 \"A\"\npc 0x10 \"B\"\n", K1);
    ck_assert_msg_is(text_error(body), "%s:4: PC table: pc 0x10 follows pc 0x20 (expected "
                                       "ascending PCs without duplicates)", p);
    snprintf(body, sizeof body, "%spc 0x20 \"A\"\npc 0x20 \"B\"\n", K1);
    ck_assert_msg_is(text_error(body), "%s:4: PC table: pc 0x20 follows pc 0x20 (expected "
                                       "ascending PCs without duplicates)", p);
    snprintf(body, sizeof body, "%sfile 0 \"a.cu\"\npc 0x20 \"A\" src=1:3\n", K1);
    ck_assert_msg_is(text_error(body), "%s:4: PC table: pc 0x20: file index 1 is not in the file "
                                       "table of 1 files (expected -1 for unknown or 0..0)", p);
    snprintf(body, sizeof body, "%sfile 1 \"a.cu\"\n", K1);
    ck_assert_msg_is(text_error(body), "%s:3: file index 1 (expected 0: files are numbered in "
                                       "order from 0)", p);
    snprintf(body, sizeof body, "%spc 0x20 \"A\"\nfile 0 \"a.cu\"\n", K1);
    ck_assert_msg_is(text_error(body), "%s:4: file record after PC records (a kernel's files come "
                                       "before its PCs)", p);
    snprintf(body, sizeof body, "%spc 0x20 \"A\" cache=xx\n", K1);
    ck_assert_msg_is(text_error(body), "%s:3: unknown cache op xx (expected default, ca, cg, cs, "
                                       "nc, lu or cv)", p);
    snprintf(body, sizeof body, "%sbar cta=0 warp=0 pc=0\npc 0x20 \"A\"\n", K1);
    ck_assert_msg_is(text_error(body), "%s:4: pc record after the kernel's first memory or barrier "
                                       "record (expected it right after its kernel record)", p);
    ck_assert_msg_is(text_error("pc 0x20 \"A\"\n"), "%s:2: pc record outside a kernel (expected it "
                                                    "right after its kernel record)", p);
}
END_TEST

START_TEST(text_memory_limits)
{
    const char *p = tpath("bad.txt");
    char body[1024];
#define MEM_ERROR(line, ...)                                                           \
    do {                                                                               \
        snprintf(body, sizeof body, "%s%s\n", K1, line);                               \
        ck_assert_msg_is(text_error(body), __VA_ARGS__);                               \
    } while (0)
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=0xf addrs=0x10,0x14,0x18,0x1d",
              "%s:3: lane 3: address 0x1d is not aligned to the access size 4", p);
    MEM_ERROR("ld global 4 cta=0 warp=1 pc=0 mask=0x1ff base=0 stride=4",
              "%s:3: lane 8 is active but warp 1 of a CTA of 40 threads has only 8 lanes with "
              "threads", p);
    MEM_ERROR("ld global 4 cta=0 warp=2 pc=0 mask=1 base=0 stride=4",
              "%s:3: warp 2 is out of range (a CTA of 40 threads has 2 warps)", p);
    MEM_ERROR("ld global 4 cta=2 warp=0 pc=0 mask=1 base=0 stride=4",
              "%s:3: cta 2 is out of range (the grid has 2 CTAs)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=0 base=0 stride=4",
              "%s:3: active mask is 0 (expected at least one active lane)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=0x7 addrs=0x10,0x14",
              "%s:3: addrs lists 2 addresses but mask 0x00000007 has 3 active lanes (expected one "
              "address per active lane)", p);
    MEM_ERROR("ld global 3 cta=0 warp=0 pc=0 mask=1 base=0 stride=4",
              "%s:3: access size 3 is invalid (expected 1, 2, 4, 8 or 16)", p);
    MEM_ERROR("atom local 4 cta=0 warp=0 pc=0 mask=1 base=0 stride=4",
              "%s:3: atom on local memory (atomics and reductions apply to global and shared "
              "memory only)", p);
    MEM_ERROR("st shared 4 cta=0 warp=0 pc=0 mask=1 base=0x100000000 stride=4",
              "%s:3: lane 0: shared address 0x100000000 is beyond the 32-bit window (expected < "
              "0x100000000)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base=0 stride=4 colour=red",
              "%s:3: unknown key colour in a ld line (expected cta, warp, sm, pc, cache, mask, "
              "base, stride, addrs)", p);
    MEM_ERROR("ld global 4 cta=0 cta=0 warp=0 pc=0 mask=1 base=0 stride=4",
              "%s:3: key cta given twice", p);
    MEM_ERROR("ld global 4 cta=0 pc=0 mask=1 base=0 stride=4",
              "%s:3: missing key warp in a ld line", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1", "%s:3: missing the addresses (expected base= "
                                                       "and stride=, or addrs=)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base=0",
              "%s:3: base= without stride= (expected both, or addrs=)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base=0 stride=4 addrs=0",
              "%s:3: give either base= and stride= or addrs=, not both", p);
    MEM_ERROR("ld texture 4 cta=0 warp=0 pc=0 mask=1 base=0 stride=4",
              "%s:3: unknown space texture (expected global, shared or local)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base=0 stride=4 volatile",
              "%s:3: unknown flag volatile in a ld line (expected generic or ldgsts)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base=0 stride=4 generic generic",
              "%s:3: flag generic given twice", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base=0x1g stride=4",
              "%s:3: base: \"0x1g\" is not a number (expected decimal or 0x-hex)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 sm=-1 pc=0 mask=1 base=0 stride=4",
              "%s:3: sm: \"-1\" is not a number (expected decimal or 0x-hex)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base=0 stride=99999999999999999999",
              "%s:3: stride: 99999999999999999999 is out of range (expected at most "
              "9223372036854775807)", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 addrs=0x10,",
              "%s:3: addrs: address 2 is empty", p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base= stride=4", "%s:3: key base has no value",
              p);
    MEM_ERROR("ld global 4 cta=0 warp=0 pc=0 mask=1 base=0 stride=4\nld global",
              "%s:4: malformed ld line (expected: KIND SPACE SIZE cta= warp= [sm=] pc= [cache=] "
              "[generic] [ldgsts] mask= (base= stride= | addrs=))", p);
    MEM_ERROR("bar cta=0 warp=5 pc=0", "%s:3: warp 5 is out of range (a CTA of 40 threads has 2 "
                                       "warps)", p);
    MEM_ERROR("bar cta=0 pc=0", "%s:3: missing key warp in a bar line", p);
#undef MEM_ERROR
}
END_TEST

START_TEST(text_syntax_errors)
{
    const char *p = tpath("bad.txt");
    ck_assert_msg_is(text_error("kernal launch=0\n"), "%s:2: unknown record kernal (expected "
                                                      "meta, kernel, file, pc, ld, st, atom, red, "
                                                      "bar, shfl or end)", p);
    ck_assert_msg_is(text_error("meta gpu \"H200\nend trace kernels=0 complete\n"),
                     "%s:2: unterminated string (expected a closing '\"')", p);
    ck_assert_msg_is(text_error("meta gpu \"H\\q\"\n"), "%s:2: unknown escape \\q in a string "
                                                        "(expected \\\" \\\\ \\n or \\t)", p);
    ck_assert_msg_is(text_error("meta gpu H200\n"), "%s:2: malformed meta line (expected: meta KEY "
                                                    "\"VALUE\")", p);
    ck_assert_msg_is(text_error("meta gpu \"a\"\nmeta gpu \"b\"\n"), "%s:3: meta key gpu given "
                                                                     "twice", p);
    ck_assert_msg_is(text_error("meta g/pu \"a\"\n"), "%s:2: meta key \"g/pu\" has the character "
                                                      "0x2f (expected letters, digits, '_', '.' or "
                                                      "'-')", p);
    char body[512];
    snprintf(body, sizeof body, "%send kernel mem=0 bar=0\nmeta gpu \"a\"\n", K1);
    ck_assert_msg_is(text_error(body), "%s:4: meta record after the first kernel (metadata comes "
                                       "first)", p);
    snprintf(body, sizeof body, "%send kernel mem=0 bar=0\nend trace kernels=1 complete\nbar\n", K1);
    ck_assert_msg_is(text_error(body), "%s:5: unexpected line after the end of the trace (the end "
                                       "trace line comes last)", p);
    snprintf(body, sizeof body, "%send trace kernels=1 complete\n", K1);
    ck_assert_msg_is(text_error(body), "%s:3: end record inside kernel launch 0 (expected its "
                                       "kernel end record first)", p);
    snprintf(body, sizeof body, "%s%s", K1, K1);
    ck_assert_msg_is(text_error(body), "%s:3: kernel record inside kernel launch 0 (expected its "
                                       "kernel end record first)", p);
    ck_assert_msg_is(text_error("end trace kernels=0\n"), "%s:2: malformed end trace line "
                                                          "(expected: end trace kernels=N "
                                                          "complete, or end trace kernels=N "
                                                          "incomplete \"REASON\")", p);
    ck_assert_msg_is(text_error("end kernel mem=0 bar=0\n"), "%s:2: kernel end record outside a "
                                                             "kernel", p);
    ck_assert_msg_is(text_error("gpumemsim-trace 1\n"), "%s:2: a second header line (the header is "
                                                        "only the first line)", p);
    ck_assert_msg_is(text_error("meta a=\"b\"c\n"), "%s:2: expected a space after the field ending "
                                                    "at \"b\"", p);
    ck_assert_msg_is(text_error("meta a \"b\" =c\n"), "%s:2: '=' without a key before it", p);
    ck_assert_msg_is(text_error("meta a=\"x\\ny\\tz\"q\n"), "%s:2: expected a space after the "
                                                          "field ending at \"x\\ny\\tz\"", p);
    ck_assert_msg_is(text_error("meta a\x01 \"b\"\n"), "%s:2: meta key \"a\\x01\" has the "
                                                     "character 0x01 (expected letters, digits, "
                                                     "'_', '.' or '-')", p);
    ck_assert_msg_is(text_error("meta a \"b\"\r\n"), "%s:2: line ends with a carriage return "
                                                     "(expected \\n line endings, not \\r\\n)", p);
    const char nul[] = "gpumemsim-trace 1\nmeta a \"b\0\"\n";
    write_bytes(p, nul, sizeof nul - 1);
    ck_assert_msg_is(read_error(p), "%s:2: line contains a NUL byte (not a text trace line)", p);
    /* a line longer than any record can be */
    size_t big = 300000;
    char *s = malloc(big + 64);
    strcpy(s, "gpumemsim-trace 1\nmeta a \"");
    memset(s + strlen(s), 'x', big);
    s[26 + big] = '\0';
    write_text(p, s);
    free(s);
    ck_assert_msg_is(read_error(p), "%s:2: line longer than 266240 bytes", p);
}
END_TEST

START_TEST(string_limits)
{
    const char *p = tpath("bad.txt");
    size_t n = 65537;
    char *s = malloc(n + 128);
    strcpy(s, "gpumemsim-trace 1\nmeta a \"");
    size_t at = strlen(s);
    memset(s + at, 'x', n);
    strcpy(s + at + n, "\"\nend trace kernels=0 complete\n");
    write_text(p, s);
    ck_assert_msg_is(read_error(p), "%s:2: string of 65537 bytes (expected at most 65536)", p);
    /* exactly at the limit is fine */
    memmove(s + at + n - 1, s + at + n, strlen(s + at + n) + 1);
    write_text(p, s);
    err_info err;
    ck_assert_msg(read_all(p, false, &err) == 0, "%s", err.msg);
    free(s);
}
END_TEST

START_TEST(data_after_the_end_of_a_binary)
{
    const char *full = tpath("full.trace");
    make_small_binary(full);
    size_t n;
    char *bytes = read_file(full, &n);
    bytes = realloc(bytes, n + 4);
    memcpy(bytes + n, "junk", 4);
    write_bytes(full, bytes, n + 4);
    free(bytes);
    const char *msg = read_error(full);
    ck_assert_msg(strstr(msg, "corrupt compressed data (zstd: Unknown frame descriptor)") != NULL,
                  "%s", msg);
    uint8_t two_ends[] = {8, 2, 0, 1, 8, 2, 0, 1};
    write_raw_binary(full, 1, 0, two_ends, sizeof two_ends);
    ck_assert_msg_is(read_error(full), "%s: data after the end record (record 1)", full);
}
END_TEST

START_TEST(errors_are_sticky)
{
    char body[512];
    snprintf(body, sizeof body, "%sbar cta=9 warp=0 pc=0\n", K1);
    const char *p = tpath("sticky.txt");
    char s[600];
    snprintf(s, sizeof s, "gpumemsim-trace 1\n%s", body);
    write_text(p, s);
    err_info err;
    trace_reader *r = trace_reader_open(p, NULL, &err);
    ck_assert_ptr_nonnull(r);
    trace_event ev;
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), 1);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), -1);
    char first[ERR_MSG_BYTES];
    strcpy(first, err.msg);
    err_clear(&err);
    ck_assert_int_eq(trace_reader_next(r, &ev, &err), -1);
    ck_assert_str_eq(err.msg, first);
    ck_assert_msg_is(first, "%s:3: cta 9 is out of range (the grid has 2 CTAs)", p);
    trace_reader_close(r);
}
END_TEST

/* ---- the writer ---------------------------------------------------------------------- */

START_TEST(writer_refuses_bad_records)
{
    err_info err;
    const char *p = tpath("w.trace");
    trace_writer *w = trace_writer_open(p, TRACE_FORMAT_BINARY, 0, NULL, &err);
    ck_assert_ptr_nonnull(w);
    trace_mem m;
    memset(&m, 0, sizeof m);
    m.size_bytes = 4;
    m.active_mask = 1;
    m.sm = TRACE_SM_UNKNOWN;
    ck_assert_int_eq(trace_writer_mem(w, &m, &err), -1);
    ck_assert_msg_is(err.msg, "%s: record 1: memory record outside a kernel (write a kernel record "
                              "first)", p);
    trace_kernel k;
    sample_kernel(1, &k);
    ck_assert_int_eq(trace_writer_kernel(w, &k, &err), 0);
    ck_assert_int_eq(trace_writer_kernel(w, &k, &err), -1);
    ck_assert_msg_is(err.msg, "%s: record 2: kernel launch 5 begins while kernel launch 5 is still "
                              "open (end it first)", p);
    m.addr[1] = 0x40; /* an inactive lane with an address */
    ck_assert_int_eq(trace_writer_mem(w, &m, &err), -1);
    ck_assert_msg_is(err.msg, "%s: record 2: lane 1 is inactive but has address 0x40 (expected 0)",
                     p);
    m.addr[1] = 0;
    m.flags = 0x4;
    ck_assert_int_eq(trace_writer_mem(w, &m, &err), -1);
    ck_assert_msg_is(err.msg, "%s: record 2: flags 0x4 has undefined bits (expected within 0x3)", p);
    m.flags = 0;
    m.sm = -7;
    ck_assert_int_eq(trace_writer_mem(w, &m, &err), -1);
    ck_assert_msg_is(err.msg, "%s: record 2: sm -7 is invalid (expected an SM index >= 0, or "
                              "unknown)", p);
    m.sm = 0;
    m.space = 3;
    ck_assert_int_eq(trace_writer_mem(w, &m, &err), -1);
    ck_assert_msg_is(err.msg, "%s: record 2: space 3 is out of range (expected 0..2: global, "
                              "shared, local)", p);
    m.space = 0;
    ck_assert_int_eq(trace_writer_mem(w, &m, &err), 0); /* the writer is still usable */
    trace_kernel_free(&k);
    ck_assert_int_eq(trace_writer_close(w, true, NULL, &err), 0);
    ck_assert_msg(read_all(p, false, &err) == 0, "%s", err.msg);

    trace_meta meta;
    trace_meta_init(&meta);
    trace_meta_set(&meta, "bad key", "x");
    ck_assert_ptr_null(trace_writer_open(p, TRACE_FORMAT_TEXT, 0, &meta, &err));
    ck_assert_msg_is(err.msg, "%s: meta key \"bad key\" has the character 0x20 (expected letters, "
                              "digits, '_', '.' or '-')", p);
    trace_meta_free(&meta);
    ck_assert_ptr_null(trace_writer_open(p, TRACE_FORMAT_BINARY, 20, NULL, &err));
    ck_assert_msg_is(err.msg, "%s: zstd level 20 is out of range (expected 1..19, or 0 for the "
                              "default 3)", p);
    ck_assert_ptr_null(trace_writer_open("/nonexistent/dir/x.trace", TRACE_FORMAT_BINARY, 0, NULL,
                                         &err));
    ck_assert_str_eq(err.msg, "/nonexistent/dir/x.trace: cannot create: No such file or directory");
}
END_TEST

START_TEST(kernel_helpers)
{
    trace_kernel k, c;
    sample_kernel(0, &k);
    trace_kernel_copy(&c, &k);
    trace_kernel_free(&k);
    ck_assert_uint_eq(trace_kernel_ctas(&c), 16);
    ck_assert_uint_eq(trace_kernel_threads_per_cta(&c), 96);
    ck_assert_uint_eq(trace_kernel_warps_per_cta(&c), 3);
    ck_assert_str_eq(trace_kernel_find_pc(&c, 0x40)->sass,
                     "ATOMG.E.ADD.STRONG.GPU PT, R5, desc[UR4][R2.64], R7");
    ck_assert_ptr_nonnull(trace_kernel_find_pc(&c, 0x10));
    ck_assert_ptr_nonnull(trace_kernel_find_pc(&c, 0x50));
    ck_assert_ptr_null(trace_kernel_find_pc(&c, 0x18));
    ck_assert_ptr_null(trace_kernel_find_pc(&c, 0x60));
    ck_assert_ptr_null(trace_kernel_find_pc(&c, 0));
    err_info err;
    ck_assert_int_eq(trace_kernel_validate(&c, &err), 0);
    c.pcs[1].file = 2;
    ck_assert_int_eq(trace_kernel_validate(&c, &err), -1);
    ck_assert_str_eq(err.msg, "PC table: pc 0x20: file index 2 is not in the file table of 2 files "
                              "(expected -1 for unknown or 0..1)");
    trace_kernel_free(&c);
    c.block[0] = 33; /* a freed kernel is zeroed: grid 0 */
    ck_assert_int_eq(trace_kernel_validate(&c, &err), -1);
    ck_assert_str_eq(err.msg, "grid x is 0 (expected >= 1)");

    trace_meta m;
    trace_meta_init(&m);
    trace_meta_set(&m, "gpu", "A");
    trace_meta_set(&m, "cc", "9.0");
    trace_meta_set(&m, "gpu", "B");
    ck_assert_uint_eq(m.n, 2);
    ck_assert_str_eq(trace_meta_get(&m, "gpu"), "B");
    ck_assert_ptr_null(trace_meta_get(&m, "date"));
    trace_meta_free(&m);
}
END_TEST

START_TEST(names_parse_back)
{
    for (int i = 0; i < TRACE_KIND_COUNT; i++) {
        trace_kind k;
        ck_assert_int_eq(trace_kind_parse(trace_kind_name((trace_kind)i), &k), 0);
        ck_assert_int_eq(k, i);
    }
    for (int i = 0; i < TRACE_SPACE_COUNT; i++) {
        trace_space s;
        ck_assert_int_eq(trace_space_parse(trace_space_name((trace_space)i), &s), 0);
        ck_assert_int_eq(s, i);
    }
    for (int i = 0; i < TRACE_CACHE_COUNT; i++) {
        trace_cache_op c;
        ck_assert_int_eq(trace_cache_op_parse(trace_cache_op_name((trace_cache_op)i), &c), 0);
        ck_assert_int_eq(c, i);
    }
    trace_kind k;
    ck_assert_int_eq(trace_kind_parse("LD", &k), -1);
    ck_assert_str_eq(trace_cache_op_name(TRACE_CACHE_NC), "nc");
    ck_assert_str_eq(trace_kind_name(TRACE_KIND_COUNT), "invalid");
}
END_TEST

/* ---- size of the binary encoding ----------------------------------------------------- */

/* 100,000 warp loads and stores of a streaming kernel (c[i] = a[i] + b[i]):
 * warps of consecutive CTAs, consecutive 128-byte chunks, 4 bytes per lane,
 * full mask, three PCs. As on the GPU, the 64 warps resident at a time (8
 * CTAs of 8 warps) interleave: each step a random one of them issues its next
 * instruction, which costs more bytes than warps one after another. The
 * target is <= 4 bytes per warp instruction at the default level. */
START_TEST(coalesced_stream_is_small)
{
    const char *p = tpath("coalesced.trace");
    err_info err;
    trace_writer *w = trace_writer_open(p, TRACE_FORMAT_BINARY, 0, NULL, &err);
    ck_assert_ptr_nonnull(w);
    enum { RECORDS = 100000, OPS = 3, WARPS = 8, RESIDENT = 64 };
    trace_kernel k;
    trace_kernel_init(&k);
    k.name = (char *)"_Z6vecAddPKfS0_Pfi";
    k.demangled = (char *)"vecAdd(const float*, const float*, float*, int)";
    k.grid[0] = RECORDS / OPS / WARPS + RESIDENT;
    k.grid[1] = k.grid[2] = 1;
    k.block[0] = WARPS * 32;
    k.block[1] = k.block[2] = 1;
    ck_assert_int_eq(trace_writer_kernel(w, &k, &err), 0);
    static const uint64_t arrays[OPS] = {0x7f0000000000ull, 0x7f0100000000ull, 0x7f0200000000ull};
    trace_mem m;
    memset(&m, 0, sizeof m);
    m.size_bytes = 4;
    m.active_mask = TRACE_FULL_MASK;
    rng r = {12345};
    int written = 0;
    for (uint32_t window = 0; written < RECORDS; window += RESIDENT) {
        int issued[RESIDENT] = {0};
        for (int left = RESIDENT * OPS; left > 0 && written < RECORDS; left--, written++) {
            uint32_t wi;
            do
                wi = (uint32_t)(rnd(&r) % RESIDENT);
            while (issued[wi] == OPS);
            uint32_t gw = window + wi, op = (uint32_t)issued[wi]++;
            m.cta = gw / WARPS;
            m.warp = gw % WARPS;
            m.sm = (int32_t)(m.cta % 132);
            m.pc = 0x80 + 0x10 * op;
            m.kind = op == 2 ? TRACE_KIND_ST : TRACE_KIND_LD;
            for (int l = 0; l < 32; l++)
                m.addr[l] = arrays[op] + (uint64_t)gw * 128 + (uint64_t)l * 4;
            CHECK(trace_writer_mem(w, &m, &err) == 0, "%s", err.msg);
        }
    }
    ck_assert_int_eq(trace_writer_close(w, true, NULL, &err), 0);
    uint64_t bytes = file_size(p);
    ck_assert_msg(bytes <= 4 * RECORDS, "%" PRIu64 " bytes for %d records", bytes, RECORDS);
    ck_assert_msg(read_all(p, false, &err) == 0, "%s", err.msg);
}
END_TEST

/* ---- the command --------------------------------------------------------------------- */

/* Run `gpumemsim trace ARGS...` in-process with stdout and stderr in files. */
static int run_trace(const char *out, const char *errp, const char *const *args, int n)
{
    char *argv[16];
    argv[0] = (char *)"trace";
    for (int i = 0; i < n; i++)
        argv[i + 1] = (char *)args[i];
    argv[n + 1] = NULL;
    fflush(stdout);
    fflush(stderr);
    int so = dup(1), se = dup(2);
    ck_assert(freopen(out, "w", stdout) != NULL);
    ck_assert(freopen(errp, "w", stderr) != NULL);
    int rc = cmd_trace(n + 1, argv);
    fflush(stdout);
    fflush(stderr);
    dup2(so, 1);
    dup2(se, 2);
    close(so);
    close(se);
    return rc;
}

START_TEST(command_dump_converts_both_ways)
{
    const char *src = "tests/data/traces/small.txt";
    const char *bin = tpath("cmd.trace"), *txt = tpath("cmd.txt"), *o = tpath("o"), *e = tpath("e");
    const char *a1[] = {"dump", src, "--binary", "-o", bin};
    ck_assert_int_eq(run_trace(o, e, a1, 5), 0);
    const char *a2[] = {"dump", bin, "-o", txt};
    ck_assert_int_eq(run_trace(o, e, a2, 4), 0);
    char *want = read_file(src, NULL), *got = read_file(txt, NULL);
    ck_assert_str_eq(got, want);
    free(got);
    const char *a3[] = {"dump", bin};
    ck_assert_int_eq(run_trace(o, e, a3, 2), 0);
    got = read_file(o, NULL);
    ck_assert_str_eq(got, want);
    free(got);
    free(want);
    char *errs = read_file(e, NULL);
    ck_assert_str_eq(errs, "");
    free(errs);
}
END_TEST

START_TEST(command_info)
{
    const char *o = tpath("o"), *e = tpath("e");
    const char *a[] = {"info", "tests/data/traces/example.txt"};
    ck_assert_int_eq(run_trace(o, e, a, 2), 0);
    char *got = read_file(o, NULL);
    ck_assert_str_eq(got,
                     "tests/data/traces/example.txt: text trace, format version 1\n"
                     "  meta gpu \"NVIDIA H200\"\n"
                     "  meta sm_count \"132\"\n"
                     "  kernel 0: launch 0, \"readOff(float*, float*, float*, int, int)\"\n"
                     "    mangled \"_Z7readOffPfS_S_ii\"\n"
                     "    grid 1024,1,1  block 256,1,1  smem 0+0 B  regs 16  local 0 B\n"
                     "    1 PCs, 1 source files, 1 barriers\n"
                     "    3 memory records: global ld 1, global atom 1, shared st 1\n"
                     "  total: 1 kernels, 11 records (3 memory, 1 barrier), 722 bytes, 180.50 "
                     "bytes per memory/barrier record\n"
                     "  complete\n");
    free(got);
}
END_TEST

START_TEST(command_errors_exit_2)
{
    const char *o = tpath("o"), *e = tpath("e");
    struct {
        int n;
        const char *args[4];
        const char *msg;
    } cases[] = {
        {0, {NULL}, "gpumemsim: trace: missing subcommand (usage: gpumemsim trace info "
                    "[--allow-incomplete] TRACE... | gpumemsim trace dump [--allow-incomplete] "
                    "[--binary [--zstd-level N]] [-o FILE] TRACE)\n"},
        {1, {"frob"}, "gpumemsim: trace: unknown subcommand frob (expected info, dump, check, synth "
                      "or import)\n"},
        {1, {"info"}, "gpumemsim: trace info: no trace given (usage: gpumemsim trace info "
                      "[--allow-incomplete] TRACE...)\n"},
        {2, {"info", "--fast"}, "gpumemsim: trace info: unknown option --fast (usage: gpumemsim "
                                "trace info [--allow-incomplete] TRACE...)\n"},
        {2, {"dump", "x", "--binary"}, NULL},
        {3, {"dump", "a", "b"}, "gpumemsim: trace dump: more than one trace given (a and b; usage: "
                                "gpumemsim trace dump [--allow-incomplete] [--binary [--zstd-level N]] "
                                "[-o FILE] TRACE)\n"},
        {4, {"dump", "--binary", "--zstd-level", "20"},
         "gpumemsim: trace dump: --zstd-level: expected a level from 1 to 19, got 20 (usage: gpumemsim "
         "trace dump [--allow-incomplete] [--binary [--zstd-level N]] [-o FILE] TRACE)\n"},
        {4, {"dump", "x", "--zstd-level", "5"},
         "gpumemsim: trace dump: --zstd-level is for --binary output (usage: gpumemsim trace dump "
         "[--allow-incomplete] [--binary [--zstd-level N]] [-o FILE] TRACE)\n"},
        {2, {"dump", "--zstd-level"}, NULL},
        {2, {"dump", "-o"}, NULL},
        {2, {"info", "/nonexistent"}, "gpumemsim: /nonexistent: cannot open: No such file or "
                                      "directory\n"},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        ck_assert_int_eq(run_trace(o, e, cases[i].args + 0, cases[i].n + 0), 2);
        char *got = read_file(e, NULL);
        if (cases[i].msg)
            ck_assert_str_eq(got, cases[i].msg);
        ck_assert_msg(strncmp(got, "gpumemsim: ", 11) == 0 && strchr(got, '\n') ==
                      got + strlen(got) - 1, "not one line: %s", got);
        free(got);
    }
    /* a dump that fails half-way leaves no output file */
    const char *bad = tpath("half.txt"), *out = tpath("half.trace");
    char s[512];
    snprintf(s, sizeof s, "gpumemsim-trace 1\n%sbar cta=0 warp=0 pc=0\nbar cta=7 warp=0 pc=0\n",
             K1);
    write_text(bad, s);
    const char *a[] = {"dump", bad, "--binary", "-o", out};
    ck_assert_int_eq(run_trace(o, e, a, 5), 2);
    char *got = read_file(e, NULL);
    char want[512];
    snprintf(want, sizeof want, "gpumemsim: %s:4: cta 7 is out of range (the grid has 2 CTAs)\n",
             bad);
    ck_assert_str_eq(got, want);
    free(got);
    ck_assert_int_eq(access(out, F_OK), -1);
    /* dumping a trace onto itself is refused before anything is written */
    const char *same[] = {"dump", "tests/data/traces/small.txt", "-o",
                          "tests/data/traces/../traces/small.txt"};
    ck_assert_int_eq(run_trace(o, e, same, 4), 2);
    ck_assert_uint_gt(file_size("tests/data/traces/small.txt"), 0);
}
END_TEST

Suite *trace_suite(void)
{
    Suite *s = suite_create("trace");
    TCase *tc = tcase_create("format");
    tcase_add_unchecked_fixture(tc, make_tmp_dir, remove_tmp_dir);
    tcase_set_timeout(tc, 30);
    tcase_add_test(tc, binary_round_trip);
    tcase_add_test(tc, text_round_trip);
    tcase_add_test(tc, text_binary_text_is_identical);
    tcase_add_test(tc, committed_binary_dumps_to_committed_text);
    tcase_add_test(tc, documented_example_reads);
    tcase_add_test(tc, text_defaults_comments_and_any_key_order);
    tcase_add_test(tc, empty_file);
    tcase_add_test(tc, random_bytes_and_other_files);
    tcase_add_test(tc, newer_version_refused_by_name);
    tcase_add_test(tc, truncated_binary_at_every_offset);
    tcase_add_test(tc, bit_flips_are_detected);
    tcase_add_test(tc, missing_end_record);
    tcase_add_test(tc, count_mismatch);
    tcase_add_test(tc, incomplete_trace);
    tcase_add_test(tc, binary_record_limits);
    tcase_add_test(tc, text_kernel_limits);
    tcase_add_test(tc, text_memory_limits);
    tcase_add_test(tc, text_syntax_errors);
    tcase_add_test(tc, string_limits);
    tcase_add_test(tc, data_after_the_end_of_a_binary);
    tcase_add_test(tc, errors_are_sticky);
    tcase_add_test(tc, writer_refuses_bad_records);
    tcase_add_test(tc, kernel_helpers);
    tcase_add_test(tc, names_parse_back);
    tcase_add_test(tc, coalesced_stream_is_small);
    tcase_add_test(tc, command_dump_converts_both_ways);
    tcase_add_test(tc, command_info);
    tcase_add_test(tc, command_errors_exit_2);
    suite_add_tcase(s, tc);
    return s;
}
