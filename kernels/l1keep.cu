/* l1keep.cu - does L1 keep what it holds? (docs/findings.md §3f) local_array
 * and its global copy lose a few of their written lines from L1 before they
 * read them back, more the longer they wait (§3e), although their footprint
 * is far below L1's capacity. Here every warp owns LINES consecutive lines,
 * fills them whole, by stores (st) or by loads (ld), waits SPIN clock cycles
 * (spinning, no memory traffic), then loads them again; L1's lookup hits of
 * that second pass say how many lines survived.
 *
 *   l1Keep   CTAS CTAs of THREADS threads; warp w (of the grid) owns lines
 *            LINES x w .. LINES x (w + 1) - 1 of the buffer, lane l word l of
 *            each. The second pass reads them as they were written (line:
 *            one whole line an instruction) or as localArray reads its frame
 *            (gather: 4 loads, lane l word l of line (s + 5 r) mod LINES, s
 *            a per-thread pseudo-random number; LINES a power of two).
 *            sync: a barrier after the fill and after the wait, so that all
 *            of a CTA's fills come before any of its second pass; nosync:
 *            every thread on its own, as localArray.
 *
 * GMS_SMEM=BYTES in the environment: that much dynamic shared memory per
 * CTA, unused, so that the driver picks a larger carveout (a smaller L1) for
 * the same CTAs (findings §3e: the smallest carveout holding twice the
 * resident CTAs' shared memory plus 1 KiB each, at least 4 KiB a CTA).
 *
 * The loads are ld.global.ca through inline PTX, so that the compiler can
 * neither drop nor merge the two passes.
 *
 * usage: l1keep st|ld LINES SPIN [CTAS [THREADS [line|gather [sync|nosync]]]]
 *        (defaults: 1 CTA of 1,024 threads, line, sync) */
#include "common.cuh"
#define LANES 32
static const char *USAGE = "st|ld LINES SPIN [CTAS [THREADS [line|gather [sync|nosync]]]]";

__device__ static inline float load_ca(const float *p)
{
    float v;
    asm volatile("ld.global.ca.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
    return v;
}

/* the gather's per-thread start line, the same on both sides */
__host__ __device__ static inline int gather_start(size_t thread, int lines)
{
    return (int)(hash_mix32((unsigned int)thread * 2654435761u + 1u) & (unsigned int)(lines - 1));
}

__global__ void l1Keep(float *buf, float *out, unsigned *sms, int lines, int fill_by_stores, long long spin,
                       int gather, int sync)
{
    size_t thread = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
    float *mine = buf + (thread / LANES) * lines * LANES + thread % LANES;
    float acc = 0.0f;
    for (int i = 0; i < lines; ++i) {
        if (fill_by_stores)
            mine[i * LANES] = (float)(i + (int)(thread % LANES));
        else
            acc += load_ca(mine + i * LANES);
    }
    if (sync) __syncthreads();
    if (spin > 0) {
        long long t0 = clock64();
        while (clock64() - t0 < spin) { }
    }
    if (sync) __syncthreads();
    if (gather) {
        int s = gather_start(thread, lines);
        for (int r = 0; r < 4; ++r) acc += load_ca(mine + ((s + 5 * r) & (lines - 1)) * LANES);
    } else {
        for (int i = 0; i < lines; ++i) acc += load_ca(mine + i * LANES);
    }
    out[thread] = acc;
    if (threadIdx.x == 0) sms[blockIdx.x] = smid();
}

int main(int argc, char **argv)
{
    g_prog = "l1keep";
    if (argc < 4 || argc > 8) usage_fail(USAGE, "expected 3 to 7 arguments");
    int by_stores = strcmp(argv[1], "st") == 0;
    if (!by_stores && strcmp(argv[1], "ld") != 0) usage_fail(USAGE, "unknown mode '%s'", argv[1]);
    int lines = (int)parse_long(argv[2], "LINES", 1, 2048, USAGE);
    long long spin = parse_long(argv[3], "SPIN", 0, 2000000000L, USAGE);
    int ctas = argc > 4 ? (int)parse_long(argv[4], "CTAS", 1, 1 << 16, USAGE) : 1;
    int threads = argc > 5 ? (int)parse_long(argv[5], "THREADS", 32, 1024, USAGE) : 1024;
    if (threads % LANES) usage_fail(USAGE, "THREADS must be a multiple of 32");
    int gather = argc > 6 && strcmp(argv[6], "gather") == 0;
    if (argc > 6 && !gather && strcmp(argv[6], "line") != 0) usage_fail(USAGE, "unknown read '%s'", argv[6]);
    int sync = !(argc > 7 && strcmp(argv[7], "nosync") == 0);
    if (argc > 7 && sync && strcmp(argv[7], "sync") != 0) usage_fail(USAGE, "unknown '%s'", argv[7]);
    if (gather && (lines & (lines - 1))) usage_fail(USAGE, "gather needs LINES a power of two");
    const char *smem_env = getenv("GMS_SMEM");
    int smem = smem_env ? (int)parse_long(smem_env, "GMS_SMEM", 0, 48 * 1024, USAGE) : 0;
    setup_device();
    size_t nthreads = (size_t)ctas * threads, words = nthreads * lines;
    float *buf = dev_alloc<float>(words), *out = dev_alloc<float>(nthreads);
    unsigned *sms = dev_alloc<unsigned>((size_t)ctas);
    float *host = (float *)host_alloc(words * sizeof(float));
    for (size_t i = 0; i < words; ++i) host[i] = small_value(i);
    CHECK(cudaMemcpy(buf, host, words * sizeof(float), cudaMemcpyHostToDevice));
    l1Keep<<<ctas, threads, smem>>>(buf, out, sms, lines, by_stores, spin, gather, sync);
    CHECK_LAUNCH();
    /* how many SMs ran the CTAs: their lines share an SM's L1 */
    unsigned *hsms = (unsigned *)host_alloc((size_t)ctas * sizeof(unsigned));
    CHECK(cudaMemcpy(hsms, sms, (size_t)ctas * sizeof(unsigned), cudaMemcpyDeviceToHost));
    int used[1024] = {0}, nsms = 0;
    for (int c = 0; c < ctas; ++c)
        if (hsms[c] < 1024 && !used[hsms[c]]++) ++nsms;
    fprintf(stderr, "l1keep: %s %d lines a warp, spin %lld, %d CTAs of %d threads, %s, %s, %d B of dynamic shared memory: on %d SMs\n",
            argv[1], lines, spin, ctas, threads, gather ? "gather" : "line", sync ? "sync" : "nosync", smem, nsms);
    /* what the second pass read: the stored values, or the buffer as copied */
    float *got = (float *)host_alloc(nthreads * sizeof(float));
    float *want = (float *)host_alloc(nthreads * sizeof(float));
    CHECK(cudaMemcpy(got, out, nthreads * sizeof(float), cudaMemcpyDeviceToHost));
    for (size_t t = 0; t < nthreads; ++t) {
        size_t base = (t / LANES) * lines * LANES + t % LANES;
        int lane = (int)(t % LANES);
        float s = 0.0f;
        if (!by_stores)
            for (int i = 0; i < lines; ++i) s += host[base + (size_t)i * LANES];
        int first = gather ? gather_start(t, lines) : 0, n = gather ? 4 : lines;
        for (int r = 0; r < n; ++r) {
            int i = gather ? (first + 5 * r) & (lines - 1) : r;
            s += by_stores ? (float)(i + lane) : host[base + (size_t)i * LANES];
        }
        want[t] = s;
    }
    return finish("l1keep", count_mismatches("out", got, want, nthreads, 0.0f));
}
