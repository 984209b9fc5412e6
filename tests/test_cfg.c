/* test_cfg.c - GPU configs: the shipped configs load with the documented
 * values, every kind of bad config gets its exact one-line message with the
 * right line, the dump reloads to the same struct, and docs/config.md holds
 * the current `gpumemsim config doc` output. */
#include <check.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cfg.h"
#include "commands.h"
#include "suites.h"

static const char *const shipped[] = {
    "configs/h200.ini", "configs/h100.ini", "configs/a100.ini",
    "configs/rtx5090.ini", "configs/k20c.ini",
};
#define N_SHIPPED (sizeof shipped / sizeof shipped[0])

#define X64 "xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"

/* The H200 values with every key set, one per line: line n of this text is
 * line n of a file written from it (the variants below count on that). */
static const char base_config[] =
    "[gpu]\n"                                        /* 1 */
    "name = NVIDIA H200\n"                           /* 2 */
    "chip = gh100\n"                                 /* 3 */
    "compute_capability = 9.0\n"                     /* 4 */
    "sm_count = 132\n"                               /* 5 */
    "max_threads_per_sm = 2048\n"                    /* 6 */
    "max_ctas_per_sm = 32\n"                         /* 7 */
    "registers_per_sm = 65536\n"                     /* 8 */
    "[l1]\n"                                         /* 9 */
    "line_bytes = 128\n"                             /* 10 */
    "sector_bytes = 32\n"                            /* 11 */
    "unified_kib = 256\n"                            /* 12 */
    "sets = 32\n"                                    /* 13 */
    "set_index = xor\n"                              /* 14 */
    "global_loads = cache\n"                         /* 15 */
    "stores = update\n"                              /* 16 */
    "tags_per_cycle = 4\n"                           /* 17 */
    "[shared]\n"                                     /* 18 */
    "banks = 32\n"                                   /* 19 */
    "bank_bytes = 4\n"                               /* 20 */
    "bank_mode_bytes = 4\n"                          /* 21 */
    "load_pairing = true\n"                          /* 22 */
    "reserved_per_cta_bytes = 1024\n"                /* 23 */
    "carveouts_kib = 0,8,16,32,64,100,132,164,196,228\n" /* 24 */
    "[l2]\n"                                         /* 25 */
    "line_bytes = 128\n"                             /* 26 */
    "sector_bytes = 32\n"                            /* 27 */
    "size_bytes = 62914560\n"                        /* 28 */
    "partitions = 2\n"                               /* 29 */
    "slices = 96\n"                                  /* 30 */
    "sets_per_slice = 256\n"                         /* 31 */
    "ways = 20\n"                                    /* 32 */
    "set_index = xor\n"                              /* 33 */
    "ecc = true\n"                                   /* 34 */
    "[sim]\n"                                        /* 35 */
    "cold_caches_per_kernel = true\n"                /* 36 */
    "cta_placement = trace\n";                       /* 37 */

/* ---- helpers ---- */

static void load_ok(const char *path, cfg_gpu *c)
{
    err_info e;
    err_clear(&e);
    memset(c, 0x5a, sizeof *c);
    ck_assert_msg(cfg_load(path, c, &e) == 0, "%s: %s", path, e.msg);
}

static void expect_load_error(const char *path, const char *msg)
{
    cfg_gpu c;
    err_info e;
    err_clear(&e);
    ck_assert_int_eq(cfg_load(path, &c, &e), -1);
    ck_assert_str_eq(e.msg, msg);
    ck_assert_ptr_null(strchr(e.msg, '\n'));
}

/* Write n bytes to a new temporary file; its name goes to path[32]. */
static void write_temp(char *path, const char *text, size_t n)
{
    strcpy(path, "/tmp/gms-cfg-XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, text, n), (ssize_t)n);
    close(fd);
}

/* text with its first line equal to old replaced by repl (which may hold
 * several lines, or be "" to delete the line). Returns a malloc'd string. */
static char *replace_line(const char *text, const char *old, const char *repl)
{
    size_t lo = strlen(old);
    const char *p = text;
    for (;;) {
        ck_assert_msg(*p, "line \"%s\" not in the text", old);
        if (strncmp(p, old, lo) == 0 && p[lo] == '\n')
            break;
        p = strchr(p, '\n') + 1;
    }
    size_t head = (size_t)(p - text), lr = strlen(repl);
    const char *tail = p + lo + 1;
    char *out = malloc(head + lr + 1 + strlen(tail) + 1);
    ck_assert_ptr_nonnull(out);
    memcpy(out, text, head);
    char *q = out + head;
    if (lr) {
        memcpy(q, repl, lr);
        q += lr;
        *q++ = '\n';
    }
    strcpy(q, tail);
    return out;
}

/* Load a variant of base_config; 0 or -1, message in e. */
static int load_variant(const char *old, const char *repl, cfg_gpu *c, err_info *e, char *path)
{
    char *text = replace_line(base_config, old, repl);
    write_temp(path, text, strlen(text));
    free(text);
    err_clear(e);
    int rc = cfg_load(path, c, e);
    unlink(path);
    return rc;
}

/* Run cmd_config(args) with stdout and stderr captured into out and errs. */
static int run_config(int argc, const char *const *args, char *out, size_t n_out, char *errs,
                      size_t n_errs)
{
    char *argv[8];
    ck_assert_int_lt(argc, 8);
    for (int i = 0; i < argc; i++)
        argv[i] = strdup(args[i]);
    argv[argc] = NULL;
    fflush(stdout);
    fflush(stderr);
    FILE *fo = tmpfile(), *fe = tmpfile();
    ck_assert(fo && fe);
    int save_out = dup(1), save_err = dup(2);
    dup2(fileno(fo), 1);
    dup2(fileno(fe), 2);
    int rc = cmd_config(argc, argv);
    for (int i = 0; i < argc; i++)
        free(argv[i]);
    fflush(stdout);
    fflush(stderr);
    dup2(save_out, 1);
    dup2(save_err, 2);
    close(save_out);
    close(save_err);
    rewind(fo);
    rewind(fe);
    out[fread(out, 1, n_out - 1, fo)] = '\0';
    errs[fread(errs, 1, n_errs - 1, fe)] = '\0';
    ck_assert(feof(fo) && feof(fe)); /* the buffers were large enough */
    fclose(fo);
    fclose(fe);
    return rc;
}

static char *read_file(const char *path)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s missing (run from the repository root)", path);
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    rewind(f);
    char *s = malloc((size_t)n + 1);
    ck_assert_ptr_nonnull(s);
    ck_assert_int_eq(fread(s, 1, (size_t)n, f), (size_t)n);
    s[n] = '\0';
    fclose(f);
    return s;
}

