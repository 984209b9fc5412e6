/* fuzz_cfg.c - libFuzzer harness for the config loader (cfg_load), then what
 * a loaded config must allow: cfg_validate agrees, the effective-config dump
 * loads back to the same values, and a model of it can be built and can run
 * a small kernel of every kind of access (when its tag arrays are small
 * enough to build thousands of times a second; the fuzzer finds such configs
 * from the small seed, and the bounds themselves are measured in
 * docs/robustness.md). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Tag-array lines above which the model is not built (H200: ~760,000). */
#define MODEL_MAX_LINES (1u << 17)

static void check_message(const err_info *err, const char *path)
{
    size_t n = strlen(path);
    fuzz_check(strncmp(err->msg, path, n) == 0 && err->msg[n] == ':',
               "message does not start with \"%s:\": %s", path, err->msg);
    fuzz_check(strchr(err->msg, '\n') == NULL, "message is not one line: %s", err->msg);
}

static void check_dump_loads_back(const cfg_gpu *c)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    fuzz_check(f != NULL, "open_memstream");
    cfg_dump(c, f, "");
    cfg_dump_timing(c, f, ""); /* cfg_dump leaves the optional [timing] out */
    fclose(f);
    cfg_gpu d;
    err_info err;
    err_clear(&err);
    const char *path = fuzz_memfile(1, buf, len);
    fuzz_check(cfg_load(path, &d, &err) == 0, "the effective config does not load back: %s",
               err.msg);
    for (size_t i = 0; i < cfg_key_count(); i++) {
        char a[512], b[512];
        cfg_key_value(c, i, a, sizeof a);
        cfg_key_value(&d, i, b, sizeof b);
        fuzz_check(strcmp(a, b) == 0, "%s: %s became %s", cfg_key_name(i), a, b);
    }
    free(buf);
}

/* A record of the small kernel below; lanes l access base + stride * l. */
static void mem(gpu *g, const trace_kernel *k, uint32_t cta, trace_kind kind,
                trace_space space, uint8_t size, uint8_t cache_op, uint8_t flags,
                uint32_t mask, uint64_t base, uint64_t stride)
{
    trace_mem m = {.cta = cta, .warp = 0, .sm = (int32_t)cta, .pc = 16u * (uint32_t)kind +
                   0x100u * (uint32_t)space, .kind = (uint8_t)kind, .space = (uint8_t)space,
                   .size_bytes = size, .cache_op = cache_op, .flags = flags, .active_mask = mask};
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++)
        m.addr[l] = (mask >> l & 1u) ? base + stride * l : 0;
    err_info err;
    err_clear(&err);
    fuzz_check(trace_mem_validate(k, &m, &err) == 0, "harness record: %s", err.msg);
    gpu_mem(g, &m);
}

/* Two kernels (different shared memory, so different carveouts) of global,
 * shared and local loads, stores and atomics, on a model of c. */
static void run_model(const cfg_gpu *c)
{
    gpu *g = gpu_create(c);
    for (uint32_t smem = 0; smem <= 4096; smem += 4096) {
        trace_kernel k;
        trace_kernel_init(&k);
        k.name = k.demangled = "fuzz_kernel";
        k.grid[0] = 3;
        k.grid[1] = k.grid[2] = 1;
        k.block[0] = 32;
        k.block[1] = k.block[2] = 1;
        k.regs_per_thread = 16;
        k.smem_static_bytes = smem;
        err_info err;
        err_clear(&err);
        if (gpu_kernel_begin(g, &k, c->sm_count, &err) != 0) {
            fuzz_check(err.msg[0] != '\0', "gpu_kernel_begin refused without a message");
            continue;
        }
        uint64_t gbase = 0x7f0000000000ull;
        for (uint32_t cta = 0; cta < 3; cta++) {
            for (uint8_t size = 1; size <= 16; size *= 2) {
                mem(g, &k, cta, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, size, TRACE_CACHE_DEFAULT, 0,
                    TRACE_FULL_MASK, gbase, size);
                mem(g, &k, cta, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, size, TRACE_CACHE_CS, 0,
                    0x0f0f0f0fu, gbase + 4096, 4096);
                mem(g, &k, cta, TRACE_KIND_ST, TRACE_SPACE_GLOBAL, size, TRACE_CACHE_DEFAULT, 0,
                    TRACE_FULL_MASK, gbase + 64, size);
                mem(g, &k, cta, TRACE_KIND_LD, TRACE_SPACE_SHARED, size, TRACE_CACHE_DEFAULT, 0,
                    TRACE_FULL_MASK, 0, size * 17u);
                mem(g, &k, cta, TRACE_KIND_ST, TRACE_SPACE_SHARED, size, TRACE_CACHE_DEFAULT, 0,
                    0xffff0000u, 0, 128);
                mem(g, &k, cta, TRACE_KIND_LD, TRACE_SPACE_LOCAL, size, TRACE_CACHE_DEFAULT, 0,
                    TRACE_FULL_MASK, 0, 0);
                mem(g, &k, cta, TRACE_KIND_ST, TRACE_SPACE_LOCAL, size, TRACE_CACHE_DEFAULT, 0,
                    0x1u, (uint64_t)size << 20, 0);
            }
            mem(g, &k, cta, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 16, TRACE_CACHE_CG, TRACE_MEM_LDGSTS,
                TRACE_FULL_MASK, gbase + 8192, 16);
            mem(g, &k, cta, TRACE_KIND_ST, TRACE_SPACE_SHARED, 16, TRACE_CACHE_DEFAULT,
                TRACE_MEM_LDGSTS, TRACE_FULL_MASK, 0, 16);
            mem(g, &k, cta, TRACE_KIND_LD, TRACE_SPACE_GLOBAL, 4, TRACE_CACHE_NC,
                TRACE_MEM_GENERIC, TRACE_FULL_MASK, gbase, 0);
            mem(g, &k, cta, TRACE_KIND_ATOM, TRACE_SPACE_GLOBAL, 4, TRACE_CACHE_DEFAULT, 0,
                TRACE_FULL_MASK, gbase + 256, 0);
            mem(g, &k, cta, TRACE_KIND_RED, TRACE_SPACE_GLOBAL, 8, TRACE_CACHE_DEFAULT, 0,
                TRACE_FULL_MASK, gbase + 512, 8);
            mem(g, &k, cta, TRACE_KIND_ATOM, TRACE_SPACE_SHARED, 4, TRACE_CACHE_DEFAULT, 0,
                TRACE_FULL_MASK, 0, 4);
            gpu_barrier(g, &(trace_barrier){.cta = cta, .warp = 0, .sm = (int32_t)cta, .pc = 8});
        }
        stats s;
        gpu_kernel_end(g, &s);
        uint32_t n;
        gpu_pc_breakdown(g, &n);
        fuzz_check(n > 0, "no PCs in the breakdown");
    }
    gpu_destroy(g);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *path = fuzz_memfile(0, data, size);
    cfg_gpu c;
    err_info err;
    err_clear(&err);
    if (cfg_load(path, &c, &err) != 0) {
        check_message(&err, path);
        return 0;
    }
    fuzz_check(cfg_validate(&c, &err) == 0, "cfg_load accepted what cfg_validate refuses: %s",
               err.msg);
    check_dump_loads_back(&c);
    uint64_t lines = (uint64_t)c.sm_count * c.l1_unified_kib * 1024u / c.l1_line_bytes +
                     c.l2_size_bytes / c.l2_line_bytes;
    if (lines <= MODEL_MAX_LINES)
        run_model(&c);
    return 0;
}
