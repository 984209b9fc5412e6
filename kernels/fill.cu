/* fill.cu - a kernel that only writes: every thread stores one float, so the
 * kernel leaves N x 4 bytes dirty in L2 and reads nothing. It asks how much
 * dirty data the L2 keeps before it writes some back to DRAM during the
 * kernel (docs/findings.md §3b).
 *
 *   fillKernel   out[i] = i (coalesced STG.32, a grid-stride loop)
 *
 * With CTAS given, only that many CTAs write (each thread many floats): one
 * CTA writes from one SM, so from the SMs of one L2 partition.
 *
 * usage: fill N [CTAS]   (floats, a multiple of 256; CTAS default N / 256) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "N [CTAS]";

__global__ void fillKernel(float *out, int n)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
        out[i] = (float)i;
}

int main(int argc, char **argv)
{
    g_prog = "fill";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    int n = (int)parse_long(argv[1], "N", BLOCK, 1 << 28, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "N must be a multiple of %d", BLOCK);
    int ctas = argc > 2 ? (int)parse_long(argv[2], "CTAS", 1, n / BLOCK, USAGE) : n / BLOCK;
    setup_device();
    float *d = dev_alloc<float>(n);
    fillKernel<<<ctas, BLOCK>>>(d, n);
    CHECK_LAUNCH();
    float *h = (float *)host_alloc((size_t)n * sizeof(float));
    CHECK(cudaMemcpy(h, d, (size_t)n * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int i = 0; i < n; ++i)
        if (h[i] != (float)i) {
            if (bad < 5) fprintf(stderr, "fill: out[%d] = %g, expected %d\n", i, h[i], i);
            ++bad;
        }
    CHECK(cudaFree(d));
    free(h);
    char what[64];
    snprintf(what, sizeof what, "fillKernel<<<%d, %d>>> n %d", ctas, BLOCK, n);
    return finish(what, bad);
}