static void assert_same_config(const cfg_gpu *a, const cfg_gpu *b)
{
    for (size_t i = 0; i < cfg_key_count(); i++) {
        char va[512], vb[512];
        cfg_key_value(a, i, va, sizeof va);
        cfg_key_value(b, i, vb, sizeof vb);
        ck_assert_msg(strcmp(va, vb) == 0, "%s: %s != %s", cfg_key_name(i), va, vb);
    }
    ck_assert(memcmp(a, b, sizeof *a) == 0);
}

/* ---- shipped configs ---- */

START_TEST(shipped_configs_load_and_validate)
{
    for (size_t i = 0; i < N_SHIPPED; i++) {
        cfg_gpu c;
        load_ok(shipped[i], &c);
        err_info e;
        err_clear(&e);
        ck_assert_msg(cfg_validate(&c, &e) == 0, "%s: %s", shipped[i], e.msg);
    }
}
END_TEST

START_TEST(h200_has_the_measured_and_documented_values)
{
    cfg_gpu c;
    load_ok("configs/h200.ini", &c);
    ck_assert_str_eq(c.name, "NVIDIA H200");
    ck_assert_str_eq(c.chip, "gh100");
    ck_assert_uint_eq(c.cc_major, 9);
    ck_assert_uint_eq(c.cc_minor, 0);
    ck_assert_uint_eq(c.sm_count, 132);
    ck_assert_uint_eq(c.max_threads_per_sm, 2048);
    ck_assert_uint_eq(c.max_ctas_per_sm, 32);
    ck_assert_uint_eq(c.registers_per_sm, 65536);
    ck_assert_uint_eq(c.l1_line_bytes, 128);
    ck_assert_uint_eq(c.l1_sector_bytes, 32);
    ck_assert_uint_eq(c.l1_unified_kib, 256);
    ck_assert_uint_eq(c.l1_sets, 512);
    ck_assert_uint_eq(c.l1_ways, 4);
    ck_assert_int_eq(c.l1_set_index, CFG_INDEX_MASKS);
    ck_assert_uint_eq(c.n_l1_set_masks, 15); /* findings §3f: line bits 9-23 */
    ck_assert_uint_eq(c.l1_set_masks[0], 0x071);
    ck_assert_uint_eq(c.l1_set_masks[14], 0x0f0);
    ck_assert_int_eq(c.l1_global_loads, CFG_L1_GLOBAL_CACHE);
    ck_assert_int_eq(c.l1_stores, CFG_L1_STORES_UPDATE);
    ck_assert_uint_eq(c.l1_tags_per_cycle, 4);
    ck_assert_uint_eq(c.smem_banks, 32);
    ck_assert_uint_eq(c.smem_bank_bytes, 4);
    ck_assert_uint_eq(c.smem_bank_mode_bytes, 4);
    ck_assert_uint_eq(c.carveout_ctas_factor, 2);
    ck_assert_uint_eq(c.carveout_min_per_cta_bytes, 4096);
    ck_assert(c.smem_load_pairing);
    ck_assert_uint_eq(c.smem_reserved_per_cta_bytes, 1024);
    static const uint32_t carve[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    ck_assert_uint_eq(c.n_carveouts, 10);
    for (uint32_t i = 0; i < 10; i++)
        ck_assert_uint_eq(c.carveout_kib[i], carve[i]);
    ck_assert_uint_eq(c.l2_line_bytes, 128);
    ck_assert_uint_eq(c.l2_sector_bytes, 32);
    ck_assert_uint_eq(c.l2_size_bytes, 62914560);
    ck_assert_uint_eq(c.l2_partitions, 2);
    ck_assert_uint_eq(c.l2_slices, 96);
    ck_assert_uint_eq(c.l2_sets_per_slice, 256);
    ck_assert_uint_eq(c.l2_ways, 20);
    ck_assert_int_eq(c.l2_set_index, CFG_INDEX_XOR);
    ck_assert(c.l2_ecc);
    ck_assert(c.cold_caches_per_kernel);
    ck_assert_int_eq(c.cta_placement, CFG_PLACE_TRACE);
    ck_assert_uint_eq(cfg_l2_slices_per_partition(&c), 48);
}
END_TEST

START_TEST(other_gpus_have_their_geometry)
{
    cfg_gpu c;
    load_ok("configs/h100.ini", &c);
    ck_assert_uint_eq(c.sm_count, 132);
    ck_assert_uint_eq(c.l2_size_bytes, 80ull * 640 * 1024);
    ck_assert_uint_eq(cfg_l2_slices_per_partition(&c), 40);
    /* measured on an H100 (traces/h200-probes/h100-l1): the H200's L1 sets and
     * index, and the driver's carveouts of every suite kernel */
    cfg_gpu h200;
    load_ok("configs/h200.ini", &h200);
    ck_assert_uint_eq(c.l1_sets, 512);
    ck_assert_uint_eq(c.l1_ways, 4);
    ck_assert_int_eq(c.l1_set_index, CFG_INDEX_MASKS);
    ck_assert_uint_eq(c.n_l1_set_masks, 15);
    ck_assert_uint_eq(c.n_l1_set_masks, h200.n_l1_set_masks);
    for (uint32_t i = 0; i < c.n_l1_set_masks; i++)
        ck_assert_uint_eq(c.l1_set_masks[i], h200.l1_set_masks[i]);
    ck_assert_uint_eq(c.carveout_ctas_factor, 2);
    ck_assert_uint_eq(c.carveout_min_per_cta_bytes, 4096);
    /* its timing model: the launch, first-wave dispatch and DRAM rate are the
     * H100's own (empty kernels, kernels/ctastart.cu, the 2^24-float
     * streams), later waves the H200's rate (ctastart measured it equal) */
    ck_assert(c.timing);
    ck_assert_uint_eq(c.t_launch_cycles, 4333);
    ck_assert_uint_eq(c.t_cta_fill_mcycles_per_warp, 207);
    ck_assert_uint_eq(c.t_cta_launch_mcycles, h200.t_cta_launch_mcycles);
    ck_assert_uint_eq(c.t_dram_bytes_per_cycle, 1228);

    load_ok("configs/a100.ini", &c);
    ck_assert_uint_eq(c.sm_count, 108);
    ck_assert_uint_eq(c.l1_unified_kib, 192);
    ck_assert_uint_eq(c.n_carveouts, 8);
    ck_assert_uint_eq(c.carveout_kib[7], 164);
    ck_assert_uint_eq(c.l2_size_bytes, 80ull * 512 * 1024);
    ck_assert_uint_eq(c.l2_partitions, 2);

    load_ok("configs/rtx5090.ini", &c);
    ck_assert_str_eq(c.chip, "gb202");
    ck_assert_uint_eq(c.cc_major, 12);
    ck_assert_uint_eq(c.cc_minor, 0);
    ck_assert_uint_eq(c.sm_count, 170);
    ck_assert_uint_eq(c.max_threads_per_sm, 1536);
    ck_assert_uint_eq(c.max_ctas_per_sm, 24);
    ck_assert_uint_eq(c.l1_unified_kib, 128);
    ck_assert_uint_eq(c.carveout_kib[c.n_carveouts - 1], 100);
    ck_assert_uint_eq(c.l2_size_bytes, 96ull << 20);
    ck_assert_uint_eq(c.l2_partitions, 1);
    ck_assert(!c.l2_ecc);

    load_ok("configs/k20c.ini", &c);
    ck_assert_uint_eq(c.cc_major, 3);
    ck_assert_uint_eq(c.cc_minor, 5);
    ck_assert_uint_eq(c.sm_count, 13);
    ck_assert_uint_eq(c.max_ctas_per_sm, 16);
    ck_assert_uint_eq(c.l1_unified_kib, 64);
    ck_assert_uint_eq(c.n_carveouts, 3);
    ck_assert_int_eq(c.l1_global_loads, CFG_L1_GLOBAL_BYPASS);
    ck_assert_int_eq(c.l1_stores, CFG_L1_STORES_INVALIDATE);
    ck_assert_uint_eq(c.smem_bank_bytes, 8);
    ck_assert_uint_eq(c.smem_bank_mode_bytes, 4);
    ck_assert(!c.smem_load_pairing);
    ck_assert_uint_eq(c.smem_reserved_per_cta_bytes, 0);
    ck_assert_uint_eq(c.l2_size_bytes, 1310720);
    ck_assert_uint_eq(c.l2_partitions, 1);
    ck_assert(c.l2_ecc);
}
END_TEST

/* Kepler's eight-byte bank mode is one key away: the same k20c.ini with
 * bank_mode_bytes = 8 (cudaSharedMemBankSizeEightByte, seed 002). */
START_TEST(k20c_eight_byte_bank_mode_is_one_key)
{
    cfg_gpu four, eight;
    load_ok("configs/k20c.ini", &four);
    char *text = read_file("configs/k20c.ini");
    char *line = strstr(text, "\nbank_mode_bytes = 4");
    ck_assert_ptr_nonnull(line);
    line[strlen("\nbank_mode_bytes = ")] = '8';
    char path[32];
    write_temp(path, text, strlen(text));
    free(text);
    load_ok(path, &eight);
    unlink(path);
    ck_assert_uint_eq(eight.smem_bank_mode_bytes, 8);
    eight.smem_bank_mode_bytes = 4;
    assert_same_config(&four, &eight);
}
END_TEST

/* ---- errors: the fixtures in tests/data/configs/ ---- */

static const struct {
    const char *path;
    const char *msg;
} fixtures[] = {
    {"tests/data/configs/misspelt_key.ini",
     "tests/data/configs/misspelt_key.ini:14: [l1] setz: unknown key, expected one of line_bytes, "
     "sector_bytes, unified_kib, sets, ways, set_index, set_masks, global_loads, stores, "
     "tags_per_cycle; did you mean sets?"},
    {"tests/data/configs/unknown_section.ini",
     "tests/data/configs/unknown_section.ini:36: [simulation]: unknown section, expected [gpu], "
     "[l1], [shared], [l2], [sim] or [timing]"},
    {"tests/data/configs/duplicate_key.ini",
     "tests/data/configs/duplicate_key.ini:34: [l2] ways: duplicate key, already set on line 33"},
    {"tests/data/configs/continuation.ini",
     "tests/data/configs/continuation.ini:5: [gpu] chip: duplicate key, already set on line 4 (an "
     "indented line continues the previous key's value)"},
    {"tests/data/configs/missing_required.ini",
     "tests/data/configs/missing_required.ini:37: [l2] ways: missing required key, expected \"ways "
     "= <uint>\" in [l2]"},
    {"tests/data/configs/out_of_range.ini",
     "tests/data/configs/out_of_range.ini:6: [gpu] sm_count: expected 1..1024, got 0"},
    {"tests/data/configs/malformed_number.ini",
     "tests/data/configs/malformed_number.ini:9: [gpu] registers_per_sm: expected an unsigned "
     "decimal integer, got \"64k\""},
    {"tests/data/configs/sets_not_pow2.ini",
     "tests/data/configs/sets_not_pow2.ini:14: [l1] sets: expected a power of two, got 48"},
    {"tests/data/configs/line_not_sector_multiple.ini",
     "tests/data/configs/line_not_sector_multiple.ini:11: [l1] line_bytes: expected a multiple of "
     "l1.sector_bytes (32), got 100"},
    {"tests/data/configs/l2_size_inconsistent.ini",
     "tests/data/configs/l2_size_inconsistent.ini:29: [l2] size_bytes: expected l2.slices * "
     "l2.sets_per_slice * l2.ways * l2.line_bytes = 96 * 256 * 20 * 128 = 62914560, got 50331648"},
    {"tests/data/configs/bad_bool.ini",
     "tests/data/configs/bad_bool.ini:35: [l2] ecc: expected true or false, got \"yes\""},
    {"tests/data/configs/bad_enum.ini",
     "tests/data/configs/bad_enum.ini:16: [l1] global_loads: expected cache or bypass, got "
     "\"cached\""},
    {"tests/data/configs/empty.ini",
     "tests/data/configs/empty.ini:0: [gpu] name: missing required key, expected \"name = "
     "<string>\" in [gpu] (and 21 more missing keys)"},
    {"tests/data/configs/binary.ini",
     "tests/data/configs/binary.ini:1: expected text (a config is a plain-text INI file), got "
     "byte 0x7f at column 1"},
    {"tests/data/configs/no_such_file.ini",
     "tests/data/configs/no_such_file.ini: cannot open: No such file or directory"},
    {"tests/data/configs", "tests/data/configs: cannot read: Is a directory"},
};

START_TEST(bad_fixture_gets_its_message)
{
    expect_load_error(fixtures[_i].path, fixtures[_i].msg);
}
END_TEST

/* ---- errors: variants of base_config, one line changed ---- */

static const struct {
    const char *old;  /* a line of base_config */
    const char *repl; /* what replaces it */
    const char *msg;  /* the message after "PATH" */
} variants[] = {
    /* numbers */
    {"sm_count = 132", "sm_count = 99999999999999999999999",
     ":5: [gpu] sm_count: expected 1..1024, got 99999999999999999999999"},
    {"sm_count = 132", "sm_count = -1",
     ":5: [gpu] sm_count: expected an unsigned decimal integer, got \"-1\""},
    {"sm_count = 132", "sm_count = 0x84",
     ":5: [gpu] sm_count: expected an unsigned decimal integer, got \"0x84\""},
    {"sm_count = 132", "sm_count =", ":5: [gpu] sm_count: expected an unsigned decimal integer, got \"\""},
    {"sm_count = 132", "sm_count = 132 # SMs",
     ":5: [gpu] sm_count: expected an unsigned decimal integer, got \"132 # SMs\""},
    {"size_bytes = 62914560", "size_bytes = 2147483648",
     ":28: [l2] size_bytes: expected 1024..1073741824, got 2147483648"},
    {"ways = 20", "ways = 0", ":32: [l2] ways: expected 1..64, got 0"},
    {"partitions = 2", "partitions = 3", ":29: [l2] partitions: expected 1..2, got 3"},
    {"banks = 32", "banks = 16", ":19: [shared] banks: expected 32, got 16"},
    /* strings, versions, enums */
    {"name = NVIDIA H200", "name = NVIDIA H200 # the H200",
     ":2: [gpu] name: expected 1..127 printable ASCII characters other than '#', ';' and '\"', got "
     "\"NVIDIA H200 # the H200\""},
    {"name = NVIDIA H200", "name = \"NVIDIA H200\"",
     ":2: [gpu] name: expected 1..127 printable ASCII characters other than '#', ';' and '\"', got "
     "\"\"NVIDIA H200\"\""},
    {"compute_capability = 9.0", "compute_capability = 9",
     ":4: [gpu] compute_capability: expected X.Y, e.g. 9.0, got \"9\""},
    {"compute_capability = 9.0", "compute_capability = 9.10",
     ":4: [gpu] compute_capability: expected 1.0..99.9 (major 1..99, minor 0..9), got 9.10"},
    {"cta_placement = trace", "cta_placement = round-robin",
     ":37: [sim] cta_placement: expected trace or round_robin, got \"round-robin\""},
    {"cold_caches_per_kernel = true", "cold_caches_per_kernel = 1",
     ":36: [sim] cold_caches_per_kernel: expected true or false, got \"1\""},
    /* lists */
    {"carveouts_kib = 0,8,16,32,64,100,132,164,196,228", "carveouts_kib = 0,,8",
     ":24: [shared] carveouts_kib: expected a comma-separated list of unsigned decimal integers, "
     "got \"0,,8\""},
    {"carveouts_kib = 0,8,16,32,64,100,132,164,196,228", "carveouts_kib = 0,8,2000",
     ":24: [shared] carveouts_kib: expected each value in 0..1024, got 2000"},
    {"carveouts_kib = 0,8,16,32,64,100,132,164,196,228",
     "carveouts_kib = 0,1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17",
     ":24: [shared] carveouts_kib: expected 1..16 values, got 18"},
    /* geometry (cfg_validate, reported at the line that set the key) */
    {"max_threads_per_sm = 2048", "max_threads_per_sm = 2000",
     ":6: [gpu] max_threads_per_sm: expected a multiple of the warp size 32, got 2000"},
    {"sector_bytes = 32", "sector_bytes = 24", ":11: [l1] sector_bytes: expected a power of two, got 24"},
    {"line_bytes = 128", "line_bytes = 512",
     ":10: [l1] line_bytes: expected 1, 2, 4 or 8 sectors of l1.sector_bytes (32) per line (the "
     "model keeps a sector mask per line), got 16 sectors"},
    {"sets = 32", "sets = 64",
     ":13: [l1] sets: expected the L1 capacity of every carveout to be a whole number of ways of "
     "sets * l1.line_bytes = 8192 bytes, got 64 sets: the 100 KiB carveout leaves 156 KiB"},
    {"sets = 32", "sets = 8", /* 256 KiB / (8 * 128 B) = 256 ways: one too many */
     ":13: [l1] sets: expected at most 255 ways per set, l1.unified_kib KiB / (sets * "
     "l1.line_bytes) = 256 KiB / (8 * 128) (the model's way numbers are one byte): more sets, "
     "got 256 ways"},
    {"carveouts_kib = 0,8,16,32,64,100,132,164,196,228", "carveouts_kib = 0,8,32,16",
     ":24: [shared] carveouts_kib: expected ascending values, got 16 after 32"},
    {"carveouts_kib = 0,8,16,32,64,100,132,164,196,228", "carveouts_kib = 0,8,256",
     ":24: [shared] carveouts_kib: expected each value below l1.unified_kib (256) so that L1 keeps "
     "some capacity, got 256"},
    {"carveouts_kib = 0,8,16,32,64,100,132,164,196,228", "carveouts_kib = 0",
     ":23: [shared] reserved_per_cta_bytes: expected at most the largest carveout (0 KiB), got "
     "1024"},
    {"bank_mode_bytes = 4", "bank_mode_bytes = 8",
     ":21: [shared] bank_mode_bytes: expected 4 with shared.bank_bytes = 4 (8-byte mode needs "
     "8-byte banks), got 8"},
    {"bank_bytes = 4", "bank_bytes = 6", ":20: [shared] bank_bytes: expected 4 or 8, got 6"},
    {"slices = 96", "slices = 95", ":30: [l2] slices: expected a multiple of l2.partitions (2), got 95"},
    {"sets_per_slice = 256", "sets_per_slice = 200",
     ":31: [l2] sets_per_slice: expected a power of two, got 200"},
    {"ecc = true", "fetch_sectors = 3\necc = true",
     ":34: [l2] fetch_sectors: expected a power of two of at most the sectors of a line (4), got 3"},
    {"ecc = true", "fetch_sectors = 8\necc = true",
     ":34: [l2] fetch_sectors: expected a power of two of at most the sectors of a line (4), got 8"},
    {"ecc = true", "dirty_ways = 21\necc = true", ":34: [l2] dirty_ways: expected at most l2.ways (20), got 21"},
    {"ecc = true", "placement = pages\necc = true", ":34: [l2] placement: expected granule or page, got \"pages\""},
    {"size_bytes = 62914560\npartitions = 2\nslices = 96\nsets_per_slice = 256",
     "size_bytes = 1966080\npartitions = 2\nslices = 96\nsets_per_slice = 8\nplacement = page",
     ":32: [l2] placement: expected l2.sets_per_slice of at least 16 (a granule's lines on distinct sets) "
     "with page, got 8"},
    /* syntax and structure */
    {"[l1]", "[l1", ":9: expected \"]\" closing the section name, got \"[l1\""},
    {"stores = update", "stores update",
     ":16: expected \"key = value\", \"[section]\" or a comment, got \"stores update\""},
    {"[gpu]", "orphan = 1\n[gpu]",
     ":1: orphan: key before any section, expected a section line first: [gpu], [l1], [shared], "
     "[l2], [sim] or [timing]"},
    {"[sim]", "[gpu]\n[sim]", ":35: [gpu]: duplicate section, first on line 1"},
    {"[sim]", "[ sim ]", ":35: [ sim ]: unknown section, expected [gpu], [l1], [shared], [l2], [sim] or [timing]"},
    {"tags_per_cycle = 4", "fetch_sectors = 1",
     ":17: [l1] fetch_sectors: unknown key, expected one of line_bytes, sector_bytes, unified_kib, "
     "sets, ways, set_index, set_masks, global_loads, stores, tags_per_cycle; fetch_sectors is a key "
     "of [l2]"},
    {"ecc = true", "ECC = true",
     ":34: [l2] ECC: unknown key, expected one of line_bytes, sector_bytes, size_bytes, partitions, "
     "slices, sets_per_slice, ways, set_index, placement, dirty_ways, dirty_recent_ways, fetch_sectors, ecc, "
     "gpc_partition; "
     "did you mean ecc?"},
    {"name = NVIDIA H200", "name = " X64 X64 X64 "xxx", /* 7 + 195 characters */
     ":2: expected lines of at most 198 characters, got a longer one"},
    {"[gpu]", "; " X64 X64 X64 "xxxxx\n[gpu]", /* 2 + 197 characters */
     ":1: expected lines of at most 198 characters, got a longer one"},
    {"name = NVIDIA H200", "name = " X64 X64,
     ":2: [gpu] name: expected 1..127 printable ASCII characters other than '#', ';' and '\"', got "
     "\"" X64 X64 "\""},
};

START_TEST(bad_variant_gets_its_message)
{
    cfg_gpu c;
    err_info e;
    char path[32], want[1024];
    ck_assert_int_eq(load_variant(variants[_i].old, variants[_i].repl, &c, &e, path), -1);
    snprintf(want, sizeof want, "%s%s", path, variants[_i].msg);
    ck_assert_str_eq(e.msg, want);
}
END_TEST

START_TEST(control_bytes_and_long_files_are_refused)
{
    char path[32];
    cfg_gpu c;
    err_info e;
    static const char nul[] = "[gpu]\nname = H\0" "200\n";
    write_temp(path, nul, sizeof nul - 1);
    err_clear(&e);
    ck_assert_int_eq(cfg_load(path, &c, &e), -1);
    char want[128];
    snprintf(want, sizeof want,
             "%s:2: expected text (a config is a plain-text INI file), got byte 0x00 at column 9",
             path);
    ck_assert_str_eq(e.msg, want);
    unlink(path);

    /* a stream of comment lines longer than any config */
    size_t n = (1u << 20) + 100;
    char *big = malloc(n);
    ck_assert_ptr_nonnull(big);
    for (size_t i = 0; i < n; i++)
        big[i] = i % 64 == 63 ? '\n' : ';';
    write_temp(path, big, n);
    free(big);
    err_clear(&e);
    ck_assert_int_eq(cfg_load(path, &c, &e), -1);
    snprintf(want, sizeof want,
             "%s:16385: expected a config file of at most 1048576 bytes, got a larger file", path);
    ck_assert_str_eq(e.msg, want);
    unlink(path);
}
END_TEST

/* ---- what is accepted ---- */

START_TEST(defaults_fill_keys_left_out)
{
    static const char *const defaulted[] = {
        "set_index = xor", "global_loads = cache", "stores = update", "tags_per_cycle = 4",
        "banks = 32", "bank_bytes = 4", "bank_mode_bytes = 4", "set_index = xor",
        "cold_caches_per_kernel = true", "cta_placement = trace",
    };
    char *text = malloc(sizeof base_config);
    ck_assert_ptr_nonnull(text);
    strcpy(text, base_config);
    for (size_t i = 0; i < sizeof defaulted / sizeof defaulted[0]; i++) {
        char *t = replace_line(text, defaulted[i], "");
        free(text);
        text = t;
    }
    char path[32];
    cfg_gpu full, sparse;
    write_temp(path, base_config, strlen(base_config));
    load_ok(path, &full);
    unlink(path);
    write_temp(path, text, strlen(text));
    free(text);
    load_ok(path, &sparse);
    unlink(path);
    assert_same_config(&full, &sparse);
    /* and the table says which keys have defaults */
    size_t with_default = 0;
    for (size_t i = 0; i < cfg_key_count(); i++)
        with_default += cfg_key_default(i) != NULL;
    ck_assert_uint_eq(with_default, 43); /* 11 (sim.background_dram_read_sectors among them) + gpu.sm_gpc, shared.carveout_ctas_factor, shared.carveout_min_per_cta_bytes, l2.placement, l2.dirty_ways, l2.dirty_recent_ways, l2.fetch_sectors, l2.gpc_partition, timing.lrc_window_cycles, timing.lrc_far_void_cycles, timing.barrier_cycles_per_warp, timing.smem_wavefront_cycles, timing.cta_fill_millicycles_per_warp, timing.alu_latency_cycles, timing.control_words, timing.s2r_latency_cycles, timing.ldc_latency_cycles, timing.code_line_cycles, timing.code_jump_lines, timing.code_jump_cycles, timing.branch_taken_cycles, timing.const_line_cycles, timing.const_bank_cycles, timing.dram_write_cost_permille, timing.dram_load_permille, timing.dram_load_extra_cycles, timing.l2_write_bytes_per_cycle, timing.l2_fill_wait, timing.l1_fill_wait and timing.first_wave_by_sm */
}
END_TEST

START_TEST(inih_syntax_variants_are_accepted)
{
    cfg_gpu ref, c;
    err_info e;
    char path[32];
    ck_assert_int_eq(load_variant("sm_count = 132", "sm_count = 132", &ref, &e, path), 0);
    /* ';' after whitespace starts a comment; "key: value" is inih syntax too;
     * '#' starts a comment at the start of a line; blank and indented comment lines */
    ck_assert_int_eq(load_variant("sm_count = 132", "sm_count = 132 ; SMs", &c, &e, path), 0);
    assert_same_config(&ref, &c);
    ck_assert_int_eq(load_variant("sm_count = 132", "sm_count: 132", &c, &e, path), 0);
    assert_same_config(&ref, &c);
    ck_assert_int_eq(load_variant("sm_count = 132", "# SMs\n\n   ; count\nsm_count=132", &c, &e, path), 0);
    assert_same_config(&ref, &c);
    ck_assert_int_eq(load_variant("[gpu]", "\xEF\xBB\xBF[gpu]", &c, &e, path), 0);
    assert_same_config(&ref, &c);
    /* the longest line: 198 characters */
    ck_assert_int_eq(load_variant("[gpu]", "; " X64 X64 X64 "xxxx\n[gpu]", &c, &e, path), 0);
    assert_same_config(&ref, &c);

    /* CRLF line ends */
    size_t n = strlen(base_config);
    char *crlf = malloc(2 * n + 1), *q = crlf;
    ck_assert_ptr_nonnull(crlf);
    for (const char *p = base_config; *p; p++) {
        if (*p == '\n')
            *q++ = '\r';
        *q++ = *p;
    }
    write_temp(path, crlf, (size_t)(q - crlf));
    free(crlf);
    load_ok(path, &c);
    unlink(path);
    assert_same_config(&ref, &c);
}
END_TEST

/* ---- cfg_validate on a struct filled by hand ---- */

START_TEST(validate_names_the_key)
{
    cfg_gpu good, c;
    err_info e;
    load_ok("configs/h200.ini", &good);

    c = good;
    c.smem_banks = 16;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[shared] banks: expected 32, got 16");

    c = good;
    c.n_carveouts = 0;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[shared] carveouts_kib: expected 1..16 values, got 0");

    c = good;
    c.l1_set_index = (cfg_set_index)7;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[l1] set_index: expected linear, xor or masks, got enum value 7");

    c = good;
    memset(c.name, 'A', sizeof c.name);
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[gpu] name: expected 1..127 printable ASCII characters other than "
                            "'#', ';' and '\"', got no terminating NUL");

    c = good;
    c.cc_minor = 10;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[gpu] compute_capability: expected 1.0..99.9, got 9.10");

    c = good;
    c.l2_ways = 16;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[l2] size_bytes: expected l2.slices * l2.sets_per_slice * l2.ways * "
                            "l2.line_bytes = 96 * 256 * 16 * 128 = 50331648, got 62914560");

    /* DRAM's load curve: a value per load point, loads ascending */
    c = good;
    c.n_t_dram_load_extra_cycles = 3;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[timing] dram_load_extra_cycles: expected as many values as "
                            "timing.dram_load_permille (4), got 3");

    c = good;
    c.t_dram_load_permille[2] = 251;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[timing] dram_load_permille: expected ascending loads, got 251 after 251");

    /* a cold jump's cost curve: a cost per distance, distances ascending */
    c = good;
    c.n_t_code_jump_cycles = 2;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[timing] code_jump_cycles: expected as many values as "
                            "timing.code_jump_lines (11), got 2");

    c = good;
    c.t_code_jump_lines[3] = 3;
    ck_assert_int_eq(cfg_validate(&c, &e), -1);
    ck_assert_str_eq(e.msg, "[timing] code_jump_lines: expected ascending distances, got 3 after 3");

    c = good;
    c.smem_bank_bytes = 8;
    c.smem_bank_mode_bytes = 8;
    err_clear(&e);
    ck_assert_msg(cfg_validate(&c, &e) == 0, "%s", e.msg); /* Kepler's 8-byte mode */
}
END_TEST

