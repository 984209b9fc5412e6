/* smemcost.cu - what an n-way bank-conflicted shared-memory access costs in
 * cycles on the H200 (docs/findings.md §10; the timing model books one
 * data-stage cycle per wavefront plus a fixed latency, docs/timing.md).
 *
 * One CTA of W warps on one SM. Lane l of a warp reads word
 *   (l % (32 / N)) + (l / (32 / N)) * 32
 * of a 4 KiB table: 32 / N banks, N rows each, so every LDS is N wavefronts
 * (N = 1, 2, 4, 8, 16, 32). The table holds, at each word, the offset of the
 * same lane's word again, so a load's address depends on the previous load:
 *
 *   latency     W = 1: a chain of ITERS dependent LDS; cycles per LDS
 *   throughput  W warps, each 8 independent chains interleaved: cycles per
 *               LDS instruction of the SM (the data stage's rate when the
 *               chains are long enough to hide the latency)
 *   store       W warps storing N-way conflicted words (STS), 8 per
 *               iteration, no dependence: cycles per STS instruction
 *
 * usage: smemcost W...   (one line per W and N on stderr:
 *        "W w N n: lds_latency X lds_per_instr Y sts_per_instr Z") */
#include "common.cuh"

#define ITERS 2048
#define CHAINS 8

static const char *USAGE = "W...";

__device__ static int word_of(int lane, int n) { return (lane % (32 / n)) + (lane / (32 / n)) * 32; }

__global__ void smemCost(int n, long long *cycles, int *sink)
{
    __shared__ int table[1024];
    int lane = threadIdx.x % 32;
    for (int i = threadIdx.x; i < 1024; i += blockDim.x) table[i] = 0;
    __syncthreads();
    int w = word_of(lane, n);
    if (threadIdx.x < 32) table[w] = w; /* each lane's word points at itself */
    __syncthreads();

    /* latency: warp 0 alone */
    long long t0 = 0, t1 = 0;
    int idx = w;
    if (threadIdx.x < 32) {
        t0 = clock64();
        for (int i = 0; i < ITERS; ++i) idx = table[idx];
        t1 = clock64();
    }
    __syncthreads();

    /* throughput: every warp, CHAINS independent chains */
    /* the chains start from values the compiler cannot prove equal (else it
     * would fold the eight loads into one) */
    volatile int *vt = table;
    int c[CHAINS];
#pragma unroll
    for (int k = 0; k < CHAINS; ++k) c[k] = vt[w];
    __syncthreads();
    long long t2 = clock64();
    for (int i = 0; i < ITERS; ++i) {
#pragma unroll
        for (int k = 0; k < CHAINS; ++k) c[k] = table[c[k]];
    }
    __syncthreads();
    long long t3 = clock64();

    /* stores: every warp, CHAINS stores per iteration to its conflicted words */
    long long t4 = clock64();
    for (int i = 0; i < ITERS; ++i) {
#pragma unroll
        for (int k = 0; k < CHAINS; ++k) vt[w] = i + k; /* volatile: every store is made */
    }
    __syncthreads();
    long long t5 = clock64();

    int acc = idx;
#pragma unroll
    for (int k = 0; k < CHAINS; ++k) acc += c[k];
    sink[threadIdx.x] = acc;
    if (threadIdx.x == 0) {
        cycles[0] = t1 - t0;
        cycles[1] = t3 - t2;
        cycles[2] = t5 - t4;
    }
}

int main(int argc, char **argv)
{
    g_prog = "smemcost";
    if (argc < 2) usage_fail(USAGE, "expected at least one W");
    setup_device();
    long long *d = dev_alloc<long long>(3);
    int *sink = dev_alloc<int>(1024);
    for (int a = 1; a < argc; ++a) {
        int wps = (int)parse_long(argv[a], "W", 1, 32, USAGE);
        for (int n = 1; n <= 32; n *= 2) {
            smemCost<<<1, wps * 32>>>(n, d, sink);
            CHECK_LAUNCH();
            long long h[3];
            CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
            double instrs = (double)ITERS * CHAINS * wps;
            fprintf(stderr, "W %d N %d: lds_latency %.2f lds_per_instr %.3f sts_per_instr %.3f\n", wps, n,
                    (double)h[0] / ITERS, (double)h[1] / instrs, (double)h[2] / instrs);
        }
    }
    CHECK(cudaFree(d));
    CHECK(cudaFree(sink));
    return finish("smemCost", 0);
}
