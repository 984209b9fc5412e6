/* test_robust.c - bounded resources on any input (issue 6 §3), and the bugs
 * the fuzzers found (fuzz/, docs/robustness.md).
 *
 * Each input here claims an absurd size: a record of a terabyte, a string of
 * 4 GiB, a PC table of 2^32 entries, a grid of 2^40 CTAs, a block of billions
 * of threads, a CSV line without end, a config with caches of gigabytes. Each
 * must be refused with ONE line that names the file, the place and the
 * limit, before the claimed size is allocated. The inputs are built in the
 * test (binary traces byte by byte, compressed with zstd), so every case
 * states exactly what it claims. Where a stream can be endless (/dev/zero,
 * a generated CSV line) the reader must stop at its limit, not at the end. */
#define _GNU_SOURCE /* fopencookie: an endless stream */
#include <check.h>
#include <dirent.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#include "cfg.h"
#include "gpu.h"
#include "ncu_csv.h"
#include "replay.h"
#include "suites.h"
#include "test_util.h"
#include "trace.h"

/* ---- files ------------------------------------------------------------------ */

static char tmp_dir[64];

static void make_tmp_dir(void)
{
    snprintf(tmp_dir, sizeof tmp_dir, "/tmp/gms-robust-test-XXXXXX");
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

static const char *tpath(const char *name)
{
    static char bufs[4][256];
    static int next;
    char *b = bufs[next++ % 4];
    snprintf(b, 256, "%s/%s", tmp_dir, name);
    return b;
}

static void write_bytes(const char *path, const void *p, size_t n)
{
    FILE *f = fopen(path, "wb");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(p, 1, n, f), n);
    ck_assert_int_eq(fclose(f), 0);
}

#define ck_assert_msg_is(got, ...)                                                           \
    do {                                                                                     \
        char want_[ERR_MSG_BYTES];                                                           \
        snprintf(want_, sizeof want_, __VA_ARGS__);                                          \
        ck_assert_msg(strcmp((got), want_) == 0, "message\n  got:  %s\n  want: %s", (got),   \
                      want_);                                                                \
    } while (0)

/* ---- binary traces built record by record (docs/trace-format.md) ---------------- */

typedef struct buf {
    uint8_t *p;
    size_t n, cap;
} buf;

static void put(buf *b, const void *p, size_t n)
{
    if (b->n + n > b->cap) {
        b->cap = (b->n + n) * 2;
        b->p = realloc(b->p, b->cap);
        ck_assert_ptr_nonnull(b->p);
    }
    memcpy(b->p + b->n, p, n);
    b->n += n;
}

static void put_u8(buf *b, uint8_t v)
{
    put(b, &v, 1);
}

static void put_varint(buf *b, uint64_t v)
{
    do {
        put_u8(b, (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0)));
        v >>= 7;
    } while (v);
}

static void put_str(buf *b, const char *s)
{
    put_varint(b, strlen(s));
    put(b, s, strlen(s));
}

/* tag, payload length, payload */
static void put_rec(buf *b, uint8_t tag, const buf *payload)
{
    put_u8(b, tag);
    put_varint(b, payload->n);
    put(b, payload->p, payload->n);
}

/* A KERNEL record: launch 0, name "k", the given grid and block, no shared
 * memory, 16 registers, n_files and n_pcs table records to follow. */
static void put_kernel(buf *b, const uint32_t grid[3], const uint32_t block[3], uint64_t n_files,
                       uint64_t n_pcs)
{
    buf p = {0};
    put_varint(&p, 0);
    put_str(&p, "k");
    put_str(&p, "k");
    for (int i = 0; i < 3; i++)
        put_varint(&p, grid[i]);
    for (int i = 0; i < 3; i++)
        put_varint(&p, block[i]);
    put_varint(&p, 0);
    put_varint(&p, 0);
    put_varint(&p, 16);
    put_varint(&p, 0);
    put_varint(&p, n_files);
    put_varint(&p, n_pcs);
    put_rec(b, 2, &p);
    free(p.p);
}

