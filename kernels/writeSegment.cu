/* writeSegment.cu - seed 003, "misaligned writes": writeOffset, C[k] = A[i] + B[i]
 * with k = i + offset (Professional CUDA C Programming, writeSegment.cu).
 * Loads stay aligned; the stores move. The seed reports a global store
 * efficiency (smsp__sass_average_data_bytes_per_sector_mem_global_op_st.pct)
 * of 100% / 80% / 100% at offsets 0 / 11 / 128 (RTX 5090).
 *
 * usage: writeSegment OFFSET [N [BLOCK]]   (defaults N = 2^20, BLOCK = 512) */
#include "common.cuh"

static const char *USAGE = "OFFSET [N [BLOCK]]";

__global__ void writeOffset(float *A, float *B, float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[k] = A[i] + B[i];
}

int main(int argc, char **argv)
{
    g_prog = "writeSegment";
    if (argc < 2 || argc > 4) usage_fail(USAGE, "expected 1 to 3 arguments");
    int n = 1 << 20, block = 512;
    if (argc > 2) n = (int)parse_long(argv[2], "N", 32, 1 << 26, USAGE);
    if (argc > 3) block = (int)parse_long(argv[3], "BLOCK", 32, 1024, USAGE);
    int offset = (int)parse_long(argv[1], "OFFSET", 0, n - 1, USAGE);
    if (block % 32 != 0) usage_fail(USAGE, "BLOCK %s must be a multiple of 32", argv[3]);
    setup_device();

    size_t bytes = (size_t)n * sizeof(float);
    float *hA = (float *)host_alloc(bytes), *hB = (float *)host_alloc(bytes);
    float *hC = (float *)host_alloc(bytes), *want = (float *)host_alloc(bytes);
    for (int i = 0; i < n; ++i) {
        hA[i] = small_value(i);
        hB[i] = small_value(i + 17);
    }
    /* C starts zeroed: its first `offset` elements must stay 0. */
    for (int k = 0; k < n; ++k) want[k] = k >= offset ? hA[k - offset] + hB[k - offset] : 0.0f;

    float *dA = dev_alloc<float>(n), *dB = dev_alloc<float>(n), *dC = dev_alloc<float>(n);
    CHECK(cudaMemcpy(dA, hA, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0, bytes));

    dim3 blk(block), grid((n + block - 1) / block);
    writeOffset<<<grid, blk>>>(dA, dB, dC, n, offset);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hC, dC, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "writeOffset<<<%u, %u>>> n %d offset %d", grid.x, blk.x, n, offset);
    int rc = finish(what, count_mismatches("C", hC, want, n, 0.0f));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(hA); free(hB); free(hC); free(want);
    return rc;
}
