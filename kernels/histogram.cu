/* histogram.cu - a 256-bin byte histogram with per-block bins in shared
 * memory (shared-memory atomics), merged into the global histogram with one
 * global atomic per bin and block: beyond the seeds, shared atomics on real
 * data, where lanes of a warp that hit the same bin or the same bank cost
 * extra passes.
 *
 *   histShared   each thread reads one 32-bit word (coalesced) and adds its 4
 *                bytes to the block's bins with atomicAdd on shared memory;
 *                after a barrier, thread t adds bin t to the global histogram
 *                (RED: the result is not used).
 *
 * Modes choose the data: uniform (bytes of a hash, all 256 bins alike) or
 * skewed (bytes 0..7 only: every warp's 32 lanes fall on 8 bins, 8 banks).
 *
 * usage: histogram uniform|skewed [WORDS]   (a multiple of 256; default 2^17
 *        words = 512 KiB, 512 blocks) */
#include "common.cuh"

#define BLOCK 256
#define BINS 256

static const char *USAGE = "uniform|skewed [WORDS]";

__global__ void histShared(const unsigned int *in, unsigned int *hist)
{
    __shared__ unsigned int bins[BINS];
    unsigned int tid = threadIdx.x;
    bins[tid] = 0;
    __syncthreads();
    unsigned int w = in[blockIdx.x * BLOCK + tid];
    atomicAdd(&bins[w & 0xffu], 1u);
    atomicAdd(&bins[(w >> 8) & 0xffu], 1u);
    atomicAdd(&bins[(w >> 16) & 0xffu], 1u);
    atomicAdd(&bins[w >> 24], 1u);
    __syncthreads();
    atomicAdd(&hist[tid], bins[tid]);
}

int main(int argc, char **argv)
{
    g_prog = "histogram";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    const char *mode = argv[1];
    int skewed = strcmp(mode, "skewed") == 0;
    if (!skewed && strcmp(mode, "uniform") != 0) usage_fail(USAGE, "unknown mode '%s'", mode);
    int n = 1 << 17;
    if (argc > 2) n = (int)parse_long(argv[2], "WORDS", BLOCK, 1 << 26, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "WORDS must be a multiple of %d", BLOCK);
    int blocks = n / BLOCK;
    setup_device();

    unsigned int *hin = (unsigned int *)host_alloc((size_t)n * sizeof(unsigned int));
    unsigned int hout[BINS], want[BINS];
    memset(want, 0, sizeof want);
    for (int i = 0; i < n; ++i) {
        unsigned int w = hash_mix32((unsigned int)i + 1u);
        if (skewed) w &= 0x07070707u;
        hin[i] = w;
        for (int k = 0; k < 4; ++k) want[(w >> (8 * k)) & 0xffu]++;
    }
    unsigned int *din = dev_alloc<unsigned int>((size_t)n), *dhist = dev_alloc<unsigned int>(BINS);
    CHECK(cudaMemcpy(din, hin, (size_t)n * sizeof(unsigned int), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dhist, 0, BINS * sizeof(unsigned int)));
    histShared<<<blocks, BLOCK>>>(din, dhist);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, dhist, sizeof hout, cudaMemcpyDeviceToHost));

    size_t bad = 0;
    for (int b = 0; b < BINS; ++b)
        if (hout[b] != want[b]) {
            if (bad < 5) fprintf(stderr, "histogram: bin %d = %u, expected %u\n", b, hout[b], want[b]);
            ++bad;
        }
    char what[96];
    snprintf(what, sizeof what, "histShared<<<%d, %d>>> %s", blocks, BLOCK, mode);
    int rc = finish(what, bad);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dhist));
    free(hin);
    return rc;
}