static const uint32_t ONE[3] = {1, 1, 1};
static const uint32_t WARP[3] = {32, 1, 1};

/* Header, then the records as one zstd frame (level 19: the test inputs
 * repeat, so a claim of tens of MB stays a small file). */
static void write_binary(const char *path, const buf *recs)
{
    size_t cap = 16 + ZSTD_compressBound(recs->n);
    uint8_t *out = malloc(cap);
    ck_assert_ptr_nonnull(out);
    memcpy(out, "GMSTRACE\x01\0\0\0\0\0\0\0", 16);
    size_t z = ZSTD_compress(out + 16, cap - 16, recs->p, recs->n, 19);
    ck_assert(!ZSTD_isError(z));
    write_bytes(path, out, 16 + z);
    free(out);
}

/* Read a whole trace; returns the one-line message of its refusal (the test
 * fails if it is read). */
static const char *read_error(const char *path)
{
    static err_info err;
    trace_reader_options opt = {.allow_incomplete = false};
    err_clear(&err);
    trace_reader *r = trace_reader_open(path, &opt, &err);
    int rc = -1;
    if (r) {
        trace_event ev;
        while ((rc = trace_reader_next(r, &ev, &err)) == 1)
            ;
        trace_reader_close(r);
    }
    ck_assert_msg(rc == -1, "%s was read without an error", path);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "message is not one line: %s", err.msg);
    return err.msg;
}

/* ---- binary traces ------------------------------------------------------------ */

START_TEST(binary_record_of_a_terabyte_is_refused_before_it_is_read)
{
    buf b = {0};
    put_u8(&b, 1); /* META */
    put_varint(&b, (uint64_t)1 << 40);
    put(&b, "x", 1);
    const char *p = tpath("tera.trace");
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p),
                     "%s: record 1: record length 1099511627776 exceeds the limit of 16777216 bytes",
                     p);
    free(b.p);
}
END_TEST

START_TEST(binary_record_length_beyond_64_bits_is_refused)
{
    buf b = {0};
    put_u8(&b, 1);
    put(&b, "\xff\xff\xff\xff\xff\xff\xff\xff\xff\x7f", 10); /* 70 bits */
    const char *p = tpath("huge.trace");
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p), "%s: record 1: record length is not a valid varint", p);
    free(b.p);
}
END_TEST

START_TEST(binary_string_of_4_gib_is_refused_by_its_field)
{
    buf b = {0}, m = {0};
    put_varint(&m, (uint64_t)1 << 32); /* the key's length */
    put(&m, "gpu", 3);
    put_rec(&b, 1, &m);
    const char *p = tpath("str.trace");
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p),
                     "%s: record 1: meta record: key of 4294967296 bytes (expected at most 65536)",
                     p);
    free(b.p);
    free(m.p);
}
END_TEST

START_TEST(binary_pc_table_of_2_to_the_32_entries_is_refused)
{
    /* 2^32 does not fit the 32-bit count; 2^32 - 1 fits and is over the limit */
    buf b = {0};
    put_kernel(&b, ONE, WARP, 0, (uint64_t)1 << 32);
    const char *p = tpath("pcs.trace");
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p),
                     "%s: record 1: kernel record: pc count 4294967296 is out of range (expected "
                     "at most 4294967295)", p);
    b.n = 0;
    put_kernel(&b, ONE, WARP, 0, UINT32_MAX);
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p),
                     "%s: record 1: 4294967295 PC table entries (expected at most 1048576)", p);
    free(b.p);
}
END_TEST

START_TEST(binary_file_table_of_billions_is_refused)
{
    buf b = {0};
    put_kernel(&b, ONE, WARP, 3000000000u, 0);
    const char *p = tpath("files.trace");
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p), "%s: record 1: 3000000000 source files (expected at most 4096)",
                     p);
    free(b.p);
}
END_TEST

