/* bankConflict.cu - seed 001 (shared-memory bank conflicts): the seed's
 * access patterns as four kernels with a store phase and a load phase.
 *
 * Each block of 128 threads owns a 128 x 16 tile of floats (128 rows of 16).
 * Store phase: data[e] = global_data[e] for the block's 2048 elements, 16 per
 * thread, e = j * 128 + tid (conflict-free, coalesced). Load phase: 16 reads
 * per thread, then one coalesced store of their sum.
 *
 *   smemLinear     number += data[base + tid],    base = 0, 128, ... (1-way)
 *   smemStride4    number += data[base + 4*tid],  base = 0 .. 15     (4-way on 32 banks)
 *   smemStride16   number += data[16*tid + c],    c = 0 .. 15        (16-way)
 *   smemPadded17   the seed's fix: stored as data[row*17 + column] with
 *                  row = e / 16, column = e % 16, read as data[17*tid + c]
 *                  (conflict-free loads; on 32 banks the padded STORE is
 *                  2-way: the seed's half-warp argument assumed 16 banks)
 *
 * smemStride16 and smemPadded17 compute the same row sums. Loads go through a
 * volatile pointer so the compiler keeps them as the seed's single 4-byte
 * reads (it would otherwise merge data[16*tid + c] into LDS.128).
 *
 * usage: bankConflict linear|stride4|stride16|pad17 [BLOCKS]   (default 528 = 4 per SM) */
#include "common.cuh"

#define THREADS 128
#define ROW 16
#define TILE_ELEMS (THREADS * ROW)
#define PADDED_ELEMS (THREADS * (ROW + 1))

static const char *USAGE = "linear|stride4|stride16|pad17 [BLOCKS]";

/* Store phase of the unpadded kernels: the block's tile, in order. */
__device__ __forceinline__ void storeTile(float *data, const float *global_data)
{
    const float *src = global_data + (size_t)blockIdx.x * TILE_ELEMS;
#pragma unroll
    for (int j = 0; j < ROW; ++j) data[j * THREADS + threadIdx.x] = src[j * THREADS + threadIdx.x];
}

__global__ void smemLinear(const float *global_data, float *out)
{
    __shared__ float data[TILE_ELEMS];
    storeTile(data, global_data);
    __syncthreads();

    volatile float *v = data;
    unsigned int tid = threadIdx.x;
    float number = 0;
#pragma unroll
    for (int base = 0; base < TILE_ELEMS; base += THREADS) number += v[base + tid];
    out[blockIdx.x * THREADS + tid] = number;
}

__global__ void smemStride4(const float *global_data, float *out)
{
    __shared__ float data[TILE_ELEMS];
    storeTile(data, global_data);
    __syncthreads();

    volatile float *v = data;
    unsigned int tid = threadIdx.x;
    float number = 0;
#pragma unroll
    for (int base = 0; base < ROW; ++base) number += v[base + 4 * tid];
    out[blockIdx.x * THREADS + tid] = number;
}

__global__ void smemStride16(const float *global_data, float *out)
{
    __shared__ float data[TILE_ELEMS];
    storeTile(data, global_data);
    __syncthreads();

    volatile float *v = data;
    unsigned int tid = threadIdx.x;
    float number = 0;
#pragma unroll
    for (int c = 0; c < ROW; ++c) number += v[16 * tid + c];
    out[blockIdx.x * THREADS + tid] = number;
}

__global__ void smemPadded17(const float *global_data, float *out)
{
    __shared__ float data[PADDED_ELEMS];
    const float *src = global_data + (size_t)blockIdx.x * TILE_ELEMS;
#pragma unroll
    for (int j = 0; j < ROW; ++j) {
        int e = j * THREADS + threadIdx.x;
        int row = e / 16;
        int column = e % 16;
        data[row * 17 + column] = src[e];
    }
    __syncthreads();

    volatile float *v = data;
    unsigned int tid = threadIdx.x;
    float number = 0;
#pragma unroll
    for (int c = 0; c < ROW; ++c) number += v[17 * tid + c];
    out[blockIdx.x * THREADS + tid] = number;
}

int main(int argc, char **argv)
{
    g_prog = "bankConflict";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    const char *mode = argv[1];
    int m;
    if (strcmp(mode, "linear") == 0) m = 0;
    else if (strcmp(mode, "stride4") == 0) m = 1;
    else if (strcmp(mode, "stride16") == 0) m = 2;
    else if (strcmp(mode, "pad17") == 0) m = 3;
    else usage_fail(USAGE, "unknown mode '%s'", mode);
    int blocks = 528;
    if (argc > 2) blocks = (int)parse_long(argv[2], "BLOCKS", 1, 1 << 16, USAGE);
    setup_device();

    size_t nin = (size_t)blocks * TILE_ELEMS, nout = (size_t)blocks * THREADS;
    float *hin = (float *)host_alloc(nin * sizeof(float));
    float *hout = (float *)host_alloc(nout * sizeof(float)), *want = (float *)host_alloc(nout * sizeof(float));
    for (size_t i = 0; i < nin; ++i) hin[i] = small_value(i);
    for (int b = 0; b < blocks; ++b) {
        const float *t = hin + (size_t)b * TILE_ELEMS;
        for (int tid = 0; tid < THREADS; ++tid) {
            float s = 0;
            for (int c = 0; c < ROW; ++c) {
                int idx = m == 0 ? c * THREADS + tid : m == 1 ? c + 4 * tid : 16 * tid + c;
                s += t[idx];
            }
            want[(size_t)b * THREADS + tid] = s;
        }
    }

    float *din = dev_alloc<float>(nin), *dout = dev_alloc<float>(nout);
    CHECK(cudaMemcpy(din, hin, nin * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, nout * sizeof(float)));

    static const char *names[] = {"smemLinear", "smemStride4", "smemStride16", "smemPadded17"};
    dim3 blk(THREADS), grid(blocks);
    switch (m) {
    case 0: smemLinear<<<grid, blk>>>(din, dout); break;
    case 1: smemStride4<<<grid, blk>>>(din, dout); break;
    case 2: smemStride16<<<grid, blk>>>(din, dout); break;
    default: smemPadded17<<<grid, blk>>>(din, dout); break;
    }
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, dout, nout * sizeof(float), cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "%s<<<%u, %u>>>", names[m], grid.x, blk.x);
    int rc = finish(what, count_mismatches("out", hout, want, nout, 0.0f));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    free(hin); free(hout); free(want);
    return rc;
}
