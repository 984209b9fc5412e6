// selftest.cu - a CUDA program whose kernels have known memory behaviour, for
// checking gpumemsim-capture on a GPU (capture/selftest/run.sh). Each kernel's
// expected records are in selftest_check.c; shapes are in selftest.h.
//
//   selftest all      coalesced copy, shared-memory transpose, atomics,
//                     divergence, generic pointers (shared, global, local),
//                     cp.async, ldmatrix/stmatrix, dynamic shared memory,
//                     local arrays, a texture and a __constant__ read, then two
//                     streams; exits 0 when the results are right
//   selftest graph    a kernel, a CUDA graph of two kernels launched twice, the
//                     first kernel again
//   selftest stream   a 64 MB float4 copy-scale three times, timed (overhead)
//   selftest crash    a kernel, then one that writes to an invalid address
//   selftest nosync   one kernel, then exit without synchronizing
//   selftest shfl     a reduction by warp shuffles, unrolled and in a loop
//                     (for gpumemsim-capture --shuffles)
//
// Build: nvcc -O3 -arch=sm_90 -lineinfo selftest.cu -o selftest
#include <cuda_pipeline.h>
#include <cuda_runtime.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>

#include "selftest.h"

#define CK(x)                                                                                   \
    do {                                                                                        \
        cudaError_t e_ = (x);                                                                   \
        if (e_ != cudaSuccess) {                                                                \
            printf("CUDA error %s at %s:%d\n", cudaGetErrorString(e_), __FILE__, __LINE__);     \
            exit(1);                                                                            \
        }                                                                                       \
    } while (0)

__global__ void k_copy(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 2.f;
}

__global__ void k_scale(const float *in, float *out, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n)
        out[i] = in[i] * 3.f;
}

// the classic tiled transpose (padded tile: no bank conflicts on the reads)
__global__ void k_transpose(const float *in, float *out)
{
    __shared__ float tile[ST_TR_TILE][ST_TR_TILE + 1];
    int x = blockIdx.x * ST_TR_TILE + threadIdx.x;
    int y = blockIdx.y * ST_TR_TILE + threadIdx.y;
    for (int j = 0; j < ST_TR_TILE; j += ST_TR_ROWS)
        tile[threadIdx.y + j][threadIdx.x] = in[(y + j) * ST_TR_DIM + x];
    __syncthreads();
    x = blockIdx.y * ST_TR_TILE + threadIdx.x;
    y = blockIdx.x * ST_TR_TILE + threadIdx.y;
    for (int j = 0; j < ST_TR_TILE; j += ST_TR_ROWS)
        out[(y + j) * ST_TR_DIM + x] = tile[threadIdx.x][threadIdx.y + j];
}

__global__ void k_atomics(int *ctr, int *out)
{
    __shared__ int s[32];
    int t = threadIdx.x;
    if (t < 32)
        s[t] = 0;
    __syncthreads();
    atomicAdd(&ctr[0], 1);                  // result unused: a reduction
    int old = atomicAdd(&ctr[1 + t % 4], 1); // result used: an atomic
    atomicAdd(&s[t % 32], 1);
    __syncthreads();
    out[blockIdx.x * blockDim.x + t] = old + s[t % 32];
}

__global__ void k_diverge(float *g)
{
    if (threadIdx.x % 3 == 0)
        g[threadIdx.x] = 1.f;
    else if (threadIdx.x < 16)
        g[threadIdx.x + 1000] = 2.f;
}

__device__ __noinline__ float ld_generic(const float *p) { return *p; }
__device__ __noinline__ void st_generic(float *p, float v) { *p = v; }

// one generic load and one generic store; sel picks what they point to
__global__ void k_generic(const float *g, float *out, int sel)
{
    __shared__ float s[64];
    float loc[64];
    s[threadIdx.x] = threadIdx.x;
    for (int k = 0; k < 64; k++)
        loc[k] = k * sel;
    __syncthreads();
    const float *p = sel == 0 ? s + threadIdx.x : sel == 1 ? g + threadIdx.x : loc + (threadIdx.x % 64);
    float v = ld_generic(p);
    st_generic(sel == 0 ? s + ((threadIdx.x + 1) % 64) : out + 64 + threadIdx.x, v);
    __syncthreads();
    out[threadIdx.x] = v + s[threadIdx.x];
}

