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
 *   CTAS     launch only the first CTAS CTAs (default all 2,048), a multiple
 *            of 16 (of 32, every sector keeps its eight readers; 16: GPC 0's
 *            CTAs alone, four readers of each sector it reads): the same
 *            CTAs on the same SMs with fewer of them a SM
 *   QMASK    which CTAs read (default 15, all): CTA b reads when bit b mod 4
 *            is set; the others end at once. The CTAs b, b + 4, .. that read
 *            a sector share b mod 4, so QMASK 1 keeps whole groups of
 *            readers and leaves out the other three quarters' lines
 *   MEET     1: the reading CTAs wait for each other before their loads (an
 *            atomic counter, as kernels/lrcpair.cu's probes meet), so that
 *            they start together rather than as dispatched
 *   SMEM_KIB unused dynamic shared memory per CTA (default 0): 200 leaves
 *            one CTA an SM and L1 its smallest, as kernels/lrcpair.cu's CTAs
 *   IDLE_WARPS warps more per CTA that end at once (default 0; 4: CTAs of
 *            256 threads, as lrcpair's, whose warps 4-7 read nothing)
 *   ZEROS    1: the matrix is zeros from cudaMemset, as lrcpair's buffers,
 *            not values copied from the host
 * (CTAS 16, IDLE_WARPS and ZEROS are for findings §2f's bisection, which
 * the twenty-third session prepared and the twenty-fourth ran.)
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

static const char *USAGE = "OUTFILE [FLUSH [CTAS [QMASK [MEET [SMEM_KIB [IDLE_WARPS [ZEROS]]]]]]]";

/* out[i] = in[i % ROWS][i / ROWS] for i = CTA x 256 + thread and + 128 */
__global__ void transposeTimed(const float *in, float *out, unsigned qmask, unsigned *arrive, unsigned members,
                               unsigned long long *g, long long *ck, unsigned *smid)
{
    if (!(qmask >> (blockIdx.x % 4) & 1u)) return;
    bool idle = threadIdx.x >= BLOCK; /* IDLE_WARPS: here for the meeting only */
    if (arrive) { /* MEET: thread 0 of each reading CTA arrives and spins until all have */
        if (threadIdx.x == 0) {
            atomicAdd(arrive, 1u);
            while (atomicAdd(arrive, 0u) < members) {
            }
        }
        __syncthreads();
    }
    if (idle) return;
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
    if (argc < 2 || argc > 9) usage_fail(USAGE, "expected 1 to 8 arguments, got %d", argc - 1);
    FILE *out = open_output(argv[1]);
    size_t flush_mib = argc > 2 ? (size_t)parse_long(argv[2], "FLUSH", 0, 4096, USAGE) : 0;
    size_t n = (size_t)ROWS * COLS;
    int all = (int)(n / (BLOCK * PER_THREAD));
    int blocks = argc > 3 ? (int)parse_long(argv[3], "CTAS", 16, all, USAGE) : all;
    if (blocks % 16 != 0) usage_fail(USAGE, "CTAS must be a multiple of 16, got %d", blocks);
    unsigned qmask = argc > 4 ? (unsigned)parse_long(argv[4], "QMASK", 1, 15, USAGE) : 15u;
    bool meet = argc > 5 && parse_long(argv[5], "MEET", 0, 1, USAGE) == 1;
    int smem = argc > 6 ? (int)parse_long(argv[6], "SMEM_KIB", 0, 227, USAGE) * 1024 : 0;
    int idle_warps = argc > 7 ? (int)parse_long(argv[7], "IDLE_WARPS", 0, 28, USAGE) : 0;
    bool zeros = argc > 8 && parse_long(argv[8], "ZEROS", 0, 1, USAGE) == 1;
    /* MEET spins until every reading CTA has arrived: all must be resident
     * at once (an H200's 132 SMs hold 16 of these CTAs each, or as many as
     * their shared memory leaves room for) */
    int threads = BLOCK + 32 * idle_warps;
    int resident = 132 * std::min(2048 / threads, smem ? 227 * 1024 / smem : 32);
    if (meet && blocks > resident)
        usage_fail(USAGE, "MEET needs every CTA resident at once: CTAS at most %d with SMEM_KIB %d", resident,
                   smem / 1024);
    setup_device();
    if (smem > 48 * 1024)
        CHECK(cudaFuncSetAttribute(transposeTimed, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    unsigned members = 0;
    for (int b = 0; b < blocks; ++b) members += qmask >> (b % 4) & 1u;
    size_t warps = (size_t)blocks * (BLOCK / 32);
    std::vector<float> hin(n), hout(n), want(n);
    for (size_t i = 0; i < n; ++i) hin[i] = zeros ? 0.0f : small_value(i);
    for (size_t i = 0; i < n; ++i) want[i] = hin[(i % ROWS) * COLS + i / ROWS];
    float *din = dev_alloc<float>(n), *dout = dev_alloc<float>(n);
    unsigned long long *dg = dev_alloc<unsigned long long>(warps * STAMPS);
    long long *dc = dev_alloc<long long>(warps * STAMPS);
    unsigned *dsm = dev_alloc<unsigned>(warps);
    if (zeros)
        CHECK(cudaMemset(din, 0, n * sizeof(float)));
    else
        CHECK(cudaMemcpy(din, hin.data(), n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, n * sizeof(float)));
    if (flush_mib) flush_l2(flush_mib);
    CHECK(cudaMemset(dg, 0, warps * STAMPS * sizeof(unsigned long long)));
    unsigned *arrive = NULL;
    if (meet) {
        arrive = dev_alloc<unsigned>(1);
        CHECK(cudaMemset(arrive, 0, sizeof(unsigned)));
    }
    transposeTimed<<<blocks, threads, smem>>>(din, dout, qmask, arrive, members, dg, dc, dsm);
    CHECK_LAUNCH();
    std::vector<unsigned long long> g = download(dg, warps * STAMPS);
    std::vector<long long> ck = download(dc, warps * STAMPS);
    std::vector<unsigned> sm = download(dsm, warps);
    CHECK(cudaMemcpy(hout.data(), dout, n * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t i = 0; i < n; ++i) /* what the CTAs left out leave: the zeros dout started with */
        if (!(qmask >> (i / (BLOCK * PER_THREAD) % 4) & 1u)) want[i] = 0.0f;
    size_t bad = count_mismatches("out", hout.data(), want.data(), (size_t)blocks * BLOCK * PER_THREAD, 0.0f);

    unsigned long long g_first = ~0ull;
    auto ran = [&](size_t w) { return (qmask >> (w / (BLOCK / 32) % 4) & 1u) != 0; };
    for (size_t w = 0; w < warps; ++w)
        if (ran(w)) g_first = std::min(g_first, g[w * STAMPS]);
    fprintf(out, "cta sm warp g0 g1 g2 c0 c1 c2\n");
    std::vector<long long> start, in, stored;
    for (size_t w = 0; w < warps; ++w) {
        if (!ran(w)) continue;
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
    if (arrive) CHECK(cudaFree(arrive));
    char what[80];
    snprintf(what, sizeof what, "transposeTimed<<<%d, %d>>>", blocks, threads);
    return finish(what, bad);
}
