/* readOnly.cu - seed 003, "read-only cache": readOffset (C[i] = A[k] + B[k],
 * k = i + offset) with its loads on the read-only path, two ways:
 *
 *   readOffsetLdg       C[i] = __ldg(&A[k]) + __ldg(&B[k])
 *   readOffsetRestrict  const float *__restrict__ A, B (the compiler proves
 *                       the data read-only and emits the same non-coherent loads)
 *   readOffsetPlain     plain loads (the same code as readSegment's readOffset)
 *
 * On sm_90 the read-only loads are LDG.E.CONSTANT (ld.global.nc) and still go
 * through L1; plain loads are LDG.E. The seed gives no numbers for these.
 *
 * usage: readOnly plain|ldg|restrict OFFSET [N [BLOCK]]   (defaults N = 2^20, BLOCK = 512) */
#include "common.cuh"

static const char *USAGE = "plain|ldg|restrict OFFSET [N [BLOCK]]";

__global__ void readOffsetPlain(float *A, float *B, float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[i] = A[k] + B[k];
}

__global__ void readOffsetLdg(float *A, float *B, float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[i] = __ldg(&A[k]) + __ldg(&B[k]);
}

__global__ void readOffsetRestrict(const float *__restrict__ A, const float *__restrict__ B,
                                   float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[i] = A[k] + B[k];
}

int main(int argc, char **argv)
{
    g_prog = "readOnly";
    if (argc < 3 || argc > 5) usage_fail(USAGE, "expected 2 to 4 arguments");
    const char *mode = argv[1];
    if (strcmp(mode, "plain") != 0 && strcmp(mode, "ldg") != 0 && strcmp(mode, "restrict") != 0)
        usage_fail(USAGE, "unknown mode '%s'", mode);
    int n = 1 << 20, block = 512;
    if (argc > 3) n = (int)parse_long(argv[3], "N", 32, 1 << 26, USAGE);
    if (argc > 4) block = (int)parse_long(argv[4], "BLOCK", 32, 1024, USAGE);
    int offset = (int)parse_long(argv[2], "OFFSET", 0, n - 1, USAGE);
    if (block % 32 != 0) usage_fail(USAGE, "BLOCK %s must be a multiple of 32", argv[4]);
    setup_device();

    size_t bytes = (size_t)n * sizeof(float);
    float *hA = (float *)host_alloc(bytes), *hB = (float *)host_alloc(bytes);
    float *hC = (float *)host_alloc(bytes), *want = (float *)host_alloc(bytes);
    for (int i = 0; i < n; ++i) {
        hA[i] = small_value(i);
        hB[i] = small_value(i + 17);
    }
    for (int i = 0; i < n; ++i) want[i] = i + offset < n ? hA[i + offset] + hB[i + offset] : 0.0f;

    float *dA = dev_alloc<float>(n), *dB = dev_alloc<float>(n), *dC = dev_alloc<float>(n);
    CHECK(cudaMemcpy(dA, hA, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0, bytes));

    dim3 blk(block), grid((n + block - 1) / block);
    const char *kname;
    if (strcmp(mode, "plain") == 0) {
        kname = "readOffsetPlain";
        readOffsetPlain<<<grid, blk>>>(dA, dB, dC, n, offset);
    } else if (strcmp(mode, "ldg") == 0) {
        kname = "readOffsetLdg";
        readOffsetLdg<<<grid, blk>>>(dA, dB, dC, n, offset);
    } else {
        kname = "readOffsetRestrict";
        readOffsetRestrict<<<grid, blk>>>(dA, dB, dC, n, offset);
    }
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hC, dC, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "%s<<<%u, %u>>> n %d offset %d", kname, grid.x, blk.x, n, offset);
    int rc = finish(what, count_mismatches("C", hC, want, n, 0.0f));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(hA); free(hB); free(hC); free(want);
    return rc;
}
