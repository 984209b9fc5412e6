/* mmtimed.cu - where matrixMul_naive's warps spend their time on the H200
 * (docs/timing.md, "Replay in time order"). Replayed in time order the model
 * runs this kernel's SMs in about half the H200's active cycles (5,468
 * against 10,164) though 85% of its loads hit L1: which part of a warp's
 * loop takes longer than the model says?
 *
 * matrixMul.cu's naive product on its sizes (256 x 64 times 64 x 256, 16 x 16
 * blocks: 256 CTAs of 8 warps, one wave), each warp's lane 0 stamping
 * clock64 at its start, after every 16 steps of k, and at its end (after its
 * store), with %smid. The loop is the naive one, split in 4 x 16 steps for the
 * stamps (inner steps unrolled by 4, as nvcc unrolls the plain loop).
 *
 * usage: mmtimed OUTFILE   writes "sm cta warp start k16 k32 k48 k64 end"
 * (SM clock cycles) per warp to OUTFILE and a summary on stderr: the SMs'
 * active cycles (first start to last end), a warp's life, and the cycles
 * of each 16-step part, as mean and ventiles. Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define TILE 16
#define ROWS 256
#define INNER 64
#define COLS 256
#define STAMPS 6

static const char *USAGE = "OUTFILE";

__global__ void matrixMulNaiveTimed(const float *Md, const float *Nd, float *Pd, long long *stamps, unsigned *smid)
{
    long long t[STAMPS];
    t[0] = clock_now();
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;
    float Pvalue = 0;
    for (int part = 0; part < 4; ++part) {
#pragma unroll 4
        for (int k = part * 16; k < part * 16 + 16; ++k) Pvalue += Md[Row * INNER + k] * Nd[k * COLS + Col];
        t[1 + part] = clock_now();
    }
    Pd[Row * COLS + Col] = Pvalue;
    __threadfence_block(); /* the store issued before the last stamp */
    t[5] = clock_now();
    int tid = threadIdx.y * blockDim.x + threadIdx.x;
    if (tid % 32 == 0) {
        size_t w = ((size_t)blockIdx.y * gridDim.x + blockIdx.x) * (TILE * TILE / 32) + tid / 32;
        for (int i = 0; i < STAMPS; ++i) stamps[w * STAMPS + i] = t[i];
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        smid[w] = sm;
    }
}

static void summary(const char *what, std::vector<long long> v)
{
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (long long x : v) sum += (double)x;
    size_t n = v.size();
    fprintf(stderr, "mmtimed %-14s mean %8.1f ventiles", what, sum / (double)n);
    for (int q = 0; q <= 20; ++q) fprintf(stderr, " %lld", v[q == 20 ? n - 1 : q * n / 20]);
    fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
    g_prog = "mmtimed";
    if (argc != 2) usage_fail(USAGE, "expected one argument (the output file), got %d", argc - 1);
    FILE *out = open_output(argv[1]);
    setup_device();
    size_t nm = (size_t)ROWS * INNER, nn = (size_t)INNER * COLS, np = (size_t)ROWS * COLS;
    std::vector<float> hM(nm), hN(nn), hP(np);
    for (size_t i = 0; i < nm; ++i) hM[i] = small_value(i) / 2.0f;
    for (size_t i = 0; i < nn; ++i) hN[i] = small_value(i + 11);
    float *dM = dev_alloc<float>(nm), *dN = dev_alloc<float>(nn), *dP = dev_alloc<float>(np);
    CHECK(cudaMemcpy(dM, hM.data(), nm * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dN, hN.data(), nn * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dP, 0, np * sizeof(float)));
    dim3 blk(TILE, TILE), grid(COLS / TILE, ROWS / TILE);
    size_t warps = (size_t)grid.x * grid.y * (TILE * TILE / 32);
    long long *dstamps = dev_alloc<long long>(warps * STAMPS);
    unsigned *dsm = dev_alloc<unsigned>(warps);
    matrixMulNaiveTimed<<<grid, blk>>>(dM, dN, dP, dstamps, dsm);
    CHECK_LAUNCH();
    std::vector<long long> st(warps * STAMPS);
    std::vector<unsigned> sm(warps);
    CHECK(cudaMemcpy(st.data(), dstamps, st.size() * sizeof(long long), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sm.data(), dsm, sm.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(hP.data(), dP, np * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int r = 0; r < ROWS; ++r)
        for (int c = 0; c < COLS; ++c) {
            double s = 0;
            for (int k = 0; k < INNER; ++k) s += (double)hM[(size_t)r * INNER + k] * hN[(size_t)k * COLS + c];
            bad += hP[(size_t)r * COLS + c] != (float)s;
        }
    /* per SM: its first warp's start and last warp's end (clock64 is the SM's own) */
    std::vector<long long> first(256, -1), last(256, -1);
    std::vector<long long> life, parts[4], tail;
    fprintf(out, "sm cta warp start k16 k32 k48 k64 end\n");
    for (size_t w = 0; w < warps; ++w) {
        const long long *t = &st[w * STAMPS];
        unsigned s = sm[w] & 255u;
        if (first[s] < 0 || t[0] < first[s]) first[s] = t[0];
        if (t[5] > last[s]) last[s] = t[5];
        life.push_back(t[5] - t[0]);
        for (int p = 0; p < 4; ++p) parts[p].push_back(t[p + 1] - t[p]);
        tail.push_back(t[5] - t[4]);
        fprintf(out, "%u %zu %zu", sm[w], w / (TILE * TILE / 32), w % (TILE * TILE / 32));
        for (int i = 0; i < STAMPS; ++i) fprintf(out, " %lld", t[i]);
        fprintf(out, "\n");
    }
    std::vector<long long> active, starts;
    for (size_t w = 0; w < warps; ++w) starts.push_back(st[w * STAMPS] - first[sm[w] & 255u]);
    for (int s = 0; s < 256; ++s)
        if (first[s] >= 0) active.push_back(last[s] - first[s]);
    summary("SM active", active);
    summary("warp start", starts);
    summary("warp life", life);
    for (int p = 0; p < 4; ++p) {
        char what[16];
        snprintf(what, sizeof what, "k part %d", p);
        summary(what, parts[p]);
    }
    summary("store+fence", tail);
    fclose(out);
    CHECK(cudaFree(dM));
    CHECK(cudaFree(dN));
    CHECK(cudaFree(dP));
    CHECK(cudaFree(dstamps));
    CHECK(cudaFree(dsm));
    return finish("mmtimed", bad);
}
