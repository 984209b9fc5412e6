/* tlb.cu - what a load pays the first time its SM touches a page
 * (docs/findings.md §19). Nothing before this probe measured the TLB on a
 * cold start: hardware-facts §1d timed chases with warm TLBs.
 *
 * A 2 GiB buffer that no kernel has touched (cudaMalloc only: the driver
 * maps it, no SM has translated it); L2 emptied first by reading 256 MiB
 * elsewhere. One thread reads one line in each of PAGES pages of 2 MiB
 * (stride STRIDE pages), one load after another (each address depends on
 * the last value), timing each with clock64; every load misses L2 (a line
 * not read before), so only the translation differs between runs:
 *   first   : line 0 of each page, the first touch of the pages
 *   again   : line 64 of each page, on the same SM (translations warm)
 *   other   : line 128 of each page, on another SM
 *   cold    : line 0 of each page of a second buffer's pages, never touched
 *   memcpy  : the same of a third buffer that a copy from the host wrote
 *   memset  : the same of a fourth that cudaMemset wrote
 *   burst   : 132 one-warp CTAs each load one line of the first page of a
 *             64 MiB buffer at once: fresh, written by a host copy, and the
 *             fresh one again (other lines)
 * usage: tlb [STRIDE]   (1 to 64, default 1; 32 puts the pages 64 MiB apart). Prints
 * per run the SM, the mean and the ventiles of the loads' cycles. Under ncu
 * (its cache control flushes before each pass) the runs show what a
 * profiled kernel pays. Exit codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define PAGES 256
#define PAGE_FLOATS (2u * 1024u * 1024u / 4u)
#define LINE_FLOATS 32u

static const char *USAGE = "[STRIDE]";

__device__ static inline float load_cg(const float *p)
{
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p));
    return v;
}

/* CTA `worker` (one thread) reads line `line` of PAGES pages `stride` apart;
 * the other CTAs only place it on another SM */
__global__ void touch(const float *buf, unsigned stride, unsigned line, unsigned worker, unsigned *lat,
                      unsigned *smid, float *sink)
{
    if (blockIdx.x != worker) return;
    __shared__ volatile float pad[256];
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    int dep = 0;
    float acc = 0.0f;
    for (unsigned i = 0; i < PAGES; ++i) {
        const float *p = buf + (size_t)i * stride * PAGE_FLOATS + line * LINE_FLOATS + dep;
        long long t0 = clock_now();
        float v = load_cg(p);
        pad[i & 255] = v;
        long long t1 = clock_now();
        dep = (int)v & 1; /* uninitialized memory: keep the address in the line */
        lat[i] = (unsigned)(t1 - t0);
        acc += v;
    }
    *smid = sm;
    sink[0] = acc;
}

/* every CTA's thread 0 reads one line of the buffer's first page at once
 * (a one-wave kernel's first loads) */
__global__ void burst(const float *buf, unsigned *lat, float *sink)
{
    if (threadIdx.x != 0) return;
    long long t0 = clock_now();
    float v = load_cg(buf + (size_t)blockIdx.x * 64u * LINE_FLOATS);
    sink[1 + blockIdx.x] = v;
    long long t1 = clock_now();
    lat[blockIdx.x] = (unsigned)(t1 - t0);
}

