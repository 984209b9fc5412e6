/* fill.cu - a kernel that only writes: every thread stores one float, so the
 * kernel leaves N x 4 bytes dirty in L2 and reads nothing. It asks how much
 * dirty data the L2 keeps before it writes some back to DRAM during the
 * kernel (docs/findings.md §3b).
 *
 *   fillKernel   out[i] = i (coalesced STG.32, a grid-stride loop)
 *
 * With CTAS given, only that many CTAs write (each thread many floats): one
 * CTA writes from one SM, so from the SMs of one L2 partition.
 * PAD_MIB allocates that much device memory before the buffer (kept until the
 * end), so the buffer lands on other physical pages: does where the buffer
 * lies change what is written back? SPIN makes every thread wait SPIN cycles
 * after its stores, inside the kernel: does the L2 write dirty data back
 * while the kernel runs on, with nothing else to do? (findings §3d)
 *
 * READBACK 1 makes every thread then read its floats back past L1 (__ldcg):
 * does an SM's write to a line homed in the other L2 partition leave a copy
 * in its own, as its reads do (hardware-facts §3.5)? Then the reads back
 * find every line near, with no fabric traffic (findings §3h).
 *
 * READS R makes every thread first read R floats past L1 from R other
 * regions of N floats (region r's float i, as writeSegment's C = A + B
 * reads two): how early does dirty data leave while clean data streams in
 * beside it (findings §3h)?
 *
 * usage: fill N [CTAS [PAD_MIB [SPIN [READBACK [READS]]]]]   (floats, a multiple
 *        of 256; CTAS default N / 256, 0 = the default; PAD_MIB 0; SPIN 0
 *        cycles; READBACK 0; READS 0) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "N [CTAS [PAD_MIB [SPIN [READBACK [READS]]]]]";

__global__ void fillKernel(float *out, int n, long long spin, int readback, const float *src, int reads)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x) {
        float v = 0.0f;
        for (int r = 0; r < reads; ++r) v += __ldcg(src + (size_t)r * n + i);
        out[i] = v == -1.0f ? v : (float)i; /* never -1: the reads stay, the value is i */
    }
    if (readback) {
        float acc = 0.0f;
        for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += gridDim.x * blockDim.x)
            acc += __ldcg(out + i);
        if (acc == -1.0f) out[0] = acc; /* keeps the loads; never true */
    }
    if (spin > 0) {
        long long t0 = clock64();
        while (clock64() - t0 < spin) {
        }
    }
}

int main(int argc, char **argv)
{
    g_prog = "fill";
    if (argc < 2 || argc > 7) usage_fail(USAGE, "expected 1 to 6 arguments");
    int n = (int)parse_long(argv[1], "N", BLOCK, 1 << 28, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "N must be a multiple of %d", BLOCK);
    int ctas = argc > 2 ? (int)parse_long(argv[2], "CTAS", 0, n / BLOCK, USAGE) : 0;
    if (ctas == 0) ctas = n / BLOCK;
    long pad_mib = argc > 3 ? parse_long(argv[3], "PAD_MIB", 0, 65536, USAGE) : 0;
    long long spin = argc > 4 ? parse_long(argv[4], "SPIN", 0, 2000000000L, USAGE) : 0;
    int readback = argc > 5 ? (int)parse_long(argv[5], "READBACK", 0, 1, USAGE) : 0;
    int reads = argc > 6 ? (int)parse_long(argv[6], "READS", 0, 8, USAGE) : 0;
    setup_device();
    char *pad = pad_mib ? dev_alloc<char>((size_t)pad_mib << 20) : NULL;
    float *d = dev_alloc<float>(n);
    /* not initialised: the reads' values do not matter (a memset would leave them dirty in L2) */
    float *src = reads ? dev_alloc<float>((size_t)n * reads) : NULL;
    fillKernel<<<ctas, BLOCK>>>(d, n, spin, readback, src, reads);
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
    if (src) CHECK(cudaFree(src));
    if (pad) CHECK(cudaFree(pad));
    free(h);
    char what[64];
    snprintf(what, sizeof what, "fillKernel<<<%d, %d>>> n %d", ctas, BLOCK, n);
    return finish(what, bad);
}
