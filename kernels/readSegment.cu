/* readSegment.cu - seed 003, "misaligned reads": readOffset, C[i] = A[k] + B[k]
 * with k = i + offset (Professional CUDA C Programming, readSegment.cu).
 *
 * Built twice: build/kernels/readSegment (default caching: loads go through
 * L1) and build/kernels/readSegment_cg (-Xptxas -dlcm=cg: loads cached in L2
 * only, SASS LDG.E.STRONG.GPU). With n = 2^20 and offsets 0/11/128 it
 * reproduces the seed's sector tables (262,144 / 266,180 / 262,112 read
 * sectors cached; 327,676 with -dlcm=cg at offset 11; RTX 5090 numbers).
 *
 * usage: readSegment OFFSET [N [BLOCK]]   (defaults N = 2^20, BLOCK = 512) */
#include "common.cuh"

static const char *USAGE = "OFFSET [N [BLOCK]]";

__global__ void readOffset(float *A, float *B, float *C, const int n, int offset)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;
    unsigned int k = i + offset;

    if (k < n) C[i] = A[k] + B[k];
}

int main(int argc, char **argv)
{
    g_prog = "readSegment";
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
    /* C starts zeroed: the last `offset` elements must stay 0. */
    for (int i = 0; i < n; ++i) want[i] = i + offset < n ? hA[i + offset] + hB[i + offset] : 0.0f;

    float *dA = dev_alloc<float>(n), *dB = dev_alloc<float>(n), *dC = dev_alloc<float>(n);
    CHECK(cudaMemcpy(dA, hA, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0, bytes));

    dim3 blk(block), grid((n + block - 1) / block);
    readOffset<<<grid, blk>>>(dA, dB, dC, n, offset);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hC, dC, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "readOffset<<<%u, %u>>> n %d offset %d", grid.x, blk.x, n, offset);
    int rc = finish(what, count_mismatches("C", hC, want, n, 0.0f));
    CHECK(cudaFree(dA));
    CHECK(cudaFree(dB));
    CHECK(cudaFree(dC));
    free(hA); free(hB); free(hC); free(want);
    return rc;
}
