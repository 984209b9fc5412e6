/* localMemory.cu - local memory (seed 003, 4.1.2.2: arrays indexed with
 * values unknown at compile time, and variables that do not fit in the
 * registers, live in local memory, cached in L1 and L2).
 *
 *   localArray     a per-thread float[16] filled with computed values and read
 *                  back at 4 data-dependent indices: STL/LDL (64-byte stack frame)
 *   registerSpill  48 live 32-bit values under __maxnreg__(32): ptxas spills
 *                  (spill stores and loads, STL/LDL)
 *   globalArray    localArray's accesses to a global buffer laid out as local
 *                  memory is (each warp's 16 words of 32 lanes, 2 KiB, one
 *                  block after the other): STG/LDG, to tell whether L1 loses
 *                  local lines because they are local (findings §3e)
 * GMS_SPIN=CYCLES in the environment: garray waits that long between its
 * stores and its loads (array ignores it).
 *
 * Local memory is interleaved per thread: a warp's accesses to the same local
 * word are consecutive 4-byte words, so these accesses are coalesced.
 *
 * usage: localMemory array|garray|spill [N [STACK]]   (threads, a multiple of 128; default 2^18
 *        for array and garray, 264 x 128 = 33,792 for spill, whose per-thread traffic is larger) */
#include "common.cuh"

#define BLOCK 128
#define LOCAL_N 16
#define NLIVE 48
#define ROUNDS 1 /* the loop runs once; the compiler does not know that */

static const char *USAGE = "array|garray|spill [N [STACK]]";

/* Each thread of globalArray waits spin clock cycles between its stores and
 * its loads (GMS_SPIN in the environment, default 0: findings §3e). Not
 * localArray: the call made ptxas keep its array in registers. */
__device__ static inline void spin_cycles(long long spin)
{
    if (spin <= 0) return;
    long long t0 = clock64();
    while (clock64() - t0 < spin) { }
}

__global__ void localArray(const float *in, const int *sel, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float buf[LOCAL_N];
    float x = in[i];
#pragma unroll
    for (int j = 0; j < LOCAL_N; ++j) buf[j] = x * (float)(j + 1);
    int s = sel[i];
    float acc = 0.0f;
#pragma unroll
    for (int r = 0; r < 4; ++r) acc += buf[(s + 5 * r) & (LOCAL_N - 1)];
    out[i] = acc;
}

/* localArray with its frame in global memory, interleaved as local memory is:
 * word j of lane l of warp w at frames[(w * LOCAL_N + j) * 32 + l]. */
__global__ void globalArray(const float *in, const int *sel, float *out, float *frames, int n, long long spin)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    float *f = frames + (size_t)(i / 32) * LOCAL_N * 32 + i % 32;
    float x = in[i];
#pragma unroll
    for (int j = 0; j < LOCAL_N; ++j) f[j * 32] = x * (float)(j + 1);
    spin_cycles(spin);
    int s = sel[i];
    float acc = 0.0f;
#pragma unroll
    for (int r = 0; r < 4; ++r) acc += f[((s + 5 * r) & (LOCAL_N - 1)) * 32];
    out[i] = acc;
}

/* Keeps NLIVE values live across a loop whose trip count the compiler does
 * not know, with only 32 registers: it has to spill. Unsigned arithmetic
 * wraps identically on the host. */
__global__ void __maxnreg__(32) registerSpill(const unsigned int *in, unsigned int *out, int n,
                                              int rounds)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i >= n) return;

    unsigned int v[NLIVE];
    unsigned int x = in[i];
#pragma unroll
    for (int k = 0; k < NLIVE; ++k) v[k] = x * (2u * k + 1u) + k;
    for (int r = 0; r < rounds; ++r) {
#pragma unroll
        for (int k = 0; k < NLIVE; ++k) v[k] = v[k] * 3u + (v[(k + 7) % NLIVE] ^ (unsigned int)r);
    }
    unsigned int h = 0;
#pragma unroll
    for (int k = 0; k < NLIVE; ++k) h = h * 31u + v[k];
    out[i] = h;
}

static unsigned int spill_reference(unsigned int x, int rounds)
{
    unsigned int v[NLIVE];
    for (int k = 0; k < NLIVE; ++k) v[k] = x * (2u * k + 1u) + k;
    for (int r = 0; r < rounds; ++r)
        for (int k = 0; k < NLIVE; ++k) v[k] = v[k] * 3u + (v[(k + 7) % NLIVE] ^ (unsigned int)r);
    unsigned int h = 0;
    for (int k = 0; k < NLIVE; ++k) h = h * 31u + v[k];
    return h;
}

