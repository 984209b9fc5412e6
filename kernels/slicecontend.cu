/* slicecontend.cu - the L2 slices of a 2 MiB page, chunk by chunk, by
 * contention (docs/findings.md §21). ncu gives only the busiest slice's
 * count, one question a launch (kernels/slicepair.cu); here one launch
 * classifies every 1 KiB chunk of a 2 MiB-aligned page against one reference
 * chunk R: the warps of every SM but SM 0 read R's first line past L1 over
 * and over (a sector a request, four sectors spread over the warps, so that
 * the LRC merges few), which keeps R's slice busy in each partition; warp 0
 * of SM 0 then times a read of every chunk's first line (an L2 hit: all were
 * read once before), twice. A chunk on R's slice waits in its queue. The host
 * repeats with the first chunk not yet placed as the next R, until every
 * chunk is placed: the classes are the slices of SM 0's partition (findings
 * §21: both partitions use one function).
 *
 * usage: slicecontend [MAXREFS [PAGE [PAIRS [GPAGES [dirty]]]]]   (default 64, 0, 0, 0; PAGE:
 *        which 2 MiB page of a buffer of PAGE + 2 pages, to compare the maps
 *        of several physical pages; PAIRS: after the map, that many pairs of
 *        chunks of one class and as many of two classes are read as
 *        kernels/slicepair.cu reads its pairs (kernel readPair), for ncu's
 *        busiest-slice counter to say whether it groups chunks as contention
 *        does: "pair A B same|other" on stdout, in launch order; GPAGES: then
 *        every chunk of the pages PAGE .. PAGE + GPAGES - 1 labelled with
 *        the class of page PAGE on whose slice it lies, by hammering each
 *        class's first chunk: "glabel P l0 l1 ... l2047" a page, -1 for
 *        none, so that the maps of several pages share their slice names;
 *        dirty: then the dirty probe below writes and reads chunks of chosen
 *        classes of those pages, for ncu, kernels/probes/dirtyslice.sh).
 *        stdout: one line a launch
 *        "ref R median M threshold T members N: chunks...", then the raw
 *        latencies of the first launch ("lat0 c pass0 pass1"), then
 *        "class c k" for every chunk (k: the launch that placed it, -1 none). */
#include "common.cuh"

#define CHUNKS 2048           /* 1 KiB chunks of a 2 MiB page */
#define LINES_PER_CHUNK 8
#define WARPS 8
#define UNROLL 16
#define MAX_POLLS 80000       /* a hammering warp stops by itself after so many rounds */
#define SETTLE_CYCLES 20000   /* before SM 0 times: the queue of R's slice builds up */

static const char *USAGE = "[MAXREFS [PAGE [PAIRS [GPAGES [dirty]]]]]";

/* 32 chunks STRIDE chunks apart read 64 times each by SM 0 (for ncu's busiest slice) */
__global__ void readSet(const float *page, unsigned stride, unsigned zero, float *sink)
{
    if (smid() != 0) return;
    float sum = 0.0f;
    for (unsigned i = 0; i < 64; ++i)
#pragma unroll 8
        for (unsigned k = 0; k < 32; ++k)
            sum += __ldcg(page + (size_t)((k * stride) % CHUNKS) * LINES_PER_CHUNK * 32 + threadIdx.x + i * zero);
    if (sum == 12345.0f) sink[threadIdx.x] = sum;
}

__global__ void contend(const float *page, unsigned ref, unsigned nprobe, volatile unsigned *stop, long long *lat,
                        unsigned max_polls, unsigned zero)
{
    __shared__ float sink_mem[32];
    volatile float *sink = sink_mem;
    unsigned warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (smid() == 0) {
        if (warp != 0) return;
        float acc = 0.0f;
        for (unsigned c = 0; c < nprobe; ++c) acc += __ldcg(page + (size_t)c * LINES_PER_CHUNK * 32 + lane);
        sink[lane] = acc;
        long long t0 = clock64();
        while (clock64() - t0 < SETTLE_CYCLES) {
        }
        for (unsigned pass = 0; pass < 2; ++pass)
            for (unsigned c = 0; c < nprobe; ++c) {
                long long a = clock_now();
                float v = __ldcg(page + (size_t)c * LINES_PER_CHUNK * 32 + lane + zero * c);
                sink[lane] = v; /* the clock read below waits for this store, the store for v */
                long long b = clock_now();
                if (lane == 0) lat[pass * nprobe + c] = b - a;
            }
        if (lane == 0) {
            *stop = 1;
            __threadfence();
        }
        return;
    }
    const float *p = page + (size_t)ref * LINES_PER_CHUNK * 32 + (warp % 4) * 8 + lane % 8;
    float acc = 0.0f;
    for (unsigned poll = 0; poll < max_polls && *stop == 0; ++poll) {
        float v[UNROLL];
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) v[u] = __ldcg(p + (poll * UNROLL + u) * zero);
#pragma unroll
        for (int u = 0; u < UNROLL; ++u) acc += v[u];
    }
    if (acc == 12345.0f) sink[lane] = acc;
}

