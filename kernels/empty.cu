/* empty.cu - a kernel that touches no memory: what ncu reports for it is the
 * background of the measurement (the profiler's cache control, the driver),
 * not the kernel's. docs/validation.md uses it as the noise floor of the
 * DRAM and L2 counters (issue: kernel-level counters that include effects
 * outside the address stream).
 *
 *   emptyKernel   returns at once (its one instruction is EXIT)
 *
 * Before the launch the program can leave MIB MiB of freshly written data in
 * the device's memory (cudaMemset), as every other program of the suite does
 * with its inputs, to show whether data dirty in L2 before the kernel counts
 * in the kernel's DRAM writes.
 *
 * usage: empty CTAS [MIB]   (CTAS of 256 threads; MIB default 0) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "CTAS [MIB]";

__global__ void emptyKernel(void) {}

int main(int argc, char **argv)
{
    g_prog = "empty";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    long ctas = parse_long(argv[1], "CTAS", 1, 1 << 20, USAGE);
    long mib = argc > 2 ? parse_long(argv[2], "MIB", 0, 4096, USAGE) : 0;
    setup_device();
    unsigned char *d = NULL;
    if (mib > 0) {
        CHECK(cudaMalloc(&d, (size_t)mib << 20));
        CHECK(cudaMemset(d, 0x5a, (size_t)mib << 20));
        CHECK(cudaDeviceSynchronize());
    }
    emptyKernel<<<(unsigned)ctas, BLOCK>>>();
    CHECK(cudaGetLastError());
    CHECK(cudaDeviceSynchronize());
    if (d) CHECK(cudaFree(d));
    char what[64];
    snprintf(what, sizeof what, "%ld CTAs after %ld MiB written", ctas, mib);
    return finish(what, 0); /* nothing to verify but that the launch succeeded */
}
