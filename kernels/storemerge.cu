/* storemerge.cu - do the stores of a CTA's warps to one line, issued together
 * after a barrier, reach L2 as one request (docs/findings.md §22)? PyTorch's
 * reduce_kernel ends with each of a CTA's 16 warps storing one float, 16
 * consecutive floats: the H200 sends 136 L2 write requests for its 2,048
 * stores; storepair (§6b) saw two warps' 64-byte halves of a line never merge.
 *
 * CTAS CTAs of W warps; N times: a barrier, then warp w waits w x DELAY cycles
 * and its lanes 0..LANES-1 store floats w x LANES + lane of the iteration's
 * own line-aligned slot (W x LANES floats, rounded up to whole lines). So an
 * iteration's stores cover W x LANES x 4 bytes from one line start; ncu's L2
 * write requests and sectors say how they merged: W x (lines a warp's store
 * touches) requests an iteration when none merges, one a line when all do.
 *
 * usage: storemerge W LANES N [DELAY [CTAS]]   (W 1..32, LANES 1..32) */
#include "common.cuh"

static const char *USAGE = "W LANES N [DELAY [CTAS]]";

__global__ void storeMerge(float *out, int lanes, long long delay, int n, int slot)
{
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int i = 0; i < n; ++i) {
        __syncthreads();
        if (delay > 0) {
            long long s = clock64();
            while (clock64() - s < delay * warp) {
            }
        }
        if (lane < lanes)
            out[((size_t)blockIdx.x * n + i) * slot + warp * lanes + lane] = (float)(i + warp + lane);
    }
}

int main(int argc, char **argv)
{
    g_prog = "storemerge";
    if (argc < 4 || argc > 6) usage_fail(USAGE, "expected 3 to 5 arguments");
    int w = (int)parse_long(argv[1], "W", 1, 32, USAGE);
    int lanes = (int)parse_long(argv[2], "LANES", 1, 32, USAGE);
    int n = (int)parse_long(argv[3], "N", 1, 1 << 16, USAGE);
    long long d = argc >= 5 ? parse_long(argv[4], "DELAY", 0, 100000, USAGE) : 0;
    int ctas = argc >= 6 ? (int)parse_long(argv[5], "CTAS", 1, 1024, USAGE) : 1;
    int slot = (w * lanes + 31) / 32 * 32; /* floats an iteration, whole lines */
    size_t floats = (size_t)ctas * n * slot;
    setup_device();
    float *o = dev_alloc<float>(floats);
    CHECK(cudaMemset(o, 0, floats * sizeof(float)));
    storeMerge<<<ctas, 32 * w>>>(o, lanes, d, n, slot);
    CHECK_LAUNCH();
    float *h = (float *)host_alloc(floats * sizeof(float));
    CHECK(cudaMemcpy(h, o, floats * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int c = 0; c < ctas; ++c)
        for (int i = 0; i < n; ++i)
            for (int k = 0; k < w; ++k)
                for (int l = 0; l < lanes; ++l)
                    bad += h[((size_t)c * n + i) * slot + k * lanes + l] != (float)(i + k + l);
    CHECK(cudaFree(o));
    free(h);
    char what[96];
    snprintf(what, sizeof what, "storeMerge W %d LANES %d N %d DELAY %lld CTAS %d", w, lanes, n, d, ctas);
    return finish(what, bad);
}
