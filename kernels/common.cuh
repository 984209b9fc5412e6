/* common.cuh - helpers shared by the kernel suite: CUDA error checks, strict
 * argument parsing, host-side verification.
 *
 * Every program of the suite runs one experiment (chosen by its arguments),
 * launches each kernel once (no warm-up launch: a second launch would double
 * the trace and the ncu rows), checks the result on the host against a CPU
 * reference, and prints one line on stderr. Nothing goes to stdout, because
 * ncu --csv writes its CSV there.
 *
 * Exit codes: 0 the result matched, 1 it did not (the first mismatches are
 * printed), 2 bad command line, 3 a CUDA call failed. */
#ifndef GMS_KERNELS_COMMON_CUH
#define GMS_KERNELS_COMMON_CUH

#include <cuda_runtime.h>

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <algorithm>
#include <vector>

#define EXIT_MISMATCH 1
#define EXIT_USAGE 2
#define EXIT_CUDA 3

/* Check a CUDA runtime call; on failure name the call, where, and the error. */
#define CHECK(call)                                                              \
    do {                                                                         \
        cudaError_t check_err_ = (call);                                         \
        if (check_err_ != cudaSuccess) {                                         \
            fprintf(stderr, "%s:%d: %s failed: %s (%s)\n", __FILE__, __LINE__,   \
                    #call, cudaGetErrorName(check_err_),                         \
                    cudaGetErrorString(check_err_));                             \
            exit(EXIT_CUDA);                                                     \
        }                                                                        \
    } while (0)

/* After a launch: the launch itself (bad configuration), then its execution. */
#define CHECK_LAUNCH()                        \
    do {                                      \
        CHECK(cudaGetLastError());            \
        CHECK(cudaDeviceSynchronize());       \
    } while (0)

static const char *g_prog = "kernel";

/* Print "PROG: message" and the usage line, exit EXIT_USAGE. */
__attribute__((format(printf, 2, 3))) static inline void usage_fail(const char *usage,
                                                                  const char *fmt, ...)
{
    va_list ap;
    fprintf(stderr, "%s: ", g_prog);
    va_start(ap, fmt);
    vfprintf(stderr, fmt, ap);
    va_end(ap);
    fprintf(stderr, "\nusage: %s %s\n", g_prog, usage);
    exit(EXIT_USAGE);
}

/* Parse a whole decimal integer in [lo, hi]; anything else is a usage error. */
static inline long parse_long(const char *s, const char *what, long lo, long hi, const char *usage)
{
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0') {
        fprintf(stderr, "%s: %s: '%s' is not an integer\nusage: %s %s\n", g_prog, what, s,
                g_prog, usage);
        exit(EXIT_USAGE);
    }
    if (v < lo || v > hi) {
        fprintf(stderr, "%s: %s: %ld is outside [%ld, %ld]\nusage: %s %s\n", g_prog, what, v,
                lo, hi, g_prog, usage);
        exit(EXIT_USAGE);
    }
    return v;
}


/* Pick the device and say which one ran the experiment. GMS_L2_FETCH=BYTES
 * in the environment sets the context's L2 fetch
 * granularity hint (cudaLimitMaxL2FetchGranularity, 0-128) before anything
 * runs, so that any program of the suite can be measured under another
 * value (docs/findings.md §15); unset, the driver's value stays. */
static inline void setup_device(void)
{
    int dev = 0;
    cudaDeviceProp prop;
    CHECK(cudaSetDevice(dev));
    CHECK(cudaGetDeviceProperties(&prop, dev));
    fprintf(stderr, "%s: device %d: %s (sm_%d%d, %d SMs)\n", g_prog, dev, prop.name, prop.major,
            prop.minor, prop.multiProcessorCount);
    const char *fetch = getenv("GMS_L2_FETCH");
    if (fetch && *fetch) {
        size_t got = 0;
        CHECK(cudaDeviceSetLimit(cudaLimitMaxL2FetchGranularity, (size_t)parse_long(fetch, "GMS_L2_FETCH", 0, 128, "")));
        CHECK(cudaDeviceGetLimit(&got, cudaLimitMaxL2FetchGranularity));
        fprintf(stderr, "%s: L2 fetch granularity set to %zu (GMS_L2_FETCH=%s)\n", g_prog, got, fetch);
    }
}

