/* l1frames.cu - local lines in L1, among local lines only (docs/findings.md
 * §3g). kernels/l1local.cu found that four to seven global lines of a set
 * never evicted a local word; here the lines of a test are local (or, as a
 * control, global). What it found first: L1 keeps local lines ACROSS
 * launches (a word never touched in a launch may hit), so only `sweep`,
 * which stores and reloads in one launch and checks the values, measures
 * one launch alone; the other modes are kept to show that effect.
 *
 *   sweep            one thread (lane 0 of warp W, W = 1, 2, ... one per
 *                    launch) stores M words of its frame, then reloads them
 *                    one at a time, timed, for M = 256 .. 8,192: "sweep: M
 *                    words stored ..., H reloads hit, 0 wrong values".
 *                    GMS_STRIDE=K: words 0, K, 2K ...; GMS_GLOBAL=1: word 0
 *                    of M global lines instead (the control)
 *   mix              local words and global lines in one launch: M words
 *                    stored, G lines loaded, the words reloaded (and G lines
 *                    loaded, M words stored, the lines reloaded), M = 256 ..
 *                    1,024, G = 0 .. 4,096
 *   persist T N      word t stored in one launch, loaded cold in the next, t = T .. T+N-1
 *   pair T YMAX      (GMS_HOW=4) cold word T, timed after one other word Y
 *                    (Y = 0 .. YMAX): "pair: cold word T hits after word Y..."
 *                    (GMS_VERBOSE=1: every Y with its SM and cycles)
 *   curve            word 1 reloaded after K other words (lines), K = 0 .. 8,000
 *   alloc            word 1 alone, four launches
 *   self POOL SPAN T...  eviction sets as kernels/l1sets.cu finds them, among
 *                    warp 0's words: the words SPAN+1 .. SPAN+POOL after T,
 *                    reduced to a minimal set E, then every word Y < SPAN
 *                    tested with E less one word
 *   warps SPAN T B,...   T's E from warp 0, then each warp B's words Y < SPAN
 *
 * A test of the last five: lane 0 of warp A stores (or loads) local word T,
 * walks a list of words (each load's address waits for the load before),
 * then after barriers (and warp B's part of the list) loads T again, timed
 * (over 150 cycles: a miss; an L1 hit takes 55). GMS_HOW bits below choose
 * the variant; GMS_ROTATE=1 puts each test on the next of warps 1-31. The
 * list is read with ld.global.cg, so that it takes no room in L1.
 *
 * prints "# frame words NW, how H" first. */
#include <algorithm>
#include <string>
#include <vector>
#include "common.cuh"
#include "evictset.h"
#define HIT_CYCLES 150
#define NW 12288 /* words of each thread's frame: 48 KiB */
#define CTA 1024
/* GMS_HOW (bits): 1 the target is first loaded, not stored; 2 the list's
 * words are stored, not loaded (does a local load that misses take a line?) */
#define HOW_TARGET_LOAD 1
#define HOW_FILL_STORE 2
#define HOW_COLD 4         /* controls: the target is not touched before its timed load (a miss) */
#define HOW_FILL_GLOBAL 8  /*           the list names global lines of gbuf, loaded through L1 */
#define HOW_STORE_ONLY 16  /* the target is stored and not read back before the list */
#define HOW_SPIN 32        /* 3,000 cycles of spinning before the timed load */
static int g_how;
static const char *USAGE = "sweep | mix | persist T N | pair T YMAX | curve | alloc | self POOL SPAN T... | warps SPAN T B,B,...";