START_TEST(binary_grid_of_2_to_the_40_ctas_is_refused)
{
    buf b = {0};
    const uint32_t grid[3] = {1u << 20, 1u << 20, 1};
    put_kernel(&b, grid, WARP, 0, 0);
    const char *p = tpath("grid.trace");
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p),
                     "%s: record 1: grid 1048576,1048576,1 has 1099511627776 CTAs (expected fewer "
                     "than 4294967296)", p);
    /* the largest grid: 2^32 - 1 CTAs in three axes, no product overflows */
    b.n = 0;
    const uint32_t max[3] = {UINT32_MAX, UINT32_MAX, UINT32_MAX};
    put_kernel(&b, max, WARP, 0, 0);
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p),
                     "%s: record 1: grid 4294967295,4294967295,4294967295 has "
                     "79228162458924105372415295488 CTAs (expected fewer than 4294967296)", p);
    free(b.p);
}
END_TEST

START_TEST(binary_block_of_billions_of_threads_is_refused)
{
    buf b = {0};
    const uint32_t block[3] = {65536, 65536, 1};
    put_kernel(&b, ONE, block, 0, 0);
    const char *p = tpath("block.trace");
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p),
                     "%s: record 1: block 65536,65536,1 has 4294967296 threads (expected at most "
                     "1024)", p);
    free(b.p);
}
END_TEST

START_TEST(binary_counts_of_billions_of_records_are_checked_not_allocated)
{
    /* a kernel end that claims 2^40 memory records, an end that claims 2^40
     * kernels: counts are compared, never used to size anything */
    buf b = {0}, p = {0};
    put_kernel(&b, ONE, WARP, 0, 0);
    put_varint(&p, (uint64_t)1 << 40);
    put_varint(&p, 0);
    put_rec(&b, 7, &p);
    const char *path = tpath("counts.trace");
    write_binary(path, &b);
    ck_assert_msg_is(read_error(path),
                     "%s: record 2: kernel end counts 1099511627776 memory and 0 barrier records, "
                     "but kernel launch 0 has 0 and 0", path);
    b.n = p.n = 0;
    put_varint(&p, (uint64_t)1 << 40);
    put_u8(&p, 1);
    put_rec(&b, 8, &p);
    write_binary(path, &b);
    ck_assert_msg_is(read_error(path),
                     "%s: record 1: end record counts 1099511627776 kernels, but the trace has 0",
                     path);
    free(b.p);
    free(p.p);
}
END_TEST

START_TEST(binary_table_strings_are_bounded_in_total)
{
    /* 1025 PCs of 64 KiB of SASS each: every string is within its own limit
     * and the file is a few KiB, but the table would hold 64 MiB + 64 KiB */
    enum { N_PCS = 1025, SASS = 65536 };
    char *sass = malloc(SASS + 1);
    ck_assert_ptr_nonnull(sass);
    memset(sass, 'A', SASS);
    sass[SASS] = '\0';
    buf b = {0}, p = {0};
    put_kernel(&b, ONE, WARP, 0, N_PCS);
    for (uint32_t i = 0; i < N_PCS; i++) {
        p.n = 0;
        put_varint(&p, 16u * i);
        put_str(&p, sass);
        put_u8(&p, 0);
        put_varint(&p, 0);
        put_varint(&p, 0);
        put_rec(&b, 4, &p);
    }
    const char *path = tpath("table.trace");
    write_binary(path, &b);
    ck_assert_msg_is(read_error(path),
                     "%s: record 1025: pc record: the table of kernel launch 0 holds more than "
                     "67108864 bytes of file names and SASS text (at 0 files and 1023 PCs)", path);
    free(sass);
    free(b.p);
    free(p.p);
}
END_TEST

