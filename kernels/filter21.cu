/* filter21.cu - seed 002 (Maximizing Shared Memory Bandwidth on NVIDIA Kepler
 * GPUs): the 21-point 1-D filter, each block staging its inputs plus a
 * 10-element halo on either side in shared memory (inputS).
 *
 *   filter21Float   one output per thread; inputS is float[N + 20]; 21 LDS.32
 *   filter21Float2  two outputs per thread, blockDim.x * gridDim.x apart,
 *                   packed as float2 in inputS[N + 20]; 21 LDS.64; half the blocks
 *
 * The seed (Tesla K20c, 2^24 points) ran the float2 kernel in Kepler's 4-byte
 * and 8-byte bank modes (1.786 ms vs 1.338 ms; float kernel 2.139 ms): in the
 * 4-byte mode consecutive float2 elements that straddle a 64-word segment
 * conflict. The H200 has fixed 4-byte banks (cudaDeviceSetSharedMemConfig is
 * deprecated and does nothing there), so these captures run in 4-byte banks;
 * the Kepler config of the simulator replays them in the 8-byte mode.
 * N = 2^18 points here, to keep the trace small.
 *
 * usage: filter21 float|float2 [N]   (default 2^18; a multiple of 512) */
#include "common.cuh"

#define BLOCK 256
#define RADIUS 10
#define TAPS (2 * RADIUS + 1)

static const char *USAGE = "float|float2 [N]";

__constant__ float FilterCoeffs[TAPS];

__device__ __forceinline__ float loadOrZero(const float *input, int j, int n)
{
    return j >= 0 && j < n ? input[j] : 0.0f;
}

__global__ void filter21Float(const float *input, float *filtered, int n)
{
    __shared__ float inputS[BLOCK + 2 * RADIUS];
    int gIdx = blockIdx.x * blockDim.x + threadIdx.x;
    int sIdx = threadIdx.x + RADIUS;

    inputS[sIdx] = input[gIdx];
    if (threadIdx.x < RADIUS) {
        inputS[threadIdx.x] = loadOrZero(input, gIdx - RADIUS, n);
        inputS[sIdx + blockDim.x] = loadOrZero(input, gIdx + blockDim.x, n);
    }
    __syncthreads();

    float sum = 0.0f;
#pragma unroll
    for (int i = 0; i < TAPS; i++) sum += inputS[sIdx - RADIUS + i] * FilterCoeffs[i];
    filtered[gIdx] = sum;
}

__global__ void filter21Float2(const float *input, float *filtered, int n)
{
    __shared__ float2 inputS[BLOCK + 2 * RADIUS];
    int shift = blockDim.x * gridDim.x; /* = n / 2: .y holds the element this far on */
    int gIdx = blockIdx.x * blockDim.x + threadIdx.x;
    int sIdx = threadIdx.x + RADIUS;

    inputS[sIdx] = make_float2(input[gIdx], input[gIdx + shift]);
    if (threadIdx.x < RADIUS) {
        int l = gIdx - RADIUS, r = gIdx + blockDim.x;
        inputS[threadIdx.x] = make_float2(loadOrZero(input, l, n), loadOrZero(input, l + shift, n));
        inputS[sIdx + blockDim.x] = make_float2(loadOrZero(input, r, n), loadOrZero(input, r + shift, n));
    }
    __syncthreads();

    float2 sum = {0.0f, 0.0f};
#pragma unroll
    for (int i = 0; i < TAPS; i++) {
        float2 temp = inputS[sIdx - RADIUS + i];
        sum.x += temp.x * FilterCoeffs[i];
        sum.y += temp.y * FilterCoeffs[i];
    }
    filtered[gIdx] = sum.x;
    filtered[gIdx + shift] = sum.y;
}

int main(int argc, char **argv)
{
    g_prog = "filter21";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    int use2 = strcmp(argv[1], "float2") == 0;
    if (!use2 && strcmp(argv[1], "float") != 0) usage_fail(USAGE, "unknown mode '%s'", argv[1]);
    int n = 1 << 18;
    if (argc > 2) n = (int)parse_long(argv[2], "N", 2 * BLOCK, 1 << 26, USAGE);
    if (n % (2 * BLOCK) != 0) usage_fail(USAGE, "N must be a multiple of %d", 2 * BLOCK);
    setup_device();

    float coeffs[TAPS];
    for (int i = 0; i < TAPS; ++i) coeffs[i] = (float)(i % 7 - 3) / 8.0f; /* exact in binary */
    CHECK(cudaMemcpyToSymbol(FilterCoeffs, coeffs, sizeof coeffs));

    size_t bytes = (size_t)n * sizeof(float);
    float *hin = (float *)host_alloc(bytes), *hout = (float *)host_alloc(bytes);
    float *want = (float *)host_alloc(bytes);
    for (int i = 0; i < n; ++i) hin[i] = small_value(i);
    for (int i = 0; i < n; ++i) {
        double s = 0;
        for (int t = 0; t < TAPS; ++t) {
            int j = i - RADIUS + t;
            s += (j >= 0 && j < n ? hin[j] : 0.0) * coeffs[t];
        }
        want[i] = (float)s;
    }

    float *din = dev_alloc<float>(n), *dout = dev_alloc<float>(n);
    CHECK(cudaMemcpy(din, hin, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, bytes));

    dim3 blk(BLOCK), grid(use2 ? n / BLOCK / 2 : n / BLOCK);
    if (use2)
        filter21Float2<<<grid, blk>>>(din, dout, n);
    else
        filter21Float<<<grid, blk>>>(din, dout, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, dout, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "%s<<<%u, %u>>> n %d", use2 ? "filter21Float2" : "filter21Float",
             grid.x, blk.x, n);
    /* Inputs are integers and the coefficients multiples of 1/8: exact. */
    int rc = finish(what, count_mismatches("filtered", hout, want, n, 0.0f));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    free(hin); free(hout); free(want);
    return rc;
}
