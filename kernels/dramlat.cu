/* dramlat.cu - DRAM's latency while the rest of the GPU streams through it
 * (docs/findings.md §18): how a load that misses L2 waits longer as DRAM
 * gets busier. readSegment at 2^24 floats gets only 63% of DRAM's peak
 * while a stream with more loads in flight gets 96% (kernels/dramrate.cu);
 * if the first is held back by its loads' latency, that latency must grow
 * with the load DRAM carries.
 *
 * One launch a load level: 4 CTAs of 512 threads on every SM. The first CTA
 * to start on SM 0 is the probe: its thread 0 chases pointers through cold
 * lines of a 256 MiB buffer (ld.global.cg, a random cycle over its lines, so
 * every load misses L2 and waits for the one before), WARM steps unclocked,
 * then STEPS clocked by clock64 and %globaltimer; then it raises a flag.
 * The other CTAs on SM 0 return. Every CTA elsewhere streams until the flag:
 * its first T threads each read (or write) UNROLL float4 a loop iteration,
 * grid-stride through a 2 GiB buffer, counting the bytes they move; the
 * first and last streaming moments of the grid (globaltimer) give the
 * stream's bandwidth.
 *
 * With `shared`, the other CTAs on SM 0 stream too: a queue on the
 * streaming SMs' side then shows in the chase. Streaming warps' lane 0
 * times its loop by clock64, so the stream's own wait is printed as well.
 *
 * usage: dramlat read|write [shared]   Levels: T = 0 (DRAM idle), 32, 64, 128, 256
 * and 512 threads a CTA with UNROLL 1, then 512 threads with UNROLL 2 and 4,
 * 256 with 4. One line a level on stderr: the chase's cycles a step, the stream's
 * bytes per SM cycle and TB/s. Exit codes as common.cuh. */
#include "common.cuh"

#define STEPS 2048
#define WARM 256
#define LINE 128
#define CHASE_MIB 256
#define STREAM_MIB 2048

static const char *USAGE = "read|write [shared]";

struct window {
    unsigned long long first_ns, last_ns, bytes; /* the streamers' */
    unsigned long long chase_ns, chase_cycles;   /* the probe's clocked steps */
    unsigned long long loop_cycles, loops;       /* the streaming warps' (lane 0's clock64) */
    unsigned long long sink;
    unsigned claim, done;
};

__device__ static inline unsigned long long load_cg(const unsigned long long *p)
{
    unsigned long long v;
    asm volatile("ld.global.cg.u64 %0, [%1];" : "=l"(v) : "l"(p));
    return v;
}

/* 4 CTAs of 512 on every SM at once (32 registers a thread), or a CTA
 * would wait for a streamer that waits for the probe */
template <int UNROLL, bool WRITE>
__global__ void __launch_bounds__(512, 4) loaded(const unsigned long long *chase, float4 *stream, size_t n4, unsigned threads,
                       bool shared, window *w)
{
    bool probe = false;
    if (smid() == 0) {
        if (threadIdx.x == 0) probe = atomicCAS(&w->claim, 0u, 1u) == 0u;
        probe = __syncthreads_or(probe);
        if (!shared && !probe) return;
    }
    if (probe) {
        if (threadIdx.x != 0) return;
        const unsigned long long *p = chase;
        for (int s = 0; s < WARM; ++s) p = (const unsigned long long *)load_cg(p);
        unsigned long long g0 = globaltimer();
        long long c0 = clock64();
        for (int s = 0; s < STEPS; ++s) p = (const unsigned long long *)load_cg(p);
        long long c1 = clock64();
        unsigned long long g1 = globaltimer();
        w->chase_cycles = (unsigned long long)(c1 - c0);
        w->chase_ns = g1 - g0;
        w->sink = (unsigned long long)p;
        __threadfence();
        atomicExch(&w->done, 1u);
        return;
    }
    if (threadIdx.x >= threads) return;
    size_t stride = (size_t)gridDim.x * blockDim.x;
    size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float sum = 0.0f;
    unsigned long long moved = 0, t0 = globaltimer();
    long long c0 = clock64();
    const volatile unsigned *done = &w->done;
    unsigned iter = 0;
    for (;; ++iter) {
        /* the flag (an L2 round trip: every 32 iterations), or 100 ms: a
         * launch with no probe CTA on SM 0 ends */
        if ((iter & 31u) == 0 && (*done || globaltimer() - t0 > 100000000ull)) break;
        if (i + (UNROLL - 1) * stride >= n4) i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
        if (WRITE) {
            float4 v = make_float4(1.0f, 2.0f, 3.0f, (float)iter);
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) stream[i + u * stride] = v;
        } else {
            float4 v[UNROLL];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) v[u] = stream[i + u * stride];
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) sum += v[u].x + v[u].w;
        }
        i += UNROLL * stride;
        moved += UNROLL * sizeof(float4);
    }
    unsigned long long t1 = globaltimer();
    /* a loop iteration waits for its loads' data (the sum's FADD, issued in
     * order), so lane 0's cycles an iteration are their latency and ~30 more */
    if (threadIdx.x % 32 == 0 && iter > 0) {
        atomicAdd(&w->loop_cycles, (unsigned long long)(clock64() - c0));
        atomicAdd(&w->loops, (unsigned long long)iter);
    }
    atomicAdd(&w->bytes, moved);
    atomicMin(&w->first_ns, t0);
    atomicMax(&w->last_ns, t1);
    if (sum == 12345.0f) w->sink = 1; /* keeps the loads */
}

