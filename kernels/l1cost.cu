/* l1cost.cu - what a global load that hits in L1 costs in cycles, the warp
 * that issues it and the SM, by the lines it touches and its data-stage
 * wavefronts; and shared loads and stores and global stores beside it
 * (docs/findings.md §17; smemcost.cu, §10, measured shared loads' latency
 * and the SM's rate, not one warp's).
 *
 * One CTA of W warps on one SM reads an 8 KiB table through L1. Lane
 * l reads word
 *   conflict:  (l / N) of line (l % N): N lines, N lanes on each word offset,
 *              so N wavefronts (the bank rule applied to global addresses,
 *              hardware-facts §3.4)
 *   spread:    l of line (l % N): N lines, every lane its own bank, 1 wavefront
 * (N = 1, 2, 4, 8, 16, 32). Each word holds its own index, so a load's
 * address is the previous load's data (through an IMAD.WIDE). A first pass
 * of 4 loads per chain fills L1; the timed pass (clock64, thread 0, between
 * two barriers) has every warp run CHAINS independent chains of ITERS loads
 * (rate; W warps) or warp 0 one chain (lat; W = 1). The loads are plain
 * (LDG.E, as the suite's kernels load); rate-ca is rate through __ldca, which
 * ptxas makes LDG.E.STRONG.SM (the first call of §17 measured rate and lat
 * that way).
 *
 * burst: every warp issues B independent loads a loop step (B = 32, and 8
 * for conflict N 1), load k k lines past the lane's word, from one address
 * register plus an immediate with no arithmetic between them, then adds
 * them up: the rate at which a warp, and an SM, issue LDGs that hit.
 *
 * burst ACTIVE: only the warps of this bit mask load (the others wait at the
 * barriers), to place the loading warps on chosen sub-partitions.
 *
 * lds, sts, stg: burst's conflict pattern with shared loads, shared stores
 * or global stores instead (B = 32): what the other LSU instructions cost.
 *
 * usage: l1cost lat ITERS | l1cost rate|rate-ca|lds|sts|stg W ITERS | l1cost burst W ITERS [ACTIVE]
 *   one launch per pattern and N; one line each on stderr:
 *   "l1cost MODE W w PATTERN N n [B b]: X cycles per load (per LDG instruction of the SM)" */
#include "common.cuh"

#define CHAINS 8
#define WARM 4

static const char *USAGE = "lat ITERS | rate|rate-ca|lds|sts|stg W ITERS | burst W ITERS [ACTIVE]";

__device__ static int word_of(int lane, int n, bool conflict)
{
    return (lane % n) * 32 + (conflict ? lane / n : lane);
}

template <int CH, bool CONFLICT, bool CA>
__global__ void l1Cost(const int *table, int n, int iters, int zero, long long *cycles, int *sink)
{
    int lane = threadIdx.x % 32;
    int w = word_of(lane, n, CONFLICT);
    int c[CH];
    /* the chains start from values the compiler cannot prove equal (else it
     * would fold them into one) */
#pragma unroll
    for (int k = 0; k < CH; ++k) c[k] = w + k * zero;
    for (int i = 0; i < WARM; ++i) {
#pragma unroll
        for (int k = 0; k < CH; ++k) c[k] = CA ? __ldca(table + c[k]) : table[c[k]];
    }
    __syncthreads();
    long long t0 = clock64();
    for (int i = 0; i < iters; ++i) {
#pragma unroll
        for (int k = 0; k < CH; ++k) c[k] = CA ? __ldca(table + c[k]) : table[c[k]];
    }
    __syncthreads();
    long long t1 = clock64();
    int acc = 0;
#pragma unroll
    for (int k = 0; k < CH; ++k) acc += c[k];
    sink[threadIdx.x] = acc;
    if (threadIdx.x == 0) cycles[0] = t1 - t0;
}

/* B loads a loop step, load k on line k further than the lane's word (so no
 * two are the same load), from one address register plus an immediate; the
 * register moves by (i & zero) words, which the compiler cannot prove 0, so
 * it neither hoists the loads out of the loop nor merges them */
