/* reduce.cu - a block-wide sum in shared memory, the two textbook versions
 * (Harris, "Optimizing Parallel Reduction in CUDA", kernels 2 and 3): beyond
 * the seeds, a real kernel whose shared-memory cost changes with the indexing.
 *
 *   reduceInterleaved  step s = 1, 2, 4, ...: thread t adds sdata[2*s*t + s]
 *                      into sdata[2*s*t]. The active threads are contiguous
 *                      (no divergence), but a warp's addresses are 2*s words
 *                      apart: 2-way, 4-way, ... bank conflicts.
 *   reduceSequential   step s = 128, 64, ...: thread t < s adds sdata[t + s]
 *                      into sdata[t]. Consecutive words: conflict-free.
 *
 * Each block of 256 threads loads 256 floats (one coalesced load per thread),
 * reduces them and thread 0 writes the block's sum. The inputs are small
 * integers, so every partial sum is exact and the result is checked exactly.
 *
 * usage: reduce interleaved|sequential [N]   (floats, a multiple of 256;
 *        default 2^18 = 1,024 blocks) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "interleaved|sequential [N]";

__global__ void reduceInterleaved(const float *in, float *out)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    for (unsigned int s = 1; s < BLOCK; s *= 2) {
        unsigned int index = 2 * s * tid;
        if (index < BLOCK) sdata[index] += sdata[index + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

__global__ void reduceSequential(const float *in, float *out)
{
    __shared__ float sdata[BLOCK];
    unsigned int tid = threadIdx.x;
    sdata[tid] = in[blockIdx.x * BLOCK + tid];
    __syncthreads();
    for (unsigned int s = BLOCK / 2; s > 0; s >>= 1) {
        if (tid < s) sdata[tid] += sdata[tid + s];
        __syncthreads();
    }
    if (tid == 0) out[blockIdx.x] = sdata[0];
}

int main(int argc, char **argv)
{
    g_prog = "reduce";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    const char *mode = argv[1];
    int interleaved = strcmp(mode, "interleaved") == 0;
    if (!interleaved && strcmp(mode, "sequential") != 0) usage_fail(USAGE, "unknown mode '%s'", mode);
    int n = 1 << 18;
    if (argc > 2) n = (int)parse_long(argv[2], "N", BLOCK, 1 << 26, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "N must be a multiple of %d", BLOCK);
    int blocks = n / BLOCK;
    setup_device();

    float *hin = (float *)host_alloc((size_t)n * sizeof(float));
    float *hout = (float *)host_alloc((size_t)blocks * sizeof(float));
    float *want = (float *)host_alloc((size_t)blocks * sizeof(float));
    for (int i = 0; i < n; ++i) hin[i] = small_value((size_t)i);
    for (int b = 0; b < blocks; ++b) {
        float s = 0;
        for (int t = 0; t < BLOCK; ++t) s += hin[(size_t)b * BLOCK + t];
        want[b] = s;
    }
    float *din = dev_alloc<float>((size_t)n), *dout = dev_alloc<float>((size_t)blocks);
    CHECK(cudaMemcpy(din, hin, (size_t)n * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, (size_t)blocks * sizeof(float)));
    if (interleaved)
        reduceInterleaved<<<blocks, BLOCK>>>(din, dout);
    else
        reduceSequential<<<blocks, BLOCK>>>(din, dout);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, dout, (size_t)blocks * sizeof(float), cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "%s<<<%d, %d>>>", interleaved ? "reduceInterleaved" : "reduceSequential",
             blocks, BLOCK);
    int rc = finish(what, count_mismatches("out", hout, want, (size_t)blocks, 0.0f));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    free(hin); free(hout); free(want);
    return rc;
}