template <int UNROLL>
static void level(bool write, bool shared, const unsigned long long *chase, float4 *stream, size_t n4,
                  unsigned threads, window *dw, int sms)
{
    window init = {~0ull, 0, 0, 0, 0, 0, 0, 0, 0, 0};
    CHECK(cudaMemcpy(dw, &init, sizeof init, cudaMemcpyHostToDevice));
    if (write)
        loaded<UNROLL, true><<<sms * 4, 512>>>(chase, stream, n4, threads, shared, dw);
    else
        loaded<UNROLL, false><<<sms * 4, 512>>>(chase, stream, n4, threads, shared, dw);
    CHECK_LAUNCH();
    CHECK(cudaDeviceSynchronize());
    window w;
    CHECK(cudaMemcpy(&w, dw, sizeof w, cudaMemcpyDeviceToHost));
    if (w.chase_ns == 0) {
        fprintf(stderr, "dramlat: T %u U %d: no CTA of the probe ran on SM 0\n", threads, UNROLL);
        return;
    }
    double ghz = (double)w.chase_cycles / (double)w.chase_ns;
    double span_ns = w.bytes ? (double)(w.last_ns - w.first_ns) : 0.0;
    double bpc = span_ns > 0 ? (double)w.bytes / (span_ns * ghz) : 0.0;
    fprintf(stderr,
            "dramlat %s%s T %3u U %d: chase %.1f cycles a step (%.1f ns); stream %.1f B/cycle, %.3f TB/s over %.3f ms, "
            "%.1f cycles a loop iteration; SM clock %.3f GHz\n",
            write ? "write" : "read", shared ? " shared" : "", threads, UNROLL, (double)w.chase_cycles / STEPS,
            (double)w.chase_ns / STEPS, bpc, span_ns > 0 ? (double)w.bytes / span_ns / 1000.0 : 0.0, span_ns / 1e6,
            w.loops ? (double)w.loop_cycles / (double)w.loops : 0.0, ghz);
}

int main(int argc, char **argv)
{
    g_prog = "dramlat";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    bool shared = argc == 3 && strcmp(argv[2], "shared") == 0;
    if (argc == 3 && !shared) usage_fail(USAGE, "%s is not 'shared'", argv[2]);
    bool write = strcmp(argv[1], "write") == 0;
    if (!write && strcmp(argv[1], "read") != 0) usage_fail(USAGE, "MODE %s is not read or write", argv[1]);
    setup_device();
    int sms = 0;
    CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));

    /* the chase: a random cycle (Sattolo) over the buffer's lines, each
     * line's first word holding the next line's address */
    size_t lines = (size_t)CHASE_MIB * 1024 * 1024 / LINE, words = lines * (LINE / 8);
    unsigned long long *dchase = dev_alloc<unsigned long long>(words);
    unsigned long long *h = (unsigned long long *)host_alloc(words * 8);
    size_t *order = (size_t *)host_alloc(lines * sizeof(size_t));
    for (size_t k = 0; k < lines; ++k) order[k] = k;
    for (size_t k = lines - 1; k > 0; --k) {
        size_t j = ((size_t)hash_mix32((unsigned)k) * 65536u + hash_mix32((unsigned)k ^ 0x9e3779b9u)) % k;
        size_t t = order[k];
        order[k] = order[j];
        order[j] = t;
    }
    memset(h, 0, words * 8);
    for (size_t k = 0; k < lines; ++k)
        h[order[k] * (LINE / 8)] = (unsigned long long)(dchase + order[(k + 1) % lines] * (LINE / 8));
    CHECK(cudaMemcpy(dchase, h, words * 8, cudaMemcpyHostToDevice));
    free(h);
    free(order);

    size_t n4 = (size_t)STREAM_MIB * 1024 * 1024 / sizeof(float4);
    float4 *dstream = dev_alloc<float4>(n4);
    CHECK(cudaMemset(dstream, 0, n4 * sizeof(float4)));
    window *dw = dev_alloc<window>(1);

    /* each level starts the chase at its own pseudo-random line of the one
     * cycle, so its 2,304 steps meet lines no earlier level brought into L2
     * (they touch 0.1% of the 2 Mi lines each) */
    const unsigned threads[6] = {0, 32, 64, 128, 256, 512};
    const unsigned long long *start[9];
    for (int k = 0; k < 9; ++k) start[k] = dchase + (hash_mix32(1000u + k) % lines) * (LINE / 8);
    for (int k = 0; k < 6; ++k) level<1>(write, shared, start[k], dstream, n4, threads[k], dw, sms);
    level<2>(write, shared, start[6], dstream, n4, 512, dw, sms);
    level<4>(write, shared, start[7], dstream, n4, 512, dw, sms);
    level<4>(write, shared, start[8], dstream, n4, 256, dw, sms);

    CHECK(cudaFree(dchase));
    CHECK(cudaFree(dstream));
    CHECK(cudaFree(dw));
    return finish(write ? (shared ? "dramlat write shared" : "dramlat write") : (shared ? "dramlat read shared" : "dramlat read"), 0);
}
