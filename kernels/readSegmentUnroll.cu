/* readSegmentUnroll.cu - seed 003, "unrolling": readOffsetUnroll2 and
 * readOffsetUnroll4, each thread doing 2 or 4 of readOffset's C[i] = A[k] + B[k]
 * (k = i + offset) at a distance of blockDim.x, with half or a quarter of the
 * blocks (Professional CUDA C Programming, readSegmentUnroll.cu). The seed's
 * table (offset 11, RTX 5090): read sectors 266,184 / 264,188 / 263,436 for
 * readOffset / Unroll2 / Unroll4, write sectors 131,071, ld.pct 80%.
 *
 * usage: readSegmentUnroll 2|4 OFFSET [N [BLOCK]]   (defaults N = 2^20, BLOCK = 512;
 *        N must be a multiple of BLOCK * unroll) */
#include "common.cuh"

static const char *USAGE = "2|4 OFFSET [N [BLOCK]]";

__global__ void readOffsetUnroll2(float *A, float *B, float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x * 2 + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[i] = A[k] + B[k];
    if (k + blockDim.x < n) {
        C[i + blockDim.x] = A[k + blockDim.x] + B[k + blockDim.x];
    }
}

__global__ void readOffsetUnroll4(float *A, float *B, float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x * 4 + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[i] = A[k] + B[k];
    if (k + blockDim.x < n) {
        C[i + blockDim.x] = A[k + blockDim.x] + B[k + blockDim.x];
    }
    if (k + 2 * blockDim.x < n) {
        C[i + 2 * blockDim.x] = A[k + 2 * blockDim.x] + B[k + 2 * blockDim.x];
    }
    if (k + 3 * blockDim.x < n) {
        C[i + 3 * blockDim.x] = A[k + 3 * blockDim.x] + B[k + 3 * blockDim.x];
    }
}

int main(int argc, char **argv)
{
    g_prog = "readSegmentUnroll";
    if (argc < 3 || argc > 5) usage_fail(USAGE, "expected 2 to 4 arguments");
    int unroll = (int)parse_long(argv[1], "unroll", 2, 4, USAGE);
    if (unroll != 2 && unroll != 4) usage_fail(USAGE, "unroll must be 2 or 4, not %s", argv[1]);
    int n = 1 << 20, block = 512;
    if (argc > 3) n = (int)parse_long(argv[3], "N", 32, 1 << 26, USAGE);
    if (argc > 4) block = (int)parse_long(argv[4], "BLOCK", 32, 1024, USAGE);
    int offset = (int)parse_long(argv[2], "OFFSET", 0, n - 1, USAGE);
    if (block % 32 != 0) usage_fail(USAGE, "BLOCK %s must be a multiple of 32", argv[4]);
    if (n % (block * unroll) != 0)
        usage_fail(USAGE, "N must be a multiple of BLOCK * unroll");
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

    dim3 blk(block), grid(n / block / unroll);
    if (unroll == 2)
        readOffsetUnroll2<<<grid, blk>>>(dA, dB, dC, n, offset);
    else
        readOffsetUnroll4<<<grid, blk>>>(dA, dB, dC, n, offset);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hC, dC, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "readOffsetUnroll%d<<<%u, %u>>> n %d offset %d", unroll, grid.x,
             blk.x, n, offset);
    int rc = finish(what, count_mismatches("C", hC, want, n, 0.0f));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(hA); free(hB); free(hC); free(want);
    return rc;
}
