/* fill.cu - a kernel that only writes: every thread stores one float, so the
 * kernel leaves N x 4 bytes dirty in L2 and reads nothing. It asks how much
 * dirty data the L2 keeps before it writes some back to DRAM during the
 * kernel (docs/findings.md §3b).
 *
 *   fillKernel   out[i] = i (coalesced, one STG.32 per thread)
 *
 * usage: fill N   (floats; a multiple of 256) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "N";

__global__ void fillKernel(float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) out[i] = (float)i;
}

int main(int argc, char **argv)
{
    g_prog = "fill";
    if (argc != 2) usage_fail(USAGE, "expected 1 argument");
    int n = (int)parse_long(argv[1], "N", BLOCK, 1 << 28, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "N must be a multiple of %d", BLOCK);
    setup_device();
    float *d = dev_alloc<float>(n);
    fillKernel<<<n / BLOCK, BLOCK>>>(d, n);
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
    snprintf(what, sizeof what, "fillKernel<<<%d, %d>>>", n / BLOCK, BLOCK);
    return finish(what, bad);
}
