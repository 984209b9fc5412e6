/* wrate.cu - how fast one SM's L1 sends global stores to L2 (the drain rate
 * of the timing model's per-SM write queue, docs/timing.md "The SM's write
 * queue"). One CTA of W warps (so one SM) stores ITERS times per warp, each
 * time to lines no store touched before, as fast as it can; thread 0 reads
 * clock64 around the loop (after a barrier on both sides). Stores are
 * fire-and-forget, so once the queue towards L2 is full the loop runs at the
 * rate the queue drains; ITERS is large enough that the queue's own length
 * does not matter.
 *
 * Patterns (each warp instruction moves 512 bytes, full sectors, except ws11):
 *   line4  : float4 per lane, 4 whole lines     ->  4 requests of 4 sectors
 *   sect1  : float4 per lane, a lane pair fills sector 0 of its own line
 *            -> 16 requests of 1 sector (bytes-bound and request-bound differ)
 *   ws11   : one float per lane at offset 11 floats, warps contiguous (the
 *            suite's writeSegment_off11): 2 requests, 5 sectors, 128 bytes
 *
 * usage: wrate W CTAS   (W warps per CTA; CTAS 1 measures one SM alone,
 * 132 every SM at once). One line per pattern on stderr: cycles of the
 * store loop, and per cycle the bytes, sectors and requests sent. */
#include "common.cuh"

#define ITERS 2048

static const char *USAGE = "W CTAS";

__global__ void storeLoop(float *out, int pattern, long long *cycles)
{
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32, warps = blockDim.x / 32;
    size_t cta_floats = (size_t)warps * ITERS * (pattern == 1 ? 16 * 32 : 128);
    float *base = out + blockIdx.x * cta_floats;
    __syncthreads();
    long long t0 = clock64();
    for (int i = 0; i < ITERS; ++i) {
        size_t step = (size_t)i * warps + warp; /* the warp instructions of the CTA, in order */
        if (pattern == 0) {
            float4 v = make_float4((float)i, 1.0f, 2.0f, 3.0f);
            reinterpret_cast<float4 *>(base + step * 128)[lane] = v;
        } else if (pattern == 1) {
            float4 v = make_float4((float)i, 1.0f, 2.0f, 3.0f);
            /* lane pair k: sector 0 of line (step * 16 + k) */
            reinterpret_cast<float4 *>(base + (step * 16 + lane / 2) * 32)[lane % 2] = v;
        } else {
            base[step * 32 + 11 + lane] = (float)i;
        }
    }
    __syncthreads();
    long long t1 = clock64();
    if (threadIdx.x == 0) cycles[blockIdx.x] = t1 - t0;
}

int main(int argc, char **argv)
{
    g_prog = "wrate";
    if (argc != 3) usage_fail(USAGE, "expected 2 arguments");
    int w = (int)parse_long(argv[1], "W", 1, 32, USAGE);
    int ctas = (int)parse_long(argv[2], "CTAS", 1, 1024, USAGE);
    setup_device();
    size_t floats = (size_t)ctas * w * ITERS * 16 * 32 + 64; /* the largest pattern */
    float *o = dev_alloc<float>(floats);
    long long *d = dev_alloc<long long>(ctas);
    long long *h = (long long *)host_alloc(ctas * sizeof(long long));
    static const char *name[3] = {"line4", "sect1", "ws11"};
    static const double bytes[3] = {512, 512, 128}, sectors[3] = {16, 16, 5}, requests[3] = {4, 16, 2};
    for (int p = 0; p < 3; ++p) {
        storeLoop<<<ctas, 32 * w>>>(o, p, d); /* warm-up: instruction cache, TLB */
        CHECK_LAUNCH();
        storeLoop<<<ctas, 32 * w>>>(o, p, d);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(h, d, ctas * sizeof(long long), cudaMemcpyDeviceToHost));
        long long lo = h[0], hi = h[0];
        for (int c = 1; c < ctas; ++c) {
            lo = h[c] < lo ? h[c] : lo;
            hi = h[c] > hi ? h[c] : hi;
        }
        double inst = (double)w * ITERS;
        fprintf(stderr,
                "W %2d CTAS %4d %-5s: %lld-%lld cycles; per cycle (slowest CTA) %.2f B, %.3f sectors, "
                "%.3f requests, %.3f warp stores\n",
                w, ctas, name[p], lo, hi, inst * bytes[p] / hi, inst * sectors[p] / hi, inst * requests[p] / hi,
                inst / hi);
    }
    CHECK(cudaFree(o));
    CHECK(cudaFree(d));
    free(h);
    return finish("storeLoop", 0);
}
