/* icache.cu - what fetching a kernel's code costs a warp the first time it
 * runs it (docs/findings.md §23). PyTorch's kernels are large (sum over
 * columns: 6,008 instructions, 96 KB) and jump between far parts of their
 * code; a third of reduce_kernel's warp samples are `no_inst` (the next
 * instruction not fetched), and the timing model fetches nothing.
 *
 * Each warp times (clock64) one pass over a code region, twice: the first
 * pass fetches the code, the second runs it from the instruction caches.
 *   straight L: L lines (128 bytes, 8 FFMA of 8 independent chains) in a row;
 *   jumps G:    16 lines executed (fewer for large G), each followed by G
 *               lines that are not (a branch over them), so that every
 *               executed line is a jump away from the one before (G 0: the
 *               same 16 lines in a row).
 * WARPS warps a CTA, CTAS CTAs (one a SM at most 132), LAUNCHES launches of the
 * same kernel in the process (the later ones: is the code still cached?).
 * One line a launch on stderr: per pass, warp 0 of CTA 0 and the mean and
 * max over all warps, in cycles.
 *
 *   loop E:     64 iterations of a loop over E lines (a taken branch back);
 *   const S:    16 reads of a __constant__ table S bytes apart, each added to
 *               one chain (the constant cache: its line, a miss's cost);
 *   params N:   a kernel (no clock) that reads N 64-byte lines of its 2 KB of
 *               parameters: ncu's cycles against N (0, 1, 2, 4, 8, 16, 32);
 *   cbank N:    the same with N lines of the __constant__ table (bank 3; N 0,
 *               1, 2, 4, 8, 16).
 * usage: icache straight|jumps|loop|const SIZE WARPS CTAS [LAUNCHES]
 *   straight SIZE: 8, 32, 128, 256, 512, 1024 lines; jumps SIZE (G): 0, 1, 2, 3,
 *   5, 8, 13, 32, 40, 128 (16 regions), 64, 100 (8), 300 (4), 1032 (G 32, 4
 *   lines a region), 1100 (G 100, 8 regions of 4 lines); loop SIZE (E): 1, 2, 4;
 *   const SIZE (bytes apart): 4, 32, 64, 128, 256, 1024, 2048 */
#include "common.cuh"

static const char *USAGE = "straight|jumps|loop|const|params|cbank SIZE WARPS CTAS [LAUNCHES]";

/* n lines of code: 8 independent FFMA a line */
#define CHAINS float &x0, float &x1, float &x2, float &x3, float &x4, float &x5, float &x6, float &x7
template <int N> __device__ __forceinline__ void lines(CHAINS, float a, float b)
{
#pragma unroll
    for (int i = 0; i < N; ++i) {
        x0 = fmaf(x0, a, b); x1 = fmaf(x1, a, b); x2 = fmaf(x2, a, b); x3 = fmaf(x3, a, b);
        x4 = fmaf(x4, a, b); x5 = fmaf(x5, a, b); x6 = fmaf(x6, a, b); x7 = fmaf(x7, a, b);
    }
}

template <int L> __device__ __forceinline__ void straight(CHAINS, float a, float b, int skip)
{
    (void)skip;
    lines<L>(x0, x1, x2, x3, x4, x5, x6, x7, a, b);
}

/* R regions of E executed lines, each followed by G lines that are not */
template <int G, int R, int E> __device__ __forceinline__ void jumps(CHAINS, float a, float b, int skip)
{
#pragma unroll
    for (int r = 0; r < R; ++r) {
        lines<E>(x0, x1, x2, x3, x4, x5, x6, x7, a, b);
        if (G > 0 && (skip >> r) & 1) /* skip is 0: never taken, but the compiler cannot know */
            lines<G>(x0, x1, x2, x3, x4, x5, x6, x7, b, a);
    }
}

/* a loop of ITER iterations over E lines: what a taken branch back costs */
template <int E> __device__ __forceinline__ void loop(CHAINS, float a, float b, int iters)
{
#pragma unroll 1
    for (int i = 0; i < iters; ++i)
        lines<E>(x0, x1, x2, x3, x4, x5, x6, x7, a, b);
}

/* 16 reads of a constant table S bytes apart, each added to a chain: the
 * constant cache's line and what a miss costs (imc stalls) */
__constant__ float c_table[8192];
/* k is 0 at run time, but not known to the compiler: the read stays in the
 * pass, not hoisted out of the pass loop as a read at a fixed address is */