__device__ static inline int load_cg(const int *p)
{
    int v;
    asm volatile("ld.global.cg.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}
__device__ static inline int load_ca(const int *p)
{
    int v;
    asm volatile("ld.global.ca.s32 %0, [%1];" : "=r"(v) : "l"(p) : "memory");
    return v;
}

/* zero is a 0 the compiler can not see: each load's address waits for the
 * load before (dep), so the lines enter L1 in the list's order */
__global__ void frameEvict(const int *list, int n, int n_a, int target, int warp_a, int warp_b, int how, int zero,
                           const int *gbuf, long long *out)
{
    int frame[NW];
    __shared__ int sink;
    long long fill_start = 0;
    unsigned w = threadIdx.x / 32u, lane = threadIdx.x % 32u;
    bool a = lane == 0 && w == (unsigned)warp_a, b = lane == 0 && w == (unsigned)warp_b && warp_b != warp_a;
    int dep = 0;
    if (a) {
        fill_start = clock_now();
        if (how & HOW_COLD) {
        } else if (how & HOW_STORE_ONLY) {
            frame[target] = 1 + zero;
        } else if (how & HOW_TARGET_LOAD) {
            dep = frame[target + zero] & zero;
        } else {
            frame[target] = 1 + zero;
            dep = frame[target + zero] - 1;
        }
        for (int i = 0; i < n_a; ++i) {
            if (how & HOW_FILL_GLOBAL)
                dep += load_ca(gbuf + (size_t)load_cg(list + i) * 32 + dep) & zero;
            else if (how & HOW_FILL_STORE)
                frame[load_cg(list + i) + dep] = i;
            else
                dep += frame[load_cg(list + i) + dep] & zero;
        }
    }
    __syncthreads();
    if (b) {
        for (int i = n_a; i < n; ++i) {
            if (how & HOW_FILL_STORE)
                frame[load_cg(list + i) + dep] = i;
            else
                dep += frame[load_cg(list + i) + dep] & zero;
        }
        sink = dep;
    }
    __syncthreads();
    if (a) {
        if (how & HOW_SPIN) {
            long long s0 = clock_now();
            while (clock_now() - s0 < 3000) { }
        }
        int idx = target + dep; /* dep is 0 */
        long long t0 = clock_now();
        int v = frame[idx];
        *(volatile int *)&sink = v; /* the second clock waits for the data */
        long long t1 = clock_now();
        out[0] = t1 - t0 + (v == 12345 ? sink : 0);
        out[1] = t0 - fill_start; /* the whole fill: that the list was walked */
        out[2] = smid();
    }
}

/* one thread stores words 0 .. m-1 of its frame (value tag + w), then
 * reloads them one at a time, timed; out[0] the reloads that hit, out[1]
 * those that read another value than was stored */
__global__ void frameSweep(int m, int warp_a, int tag, int stride, int *gbuf, long long *out)
{
    int frame[NW];
    __shared__ int sink;
    if (threadIdx.x != (unsigned)warp_a * 32u)
        return;
    /* gbuf: word 0 of global lines 0, stride, 2 stride ... instead (stores and
     * loads through L1: st.global.wb, ld.global.ca) */
    for (int w = 0; w < m; ++w) {
        if (gbuf)
            gbuf[(size_t)w * stride * 32] = tag + w;
        else
            frame[w * stride] = tag + w;
    }
    long long hits = 0, wrong = 0;
    int dep = 0;
    for (int w = 0; w < m; ++w) {
        long long t0 = clock_now();
        int v = gbuf ? load_ca(gbuf + (size_t)(w * stride + dep) * 32) : frame[w * stride + dep];
        *(volatile int *)&sink = v;
        long long t1 = clock_now();
        hits += t1 - t0 < HIT_CYCLES;
        wrong += v != tag + w;
        dep = (v - tag - w) & (v >> 31); /* 0 while the values are right */
    }
    out[0] = hits;
    out[1] = wrong;
}

/* one thread: local words and global lines in one launch. first_local: it
 * stores M local words, loads G global lines (word 0 each, through L1),
 * then reloads the M words, timed; else it loads the G lines, stores the M
 * words, then reloads the G lines, timed. out[0]: reloads that hit, out[1]:
 * wrong values (local words only) */
__global__ void frameMix(int m, int g, int first_local, int warp_a, int tag, const int *gbuf, long long *out)
{
    int frame[NW];
    __shared__ int sink;
    if (threadIdx.x != (unsigned)warp_a * 32u)
        return;
    int dep = 0;
    if (first_local)
        for (int w = 0; w < m; ++w) frame[w] = tag + w;
    for (int i = 0; i < g; ++i) dep += load_ca(gbuf + (size_t)(i + dep) * 32) & (tag >> 31);
    if (!first_local)
        for (int w = 0; w < m; ++w) frame[w + dep] = tag + w;
    long long hits = 0, wrong = 0;
    int n = first_local ? m : g;
    for (int i = 0; i < n; ++i) {
        long long t0 = clock_now();
        int v = first_local ? frame[i + dep] : load_ca(gbuf + (size_t)(i + dep) * 32);
        *(volatile int *)&sink = v;
        long long t1 = clock_now();
        hits += t1 - t0 < HIT_CYCLES;
        if (first_local) {
            wrong += v != tag + i;
            dep = (v - tag - i) & (v >> 31);
        } else {
            dep = v & (tag >> 31); /* 0: gbuf is zeroed, tag positive */
        }
    }
    out[0] = hits;
    out[1] = wrong;
}

static int *g_list, *g_gbuf;
static long long *g_out;
static long g_tests;
static long long g_fill_cycles; /* the last test's cycles from the target's first access to its reload */
static long long g_sm;          /* and its SM */
static int g_rotate, g_next_warp;

/* do the words after T (the first n_a of warp_a's frame, the rest of warp_b's) evict T? */
static long long cycles_of(int target, const std::vector<int> &words, int n_a, int warp_b)
{
    if (!words.empty())
        CHECK(cudaMemcpy(g_list, words.data(), words.size() * sizeof(int), cudaMemcpyHostToDevice));
    /* GMS_ROTATE: each test on the next of warps 1..31 (warp_a), so that no
     * frame is used again within 31 launches (L1 may keep local lines across
     * launches, §3g) */
    int warp_a = 0;
    if (g_rotate) {
        g_next_warp = g_next_warp % 31 + 1;
        warp_a = g_next_warp;
        if (warp_b == 0) warp_b = warp_a;
    }
    frameEvict<<<1, CTA>>>(g_list, (int)words.size(), n_a, target, warp_a, warp_b, g_how, 0, g_gbuf, g_out);
    CHECK_LAUNCH();
    long long cycles;
    CHECK(cudaMemcpy(&cycles, g_out, sizeof cycles, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&g_fill_cycles, g_out + 1, sizeof g_fill_cycles, cudaMemcpyDeviceToHost));
    CHECK(cudaMemcpy(&g_sm, g_out + 2, sizeof g_sm, cudaMemcpyDeviceToHost));
    ++g_tests;
    return cycles;
}
static bool evicts(int target, const std::vector<int> &words, int n_a, int warp_b)
{
    return cycles_of(target, words, n_a, warp_b) >= HIT_CYCLES;
}
static bool evicts_self(int target, const std::vector<int> &words)
{
    return evicts(target, words, (int)words.size(), 0);
}


/* T's minimal eviction set among the POOL words after SPAN, printed; empty
 * when the pool does not evict T */
static std::vector<int> eviction_set(int t, int pool, int span)
{
    std::vector<int> all;
    for (int i = 1; i <= pool; ++i) all.push_back(span + i);
    if (!evicts_self(t, all)) {
        printf("target %d: %d words after it do not evict it\n", t, pool);
        return {};
    }
    std::vector<int> e = reduce_eviction_set(all, [t](const std::vector<int> &rest) { return evicts_self(t, rest); });
    printf("target %d ways %zu:", t, e.size());
    for (int x : e) printf(" %d", x);
    printf("\n");
    fflush(stdout);
    return e;
}

/* the words Y < span of warp B that evict T after E less its first word */
static void scan(int t, const std::vector<int> &e, int span, int warp_b, const char *label)
{
    std::vector<int> probe(e.begin() + 1, e.end());
    int n_a = (int)probe.size();
    probe.push_back(0);
    printf("%s set:", label);
    int found = 0;
    for (int y = 0; y < span; ++y) {
        if (warp_b == 0 && y == t) continue;
        probe.back() = y;
        if (evicts(t, probe, warp_b == 0 ? (int)probe.size() : n_a, warp_b)) {
            printf(" %d", y);
            ++found;
        }
    }
    printf("\n");
    fflush(stdout);
    fprintf(stderr, "l1frames: %s: %d words of %d (%ld tests so far)\n", label, found, span, g_tests);
}

int main(int argc, char **argv)
{
    g_prog = "l1frames";
    /* the modes and how many arguments each takes at least */
    static const struct {
        const char *name;
        int args;
    } modes[] = {{"sweep", 0}, {"mix", 0}, {"persist", 2}, {"pair", 2}, {"curve", 0},
                 {"alloc", 0}, {"self", 3}, {"warps", 3}};
    int mode = -1;
    for (int i = 0; argc >= 2 && i < (int)(sizeof modes / sizeof modes[0]); ++i)
        if (strcmp(argv[1], modes[i].name) == 0) mode = i;
    if (argc < 2) usage_fail(USAGE, "expected a mode and its arguments");
    if (mode < 0) usage_fail(USAGE, "unknown mode '%s'", argv[1]);
    if (argc < 2 + modes[mode].args) usage_fail(USAGE, "expected a mode and its arguments");
    bool self = strcmp(argv[1], "self") == 0;
    g_rotate = getenv("GMS_ROTATE") != NULL;
    const char *how_env = getenv("GMS_HOW");
    g_how = how_env ? (int)parse_long(how_env, "GMS_HOW", 0, 63, USAGE) : 0;
    setup_device();
    g_list = dev_alloc<int>(NW);
    g_gbuf = dev_alloc<int>((size_t)NW * 32);
    CHECK(cudaMemset(g_gbuf, 0, (size_t)NW * 32 * sizeof(int)));
    g_out = dev_alloc<long long>(3);
    printf("# frame words %d, how %d\n", NW, g_how);
    if (strcmp(argv[1], "mix") == 0) { /* local words and global lines in one launch */
        const int ms[] = {256, 512, 1024};
        const int gs[] = {0, 512, 1024, 1536, 2048, 4096};
        int tag = 1000000;
        for (int first_local = 1; first_local >= 0; --first_local)
            for (int m : ms)
                for (int g : gs) {
                    g_next_warp = g_next_warp % 31 + 1;
                    frameMix<<<1, CTA>>>(m, g, first_local, g_next_warp, tag, g_gbuf, g_out);
                    CHECK_LAUNCH();
                    long long r[2];
                    CHECK(cudaMemcpy(r, g_out, sizeof r, cudaMemcpyDeviceToHost));
                    if (first_local)
                        printf("mix: %d local words, then %d global lines: %lld of the words hit (%lld wrong)\n", m, g,
                               r[0], r[1]);
                    else
                        printf("mix: %d global lines, then %d local words: %lld of the lines hit\n", g, m, r[0]);
                    tag += 1000000;
                }
        return 0;
    }
    if (strcmp(argv[1], "sweep") == 0) { /* how many of M stored words hit when reloaded */
        /* GMS_STRIDE=K: words (lines) 0, K, 2K, ...; GMS_GLOBAL: global lines instead */
        const char *st_env = getenv("GMS_STRIDE");
        int stride = st_env ? (int)parse_long(st_env, "GMS_STRIDE", 1, 64, USAGE) : 1;
        int *gb = getenv("GMS_GLOBAL") ? g_gbuf : NULL;
        const int ms[] = {256, 512, 1024, 1152, 1280, 1408, 1536, 1600, 1664, 1792, 2048, 3072, 4096, 8192};
        int tag = 1000000;
        for (int m : ms) {
            if ((long)m * stride > NW) break;
            g_next_warp = g_next_warp % 31 + 1;
            frameSweep<<<1, CTA>>>(m, g_next_warp, tag, stride, gb, g_out);
            CHECK_LAUNCH();
            long long r[2];
            CHECK(cudaMemcpy(r, g_out, sizeof r, cudaMemcpyDeviceToHost));
            printf("sweep: %d %s stored (stride %d, warp %d), %lld reloads hit, %lld wrong values\n", m,
                   gb ? "global lines" : "words", stride, g_next_warp, r[0], r[1]);
            tag += 1000000;
        }
        return 0;
    }
    if (strcmp(argv[1], "persist") == 0) { /* a word stored in one launch, loaded cold in the next */
        int t0 = (int)parse_long(argv[2], "T", 0, NW - 64, USAGE);
        int n = (int)parse_long(argv[3], "N", 1, 64, USAGE);
        std::vector<int> none;
        for (int t = t0; t < t0 + n; ++t) {
            g_how = HOW_STORE_ONLY;
            long long c1 = cycles_of(t, none, 0, 0), sm1 = g_sm;
            g_how = HOW_COLD;
            long long c2 = cycles_of(t, none, 0, 0), sm2 = g_sm;
            printf("persist: word %d stored on SM %lld (reload %lld), cold load on SM %lld: %lld cycles\n", t, sm1, c1,
                   sm2, c2);
        }
        return 0;
    }
    if (strcmp(argv[1], "pair") == 0) { /* which single words Y bring cold word T into L1 */
        int t = (int)parse_long(argv[2], "T", 0, NW - 1, USAGE);
        int ymax = (int)parse_long(argv[3], "YMAX", 0, NW - 1, USAGE);
        printf("pair: cold word %d hits after word", t);
        for (int y = 0; y <= ymax; ++y) {
            if (y == t) continue;
            std::vector<int> words(1, y);
            long long c = cycles_of(t, words, 1, 0);
            if (getenv("GMS_VERBOSE"))
                printf(" %d(sm %lld: %lld)", y, g_sm, c);
            else if (c < HIT_CYCLES)
                printf(" %d", y);
        }
        printf("\n");
        return 0;
    }
    if (strcmp(argv[1], "curve") == 0) { /* the target's reload after K words (lines) after it */
        const int ks[] = {0, 4, 8, 16, 64, 256, 1024, 1536, 2048, 4096, 8000};
        for (int k : ks) {
            std::vector<int> words;
            for (int i = 0; i < k; ++i) words.push_back(g_how & HOW_FILL_GLOBAL ? i : 2 + i);
            long long c = cycles_of(1, words, k, 0);
            printf("curve: after %d: %lld cycles (fill %lld)\n", k, c, g_fill_cycles);
        }
        return 0;
    }
    if (strcmp(argv[1], "alloc") == 0) { /* the target alone, reloaded at once: a hit? */
        for (int i = 0; i < 4; ++i) {
            std::vector<int> none;
            long long c = cycles_of(1, none, 0, 0);
            printf("alloc: target reloaded in %lld cycles\n", c);
        }
        return 0;
    }
    if (self) {
        int pool = (int)parse_long(argv[2], "POOL", 16, NW, USAGE);
        int span = (int)parse_long(argv[3], "SPAN", 1, NW, USAGE);
        if (span + pool >= NW) usage_fail(USAGE, "SPAN + POOL must be below %d", NW);
        for (int i = 4; i < argc; ++i) {
            int t = (int)parse_long(argv[i], "T", 0, span - 1, USAGE);
            std::vector<int> e = eviction_set(t, pool, span);
            if (e.empty()) continue;
            char label[32];
            snprintf(label, sizeof label, "target %d", t);
            scan(t, e, span, 0, label);
        }
        return 0;
    }
    if (argc != 5) usage_fail(USAGE, "warps takes SPAN, T and a list of warps");
    int span = (int)parse_long(argv[2], "SPAN", 1, NW / 2, USAGE);
    int t = (int)parse_long(argv[3], "T", 0, span - 1, USAGE);
    std::vector<int> warps;
    std::string s(argv[4]);
    for (size_t p = 0; p <= s.size();) {
        size_t q = s.find(',', p);
        if (q == std::string::npos) q = s.size();
        warps.push_back((int)parse_long(s.substr(p, q - p).c_str(), "B", 0, CTA / 32 - 1, USAGE));
        p = q + 1;
    }
    std::vector<int> e = eviction_set(t, NW - span - 1, span);
    if (e.empty()) return 1;
    for (int b : warps) {
        char label[32];
        snprintf(label, sizeof label, "warp %d", b);
        scan(t, e, span, b, label);
    }
    return 0;
}
