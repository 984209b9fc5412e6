/* banktimed.cu - in what order DRAM serves a one-wave streaming load
 * (docs/timing.md, "Replay in time order"). Replayed in time order the model
 * runs bank_stride4 (bankConflict stride4: 528 CTAs of 4 warps, each warp 16
 * coalesced loads of its CTA's 8 KiB tile, then shared-memory work) 18%
 * short of the H200's SM active cycles: its DRAM serves requests first come,
 * first served, so an SM's first CTA gets its tile early and does its
 * shared-memory work while the SM's later CTAs still wait. Does the H200
 * serve the first wave's CTAs in the order they asked, or all of them late?
 *
 * smemStride4 itself, each warp's lane 0 stamping %globaltimer (ns, one
 * clock for the GPU) and clock64 (its SM's) at its start, when its 16
 * loads have issued, when their data has reached shared memory, after the barrier, after its 16
 * conflicted shared loads, and at its end, with %smid. Run it under ncu
 * with the suite's flushed caches so the loads go to DRAM.
 *
 * usage: banktimed OUTFILE [BLOCKS [WARM [LOADS [FLUSH]]]]   writes "cta sm warp g0..g5
 * c0..c5" per warp (start, loads issued, tile in shared memory, after the
 * barrier, after the shared loads, end) and prints on stderr, per round of CTA numbers
 * (CTA / SMs; not an SM's own order, findings §20), when its warps' tiles were in (ns after the grid's first
 * start) as ventiles, and the SMs' active cycles. WARM = 1 launches the
 * kernel once before the stamped launch, so that the buffers' address
 * translations are warm (findings §19: a host copy leaves them cold, and
 * ncu flushes caches between launches but not translations; profile the
 * second launch, ncu --launch-skip 1). LOADS (1, 4 or 16, the default) is
 * how many of the tile's 16 rows a warp loads from global memory (the others
 * are zeros): how a warp's wait grows with its lines. FLUSH (MiB, 0 = none)
 * reads a buffer that large twice just before the stamped launch, so that L2
 * holds none of the tile (as ncu's cache control leaves it) without a
 * profiler; 96 MiB is 1.5 L2s and touches few pages. With WARM = 1
 * the launch then finds its translations warm and its data in DRAM, as the
 * suite's measured passes do. Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define THREADS 128
#define ROW 16
#define TILE_ELEMS (THREADS * ROW)
#define STAMPS 6

static const char *USAGE = "OUTFILE [BLOCKS [WARM [LOADS [FLUSH]]]]";

template <int LOADS>
__global__ void smemStride4Timed(const float *global_data, float *out, unsigned long long *g, long long *c,
                                 unsigned *smid)
{
    __shared__ float data[TILE_ELEMS];
    unsigned long long gt[STAMPS];
    long long ct[STAMPS];
    gt[0] = globaltimer();
    ct[0] = clock_now();
    const float *src = global_data + (size_t)blockIdx.x * TILE_ELEMS;
    float r[ROW];
#pragma unroll
    for (int j = 0; j < ROW; ++j) r[j] = j < LOADS ? src[j * THREADS + threadIdx.x] : 0.0f;
    gt[1] = globaltimer(); /* the loads issued (the clobber keeps them before it), not yet back */
    ct[1] = clock_now();
#pragma unroll
    for (int j = 0; j < ROW; ++j) data[j * THREADS + threadIdx.x] = r[j];
    gt[2] = globaltimer(); /* the stores to shared issued: every load's data was in */
    ct[2] = clock_now();
    __syncthreads();
    gt[3] = globaltimer();
    ct[3] = clock_now();
    volatile float *v = data;
    unsigned int tid = threadIdx.x;
    float number = 0;
#pragma unroll
    for (int base = 0; base < ROW; ++base) number += v[base + 4 * tid];
    gt[4] = globaltimer();
    ct[4] = clock_now();
    out[blockIdx.x * THREADS + tid] = number;
    __threadfence_block();
    gt[5] = globaltimer();
    ct[5] = clock_now();
    if (tid % 32 == 0) {
        size_t w = (size_t)blockIdx.x * (THREADS / 32) + tid / 32;
        for (int i = 0; i < STAMPS; ++i) {
            g[w * STAMPS + i] = gt[i];
            c[w * STAMPS + i] = ct[i];
        }
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        smid[w] = sm;
    }
}