/* ---- the key table and the dump ---- */

START_TEST(key_table_is_complete_and_consistent)
{
    ck_assert_uint_eq(cfg_key_count(), 78); /* 43 + the 35 of the optional [timing] */
    for (size_t i = 0; i < cfg_key_count(); i++) {
        const char *name = cfg_key_name(i);
        const char *dot = strchr(name, '.');
        ck_assert_msg(dot && dot > name && dot[1], "%s is not section.key", name);
        ck_assert_uint_eq(strspn(name, "abcdefghijklmnopqrstuvwxyz0123456789_."), strlen(name));
        ck_assert_msg(cfg_key_help(i)[0], "%s has no help", name);
        ck_assert_msg(cfg_key_type(i)[0], "%s has no type", name);
        char bounds[128];
        cfg_key_bounds(i, bounds, sizeof bounds);
        ck_assert_msg(bounds[0], "%s has no bounds", name);
        ck_assert_ptr_nonnull(cfg_key_unit(i));
        for (size_t j = 0; j < i; j++)
            ck_assert_msg(strcmp(name, cfg_key_name(j)) != 0, "%s twice", name);
    }
}
END_TEST

START_TEST(dump_reloads_to_the_same_config)
{
    for (size_t i = 0; i < N_SHIPPED; i++) {
        cfg_gpu a, b;
        load_ok(shipped[i], &a);
        char path[32];
        strcpy(path, "/tmp/gms-cfg-XXXXXX");
        int fd = mkstemp(path);
        ck_assert_int_ge(fd, 0);
        FILE *f = fdopen(fd, "w");
        ck_assert_ptr_nonnull(f);
        cfg_dump(&a, f, "");
        cfg_dump_timing(&a, f, "");
        fclose(f);
        load_ok(path, &b);
        unlink(path);
        assert_same_config(&a, &b);
    }
}
END_TEST

