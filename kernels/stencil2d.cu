/* stencil2d.cu - a 5-point Laplacian on a 2-D grid of floats: beyond the
 * seeds, neighbour reuse through L1. A warp reads a 128-byte row segment and
 * its neighbours one row up and down (lines the warps above and below in the
 * block also read: L1 hits) and one float left and right (misaligned by 4
 * bytes: a second line, partly).
 *
 *   laplace5   out[y][x] = in[y-1][x] + in[y+1][x] + in[y][x-1] + in[y][x+1]
 *                          - 4 in[y][x] inside; out = in on the border
 *
 * Blocks of 32 x 8 threads, one point each. The inputs are small integers,
 * so the results are exact.
 *
 * usage: stencil2d [WIDTH HEIGHT]   (multiples of 32 and 8; default 1024 x 256
 *        = 1 MiB per grid, 1,024 blocks) */
#include "common.cuh"

#define BX 32
#define BY 8

static const char *USAGE = "[WIDTH HEIGHT]";

__global__ void laplace5(const float *in, float *out, int w, int h)
{
    int x = blockIdx.x * BX + threadIdx.x, y = blockIdx.y * BY + threadIdx.y;
    size_t i = (size_t)y * w + x;
    if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
        out[i] = in[i];
    else
        out[i] = in[i - w] + in[i + w] + in[i - 1] + in[i + 1] - 4.0f * in[i];
}

int main(int argc, char **argv)
{
    g_prog = "stencil2d";
    if (argc != 1 && argc != 3) usage_fail(USAGE, "expected 0 or 2 arguments");
    int w = 1024, h = 256;
    if (argc == 3) {
        w = (int)parse_long(argv[1], "WIDTH", BX, 1 << 14, USAGE);
        h = (int)parse_long(argv[2], "HEIGHT", BY, 1 << 14, USAGE);
    }
    if (w % BX != 0 || h % BY != 0) usage_fail(USAGE, "WIDTH must be a multiple of %d, HEIGHT of %d", BX, BY);
    setup_device();

    size_t n = (size_t)w * h, bytes = n * sizeof(float);
    float *hin = (float *)host_alloc(bytes), *hout = (float *)host_alloc(bytes);
    float *want = (float *)host_alloc(bytes);
    for (size_t i = 0; i < n; ++i) hin[i] = small_value(i);
    for (int y = 0; y < h; ++y)
        for (int x = 0; x < w; ++x) {
            size_t i = (size_t)y * w + x;
            if (x == 0 || y == 0 || x == w - 1 || y == h - 1)
                want[i] = hin[i];
            else
                want[i] = hin[i - w] + hin[i + w] + hin[i - 1] + hin[i + 1] - 4.0f * hin[i];
        }
    float *din = dev_alloc<float>(n), *dout = dev_alloc<float>(n);
    CHECK(cudaMemcpy(din, hin, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, bytes));
    dim3 block(BX, BY), grid(w / BX, h / BY);
    laplace5<<<grid, block>>>(din, dout, w, h);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, dout, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "laplace5<<<(%u, %u), (%d, %d)>>> %d x %d", grid.x, grid.y, BX, BY, w, h);
    int rc = finish(what, count_mismatches("out", hout, want, n, 0.0f));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    free(hin); free(hout); free(want);
    return rc;
}
