/* vectimed.cu - when a one-wave stream's warps get their data (docs/findings.md
 * §25). vecAdd float4 (c4[i] = a4[i] + b4[i], CTAs of 256 threads) with each
 * warp's lane 0 stamping %globaltimer (ns, one clock for the GPU) and clock64
 * (its SM's) at its start, when both loads' data are in (after the add), and
 * after its store has issued, with %smid. The model runs vecAdd's one-wave
 * burst ~9% short and its SMs ~1,700 cycles less active (§24b, §25): do the
 * H200's warps get their data later from the start, or does the burst end
 * later?
 *
 * usage: vectimed OUTFILE [N [SMEM_KIB [WARM [FLUSH]]]]
 *   N        float4s per vector (default 2^18: 1,024 CTAs, one wave of 8 an SM)
 *   SMEM_KIB unused dynamic shared memory per CTA (vecAdd's: 50 gives two waves)
 *   WARM     1: launch once before the stamped launch (translations warm)
 *   FLUSH    MiB read twice just before the stamped launch (0: none), so that
 *            L2 holds none of a and b, as ncu's cache control leaves it
 * OUTFILE gets "cta sm warp g0 g1 g2 c0 c1 c2" per warp (g: ns after the grid's
 * first start); stderr gets ventiles of the start, data-in and store times,
 * each SM's active span (first start to last store, its clock) and each
 * warp's wait (start to data in). Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define BLOCK 256
#define STAMPS 3

static const char *USAGE = "OUTFILE [N [SMEM_KIB [WARM [FLUSH]]]]";

__global__ void addFloat4Timed(const float4 *a, const float4 *b, float4 *c, int n, unsigned long long *g,
                               long long *ck, unsigned *smid)
{
    unsigned long long g0 = globaltimer();
    long long c0 = clock_now();
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    float4 r = make_float4(0, 0, 0, 0);
    if (i < n) {
        float4 x = a[i], y = b[i];
        r = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
    /* the add needs both loads' data: the stamp waits for it (its operands
     * are the sums, so the compiler cannot move it before them) */
    unsigned long long g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1) : "f"(r.x), "f"(r.w) : "memory");
    long long c1 = clock_now();
    if (i < n) c[i] = r;
    unsigned long long g2 = globaltimer();
    long long c2 = clock_now();
    if (threadIdx.x % 32 == 0)
        store_warp_stamps((size_t)blockIdx.x * (BLOCK / 32) + threadIdx.x / 32, g0, g1, g2, c0, c1, c2, g, ck, smid);
}

int main(int argc, char **argv)
{
    g_prog = "vectimed";
    if (argc < 2 || argc > 6) usage_fail(USAGE, "expected 1 to 5 arguments, got %d", argc - 1);
    FILE *out = open_output(argv[1]);
    int n = argc > 2 ? (int)parse_long(argv[2], "N", 1, 1 << 25, USAGE) : 1 << 18;
    int smem = argc > 3 ? (int)parse_long(argv[3], "SMEM_KIB", 0, 200, USAGE) * 1024 : 0;
    bool warm = argc > 4 && parse_long(argv[4], "WARM", 0, 1, USAGE) == 1;
    size_t flush_mib = argc > 5 ? (size_t)parse_long(argv[5], "FLUSH", 0, 4096, USAGE) : 0;
    setup_device();
    if (smem > 48 * 1024)
        CHECK(cudaFuncSetAttribute(addFloat4Timed, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));

    size_t floats = (size_t)n * 4, bytes = floats * sizeof(float);
    int blocks = (n + BLOCK - 1) / BLOCK;
    size_t warps = (size_t)blocks * (BLOCK / 32);
    std::vector<float> ha(floats), hb(floats), hc(floats), want(floats);
    for (size_t i = 0; i < floats; ++i) {
        ha[i] = small_value(i);
        hb[i] = small_value(i + 17);
        want[i] = ha[i] + hb[i];
    }
    float *a = dev_alloc<float>(floats), *b = dev_alloc<float>(floats), *c = dev_alloc<float>(floats);
    unsigned long long *dg = dev_alloc<unsigned long long>(warps * STAMPS);
    long long *dc = dev_alloc<long long>(warps * STAMPS);
    unsigned *dsm = dev_alloc<unsigned>(warps);
    CHECK(cudaMemcpy(a, ha.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb.data(), bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(c, 0, bytes));
    if (warm) {
        addFloat4Timed<<<blocks, BLOCK, smem>>>((const float4 *)a, (const float4 *)b, (float4 *)c, n, dg, dc, dsm);
        CHECK_LAUNCH();
    }
    if (flush_mib) flush_l2(flush_mib);
    addFloat4Timed<<<blocks, BLOCK, smem>>>((const float4 *)a, (const float4 *)b, (float4 *)c, n, dg, dc, dsm);
    CHECK_LAUNCH();
    std::vector<unsigned long long> g = download(dg, warps * STAMPS);
    std::vector<long long> ck = download(dc, warps * STAMPS);
    std::vector<unsigned> sm = download(dsm, warps);
    CHECK(cudaMemcpy(hc.data(), c, bytes, cudaMemcpyDeviceToHost));
    size_t bad = count_mismatches("c", hc.data(), want.data(), floats, 0.0f);

    unsigned long long g_first = ~0ull;
    for (size_t w = 0; w < warps; ++w) g_first = std::min(g_first, g[w * STAMPS]);
    fprintf(out, "cta sm warp g0 g1 g2 c0 c1 c2\n");
    std::vector<long long> start, in, stored, wait;
    std::vector<long long> first(1024, -1), last(1024, -1);
    for (size_t w = 0; w < warps; ++w) {
        const unsigned long long *gt = &g[w * STAMPS];
        const long long *ct = &ck[w * STAMPS];
        fprintf(out, "%zu %u %zu %llu %llu %llu %lld %lld %lld\n", w / (BLOCK / 32), sm[w], w % (BLOCK / 32),
                gt[0] - g_first, gt[1] - g_first, gt[2] - g_first, ct[0], ct[1], ct[2]);
        start.push_back((long long)(gt[0] - g_first));
        in.push_back((long long)(gt[1] - g_first));
        stored.push_back((long long)(gt[2] - g_first));
        wait.push_back(ct[1] - ct[0]);
        unsigned s = sm[w] & 1023u;
        if (first[s] < 0 || ct[0] < first[s]) first[s] = ct[0];
        if (ct[2] > last[s]) last[s] = ct[2];
    }
    print_ventiles("start ns", start);
    print_ventiles("data in ns", in);
    print_ventiles("stored ns", stored);
    print_ventiles("warp wait cycles", wait);
    std::vector<long long> active;
    for (int s = 0; s < 1024; ++s)
        if (first[s] >= 0) active.push_back(last[s] - first[s]);
    print_ventiles("SM active cycles", active);
    fclose(out);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    CHECK(cudaFree(dg));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dsm));
    char what[80];
    snprintf(what, sizeof what, "addFloat4Timed<<<%d, %d>>> n %d smem %d", blocks, BLOCK, n, smem);
    return finish(what, bad);
}
