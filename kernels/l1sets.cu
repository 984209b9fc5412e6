/* l1sets.cu - which lines share an L1 set with a given line (docs/findings.md
 * §3f). One thread, one launch a test, so that every test starts from an
 * empty L1. A test loads the target line, then a list of other lines one at
 * a time, then the target again, timed: if it missed, the list holds at
 * least as many lines of the target's set as the set has ways (an eviction
 * set; with LRU, exactly that).
 *
 * For each target T (a line number in the buffer):
 *   1. the lines SPAN+1 .. SPAN+POOL evict T; groups of them are dropped while the
 *      rest still evicts it, down to a minimal eviction set E (its size is
 *      the number of ways, where replacement is LRU);
 *   2. every line Y of 0 .. SPAN-1 (not T, not in E) is tested with E less
 *      one line, then Y: T misses exactly when Y is in T's set.
 * GMS_CHAIN=K: then also load the set's first k lines twice, k = 1 .. K, and
 * print how many of the second loads hit ("target T chain: k/hits ..."): the
 * ways a set has, and how it replaces.
 * GMS_SMEM=BYTES: dynamic shared memory for every launch (another carveout).
 * The list is read with ld.global.cg (L2 only), so that it takes no room in
 * L1; the buffer with ld.global.ca.
 *
 * usage: l1sets high T0 MAXBIT   (see high_bits below), or
 *        l1sets POOL SPAN T...|auto K   (auto K: targets 0, then the first
 *        line in no set found so far, K targets in all) prints "# buffer ADDRESS", then per target
 *        "target T ways W: E..." and "target T set: Y..." (line numbers in the
 *        buffer, whose lines are 128 B from ADDRESS). */
#include <algorithm>
#include <vector>
#include "common.cuh"
#include "evictset.h"
#define LINE_WORDS 32
#define HIT_CYCLES 150
static const char *USAGE = "POOL SPAN T...|auto K, or high T0 MAXBIT";