START_TEST(binary_zstd_window_over_16_mib_is_refused)
{
    /* a frame that asks for a 1 GiB window: zstd must refuse it before
     * allocating it (ZSTD_d_windowLogMax) */
    static const uint8_t file[] = {'G', 'M', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0, 0, 0, 0, 0,
                                   0x28, 0xb5, 0x2f, 0xfd, 0x00, (30 - 10) << 3,
                                   0x01, 0x00, 0x00}; /* an empty last raw block */
    const char *p = tpath("window.trace");
    write_bytes(p, file, sizeof file);
    ck_assert_msg_is(read_error(p),
                     "%s: record 1: corrupt compressed data (zstd: Frame requires too much memory "
                     "for decoding)", p);
}
END_TEST

START_TEST(binary_meta_entries_are_bounded)
{
    buf b = {0}, m = {0};
    char key[32];
    for (int i = 0; i <= 256; i++) {
        m.n = 0;
        snprintf(key, sizeof key, "key%d", i);
        put_str(&m, key);
        put_str(&m, "v");
        put_rec(&b, 1, &m);
    }
    const char *p = tpath("meta.trace");
    write_binary(p, &b);
    ck_assert_msg_is(read_error(p), "%s: record 257: more than 256 meta entries", p);
    free(b.p);
    free(m.p);
}
END_TEST

START_TEST(endless_device_is_refused_as_a_trace_and_as_a_config)
{
    /* /dev/zero never ends: the readers must decide from what they read */
    ck_assert_msg_is(read_error("/dev/zero"),
                     "/dev/zero: not a gpumemsim trace (expected the binary header \"GMSTRACE\" "
                     "or the text header line \"gpumemsim-trace 1\")");
    cfg_gpu c;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(cfg_load("/dev/zero", &c, &err), -1);
    ck_assert_msg(strncmp(err.msg, "/dev/zero:", 10) == 0 && strchr(err.msg, '\n') == NULL,
                  "got: %s", err.msg);
}
END_TEST

/* ---- text traces --------------------------------------------------------------- */

START_TEST(text_line_longer_than_its_limit_is_refused)
{
    /* 1 MiB without a newline after the header: refused at 266240 bytes */
    size_t n = (size_t)1 << 20;
    char *t = malloc(n);
    ck_assert_ptr_nonnull(t);
    memset(t, 'x', n);
    memcpy(t, "gpumemsim-trace 1\nmeta k \"", 26);
    const char *p = tpath("long.txt");
    write_bytes(p, t, n);
    ck_assert_msg_is(read_error(p), "%s:2: line longer than 266240 bytes", p);
    free(t);
}
END_TEST

START_TEST(text_grid_and_block_claims_are_refused)
{
    const char *p = tpath("grid.txt");
    const char *t = "gpumemsim-trace 1\n"
                    "kernel launch=0 grid=1048576,1048576,1 block=32,1,1 name=\"k\" demangled=\"k\" "
                    "smem_static=0 smem_dynamic=0 regs=16 local=0\n"
                    "end kernel mem=0 bar=0\nend trace kernels=1 complete\n";
    write_bytes(p, t, strlen(t));
    ck_assert_msg_is(read_error(p),
                     "%s:2: grid 1048576,1048576,1 has 1099511627776 CTAs (expected fewer than "
                     "4294967296)", p);
    t = "gpumemsim-trace 1\n"
        "kernel launch=0 grid=1,1,1 block=4294967295,1,1 name=\"k\" demangled=\"k\" "
        "smem_static=0 smem_dynamic=0 regs=16 local=0\n";
    write_bytes(p, t, strlen(t));
    ck_assert_msg_is(read_error(p),
                     "%s:2: block 4294967295,1,1 has 4294967295 threads (expected at most 1024)", p);
}
END_TEST

