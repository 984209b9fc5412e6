/* fuzz_accelsim_list.c - libFuzzer harness for the Accel-Sim import's
 * kernel list (model/trace_accelsim_list.c): the input is a kernelslist.g,
 * written into a private directory (on /dev/shm when there is one) that also
 * holds the kernel files it may name:
 *   kernel-1.traceg     a valid kernel (2 CTAs, a load, a barrier, a store)
 *   kernel-2.traceg.xz  another valid kernel, xz-compressed here at start-up
 *   kernel-3.traceg     a kernel file with a bad header
 *   kernel-4.traceg.xz  plain text under an .xz name
 *   kernel-5.traceg     a directory
 * so that list order, repeated kernels, the .xz path, and errors from the
 * kernel files after a good list are all reached. A refused input must give
 * one line naming the list or one of the kernel files; an accepted one a
 * trace that the reader accepts and the H200 model replays (fuzz_trace),
 * with the summary's kernels and memcpy lines as the list says. */
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "fuzz_common.h"
#include "trace_accelsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static const char kernel_1[] =
    "-kernel name = k1\n-kernel id = 1\n-grid dim = (2,1,1)\n-block dim = (64,1,1)\n"
    "-shmem = 0\n-nregs = 16\n-binary version = 90\n-cuda stream id = 0\n"
    "-shmem base_addr = 0x00007f59dd000000\n-local mem base_addr = 0x00007f59db000000\n"
    "-nvbit version = 1.7.6\n-accelsim tracer version = 5\n-enable lineinfo = 0\n\n"
    "#traces format = [line_num] PC mask dest_num [reg_dests] opcode src_num [reg_srcs] "
    "mem_width [adrrescompress?] [mem_addresses] immediate\n\n"
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 3\n"
    "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f0000001000 4 0\n"
    "0020 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0\n"
    "0030 ffffffff 0 STG.E 2 R4 R2 4 1 0x7f0000002000 4 0\n"
    "warp = 1\ninsts = 2\n"
    "0010 ffffffff 1 R2 LDG.E 1 R4 4 1 0x7f0000001080 4 0\n"
    "0020 ffffffff 0 BAR.SYNC.DEFER_BLOCKING 0 0 0\n#END_TB\n"
    "#BEGIN_TB\nthread block = 1,0,0\nwarp = 1\ninsts = 1\n"
    "0030 0000ffff 0 STG.E 2 R4 R2 4 2 0x7f0000002080 4 4 4 4 4 4 4 4 4 4 4 4 4 4 4 0\n"
    "#END_TB\n";

static const char kernel_2[] =
    "-kernel name = k2\n-kernel id = 2\n-grid dim = (1,1,1)\n-block dim = (32,1,1)\n"
    "-shmem = 256\n-nregs = 8\n-accelsim tracer version = 4\n\n#traces format\n"
    "#BEGIN_TB\nthread block = 0,0,0\nwarp = 0\ninsts = 2\n"
    "0010 ffffffff 0 STS 2 R2 R3 4 1 0x0 4\n0020 ffffffff 0 EXIT 0 0\n#END_TB\n";

static const char kernel_3[] = "-kernel name = k3\n-kernel colour = blue\n";

static char dir[64];

static void put(const char *name, const void *bytes, size_t n)
{
    char p[128];
    snprintf(p, sizeof p, "%s/%s", dir, name);
    FILE *f = fopen(p, "wb");
    fuzz_check(f && fwrite(bytes, 1, n, f) == n && fclose(f) == 0, "cannot write %s", p);
}

static void cleanup(void)
{
    static const char *const names[] = {"kernel-1.traceg", "kernel-2.traceg.xz", "kernel-3.traceg",
                                        "kernel-4.traceg.xz", "kernelslist.g"};
    char p[128];
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
        snprintf(p, sizeof p, "%s/%s", dir, names[i]);
        unlink(p);
    }
    snprintf(p, sizeof p, "%s/kernel-5.traceg", dir);
    rmdir(p);
    rmdir(dir);
}

static void setup(void)
{
    struct stat st;
    snprintf(dir, sizeof dir, "%s/gms-fuzz-accelsim-list-XXXXXX",
             stat("/dev/shm", &st) == 0 && access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp");
    fuzz_check(mkdtemp(dir) != NULL, "mkdtemp %s", dir);
    put("kernel-1.traceg", kernel_1, sizeof kernel_1 - 1);
    uint8_t xz[4096];
    size_t xz_n = 0;
    fuzz_check(lzma_easy_buffer_encode(0, LZMA_CHECK_CRC64, NULL, (const uint8_t *)kernel_2,
                                       sizeof kernel_2 - 1, xz, &xz_n, sizeof xz) == LZMA_OK,
               "xz encoding failed");
    put("kernel-2.traceg.xz", xz, xz_n);
    put("kernel-3.traceg", kernel_3, sizeof kernel_3 - 1);
    put("kernel-4.traceg.xz", kernel_2, sizeof kernel_2 - 1);
    char p[128];
    snprintf(p, sizeof p, "%s/kernel-5.traceg", dir);
    fuzz_check(mkdir(p, 0700) == 0, "mkdir %s", p);
    atexit(cleanup);
}

/* Lines (as the list reader trims them) that start with `prefix`. */
static uint32_t count_lines(const uint8_t *data, size_t size, const char *prefix)
{
    uint32_t n = 0;
    size_t plen = strlen(prefix);
    for (size_t i = 0; i < size;) {
        size_t e = i;
        while (e < size && data[e] != '\n')
            e++;
        size_t s = i;
        while (s < e && (data[s] == ' ' || data[s] == '\t'))
            s++;
        n += e - s >= plen && memcmp(data + s, prefix, plen) == 0;
        i = e + 1;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (!dir[0])
        setup();
    put("kernelslist.g", data, size);
    char list[128];
    snprintf(list, sizeof list, "%s/kernelslist.g", dir);
    const char *out = fuzz_memfile(1, "", 0);
    accelsim_options opt = {.input = ACCELSIM_INPUT_LIST, .sm_count = 1u + (uint32_t)(size % 4u),
                            .tmp_dir = dir, .format = TRACE_FORMAT_BINARY, .zstd_level = 1};
    err_info err;
    err_clear(&err);
    accelsim_summary sum;
    if (trace_accelsim_import(list, out, &opt, &sum, &err) < 0) {
        fuzz_check(strncmp(err.msg, dir, strlen(dir)) == 0 && err.msg[strlen(dir)] == '/' &&
                       !strchr(err.msg, '\n'),
                   "message '%s' is not one line naming a file in %s", err.msg, dir);
        return 0;
    }
    fuzz_check(sum.kernels == count_lines(data, size, "kernel") && sum.kernels >= 1,
               "%u kernels imported from a list of %u kernel lines", sum.kernels,
               count_lines(data, size, "kernel"));
    fuzz_check(sum.memcpy_count == count_lines(data, size, "Memcpy"),
               "%u memcpy lines counted of %u", sum.memcpy_count, count_lines(data, size, "Memcpy"));
    fuzz_check(fuzz_trace(out, fuzz_h200_gpu(), TRACE_FORMAT_COUNT) == 0,
               "the imported trace of %s was refused", list);
    return 0;
}
