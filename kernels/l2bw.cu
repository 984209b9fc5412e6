/* l2bw.cu - how many L2 hit sectors and requests the H200's L2 serves per
 * cycle when every SM reads at once (the timing model's per-slice rate,
 * `[timing] l2_slice_bytes_per_cycle`, was inferred from the A100's
 * whitepaper, docs/timing.md). CTAS CTAs of W warps read a buffer of KIB
 * KiB past L1 (__ldcg) over and over, UNROLL independent loads in flight per
 * warp; the buffer stays in L2 (the first launch is a warm-up), so after it
 * every request is an L2 hit. clock64 around each CTA's loop, the GPU's
 * nanosecond clock (globaltimer) around the whole kernel.
 *
 * Patterns (per warp instruction, 4 sectors = 128 bytes each):
 *   line : lane l reads float l of one line  -> 1 request of 4 sectors
 *   half : 16 lanes per line, 2 lines        -> 2 requests of 2 sectors
 *   sect : 8 lanes per line, sector 0 of 4   -> 4 requests of 1 sector
 * At any moment the warps of the grid read consecutive lines, so the
 * requests spread over every slice.
 *
 * GMS_L2BW_CACHED=1 in the environment: plain loads (LDG.E, through L1,
 * which the stream misses) instead of __ldcg (LDG.E.STRONG.GPU), to see
 * whether loads L1 caches are held to the same number in flight per warp
 * (docs/findings.md §12, ninth session).
 *
 * usage: l2bw W CTAS KIB [SMS [FIRST]]   (KIB a power of two) CTAs placed on SMs
 * numbered SMS or higher (default: none), or below FIRST (default 0), return
 * at once, so SMs FIRST to SMS - 1 read with every CTA the scheduler gives
 * them (CTAS 2 x 132: two each). GMS_L2BW_SMS=LIST in the environment (SM
 * numbers, comma-separated, each below 160) reads on exactly those SMs
 * instead (kernels/probes/slicemap.sh). GMS_L2BW_STRIDE=S: the KIB / 128
 * lines read lie S lines apart (a column of a matrix: kernels/probes/slicemap.sh). One
 * line per pattern on stderr: the reading CTAs and SMs, cycles (mean and
 * slowest reading CTA), and per SM cycle (mean CTA) the grid's requests and
 * sectors, per reading SM its sectors, and per nanosecond its bytes. */
#include "common.cuh"

#define ITERS 256 /* loop iterations per warp */
#define UNROLL 16 /* independent loads per iteration */

static const char *USAGE = "W CTAS KIB [SMS [FIRST]]";

/* PATTERN is a template argument and the loads fill an array before they
 * are added, so each iteration's UNROLL loads are all issued before the
 * first is waited for (a runtime pattern test between the loads, or adding
 * each as it comes, left two or three loads in flight per warp). */
/* The SMs that read: a bit per SM number. */
struct sm_set {
    unsigned bits[5];
};

template <int PATTERN, bool CACHED>
__global__ void readLoop(const float *in, unsigned lines, unsigned stride, sm_set reading, long long *cycles,
                         unsigned long long *ns, float *sink)
{
    unsigned lane = threadIdx.x % 32;
    unsigned me = smid();
    if (me >= 160 || !(reading.bits[me / 32] >> (me % 32) & 1u)) { /* this SM stays idle: the others' rate alone */
        if (threadIdx.x == 0) cycles[blockIdx.x] = -1;
        return;
    }
    unsigned warps = gridDim.x * (blockDim.x / 32);
    unsigned g = blockIdx.x * (blockDim.x / 32) + threadIdx.x / 32;
    float sum = 0.0f;
    __syncthreads();
    long long t0 = clock64();
    unsigned long long n0 = globaltimer();
    for (int i = 0; i < ITERS; ++i) {
        float v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) {
            unsigned k = ((unsigned)i * UNROLL + u) * warps + g; /* the grid's instructions, in order */
            unsigned line, word;
            if (PATTERN == 0) {
                line = k;
                word = lane;
            } else if (PATTERN == 1) {
                line = k * 2 + lane / 16;
                word = lane % 16;
            } else {
                line = k * 4 + lane / 8;
                word = lane % 8;
            }
            const float *a = in + (size_t)(line & (lines - 1)) * stride * 32 + word; /* a mask: a modulo costs more than the load */
            v[u] = CACHED ? *a : __ldcg(a);
        }
#pragma unroll
        for (int u = 0; u < UNROLL; ++u)
            sum += v[u];
    }
    __syncthreads();
    long long t1 = clock64();
    unsigned long long n1 = globaltimer();
    if (threadIdx.x == 0) {
        cycles[blockIdx.x] = t1 - t0;
        ns[2 * blockIdx.x] = n0;
        ns[2 * blockIdx.x + 1] = n1;
    }
    if (sum == 12345.0f) sink[threadIdx.x] = sum; /* keeps the loads */
}