START_TEST(text_lanes_beyond_a_warp_are_refused)
{
    /* a record that lists 33 addresses: a warp has 32 lanes, the mask 32 bits */
    char t[2048];
    int n = sprintf(t, "gpumemsim-trace 1\n"
                       "kernel launch=0 grid=1,1,1 block=32,1,1 name=\"k\" demangled=\"k\" "
                       "smem_static=0 smem_dynamic=0 regs=16 local=0\n"
                       "ld global 4 cta=0 warp=0 pc=0x10 mask=0xffffffff addrs=0x0");
    for (int i = 1; i < 33; i++)
        n += sprintf(t + n, ",0x%x", 4 * i);
    sprintf(t + n, "\nend kernel mem=1 bar=0\nend trace kernels=1 complete\n");
    const char *p = tpath("lanes.txt");
    write_bytes(p, t, strlen(t));
    ck_assert_msg_is(read_error(p), "%s:3: addrs lists more than 32 addresses", p);
    /* and a mask of more than 32 bits */
    sprintf(t, "gpumemsim-trace 1\n"
               "kernel launch=0 grid=1,1,1 block=32,1,1 name=\"k\" demangled=\"k\" "
               "smem_static=0 smem_dynamic=0 regs=16 local=0\n"
               "ld global 4 cta=0 warp=0 pc=0x10 mask=0x1ffffffff base=0x0 stride=4\n");
    write_bytes(p, t, strlen(t));
    ck_assert_msg_is(read_error(p), "%s:3: mask: 0x1ffffffff is out of range (expected at most "
                                    "4294967295)", p);
}
END_TEST

START_TEST(text_string_over_64_kib_is_refused)
{
    size_t n = 100000;
    char *t = malloc(n + 64);
    ck_assert_ptr_nonnull(t);
    int h = sprintf(t, "gpumemsim-trace 1\nmeta gpu \"");
    memset(t + h, 'G', n);
    strcpy(t + h + n, "\"\n");
    const char *p = tpath("str.txt");
    write_bytes(p, t, strlen(t));
    ck_assert_msg_is(read_error(p), "%s:2: string of 100000 bytes (expected at most 65536)", p);
    free(t);
}
END_TEST

/* ---- configs ------------------------------------------------------------------- */

/* configs/h200.ini with line `from` (whole line) replaced by `to`, loaded:
 * returns the message (the test fails if it loads). */
static const char *cfg_error(const char *const *from, const char *const *to, int n)
{
    static err_info err;
    FILE *in = fopen("configs/h200.ini", "r");
    ck_assert_ptr_nonnull(in);
    const char *p = tpath("x.ini");
    FILE *out = fopen(p, "w");
    ck_assert_ptr_nonnull(out);
    char line[512];
    while (fgets(line, sizeof line, in)) {
        int hit = -1;
        for (int i = 0; i < n; i++)
            if (strncmp(line, from[i], strlen(from[i])) == 0)
                hit = i;
        if (hit >= 0)
            fprintf(out, "%s\n", to[hit]);
        else
            fputs(line, out);
    }
    fclose(in);
    ck_assert_int_eq(fclose(out), 0);
    cfg_gpu c;
    err_clear(&err);
    ck_assert_msg(cfg_load(p, &c, &err) == -1, "%s loaded", p);
    ck_assert_msg(strchr(err.msg, '\n') == NULL, "not one line: %s", err.msg);
    return err.msg;
}

START_TEST(config_huge_sizes_are_refused_by_key)
{
    const char *from1[] = {"size_bytes"};
    const char *to1[] = {"size_bytes = 1099511627776"};
    const char *p = tpath("x.ini");
    ck_assert_msg_is(cfg_error(from1, to1, 1),
                     "%s:55: [l2] size_bytes: expected 1024..1073741824, got 1099511627776", p);
    const char *from2[] = {"sm_count"};
    const char *to2[] = {"sm_count = 4294967296"};
    ck_assert_msg_is(cfg_error(from2, to2, 1),
                     "%s:14: [gpu] sm_count: expected 1..1024, got 4294967296", p);
    const char *to3[] = {"sm_count = 99999999999999999999999"};
    ck_assert_msg_is(cfg_error(from2, to3, 1),
                     "%s:14: [gpu] sm_count: expected 1..1024, got 99999999999999999999999", p);
}
END_TEST