template <int B, bool CONFLICT>
__global__ void l1Burst(const int *table, int n, int iters, int zero, unsigned active, long long *cycles,
                        int *sink)
{
    const int *base = table + word_of(threadIdx.x % 32, n, CONFLICT);
    bool on = (active >> (threadIdx.x / 32)) & 1u; /* warps outside ACTIVE only wait at the barriers */
    int v[B], acc = 0;
    for (int i = 0; i < 1 + iters; ++i) {
        if (i == 1) { /* the first step fills L1 */
            __syncthreads();
            if (threadIdx.x == 0) cycles[0] = clock64();
        }
        if (!on) continue;
        const int *p = base + (i & zero);
#pragma unroll
        for (int k = 0; k < B; ++k) v[k] = p[k * 32];
#pragma unroll
        for (int k = 0; k < B; ++k) acc += v[k];
    }
    __syncthreads();
    if (threadIdx.x == 0) cycles[0] = clock64() - cycles[0];
    sink[threadIdx.x] = acc;
}

/* lds, sts, stg: B shared loads, shared stores or global stores a loop
 * step, at burst's addresses in the conflict pattern (instruction k k lines
 * past the lane's word: N wavefronts), to compare with the loads */
enum { OTHER_LDS, OTHER_STS, OTHER_STG };
template <int KIND>
__global__ void l1Other(int *table, int n, int iters, int zero, long long *cycles, int *sink)
{
    __shared__ int sm[64 * 32];
    const int B = 32;
    int w = word_of(threadIdx.x % 32, n, true);
    for (int i = threadIdx.x; i < 64 * 32; i += blockDim.x) sm[i] = i;
    int acc = 0;
    for (int i = 0; i < 1 + iters; ++i) {
        if (i == 1) {
            __syncthreads();
            if (threadIdx.x == 0) cycles[0] = clock64();
        }
        int o = w + (i & zero);
        if (KIND == OTHER_LDS) {
            int v[B];
#pragma unroll
            for (int k = 0; k < B; ++k) v[k] = sm[o + k * 32];
#pragma unroll
            for (int k = 0; k < B; ++k) acc += v[k];
        } else if (KIND == OTHER_STS) {
#pragma unroll
            for (int k = 0; k < B; ++k) sm[o + k * 32] = i + k;
        } else {
#pragma unroll
            for (int k = 0; k < B; ++k) table[o + k * 32] = i + k;
        }
    }
    __syncthreads();
    if (threadIdx.x == 0) cycles[0] = clock64() - cycles[0];
    sink[threadIdx.x] = acc + sm[w];
}

/* The cycles the launch just made wrote to *dc (its errors checked). */
static long long launched_cycles(const long long *dc)
{
    CHECK_LAUNCH();
    long long c = 0;
    CHECK(cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost));
    return c;
}

