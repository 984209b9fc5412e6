/* rwmix.cu - does one SM's queue towards L2 carry its read requests too, or
 * only its writes? (docs/findings.md §6c; docs/timing.md "The SM's write
 * queue"). One CTA (one SM): WS warps store whole lines as fast as they can
 * (wrate's line4 pattern: float4 per lane, 4 requests of 4 sectors a store,
 * 32 bytes a cycle alone), while WR other warps read L2-resident data that
 * bypasses L1 (__ldcg) until the stores are done. If reads and writes share
 * one queue drained at a sector (or a request) a cycle, the stores slow down
 * by what the reads take of it; if the reads go another way, the stores keep
 * their 32 bytes a cycle as long as the L1 tag stage and the issue slots
 * have room (the stores use a quarter of the tag stage: 4 lines a store per
 * 16 sectors).
 *
 * Read patterns (per warp instruction):
 *   line : lane l reads float l of one line -> 1 request of 4 sectors (128 B
 *          back, one tag lookup)
 *   sect : 8 lanes per line, sector 0 of 4 lines -> 4 requests of 1 sector
 *
 * usage: rwmix WS WR   One line per read pattern on stderr: the store loop's
 *        cycles and bytes a cycle, the reads' requests and sectors a cycle
 *        over the same time. WR 0: the stores alone. WS 0: the reads alone
 *        (they then run READ_ITERS iterations). */
#include "common.cuh"

#define STORE_ITERS 2048
#define READ_ITERS 1024 /* the readers' iterations when nothing stores */
#define UNROLL 16       /* independent loads in flight per reader iteration */
#define READ_LINES 16384 /* 2 MiB read over and over: stays in L2 */

static const char *USAGE = "WS WR";

__global__ void mixLoop(float *out, const float *in, int ws, int pattern, long long *res, float *sink)
{
    __shared__ volatile int stores_left;
    __shared__ long long t_first, t_last;
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (threadIdx.x == 0) {
        stores_left = ws;
        t_first = 0x7fffffffffffffffll;
        t_last = 0;
    }
    __syncthreads();
    long long t0 = clock64();
    if (warp < ws) {
        for (int i = 0; i < STORE_ITERS; ++i) {
            size_t step = (size_t)i * ws + warp;
            float4 v = make_float4((float)i, 1.0f, 2.0f, 3.0f);
            reinterpret_cast<float4 *>(out + step * 128)[lane] = v;
        }
        long long t1 = clock64();
        if (lane == 0) {
            atomicMin((unsigned long long *)&t_first, (unsigned long long)t0);
            atomicMax((unsigned long long *)&t_last, (unsigned long long)t1);
            atomicSub((int *)&stores_left, 1);
        }
    } else {
        int r = warp - ws, wr = blockDim.x / 32 - ws;
        float sum = 0.0f;
        long long iters = 0;
        for (;;) {
            if (ws > 0 ? stores_left == 0 : iters == READ_ITERS)
                break;
#pragma unroll
            for (int u = 0; u < UNROLL; ++u) {
                size_t k = ((size_t)iters * wr + r) * UNROLL + u; /* the readers' instructions, in order */
                size_t line, word;
                if (pattern == 0) {
                    line = k % READ_LINES;
                    word = lane;
                } else {
                    line = (k * 4 + lane / 8) % READ_LINES;
                    word = lane % 8;
                }
                sum += __ldcg(in + line * 32 + word);
            }
            ++iters;
        }
        long long t1 = clock64();
        if (lane == 0) {
            res[2 + 3 * r] = iters;
            res[3 + 3 * r] = t0;
            res[4 + 3 * r] = t1;
        }
        if (sum == 12345.0f) sink[threadIdx.x] = sum; /* keeps the loads */
    }
    __syncthreads();
    if (threadIdx.x == 0) {
        res[0] = t_first;
        res[1] = t_last;
    }
}

int main(int argc, char **argv)
{
    g_prog = "rwmix";
    if (argc != 3) usage_fail(USAGE, "expected 2 arguments");
    int ws = (int)parse_long(argv[1], "WS", 0, 32, USAGE);
    int wr = (int)parse_long(argv[2], "WR", 0, 32, USAGE);
    if (ws + wr < 1 || ws + wr > 32) usage_fail(USAGE, "WS + WR must be 1 to 32");
    setup_device();
    size_t out_floats = (size_t)(ws ? ws : 1) * STORE_ITERS * 128;
    float *o = dev_alloc<float>(out_floats);
    float *in = dev_alloc<float>((size_t)READ_LINES * 32);
    CHECK(cudaMemset(in, 0, (size_t)READ_LINES * 32 * sizeof(float)));
    float *sink = dev_alloc<float>(1024);
    long long *d = dev_alloc<long long>(2 + 3 * 32);
    long long h[2 + 3 * 32];
    static const char *name[2] = {"line", "sect"};
    static const double req_per_inst[2] = {1, 4}, sect_per_inst[2] = {4, 4};
    for (int p = 0; p < 2; ++p) {
        for (int rep = 0; rep < 2; ++rep) { /* the first: warm-up (L2 holds the reads, TLB, icache) */
            mixLoop<<<1, 32 * (ws + wr)>>>(o, in, ws, p, d, sink);
            CHECK_LAUNCH();
        }
        CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
        double reads = 0;
        long long r0 = 0x7fffffffffffffffll, r1 = 0;
        for (int r = 0; r < wr; ++r) {
            reads += (double)h[2 + 3 * r] * UNROLL;
            r0 = h[3 + 3 * r] < r0 ? h[3 + 3 * r] : r0;
            r1 = h[4 + 3 * r] > r1 ? h[4 + 3 * r] : r1;
        }
        long long sc = ws ? h[1] - h[0] : 0, rc = wr ? r1 - r0 : 0;
        fprintf(stderr,
                "WS %2d WR %2d %s: stores %lld cycles, %.2f B/cycle; reads %.0f inst in %lld cycles, "
                "%.3f req/cycle, %.3f sectors/cycle\n",
                ws, wr, name[p], sc, sc ? (double)ws * STORE_ITERS * 512 / sc : 0.0, reads, rc,
                rc ? reads * req_per_inst[p] / rc : 0.0, rc ? reads * sect_per_inst[p] / rc : 0.0);
    }
    CHECK(cudaFree(o));
    CHECK(cudaFree(in));
    CHECK(cudaFree(sink));
    CHECK(cudaFree(d));
    return finish("mixLoop", 0);
}
