/* atomics.cu - global atomics, performed in L2: 32 lanes on one address
 * against 32 lanes on 32 consecutive addresses (not in the seeds; it covers
 * the RED/ATOM rows of the model, hardware-facts §3.3: same-address lanes are
 * not merged, one L2 request per lane; distinct consecutive words make one
 * request of 4 sectors).
 *
 *   atomicSameAddress       atomicAdd(&accf[0], (float)(in[i] & 15))   (REDG.E.ADD.F32)
 *   atomicDistinctAddresses atomicAdd(&acc[i], in[i])   (REDG, 4 sectors a warp)
 *
 * The same-address kernel adds floats: for an integer atomicAdd of a uniform
 * address the compiler reduces the warp first (REDUX) and issues one lane,
 * which would hide the 32-lane serialisation this experiment is about. The
 * floats are small integers whose sum stays below 2^24, so it is exact and
 * does not depend on the order of the atomics. The distinct kernel adds
 * integers.
 *
 * usage: atomics same|distinct [N]   (default 2^20; a multiple of 256) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "same|distinct [N]";

__global__ void atomicSameAddress(const unsigned int *in, float *accf, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&accf[0], (float)(in[i] & 15u));
}

__global__ void atomicDistinctAddresses(const unsigned int *in, unsigned int *acc, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) atomicAdd(&acc[i], in[i]);
}

int main(int argc, char **argv)
{
    g_prog = "atomics";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    int same = strcmp(argv[1], "same") == 0;
    if (!same && strcmp(argv[1], "distinct") != 0) usage_fail(USAGE, "unknown mode '%s'", argv[1]);
    int n = 1 << 20;
    if (argc > 2) n = (int)parse_long(argv[2], "N", BLOCK, 1 << 26, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "N must be a multiple of %d", BLOCK);
    if (same && n > (1 << 20)) usage_fail(USAGE, "same: N at most 2^20 (the float sum must stay exact)");
    setup_device();

    size_t bytes = (size_t)n * sizeof(unsigned int);
    unsigned int *hin = (unsigned int *)host_alloc(bytes), *hacc = (unsigned int *)host_alloc(bytes);
    unsigned int small_total = 0; /* same: sum of in & 15, at most 15 * 2^20 < 2^24 */
    for (int i = 0; i < n; ++i) {
        hin[i] = (unsigned int)(i * 2654435761u) >> 8;
        small_total += hin[i] & 15u;
    }
    float total_f = (float)small_total;
    unsigned int total_bits;
    memcpy(&total_bits, &total_f, sizeof total_bits);
    unsigned int *din = dev_alloc<unsigned int>(n), *dacc = dev_alloc<unsigned int>(n);
    CHECK(cudaMemcpy(din, hin, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dacc, 0, bytes));

    dim3 blk(BLOCK), grid(n / BLOCK);
    if (same)
        atomicSameAddress<<<grid, blk>>>(din, (float *)dacc, n);
    else
        atomicDistinctAddresses<<<grid, blk>>>(din, dacc, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hacc, dacc, bytes, cudaMemcpyDeviceToHost));

    size_t bad = 0;
    for (int i = 0; i < n; ++i) {
        unsigned int want = same ? (i == 0 ? total_bits : 0u) : hin[i]; /* same: float bits */
        if (hacc[i] != want) {
            if (bad < 5) fprintf(stderr, "atomics: acc[%d] = %u, expected %u\n", i, hacc[i], want);
            ++bad;
        }
    }
    char what[96];
    snprintf(what, sizeof what, "%s<<<%u, %u>>> n %d",
             same ? "atomicSameAddress" : "atomicDistinctAddresses", grid.x, blk.x, n);
    int rc = finish(what, bad);
    CHECK(cudaFree(din));
    CHECK(cudaFree(dacc));
    free(hin); free(hacc);
    return rc;
}