START_TEST(dump_prefixes_every_line_and_marks_defaults)
{
    cfg_gpu c;
    load_ok("configs/h200.ini", &c);
    char *buf = NULL;
    size_t n = 0;
    FILE *f = open_memstream(&buf, &n);
    ck_assert_ptr_nonnull(f);
    cfg_dump(&c, f, "# ");
    fclose(f);
    size_t lines = 0;
    for (char *p = buf; *p; p = strchr(p, '\n') + 1, lines++)
        ck_assert_msg(strncmp(p, "# ", 2) == 0, "unprefixed line: %.40s", p);
    size_t timing_keys = 0;
    for (size_t i = 0; i < cfg_key_count(); i++)
        timing_keys += cfg_key_is_timing(i);
    /* + one header per section; [timing] is cfg_dump_timing's */
    ck_assert_uint_eq(lines, cfg_key_count() - timing_keys + 5);
    ck_assert_ptr_nonnull(strstr(buf, "# [l1]\n"));
    ck_assert_ptr_nonnull(strstr(buf, "\n# sets = 512\n"));
    ck_assert_ptr_nonnull(strstr(buf, "\n# tags_per_cycle = 4 ; default\n"));
    ck_assert_ptr_nonnull(strstr(buf, "\n# carveouts_kib = 0,8,16,32,64,100,132,164,196,228\n"));
    ck_assert_ptr_nonnull(strstr(buf, "\n# compute_capability = 9.0\n"));
    free(buf);

    char v[64];
    load_ok("configs/k20c.ini", &c);
    for (size_t i = 0; i < cfg_key_count(); i++) {
        cfg_key_value(&c, i, v, sizeof v);
        if (strcmp(cfg_key_name(i), "shared.bank_bytes") == 0)
            ck_assert_str_eq(v, "8");
        if (strcmp(cfg_key_name(i), "l1.global_loads") == 0)
            ck_assert_str_eq(v, "bypass");
    }
}
END_TEST