int main(int argc, char **argv)
{
    g_prog = "l1cost";
    if (argc < 3) usage_fail(USAGE, "expected lat ITERS, or rate, rate-ca or burst W ITERS");
    const char *mode = argv[1];
    bool lat = strcmp(mode, "lat") == 0, burst = strcmp(mode, "burst") == 0, ca = strcmp(mode, "rate-ca") == 0;
    int other = strcmp(mode, "lds") == 0 ? OTHER_LDS : strcmp(mode, "sts") == 0 ? OTHER_STS
              : strcmp(mode, "stg") == 0 ? OTHER_STG : -1;
    if (!lat && !burst && !ca && other < 0 && strcmp(mode, "rate") != 0)
        usage_fail(USAGE, "the mode is lat, rate, rate-ca, burst, lds, sts or stg");
    if (argc != (lat ? 3 : 4) && !(burst && argc == 5))
        usage_fail(USAGE, lat ? "lat takes ITERS" : "rate, rate-ca, lds, sts and stg take W and ITERS, burst W ITERS [ACTIVE]");
    int wps = lat ? 1 : (int)parse_long(argv[2], "W", 1, 32, USAGE);
    int iters = (int)parse_long(argv[lat ? 2 : 3], "ITERS", 1, 1 << 20, USAGE);
    /* burst's ACTIVE: a bit mask of the warps that load (default all W);
     * warp w issues on sub-partition w mod 4 (findings §11) */
    unsigned active = argc == 5 ? (unsigned)parse_long(argv[4], "ACTIVE", 1, 0xffffffffL, USAGE)
                                : (unsigned)((1ull << wps) - 1u);
    int n_active = __builtin_popcount(active & (unsigned)((1ull << wps) - 1u));
    if (n_active == 0) usage_fail(USAGE, "ACTIVE names none of the W warps");
    setup_device();
    const int words = 64 * 32; /* 64 lines: burst reads lines up to 31 + 31 */
    int *h = (int *)host_alloc(words * sizeof(int));
    for (int i = 0; i < words; ++i) h[i] = i; /* each word points at itself */
    int *d = dev_alloc<int>(words);
    CHECK(cudaMemcpy(d, h, words * sizeof(int), cudaMemcpyHostToDevice));
    long long *dc = dev_alloc<long long>(1);
    int *sink = dev_alloc<int>(32 * 32);
    for (int conflict = 1; conflict >= 0; --conflict)
        for (int n = 1; n <= 32; n *= 2) {
            if (!conflict && n == 1) continue; /* the same as conflict N 1 */
            if (other >= 0) {
                if (!conflict) continue;
                if (other == OTHER_LDS) l1Other<OTHER_LDS><<<1, wps * 32>>>(d, n, iters, 0, dc, sink);
                else if (other == OTHER_STS) l1Other<OTHER_STS><<<1, wps * 32>>>(d, n, iters, 0, dc, sink);
                else l1Other<OTHER_STG><<<1, wps * 32>>>(d, n, iters, 0, dc, sink);
                long long c = launched_cycles(dc);
                fprintf(stderr, "l1cost %s W %d conflict N %d B 32: %.3f cycles per instruction\n", mode, wps, n,
                        (double)c / ((double)iters * 32 * wps));
                continue;
            }
            if (burst) {
                for (int b = 32; b >= 8; b -= 24) {
                    if (b == 8 && !(conflict && n == 1)) continue;
                    if (b == 8) l1Burst<8, true><<<1, wps * 32>>>(d, n, iters, 0, active, dc, sink);
                    else if (conflict) l1Burst<32, true><<<1, wps * 32>>>(d, n, iters, 0, active, dc, sink);
                    else l1Burst<32, false><<<1, wps * 32>>>(d, n, iters, 0, active, dc, sink);
                    long long c = launched_cycles(dc);
                    if (argc == 5)
                        fprintf(stderr, "l1cost burst W %d active 0x%x %s N %d B %d: %.3f cycles per load\n", wps,
                                active, conflict ? "conflict" : "spread", n, b,
                                (double)c / ((double)iters * b * n_active));
                    else
                        fprintf(stderr, "l1cost burst W %d %s N %d B %d: %.3f cycles per load\n", wps,
                                conflict ? "conflict" : "spread", n, b, (double)c / ((double)iters * b * wps));
                }
                continue;
            }
            if (lat && conflict) l1Cost<1, true, false><<<1, 32>>>(d, n, iters, 0, dc, sink);
            else if (lat) l1Cost<1, false, false><<<1, 32>>>(d, n, iters, 0, dc, sink);
            else if (ca && conflict) l1Cost<CHAINS, true, true><<<1, wps * 32>>>(d, n, iters, 0, dc, sink);
            else if (ca) l1Cost<CHAINS, false, true><<<1, wps * 32>>>(d, n, iters, 0, dc, sink);
            else if (conflict) l1Cost<CHAINS, true, false><<<1, wps * 32>>>(d, n, iters, 0, dc, sink);
            else l1Cost<CHAINS, false, false><<<1, wps * 32>>>(d, n, iters, 0, dc, sink);
            long long c = launched_cycles(dc);
            double loads = (double)iters * (lat ? 1 : CHAINS * wps);
            fprintf(stderr, "l1cost %s W %d %s N %d: %.3f cycles per load\n", mode, wps,
                    conflict ? "conflict" : "spread", n, (double)c / loads);
        }
    CHECK(cudaFree(d));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(sink));
    free(h);
    return finish("l1Cost", 0);
}
