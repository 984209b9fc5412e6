/* l1hash.cu - how L1 spreads lines over its sets (docs/findings.md §3f).
 * One thread loads N lines of a layout, then loads them again, timing each
 * load of the second pass with clock64: a load that comes back in under
 * HIT_CYCLES hit in L1. A layout is C consecutive lines, then the next C
 * lines D lines further on, and so on (C = 1: a plain stride of D lines;
 * C = D: N consecutive lines), the way one SM's CTAs lie in a buffer that
 * CTA after CTA fills. Where a layout loses lines far below L1's capacity,
 * some sets hold more of its lines than they have ways.
 *
 * Every load depends on the one before (the buffer holds zeros, added to the
 * next address), so they go one at a time and each one's time is its own.
 *
 * usage: l1hash TESTS   (TESTS: lines "C D N [map]"; prints "C D N hits min mean max a/b/c/d" per
 *        test (the second pass's latencies in cycles, and how many took under
 *        100, 100-249, 250-399 and 400 or more), and with map also the second pass's hits as 32-bit words in
 *        hex, word w bit b for line 32 w + b of the layout), after a first
 *        line "# buffer ADDRESS, LINES lines". GMS_SMEM=BYTES: dynamic shared memory for the
 *        CTA, so that the driver picks a larger carveout (a smaller L1). */
#include "common.cuh"
#define LINE_WORDS 32
#define HIT_CYCLES 150
#define MAX_TESTS 1024
#define MAX_LINES 4096
static const char *USAGE = "TESTS";

struct layout {
    long long chunk, distance, lines;
    int map;
};