/* ---- gpumemsim config ---- */

START_TEST(config_check_prints_ok_or_one_line)
{
    char out[4096], errs[4096];
    const char *good[] = {"config", "check", "configs/h200.ini", "configs/k20c.ini", NULL};
    ck_assert_int_eq(run_config(4, good, out, sizeof out, errs, sizeof errs), 0);
    ck_assert_str_eq(out, "configs/h200.ini: ok\nconfigs/k20c.ini: ok\n");
    ck_assert_str_eq(errs, "");

    const char *mixed[] = {"config", "check", "tests/data/configs/bad_bool.ini", "configs/a100.ini", NULL};
    ck_assert_int_eq(run_config(4, mixed, out, sizeof out, errs, sizeof errs), 2);
    ck_assert_str_eq(out, "configs/a100.ini: ok\n");
    ck_assert_str_eq(errs, "gpumemsim: tests/data/configs/bad_bool.ini:35: [l2] ecc: expected true "
                           "or false, got \"yes\"\n");

    const char *none[] = {"config", "check", NULL};
    ck_assert_int_eq(run_config(2, none, out, sizeof out, errs, sizeof errs), 2);
    ck_assert_str_eq(out, "");
    ck_assert_str_eq(errs, "gpumemsim: config: check needs at least one FILE (see gpumemsim config --help)\n");

    const char *bogus[] = {"config", "frobnicate", NULL};
    ck_assert_int_eq(run_config(2, bogus, out, sizeof out, errs, sizeof errs), 2);
    ck_assert(strncmp(errs, "gpumemsim: config: unknown subcommand \"frobnicate\"", 50) == 0);
}
END_TEST

