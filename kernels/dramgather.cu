/* dramgather.cu - how long one warp waits for a load whose lanes touch L
 * cold lines, every line a DRAM read (docs/findings.md §18). A warp's load
 * is done when its last line is back, so if DRAM's latency varies from line
 * to line the wait grows with L even though the lines are fetched together;
 * a model with one latency (or one for near and one for far lines) gets no
 * such growth.
 *
 * One warp on one SM, a 1 GiB buffer of zeros that nothing has touched
 * since it was written (ncu's or the driver's caches hold none of it: each
 * step's lines are new). At step s lane l reads the first float of line
 * line(s, l mod L), past L1 (ld.global.cg); the next step's address adds the
 * value read (0), so steps do not overlap. Each step is timed alone with
 * clock64 (a shared store of the value waits for the whole warp's load).
 *   rand : the step's L lines are pseudo-random lines of the buffer
 *   seq  : the L lines follow the last step's (a stream of whole lines)
 *
 * usage: dramgather [CTAS]   One line per placement and L = 1, 2, 4, 8, 16,
 * 32 on stderr: mean, median and ventiles (min, p5, ..., p95, max) of the
 * steps' cycles, and p99. CTAS one-warp CTAs (default 1) gather at once,
 * each on lines of its own, so the warps meet in DRAM as a kernel's do; their
 * steps are pooled. Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define LINE_FLOATS 32
#define STEPS 1024
#define BUF_MIB 1024

static const char *USAGE = "[CTAS]";

__device__ static inline float load_cg(const float *p)
{
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

/* the line lane k of step s of CTA cta reads (k < lines); seq: CTAs read
 * runs of lines 32 x STEPS + 777 apart. rand: CTA 0 as the one-warp runs
 * always did; the others mix their number in, or their steps would meet
 * CTA 0's lines (the runs' starts differ by less than the steps' range) */
__host__ __device__ static inline size_t line_of(int s, int k, int lines, bool seq, size_t first, unsigned cta,
                                                 size_t n_lines)
{
    if (seq) return (first + (size_t)cta * (32u * STEPS + 777u) + (size_t)s * lines + k) % n_lines;
    if (cta == 0) {
        size_t h = ((size_t)hash_mix32((unsigned)(s * 32 + k) ^ (unsigned)first) << 16) ^ hash_mix32((unsigned)(s * 977 + k));
        return h % n_lines;
    }
    unsigned x = hash_mix32(hash_mix32(cta * 0x9e3779b9u ^ (unsigned)first) + (unsigned)(s * 32 + k));
    return (((size_t)x << 16) ^ hash_mix32(x ^ 0x85ebca6bu)) % n_lines;
}

__global__ void gather(const float *buf, size_t n_lines, int lines, bool seq, size_t first, unsigned *lat,
                       float *sink)
{
    __shared__ volatile float pad[256];
    int k = threadIdx.x % lines;
    int dep = 0;
    float acc = 0.0f;
    for (int s = 0; s < STEPS; ++s) {
        const float *p = buf + line_of(s, k, lines, seq, first, blockIdx.x, n_lines) * LINE_FLOATS + dep;
        long long t0 = clock_now();
        float v = load_cg(p);
        pad[(s + threadIdx.x) & 255] = v; /* waits for the warp's load */
        long long t1 = clock_now();
        dep = (int)v;
        if (threadIdx.x == 0) lat[(size_t)blockIdx.x * STEPS + s] = (unsigned)(t1 - t0);
        acc += v;
    }
    sink[blockIdx.x * 32u + threadIdx.x] = acc;
}

int main(int argc, char **argv)
{
    g_prog = "dramgather";
    if (argc > 2) usage_fail(USAGE, "expected at most one argument, got %d", argc - 1);
    int ctas = argc == 2 ? (int)parse_long(argv[1], "CTAS", 1, 4096, USAGE) : 1;
    setup_device();
    size_t floats = (size_t)BUF_MIB * 1024 * 1024 / sizeof(float), n_lines = floats / LINE_FLOATS;
    float *buf = dev_alloc<float>(floats);
    CHECK(cudaMemset(buf, 0, floats * sizeof(float)));
    /* the memset's last lines may still sit in L2: writing 256 MiB elsewhere
     * pushes them out */
    float *scratch = dev_alloc<float>((size_t)64 * 1024 * 1024);
    CHECK(cudaMemset(scratch, 1, (size_t)64 * 1024 * 1024 * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    CHECK(cudaFree(scratch));
    unsigned *dlat = dev_alloc<unsigned>((size_t)ctas * STEPS);
    float *sink = dev_alloc<float>((size_t)ctas * 32);
    std::vector<unsigned> lat((size_t)ctas * STEPS);
    /* each run starts where no earlier run read: seq runs 32 x STEPS lines
     * apart, rand runs from their own hash (first) */
    size_t first = 0;
    for (int seq = 0; seq < 2; ++seq) {
        for (int lines = 1; lines <= 32; lines *= 2) {
            gather<<<ctas, 32>>>(buf, n_lines, lines, seq != 0, first, dlat, sink);
            CHECK_LAUNCH();
            CHECK(cudaMemcpy(lat.data(), dlat, lat.size() * sizeof(unsigned), cudaMemcpyDeviceToHost));
            first += (size_t)ctas * (32u * STEPS + 777u) + 12345;
            std::vector<unsigned> v; /* each warp's first steps warm the TLB */
            for (int c = 0; c < ctas; ++c)
                v.insert(v.end(), lat.begin() + (size_t)c * STEPS + 8, lat.begin() + (size_t)(c + 1) * STEPS);
            std::sort(v.begin(), v.end());
            size_t n = v.size();
            double sum = 0;
            for (unsigned x : v) sum += x;
            char who[24] = "";
            if (ctas > 1) snprintf(who, sizeof who, " C %d", ctas);
            fprintf(stderr, "dramgather %s%s L %2d: mean %.1f median %u p99 %u ventiles", seq ? "seq " : "rand", who,
                    lines, sum / (double)n, v[n / 2], v[n - 1 - n / 100]);
            for (int q = 0; q <= 20; ++q) fprintf(stderr, " %u", v[q == 20 ? n - 1 : q * n / 20]);
            fprintf(stderr, "\n");
        }
    }
    CHECK(cudaFree(buf));
    CHECK(cudaFree(dlat));
    CHECK(cudaFree(sink));
    return finish("dramgather", 0);
}
