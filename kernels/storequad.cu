/* storequad.cu - when do a warp's own consecutive stores to the same lines
 * reach L2 as one request a line (docs/findings.md §24)? PyTorch's
 * reduce_kernel (torch_sum_cols) stages each warp's float4 of partial sums
 * as four scalar STG.E, x y z w, lanes 16 bytes apart: each store touches
 * the same four lines (8 bytes a sector), the four together fill them. The
 * model merges a warp's consecutive stores to a line into one L2 write
 * request (1,056 for sum_cols); the H200 sends 1,152.
 *
 * CTAS CTAs of W warps; N times: a barrier, then warp w waits w x DELAY
 * cycles (none at DELAY 0), and lane l stores four floats, one STG each, at
 * float 4 x l + c (c = 0..3) of the warp's own 512-byte slot of the
 * iteration. One L2 write request a line (4 a warp an iteration) when a
 * warp's four stores merge, 16 when none do.
 *
 * PRE (default none): before the measured launch, "touch" launches a kernel
 * that stores once to every 128 bytes of the buffer from the same grid (so
 * each SM has touched the pages it will store to), "twice" launches
 * storeQuad itself once before (measure the second: ncu --launch-skip 1).
 *
 * usage: storequad W N [CTAS [DELAY [none|touch|twice]]]   (W 1..32) */
#include "common.cuh"

static const char *USAGE = "W N [CTAS [DELAY [none|touch|twice]]]";

__global__ void touchPages(float *out, int n, int w)
{
    /* thread t of the CTA stores one float to each of its 128-byte lines
     * that t covers, the CTA's own slots, as storeQuad's CTA will */
    size_t per_cta = (size_t)n * w * 128;
    for (size_t i = threadIdx.x * 32u; i < per_cta; i += blockDim.x * 32u)
        out[(size_t)blockIdx.x * per_cta + i] = 0.0f;
}

__global__ void storeQuad(float *out, long long delay, int n)
{
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, w = blockDim.x / 32;
    for (int i = 0; i < n; ++i) {
        __syncthreads();
        if (delay > 0) {
            long long s = clock64();
            while (clock64() - s < delay * warp) {
            }
        }
        float *p = out + (((size_t)blockIdx.x * n + i) * w + warp) * 128 + 4 * lane;
        float v = (float)(i + warp + lane);
        /* four scalar stores (the compiler keeps them apart: p's alignment
         * to 16 bytes is not known to it) */
        p[0] = v;
        p[1] = v + 1.0f;
        p[2] = v + 2.0f;
        p[3] = v + 3.0f;
    }
}

int main(int argc, char **argv)
{
    g_prog = "storequad";
    if (argc < 3 || argc > 6) usage_fail(USAGE, "expected 2 to 5 arguments");
    int w = (int)parse_long(argv[1], "W", 1, 32, USAGE);
    int n = (int)parse_long(argv[2], "N", 1, 1 << 16, USAGE);
    int ctas = argc >= 4 ? (int)parse_long(argv[3], "CTAS", 1, 4096, USAGE) : 1;
    long long d = argc >= 5 ? parse_long(argv[4], "DELAY", 0, 100000, USAGE) : 0;
    const char *pre = argc >= 6 ? argv[5] : "none";
    if (strcmp(pre, "none") != 0 && strcmp(pre, "touch") != 0 && strcmp(pre, "twice") != 0)
        usage_fail(USAGE, "PRE '%s' must be none, touch or twice", pre);
    size_t floats = (size_t)ctas * n * w * 128;
    setup_device();
    float *o = dev_alloc<float>(floats);
    CHECK(cudaMemset(o, 0, floats * sizeof(float)));
    if (strcmp(pre, "touch") == 0) {
        touchPages<<<ctas, 32 * w>>>(o, n, w);
        CHECK_LAUNCH();
    } else if (strcmp(pre, "twice") == 0) {
        storeQuad<<<ctas, 32 * w>>>(o, d, n);
        CHECK_LAUNCH();
    }
    storeQuad<<<ctas, 32 * w>>>(o, d, n);
    CHECK_LAUNCH();
    float *h = (float *)host_alloc(floats * sizeof(float));
    CHECK(cudaMemcpy(h, o, floats * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int c = 0; c < ctas; ++c)
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < w; ++k)
                for (int l = 0; l < 32; ++l)
                    for (int q = 0; q < 4; ++q)
                        bad += h[(((size_t)c * n + i) * w + k) * 128 + 4 * l + q] != (float)(i + k + l + q);
    CHECK(cudaFree(o));
    free(h);
    char what[96];
    snprintf(what, sizeof what, "storeQuad W %d N %d CTAS %d DELAY %lld PRE %s", w, n, ctas, d, pre);
    return finish(what, bad);
}
