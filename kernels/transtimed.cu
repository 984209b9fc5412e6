/* transtimed.cu - when each warp of a one-wave transpose gets its data, and
 * on which SM (docs/findings.md §2f). PyTorch's transpose copy (torch_transpose
 * in the suite: out = in.t().contiguous() of a 1,024 x 512 float matrix,
 * elementwise_kernel<128, 2>: 2,048 CTAs of 128 threads, each thread two
 * elements 128 apart, reading a column of in, 32 lines of one sector a warp)
 * with each warp's lane 0 stamping %globaltimer (ns, one clock for the GPU)
 * and clock64 (its SM's) at its start, after its two loads (g1, c1: their
 * issue; ptxas drops the sum the stamp names and reads the timer right after
 * the loads), and after its two stores, which wait for both loads' data (g2,
 * c2: when the data is in), with %smid. The H200's L2 request coalescer
 * merges ~9% of this kernel's read sectors where the model merges 40%: a
 * sector's eight readers are warps of CTAs 4 apart, and whether they meet
 * in flight depends on when their SMs send them.
 *
 * usage: transtimed OUTFILE [FLUSH]
 *   FLUSH    MiB read twice just before the stamped launch (0: none), so that
 *            L2 holds none of the matrix, as ncu's cache control leaves it
 * OUTFILE gets "cta sm warp g0 g1 g2 c0 c1 c2" per warp (g: ns after the grid's
 * first start); stderr gets ventiles of the three (the 2026-11-29 runs
 * labelled g1 "data in" and g2 "stored"; g2 is when the data is in).
 * Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define ROWS 1024
#define COLS 512
#define BLOCK 128
#define PER_THREAD 2
#define STAMPS 3

static const char *USAGE = "OUTFILE [FLUSH]";

/* out[i] = in[i % ROWS][i / ROWS] for i = CTA x 256 + thread and + 128 */
__global__ void transposeTimed(const float *in, float *out, unsigned long long *g, long long *ck, unsigned *smid)
{
    unsigned long long g0 = globaltimer();
    long long c0 = clock_now();
    int i0 = blockIdx.x * (BLOCK * PER_THREAD) + threadIdx.x, i1 = i0 + BLOCK;
    float a = in[(size_t)(i0 % ROWS) * COLS + i0 / ROWS];
    float b = in[(size_t)(i1 % ROWS) * COLS + i1 / ROWS];
    float s = a + b;
    /* meant to wait for both loads' data; ptxas reads the timer right after
     * the loads anyway (the operand is not used), so g1 is their issue */
    unsigned long long g1;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1) : "f"(s) : "memory");
    long long c1 = clock_now();
    out[i0] = a;
    out[i1] = b;
    unsigned long long g2 = globaltimer();
    long long c2 = clock_now();
    if (threadIdx.x % 32 == 0)
        store_warp_stamps((size_t)blockIdx.x * (BLOCK / 32) + threadIdx.x / 32, g0, g1, g2, c0, c1, c2, g, ck, smid);
}

int main(int argc, char **argv)
{
    g_prog = "transtimed";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments, got %d", argc - 1);
    FILE *out = open_output(argv[1]);
    size_t flush_mib = argc > 2 ? (size_t)parse_long(argv[2], "FLUSH", 0, 4096, USAGE) : 0;
    setup_device();

    size_t n = (size_t)ROWS * COLS;
    int blocks = (int)(n / (BLOCK * PER_THREAD));
    size_t warps = (size_t)blocks * (BLOCK / 32);
    std::vector<float> hin(n), hout(n), want(n);
    for (size_t i = 0; i < n; ++i) hin[i] = small_value(i);
    for (size_t i = 0; i < n; ++i) want[i] = hin[(i % ROWS) * COLS + i / ROWS];
    float *din = dev_alloc<float>(n), *dout = dev_alloc<float>(n);
    unsigned long long *dg = dev_alloc<unsigned long long>(warps * STAMPS);
    long long *dc = dev_alloc<long long>(warps * STAMPS);
    unsigned *dsm = dev_alloc<unsigned>(warps);
    CHECK(cudaMemcpy(din, hin.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, n * sizeof(float)));
    if (flush_mib) flush_l2(flush_mib);
    transposeTimed<<<blocks, BLOCK>>>(din, dout, dg, dc, dsm);
    CHECK_LAUNCH();
    std::vector<unsigned long long> g = download(dg, warps * STAMPS);
    std::vector<long long> ck = download(dc, warps * STAMPS);
    std::vector<unsigned> sm = download(dsm, warps);
    CHECK(cudaMemcpy(hout.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = count_mismatches("out", hout.data(), want.data(), n, 0.0f);

    unsigned long long g_first = ~0ull;
    for (size_t w = 0; w < warps; ++w) g_first = std::min(g_first, g[w * STAMPS]);
    fprintf(out, "cta sm warp g0 g1 g2 c0 c1 c2\n");
    std::vector<long long> start, in, stored;
    for (size_t w = 0; w < warps; ++w) {
        const unsigned long long *gt = &g[w * STAMPS];
        const long long *ct = &ck[w * STAMPS];
        fprintf(out, "%zu %u %zu %llu %llu %llu %lld %lld %lld\n", w / (BLOCK / 32), sm[w], w % (BLOCK / 32),
                gt[0] - g_first, gt[1] - g_first, gt[2] - g_first, ct[0], ct[1], ct[2]);
        start.push_back((long long)(gt[0] - g_first));
        in.push_back((long long)(gt[1] - g_first));
        stored.push_back((long long)(gt[2] - g_first));
    }
    print_ventiles("start ns", start);
    print_ventiles("loads issued ns", in);
    print_ventiles("data in (stored) ns", stored);
    fclose(out);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dg));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dsm));
    char what[80];
    snprintf(what, sizeof what, "transposeTimed<<<%d, %d>>>", blocks, BLOCK);
    return finish(what, bad);
}
