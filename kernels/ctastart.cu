/* ctastart.cu - when the CTAs of a grid start (docs/timing.md, "CTAs"; the
 * timing model's dispatcher). Thread 0 of every CTA reads %globaltimer (ns,
 * one clock for the GPU), its SM's %clock64 and %smid first thing, then the
 * CTA spins SPIN cycles (so that a one-wave grid stays resident, as a
 * working kernel's does) and exits.
 *
 * usage: ctastart THREADS CTAS [SPIN]     prints per SM "sm N ctas K span C"
 *        (C: cycles between its first and last CTA's start, by %clock64),
 *        then the grid's start span by %globaltimer, in ns and in cycles at
 *        the SM clock measured over the spin (clock64 / globaltimer). */
#include <algorithm>
#include <vector>
#include "common.cuh"
static const char *USAGE = "THREADS CTAS [SPIN]";

__global__ void ctaStart(unsigned long long *out, long long spin)
{
    unsigned long long g = 0, c = 0;
    if (threadIdx.x == 0) {
        g = globaltimer();
        c = clock64();
    }
    if (spin > 0) {
        long long t0 = clock64();
        while (clock64() - t0 < spin) { }
    }
    if (threadIdx.x == 0) {
        unsigned long long g1 = globaltimer(), c1 = clock64();
        out[5 * (size_t)blockIdx.x] = g;
        out[5 * (size_t)blockIdx.x + 1] = c;
        out[5 * (size_t)blockIdx.x + 2] = smid();
        out[5 * (size_t)blockIdx.x + 3] = g1 - g;
        out[5 * (size_t)blockIdx.x + 4] = c1 - c;
    }
}

int main(int argc, char **argv)
{
    g_prog = "ctastart";
    if (argc < 3 || argc > 4) usage_fail(USAGE, "expected 2 or 3 arguments");
    int threads = (int)parse_long(argv[1], "THREADS", 1, 1024, USAGE);
    int ctas = (int)parse_long(argv[2], "CTAS", 1, 1 << 20, USAGE);
    long long spin = argc > 3 ? parse_long(argv[3], "SPIN", 0, 100000000, USAGE) : 20000;
    setup_device();
    unsigned long long *d = dev_alloc<unsigned long long>(5 * (size_t)ctas);
    ctaStart<<<ctas, threads>>>(d, spin);
    CHECK_LAUNCH();
    std::vector<unsigned long long> h(5 * (size_t)ctas);
    CHECK(cudaMemcpy(h.data(), d, h.size() * sizeof h[0], cudaMemcpyDeviceToHost));
    std::vector<std::vector<unsigned long long>> by_sm(1024);
    unsigned long long g0 = ~0ull, g1 = 0;
    double ns = 0, cyc = 0;
    for (int i = 0; i < ctas; ++i) {
        unsigned long long *r = &h[5 * (size_t)i];
        by_sm[r[2] % 1024].push_back(r[1]);
        g0 = std::min(g0, r[0]);
        g1 = std::max(g1, r[0]);
        ns += (double)r[3];
        cyc += (double)r[4];
    }
    double ghz = ns > 0 ? cyc / ns : 0;
    std::vector<unsigned long long> spans;
    for (int s = 0; s < 1024; ++s) {
        if (by_sm[s].empty()) continue;
        auto mm = std::minmax_element(by_sm[s].begin(), by_sm[s].end());
        printf("sm %d ctas %zu span %llu\n", s, by_sm[s].size(), *mm.second - *mm.first);
        spans.push_back(*mm.second - *mm.first);
    }
    std::sort(spans.begin(), spans.end());
    printf("grid %d x %d: %zu SMs, per-SM start span min %llu median %llu max %llu cycles; "
           "grid start span %llu ns = %.0f cycles at %.3f GHz\n",
           ctas, threads, spans.size(), spans.front(), spans[spans.size() / 2], spans.back(), g1 - g0,
           (double)(g1 - g0) * ghz, ghz);
    CHECK(cudaFree(d));
    return 0;
}