__global__ void k_cpasync(const float4 *g4, const float2 *g2, const float *g1, float *out)
{
    __shared__ alignas(16) float4 s4[64];
    __shared__ alignas(8) float2 s2[64];
    __shared__ float s1[64];
    __pipeline_memcpy_async(&s4[threadIdx.x], &g4[threadIdx.x], 16);
    __pipeline_memcpy_async(&s2[threadIdx.x], &g2[threadIdx.x], 8);
    __pipeline_memcpy_async(&s1[threadIdx.x], &g1[threadIdx.x], 4);
    __pipeline_commit();
    __pipeline_wait_prior(0);
    __syncthreads();
    out[threadIdx.x] = s4[63 - threadIdx.x].x + s2[threadIdx.x].y + s1[threadIdx.x];
}

__global__ void k_ldmatrix(unsigned *out)
{
    __shared__ alignas(16) unsigned short sm[32 * 8];
    for (int k = threadIdx.x; k < 256; k += 32)
        sm[k] = k;
    __syncwarp();
    uint32_t a = (uint32_t)__cvta_generic_to_shared(&sm[threadIdx.x * 8]);
    uint32_t r0, r1, r2, r3;
    asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];"
                 : "=r"(r0), "=r"(r1), "=r"(r2), "=r"(r3) : "r"(a));
    __syncwarp();
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1,%2,%3,%4};"
                 :: "r"(a), "r"(r0), "r"(r1), "r"(r2), "r"(r3) : "memory");
    __syncwarp();
    out[threadIdx.x] = r0 + r1 + r2 + r3 + sm[threadIdx.x];
}

__global__ void k_dynsmem(float *out)
{
    extern __shared__ float dyn[];
    dyn[threadIdx.x] = threadIdx.x;
    __syncthreads();
    out[threadIdx.x] = dyn[(threadIdx.x + 1) % blockDim.x];
}

__global__ void k_local(int n, const float *in, float *out)
{
    float arr[64];
    for (int k = 0; k < 64; k++)
        arr[(k * n + threadIdx.x) & 63] = in[k]; // dynamic index: local memory
    out[threadIdx.x] = arr[(threadIdx.x * 7 + n) & 63];
}

__global__ void k_tex(cudaTextureObject_t t, float *out) { out[threadIdx.x] = tex1Dfetch<float>(t, threadIdx.x); }

__constant__ float cst[64];
__global__ void k_const(float *out, int k) { out[threadIdx.x] = cst[(threadIdx.x + k) % 64]; }

__global__ void k_shfl(const float *x, float *out, int loop)
{
    unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
    float v = x[i];
#pragma unroll
    for (int o = 16; o > 0; o /= 2)
        v += __shfl_down_sync(0xffffffffu, v, o);
#pragma unroll 1
    for (int k = 0; k < loop; k++)
        v += __shfl_xor_sync(0xffffffffu, v, 1 << (k % 5)) * 0.0f;
    if (threadIdx.x % 32 == 0)
        out[i / 32] = v;
}

__global__ void k_stream(const float4 *x, float4 *y, size_t n)
{
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 v = x[i];
        y[i] = make_float4(v.x * 2.f, v.y * 2.f, v.z * 2.f, v.w * 2.f);
    }
}

__global__ void k_crash(float *p) { p[threadIdx.x * 1024] = 1.f; }

static int failures;
static void expect(bool ok, const char *what)
{
    printf("%s: %s\n", ok ? "ok" : "WRONG", what);
    failures += !ok;
}