int main(int argc, char **argv)
{
    g_prog = "tlb";
    if (argc > 2) usage_fail(USAGE, "expected at most one argument, got %d", argc - 1);
    unsigned stride = argc == 2 ? (unsigned)parse_long(argv[1], "STRIDE", 1, 64, USAGE) : 1u;
    setup_device();
    size_t span = (size_t)PAGES * stride * PAGE_FLOATS;
    float *buf = dev_alloc<float>(span);
    float *buf2 = dev_alloc<float>(span);
    float *sink = dev_alloc<float>(1 + 132);
    unsigned *dlat = dev_alloc<unsigned>(PAGES), *dsm = dev_alloc<unsigned>(1);
    size_t sfloats = (size_t)64 * 1024 * 1024;
    float *scratch = dev_alloc<float>(sfloats);
    CHECK(cudaMemset(scratch, 0, sfloats * sizeof(float)));
    read_all<<<132 * 8, 256>>>((const float4 *)scratch, sfloats / 4, sink);
    CHECK_LAUNCH();
    /* buf3's pages written by a copy from the host, buf4's by cudaMemset,
     * before any kernel reads them */
    float *buf3 = dev_alloc<float>(span), *buf4 = dev_alloc<float>(span);
    std::vector<float> host(PAGE_FLOATS, 0.0f);
    for (unsigned i = 0; i < PAGES; ++i) {
        CHECK(cudaMemcpy(buf3 + (size_t)i * stride * PAGE_FLOATS, host.data(), PAGE_FLOATS * sizeof(float),
                         cudaMemcpyHostToDevice));
        CHECK(cudaMemset(buf4 + (size_t)i * stride * PAGE_FLOATS, 0, PAGE_FLOATS * sizeof(float)));
    }
    CHECK(cudaDeviceSynchronize());
    read_all<<<132 * 8, 256>>>((const float4 *)scratch, sfloats / 4, sink); /* L2 emptied again */
    CHECK_LAUNCH();
    struct run {
        const char *name;
        const float *b;
        unsigned line, worker, ctas;
    } runs[] = {{"first", buf, 0, 0, 1},   {"again", buf, 64, 0, 1},   {"other", buf, 128, 1, 2},
                {"cold", buf2, 0, 0, 1},    {"memcpy", buf3, 0, 0, 1}, {"memset", buf4, 0, 0, 1}};
    for (const run &r : runs) {
        touch<<<r.ctas, 1>>>(r.b, stride, r.line, r.worker, dlat, dsm, sink);
        CHECK_LAUNCH();
        std::vector<unsigned> lat(PAGES);
        unsigned sm = 0;
        CHECK(cudaMemcpy(lat.data(), dlat, PAGES * sizeof(unsigned), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&sm, dsm, sizeof sm, cudaMemcpyDeviceToHost));
        std::sort(lat.begin(), lat.end());
        double sum = 0;
        for (unsigned x : lat) sum += x;
        fprintf(stderr, "tlb stride %2u %-6s SM %3u: mean %.1f ventiles", stride, r.name, sm, sum / PAGES);
        for (int q = 0; q <= 20; ++q) fprintf(stderr, " %u", lat[q == 20 ? PAGES - 1 : q * PAGES / 20]);
        fprintf(stderr, "\n");
    }
    /* the first loads of 132 CTAs at once: a fresh 64 MiB buffer, one a
     * host copy wrote, then the fresh one again */
    float *fresh = dev_alloc<float>((size_t)16 * 1024 * 1024), *copied = dev_alloc<float>((size_t)16 * 1024 * 1024);
    CHECK(cudaMemcpy(copied, host.data(), PAGE_FLOATS * sizeof(float), cudaMemcpyHostToDevice));
    read_all<<<132 * 8, 256>>>((const float4 *)scratch, sfloats / 4, sink);
    CHECK_LAUNCH();
    const float *bufs[] = {fresh, copied, fresh};
    const char *names[] = {"fresh", "copied", "again"};
    for (int r = 0; r < 3; ++r) {
        burst<<<132, 32>>>(bufs[r] + (r == 2 ? 32u : 0u), dlat, sink);
        CHECK_LAUNCH();
        std::vector<unsigned> lat(132);
        CHECK(cudaMemcpy(lat.data(), dlat, 132 * sizeof(unsigned), cudaMemcpyDeviceToHost));
        std::sort(lat.begin(), lat.end());
        double sum = 0;
        for (unsigned x : lat) sum += x;
        fprintf(stderr, "tlb burst %-6s 132 CTAs: mean %.1f min %u median %u max %u\n", names[r], sum / 132, lat[0],
                lat[66], lat[131]);
    }
    CHECK(cudaFree(fresh));
    CHECK(cudaFree(copied));
    CHECK(cudaFree(buf));
    CHECK(cudaFree(buf2));
    CHECK(cudaFree(buf3));
    CHECK(cudaFree(buf4));
    CHECK(cudaFree(scratch));
    CHECK(cudaFree(sink));
    CHECK(cudaFree(dlat));
    CHECK(cudaFree(dsm));
    return finish("tlb", 0);
}
