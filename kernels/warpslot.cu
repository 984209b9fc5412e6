/* warpslot.cu - which warp slot (%warpid, hence which SM sub-partition:
 * warpid mod 4) the warps of small CTAs get (docs/findings.md §11; the
 * timing model issues a warp on sub-partition (CTA slot x warps per CTA +
 * warp) mod 4). Each warp's lane 0 records its %smid and %warpid, then the
 * CTA spins SPIN_NS ns so that CTAs are resident together.
 *
 * usage: warpslot CTAS THREADS SPIN_NS   prints on stderr, for SM 0 and SM 1:
 *        "sm S cta C warp W warpid I" in CTA order.
 * Nothing goes to stdout. Exit codes as common.cuh. */
#include "common.cuh"

static const char *USAGE = "CTAS THREADS SPIN_NS";

__device__ static inline unsigned warpid(void)
{
    unsigned w;
    asm volatile("mov.u32 %0, %%warpid;" : "=r"(w));
    return w;
}

__global__ void recordWarp(unsigned *rec, unsigned long long spin_ns)
{
    unsigned wpc = (blockDim.x + 31) / 32, w = threadIdx.x / 32;
    if (threadIdx.x % 32 == 0) {
        unsigned *r = rec + 2 * (blockIdx.x * wpc + w);
        r[0] = smid();
        r[1] = warpid();
    }
    unsigned long long t = globaltimer();
    while (globaltimer() - t < spin_ns) {
    }
}

int main(int argc, char **argv)
{
    g_prog = "warpslot";
    if (argc != 4) usage_fail(USAGE, "expected 3 arguments");
    int ctas = (int)parse_long(argv[1], "CTAS", 1, 1 << 20, USAGE);
    int threads = (int)parse_long(argv[2], "THREADS", 1, 1024, USAGE);
    long spin = parse_long(argv[3], "SPIN_NS", 0, 100000000, USAGE);
    setup_device();
    int wpc = (threads + 31) / 32;
    size_t n = (size_t)ctas * wpc * 2;
    unsigned *d = dev_alloc<unsigned>(n);
    unsigned *h = (unsigned *)host_alloc(n * sizeof(unsigned));
    recordWarp<<<ctas, threads>>>(d, (unsigned long long)spin);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h, d, n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    for (int s = 0; s < 2; ++s)
        for (int c = 0; c < ctas; ++c)
            for (int w = 0; w < wpc; ++w) {
                const unsigned *r = h + 2 * ((size_t)c * wpc + w);
                if ((int)r[0] == s) fprintf(stderr, "sm %u cta %d warp %d warpid %u\n", r[0], c, w, r[1]);
            }
    CHECK(cudaFree(d));
    free(h);
    return finish("recordWarp", 0);
}