/* A hammering warp's safety stop, scaled with what SM 0 times (80,000 rounds
 * outlast 16 pages' 32,768 chunks). */
static unsigned polls_for(size_t nprobe)
{
    return (unsigned)(MAX_POLLS * ((nprobe + 32767) / 32768));
}

/* The dirty probe's writes: warp w of the grid writes the chunks w, w + W, ...
 * of the list whole (8 lines, one coalesced 128-byte store each). */
__global__ void writeChunks(float *buf, const unsigned *chunks, unsigned n)
{
    unsigned lane = threadIdx.x % 32, warps = gridDim.x * blockDim.x / 32;
    for (unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < n; i += warps)
        for (unsigned l = 0; l < LINES_PER_CHUNK; ++l)
            buf[((size_t)chunks[i] * LINES_PER_CHUNK + l) * 32 + lane] = (float)(i + l);
}

/* ... and its reads: each warp reads its chunks of the list twice, past L1;
 * the second pass misses what the L2 did not keep. */
__global__ void readChunks(const float *buf, const unsigned *chunks, unsigned n, float *sink)
{
    unsigned lane = threadIdx.x % 32, warps = gridDim.x * blockDim.x / 32;
    float acc = 0.0f;
    for (unsigned pass = 0; pass < 2; ++pass)
        for (unsigned i = (blockIdx.x * blockDim.x + threadIdx.x) / 32; i < n; i += warps)
            for (unsigned l = 0; l < LINES_PER_CHUNK; ++l)
                acc += __ldcg(buf + ((size_t)chunks[i] * LINES_PER_CHUNK + l) * 32 + lane);
    if (acc == 12345.0f) sink[lane] = acc;
}

/* The dirty probe (docs/findings.md §3b asks what holds the L2's dirty data to
 * ~26 MiB): with every chunk of pages 0 .. gpages - 1 labelled by its slice
 * class, write only the chunks of one class (so that one slice of each
 * partition takes them all), then of several, then of all; and read them
 * twice. Under ncu (-k regex:Chunks) each launch is one row; stderr names
 * them in order: "dirty K write|read classes C0-C1 pages P chunks N KiB B". */
static void dirty_probe(float *buf, const int *label, int gpages)
{
    size_t n = (size_t)gpages * CHUNKS;
    unsigned *list = (unsigned *)host_alloc(n * sizeof(unsigned));
    unsigned *dlist = dev_alloc<unsigned>(n);
    float *sink = dev_alloc<float>(32);
    struct { int write, c0, c1, pages; } runs[] = {
        {1, 0, 0, 4},  {1, 0, 0, 8},  {1, 0, 0, 12}, {1, 0, 0, 16}, {1, 0, 0, 24}, {1, 0, 0, 32},
        {1, 1, 1, 32}, {1, 0, 3, 32}, {1, 0, 46, 10}, {1, 0, 46, 12}, {1, 0, 46, 16},
        {0, 0, 0, 8},  {0, 0, 0, 16}, {0, 0, 0, 32}, {0, 0, 46, 16}, {0, 0, 46, 24},
        /* the knees, finer: every class written (18 to 48 MiB) and read twice (28 to 44 MiB) */
        {1, 0, 46, 9},  {1, 0, 46, 11}, {1, 0, 46, 13}, {1, 0, 46, 14}, {1, 0, 46, 20}, {1, 0, 46, 24},
        {0, 0, 46, 14}, {0, 0, 46, 18}, {0, 0, 46, 20}, {0, 0, 46, 22},
    };
    int k = 0;
    for (size_t r = 0; r < sizeof runs / sizeof runs[0]; ++r) {
        if (runs[r].pages > gpages) continue;
        unsigned m = 0;
        for (size_t i = 0; i < (size_t)runs[r].pages * CHUNKS; ++i)
            if (label[i] >= runs[r].c0 && label[i] <= runs[r].c1) list[m++] = (unsigned)i;
        CHECK(cudaMemcpy(dlist, list, m * sizeof(unsigned), cudaMemcpyHostToDevice));
        if (runs[r].write)
            writeChunks<<<264, 256>>>(buf, dlist, m);
        else
            readChunks<<<264, 256>>>(buf, dlist, m, sink);
        CHECK_LAUNCH();
        fprintf(stderr, "dirty %d %s classes %d-%d pages %d chunks %u KiB %u\n", k++,
                runs[r].write ? "write" : "read", runs[r].c0, runs[r].c1, runs[r].pages, m, m);
    }
    CHECK(cudaFree(dlist));
    CHECK(cudaFree(sink));
    free(list);
}