static void run_all()
{
    char *buf;
    float *out;
    int *ctr;
    CK(cudaMalloc(&buf, 1 << 20));
    CK(cudaMalloc(&out, 4 << 20)); /* offsets below up to 301000 floats */
    CK(cudaMalloc(&ctr, 4096));
    CK(cudaMemset(ctr, 0, 4096));
    float h[ST_TR_DIM * ST_TR_DIM];
    for (int i = 0; i < ST_TR_DIM * ST_TR_DIM; i++)
        h[i] = (float)i;
    CK(cudaMemcpy(buf, h, sizeof h, cudaMemcpyHostToDevice));

    k_copy<<<ST_COPY_GRID, ST_COPY_BLOCK>>>((float *)buf, out, ST_COPY_N);                      // 0
    k_transpose<<<dim3(ST_TR_DIM / ST_TR_TILE, ST_TR_DIM / ST_TR_TILE), dim3(ST_TR_TILE, ST_TR_ROWS)>>>(
        (float *)buf, out + 8192);                                                              // 1
    k_atomics<<<ST_AT_GRID, ST_AT_BLOCK>>>(ctr, (int *)out + 65536);                            // 2
    k_diverge<<<1, 32>>>(out + 100000);                                                         // 3
    for (int sel = 0; sel < 3; sel++)
        k_generic<<<1, 32>>>((float *)buf, out + 120000, sel);                                  // 4 5 6
    k_cpasync<<<1, 32>>>((float4 *)buf, (float2 *)buf, (float *)buf, out + 130000);              // 7
    k_ldmatrix<<<1, 32>>>((unsigned *)out + 140000);                                            // 8
    k_dynsmem<<<1, ST_DYN_BLOCK, ST_DYN_BYTES>>>(out + 150000);                                 // 9
    k_local<<<1, 32>>>(3, (float *)buf, out + 160000);                                          // 10
    cudaResourceDesc rd = {};
    rd.resType = cudaResourceTypeLinear;
    rd.res.linear.devPtr = buf;
    rd.res.linear.desc = cudaCreateChannelDesc<float>();
    rd.res.linear.sizeInBytes = 4096;
    cudaTextureDesc td = {};
    td.readMode = cudaReadModeElementType;
    cudaTextureObject_t tex;
    CK(cudaCreateTextureObject(&tex, &rd, &td, nullptr));
    k_tex<<<1, 32>>>(tex, out + 170000);                                                        // 11
    k_const<<<1, 32>>>(out + 180000, 5);                                                        // 12
    CK(cudaDeviceSynchronize());

    float t[ST_TR_DIM * ST_TR_DIM];
    CK(cudaMemcpy(t, out + 8192, sizeof t, cudaMemcpyDeviceToHost));
    bool tr_ok = true;
    for (int y = 0; y < ST_TR_DIM; y++)
        for (int x = 0; x < ST_TR_DIM; x++)
            tr_ok &= t[y * ST_TR_DIM + x] == h[x * ST_TR_DIM + y];
    expect(tr_ok, "k_transpose result");
    int c[5];
    CK(cudaMemcpy(c, ctr, sizeof c, cudaMemcpyDeviceToHost));
    expect(c[0] == ST_AT_GRID * ST_AT_BLOCK && c[1] + c[2] + c[3] + c[4] == ST_AT_GRID * ST_AT_BLOCK,
           "k_atomics counters");

    // two streams, interleaved launches: 13..22
    cudaStream_t s1, s2;
    CK(cudaStreamCreateWithFlags(&s1, cudaStreamNonBlocking));
    CK(cudaStreamCreateWithFlags(&s2, cudaStreamNonBlocking));
    for (int r = 0; r < ST_STREAM_REPS; r++) {
        k_copy<<<ST_COPY_GRID, ST_COPY_BLOCK, 0, s1>>>((float *)buf, out + 200000, ST_COPY_N);
        k_scale<<<ST_COPY_GRID, ST_COPY_BLOCK, 0, s2>>>((float *)buf, out + 300000, ST_COPY_N);
    }
    CK(cudaStreamSynchronize(s1));
    CK(cudaStreamSynchronize(s2));
    float o[ST_COPY_N];
    CK(cudaMemcpy(o, out + 300000, sizeof o, cudaMemcpyDeviceToHost));
    expect(o[999] == 3.f * h[999], "k_scale result");
    CK(cudaDestroyTextureObject(tex));
    CK(cudaStreamDestroy(s1));
    CK(cudaStreamDestroy(s2));
}

static void run_graph()
{
    float *out;
    CK(cudaMalloc(&out, 1 << 20));
    CK(cudaMemset(out, 0, 1 << 20));
    cudaStream_t st;
    CK(cudaStreamCreateWithFlags(&st, cudaStreamNonBlocking));
    k_diverge<<<1, 32, 0, st>>>(out);                                                           // 0
    cudaGraph_t gr;
    cudaGraphExec_t ge;
    CK(cudaStreamBeginCapture(st, cudaStreamCaptureModeGlobal));
    k_diverge<<<1, 32, 0, st>>>(out + 2000);
    k_copy<<<ST_COPY_GRID, ST_COPY_BLOCK, 0, st>>>(out, out + 4000, ST_COPY_N);
    CK(cudaStreamEndCapture(st, &gr));
    CK(cudaGraphInstantiate(&ge, gr, 0));
    CK(cudaGraphLaunch(ge, st));                                                                // 1 2
    CK(cudaGraphLaunch(ge, st));                                                                // 3 4
    CK(cudaStreamSynchronize(st));
    k_diverge<<<1, 32, 0, st>>>(out + 6000);                                                    // 5
    CK(cudaStreamSynchronize(st));
    float h[ST_COPY_N];
    CK(cudaMemcpy(h, out + 4000, sizeof h, cudaMemcpyDeviceToHost));
    expect(h[0] == 2.f && h[3] == 2.f && h[1] == 0.f, "graph k_copy result");
}

