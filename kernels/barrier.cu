/* barrier.cu - what one __syncthreads() costs on the H200 (docs/findings.md
 * §8; the timing model's barrier_cycles). One CTA of W warps runs ITERS
 * barriers back to back, then ITERS rounds of "store to shared memory,
 * barrier, load a neighbour's word" (the pattern of a tiled kernel's inner
 * loop); thread 0 reads clock64 around each loop.
 *
 * usage: barrier W...   (warps per CTA, 1..32; one line per W on stderr:
 * cycles per barrier alone and per store-barrier-load round) */
#include "common.cuh"

#define ITERS 4096

static const char *USAGE = "W...";

__global__ void barrierLoop(long long *cycles, float *sink)
{
    __shared__ float s[1024];
    long long t0 = clock64();
    for (int i = 0; i < ITERS; ++i) __syncthreads();
    long long t1 = clock64();
    float acc = 0.0f;
    for (int i = 0; i < ITERS; ++i) {
        s[threadIdx.x] = acc + (float)i;
        __syncthreads();
        acc += s[(threadIdx.x + 32) % blockDim.x];
        __syncthreads();
    }
    long long t2 = clock64();
    if (threadIdx.x == 0) {
        cycles[0] = t1 - t0;
        cycles[1] = t2 - t1;
    }
    sink[threadIdx.x] = acc;
}

int main(int argc, char **argv)
{
    g_prog = "barrier";
    if (argc < 2) usage_fail(USAGE, "expected at least one W");
    setup_device();
    long long *d = dev_alloc<long long>(2);
    float *sink = dev_alloc<float>(1024);
    for (int k = 1; k < argc; ++k) {
        int w = (int)parse_long(argv[k], "W", 1, 32, USAGE);
        barrierLoop<<<1, 32 * w>>>(d, sink); /* warm-up: instruction cache */
        CHECK_LAUNCH();
        barrierLoop<<<1, 32 * w>>>(d, sink);
        CHECK_LAUNCH();
        long long h[2];
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        fprintf(stderr, "W %2d: barrier alone %.1f cycles; STS + BAR + LDS + BAR round %.1f cycles\n",
                w, (double)h[0] / ITERS, (double)h[1] / ITERS);
    }
    CHECK(cudaFree(d));
    CHECK(cudaFree(sink));
    return finish("barrierLoop", 0);
}