__device__ static inline int load_ca_dep(const int *p)
{
    int v;
    asm volatile("ld.global.ca.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

__device__ static inline long long line_of(const layout &t, long long i)
{
    return i / t.chunk * t.distance + i % t.chunk;
}

__global__ void l1Hash(const int *buf, const layout *tests, int ntests, unsigned *hits, unsigned *maps,
                       long long *lat, unsigned *bins)
{
    __shared__ int sink;
    int dep = 0;
    for (int k = 0; k < ntests; ++k) {
        layout t = tests[k];
        for (long long i = 0; i < t.lines; ++i) dep += load_ca_dep(buf + line_of(t, i) * LINE_WORDS + dep);
        unsigned count = 0;
        long long lo = 1ll << 62, hi = 0, sum = 0;
        for (long long i = 0; i < t.lines; ++i) {
            const int *p = buf + line_of(t, i) * LINE_WORDS + dep; /* before the clock: a 64-bit division */
            long long t0 = clock_now();
            int v = load_ca_dep(p);
            *(volatile int *)&sink = v; /* waits for v before the clock is read again */
            long long t1 = clock_now();
            dep += v;
            long long d = t1 - t0;
            lo = d < lo ? d : lo;
            hi = d > hi ? d : hi;
            sum += d;
            ++bins[4 * k + (d < 100 ? 0 : d < 250 ? 1 : d < 400 ? 2 : 3)];
            int hit = d < HIT_CYCLES;
            count += hit;
            if (t.map && hit) maps[(size_t)k * (MAX_LINES / 32) + i / 32] |= 1u << (i % 32);
        }
        hits[k] = count;
        lat[3 * k] = lo;
        lat[3 * k + 1] = sum / t.lines;
        lat[3 * k + 2] = hi;
    }
    if (ntests < 0) hits[0] = sink; /* never: keeps the compiler quiet about sink */
}

int main(int argc, char **argv)
{
    g_prog = "l1hash";
    if (argc != 2) usage_fail(USAGE, "expected 1 argument");
    FILE *f = fopen(argv[1], "r");
    if (!f) usage_fail(USAGE, "cannot open '%s'", argv[1]);
    static layout tests[MAX_TESTS];
    int n = 0;
    char line[256];
    long long span = 0;
    for (int lineno = 1; fgets(line, sizeof line, f); ++lineno) {
        char *hash = strchr(line, '#'), word[16] = "";
        if (hash) *hash = 0;
        layout t = {0, 0, 0, 0};
        int got = sscanf(line, "%lld %lld %lld %15s", &t.chunk, &t.distance, &t.lines, word);
        if (got <= 0) continue;
        if (got < 3 || t.chunk < 1 || t.distance < t.chunk || t.lines < 1 || t.lines > MAX_LINES ||
            (got == 4 && strcmp(word, "map")) || n == MAX_TESTS)
            usage_fail(USAGE, "%s:%d: expected \"C D N [map]\" with 1 <= C <= D, 1 <= N <= %d", argv[1],
                       lineno, MAX_LINES);
        t.map = got == 4;
        long long last = (t.lines - 1) / t.chunk * t.distance + (t.lines - 1) % t.chunk + 1;
        span = last > span ? last : span;
        tests[n++] = t;
    }
    fclose(f);
    const char *smem_env = getenv("GMS_SMEM");
    int smem = smem_env ? (int)parse_long(smem_env, "GMS_SMEM", 0, 48 * 1024, USAGE) : 0;
    setup_device();
    int *buf = dev_alloc<int>((size_t)span * LINE_WORDS);
    CHECK(cudaMemset(buf, 0, (size_t)span * LINE_WORDS * sizeof(int)));
    layout *dtests = dev_alloc<layout>((size_t)n);
    CHECK(cudaMemcpy(dtests, tests, (size_t)n * sizeof(layout), cudaMemcpyHostToDevice));
    unsigned *dhits = dev_alloc<unsigned>((size_t)n), *dmaps = dev_alloc<unsigned>((size_t)n * MAX_LINES / 32);
    CHECK(cudaMemset(dmaps, 0, (size_t)n * MAX_LINES / 32 * sizeof(unsigned)));
    long long *dlat = dev_alloc<long long>((size_t)n * 3);
    unsigned *dbins = dev_alloc<unsigned>((size_t)n * 4);
    CHECK(cudaMemset(dbins, 0, (size_t)n * 4 * sizeof(unsigned)));
    /* one launch a test: each starts with an empty L1 (a launch invalidates
     * it), so that no test finds the lines, or the replacement state, that
     * the one before left */
    for (int k = 0; k < n; ++k) {
        l1Hash<<<1, 1, smem>>>(buf, dtests + k, 1, dhits + k, dmaps + (size_t)k * (MAX_LINES / 32), dlat + 3 * k,
                               dbins + 4 * k);
        CHECK_LAUNCH();
    }
    unsigned *hits = (unsigned *)host_alloc((size_t)n * sizeof(unsigned));
    unsigned *maps = (unsigned *)host_alloc((size_t)n * MAX_LINES / 32 * sizeof(unsigned));
    CHECK(cudaMemcpy(hits, dhits, (size_t)n * sizeof(unsigned), cudaMemcpyDeviceToHost));
    long long *lat = (long long *)host_alloc((size_t)n * 3 * sizeof(long long));
    CHECK(cudaMemcpy(lat, dlat, (size_t)n * 3 * sizeof(long long), cudaMemcpyDeviceToHost));
    unsigned *bins = (unsigned *)host_alloc((size_t)n * 4 * sizeof(unsigned));
    CHECK(cudaMemcpy(bins, dbins, (size_t)n * 4 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(maps, dmaps, (size_t)n * MAX_LINES / 32 * sizeof(unsigned), cudaMemcpyDeviceToHost));
    /* the buffer's address: where a set index takes address bits above the
     * layout's own, the same layout in another allocation lands elsewhere */
    printf("# buffer %p, %lld lines\n", (void *)buf, span);
    for (int k = 0; k < n; ++k) {
        printf("%lld %lld %lld %u %lld %lld %lld %u/%u/%u/%u", tests[k].chunk, tests[k].distance, tests[k].lines,
               hits[k], lat[3 * k], lat[3 * k + 1], lat[3 * k + 2], bins[4 * k], bins[4 * k + 1], bins[4 * k + 2],
               bins[4 * k + 3]);
        if (tests[k].map) {
            printf(" ");
            for (long long w = 0; w < (tests[k].lines + 31) / 32; ++w)
                printf("%08x", maps[(size_t)k * (MAX_LINES / 32) + w]);
        }
        printf("\n");
    }
    fprintf(stderr, "l1hash: %d tests over %lld lines, %d B of dynamic shared memory: PASSED\n", n, span, smem);
    return 0;
}