__device__ static inline int load_ca(const int *p)
{
    int v;
    asm volatile("ld.global.ca.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ static inline int load_cg(const int *p)
{
    int v;
    asm volatile("ld.global.cg.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
/* out: the cycles of the target's second load */
__global__ void evictTest(const int *buf, const int *list, int n, int target, long long *out)
{
    __shared__ int sink;
    int dep = load_ca(buf + (size_t)target * LINE_WORDS);
    for (int i = 0; i < n; ++i) dep += load_ca(buf + (size_t)load_cg(list + i) * LINE_WORDS + dep);
    const int *p = buf + (size_t)target * LINE_WORDS + dep;
    long long t0 = clock_now();
    int v = load_ca(p);
    *(volatile int *)&sink = v;
    long long t1 = clock_now();
    out[0] = t1 - t0 + v + (n < 0 ? sink : 0); /* sink read only to keep the compiler quiet */
}

/* loads the list twice; out: how many loads of the second pass hit */
__global__ void chainTest(const int *buf, const int *list, int n, long long *out)
{
    __shared__ int sink;
    int dep = 0;
    for (int i = 0; i < n; ++i) dep += load_ca(buf + (size_t)load_cg(list + i) * LINE_WORDS + dep);
    long long hits = 0;
    for (int i = 0; i < n; ++i) {
        const int *p = buf + (size_t)load_cg(list + i) * LINE_WORDS + dep;
        long long t0 = clock_now();
        int v = load_ca(p);
        *(volatile int *)&sink = v;
        long long t1 = clock_now();
        dep += v;
        hits += t1 - t0 < HIT_CYCLES;
    }
    out[0] = hits + (n < 0 ? sink : 0);
}

static int *g_buf, *g_list;
static long long *g_out;
static long g_tests;
static int g_chain; /* GMS_CHAIN */
static int g_smem;  /* GMS_SMEM: dynamic shared memory per launch, for another carveout */

/* does loading `lines` after the target push the target out of L1? */
static bool evicts(int target, const std::vector<int> &lines)
{
    CHECK(cudaMemcpy(g_list, lines.data(), lines.size() * sizeof(int), cudaMemcpyHostToDevice));
    evictTest<<<1, 1, g_smem>>>(g_buf, g_list, (int)lines.size(), target, g_out);
    CHECK_LAUNCH();
    long long cycles;
    CHECK(cudaMemcpy(&cycles, g_out, sizeof cycles, cudaMemcpyDeviceToHost));
    ++g_tests;
    return cycles >= HIT_CYCLES;
}


/* "high T0 MAXBIT": how line bits 14 .. MAXBIT fold into the set index.
 * T is a line whose address has bits 0-22 of its line number clear but for
 * T0's (so adding 2^j flips bit j alone); E = T ^ 625, T ^ 1051, T ^ 1642,
 * three lines of T's set by the in-page fold (findings §3f); for each bit j
 * and x in 0..511, Y = T + 2^j ^ x after E evicts T exactly when Y is in T's
 * set, that is when x is bit j's mask. Prints "bit j: x..." (one x each,
 * where the index is an XOR of the line's bits). */
static int high_bits(int t0, int maxbit)
{
    size_t span = ((size_t)1 << (maxbit + 2)) + 16384; /* lines */
    int *buf = dev_alloc<int>(span * LINE_WORDS);
    g_buf = buf;
    unsigned long long base_line = (unsigned long long)(uintptr_t)buf >> 7;
    unsigned long long align = 1ull << (maxbit + 1);
    size_t t = (size_t)((align - base_line % align) % align) + (size_t)t0; /* line offset of T */
    printf("# buffer %p, T at line offset %zu (line %#llx)\n", (void *)buf, t, base_line + t);
    const int kernel[3] = {625, 1051, 1642};
    for (int j = 14; j <= maxbit; ++j) {
        printf("bit %d:", j);
        for (int x = 0; x < 512; ++x) {
            std::vector<int> list;
            for (int k : kernel) list.push_back((int)(t ^ (size_t)k));
            size_t y = (t + ((size_t)1 << j)) ^ (size_t)x;
            list.push_back((int)y);
            if (evicts((int)t, list)) printf(" %d", x);
        }
        printf("\n");
        fflush(stdout);
    }
    return 0;
}

int main(int argc, char **argv)
{
    g_prog = "l1sets";
    if (argc == 4 && strcmp(argv[1], "high") == 0) {
        int t0 = (int)parse_long(argv[2], "T0", 0, 16383, USAGE);
        int maxbit = (int)parse_long(argv[3], "MAXBIT", 14, 28, USAGE);
        setup_device();
        g_list = dev_alloc<int>(16);
        g_out = dev_alloc<long long>(1);
        return high_bits(t0, maxbit);
    }
    if (argc < 4) usage_fail(USAGE, "expected POOL, SPAN and at least one target");
    int pool = (int)parse_long(argv[1], "POOL", 64, 1 << 16, USAGE);
    int span = (int)parse_long(argv[2], "SPAN", 1, 1 << 20, USAGE);
    std::vector<int> targets;
    int auto_sets = 0; /* "auto K": the next target is the first line in no set found yet, K times */
    if (argc == 5 && strcmp(argv[3], "auto") == 0)
        auto_sets = (int)parse_long(argv[4], "K", 1, 4096, USAGE);
    else
        for (int i = 3; i < argc; ++i) targets.push_back((int)parse_long(argv[i], "T", 0, span - 1, USAGE));
    std::vector<char> covered((size_t)span, 0);
    if (auto_sets) targets.push_back(0);
    const char *chain_env = getenv("GMS_CHAIN");
    g_chain = chain_env ? (int)parse_long(chain_env, "GMS_CHAIN", 1, 64, USAGE) : 0;
    const char *smem_env = getenv("GMS_SMEM");
    g_smem = smem_env ? (int)parse_long(smem_env, "GMS_SMEM", 0, 48 * 1024, USAGE) : 0;
    setup_device();
    size_t lines = (size_t)span + pool + 1;
    g_buf = dev_alloc<int>(lines * LINE_WORDS);
    CHECK(cudaMemset(g_buf, 0, lines * LINE_WORDS * sizeof(int)));
    g_list = dev_alloc<int>((size_t)std::max(pool, span));
    g_out = dev_alloc<long long>(1);
    printf("# buffer %p, %d B of dynamic shared memory\n", (void *)g_buf, g_smem);
    for (size_t k = 0; k < targets.size(); ++k) {
        int t = targets[k];
        covered[(size_t)t] = 1;
        std::vector<int> all;
        for (int i = 1; i <= pool; ++i) all.push_back(span + i); /* beyond the lines classified */
        if (!evicts(t, all)) {
            printf("target %d: %d lines after it do not evict it\n", t, pool);
            continue;
        }
        std::vector<int> e = reduce_eviction_set(all, [t](const std::vector<int> &rest) { return evicts(t, rest); });
        printf("target %d ways %zu:", t, e.size());
        for (int x : e) printf(" %d", x);
        printf("\n");
        /* E less its first line, then Y */
        std::vector<int> probe(e.begin() + 1, e.end());
        probe.push_back(0);
        printf("target %d set:", t);
        int found = 0;
        std::vector<int> found_lines;
        for (int y = 0; y < span; ++y) {
            if (y == t) continue;
            probe.back() = y;
            if (evicts(t, probe)) {
                printf(" %d", y);
                found_lines.push_back(y);
                covered[(size_t)y] = 1;
                ++found;
            }
        }
        if (auto_sets && (int)targets.size() < auto_sets) {
            int next = 0;
            while (next < span && covered[(size_t)next]) ++next;
            if (next < span) targets.push_back(next);
        }
        printf("\n");
        if (g_chain) { /* the first K lines of the set, K = 1 .. GMS_CHAIN: how many stay */
            std::vector<int> set(1, t);
            for (int y = 0; y < span; ++y)
                if (y != t && std::find(found_lines.begin(), found_lines.end(), y) != found_lines.end())
                    set.push_back(y);
            printf("target %d chain:", t);
            for (int k = 1; k <= g_chain && k <= (int)set.size(); ++k) {
                CHECK(cudaMemcpy(g_list, set.data(), (size_t)k * sizeof(int), cudaMemcpyHostToDevice));
                chainTest<<<1, 1, g_smem>>>(g_buf, g_list, k, g_out);
                CHECK_LAUNCH();
                long long hits;
                CHECK(cudaMemcpy(&hits, g_out, sizeof hits, cudaMemcpyDeviceToHost));
                printf(" %d/%lld", k, hits);
            }
            printf("\n");
        }
        fprintf(stderr, "l1sets: target %d: %zu ways, %d lines of %d in its set (%ld tests so far)\n", t, e.size(),
                found, span, g_tests);
        fflush(stdout);
    }
    return 0;
}