START_TEST(config_dump_prints_a_loadable_config)
{
    char out[8192], errs[1024];
    const char *argv[] = {"config", "dump", "configs/rtx5090.ini", NULL};
    ck_assert_int_eq(run_config(3, argv, out, sizeof out, errs, sizeof errs), 0);
    ck_assert_str_eq(errs, "");
    ck_assert(strncmp(out, "; effective config of configs/rtx5090.ini", 41) == 0);
    char path[32];
    write_temp(path, out, strlen(out));
    cfg_gpu a, b;
    load_ok("configs/rtx5090.ini", &a);
    load_ok(path, &b);
    unlink(path);
    assert_same_config(&a, &b);
}
END_TEST

#define DOC_BEGIN "<!-- BEGIN config doc: generated by `gpumemsim config doc`; do not edit -->\n"
#define DOC_END "<!-- END config doc -->\n"

START_TEST(docs_config_md_holds_the_current_key_table)
{
    static char out[32768];
    char errs[1024];
    const char *argv[] = {"config", "doc", NULL};
    ck_assert_int_eq(run_config(2, argv, out, sizeof out, errs, sizeof errs), 0);
    ck_assert_str_eq(errs, "");
    for (size_t i = 0; i < cfg_key_count(); i++) {
        char cell[96];
        snprintf(cell, sizeof cell, "| `%s` |", cfg_key_name(i));
        ck_assert_msg(strstr(out, cell), "%s missing from config doc", cfg_key_name(i));
    }
    char *md = read_file("docs/config.md");
    char *begin = strstr(md, DOC_BEGIN);
    char *end = begin ? strstr(begin, DOC_END) : NULL;
    ck_assert_msg(begin && end, "docs/config.md lacks the config doc marker lines");
    begin += strlen(DOC_BEGIN);
    *end = '\0';
    if (strcmp(begin, out) != 0) {
        FILE *f = fopen("build/config-doc.md", "w");
        if (f) {
            fputs(out, f);
            fclose(f);
        }
    }
    ck_assert_msg(strcmp(begin, out) == 0,
                  "docs/config.md is out of date: put build/config-doc.md (the output of "
                  "`gpumemsim config doc`) between its marker lines");
    free(md);
}
END_TEST