START_TEST(config_caches_beyond_the_memory_bound_are_refused)
{
    const char *p = tpath("x.ini");
    /* 1024 SMs of 1 MiB L1 in 32-byte lines: 2^25 tag lines, ~1.5 GB of model */
    const char *from1[] = {"sm_count", "unified_kib", "line_bytes", "sector_bytes",
                           "carveouts_kib"};
    const char *to1[] = {"sm_count = 1024", "unified_kib = 1024", "line_bytes = 32",
                         "sector_bytes = 32", "carveouts_kib = 0,512"};
    ck_assert_msg_is(cfg_error(from1, to1, 5),
                     "%s:29: [l1] unified_kib: expected gpu.sm_count * l1.unified_kib KiB / "
                     "l1.line_bytes = 1024 * 1024 KiB / 32 to be at most 8388608 tag lines (the "
                     "model's memory bound), got 33554432", p);
    /* 512 MiB of L2 in 32-byte lines: 2^24 lines (the L1 keeps its 512 sets
     * of 4 ways; "ways" sets both levels' ways to 16) */
    const char *from2[] = {"line_bytes", "size_bytes", "slices", "sets_per_slice", "ways"};
    const char *to2[] = {"line_bytes = 32", "size_bytes = 536870912", "slices = 1024",
                         "sets_per_slice = 1024", "ways = 16"};
    ck_assert_msg_is(cfg_error(from2, to2, 5),
                     "%s:55: [l2] size_bytes: expected at most 8388608 lines of l2.line_bytes (32) "
                     "= 268435456 bytes (the model's memory bound), got 536870912", p);
}
END_TEST

/* fuzz_cfg found these: cfg_load accepted them and gpu_create() asserted */
START_TEST(config_geometry_the_model_cannot_hold_is_refused)
{
    const char *p = tpath("x.ini");
    /* 8 sectors per line: the tag arrays keep 4 sector bits */
    const char *from1[] = {"line_bytes"};
    const char *to1[] = {"line_bytes = 256"};
    ck_assert_msg_is(cfg_error(from1, to1, 1),
                     "%s:27: [l1] line_bytes: expected at most 4 sectors of l1.sector_bytes (32) "
                     "per line (the model's tag arrays keep 4 sector bits per line), got 8 sectors",
                     p);
    /* sectors of 64 bytes: the byte masks are 32 bits */
    const char *from2[] = {"line_bytes", "sector_bytes"};
    const char *to2[] = {"line_bytes = 128", "sector_bytes = 64"};
    ck_assert_msg_is(cfg_error(from2, to2, 2),
                     "%s:28: [l1] sector_bytes: expected at most 32 (the model keeps a 32-bit byte "
                     "mask per sector), got 64", p);
    /* L2 lines of another size than L1's (the fuzzer's first crash) */
    cfg_gpu c;
    test_cfg_h200(&c);
    c.l2_line_bytes = 64;
    c.l2_size_bytes /= 2;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(cfg_validate(&c, &err), -1);
    ck_assert_msg_is(err.msg, "[l2] line_bytes: expected l1.line_bytes (128): the model moves whole "
                              "lines between L1 and L2, got 64");
    test_cfg_h200(&c);
    c.l1_line_bytes = c.l2_line_bytes = 64;
    c.l2_size_bytes /= 2;
    c.l2_sector_bytes = 16;
    ck_assert_int_eq(cfg_validate(&c, &err), -1);
    ck_assert_msg_is(err.msg, "[l2] sector_bytes: expected l1.sector_bytes (32): the model moves "
                              "whole sectors between L1 and L2, got 16");
}
END_TEST

START_TEST(config_file_of_megabytes_is_refused_at_its_limit)
{
    /* a "config" of 2 MiB of comment lines */
    size_t n = (size_t)2 << 20;
    char *t = malloc(n);
    ck_assert_ptr_nonnull(t);
    for (size_t i = 0; i < n; i++)
        t[i] = i % 64 == 63 ? '\n' : ';';
    const char *p = tpath("big.ini");
    write_bytes(p, t, n);
    cfg_gpu c;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(cfg_load(p, &c, &err), -1);
    ck_assert_msg_is(err.msg, "%s:16385: expected a config file of at most 1048576 bytes, got a "
                              "larger file", p);
    free(t);
}
END_TEST