int main(int argc, char **argv)
{
    g_prog = "slicecontend";
    if (argc > 6) usage_fail(USAGE, "expected at most 5 arguments");
    int max_refs = argc >= 2 ? (int)parse_long(argv[1], "MAXREFS", 1, 2048, USAGE) : 64;
    int page_no = argc >= 3 ? (int)parse_long(argv[2], "PAGE", 0, 1023, USAGE) : 0;
    int pairs = argc >= 4 ? (int)parse_long(argv[3], "PAIRS", 0, 1000, USAGE) : 0;
    int gpages = argc >= 5 ? (int)parse_long(argv[4], "GPAGES", 0, 64, USAGE) : 0;
    bool dirty = argc == 6 && strcmp(argv[5], "dirty") == 0;
    if (argc == 6 && !dirty) usage_fail(USAGE, "the fifth argument can only be \"dirty\"");
    if (dirty && gpages == 0) usage_fail(USAGE, "dirty needs GPAGES");
    int span = page_no + (gpages > 1 ? gpages : 1) + 1; /* pages allocated */
    setup_device();
    const size_t page = (size_t)2 << 20;
    char *raw = NULL;
    CHECK(cudaMalloc((void **)&raw, (size_t)span * page));
    CHECK(cudaMemset(raw, 0, (size_t)span * page));
    const float *buf = (const float *)((((uintptr_t)raw + page - 1) & ~(uintptr_t)(page - 1)) + (size_t)page_no * page);
    unsigned *stop = dev_alloc<unsigned>(1);
    long long *dlat = dev_alloc<long long>(2 * CHUNKS);
    long long *lat = (long long *)host_alloc(2 * CHUNKS * sizeof(long long));
    int *cls = (int *)host_alloc(CHUNKS * sizeof(int));
    for (int c = 0; c < CHUNKS; ++c) cls[c] = -1;
    int placed = 0, k = 0;
    for (; k < max_refs && placed < CHUNKS; ++k) {
        int ref = 0;
        while (cls[ref] >= 0) ++ref;
        CHECK(cudaMemset(stop, 0, sizeof(unsigned)));
        CHECK(cudaMemset(dlat, 0, 2 * CHUNKS * sizeof(long long)));
        contend<<<132, 32 * WARPS>>>(buf, (unsigned)ref, CHUNKS, stop, dlat, MAX_POLLS, 0u);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(lat, dlat, 2 * CHUNKS * sizeof(long long), cudaMemcpyDeviceToHost));
        if (k == 0)
            for (int c = 0; c < CHUNKS; ++c) printf("lat0 %d %lld %lld\n", c, lat[c], lat[CHUNKS + c]);
        /* the threshold: midway between the median and the reference's own latency */
        long long *sorted = (long long *)host_alloc(CHUNKS * sizeof(long long));
        for (int c = 0; c < CHUNKS; ++c) sorted[c] = lat[CHUNKS + c] < lat[c] ? lat[CHUNKS + c] : lat[c];
        for (int i = 1; i < CHUNKS; ++i) /* insertion sort: 2,048 numbers */
            for (int j = i; j > 0 && sorted[j] < sorted[j - 1]; --j) {
                long long t = sorted[j];
                sorted[j] = sorted[j - 1];
                sorted[j - 1] = t;
            }
        long long median = sorted[CHUNKS / 2];
        long long mine = lat[ref] < lat[CHUNKS + ref] ? lat[ref] : lat[CHUNKS + ref];
        long long thr = (median + mine) / 2;
        free(sorted);
        int members = 0;
        printf("ref %d median %lld own %lld threshold %lld members", ref, median, mine, thr);
        char list[CHUNKS * 6];
        size_t at = 0;
        for (int c = 0; c < CHUNKS; ++c)
            if (lat[c] > thr && lat[CHUNKS + c] > thr) {
                ++members;
                at += (size_t)snprintf(list + at, sizeof list - at, " %d", c);
                if (cls[c] < 0) {
                    cls[c] = k;
                    ++placed;
                }
            }
        if (cls[ref] < 0) { /* its own slice must hold it; if its latency says otherwise, place it alone */
            cls[ref] = k;
            ++placed;
        }
        printf(" %d:%s\n", members, list);
        fflush(stdout);
    }
    for (int c = 0; c < CHUNKS; ++c) printf("class %d %d\n", c, cls[c]);
    float *psink = dev_alloc<float>(32);
    for (int want_same = 1; want_same >= 0; --want_same)
        for (int i = 0, a = 0; i < pairs && a < CHUNKS; ++a) {
            int b = a + 1;
            while (b < CHUNKS && (cls[b] == cls[a]) != (want_same == 1)) ++b;
            if (b >= CHUNKS) continue;
            printf("pair %d %d %s\n", a, b, want_same ? "same" : "other");
            readPair<<<132, 32>>>(buf, (unsigned)a * LINES_PER_CHUNK, (unsigned)b * LINES_PER_CHUNK, 0u, 0u, psink);
            CHECK_LAUNCH();
            ++i;
            a += 37; /* spread the pairs over the page */
        }
    if (pairs) /* and sets of 32 chunks, as slicemap.sh's strides (the chunks' first lines) */
        for (unsigned stride = 1; stride <= 64; stride *= 2) {
            int count[CHUNKS] = {0}, busiest = 0, classes = 0;
            for (unsigned k = 0; k < 32; ++k) {
                int c = cls[(k * stride) % CHUNKS];
                if (c >= 0 && count[c]++ == 0) ++classes;
                if (c >= 0 && count[c] > busiest) busiest = count[c];
            }
            printf("set stride %u: %d classes, busiest %d of 32\n", stride, classes, busiest);
            readSet<<<132, 32>>>(buf, stride, 0u, psink);
            CHECK_LAUNCH();
        }
    CHECK(cudaFree(psink));
    if (gpages > 0) {
        size_t n = (size_t)gpages * CHUNKS;
        long long *gd = dev_alloc<long long>(2 * n);
        long long *g = (long long *)host_alloc(2 * n * sizeof(long long));
        int *label = (int *)host_alloc(n * sizeof(int));
        for (size_t i = 0; i < n; ++i) label[i] = -1;
        for (int kk = 0; kk < k; ++kk) {
            int ref = 0;
            while (ref < CHUNKS && cls[ref] != kk) ++ref;
            if (ref == CHUNKS) continue;
            CHECK(cudaMemset(stop, 0, sizeof(unsigned)));
            contend<<<132, 32 * WARPS>>>(buf, (unsigned)ref, (unsigned)n, stop, gd, polls_for(n), 0u);
            CHECK_LAUNCH();
            CHECK(cudaMemcpy(g, gd, 2 * n * sizeof(long long), cudaMemcpyDeviceToHost));
            /* the threshold of the map: midway between an L2 hit and the reference's own wait */
            long long mine = g[ref] < g[n + ref] ? g[ref] : g[n + ref];
            long long thr = (360 + mine) / 2;
            int members = 0;
            for (size_t i = 0; i < n; ++i)
                if (g[i] > thr && g[n + i] > thr) {
                    label[i] = label[i] < 0 ? kk : -2; /* -2: on two references' slices */
                    ++members;
                }
            fprintf(stderr, "glabel ref %d class %d own %lld: %d chunks of %d pages\n", ref, kk, mine, members, gpages);
        }
        for (int pg = 0; pg < gpages; ++pg) {
            printf("glabel %d", page_no + pg);
            for (int c = 0; c < CHUNKS; ++c) printf(" %d", label[(size_t)pg * CHUNKS + c]);
            printf("\n");
        }
        if (dirty) dirty_probe((float *)buf, label, gpages);
        CHECK(cudaFree(gd));
        free(g);
        free(label);
    }
    CHECK(cudaFree(raw));
    CHECK(cudaFree(stop));
    CHECK(cudaFree(dlat));
    free(lat);
    free(cls);
    char what[80];
    snprintf(what, sizeof what, "contend x %d: %d of %d chunks placed", k, placed, CHUNKS);
    return finish(what, 0);
}
