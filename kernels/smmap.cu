/* smmap.cu - which SM runs which CTA when nothing is instrumented, to compare
 * with the SMs a trace recorded under the tracer (docs/findings.md §2d). The
 * L2 request coalescer merges only reads of SMs of one GPC (§2b), and the
 * model places each CTA on the SM its trace recorded; if the placement of a
 * plain run differs, so do the GPCs that share data.
 *
 *   smmap GX GY BX BY REGS_PAD SPIN_NS REPS
 *     REPS launches of a GX x GY grid of BX x BY threads; each CTA records its
 *     %smid and then spins SPIN_NS ns (so that the grid's CTAs are resident
 *     together, as in a kernel that works). REGS_PAD > 0 makes the kernel hold
 *     that many more live registers per thread (to match the occupancy of the
 *     kernel being compared; ptxas -v says how many it got). Prints per launch
 *     "launch R: SM SM ..." (CTA order, x fastest) on stderr.
 *
 * Nothing goes to stdout. Exit codes as common.cuh. */
#include "common.cuh"

static const char *USAGE = "GX GY BX BY REGS_PAD SPIN_NS REPS";

__global__ void recordSm(unsigned *sms, unsigned long long spin_ns, int pad, float *sink)
{
    /* live registers: pad values kept across the spin */
    float v[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) v[i] = (float)(threadIdx.x + i);
    if (threadIdx.x == 0 && threadIdx.y == 0) sms[blockIdx.y * gridDim.x + blockIdx.x] = smid();
    unsigned long long t = globaltimer();
    while (globaltimer() - t < spin_ns) {
    }
    float acc = 0.0f;
#pragma unroll
    for (int i = 0; i < 32; ++i)
        if (i < pad) acc += v[i] * v[(i + 1) & 31];
    if (acc == -1.0f) *sink = acc;
}

int main(int argc, char **argv)
{
    g_prog = "smmap";
    if (argc != 8) usage_fail(USAGE, "expected 7 arguments");
    int gx = (int)parse_long(argv[1], "GX", 1, 1 << 16, USAGE);
    int gy = (int)parse_long(argv[2], "GY", 1, 1 << 16, USAGE);
    int bx = (int)parse_long(argv[3], "BX", 1, 1024, USAGE);
    int by = (int)parse_long(argv[4], "BY", 1, 1024, USAGE);
    int pad = (int)parse_long(argv[5], "REGS_PAD", 0, 32, USAGE);
    long spin = parse_long(argv[6], "SPIN_NS", 0, 100000000, USAGE);
    int reps = (int)parse_long(argv[7], "REPS", 1, 1000, USAGE);
    if (bx * by > 1024) usage_fail(USAGE, "BX x BY is %d, more than 1024", bx * by);
    setup_device();
    size_t n = (size_t)gx * gy;
    unsigned *d = dev_alloc<unsigned>(n);
    float *sink = dev_alloc<float>(1);
    unsigned *h = (unsigned *)host_alloc(n * sizeof(unsigned));
    for (int r = 0; r < reps; ++r) {
        recordSm<<<dim3(gx, gy), dim3(bx, by)>>>(d, (unsigned long long)spin, pad, sink);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(h, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
        fprintf(stderr, "launch %d:", r);
        for (size_t i = 0; i < n; ++i) fprintf(stderr, " %u", h[i]);
        fprintf(stderr, "\n");
    }
    CHECK(cudaFree(d));
    CHECK(cudaFree(sink));
    free(h);
    char what[96];
    snprintf(what, sizeof what, "recordSm %dx%d of %dx%d, %d launches", gx, gy, bx, by, reps);
    return finish(what, 0);
}