/* ---- Nsight Compute CSVs ------------------------------------------------------- */

/* An endless stream: the header line of a long-form report, then a quoted
 * field that never ends. */
typedef struct endless {
    size_t pos;
} endless;

static const char ENDLESS_HEAD[] = "\"ID\",\"Kernel Name\",\"x";

static ssize_t endless_read(void *cookie, char *out, size_t n)
{
    endless *e = cookie;
    for (size_t i = 0; i < n; i++, e->pos++)
        out[i] = e->pos < sizeof ENDLESS_HEAD - 1 ? ENDLESS_HEAD[e->pos] : 'x';
    return (ssize_t)n;
}

START_TEST(ncu_csv_line_without_end_is_refused_at_its_limit)
{
    endless e = {0};
    cookie_io_functions_t io = {.read = endless_read};
    FILE *f = fopencookie(&e, "r", io);
    ck_assert_ptr_nonnull(f);
    ncu_report rep;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(ncu_report_read_stream(f, "endless.csv", &rep, &err), -1);
    ck_assert_msg_is(err.msg,
                     "endless.csv:1: CSV record longer than 4194304 bytes (NCU_CSV_RECORD_MAX_BYTES)");
    /* it stopped at the limit (plus stdio's buffer), not at an end that never comes */
    ck_assert_uint_lt(e.pos, (4u << 20) + 65536);
    fclose(f);

    e.pos = 0;
    f = fopencookie(&e, "r", io);
    ncu_source_report src;
    err_clear(&err);
    ck_assert_int_eq(ncu_source_read_stream(f, "endless.csv", &src, &err), -1);
    ck_assert_msg_is(err.msg,
                     "endless.csv:1: CSV record longer than 4194304 bytes (NCU_CSV_RECORD_MAX_BYTES)");
    fclose(f);
}
END_TEST

START_TEST(ncu_csv_record_of_too_many_fields_is_refused)
{
    size_t n = 20000;
    char *t = malloc(2 * n + 64);
    ck_assert_ptr_nonnull(t);
    size_t len = (size_t)sprintf(t, "\"ID\"");
    for (size_t i = 0; i < n; i++)
        t[len++] = ',';
    t[len++] = '\n';
    FILE *f = fmemopen(t, len, "r");
    ck_assert_ptr_nonnull(f);
    ncu_report rep;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(ncu_report_read_stream(f, "fields.csv", &rep, &err), -1);
    ck_assert_msg_is(err.msg, "fields.csv:1: more than 16384 fields (NCU_CSV_FIELDS_MAX)");
    fclose(f);
    free(t);
}
END_TEST

/* ---- messages stay one line ------------------------------------------------------ */

/* fuzz_trace_binary found this: a kernel name with a newline (the reader
 * allows any byte but NUL) went raw into the model's refusal, and the
 * program printed one error as two lines. err_set now escapes control bytes. */
START_TEST(model_message_quoting_a_name_with_a_newline_stays_one_line)
{
    cfg_gpu c;
    test_cfg_h200(&c);
    gpu *g = gpu_create(&c);
    trace_kernel k;
    test_kernel(&k, "a\nb\tc\x01", 1, 1024);
    k.regs_per_thread = 255;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(gpu_kernel_begin(g, &k, 0, &err), -1);
    ck_assert_msg_is(err.msg, "kernel a\\nb\\tc\\x01: a CTA needs 261120 registers (255 per thread "
                              "x 1024 threads), an SM has 65536");
    gpu_destroy(g);

    /* and through the replay, which puts the path and the name in front */
    const char *p = tpath("newline.txt");
    const char *t = "gpumemsim-trace 1\n"
                    "kernel launch=0 grid=1,1,1 block=1024,1,1 name=\"a\\nb\" demangled=\"a\\nb\" "
                    "smem_static=0 smem_dynamic=0 regs=255 local=0\n"
                    "end kernel mem=0 bar=0\nend trace kernels=1 complete\n";
    write_bytes(p, t, strlen(t));
    err_clear(&err);
    ck_assert_int_eq(replay_trace(p, &c, NULL, NULL, NULL, &err), -1);
    ck_assert_msg_is(err.msg, "%s: kernel 0 (a\\nb): kernel a\\nb: a CTA needs 261120 registers (255 "
                              "per thread x 1024 threads), an SM has 65536", p);
}
END_TEST

