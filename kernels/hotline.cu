/* hotline.cu - how long a cold line takes when every SM asks for it at once
 * (docs/timing.md, "Replay in time order"). In the model a line's first
 * requester waits for DRAM and the later ones get it at L2-hit latency even
 * while its data is still on the way; on the H200, matrixMul_naive's SMs all
 * seem to wait. Here one warp on each of 132 SMs starts at the same
 * %globaltimer moment and then reads STEPS cold lines one after another
 * (each address depends on the last value; ld.global.cg, past L1), timing
 * each load with clock64:
 *   same     : every SM reads the same line at each step
 *   distinct : every SM reads a line of its own at each step
 * L2 is emptied (256 MiB read elsewhere) before each run.
 *
 * usage: hotline same|distinct   prints per step the mean, median and max
 * over the SMs of a load's cycles, and per SM the mean over steps, as
 * ventiles; the start moments' spread (ns). Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define STEPS 32
#define CTAS 132
#define LINE_FLOATS 32

static const char *USAGE = "same|distinct";

__device__ static inline float load_cg(const float *p)
{
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

__global__ void now(unsigned long long *t)
{
    *t = globaltimer();
}

/* line of step s for CTA c: a pseudo-random line of the buffer, the same for
 * every CTA (same) or its own (distinct) */
__host__ __device__ static inline size_t line_of(int s, unsigned c, bool same, size_t n_lines)
{
    unsigned x = hash_mix32((unsigned)s * 0x9e3779b9u ^ (same ? 0u : hash_mix32(c + 1u)));
    return (((size_t)x << 13) ^ hash_mix32(x ^ 0x85ebca6bu)) % n_lines;
}

__global__ void hot(const float *buf, size_t n_lines, bool same, unsigned long long start, unsigned *lat,
                    unsigned long long *began, unsigned *smid, float *sink)
{
    __shared__ volatile float pad[32];
    while (globaltimer() < start) {
    }
    unsigned long long g = globaltimer();
    int dep = 0;
    float acc = 0.0f;
    for (int s = 0; s < STEPS; ++s) {
        const float *p = buf + line_of(s, blockIdx.x, same, n_lines) * LINE_FLOATS + dep;
        long long t0 = clock_now();
        float v = load_cg(p);
        pad[threadIdx.x] = v;
        long long t1 = clock_now();
        dep = (int)v;
        if (threadIdx.x == 0) lat[blockIdx.x * STEPS + s] = (unsigned)(t1 - t0);
        acc += v;
    }
    if (threadIdx.x == 0) {
        began[blockIdx.x] = g;
        unsigned sm;
        asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
        smid[blockIdx.x] = sm;
    }
    sink[blockIdx.x * 32 + threadIdx.x] = acc;
}

static void ventiles(const char *what, std::vector<unsigned> v)
{
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (unsigned x : v) sum += x;
    size_t n = v.size();
    fprintf(stderr, "%s mean %.1f ventiles", what, sum / (double)n);
    for (int q = 0; q <= 20; ++q) fprintf(stderr, " %u", v[q == 20 ? n - 1 : q * n / 20]);
    fprintf(stderr, "\n");
}

int main(int argc, char **argv)
{
    g_prog = "hotline";
    if (argc != 2) usage_fail(USAGE, "expected one argument, got %d", argc - 1);
    bool same = strcmp(argv[1], "same") == 0;
    if (!same && strcmp(argv[1], "distinct") != 0) usage_fail(USAGE, "unknown mode '%s'", argv[1]);
    setup_device();
    size_t floats = (size_t)256 * 1024 * 1024 / sizeof(float), n_lines = floats / LINE_FLOATS;
    float *buf = dev_alloc<float>(floats);
    CHECK(cudaMemset(buf, 0, floats * sizeof(float)));
    size_t sfloats = (size_t)64 * 1024 * 1024;
    float *scratch = dev_alloc<float>(sfloats), *sink = dev_alloc<float>((size_t)CTAS * 32);
    CHECK(cudaMemset(scratch, 0, sfloats * sizeof(float)));
    for (int r = 0; r < 2; ++r) { /* L2 emptied: clean lines of scratch everywhere */
        read_all<<<132 * 8, 256>>>((const float4 *)scratch, sfloats / 4, sink);
        CHECK_LAUNCH();
    }
    unsigned *dlat = dev_alloc<unsigned>((size_t)CTAS * STEPS), *dsm = dev_alloc<unsigned>(CTAS);
    unsigned long long *dt = dev_alloc<unsigned long long>(1), *dbegan = dev_alloc<unsigned long long>(CTAS);
    now<<<1, 1>>>(dt);
    CHECK_LAUNCH();
    unsigned long long t0 = 0;
    CHECK(cudaMemcpy(&t0, dt, sizeof t0, cudaMemcpyDeviceToHost));
    hot<<<CTAS, 32>>>(buf, n_lines, same, t0 + 2000000ull, dlat, dbegan, dsm, sink); /* 2 ms on */
    CHECK_LAUNCH();
    std::vector<unsigned> lat((size_t)CTAS * STEPS), sm(CTAS);
    std::vector<unsigned long long> began(CTAS);
    CHECK(cudaMemcpy(lat.data(), dlat, lat.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(sm.data(), dsm, sm.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(began.data(), dbegan, began.size() * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
    unsigned long long b_lo = *std::min_element(began.begin(), began.end()),
                       b_hi = *std::max_element(began.begin(), began.end());
    fprintf(stderr, "hotline %s: %d SMs started within %llu ns\n", argv[1], CTAS, b_hi - b_lo);
    std::vector<unsigned> first, later, all;
    for (int s = 0; s < STEPS; ++s)
        for (int c = 0; c < CTAS; ++c) {
            unsigned v = lat[(size_t)c * STEPS + s];
            all.push_back(v);
            (s == 0 ? first : later).push_back(v);
        }
    char what[64];
    snprintf(what, sizeof what, "hotline %-8s step 0  ", argv[1]);
    ventiles(what, first);
    snprintf(what, sizeof what, "hotline %-8s steps 1+", argv[1]);
    ventiles(what, later);
    /* per step: the fastest SM's load (the line's first requester, roughly) and the slowest */
    std::vector<unsigned> fastest, slowest, spread;
    for (int s = 1; s < STEPS; ++s) {
        unsigned lo = ~0u, hi = 0;
        for (int c = 0; c < CTAS; ++c) {
            unsigned v = lat[(size_t)c * STEPS + s];
            lo = v < lo ? v : lo;
            hi = v > hi ? v : hi;
        }
        fastest.push_back(lo);
        slowest.push_back(hi);
        spread.push_back(hi - lo);
    }
    snprintf(what, sizeof what, "hotline %-8s fastest SM a step", argv[1]);
    ventiles(what, fastest);
    snprintf(what, sizeof what, "hotline %-8s slowest SM a step", argv[1]);
    ventiles(what, slowest);
    CHECK(cudaFree(buf));
    CHECK(cudaFree(scratch));
    CHECK(cudaFree(sink));
    CHECK(cudaFree(dlat));
    CHECK(cudaFree(dsm));
    CHECK(cudaFree(dt));
    CHECK(cudaFree(dbegan));
    return finish("hotline", 0);
}
