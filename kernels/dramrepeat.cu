/* dramrepeat.cu - is a DRAM line's latency a property of the line (where it
 * lives: partition, channel, bank) or of the moment it is read (a refresh,
 * a queue)? (docs/findings.md §19)
 *
 * One thread reads STEPS pseudo-random cold lines of a 1 GiB buffer one
 * after another (each load's address depends on the last value, so loads
 * never overlap; ld.global.cg, past L1), timing each with clock64. Then L2
 * is emptied (256 MiB written elsewhere) and the same lines are read again:
 *   pass 0 : lines in order 0 .. STEPS-1
 *   pass 1 : the same order again (the same lines, a later moment)
 *   pass 2 : the reverse order (each line at another point of the pass)
 *   pass 3 : fresh lines (a baseline for the spread)
 * A line's latency that is its own repeats across passes 0-2; one that is
 * the moment's does not.
 *
 * L2 is emptied before each pass in one of two ways (FLUSH):
 *   write : cudaMemset of 256 MiB elsewhere (L2 full of dirty lines: each
 *           miss then evicts a line that must be written back)
 *   read  : a kernel reads 256 MiB elsewhere (L2 full of clean lines, as
 *           ncu's cache flush leaves it before a profiled kernel)
 * With L > 1 the thread is a warp whose step is one load of L lines (lane k
 * reads line L*i + k mod L of the pass's sequence), as kernels/dramgather.cu.
 *
 * usage: dramrepeat OUTFILE [write|read [L]]   (default write 1) writes
 * "pass step line start_clock cycles" per step to OUTFILE (line: lane 0's)
 * and a summary on stderr: per pass the mean and ventiles, and across passes
 * 0 and 1 (and 0 and 2) the correlation of a step's cycles, and how often a
 * step slow in one pass (over the pass's 90th percentile) is slow in the
 * other. Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <cmath>
#include <vector>

#define LINE_FLOATS 32
#define STEPS 4096
#define BUF_MIB 1024
#define PASSES 4

static const char *USAGE = "OUTFILE [write|read [L]]";

__device__ static inline float load_cg(const float *p)
{
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

/* the line of step s of a pass that reads lines of seed `seed` */
__host__ __device__ static inline size_t line_of(int s, unsigned seed, size_t n_lines)
{
    unsigned x = hash_mix32(hash_mix32(seed * 0x9e3779b9u) + (unsigned)s);
    return (((size_t)x << 16) ^ hash_mix32(x ^ 0x85ebca6bu)) % n_lines;
}

/* one warp of `lines` active lanes: STEPS dependent loads; reverse: step s
 * is step STEPS-1-s of the forward pass */
__global__ void chase(const float *buf, size_t n_lines, unsigned seed, bool reverse, int lines, unsigned *lat,
                      long long *start, float *sink)
{
    __shared__ volatile float pad[256];
    int dep = 0;
    float acc = 0.0f;
    int lane = threadIdx.x % lines;
    long long origin = clock_now();
    for (int s = 0; s < STEPS; ++s) {
        int k = reverse ? STEPS - 1 - s : s;
        const float *p = buf + line_of(k * lines + lane, seed, n_lines) * LINE_FLOATS + dep;
        long long t0 = clock_now();
        float v = load_cg(p);
        pad[(s + threadIdx.x) & 255] = v; /* waits for the warp's load */
        long long t1 = clock_now();
        dep = (int)v;
        if (threadIdx.x == 0) {
            lat[s] = (unsigned)(t1 - t0);
            start[s] = t0 - origin;
        }
        acc += v;
    }
    sink[threadIdx.x] = acc;
}

/* L2 emptied: 256 MiB elsewhere written (dirty lines) or read (clean ones) */
static void flush_l2(bool by_read, float *sink)
{
    size_t floats = (size_t)64 * 1024 * 1024;
    float *scratch = dev_alloc<float>(floats);
    CHECK(cudaMemset(scratch, 1, floats * sizeof(float)));
    CHECK(cudaDeviceSynchronize());
    if (by_read) { /* twice: the second pass evicts the memset's dirty lines with clean ones */
        for (int r = 0; r < 2; ++r) {
            read_all<<<132 * 8, 256>>>((const float4 *)scratch, floats / 4, sink);
            CHECK_LAUNCH();
        }
    }
    CHECK(cudaFree(scratch));
}

