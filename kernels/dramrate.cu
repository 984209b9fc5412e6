/* dramrate.cu - the bandwidth the H200's DRAM gives when nothing else limits
 * it (the timing model's `[timing] dram_bytes_per_cycle`). The key had been
 * set to what readSegment/writeSegment at 2^24 floats achieve (1,460 B per
 * SM cycle), a rate that also holds those kernels' issue and latency time;
 * a model that counts that time itself (`control_words`) needs DRAM's own.
 *
 * Every SM streams a buffer far larger than L2 with UNROLL independent
 * 16-byte accesses in flight per thread (a grid-stride loop; each warp
 * instruction moves 4 whole lines), so the number of requests in flight is
 * not what limits the rate:
 *   read  : sum of float4 loads, one float stored per thread at the end
 *   write : float4 stores of a constant
 *   copy  : float4 load then store to a second buffer (reads = writes)
 * UNROLL 1, 4 and 8 are launched in turn (the rate should stop growing).
 * Run it under ncu (kernels/probes/dram.sh): sm__cycles_elapsed.avg and
 * dram__bytes_{read,write}.sum per launch give the bytes per SM cycle.
 * Plain runs print each launch's time by CUDA events on stderr.
 *
 * usage: dramrate MODE [MIB [CTAS_PER_SM]]   MODE read|write|copy,
 * MIB the buffer's size (default 1024), CTAS_PER_SM CTAs of 512 threads
 * per SM (default 4: 2,048 threads, full occupancy). */
#include "common.cuh"

static const char *USAGE = "read|write|copy [MIB [CTAS_PER_SM]]";

template <int UNROLL> __global__ void streamRead(const float4 *in, float *out, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = in[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) sum += v[u].x + v[u].y + v[u].z + v[u].w;
    }
    for (; i < n4; i += stride) sum += in[i].x + in[i].y + in[i].z + in[i].w;
    out[(size_t)blockIdx.x * blockDim.x + threadIdx.x] = sum;
}

template <int UNROLL> __global__ void streamWrite(float4 *out, size_t n4, float value)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float4 v = make_float4(value, value, value, value);
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) out[i + u * stride] = v;
    }
    for (; i < n4; i += stride) out[i] = v;
}

template <int UNROLL> __global__ void streamCopy(const float4 *in, float4 *out, size_t n4)
{
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    for (; i + (UNROLL - 1) * stride < n4; i += UNROLL * stride) {
        float4 v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = in[i + u * stride];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) out[i + u * stride] = v[u];
    }
    for (; i < n4; i += stride) out[i] = in[i];
}

/* One launch of MODE at UNROLL, timed by events; returns the milliseconds. */
template <int UNROLL> static float launch(const char *mode, dim3 grid, float4 *a, float4 *b, float *sums, size_t n4)
{
    cudaEvent_t start, stop;
    CHECK(cudaEventCreate(&start));
    CHECK(cudaEventCreate(&stop));
    CHECK(cudaEventRecord(start));
    if (strcmp(mode, "read") == 0)
        streamRead<UNROLL><<<grid, 512>>>(a, sums, n4);
    else if (strcmp(mode, "write") == 0)
        streamWrite<UNROLL><<<grid, 512>>>(a, n4, 1.5f);
    else
        streamCopy<UNROLL><<<grid, 512>>>(a, b, n4);
    CHECK_LAUNCH();
    CHECK(cudaEventRecord(stop));
    CHECK(cudaEventSynchronize(stop));
    float ms = 0.0f;
    CHECK(cudaEventElapsedTime(&ms, start, stop));
    CHECK(cudaEventDestroy(start));
    CHECK(cudaEventDestroy(stop));
    return ms;
}

int main(int argc, char **argv)
{
    g_prog = "dramrate";
    if (argc < 2 || argc > 4) usage_fail(USAGE, "expected 1 to 3 arguments");
    const char *mode = argv[1];
    if (strcmp(mode, "read") != 0 && strcmp(mode, "write") != 0 && strcmp(mode, "copy") != 0)
        usage_fail(USAGE, "MODE %s is not read, write or copy", mode);
    long mib = argc > 2 ? parse_long(argv[2], "MIB", 16, 8192, USAGE) : 1024;
    long per_sm = argc > 3 ? parse_long(argv[3], "CTAS_PER_SM", 1, 4, USAGE) : 4;
    setup_device();

    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
    size_t n4 = (size_t)mib * 1024 * 1024 / sizeof(float4);
    dim3 grid((unsigned)(sms * per_sm));
    float4 *a = dev_alloc<float4>(n4);
    float4 *b = strcmp(mode, "copy") == 0 ? dev_alloc<float4>(n4) : NULL;
    float *sums = dev_alloc<float>((size_t)grid.x * 512);
    CHECK(cudaMemset(a, 0, n4 * sizeof(float4)));

    double bytes = (double)n4 * sizeof(float4) * (b ? 2 : 1);
    const int unrolls[3] = {1, 4, 8};
    for (int k = 0; k < 3; ++k) {
        float ms = unrolls[k] == 1 ? launch<1>(mode, grid, a, b, sums, n4)
                   : unrolls[k] == 4 ? launch<4>(mode, grid, a, b, sums, n4)
                                     : launch<8>(mode, grid, a, b, sums, n4);
        fprintf(stderr, "dramrate %s %ld MiB, %u CTAs of 512, unroll %d: %.3f ms, %.1f GB/s\n", mode, mib,
                grid.x, unrolls[k], ms, bytes / (ms * 1e6));
    }
    /* The read kernels' sums of a zeroed buffer are 0 (nothing else to check). */
    float *h = (float *)host_alloc((size_t)grid.x * 512 * sizeof(float));
    CHECK(cudaMemcpy(h, sums, (size_t)grid.x * 512 * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    if (strcmp(mode, "read") == 0)
        for (size_t i = 0; i < (size_t)grid.x * 512; ++i) bad += h[i] != 0.0f;
    char what[96];
    snprintf(what, sizeof what, "dramrate %s %ld MiB", mode, mib);
    int rc = finish(what, bad);
    free(h);
    CHECK(cudaFree(a));
    if (b) CHECK(cudaFree(b));
    CHECK(cudaFree(sums));
    return rc;
}