template <int I, int S> __device__ __forceinline__ void const_read(float &x, int k)
{
    x += c_table[(I * S / 4) % 8192 + k];
}
template <int S> __device__ __forceinline__ void consts(CHAINS, int k)
{
    const_read<0, S>(x0, k); const_read<1, S>(x0, k); const_read<2, S>(x0, k); const_read<3, S>(x0, k);
    const_read<4, S>(x0, k); const_read<5, S>(x0, k); const_read<6, S>(x0, k); const_read<7, S>(x0, k);
    const_read<8, S>(x0, k); const_read<9, S>(x0, k); const_read<10, S>(x0, k); const_read<11, S>(x0, k);
    const_read<12, S>(x0, k); const_read<13, S>(x0, k); const_read<14, S>(x0, k); const_read<15, S>(x0, k);
    (void)x1; (void)x2; (void)x3; (void)x4; (void)x5; (void)x6; (void)x7;
}

/* KIND 0: straight S lines; 1: jumps (G S, R regions of E lines); 2: a loop
 * of 64 iterations over S lines */
template <int KIND, int S, int R = 16, int E = 1> __global__ void region(float a, float b, int skip, long long *cyc, float *out)
{
    float x0 = threadIdx.x, x1 = x0 + 1, x2 = x0 + 2, x3 = x0 + 3, x4 = x0 + 4, x5 = x0 + 5, x6 = x0 + 6, x7 = x0 + 7;
    int warp = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
#pragma unroll 1
    for (int pass = 0; pass < 2; ++pass) {
        long long t0 = clock_now();
        if (KIND == 0)
            lines<S>(x0, x1, x2, x3, x4, x5, x6, x7, a, b);
        else if (KIND == 1)
            jumps<S, R, E>(x0, x1, x2, x3, x4, x5, x6, x7, a, b, skip);
        else if (KIND == 2)
            loop<S>(x0, x1, x2, x3, x4, x5, x6, x7, a, b, 64 + skip);
        else
            consts<S>(x0, x1, x2, x3, x4, x5, x6, x7, skip * pass);
        long long t1 = clock_now();
        if (threadIdx.x % 32 == 0)
            cyc[warp * 2 + pass] = t1 - t0;
    }
    out[blockIdx.x * blockDim.x + threadIdx.x] = x0 + x1 + x2 + x3 + x4 + x5 + x6 + x7;
}

typedef void (*kernel_fn)(float, float, int, long long *, float *);

/* 2 KB of kernel parameters: a warp reads the first float of N of its 64-byte
 * lines (ULDC, bank 0), so ncu's cycles of the kernel say what each line a
 * warp asks for costs on a cold constant cache (params N, no clock: the
 * compiler moves parameter reads to the kernel's start) */
