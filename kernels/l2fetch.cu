/* l2fetch.cu - how many bytes L2 fetches from DRAM when a read misses
 * (docs/findings.md §15). CUDA has a per-context hint for it,
 * cudaLimitMaxL2FetchGranularity (0 to 128 bytes); this probe prints it (set
 * it with GMS_L2_FETCH=BYTES, common.cuh) and reads sectors of cold lines so
 * that ncu's L2 and DRAM counters show what a miss brought in.
 *
 *   l2fetch LINES PHASES [CTAS]
 *     LINES   128-byte lines read (a buffer of LINES x 128 B, a multiple of 256)
 *     PHASES  sector numbers, e.g. 0, 01, 02, 0123: phase k reads sector
 *             PHASES[k] of every line, one float per lane (lane l of a warp on
 *             its own line), past L1 (__ldcg); a CTA's phase ends only when
 *             its loads are back, so later phases find what earlier ones left
 *     CTAS    CTAs of 256 threads sharing the lines (default 1)
 *   Prints "l2fetch: limit BYTES" on stderr. With a fetch of 32 B,
 *   every sector of PHASES misses; with 64 B, the first of each sector pair
 *   (0-1, 2-3) misses and the second hits; dram__sectors_read shows the
 *   bytes fetched either way.
 *
 * Nothing goes to stdout (ncu --csv writes there). Exit codes as common.cuh. */
#include "common.cuh"

#define THREADS 256
#define MAX_PHASES 8

static const char *USAGE = "LINES PHASES [CTAS]";

__global__ void readPhases(const float *buf, int lines, const int *phase_sector, int phases, float *out)
{
    __shared__ float sink[THREADS];
    float acc = 0.0f;
    int per_cta = lines / gridDim.x, first = blockIdx.x * per_cta;
    for (int p = 0; p < phases; ++p) {
        int s = phase_sector[p];
        for (int l = threadIdx.x; l < per_cta; l += blockDim.x)
            acc += __ldcg(buf + (size_t)(first + l) * 32 + s * 8);
        /* storing acc needs every load of this phase back: the next phase
         * starts on what they brought into L2 */
        sink[threadIdx.x] = acc;
        __syncthreads();
        acc += sink[(threadIdx.x + 1) % THREADS];
        __syncthreads();
    }
    out[blockIdx.x * THREADS + threadIdx.x] = acc;
}

int main(int argc, char **argv)
{
    g_prog = "l2fetch";
    if (argc < 3 || argc > 4) usage_fail(USAGE, "expected 2 or 3 arguments");
    int lines = (int)parse_long(argv[1], "LINES", 256, 1 << 22, USAGE);
    int ctas = argc == 4 ? (int)parse_long(argv[3], "CTAS", 1, 1024, USAGE) : 1;
    if (lines % (256 * ctas) != 0) usage_fail(USAGE, "LINES must be a multiple of 256 x CTAS");
    int hphase[MAX_PHASES], phases = 0;
    for (const char *c = argv[2]; *c; ++c) {
        if (*c < '0' || *c > '3' || phases == MAX_PHASES) usage_fail(USAGE, "PHASES: up to 8 digits 0-3");
        hphase[phases++] = *c - '0';
    }
    if (phases == 0) usage_fail(USAGE, "PHASES: at least one sector");
    setup_device();

    size_t limit = 0;
    CHECK(cudaDeviceGetLimit(&limit, cudaLimitMaxL2FetchGranularity));
    fprintf(stderr, "l2fetch: limit %zu\n", limit);

    float *buf = dev_alloc<float>((size_t)lines * 32);
    CHECK(cudaMemset(buf, 0, (size_t)lines * 128));
    int *phase_sector = dev_alloc<int>(MAX_PHASES);
    CHECK(cudaMemcpy(phase_sector, hphase, sizeof(int) * phases, cudaMemcpyHostToDevice));
    float *out = dev_alloc<float>((size_t)ctas * THREADS);
    readPhases<<<ctas, THREADS>>>(buf, lines, phase_sector, phases, out);
    CHECK_LAUNCH();
    float *h = (float *)host_alloc(sizeof(float) * ctas * THREADS);
    CHECK(cudaMemcpy(h, out, sizeof(float) * ctas * THREADS, cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int i = 0; i < ctas * THREADS; ++i)
        bad += h[i] != 0.0f; /* the buffer holds zeros */
    free(h);
    CHECK(cudaFree(buf));
    CHECK(cudaFree(phase_sector));
    CHECK(cudaFree(out));
    char what[64];
    snprintf(what, sizeof what, "readPhases %d lines, phases %s, %d CTAs", lines, argv[2], ctas);
    return finish(what, bad);
}