/* mean and share of slow pairs of two passes' cycles, line by line */
static void compare(const char *what, const std::vector<unsigned> &a, const std::vector<unsigned> &b, unsigned slow_a,
                    unsigned slow_b)
{
    double ma = 0, mb = 0;
    size_t n = a.size();
    for (size_t i = 8; i < n; ++i) ma += a[i], mb += b[i];
    ma /= (double)(n - 8), mb /= (double)(n - 8);
    double sab = 0, saa = 0, sbb = 0;
    size_t both = 0, in_a = 0;
    for (size_t i = 8; i < n; ++i) {
        sab += (a[i] - ma) * (b[i] - mb), saa += (a[i] - ma) * (a[i] - ma), sbb += (b[i] - mb) * (b[i] - mb);
        if (a[i] > slow_a) {
            ++in_a;
            both += b[i] > slow_b;
        }
    }
    fprintf(stderr, "dramrepeat %s: correlation %.3f; slow in the first (%zu lines): %.1f%% slow in the second\n",
            what, sab / std::sqrt(saa * sbb), in_a, in_a ? 100.0 * (double)both / (double)in_a : 0.0);
}

int main(int argc, char **argv)
{
    g_prog = "dramrepeat";
    if (argc < 2 || argc > 4) usage_fail(USAGE, "expected one to three arguments, got %d", argc - 1);
    bool by_read = false;
    if (argc >= 3) {
        if (strcmp(argv[2], "read") == 0) by_read = true;
        else if (strcmp(argv[2], "write") != 0) usage_fail(USAGE, "FLUSH must be write or read, not '%s'", argv[2]);
    }
    int lines = argc == 4 ? (int)parse_long(argv[3], "L", 1, 32, USAGE) : 1;
    FILE *out = open_output(argv[1]);
    setup_device();
    size_t floats = (size_t)BUF_MIB * 1024 * 1024 / sizeof(float), n_lines = floats / LINE_FLOATS;
    float *buf = dev_alloc<float>(floats);
    CHECK(cudaMemset(buf, 0, floats * sizeof(float)));
    unsigned *dlat = dev_alloc<unsigned>(STEPS);
    long long *dstart = dev_alloc<long long>(STEPS);
    float *sink = dev_alloc<float>(32);
    std::vector<std::vector<unsigned>> by_line(PASSES, std::vector<unsigned>(STEPS));
    std::vector<unsigned> p90(PASSES);
    fprintf(out, "pass step line start cycles\n");
    for (int pass = 0; pass < PASSES; ++pass) {
        flush_l2(by_read, sink);
        unsigned seed = pass == 3 ? 2u : 1u;
        bool reverse = pass == 2;
        chase<<<1, lines == 1 ? 1 : 32>>>(buf, n_lines, seed, reverse, lines, dlat, dstart, sink);
        CHECK_LAUNCH();
        std::vector<unsigned> lat(STEPS);
        std::vector<long long> start(STEPS);
        CHECK(cudaMemcpy(lat.data(), dlat, STEPS * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(start.data(), dstart, STEPS * sizeof(long long), cudaMemcpyDeviceToHost));
        for (int s = 0; s < STEPS; ++s) {
            int k = reverse ? STEPS - 1 - s : s;
            by_line[pass][k] = lat[s];
            fprintf(out, "%d %d %zu %lld %u\n", pass, s, line_of(k * lines, seed, n_lines), start[s], lat[s]);
        }
        std::vector<unsigned> v(lat.begin() + 8, lat.end()); /* the first steps warm the TLB */
        std::sort(v.begin(), v.end());
        size_t n = v.size();
        double sum = 0;
        for (unsigned x : v) sum += x;
        p90[pass] = v[n * 9 / 10];
        fprintf(stderr, "dramrepeat %s L %2d pass %d mean %.1f ventiles", by_read ? "read " : "write", lines, pass,
                sum / (double)n);
        for (int q = 0; q <= 20; ++q) fprintf(stderr, " %u", v[q == 20 ? n - 1 : q * n / 20]);
        fprintf(stderr, "\n");
    }
    compare("pass 0 vs 1 (same lines, same order)", by_line[0], by_line[1], p90[0], p90[1]);
    compare("pass 0 vs 2 (same lines, reverse order)", by_line[0], by_line[2], p90[0], p90[2]);
    compare("pass 0 vs 3 (other lines)", by_line[0], by_line[3], p90[0], p90[3]);
    fclose(out);
    CHECK(cudaFree(buf));
    CHECK(cudaFree(dlat));
    CHECK(cudaFree(dstart));
    CHECK(cudaFree(sink));
    return finish("dramrepeat", 0);
}
