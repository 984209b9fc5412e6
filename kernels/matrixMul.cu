/* matrixMul.cu - seed 000 (Kirk & Hwu, "4.4 Tiling for reduced memory
 * traffic"): matrix multiplication P = M x N, naive (figure 4.3: each thread
 * reads a row of M and a column of N from global memory) and tiled (figure
 * 4.16: the block loads TILE_WIDTH x TILE_WIDTH tiles of M and N into shared
 * memory, Mds and Nds, one element per thread, then every thread reads the
 * tiles TILE_WIDTH times; global loads drop by a factor TILE_WIDTH).
 *
 * The seed's matrices are square (Width); here M is ROWS x INNER, N is
 * INNER x COLS and P is ROWS x COLS, so the inner dimension can be kept small:
 * the naive kernel issues 2 x INNER + 1 warp memory instructions per warp and
 * a square 256 x 256 product would trace about a million of them. The default
 * 256 x 64 x 256 launches 256 blocks of 16 x 16 threads.
 *
 * The tiny modes are the teaching figure: 4 x 4 matrices, 2 x 2 blocks, 2 x 2
 * tiles (figures 4.9/4.10 naive, 4.14/4.15 tiled). Four blocks of 4 threads:
 * one warp each with 4 active lanes. That cannot fill the GPU and its counters
 * are dominated by ncu's background traffic; it is kept for the tutorial.
 *
 * usage: matrixMul naive|tiled [ROWS INNER COLS]   (default 256 64 256)
 *        matrixMul tiny-naive|tiny-tiled */
#include "common.cuh"

static const char *USAGE = "naive|tiled [ROWS INNER COLS] | tiny-naive|tiny-tiled";

/* Figure 4.3, with a rectangular M and N. */
__global__ void matrixMulNaive(const float *Md, const float *Nd, float *Pd, int rows, int inner,
                               int cols)
{
    int Row = blockIdx.y * blockDim.y + threadIdx.y;
    int Col = blockIdx.x * blockDim.x + threadIdx.x;

    if (Row < rows && Col < cols) {
        float Pvalue = 0;
        for (int k = 0; k < inner; ++k) Pvalue += Md[Row * inner + k] * Nd[k * cols + Col];
        Pd[Row * cols + Col] = Pvalue;
    }
}

/* Figure 4.16. The block is TILE_WIDTH x TILE_WIDTH threads; ROWS, INNER and
 * COLS are multiples of TILE_WIDTH (main checks). */
template <int TILE_WIDTH>
__global__ void matrixMulTiled(const float *Md, const float *Nd, float *Pd, int rows, int inner,
                               int cols)
{
    __shared__ float Mds[TILE_WIDTH][TILE_WIDTH];
    __shared__ float Nds[TILE_WIDTH][TILE_WIDTH];

    int bx = blockIdx.x, by = blockIdx.y;
    int tx = threadIdx.x, ty = threadIdx.y;
    int Row = by * TILE_WIDTH + ty;
    int Col = bx * TILE_WIDTH + tx;
    float Pvalue = 0;

    for (int m = 0; m < inner / TILE_WIDTH; ++m) {
        Mds[ty][tx] = Md[Row * inner + (m * TILE_WIDTH + tx)];
        Nds[ty][tx] = Nd[(m * TILE_WIDTH + ty) * cols + Col];
        __syncthreads();
        for (int k = 0; k < TILE_WIDTH; ++k) Pvalue += Mds[ty][k] * Nds[k][tx];
        __syncthreads();
    }
    Pd[Row * cols + Col] = Pvalue;
}

int main(int argc, char **argv)
{
    g_prog = "matrixMul";
    if (argc != 2 && argc != 5) usage_fail(USAGE, "expected 1 or 4 arguments");
    const char *mode = argv[1];
    int tiny = strcmp(mode, "tiny-naive") == 0 || strcmp(mode, "tiny-tiled") == 0;
    int tiled = strcmp(mode, "tiled") == 0 || strcmp(mode, "tiny-tiled") == 0;
    if (!tiny && strcmp(mode, "naive") != 0 && strcmp(mode, "tiled") != 0)
        usage_fail(USAGE, "unknown mode '%s'", mode);
    if (tiny && argc != 2) usage_fail(USAGE, "mode %s takes no sizes", mode);

    int tile = tiny ? 2 : 16;
    int rows = tiny ? 4 : 256, inner = tiny ? 4 : 64, cols = tiny ? 4 : 256;
    if (argc == 5) {
        rows = (int)parse_long(argv[2], "ROWS", tile, 4096, USAGE);
        inner = (int)parse_long(argv[3], "INNER", tile, 4096, USAGE);
        cols = (int)parse_long(argv[4], "COLS", tile, 4096, USAGE);
        if (rows % tile != 0 || inner % tile != 0 || cols % tile != 0)
            usage_fail(USAGE, "ROWS, INNER and COLS must be multiples of %d", tile);
    }
    setup_device();

    size_t nm = (size_t)rows * inner, nn = (size_t)inner * cols, np = (size_t)rows * cols;
    float *hM = (float *)host_alloc(nm * sizeof(float)), *hN = (float *)host_alloc(nn * sizeof(float));
    float *hP = (float *)host_alloc(np * sizeof(float)), *want = (float *)host_alloc(np * sizeof(float));
    for (size_t i = 0; i < nm; ++i) hM[i] = small_value(i) / 2.0f;
    for (size_t i = 0; i < nn; ++i) hN[i] = small_value(i + 11);
    /* Half-integers times integers, at most 64 terms: every partial sum is exact. */
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) {
            double s = 0;
            for (int k = 0; k < inner; ++k) s += (double)hM[(size_t)r * inner + k] * hN[(size_t)k * cols + c];
            want[(size_t)r * cols + c] = (float)s;
        }

    float *dM = dev_alloc<float>(nm), *dN = dev_alloc<float>(nn), *dP = dev_alloc<float>(np);
    CHECK(cudaMemcpy(dM, hM, nm * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dN, hN, nn * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dP, 0, np * sizeof(float)));

    dim3 blk(tile, tile), grid(cols / tile, rows / tile);
    const char *kname;
    if (!tiled) {
        kname = "matrixMulNaive";
        matrixMulNaive<<<grid, blk>>>(dM, dN, dP, rows, inner, cols);
    } else if (tiny) {
        kname = "matrixMulTiled<2>";
        matrixMulTiled<2><<<grid, blk>>>(dM, dN, dP, rows, inner, cols);
    } else {
        kname = "matrixMulTiled<16>";
        matrixMulTiled<16><<<grid, blk>>>(dM, dN, dP, rows, inner, cols);
    }
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hP, dP, np * sizeof(float), cudaMemcpyDeviceToHost));

    char what[128];
    snprintf(what, sizeof what, "%s<<<(%u,%u), (%u,%u)>>> %dx%d * %dx%d", kname, grid.x, grid.y,
             blk.x, blk.y, rows, inner, inner, cols);
    /* Exact values, but allow for a different summation order in the last bit. */
    int rc = finish(what, count_mismatches("P", hP, want, np, 1e-6f));
    CHECK(cudaFree(dM));
    CHECK(cudaFree(dN));
    CHECK(cudaFree(dP));
    free(hM); free(hN); free(hP); free(want);
    return rc;
}
