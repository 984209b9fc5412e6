/* wmmaGemm.cu - C = A B with tensor cores (WMMA, half inputs, float
 * accumulators) through shared memory: beyond the seeds, the staging that
 * GEMMs do. Each block of 4 warps computes a 32 x 32 tile of C; per 16-wide
 * step of K its threads copy a 32 x 16 tile of A and a 16 x 32 tile of B to
 * shared memory (8 bytes per thread each), and each warp loads its 16 x 16
 * fragments from there (load_matrix_sync: ldmatrix, SASS LDSM, where the
 * compiler uses it) and multiplies. The shared tiles are not padded or
 * swizzled: A's rows are 32 bytes apart, B's 64.
 *
 *   wmmaTiled   M x N x K = 512 x 512 x 256 (256 blocks of 128 threads)
 *
 * Inputs are small integers, exact in half; products and sums are exact in
 * float, so C is checked exactly.
 *
 * usage: wmmaGemm [M N K]   (multiples of 32, 32, 16) */
#include <cuda_fp16.h>
#include <mma.h>

#include "common.cuh"

using namespace nvcuda;

#define TM 32
#define TN 32
#define TK 16

static const char *USAGE = "[M N K]";

__global__ void wmmaTiled(const half *A, const half *B, float *C, int M, int N, int K)
{
    __shared__ __align__(128) half As[TM * TK]; /* 32 rows of 16 */
    __shared__ __align__(128) half Bs[TK * TN]; /* 16 rows of 32 */
    int tid = threadIdx.x, warp = tid / 32;
    int wr = warp / 2, wc = warp % 2; /* the warp's 16 x 16 tile of the block's 32 x 32 */
    int row0 = blockIdx.y * TM, col0 = blockIdx.x * TN;
    wmma::fragment<wmma::accumulator, 16, 16, 16, float> acc;
    wmma::fill_fragment(acc, 0.0f);
    for (int k0 = 0; k0 < K; k0 += TK) {
        /* 128 threads x 4 halves: A's 32 x 16 tile, then B's 16 x 32 */
        int ar = tid / 4, ac = (tid % 4) * 4;
        *(uint2 *)&As[ar * TK + ac] = *(const uint2 *)&A[(size_t)(row0 + ar) * K + k0 + ac];
        int br = tid / 8, bc = (tid % 8) * 4;
        *(uint2 *)&Bs[br * TN + bc] = *(const uint2 *)&B[(size_t)(k0 + br) * N + col0 + bc];
        __syncthreads();
        wmma::fragment<wmma::matrix_a, 16, 16, 16, half, wmma::row_major> a;
        wmma::fragment<wmma::matrix_b, 16, 16, 16, half, wmma::row_major> b;
        wmma::load_matrix_sync(a, &As[wr * 16 * TK], TK);
        wmma::load_matrix_sync(b, &Bs[wc * 16], TN);
        wmma::mma_sync(acc, a, b, acc);
        __syncthreads();
    }
    wmma::store_matrix_sync(&C[(size_t)(row0 + wr * 16) * N + col0 + wc * 16], acc, N, wmma::mem_row_major);
}

int main(int argc, char **argv)
{
    g_prog = "wmmaGemm";
    if (argc != 1 && argc != 4) usage_fail(USAGE, "expected 0 or 3 arguments");
    int M = 512, N = 512, K = 256;
    if (argc == 4) {
        M = (int)parse_long(argv[1], "M", TM, 1 << 14, USAGE);
        N = (int)parse_long(argv[2], "N", TN, 1 << 14, USAGE);
        K = (int)parse_long(argv[3], "K", TK, 1 << 14, USAGE);
    }
    if (M % TM || N % TN || K % TK) usage_fail(USAGE, "M, N, K must be multiples of %d, %d, %d", TM, TN, TK);
    setup_device();

    half *hA = (half *)host_alloc((size_t)M * K * sizeof(half));
    half *hB = (half *)host_alloc((size_t)K * N * sizeof(half));
    float *fA = (float *)host_alloc((size_t)M * K * sizeof(float));
    float *fB = (float *)host_alloc((size_t)K * N * sizeof(float));
    float *hC = (float *)host_alloc((size_t)M * N * sizeof(float));
    float *want = (float *)host_alloc((size_t)M * N * sizeof(float));
    for (size_t i = 0; i < (size_t)M * K; ++i) {
        fA[i] = (float)((i * 7u + 3u) % 9u) - 4.0f;
        hA[i] = __float2half(fA[i]);
    }
    for (size_t i = 0; i < (size_t)K * N; ++i) {
        fB[i] = (float)((i * 5u + 1u) % 9u) - 4.0f;
        hB[i] = __float2half(fB[i]);
    }
    for (int r = 0; r < M; ++r)
        for (int c = 0; c < N; ++c) {
            float s = 0.0f;
            for (int k = 0; k < K; ++k) s += fA[(size_t)r * K + k] * fB[(size_t)k * N + c];
            want[(size_t)r * N + c] = s;
        }
    half *dA = dev_alloc<half>((size_t)M * K), *dB = dev_alloc<half>((size_t)K * N);
    float *dC = dev_alloc<float>((size_t)M * N);
    CHECK(cudaMemcpy(dA, hA, (size_t)M * K * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dB, hB, (size_t)K * N * sizeof(half), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dC, 0, (size_t)M * N * sizeof(float)));
    dim3 grid(N / TN, M / TM), block(128);
    wmmaTiled<<<grid, block>>>(dA, dB, dC, M, N, K);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hC, dC, (size_t)M * N * sizeof(float), cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "wmmaTiled<<<(%u, %u), 128>>> %d x %d x %d", grid.x, grid.y, M, N, K);
    int rc = finish(what, count_mismatches("C", hC, want, (size_t)M * N, 0.0f));
    CHECK(cudaFree(dA)); CHECK(cudaFree(dB)); CHECK(cudaFree(dC));
    free(hA); free(hB); free(fA); free(fB); free(hC); free(want);
    return rc;
}