struct big_params {
    float v[512];
};
template <int N> __global__ void params(big_params p, float *out)
{
    float x = threadIdx.x;
#pragma unroll
    for (int i = 0; i < N; ++i)
        x += p.v[i * 16];
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

typedef void (*params_fn)(big_params, float *);

/* the same with N lines of the __constant__ table (bank 3) */
template <int N> __global__ void cbank(big_params p, float *out)
{
    float x = threadIdx.x;
    (void)p;
#pragma unroll
    for (int i = 0; i < N; ++i)
        x += c_table[i * 16];
    out[blockIdx.x * blockDim.x + threadIdx.x] = x;
}

static params_fn pick_cbank(int n)
{
    switch (n) {
    case 0: return cbank<0>;
    case 1: return cbank<1>;
    case 2: return cbank<2>;
    case 4: return cbank<4>;
    case 8: return cbank<8>;
    case 16: return cbank<16>;
    }
    return NULL;
}

static params_fn pick_params(int n)
{
    switch (n) {
    case 0: return params<0>;
    case 1: return params<1>;
    case 2: return params<2>;
    case 4: return params<4>;
    case 8: return params<8>;
    case 16: return params<16>;
    case 32: return params<32>;
    }
    return NULL;
}

static kernel_fn pick(int kind, int size)
{
    if (kind == 0)
        switch (size) {
        case 8: return region<0, 8>;
        case 32: return region<0, 32>;
        case 128: return region<0, 128>;
        case 256: return region<0, 256>;
        case 512: return region<0, 512>;
        case 1024: return region<0, 1024>;
        }
    else if (kind == 1)
        switch (size) {
        case 0: return region<1, 0>;
        case 1: return region<1, 1>;
        case 2: return region<1, 2>;
        case 3: return region<1, 3>;
        case 5: return region<1, 5>;
        case 8: return region<1, 8>;
        case 13: return region<1, 13>;
        case 32: return region<1, 32>;
        case 40: return region<1, 40>;
        case 64: return region<1, 64, 8>;
        case 100: return region<1, 100, 8>;
        case 128: return region<1, 128>;
        case 300: return region<1, 300, 4>;
        case 1032: return region<1, 32, 16, 4>; /* 4 lines a region */
        case 1100: return region<1, 100, 8, 4>;
        }
    else if (kind == 3)
        switch (size) {
        case 4: return region<3, 4>;
        case 32: return region<3, 32>;
        case 64: return region<3, 64>;
        case 128: return region<3, 128>;
        case 256: return region<3, 256>;
        case 1024: return region<3, 1024>;
        case 2048: return region<3, 2048>;
        }
    else
        switch (size) {
        case 1: return region<2, 1>;
        case 2: return region<2, 2>;
        case 4: return region<2, 4>;
        }
    return NULL;
}

int main(int argc, char **argv)
{
    g_prog = "icache";
    if (argc < 5 || argc > 6) usage_fail(USAGE, "expected 4 or 5 arguments");
    if (argc >= 5 && (strcmp(argv[1], "params") == 0 || strcmp(argv[1], "cbank") == 0)) {
        bool cb = strcmp(argv[1], "cbank") == 0;
        int np = (int)parse_long(argv[2], "SIZE", 0, 32, USAGE);
        int warps = (int)parse_long(argv[3], "WARPS", 1, 32, USAGE);
        int ctas = (int)parse_long(argv[4], "CTAS", 1, 132, USAGE);
        params_fn pf = cb ? pick_cbank(np) : pick_params(np);
        if (!pf) usage_fail(USAGE, "no %s kernel of %d lines", argv[1], np);
        setup_device();
        big_params bp;
        for (int i = 0; i < 512; ++i) bp.v[i] = (float)(i / 16);
        float *o = dev_alloc<float>((size_t)ctas * warps * 32);
        pf<<<ctas, 32 * warps>>>(bp, o);
        CHECK_LAUNCH();
        float *ho = (float *)host_alloc((size_t)ctas * warps * 32 * sizeof(float));
        CHECK(cudaMemcpy(ho, o, (size_t)ctas * warps * 32 * sizeof(float), cudaMemcpyDeviceToHost));
        size_t bad = 0;
        for (int i = 0; i < ctas * warps * 32; ++i)
            bad += ho[i] != (float)(i % (32 * warps)) + (cb ? 0.0f : (float)(np * (np - 1) / 2));
        CHECK(cudaFree(o));
        free(ho);
        fprintf(stderr, "icache %s %d %d %d: %s\n", argv[1], np, warps, ctas, bad ? "FAILED" : "PASSED");
        return bad ? EXIT_MISMATCH : 0;
    }
    int kind = strcmp(argv[1], "straight") == 0 ? 0 : strcmp(argv[1], "jumps") == 0 ? 1 : strcmp(argv[1], "loop") == 0 ? 2 : strcmp(argv[1], "const") == 0 ? 3 : -1;
    if (kind < 0) usage_fail(USAGE, "'%s' is none of straight, jumps, loop, const", argv[1]);
    int size = (int)parse_long(argv[2], "SIZE", 0, 2048, USAGE);
    int warps = (int)parse_long(argv[3], "WARPS", 1, 32, USAGE);
    int ctas = (int)parse_long(argv[4], "CTAS", 1, 132, USAGE);
    int launches = argc == 6 ? (int)parse_long(argv[5], "LAUNCHES", 1, 8, USAGE) : 1;
    kernel_fn k = pick(kind, size);
    if (!k) usage_fail(USAGE, "no region of size %d for %s", size, argv[1]);
    setup_device();
    int n = warps * ctas;
    long long *cyc = dev_alloc<long long>((size_t)n * 2);
    float *out = dev_alloc<float>((size_t)n * 32);
    long long *h = (long long *)host_alloc((size_t)n * 2 * sizeof(long long));
    for (int l = 0; l < launches; ++l) {
        k<<<ctas, 32 * warps>>>(1.0f, 0.0f, 0, cyc, out);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(h, cyc, (size_t)n * 2 * sizeof(long long), cudaMemcpyDeviceToHost));
        fprintf(stderr, "icache: %s %d warps %d ctas %d launch %d:", argv[1], size, warps, ctas, l);
        for (int p = 0; p < 2; ++p) {
            double sum = 0;
            long long mx = 0;
            for (int w = 0; w < n; ++w) {
                sum += (double)h[w * 2 + p];
                mx = h[w * 2 + p] > mx ? h[w * 2 + p] : mx;
            }
            fprintf(stderr, " pass%d first %lld mean %.0f max %lld;", p, h[p], sum / n, mx);
        }
        fprintf(stderr, "\n");
    }
    /* a = 1, b = 0: every chain keeps its start value */
    float *ho = (float *)host_alloc((size_t)n * 32 * sizeof(float));
    CHECK(cudaMemcpy(ho, out, (size_t)n * 32 * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int i = 0; i < n * 32; ++i) {
        float x = (float)(i % (32 * warps));
        bad += ho[i] != 8 * x + 28;
    }
    CHECK(cudaFree(cyc));
    CHECK(cudaFree(out));
    free(h);
    free(ho);
    fprintf(stderr, "icache %s %d %d %d: %s\n", argv[1], size, warps, ctas, bad ? "FAILED" : "PASSED");
    return bad ? EXIT_MISMATCH : 0;
}
