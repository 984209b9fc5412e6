/* farlat.cu - the L2 fabric's extra latency on the H200, measured per line
 * (docs/findings.md §7). One thread on SM A loads every 128-byte line of a
 * buffer once (ld.global.cg, so L1 is bypassed; the lines come from DRAM and
 * are kept at their home slice and, when homed in the other partition, as a
 * copy in A's partition); then one thread on SM B loads every line again
 * (L2 hits). Each load is timed alone with clock64 (the next load's address
 * depends on the previous value, so loads do not overlap).
 *
 * If B shares A's partition it finds every line near (at home or as A's
 * copy): one latency. If B is in the other partition, the lines homed with A
 * are far for B: two latencies, and their difference is the fabric's cost.
 * A's own first-touch (DRAM) latencies split the same way by home.
 *
 * usage: farlat KIB A B...   (one launch per B; 132 CTAs, one per SM, forced
 * by shared memory; only the CTAs on A and B work.) Prints per B on stderr:
 * the median latency of the faster and slower halves of A's and B's loads
 * (split at the largest gap of the sorted latencies) and how many loads each
 * half has, then the mean and the ventiles (min, p5, ..., p95, max). Exit
 * codes as common.cuh. */
#include "common.cuh"

#include <algorithm>
#include <vector>

#define LINE_FLOATS 32

static const char *USAGE = "KIB A B...";

__device__ static float load_cg(const float *p)
{
    float v;
    asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
    return v;
}

__global__ void farLatency(const float *buf, int lines, unsigned sm_a, unsigned sm_b,
                           unsigned *flag, unsigned *lat_a, unsigned *lat_b, float *sink)
{
    extern __shared__ float pad[];
    unsigned sm = smid();
    if (threadIdx.x != 0 || (sm != sm_a && sm != sm_b)) return;
    pad[0] = 0.0f;
    bool is_a = sm == sm_a;
    if (!is_a) { /* wait until A has read everything */
        while (atomicAdd(flag, 0u) == 0u) {
        }
    }
    unsigned *lat = is_a ? lat_a : lat_b;
    float acc = 0.0f;
    int dep = 0;
    for (int i = 0; i < lines; ++i) {
        const float *p = buf + (size_t)i * LINE_FLOATS + dep;
        long long t0 = clock_now();
        float v = load_cg(p);
        pad[i & 255] = v; /* waits for the value (as in Jia et al.'s pointer chases) */
        long long t1 = clock_now();
        dep = (int)v; /* the buffer holds zeros: dep stays 0, and the next address waits for v */
        lat[i] = (unsigned)(t1 - t0);
        acc += v;
    }
    if (is_a) {
        __threadfence();
        atomicExch(flag, 1u);
    }
    sink[sm] = acc;
}

/* split sorted latencies at their largest gap; print both halves' medians */
static void describe(const char *who, std::vector<unsigned> v)
{
    std::sort(v.begin(), v.end());
    size_t n = v.size(), cut = 0;
    unsigned gap = 0;
    /* ignore the outer 1% when looking for the gap */
    for (size_t i = n / 100 + 1; i + n / 100 < n; ++i)
        if (v[i] - v[i - 1] > gap) gap = v[i] - v[i - 1], cut = i;
    if (gap < 40) cut = n; /* one mode */
    fprintf(stderr, " %s: fast n %zu median %u", who, cut, cut ? v[cut / 2] : 0u);
    if (cut < n) fprintf(stderr, " | slow n %zu median %u", n - cut, v[cut + (n - cut) / 2]);
    fprintf(stderr, " | p1 %u p99 %u;", v[n / 100], v[n - 1 - n / 100]);
    /* the whole distribution, for a model that draws latencies from it */
    double sum = 0;
    for (unsigned x : v) sum += x;
    fprintf(stderr, " mean %.1f ventiles", sum / (double)n);
    for (int q = 0; q <= 20; ++q) fprintf(stderr, " %u", v[q == 20 ? n - 1 : q * n / 20]);
    fprintf(stderr, ";");
}

int main(int argc, char **argv)
{
    g_prog = "farlat";
    if (argc < 4) usage_fail(USAGE, "expected KIB, A and at least one B");
    int kib = (int)parse_long(argv[1], "KIB", 4, 1 << 16, USAGE);
    setup_device();
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int nsm = p.multiProcessorCount;
    int a = (int)parse_long(argv[2], "A", 0, nsm - 1, USAGE);
    int smem = (int)(p.sharedMemPerMultiprocessor / 2 + 1024);
    CHECK(cudaFuncSetAttribute(farLatency, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int lines = kib * 1024 / 128;
    unsigned *lat_a = dev_alloc<unsigned>(lines), *lat_b = dev_alloc<unsigned>(lines);
    unsigned *flag = dev_alloc<unsigned>(1);
    float *sink = dev_alloc<float>(nsm);
    std::vector<unsigned> ha(lines), hb(lines);
    for (int k = 3; k < argc; ++k) {
        int b = (int)parse_long(argv[k], "B", 0, nsm - 1, USAGE);
        if (b == a) usage_fail(USAGE, "B must differ from A");
        /* a fresh buffer per B, so that A's loads come from DRAM */
        float *buf = dev_alloc<float>((size_t)lines * LINE_FLOATS);
        CHECK(cudaMemset(buf, 0, (size_t)lines * 128));
        CHECK(cudaMemset(flag, 0, sizeof(unsigned)));
        /* evict buf from L2: stream 256 MiB through it */
        size_t big = 256u << 20;
        char *junk = dev_alloc<char>(big);
        CHECK(cudaMemset(junk, 1, big));
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaFree(junk));
        farLatency<<<nsm, 32, smem>>>(buf, lines, (unsigned)a, (unsigned)b, flag, lat_a, lat_b, sink);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(ha.data(), lat_a, sizeof(unsigned) * lines, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hb.data(), lat_b, sizeof(unsigned) * lines, cudaMemcpyDeviceToHost));
        fprintf(stderr, "A %d B %d:", a, b);
        describe("A first touch", ha);
        describe("B", hb);
        /* do B's slow lines coincide with A's slow (far-homed) first touches? */
        unsigned ma = 0, mb = 0;
        {
            std::vector<unsigned> sa(ha), sb(hb);
            std::nth_element(sa.begin(), sa.begin() + lines / 2, sa.end());
            std::nth_element(sb.begin(), sb.begin() + lines / 2, sb.end());
            ma = sa[lines / 2], mb = sb[lines / 2];
        }
        int both = 0, bslow = 0;
        for (int i = 0; i < lines; ++i) {
            bool sa_ = ha[i] > ma, sb_ = hb[i] > mb + 40;
            bslow += sb_;
            both += sa_ && sb_;
        }
        fprintf(stderr, " B slow (> median + 40): %d, of them A slow: %d\n", bslow, both);
        CHECK(cudaFree(buf));
    }
    CHECK(cudaFree(lat_a));
    CHECK(cudaFree(lat_b));
    CHECK(cudaFree(flag));
    CHECK(cudaFree(sink));
    char what[64];
    snprintf(what, sizeof what, "farLatency A %d, %d partners, %d KiB", a, argc - 3, kib);
    return finish(what, 0);
}