/* The SM a thread runs on, and the GPU's nanosecond clock (the same on every
 * SM), for the probes that ask where and when CTAs run. */
__device__ static inline unsigned smid(void)
{
    unsigned s;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(s));
    return s;
}

__device__ static inline unsigned long long globaltimer(void)
{
    unsigned long long t;
    asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
    return t;
}

/* The SM's cycle counter; the clobber keeps memory accesses on their side of
 * the read (a load issued before it, a store after it), so that two reads
 * time what lies between them. */
__device__ static inline long long clock_now(void)
{
    long long t;
    asm volatile("mov.u64 %0, %%clock64;" : "=l"(t)::"memory");
    return t;
}

/* Reads n float4 of p over the grid: a buffer larger than L2 read this way
 * leaves L2 full of its clean lines, none of the probe's (the probes' flush
 * without a profiler). sink is written never, but keeps the loads. */
__global__ void read_all(const float4 *p, size_t n, float *sink)
{
    float acc = 0.0f;
    for (size_t i = blockIdx.x * (size_t)blockDim.x + threadIdx.x; i < n; i += (size_t)gridDim.x * blockDim.x) {
        float4 v = p[i];
        acc += v.x + v.y + v.z + v.w;
    }
    if (acc == 12345.0f) sink[0] = acc;
}

/* The L2 slice probes' one question (kernels/slicepair.cu,
 * kernels/slicecontend.cu): SM sm alone reads line a and line b of buf past
 * L1, 256 times each, so that ncu's busiest-slice counter
 * (lts__t_requests_srcunit_tex_op_read.max) tells whether the two share a
 * slice. zero is 0: the compiler cannot know it, so it keeps every load. */
__global__ void readPair(const float *buf, unsigned a, unsigned b, unsigned sm, unsigned zero, float *sink)
{
    if (smid() != sm) return;
    const float *pa = buf + (size_t)a * 32 + threadIdx.x, *pb = buf + (size_t)b * 32 + threadIdx.x;
    float sum = 0.0f;
#pragma unroll 8
    for (unsigned i = 0; i < 256; ++i) sum += __ldcg(pa + i * zero) + __ldcg(pb + i * zero);
    if (sum == 12345.0f) sink[threadIdx.x] = sum; /* keeps the loads */
}

/* A 32-bit integer hash (the "lowbias32" finaliser): the probes' and the
 * generated inputs' pseudo-random numbers, the same on host and device. */
__host__ __device__ static inline unsigned int hash_mix32(unsigned int x)
{
    x ^= x >> 16;
    x *= 0x7feb352du;
    x ^= x >> 15;
    x *= 0x846ca68bu;
    x ^= x >> 16;
    return x;
}

/* Host and device buffers, allocated and freed with checks. */
static inline void *host_alloc(size_t bytes)
{
    void *p = malloc(bytes == 0 ? 1 : bytes);
    if (p == NULL) {
        fprintf(stderr, "%s: out of host memory (%zu bytes)\n", g_prog, bytes);
        exit(EXIT_CUDA);
    }
    return p;
}

template <typename T> static T *dev_alloc(size_t count)
{
    T *p = NULL;
    CHECK(cudaMalloc((void **)&p, count * sizeof(T)));
    return p;
}

/* n elements of device array d, copied to the host. */
template <typename T> static std::vector<T> download(const T *d, size_t n)
{
    std::vector<T> h(n);
    CHECK(cudaMemcpy(h.data(), d, n * sizeof(T), cudaMemcpyDeviceToHost));
    return h;
}