int main(int argc, char **argv)
{
    g_prog = "l2bw";
    if (argc < 4 || argc > 6) usage_fail(USAGE, "expected 3 to 5 arguments");
    int w = (int)parse_long(argv[1], "W", 1, 32, USAGE);
    int ctas = (int)parse_long(argv[2], "CTAS", 1, 4096, USAGE);
    long kib = parse_long(argv[3], "KIB", 1, 1 << 21, USAGE);
    unsigned sms = argc >= 5 ? (unsigned)parse_long(argv[4], "SMS", 1, 1024, USAGE) : 1024u;
    unsigned first = argc == 6 ? (unsigned)parse_long(argv[5], "FIRST", 0, 1023, USAGE) : 0u;
    if (first >= sms) usage_fail(USAGE, "FIRST must be below SMS");
    sm_set reading = {{0, 0, 0, 0, 0}};
    for (unsigned k = first; k < sms && k < 160; ++k) reading.bits[k / 32] |= 1u << (k % 32);
    const char *list = getenv("GMS_L2BW_SMS");
    if (list) {
        reading = sm_set{{0, 0, 0, 0, 0}};
        sms = 0;
        for (const char *q = list; *q;) {
            char *end;
            long k = strtol(q, &end, 10);
            if (end == q || k < 0 || k >= 160 || (*end && *end != ',')) usage_fail(USAGE, "GMS_L2BW_SMS: expected SM numbers below 160, comma-separated");
            reading.bits[k / 32] |= 1u << (k % 32);
            sms++;
            q = *end ? end + 1 : end;
        }
        first = 0;
        fprintf(stderr, "l2bw: reading on SMs %s (GMS_L2BW_SMS)\n", list);
    }
    setup_device();
    if (kib & (kib - 1)) usage_fail(USAGE, "KIB must be a power of two");
    size_t lines = (size_t)kib * 1024 / 128;
    const char *senv = getenv("GMS_L2BW_STRIDE");
    unsigned stride = 1;
    if (senv) {
        char *end;
        long v = strtol(senv, &end, 10);
        if (end == senv || *end || v < 1 || v > (1L << 20)) usage_fail(USAGE, "GMS_L2BW_STRIDE: expected lines, 1 to 2^20");
        stride = (unsigned)v;
        fprintf(stderr, "l2bw: KIB / 128 B lines %u lines apart (GMS_L2BW_STRIDE)\n", stride);
    }
    float *in = dev_alloc<float>(lines * stride * 32);
    CHECK(cudaMemset(in, 0, lines * stride * 32 * sizeof(float)));
    float *sink = dev_alloc<float>(1024);
    long long *d = dev_alloc<long long>(ctas);
    unsigned long long *dn = dev_alloc<unsigned long long>(2 * (size_t)ctas);
    long long *h = (long long *)host_alloc(ctas * sizeof(long long));
    unsigned long long *hn = (unsigned long long *)host_alloc(2 * (size_t)ctas * sizeof(unsigned long long));
    const char *env = getenv("GMS_L2BW_CACHED");
    bool cached = env && strcmp(env, "1") == 0;
    if (cached)
        fprintf(stderr, "l2bw: plain loads through L1 (GMS_L2BW_CACHED=1)\n");
    static const char *name[3] = {"line", "half", "sect"};
    static const double req_per_inst[3] = {1, 2, 4};
    for (int p = 0; p < 3; ++p) {
        for (int rep = 0; rep < 2; ++rep) { /* the first: warm-up (fills L2, TLB, icache) */
            if (p == 0)
                (cached ? readLoop<0, true> : readLoop<0, false>)<<<ctas, 32 * w>>>(in, (unsigned)lines, stride, reading, d, dn, sink);
            else if (p == 1)
                (cached ? readLoop<1, true> : readLoop<1, false>)<<<ctas, 32 * w>>>(in, (unsigned)lines, stride, reading, d, dn, sink);
            else
                (cached ? readLoop<2, true> : readLoop<2, false>)<<<ctas, 32 * w>>>(in, (unsigned)lines, stride, reading, d, dn, sink);
            CHECK_LAUNCH();
        }
        CHECK(cudaMemcpy(h, d, ctas * sizeof(long long), cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(hn, dn, 2 * (size_t)ctas * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        double mean = 0;
        long long hi = 0;
        unsigned long long n0 = ~0ull, n1 = 0;
        int reading = 0;
        for (int c = 0; c < ctas; ++c) {
            if (h[c] < 0)
                continue;
            ++reading;
            mean += (double)h[c];
            hi = h[c] > hi ? h[c] : hi;
            n0 = hn[2 * c] < n0 ? hn[2 * c] : n0;
            n1 = hn[2 * c + 1] > n1 ? hn[2 * c + 1] : n1;
        }
        mean /= reading;
        int placed = ctas < 132 ? ctas : 132; /* a CTA per SM first (docs/findings.md §2d) */
        int reading_sms = list ? (int)sms : ((int)sms < placed ? (int)sms : placed) - (int)first;
        double inst = (double)reading * w * ITERS * UNROLL;
        fprintf(stderr,
                "W %2d CTAS %4d (reading %4d on %3d SMs) KIB %6ld %s: %.0f cycles mean, %lld slowest, %llu ns; "
                "per cycle %.2f requests, %.2f sectors, %.3f sectors per SM; %.1f B/ns\n",
                w, ctas, reading, reading_sms, kib, name[p], mean, hi, n1 - n0, inst * req_per_inst[p] / mean,
                inst * 4 / mean, inst * 4 / mean / reading_sms, inst * 128 / (double)(n1 - n0));
    }
    CHECK(cudaFree(in));
    CHECK(cudaFree(sink));
    CHECK(cudaFree(d));
    CHECK(cudaFree(dn));
    free(h);
    free(hn);
    return finish("readLoop", 0);
}
