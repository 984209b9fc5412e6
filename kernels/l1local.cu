/* l1local.cu - where local memory lies, as L1's sets see it (docs/findings.md
 * §3f). L1 indexes its 512 sets of 4 ways by a XOR of the virtual line
 * number's bits (measured with global lines, kernels/l1sets.cu), and local
 * memory is cached in the same sets; so the set a local word lands in says
 * where the driver put it. One thread (lane 0 of warp W of a CTA of 1,024
 * threads) stores local word K of a local array, loads four (GMS_SETLINES:
 * up to 16) global lines of set S, and loads its word again, timed: the word went (a miss) exactly
 * when it shares set S with the four. One launch a test, each from an empty
 * L1; every S of 0..511 for each (W, K).
 *
 * The four global lines of "set line" S (0..511): lines S, S ^ 625, S ^ 1051
 * and S ^ 1642 of a buffer aligned to 2 MiB, all in set S ^ h(buffer)
 * (findings §3f: the index is the line's low 9 bits XORed with masks of the
 * higher ones, and those three differences flip none). So two words' set
 * lines differ as their sets do, h(buffer) aside.
 *
 * usage: l1local W,W,... K,K,...   prints "# buffer ADDRESS" and, per warp W
 *        and word K, "warp W word K sets S..." (the set lines whose four
 *        lines evicted the word: one, where the index is as measured) */
#include <string>
#include <vector>
#include "common.cuh"
#define LINE_WORDS 32
#define HIT_CYCLES 150
#define FRAME_WORDS 64
static const char *USAGE = "W,W,... K,K,...";

__device__ static inline int load_ca(const int *p)
{
    int v;
    asm volatile("ld.global.ca.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ static inline int load_cg(const int *p)
{
    int v;
    asm volatile("ld.global.cg.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
/* mode 0: the target is local word k; mode 1: global line k (a check of the
 * method). zero is a 0 the compiler cannot see. */
__global__ void localSet(const int *buf, const int *lines, int warp, int k, int mode, int nlines, int zero,
                         long long *out)
{
    if (threadIdx.x != (unsigned)warp * 32u)
        return;
    __shared__ int sink;
    int frame[FRAME_WORDS];
    int dep = 0;
    if (mode == 0) {
        /* the global loads wait for the word (read back through an index the
         * compiler cannot prove equal), so that the store comes first in L1 */
        frame[k] = 1 + zero;
        dep += frame[k + zero] - 1;
    } else {
        dep += load_ca(buf + (size_t)k * LINE_WORDS);
    }
    for (int i = 0; i < nlines; ++i) dep += load_ca(buf + (size_t)load_cg(lines + i) * LINE_WORDS + dep);
    int v;
    long long t0;
    if (mode == 0) {
        int idx = k + dep + zero; /* the same word: dep is 0 */
        t0 = clock_now();
        v = frame[idx];
    } else {
        const int *p = buf + (size_t)k * LINE_WORDS + dep;
        t0 = clock_now();
        v = load_ca(p);
    }
    *(volatile int *)&sink = v;
    long long t1 = clock_now();
    out[0] = t1 - t0 + (v == 12345 ? sink : 0);
}

static std::vector<int> parse_list(const char *s, const char *what, int hi)
{
    std::vector<int> v;
    std::string str(s);
    size_t p = 0;
    while (p <= str.size()) {
        size_t q = str.find(',', p);
        if (q == std::string::npos) q = str.size();
        v.push_back((int)parse_long(str.substr(p, q - p).c_str(), what, 0, hi, USAGE));
        p = q + 1;
    }
    return v;
}

static int *g_buf, *g_lines;
static long long *g_out;

static int g_nlines = 4; /* GMS_SETLINES: lines of the set loaded, 4 (the ways) to 16 */

static bool evicted(int warp, int k, int mode, int set_line)
{
    /* the sums of 625, 1051, 1642 and 4425: differences that flip no set bit */
    const int basis[4] = {625, 1051, 1642, 4425};
    int lines[16];
    for (int i = 0; i < 16; ++i) {
        lines[i] = set_line;
        for (int b = 0; b < 4; ++b)
            if (i >> b & 1) lines[i] ^= basis[b];
    }
    CHECK(cudaMemcpy(g_lines, lines, sizeof lines, cudaMemcpyHostToDevice));
    localSet<<<1, 1024>>>(g_buf, g_lines, warp, k, mode, g_nlines, 0, g_out);
    CHECK_LAUNCH();
    long long cycles;
    CHECK(cudaMemcpy(&cycles, g_out, sizeof cycles, cudaMemcpyDeviceToHost));
    return cycles >= HIT_CYCLES;
}

int main(int argc, char **argv)
{
    g_prog = "l1local";
    if (argc != 3) usage_fail(USAGE, "expected 2 arguments");
    std::vector<int> warps = parse_list(argv[1], "W", 31), words = parse_list(argv[2], "K", FRAME_WORDS - 1);
    const char *n_env = getenv("GMS_SETLINES");
    if (n_env) g_nlines = (int)parse_long(n_env, "GMS_SETLINES", 1, 16, USAGE);
    setup_device();
    /* 4 MiB, of which the 2 MiB-aligned half is used: its line L < 2048 has set (L & 511) ^ h */
    int *raw = dev_alloc<int>((size_t)4 << 20 >> 2);
    g_buf = (int *)(((uintptr_t)raw + (2u << 20) - 1u) & ~(uintptr_t)((2u << 20) - 1u));
    g_lines = dev_alloc<int>(16);
    g_out = dev_alloc<long long>(1);
    printf("# buffer %p, %d lines of each set\n", (void *)g_buf, g_nlines);
    /* a check of the method: global line 5000 (bits 3, 7, 8, 9, 12) is in set
     * line 392 ^ 0x071 ^ 0x149 = 176 */
    printf("check: global line 5000 evicted by set lines");
    for (int s = 0; s < 512; ++s)
        if (evicted(0, 5000, 1, s)) printf(" %d", s);
    printf(" (expected 176)\n");
    for (int w : warps)
        for (int k : words) {
            printf("warp %d word %d sets", w, k);
            for (int s = 0; s < 512; ++s)
                if (evicted(w, k, 0, s)) printf(" %d", s);
            printf("\n");
            fflush(stdout);
        }
    fprintf(stderr, "l1local: done\n");
    return 0;
}
