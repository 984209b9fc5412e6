/* dramstride.cu - which addresses share a DRAM channel (docs/findings.md
 * §20: the H200 seems to serve a one-wave stream per CTA, by where its 8 KiB
 * lie; the model has one DRAM calendar). One warp reads, at each step, 16
 * cold lines S bytes apart at once (lanes l and l + 16 read line l), from a
 * new pseudo-random base of a 1 GiB buffer nothing has touched since it was
 * written; the step is timed with clock64 and waits for all 16. Lines that
 * share a channel (or a bank) are served one after another, so the strides
 * that map the 16 onto few channels take longer.
 *
 * usage: dramstride   One line per stride S (128 B to 4 MiB) on stderr:
 * median, mean and p90 of the steps' cycles; first a line for one line a
 * step (S 0). Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define LINE_FLOATS 32
#define STEPS 512
#define BUF_MIB 1024
#define LANES_APART 16

static const char *USAGE = "(no arguments)";

__device__ static inline float load_cg(const float *p)
{
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

/* step s's first line: pseudo-random, aligned to 4 MiB less the span of the
 * 16 lines so that a step's lines stay in the buffer */
__host__ __device__ static inline size_t base_of(int s, unsigned salt, size_t n_lines, size_t span_lines)
{
    unsigned x = hash_mix32((unsigned)s * 0x9e3779b9u ^ salt);
    size_t h = (((size_t)x << 16) ^ hash_mix32(x ^ 0x85ebca6bu));
    return h % (n_lines - span_lines);
}

__global__ void strided(const float *buf, size_t n_lines, size_t stride_lines, int one, unsigned salt, unsigned *lat,
                        float *sink)
{
    __shared__ volatile float pad[64];
    int k = one ? 0 : (int)(threadIdx.x % LANES_APART);
    int dep = 0;
    float acc = 0.0f;
    for (int s = 0; s < STEPS; ++s) {
        size_t line = base_of(s, salt, n_lines, stride_lines * LANES_APART) + (size_t)k * stride_lines;
        const float *p = buf + line * LINE_FLOATS + dep;
        long long t0 = clock_now();
        float v = load_cg(p);
        pad[threadIdx.x] = v; /* waits for the warp's load */
        long long t1 = clock_now();
        dep = (int)v;
        if (threadIdx.x == 0) lat[s] = (unsigned)(t1 - t0);
        acc += v;
    }
    sink[threadIdx.x] = acc;
}

int main(int argc, char **argv)
{
    g_prog = "dramstride";
    if (argc != 1) usage_fail(USAGE, "expected no arguments, got %d", argc - 1);
    (void)argv;
    setup_device();
    size_t floats = (size_t)BUF_MIB * 1024 * 1024 / sizeof(float), n_lines = floats / LINE_FLOATS;
    float *buf = dev_alloc<float>(floats);
    CHECK(cudaMemset(buf, 0, floats * sizeof(float))); /* also warms the translations (findings §19) */
    float *scratch = dev_alloc<float>((size_t)64 * 1024 * 1024); /* 256 MiB written: the memset's lines leave L2 */
    CHECK(cudaMemset(scratch, 1, (size_t)64 * 1024 * 1024 * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(scratch));
    unsigned *dlat = dev_alloc<unsigned>(STEPS);
    float *sink = dev_alloc<float>(32);
    std::vector<unsigned> lat(STEPS);
    unsigned salt = 1;
    for (long stride = 0; stride <= 4L << 20; stride = stride ? stride * 2 : 128) {
        size_t sl = stride ? (size_t)stride / (LINE_FLOATS * sizeof(float)) : 1;
        strided<<<1, 32>>>(buf, n_lines, sl, stride == 0, salt++ * 0x51ed27u, dlat, sink);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(lat.data(), dlat, lat.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
        std::vector<unsigned> v(lat.begin() + 8, lat.end()); /* the first steps: translations */
        std::sort(v.begin(), v.end());
        double sum = 0;
        for (unsigned x : v) sum += x;
        size_t n = v.size();
        fprintf(stderr, "dramstride S %8ld B (%s): median %5u mean %7.1f p10 %5u p90 %5u\n", stride,
                stride ? "16 lines" : " 1 line ", v[n / 2], sum / (double)n, v[n / 10], v[n * 9 / 10]);
    }
    CHECK(cudaFree(buf));
    CHECK(cudaFree(dlat));
    CHECK(cudaFree(sink));
    return finish("dramstride", 0);
}
