/* transpose.cu - matrix transpose three ways (the classic coalescing and
 * bank-conflict example; not in the seeds, which stop at the patterns it
 * combines: seed 003's strided global access, seed 001's conflicting shared
 * columns and their padding fix).
 *
 *   transposeNaive          reads rows (coalesced), writes columns: every warp
 *                           store touches 32 sectors in 32 lines
 *   transposeShared         32 x 32 tile in shared memory: coalesced both ways,
 *                           but reading a tile column is a 32-way bank conflict
 *   transposeSharedPadded   tile[32][33]: the column read is conflict-free
 *
 * Blocks of 32 x 8 threads each move one 32 x 32 tile (4 elements a thread).
 * The default input is 1024 rows x 512 columns: 512 blocks, 2 MiB each way.
 *
 * usage: transpose naive|shared|padded [ROWS COLS]   (multiples of 32; default 1024 512) */
#include "common.cuh"

#define TILE_DIM 32
#define BLOCK_ROWS 8

static const char *USAGE = "naive|shared|padded [ROWS COLS]";

/* in is rows x cols, out is cols x rows, both row-major. */
__global__ void transposeNaive(const float *in, float *out, int rows, int cols)
{
    int x = blockIdx.x * TILE_DIM + threadIdx.x; /* input column */
    int y = blockIdx.y * TILE_DIM + threadIdx.y; /* input row */

#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) out[x * rows + (y + j)] = in[(y + j) * cols + x];
}

template <int PAD>
__device__ __forceinline__ void transposeTile(const float *in, float *out, int rows, int cols)
{
    __shared__ float tile[TILE_DIM][TILE_DIM + PAD];
    int x = blockIdx.x * TILE_DIM + threadIdx.x;
    int y = blockIdx.y * TILE_DIM + threadIdx.y;

#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * cols + x];
    __syncthreads();

    x = blockIdx.y * TILE_DIM + threadIdx.x; /* output column = input row */
    y = blockIdx.x * TILE_DIM + threadIdx.y; /* output row = input column */
#pragma unroll
    for (int j = 0; j < TILE_DIM; j += BLOCK_ROWS) out[(y + j) * rows + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void transposeShared(const float *in, float *out, int rows, int cols)
{
    transposeTile<0>(in, out, rows, cols);
}

__global__ void transposeSharedPadded(const float *in, float *out, int rows, int cols)
{
    transposeTile<1>(in, out, rows, cols);
}

int main(int argc, char **argv)
{
    g_prog = "transpose";
    if (argc != 2 && argc != 4) usage_fail(USAGE, "expected 1 or 3 arguments");
    const char *mode = argv[1];
    int m;
    if (strcmp(mode, "naive") == 0) m = 0;
    else if (strcmp(mode, "shared") == 0) m = 1;
    else if (strcmp(mode, "padded") == 0) m = 2;
    else usage_fail(USAGE, "unknown mode '%s'", mode);
    int rows = 1024, cols = 512;
    if (argc == 4) {
        rows = (int)parse_long(argv[2], "ROWS", TILE_DIM, 8192, USAGE);
        cols = (int)parse_long(argv[3], "COLS", TILE_DIM, 8192, USAGE);
        if (rows % TILE_DIM != 0 || cols % TILE_DIM != 0)
            usage_fail(USAGE, "ROWS and COLS must be multiples of %d", TILE_DIM);
    }
    setup_device();

    size_t n = (size_t)rows * cols, bytes = n * sizeof(float);
    float *hin = (float *)host_alloc(bytes), *hout = (float *)host_alloc(bytes);
    float *want = (float *)host_alloc(bytes);
    for (size_t i = 0; i < n; ++i) hin[i] = (float)i; /* exact below 2^24 */
    for (int r = 0; r < rows; ++r)
        for (int c = 0; c < cols; ++c) want[(size_t)c * rows + r] = hin[(size_t)r * cols + c];

    float *din = dev_alloc<float>(n), *dout = dev_alloc<float>(n);
    CHECK(cudaMemcpy(din, hin, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, bytes));

    static const char *names[] = {"transposeNaive", "transposeShared", "transposeSharedPadded"};
    dim3 blk(TILE_DIM, BLOCK_ROWS), grid(cols / TILE_DIM, rows / TILE_DIM);
    switch (m) {
    case 0: transposeNaive<<<grid, blk>>>(din, dout, rows, cols); break;
    case 1: transposeShared<<<grid, blk>>>(din, dout, rows, cols); break;
    default: transposeSharedPadded<<<grid, blk>>>(din, dout, rows, cols); break;
    }
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, dout, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "%s<<<(%u,%u), (%u,%u)>>> %dx%d", names[m], grid.x, grid.y, blk.x,
             blk.y, rows, cols);
    int rc = finish(what, count_mismatches("out", hout, want, n, 0.0f));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    free(hin); free(hout); free(want);
    return rc;
}