static void run_stream()
{
    size_t n = ST_STREAM_N;
    float4 *x, *y;
    CK(cudaMalloc(&x, n * 16));
    CK(cudaMalloc(&y, n * 16));
    CK(cudaMemset(x, 0, n * 16));
    cudaEvent_t e0, e1;
    CK(cudaEventCreate(&e0));
    CK(cudaEventCreate(&e1));
    for (int rep = 0; rep < 3; rep++) {
        auto t0 = std::chrono::steady_clock::now();
        CK(cudaEventRecord(e0));
        k_stream<<<(unsigned)(n / ST_STREAM_BLOCK), ST_STREAM_BLOCK>>>(x, y, n);
        CK(cudaEventRecord(e1));
        CK(cudaDeviceSynchronize());
        auto t1 = std::chrono::steady_clock::now();
        float ms;
        CK(cudaEventElapsedTime(&ms, e0, e1));
        printf("k_stream rep %d: event %.3f ms, wall %.3f ms\n", rep, ms,
               std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
}

int main(int argc, char **argv)
{
    const char *mode = argc > 1 ? argv[1] : "all";
    if (!strcmp(mode, "all")) {
        run_all();
    } else if (!strcmp(mode, "graph")) {
        run_graph();
    } else if (!strcmp(mode, "stream")) {
        run_stream();
    } else if (!strcmp(mode, "crash")) {
        float *out;
        CK(cudaMalloc(&out, 1 << 20));
        k_copy<<<ST_COPY_GRID, ST_COPY_BLOCK>>>(out, out + 4096, ST_COPY_N);
        k_crash<<<1, 32>>>((float *)16);
        CK(cudaDeviceSynchronize());
    } else if (!strcmp(mode, "oom")) {
        /* one launch, then the program takes every byte of device memory it
         * can get and launches again (the module is loaded by then): the
         * tracer must either trace both launches or end the trace as
         * incomplete, naming device memory */
        float *out;
        CK(cudaMalloc(&out, 1 << 20));
        k_copy<<<ST_COPY_GRID, ST_COPY_BLOCK>>>(out, out + 4096, ST_COPY_N);
        CK(cudaDeviceSynchronize());
        size_t chunk = (size_t)1 << 30, taken = 0;
        void *p;
        while (chunk >= ((size_t)1 << 20)) {
            if (cudaMalloc(&p, chunk) == cudaSuccess)
                taken += chunk;
            else
                chunk /= 2;
        }
        (void)cudaGetLastError();
        fprintf(stderr, "selftest oom: took %zu MiB more\n", taken >> 20);
        k_copy<<<ST_COPY_GRID, ST_COPY_BLOCK>>>(out, out + 8192, ST_COPY_N);
        cudaError_t e = cudaGetLastError();
        if (e == cudaSuccess)
            e = cudaDeviceSynchronize();
        fprintf(stderr, "selftest oom: second launch: %s\n", cudaGetErrorString(e));
        return e == cudaSuccess ? 0 : 1;
    } else if (!strcmp(mode, "shfl")) {
        const unsigned n = ST_SHFL_GRID * ST_SHFL_BLOCK;
        float *x, *out, hx[n], hout[n / 32];
        CK(cudaMalloc(&x, n * sizeof(float)));
        CK(cudaMalloc(&out, n / 32 * sizeof(float)));
        for (unsigned i = 0; i < n; i++)
            hx[i] = (float)(i % 7);
        CK(cudaMemcpy(x, hx, sizeof hx, cudaMemcpyHostToDevice));
        k_shfl<<<ST_SHFL_GRID, ST_SHFL_BLOCK>>>(x, out, ST_SHFL_LOOP);
        CK(cudaMemcpy(hout, out, sizeof hout, cudaMemcpyDeviceToHost));
        for (unsigned w = 0; w < n / 32; w++) {
            float want = 0;
            for (unsigned l = 0; l < 32; l++)
                want += hx[w * 32 + l];
            if (hout[w] != want) {
                fprintf(stderr, "k_shfl: warp %u: %g, expected %g\n", w, hout[w], want);
                failures++;
            }
        }
    } else if (!strcmp(mode, "nosync")) {
        float *out;
        CK(cudaMalloc(&out, 1 << 20));
        k_copy<<<ST_COPY_GRID, ST_COPY_BLOCK>>>(out, out + 4096, ST_COPY_N);
        return 0; // no synchronization, no free
    } else {
        fprintf(stderr, "usage: selftest all|graph|stream|crash|nosync|oom|shfl\n");
        return 2;
    }
    printf("selftest %s: %s\n", mode, failures ? "WRONG RESULTS" : "done");
    return failures ? 1 : 0;
}