START_TEST(a_message_cut_to_fit_stays_one_line)
{
    /* a long name of newlines: each becomes two characters, the message is
     * cut at ERR_MSG_BYTES and still ends in a NUL, with no raw newline */
    char name[2000];
    memset(name, '\n', sizeof name - 1);
    name[sizeof name - 1] = '\0';
    err_info err;
    err_set(&err, "kernel %s: refused", name);
    ck_assert(strchr(err.msg, '\n') == NULL);
    ck_assert_uint_lt(strlen(err.msg), ERR_MSG_BYTES);
    ck_assert(strncmp(err.msg, "kernel \\n\\n", 11) == 0);
    err_prefix(&err, "x\ty");
    ck_assert(strncmp(err.msg, "x\\ty: kernel \\n", 15) == 0);
    ck_assert(strchr(err.msg, '\n') == NULL);
}
END_TEST

Suite *robust_suite(void)
{
    Suite *s = suite_create("robust");
    TCase *tc = tcase_create("bounded");
    tcase_add_checked_fixture(tc, make_tmp_dir, remove_tmp_dir);
    tcase_set_timeout(tc, 120); /* valgrind */
    tcase_add_test(tc, binary_record_of_a_terabyte_is_refused_before_it_is_read);
    tcase_add_test(tc, binary_record_length_beyond_64_bits_is_refused);
    tcase_add_test(tc, binary_string_of_4_gib_is_refused_by_its_field);
    tcase_add_test(tc, binary_pc_table_of_2_to_the_32_entries_is_refused);
    tcase_add_test(tc, binary_file_table_of_billions_is_refused);
    tcase_add_test(tc, binary_grid_of_2_to_the_40_ctas_is_refused);
    tcase_add_test(tc, binary_block_of_billions_of_threads_is_refused);
    tcase_add_test(tc, binary_counts_of_billions_of_records_are_checked_not_allocated);
    tcase_add_test(tc, binary_table_strings_are_bounded_in_total);
    tcase_add_test(tc, binary_zstd_window_over_16_mib_is_refused);
    tcase_add_test(tc, binary_meta_entries_are_bounded);
    tcase_add_test(tc, endless_device_is_refused_as_a_trace_and_as_a_config);
    tcase_add_test(tc, text_line_longer_than_its_limit_is_refused);
    tcase_add_test(tc, text_grid_and_block_claims_are_refused);
    tcase_add_test(tc, text_lanes_beyond_a_warp_are_refused);
    tcase_add_test(tc, text_string_over_64_kib_is_refused);
    tcase_add_test(tc, config_huge_sizes_are_refused_by_key);
    tcase_add_test(tc, config_caches_beyond_the_memory_bound_are_refused);
    tcase_add_test(tc, config_geometry_the_model_cannot_hold_is_refused);
    tcase_add_test(tc, config_file_of_megabytes_is_refused_at_its_limit);
    tcase_add_test(tc, ncu_csv_line_without_end_is_refused_at_its_limit);
    tcase_add_test(tc, ncu_csv_record_of_too_many_fields_is_refused);
    suite_add_tcase(s, tc);
    TCase *msg = tcase_create("one line");
    tcase_add_checked_fixture(msg, make_tmp_dir, remove_tmp_dir);
    tcase_set_timeout(msg, 120);
    tcase_add_test(msg, model_message_quoting_a_name_with_a_newline_stays_one_line);
    tcase_add_test(msg, a_message_cut_to_fit_stays_one_line);
    suite_add_tcase(s, msg);
    return s;
}
