/* reread.cu - how much of a buffer the L2 still holds after one kernel,
 * seen from the next: launch 0 reads (or writes) N floats, launch 1 reads
 * them again. Profiled with ncu --cache-control none on launch 1 only, its
 * L2 read hits are what launch 0 left in L2 (docs/findings.md §3b): clean
 * data when MODE is read, dirty data when MODE is write.
 *
 *   readKernel   one coalesced float load per element (a store only for a
 *                negative value: the buffer is not initialised)
 *   readAgain    the same, launch 1
 *   writeKernel  out[i] = i
 *
 * MODE other: launch 0 writes N floats, launch 1 reads M floats of another
 * buffer: how much of the dirty data do clean reads push out (findings §3h)?
 *
 * GMS_FLUSH_MIB=F first reads F MiB of a scratch buffer (not profiled with
 * -k regex:readAgain), so that launch 0 finds the L2 full of clean lines
 * rather than the dirty data the previous program left (findings §3h).
 *
 * usage: reread N read|write   (floats, a multiple of 256)
 *        reread N other M   (M floats, a multiple of 256) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "N read|write | N other M";

__global__ void readKernel(const float *a, float *sink, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a[i];
        if (v < 0.0f) sink[0] = v;
    }
}

/* launch 1: the same loads under another name, so that ncu can pick it (-k) */
__global__ void readAgain(const float *a, float *sink, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float v = a[i];
        if (v < 0.0f) sink[0] = v;
    }
}

__global__ void writeKernel(float *a, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) a[i] = (float)i;
}

int main(int argc, char **argv)
{
    g_prog = "reread";
    if (argc != 3 && argc != 4) usage_fail(USAGE, "expected 2 or 3 arguments");
    int n = (int)parse_long(argv[1], "N", BLOCK, 1 << 28, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "N must be a multiple of %d", BLOCK);
    int other = strcmp(argv[2], "other") == 0;
    int write = other || strcmp(argv[2], "write") == 0;
    if (!write && strcmp(argv[2], "read") != 0) usage_fail(USAGE, "unknown mode '%s'", argv[2]);
    if (other != (argc == 4)) usage_fail(USAGE, "M goes with mode other, and only with it");
    int m = other ? (int)parse_long(argv[3], "M", BLOCK, 1 << 28, USAGE) : n;
    if (m % BLOCK != 0) usage_fail(USAGE, "M must be a multiple of %d", BLOCK);
    setup_device();
    float *d = dev_alloc<float>(n), *sink = dev_alloc<float>(1);
    float *e = other ? dev_alloc<float>(m) : d;
    const char *flush_env = getenv("GMS_FLUSH_MIB");
    if (flush_env) {
        long mib = parse_long(flush_env, "GMS_FLUSH_MIB", 1, 4096, USAGE);
        int f = (int)(mib * 262144);
        float *scratch = dev_alloc<float>(f);
        readKernel<<<f / BLOCK, BLOCK>>>(scratch, sink, f);
        CHECK_LAUNCH();
        CHECK(cudaFree(scratch));
    }
    /* not initialised: a memset would leave the buffer dirty in L2 before
     * launch 0, and the read mode is about clean data (the values do not
     * matter; a negative one costs one 4-byte store) */
    if (write)
        writeKernel<<<n / BLOCK, BLOCK>>>(d, n);
    else
        readKernel<<<n / BLOCK, BLOCK>>>(d, sink, n);
    CHECK_LAUNCH();
    readAgain<<<m / BLOCK, BLOCK>>>(e, sink, m);
    CHECK_LAUNCH();
    if (other) CHECK(cudaFree(e));
    CHECK(cudaFree(d));
    CHECK(cudaFree(sink));
    char what[64];
    snprintf(what, sizeof what, "%s then read, n %d, m %d", other ? "write other" : write ? "write" : "read", n, m);
    return finish(what, 0); /* nothing to verify: the counters are the result */
}