Suite *cfg_suite(void)
{
    Suite *s = suite_create("cfg");
    TCase *tc = tcase_create("shipped");
    tcase_add_test(tc, shipped_configs_load_and_validate);
    tcase_add_test(tc, h200_has_the_measured_and_documented_values);
    tcase_add_test(tc, other_gpus_have_their_geometry);
    tcase_add_test(tc, k20c_eight_byte_bank_mode_is_one_key);
    suite_add_tcase(s, tc);

    tc = tcase_create("errors");
    tcase_add_loop_test(tc, bad_fixture_gets_its_message, 0,
                        (int)(sizeof fixtures / sizeof fixtures[0]));
    tcase_add_loop_test(tc, bad_variant_gets_its_message, 0,
                        (int)(sizeof variants / sizeof variants[0]));
    tcase_add_test(tc, control_bytes_and_long_files_are_refused);
    tcase_add_test(tc, validate_names_the_key);
    suite_add_tcase(s, tc);

    tc = tcase_create("accepted");
    tcase_add_test(tc, defaults_fill_keys_left_out);
    tcase_add_test(tc, inih_syntax_variants_are_accepted);
    suite_add_tcase(s, tc);

    tc = tcase_create("table_and_dump");
    tcase_add_test(tc, key_table_is_complete_and_consistent);
    tcase_add_test(tc, dump_reloads_to_the_same_config);
    tcase_add_test(tc, dump_prefixes_every_line_and_marks_defaults);
    suite_add_tcase(s, tc);

    tc = tcase_create("command");
    tcase_add_test(tc, config_check_prints_ok_or_one_line);
    tcase_add_test(tc, config_dump_prints_a_loadable_config);
    tcase_add_test(tc, docs_config_md_holds_the_current_key_table);
    suite_add_tcase(s, tc);
    return s;
}