/* The stamped probes' OUTFILE, opened for writing, or exit 2 naming it. */
static inline FILE *open_output(const char *path)
{
    FILE *f = fopen(path, "w");
    if (!f) {
        fprintf(stderr, "%s: cannot write %s\n", g_prog, path);
        exit(EXIT_USAGE);
    }
    return f;
}

/* Lane 0 of a warp stores its three stamps of %globaltimer (g) and clock64
 * (ck) as warp w's, and its SM: the layout of vectimed's and transtimed's
 * OUTFILE (three stamps a warp). */
__device__ static inline void store_warp_stamps(size_t w, unsigned long long g0, unsigned long long g1,
                                                unsigned long long g2, long long c0, long long c1, long long c2,
                                                unsigned long long *g, long long *ck, unsigned *sm)
{
    g[w * 3] = g0, g[w * 3 + 1] = g1, g[w * 3 + 2] = g2;
    ck[w * 3] = c0, ck[w * 3 + 1] = c1, ck[w * 3 + 2] = c2;
    sm[w] = smid();
}

/* Leave L2 full of clean lines of a scratch buffer of mib MiB, read twice
 * (read_all), none of the probe's: the stamped probes' flush without a
 * profiler, as ncu's cache control leaves L2. */
static inline void flush_l2(size_t mib)
{
    size_t floats = mib * 1024 * 1024 / sizeof(float);
    float *scratch = dev_alloc<float>(floats), *sink = dev_alloc<float>(1);
    CHECK(cudaMemset(scratch, 0, floats * sizeof(float)));
    for (int r = 0; r < 2; ++r) {
        read_all<<<132 * 8, 256>>>((const float4 *)scratch, floats / 4, sink);
        CHECK_LAUNCH();
    }
    CHECK(cudaFree(scratch));
    CHECK(cudaFree(sink));
}

/* One line on stderr: "PROG WHAT n N mean M ventiles V0 V2 .. V20" (every
 * tenth, the stamped probes' summaries of their stamps). */
static inline void print_ventiles(const char *what, std::vector<long long> v)
{
    if (v.empty()) return;
    std::sort(v.begin(), v.end());
    double sum = 0;
    for (long long x : v) sum += (double)x;
    size_t n = v.size();
    fprintf(stderr, "%s %-22s n %5zu mean %8.1f ventiles", g_prog, what, n, sum / (double)n);
    for (int q = 0; q <= 20; q += 2) fprintf(stderr, " %lld", v[q == 20 ? n - 1 : q * n / 20]);
    fprintf(stderr, "\n");
}

/* Small integers as floats: every sum and product the kernels form of these
 * is exact in float, so results can be compared for equality. */
static inline float small_value(size_t i) { return (float)((i * 7u + 3u) % 61u) - 30.0f; }

/* Compare got against want with a relative tolerance (0 = exact); print the
 * first few mismatches and return how many there were. */
static inline size_t count_mismatches(const char *what, const float *got, const float *want, size_t n,
                               float rtol)
{
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        float g = got[i], w = want[i];
        float tol = rtol * fmaxf(1.0f, fabsf(w));
        int ok = rtol == 0.0f ? g == w : fabsf(g - w) <= tol;
        if (!ok) {
            if (bad < 5)
                fprintf(stderr, "%s: %s[%zu] = %.9g, expected %.9g\n", g_prog, what, i, g, w);
            ++bad;
        }
    }
    if (bad > 5)
        fprintf(stderr, "%s: ... %zu mismatches in %s out of %zu\n", g_prog, bad, what, n);
    return bad;
}

/* Final report: one line, exit code 0 or EXIT_MISMATCH. */
static inline int finish(const char *experiment, size_t mismatches)
{
    if (mismatches != 0) {
        fprintf(stderr, "%s: %s: FAILED (%zu mismatches)\n", g_prog, experiment, mismatches);
        return EXIT_MISMATCH;
    }
    fprintf(stderr, "%s: %s: PASSED\n", g_prog, experiment);
    return 0;
}

#endif