int main(int argc, char **argv)
{
    g_prog = "localMemory";
    if (argc < 2 || argc > 4) usage_fail(USAGE, "expected 1 to 3 arguments");
    int spill = strcmp(argv[1], "spill") == 0, garray = strcmp(argv[1], "garray") == 0;
    if (!spill && !garray && strcmp(argv[1], "array") != 0) usage_fail(USAGE, "unknown mode '%s'", argv[1]);
    int n = spill ? 264 * BLOCK : 1 << 18;
    if (argc > 2) n = (int)parse_long(argv[2], "N", BLOCK, 1 << 24, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "N must be a multiple of %d", BLOCK);
    setup_device();
    /* STACK: the per-thread stack the driver reserves (cudaLimitStackSize), which
     * decides how far apart the warps' local frames lie in memory (findings §3). */
    size_t stack = 0;
    CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    if (argc > 3) {
        stack = (size_t)parse_long(argv[3], "STACK", 16, 1 << 20, USAGE);
        CHECK(cudaDeviceSetLimit(cudaLimitStackSize, stack));
        CHECK(cudaDeviceGetLimit(&stack, cudaLimitStackSize));
    }
    fprintf(stderr, "localMemory: stack limit %zu bytes per thread\n", stack);
    const char *spin_env = getenv("GMS_SPIN");
    long long spin = spin_env && *spin_env ? parse_long(spin_env, "GMS_SPIN", 0, 100000000, USAGE) : 0;
    if (spin)
        fprintf(stderr, "localMemory: %lld cycles between the stores and the loads (GMS_SPIN)\n", spin);

    dim3 blk(BLOCK), grid(n / BLOCK);
    size_t bad = 0;
    char what[96];
    if (!spill) {
        float *hin = (float *)host_alloc(n * sizeof(float)), *hout = (float *)host_alloc(n * sizeof(float));
        float *want = (float *)host_alloc(n * sizeof(float));
        int *hsel = (int *)host_alloc(n * sizeof(int));
        for (int i = 0; i < n; ++i) {
            hin[i] = small_value(i);
            hsel[i] = (int)((i * 2654435761u) >> 20);
            float acc = 0.0f;
            for (int r = 0; r < 4; ++r) acc += hin[i] * (float)(((hsel[i] + 5 * r) & (LOCAL_N - 1)) + 1);
            want[i] = acc;
        }
        float *din = dev_alloc<float>(n), *dout = dev_alloc<float>(n);
        int *dsel = dev_alloc<int>(n);
        CHECK(cudaMemcpy(din, hin, n * sizeof(float), cudaMemcpyHostToDevice));
        CHECK(cudaMemcpy(dsel, hsel, n * sizeof(int), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(dout, 0, n * sizeof(float)));
        float *frames = garray ? dev_alloc<float>((size_t)n * LOCAL_N) : NULL;
        if (garray)
            globalArray<<<grid, blk>>>(din, dsel, dout, frames, n, spin);
        else
            localArray<<<grid, blk>>>(din, dsel, dout, n);
        CHECK_LAUNCH();
        if (frames)
            CHECK(cudaFree(frames));
        CHECK(cudaMemcpy(hout, dout, n * sizeof(float), cudaMemcpyDeviceToHost));
        bad = count_mismatches("out", hout, want, n, 0.0f);
        snprintf(what, sizeof what, "%s<<<%u, %u>>> n %d", garray ? "globalArray" : "localArray", grid.x, blk.x, n);
        CHECK(cudaFree(din));
        CHECK(cudaFree(dsel));
        CHECK(cudaFree(dout));
        free(hin); free(hout); free(want); free(hsel);
    } else {
        unsigned int *hin = (unsigned int *)host_alloc(n * sizeof(unsigned int));
        unsigned int *hout = (unsigned int *)host_alloc(n * sizeof(unsigned int));
        for (int i = 0; i < n; ++i) hin[i] = (unsigned int)i * 2654435761u;
        unsigned int *din = dev_alloc<unsigned int>(n), *dout = dev_alloc<unsigned int>(n);
        CHECK(cudaMemcpy(din, hin, n * sizeof(unsigned int), cudaMemcpyHostToDevice));
        CHECK(cudaMemset(dout, 0, n * sizeof(unsigned int)));
        registerSpill<<<grid, blk>>>(din, dout, n, ROUNDS);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(hout, dout, n * sizeof(unsigned int), cudaMemcpyDeviceToHost));
        for (int i = 0; i < n; ++i) {
            unsigned int want = spill_reference(hin[i], ROUNDS);
            if (hout[i] != want) {
                if (bad < 5) fprintf(stderr, "localMemory: out[%d] = %u, expected %u\n", i, hout[i], want);
                ++bad;
            }
        }
        snprintf(what, sizeof what, "registerSpill<<<%u, %u>>> n %d rounds %d", grid.x, blk.x, n, ROUNDS);
        CHECK(cudaFree(din));
        CHECK(cudaFree(dout));
        free(hin); free(hout);
    }
    return finish(what, bad);
}