int main(int argc, char **argv)
{
    g_prog = "banktimed";
    if (argc < 2 || argc > 6) usage_fail(USAGE, "expected 1 to 5 arguments, got %d", argc - 1);
    FILE *out = open_output(argv[1]);
    int blocks = 528;
    if (argc > 2) blocks = (int)parse_long(argv[2], "BLOCKS", 1, 1 << 16, USAGE);
    bool warm = argc > 3 && parse_long(argv[3], "WARM", 0, 1, USAGE) == 1;
    int loads = argc > 4 ? (int)parse_long(argv[4], "LOADS", 1, 16, USAGE) : 16;
    if (loads != 1 && loads != 4 && loads != 16) usage_fail(USAGE, "LOADS is 1, 4 or 16, got %d", loads);
    size_t flush_mib = argc > 5 ? (size_t)parse_long(argv[5], "FLUSH", 0, 4096, USAGE) : 0;
    void (*kernel)(const float *, float *, unsigned long long *, long long *, unsigned *) =
        loads == 1 ? smemStride4Timed<1> : loads == 4 ? smemStride4Timed<4> : smemStride4Timed<16>;
    setup_device();
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

    size_t nin = (size_t)blocks * TILE_ELEMS, nout = (size_t)blocks * THREADS, warps = (size_t)blocks * (THREADS / 32);
    std::vector<float> hin(nin), hout(nout), want(nout);
    for (size_t i = 0; i < nin; ++i) hin[i] = small_value(i);
    for (int b = 0; b < blocks; ++b)
        for (int tid = 0; tid < THREADS; ++tid) {
            float s = 0;
            for (int k = 0; k < ROW; ++k) {
                int e = k + 4 * tid; /* its row: e / THREADS */
                s += e / THREADS < loads ? hin[(size_t)b * TILE_ELEMS + e] : 0.0f;
            }
            want[(size_t)b * THREADS + tid] = s;
        }
    float *din = dev_alloc<float>(nin), *dout = dev_alloc<float>(nout);
    unsigned long long *dg = dev_alloc<unsigned long long>(warps * STAMPS);
    long long *dc = dev_alloc<long long>(warps * STAMPS);
    unsigned *dsm = dev_alloc<unsigned>(warps);
    CHECK(cudaMemcpy(din, hin.data(), nin * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, nout * sizeof(float)));
    if (warm) {
        kernel<<<blocks, THREADS>>>(din, dout, dg, dc, dsm);
        CHECK_LAUNCH();
    }
    if (flush_mib) flush_l2(flush_mib);
    kernel<<<blocks, THREADS>>>(din, dout, dg, dc, dsm);
    CHECK_LAUNCH();
    std::vector<unsigned long long> g = download(dg, warps * STAMPS);
    std::vector<long long> c = download(dc, warps * STAMPS);
    std::vector<unsigned> sm = download(dsm, warps);
    CHECK(cudaMemcpy(hout.data(), dout, nout * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < nout; ++i) bad += hout[i] != want[i];

    unsigned long long g_first = ~0ull;
    for (size_t w = 0; w < warps; ++w) g_first = std::min(g_first, g[w * STAMPS]);
    fprintf(out, "cta sm warp g0 g1 g2 g3 g4 g5 c0 c1 c2 c3 c4 c5\n");
    const int rounds = 8;
    std::vector<long long> start[rounds], issued[rounds], in[rounds], done[rounds], lds, wait, to_issue;
    std::vector<long long> first(1024, -1), last(1024, -1), sm_in_spread;
    std::vector<long long> sm_in_lo(1024, -1), sm_in_hi(1024, -1);
    for (size_t w = 0; w < warps; ++w) {
        size_t cta = w / (THREADS / 32);
        const unsigned long long *gt = &g[w * STAMPS];
        const long long *ct = &c[w * STAMPS];
        fprintf(out, "%zu %u %zu", cta, sm[w], w % (THREADS / 32));
        for (int i = 0; i < STAMPS; ++i) fprintf(out, " %llu", gt[i] - g_first);
        for (int i = 0; i < STAMPS; ++i) fprintf(out, " %lld", ct[i]);
        fprintf(out, "\n");
        int r = (int)(cta / (size_t)sms);
        if (r >= rounds) r = rounds - 1;
        start[r].push_back((long long)(gt[0] - g_first));
        issued[r].push_back((long long)(gt[1] - g_first));
        in[r].push_back((long long)(gt[2] - g_first));
        done[r].push_back((long long)(gt[5] - g_first));
        to_issue.push_back(ct[1] - ct[0]);
        wait.push_back(ct[2] - ct[1]);
        lds.push_back(ct[4] - ct[3]);
        unsigned s = sm[w] & 1023u;
        if (first[s] < 0 || ct[0] < first[s]) first[s] = ct[0];
        if (ct[4] > last[s]) last[s] = ct[4];
        long long gi = (long long)(gt[2] - g_first);
        if (sm_in_lo[s] < 0 || gi < sm_in_lo[s]) sm_in_lo[s] = gi;
        if (gi > sm_in_hi[s]) sm_in_hi[s] = gi;
    }
    for (int r = 0; r < rounds; ++r) {
        char what[48];
        snprintf(what, sizeof what, "round %d start ns", r);
        print_ventiles(what, start[r]);
        snprintf(what, sizeof what, "round %d issued ns", r);
        print_ventiles(what, issued[r]);
        snprintf(what, sizeof what, "round %d tile in ns", r);
        print_ventiles(what, in[r]);
        snprintf(what, sizeof what, "round %d end ns", r);
        print_ventiles(what, done[r]);
    }
    std::vector<long long> active;
    for (int s = 0; s < 1024; ++s)
        if (first[s] >= 0) {
            active.push_back(last[s] - first[s]);
            sm_in_spread.push_back(sm_in_hi[s] - sm_in_lo[s]);
        }
    print_ventiles("SM active cycles", active);
    print_ventiles("SM tile-in spread ns", sm_in_spread);
    print_ventiles("warp start-issued cycles", to_issue);
    print_ventiles("warp issued-in cycles", wait);
    print_ventiles("warp LDS loop cycles", lds);
    fclose(out);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    CHECK(cudaFree(dg));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(dsm));
    return finish("banktimed", bad);
}
