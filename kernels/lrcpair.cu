/* lrcpair.cu - which SMs share an L2 request coalescer (LRC), and for how long
 * two reads of the same sector can be apart and still merge (docs/findings.md
 * §2b). Two modes:
 *
 *   lrcpair map REPS
 *     The GPC of every SM, from thread-block clusters: the CTAs of one cluster
 *     always run in one GPC. Clusters of 2, 4, 8 and 16 CTAs (one CTA per SM,
 *     forced by shared memory) are launched REPS times each; every launch
 *     prints "cluster SIZE: SM SM ..." lines on stderr, which
 *     kernels/probes/lrc-pairs.py joins into GPCs.
 *
 *   lrcpair sweep ANCHOR DELAY KIB [J...]
 *     One launch per partner SM J (default: every SM but ANCHOR). Each launch
 *     runs one CTA per SM (132 CTAs, shared memory forces one per SM); only the
 *     CTAs that find themselves on SM ANCHOR and SM J work: they meet (an
 *     atomic counter, so that the meeting adds no read), the one on J waits
 *     DELAY more cycles, then both read the same KIB KiB buffer, coalesced
 *     16-byte loads by 256 threads. ncu's lrc counters then say how many read
 *     sectors the two SMs' requests merged. Every launch prints
 *     "launch K: ANCHOR J DELAY SKEW_NS" on stderr (SKEW_NS: when J started
 *     reading minus when ANCHOR did, by %globaltimer).
 *
 *   lrcpair group KIB SPR STAGGER SM...
 *     Requests of SPR sectors (1, 2 or 4), and how many SMs at once. For
 *     k = 2 .. the number of SMs listed, one launch where the first k listed
 *     SMs meet and then read the same KIB KiB buffer, one float per sector,
 *     so that every warp load sends 32 / SPR requests of SPR sectors each
 *     (lanes on consecutive lines; each sector of the buffer read once per
 *     SM). List SMs of one GPC (docs/findings.md §2b) to see whether the
 *     LRC merges one-sector requests as it merges whole lines, and whether
 *     one request's data serves any number of SMs. The i-th listed SM
 *     starts reading i x STAGGER SM cycles after the first. Prints
 *     "group K: SPR N STAGGER SKEW_NS" (N SMs; SKEW_NS: the latest start
 *     minus the earliest).
 *
 *   lrcpair passes P KIB SPR STAGGER SM...
 *     As group with all the listed SMs at once (one launch), but the SMs read
 *     the buffer P times, meeting again before each pass, the i-th listed SM
 *     starting each pass i x STAGGER SM cycles after the meeting: pass 1
 *     misses in L2 (ncu empties it before the kernel), passes 2.. hit. Whether
 *     the LRC merges identical requests whose data L2 holds (a short time in
 *     flight) as it merges those that wait for DRAM, and how far apart they
 *     may be. Prints "passes P: SPR N STAGGER SKEW_NS skews p2:NS ...", each
 *     pass's start on the other SMs against the first listed (%globaltimer).
 *
 *   lrcpair gather KIB SAME LOAD_KIB SM...
 *     The listed SMs meet and gather the KIB KiB buffer once, as spmv gathers
 *     x: the e-th read (e = 0 .. sectors - 1, by thread as in group) is of
 *     sector hash_mix32(e + seed) mod sectors, through L1. SAME 1: every SM the
 *     same sequence (seed 0); 0: each its own (seed rank x 0x9e3779b9), so
 *     that identical requests of two SMs meet only by chance, as spmv's do.
 *     LOAD_KIB > 0: every other SM streams LOAD_KIB KiB of its own from DRAM
 *     meanwhile (float4 loads), as spmv's other reads load the GPU.
 *
 *   lrcpair band KIB BAND SHIFT WARPS SM...
 *     As gather with each SM its own sequence, but in a band of BAND sectors
 *     starting SHIFT x rank sectors in (mod the buffer), with CTAs of WARPS
 *     warps: neighbouring SMs' bands overlap as spmv's rows' windows of x do,
 *     and L1 soon holds an SM's band.
 *     bench/lrcgroup-trace.py writes the same reads as a trace. Prints
 *     "passes 1: ..." as passes does.
 *
 *   lrcpair key KIB WARP_A WARP_B ALTPC REV SM_A SM_B
 *     What an identical request must share to merge (findings §2e). The CTAs
 *     on SM_A and SM_B meet; then only warp WARP_A of the one and warp WARP_B
 *     of the other read the KIB KiB buffer, one whole line per instruction
 *     (lane l the l-th float of the line). ALTPC 1: SM_B's warp reads through
 *     another copy of the loop (other PCs); REV 1: its lanes in reverse
 *     order (lane l the (31 - l)-th float). Identical lines and sector masks
 *     either way; no prologue read.
 *
 *   lrcpair cap M FILLER_SM DELAY_A DELAY_B SM_A SM_B
 *     Whether the LRC tracks only so many requests in flight (findings §2e).
 *     After the CTAs meet, warp 0 of FILLER_SM sends M one-sector requests to
 *     M lines no one else reads (M a multiple of 32, at most 1,024; 0: none),
 *     all at once; warp 0 of SM_A, DELAY_A cycles after the meeting (after
 *     its own fillers when FILLER_SM is SM_A), and warp 0 of SM_B, DELAY_B
 *     cycles after it, read the same 8 whole lines (32 sectors the LRC could
 *     merge). No prologue read.
 *
 *   lrcpair evict SPR M DELAY_F DELAY_A DELAY_B SM_A SM_B FILLER_SM...
 *     Whether the LRC keeps only so many requests in flight (findings §2f).
 *     After the CTAs meet, warp 0 of every FILLER_SM sends, DELAY_F cycles
 *     later, M one-sector requests to lines no one else reads (M a multiple
 *     of 32, at most 1,024; all waiting for DRAM, ncu has emptied L2); warp
 *     0 of SM_A reads the first SPR sectors of 8 lines (one request a line;
 *     SPR 4: whole lines, 32 sectors) DELAY_A cycles after the meeting, and
 *     warp 0 of SM_B the same sectors DELAY_B cycles after it.
 *     Fillers between the two reads: are older requests pushed out? Fillers
 *     before both: is a request the LRC has no room for left untracked?
 *     No prologue read.
 *
 *   lrcpair xgpc SPR C_OFF DELAY_C DELAY_B SM_A SM_B [SM_C]
 *     Whether a read of another GPC to the same line, between two reads of
 *     one GPC, stops them merging (findings §2f). After the CTAs meet, warp
 *     0 of SM_A reads the first SPR sectors of 8 lines (one request of SPR
 *     sectors a line; L2 emptied by ncu), warp 0 of SM_C, DELAY_C cycles
 *     later, sectors C_OFF .. C_OFF + SPR - 1 of the same lines, and warp 0
 *     of SM_B, DELAY_B cycles after the meeting, SM_A's sectors again. No
 *     SM_C: none reads between. No prologue read.
 *
 *   lrcpair bytes FA FB DELAY_B SM_A SM_B
 *     Whether reads of different bytes of one sector merge (findings §2f).
 *     After the CTAs meet, lanes 0-7 of warp 0 of SM_A read float FA of
 *     lines 0-7 (one instruction: 8 one-sector requests of 4 bytes), and
 *     lanes 0-7 of warp 0 of SM_B float FB of the same lines DELAY_B cycles
 *     later (FA = FB: the same bytes; FA, FB < 8: other bytes of sector 0).
 *     No prologue read.
 *
 *   lrcpair stride S K FA FB DELAY_B SM_A SM_B
 *     As bytes, with whole warps and lines S apart (findings §2f): warp 0
 *     of SM_A issues K loads, the k-th reading float FA of lines
 *     (32 k + lane) x S, one line a lane (32 one-sector requests), and warp
 *     0 of SM_B the same lines' float FB, DELAY_B cycles later. S 1: a
 *     load's lines next to each other; S 16: 2 KiB apart, as a transpose's
 *     column. No prologue read.
 *
 *   lrcpair strideg S K W SM[:OFF]...
 *     stride's loads from W warps of every listed SM at once (findings
 *     §2f): after the CTAs meet, warp w issues K loads, the k-th reading
 *     float 0 of lines ((w K + k) 32 + lane) x S; every SM the same lines,
 *     shifted by OFF floats (default 0; below 1,024: 8 another sector of
 *     the same lines, 32 the next lines), so that SMs of several GPCs can
 *     read a transpose's pattern (other sectors of one line, §2f's
 *     bisection). No prologue read.
 *
 *   lrcpair stridegs SPR WARM S K W SM[:OFF]...
 *     strideg with requests of SPR sectors (1, 2 or 4): load k of warp w
 *     reads float OFF + 8 (lane % SPR) of lines ((w K + k) 32 / SPR +
 *     lane / SPR) x S, so that SPR 2 with OFF 0 and 16 reads a line's two
 *     halves, as matrixMul_naive's and wmma_gemm's requests do (§2f).
 *     WARM 1: the kernel runs twice, the first to fill L2 (profile the
 *     second, `ncu --cache-control none --launch-skip 1`): whether reads that
 *     hit L2 stop each other's merges as misses do. SPR 1, WARM 0: strideg.
 *
 *   lrcpair pkt OFF_A OFF_B SM_A SM_B
 *     Whether a request merges by its own line alone or with the other lines
 *     of its instruction (findings §2e). Warp 0 of SM_A and of SM_B read, 64
 *     times in lock step, two whole lines with one instruction (float2 per
 *     lane, lanes 0-15 the first line, 16-31 the second): line 64 x i and
 *     line 64 x i + OFF_A (SM_A) or + OFF_B (SM_B). The first lines are the
 *     same: a rule by line merges their 256 sectors whatever OFF_B is.
 *
 * Nothing goes to stdout (ncu --csv writes there). Exit codes as common.cuh. */
#include "common.cuh"

#include <string.h>

#include <vector>

#define THREADS 256
#define MAX_SMS 1024
#define MAX_PASSES 8 /* passes whose start times are kept */

static const char *USAGE =
    "map REPS | sweep ANCHOR DELAY KIB [J...] | group KIB SPR STAGGER SM... | passes P KIB SPR STAGGER SM... | gather KIB SAME LOAD_KIB SM... | band KIB BAND SHIFT WARPS SM... | key KIB WARP_A WARP_B ALTPC REV SM_A SM_B | cap M FILLER_SM DELAY_A DELAY_B SM_A SM_B | evict SPR M DELAY_F DELAY_A DELAY_B SM_A SM_B FILLER_SM... | xgpc SPR C_OFF DELAY_C DELAY_B SM_A SM_B [SM_C] | bytes FA FB DELAY_B SM_A SM_B | stride S K FA FB DELAY_B SM_A SM_B | strideg S K W SM[:OFF]... | stridegs SPR WARM S K W SM[:OFF]... | pkt OFF_A OFF_B SM_A SM_B";

/* Record each CTA's SM; stay ~20 us so that the cluster's CTAs coexist. */
__global__ void mapKernel(unsigned *sms)
{
    extern __shared__ float pad[];
    if (threadIdx.x == 0) {
        sms[blockIdx.x] = smid();
        pad[0] = 0.0f;
        unsigned long long t = globaltimer();
        while (globaltimer() - t < 20000) {
        }
    }
}

__global__ void pairRead(const float4 *buf, int n4, unsigned sm_a, unsigned sm_b, long long delay,
                         unsigned *arrive, float *out, unsigned long long *start, int *timed_out)
{
    extern __shared__ float pad[];
    unsigned sm = smid();
    bool is_a = sm == sm_a, is_b = sm == sm_b;
    if (!is_a && !is_b) return;
    if (threadIdx.x == 0) {
        pad[0] = 0.0f;
        atomicAdd(arrive, 1u);
        unsigned long long t = globaltimer();
        while (atomicAdd(arrive, 0u) < 2u) {
            if (globaltimer() - t > 200000000ull) { /* 0.2 s: the partner never came */
                atomicExch(timed_out, 1);
                break;
            }
        }
        if (is_b) {
            long long s = clock64();
            while (clock64() - s < delay) {
            }
        }
        start[is_a ? 0 : 1] = globaltimer();
    }
    __syncthreads();
    float acc = 0.0f;
    for (int i = threadIdx.x; i < n4; i += blockDim.x) {
        float4 v = buf[i];
        acc += v.x + v.y + v.z + v.w;
    }
    out[sm * THREADS + threadIdx.x] = acc;
}

/* The CTAs on the SMs marked in members (a bit per SM) meet, then read the
 * buffer one float per sector: sector index e (of nsec) by request: request
 * u = e / spr covers sectors (u / nlines) * spr .. + spr - 1 of line u % nlines,
 * so a warp's 32 lanes read 32 / spr consecutive lines, spr sectors each. */
__global__ void groupRead(const float *buf, int nsec, int spr, int gather, int band, int shift, const unsigned *members,
                          unsigned n,
                          const unsigned *rank, long long stagger, int passes, const float4 *load, int load4,
                          unsigned *arrive, float *out, unsigned long long *start, int *timed_out)
{
    extern __shared__ float pad[];
    unsigned sm = smid();
    if (!(members[sm / 32] >> (sm % 32) & 1u)) {
        if (load4 > 0) { /* the other SMs load DRAM meanwhile: each streams its own part of load */
            const float4 *mine = load + (size_t)sm * load4;
            float a = 0.0f;
            for (int i = threadIdx.x; i < load4; i += blockDim.x)
                a += mine[i].x + mine[i].y + mine[i].z + mine[i].w;
            out[sm * THREADS + threadIdx.x] = a;
        }
        return;
    }
    if (threadIdx.x == 0) {
        pad[0] = 0.0f;
        atomicAdd(arrive, 1u);
        unsigned long long t = globaltimer();
        while (atomicAdd(arrive, 0u) < n) {
            if (globaltimer() - t > 200000000ull) {
                atomicExch(timed_out, 1);
                break;
            }
        }
        long long s = clock64(), wait = stagger * rank[sm];
        while (clock64() - s < wait) {
        }
        start[sm] = globaltimer();
    }
    __syncthreads();
    int nlines = nsec / 4;
    float acc = 0.0f;
    for (int p = 0; p < passes; ++p) {
        if (p > 0) { /* every SM done with the pass before (its loads consumed): meet again */
            __syncthreads();
            if (threadIdx.x == 0) {
                atomicAdd(arrive, 1u);
                unsigned long long t = globaltimer();
                while (atomicAdd(arrive, 0u) < n * (unsigned)(p + 1)) {
                    if (globaltimer() - t > 200000000ull) {
                        atomicExch(timed_out, 1);
                        break;
                    }
                }
                long long s = clock64(), wait = stagger * rank[sm];
                while (clock64() - s < wait) {
                }
                if (p < MAX_PASSES)
                    start[(size_t)p * MAX_SMS + sm] = globaltimer();
            }
            __syncthreads();
        }
        if (gather == 3) { /* band mode: the e-th read is of a pseudo-random sector of the SM's band */
            unsigned seed = rank[sm] * 0x9e3779b9u, first = rank[sm] * (unsigned)shift;
            for (int e = threadIdx.x; e < nsec; e += blockDim.x)
                acc += buf[((first + hash_mix32((unsigned)e + seed) % (unsigned)band) % (unsigned)nsec) * 8u];
        } else if (gather) { /* gather mode: the e-th read is of a pseudo-random sector */
            unsigned seed = gather == 2 ? rank[sm] * 0x9e3779b9u : 0u;
            for (int e = threadIdx.x; e < nsec; e += blockDim.x)
                acc += buf[(hash_mix32((unsigned)e + seed) % (unsigned)nsec) * 8u];
        } else {
            for (int e = threadIdx.x; e < nsec; e += blockDim.x) {
                int u = e / spr, sub = e % spr;
                int line = u % nlines, sector = (u / nlines) * spr + sub;
                acc += buf[line * 32 + sector * 8];
            }
        }
    }
    out[sm * THREADS + threadIdx.x] = acc;
}

/* The key, cap and pkt modes' CTAs meet: thread 0 of each arrives at the
 * counter and spins until n have (0.2 s at most, then *timed_out); the CTA
 * waits for it. The meeting itself reads nothing the LRC could merge. */
__device__ static void meet(unsigned *arrive, unsigned n, int *timed_out)
{
    extern __shared__ float pad[];
    if (threadIdx.x == 0) {
        pad[0] = 0.0f; /* the dynamic shared memory that keeps a CTA alone on its SM */
        atomicAdd(arrive, 1u);
        unsigned long long t = globaltimer();
        while (atomicAdd(arrive, 0u) < n) {
            if (globaltimer() - t > 200000000ull) {
                atomicExch(timed_out, 1);
                break;
            }
        }
    }
    __syncthreads();
}

/* key mode: the selected warp of each of the two SMs reads the buffer, one
 * whole line per instruction; SM_B's through other PCs (alt_pc) and/or with
 * its lanes reversed (rev). */
__global__ void keyRead(const float *buf, int nlines, unsigned sm_a, unsigned sm_b, int warp_a, int warp_b,
                        int alt_pc, int rev, unsigned *arrive, float *out, int *timed_out)
{
    unsigned sm = smid();
    bool is_a = sm == sm_a, is_b = sm == sm_b;
    if (!is_a && !is_b) return;
    meet(arrive, 2u, timed_out);
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    float acc = 0.0f;
    if (is_a && warp == warp_a) {
#pragma unroll 1
        for (int i = 0; i < nlines; ++i) acc += buf[i * 32 + lane];
    } else if (is_b && warp == warp_b) {
        int l = rev ? 31 - lane : lane;
        if (alt_pc) { /* the same one load per iteration, at other PCs */
#pragma unroll 1
            for (int i = 0; i < nlines; ++i) acc += buf[i * 32 + l] * 1.5f;
        } else {
#pragma unroll 1
            for (int i = 0; i < nlines; ++i) acc += buf[i * 32 + l];
        }
    }
    out[sm * THREADS + threadIdx.x] = acc;
}

#define CAP_MAX_INSTR 32 /* filler instructions of 32 lines each */
#define CAP_TEST_LINES 8

/* cap mode: the filler's M requests in flight, then the two SMs' identical
 * test lines; every load is issued before any is used */
__global__ void capRead(const float *fill, const float *test, int m_instr, unsigned filler, unsigned sm_a,
                        unsigned sm_b, long long delay_a, long long delay_b, unsigned members, unsigned *arrive,
                        float *out, int *timed_out)
{
    unsigned sm = smid();
    bool is_f = sm == filler, is_a = sm == sm_a, is_b = sm == sm_b;
    if (!is_f && !is_a && !is_b) return;
    meet(arrive, members, timed_out);
    if (threadIdx.x >= 32) return;
    int lane = threadIdx.x;
    float v[CAP_MAX_INSTR], w[CAP_TEST_LINES], acc = 0.0f;
    long long s0 = clock64();
    if (is_f) {
        const float *mine = fill + (size_t)sm * CAP_MAX_INSTR * 32 * 32;
#pragma unroll
        for (int k = 0; k < CAP_MAX_INSTR; ++k)
            v[k] = k < m_instr ? mine[(size_t)(k * 32 + lane) * 32] : 0.0f;
    }
    if (is_a || is_b) {
        long long wait = is_a ? delay_a : delay_b;
        while (clock64() - s0 < wait) {
        }
#pragma unroll
        for (int i = 0; i < CAP_TEST_LINES; ++i)
            w[i] = test[i * 32 + lane];
#pragma unroll
        for (int i = 0; i < CAP_TEST_LINES; ++i)
            acc += w[i];
    }
    if (is_f) {
#pragma unroll
        for (int k = 0; k < CAP_MAX_INSTR; ++k)
            acc += v[k];
    }
    out[sm * THREADS + threadIdx.x] = acc;
}

/* A set of SMs passed by value, so that reading it costs no load the LRC
 * could merge. */
#define SM_SET_MAX 256
typedef struct sm_set {
    unsigned bits[SM_SET_MAX / 32];
} sm_set;

/* evict mode: SM_A's test lines, then the fillers' requests from every
 * filler SM, then SM_B's test lines; every load issued before any is used */
__global__ void evictRead(const float *fill, const float *test, int spr, int m_instr, sm_set fillers, unsigned sm_a,
                          unsigned sm_b, long long delay_f, long long delay_a, long long delay_b, unsigned members,
                          unsigned *arrive, float *out, int *timed_out)
{
    unsigned sm = smid();
    bool is_f = sm < SM_SET_MAX && (fillers.bits[sm / 32] >> (sm % 32) & 1u), is_a = sm == sm_a, is_b = sm == sm_b;
    if (!is_f && !is_a && !is_b) return;
    meet(arrive, members, timed_out);
    if (threadIdx.x >= 32) return;
    int lane = threadIdx.x;
    float v[CAP_MAX_INSTR], w[CAP_TEST_LINES], acc = 0.0f;
    long long s0 = clock64();
    if (is_f) {
        while (clock64() - s0 < delay_f) {
        }
        const float *mine = fill + (size_t)sm * CAP_MAX_INSTR * 32 * 32;
#pragma unroll
        for (int k = 0; k < CAP_MAX_INSTR; ++k)
            v[k] = k < m_instr ? mine[(size_t)(k * 32 + lane) * 32] : 0.0f;
#pragma unroll
        for (int k = 0; k < CAP_MAX_INSTR; ++k)
            acc += v[k];
    } else {
        while (clock64() - s0 < (is_a ? delay_a : delay_b)) {
        }
        if (lane >= 8 * spr) /* lanes 8 s .. 8 s + 7 read sector s */
            return;
#pragma unroll
        for (int i = 0; i < CAP_TEST_LINES; ++i)
            w[i] = test[i * 32 + lane];
#pragma unroll
        for (int i = 0; i < CAP_TEST_LINES; ++i)
            acc += w[i];
    }
    out[sm * THREADS + threadIdx.x] = acc;
}

/* xgpc mode: SM_A's requests of SPR sectors to 8 lines, SM_C's of its own
 * sectors to the same lines, SM_B's as SM_A's; every load issued before any
 * is used */
__global__ void xgpcRead(const float *test, int spr, int c_off, unsigned sm_a, unsigned sm_b, unsigned sm_c,
                         long long delay_c, long long delay_b, unsigned members, unsigned *arrive, float *out,
                         int *timed_out)
{
    unsigned sm = smid();
    bool is_a = sm == sm_a, is_b = sm == sm_b, is_c = sm == sm_c;
    if (!is_a && !is_b && !is_c) return;
    meet(arrive, members, timed_out);
    int lane = threadIdx.x;
    if (lane >= 8 * spr) return; /* the request's sectors: lanes 8 s .. 8 s + 7 read sector s */
    float w[CAP_TEST_LINES], acc = 0.0f;
    long long s0 = clock64();
    long long wait = is_a ? 0 : is_b ? delay_b : delay_c;
    int off = is_c ? c_off * 8 : 0;
    while (clock64() - s0 < wait) {
    }
#pragma unroll
    for (int i = 0; i < CAP_TEST_LINES; ++i)
        w[i] = test[i * 32 + off + lane];
#pragma unroll
    for (int i = 0; i < CAP_TEST_LINES; ++i)
        acc += w[i];
    out[sm * THREADS + threadIdx.x] = acc;
}

/* bytes mode: SM_A's lanes 0-7 read float fa of lines 0-7 at once, SM_B's
 * float fb of them delay_b cycles later */
__global__ void bytesRead(const float *test, int fa, int fb, unsigned sm_a, unsigned sm_b, long long delay_b,
                          unsigned *arrive, float *out, int *timed_out)
{
    unsigned sm = smid();
    bool is_a = sm == sm_a, is_b = sm == sm_b;
    if (!is_a && !is_b) return;
    meet(arrive, 2u, timed_out);
    int lane = threadIdx.x;
    if (lane >= CAP_TEST_LINES) return;
    long long s0 = clock64();
    while (clock64() - s0 < (is_a ? 0 : delay_b)) {
    }
    out[sm * THREADS + lane] = test[lane * 32 + (is_a ? fa : fb)];
}

#define STRIDE_MAX_K 16
#define STRIDEG_MAX_OFF 1024 /* strideg's OFF: below 32 lines */

/* stride mode: K loads of 32 lines S apart a warp, all issued before any
 * is used */
__global__ void strideRead(const float *buf, int s, int k_loads, int fa, int fb, unsigned sm_a, unsigned sm_b,
                           long long delay_b, unsigned *arrive, float *out, int *timed_out)
{
    unsigned sm = smid();
    bool is_a = sm == sm_a, is_b = sm == sm_b;
    if (!is_a && !is_b) return;
    meet(arrive, 2u, timed_out);
    if (threadIdx.x >= 32) return;
    int lane = threadIdx.x, f = is_a ? fa : fb;
    long long s0 = clock64();
    while (clock64() - s0 < (is_a ? 0 : delay_b)) {
    }
    float v[STRIDE_MAX_K], acc = 0.0f;
#pragma unroll
    for (int k = 0; k < STRIDE_MAX_K; ++k)
        v[k] = k < k_loads ? buf[((size_t)(32 * k + lane) * s) * 32 + f] : 0.0f;
#pragma unroll
    for (int k = 0; k < STRIDE_MAX_K; ++k)
        acc += v[k];
    out[sm * THREADS + lane] = acc;
}

/* strideg mode: W warps of each listed SM, K loads each of 32 / spr lines S
 * apart, spr sectors of each, the same lines on every SM; all issued before
 * any is used */
__global__ void strideGroupRead(const float *buf, int s, int k_loads, int warps, int spr, sm_set members_set,
                                unsigned members, const int *offsets, unsigned *arrive, float *out, int *timed_out)
{
    unsigned sm = smid();
    if (sm >= SM_SET_MAX || !(members_set.bits[sm / 32] >> (sm % 32) & 1u)) return;
    meet(arrive, members, timed_out);
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    if (warp >= warps) return;
    float v[STRIDE_MAX_K], acc = 0.0f;
#pragma unroll
    for (int k = 0; k < STRIDE_MAX_K; ++k)
        v[k] = k < k_loads ? buf[((size_t)((warp * k_loads + k) * (32 / spr) + lane / spr) * s) * 32 +
                                 8 * (lane % spr) + offsets[sm]]
                           : 0.0f;
#pragma unroll
    for (int k = 0; k < STRIDE_MAX_K; ++k)
        acc += v[k];
    out[sm * THREADS + threadIdx.x] = acc;
}

#define PKT_ITERS 64
#define PKT_STRIDE 64 /* lines between iterations' first lines (8 KiB) */

/* pkt mode: each iteration one instruction of two lines, one load in flight
 * at a time (its value used before the next), so that the two SMs go in step */
__global__ void pktRead(const float2 *buf, int off_a, int off_b, unsigned sm_a, unsigned sm_b, unsigned *arrive,
                        float *out, int *timed_out)
{
    unsigned sm = smid();
    bool is_a = sm == sm_a, is_b = sm == sm_b;
    if (!is_a && !is_b) return;
    meet(arrive, 2u, timed_out);
    if (threadIdx.x >= 32) return;
    int lane = threadIdx.x, off = is_a ? off_a : off_b;
    float acc = 0.0f;
#pragma unroll 1
    for (int i = 0; i < PKT_ITERS; ++i) {
        int line = i * PKT_STRIDE + (lane < 16 ? 0 : off);
        float2 v = buf[(size_t)line * 16 + lane % 16];
        acc += v.x + v.y;
    }
    out[sm * THREADS + threadIdx.x] = acc;
}

static int one_cta_per_sm_smem(void);

/* A meeting mode's launch: the dynamic shared memory that keeps kernel's
 * CTAs one an SM (allowed for it here), and in *sms how many SMs there are,
 * as many CTAs as it launches. */
template <typename K> static int alone_on_each_sm(K kernel, int *sms)
{
    int smem = one_cta_per_sm_smem();
    CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    *sms = p.multiProcessorCount;
    return smem;
}

/* The meeting's counter, the kernels' output and the time-out flag of the
 * key, cap, evict, xgpc, bytes, stride, strideg and pkt modes. */
typedef struct meeting {
    unsigned *arrive;
    float *out;
    int *timed_out;
} meeting;

static meeting meeting_alloc(void)
{
    meeting m;
    m.arrive = dev_alloc<unsigned>(1);
    CHECK(cudaMemset(m.arrive, 0, sizeof(unsigned)));
    m.out = dev_alloc<float>((size_t)MAX_SMS * THREADS);
    m.timed_out = dev_alloc<int>(1);
    CHECK(cudaMemset(m.timed_out, 0, sizeof(int)));
    return m;
}

/* After the launch: frees them; 1 (a mismatch for finish) when the CTAs did
 * not meet, which it says on stderr. */
static size_t meeting_done(meeting *m, const char *mode)
{
    int to = 0;
    CHECK(cudaMemcpy(&to, m->timed_out, sizeof to, cudaMemcpyDeviceToHost));
    if (to)
        fprintf(stderr, "lrcpair: %s: the CTAs did not meet\n", mode);
    CHECK(cudaFree(m->arrive));
    CHECK(cudaFree(m->out));
    CHECK(cudaFree(m->timed_out));
    return to ? 1 : 0;
}

static int run_pkt(int off_a, int off_b, int sm_a, int sm_b)
{
    int sms, smem = alone_on_each_sm(pktRead, &sms);
    size_t lines = (size_t)PKT_ITERS * PKT_STRIDE;
    float2 *buf = dev_alloc<float2>(lines * 16);
    CHECK(cudaMemset(buf, 0, lines * 128));
    meeting mt = meeting_alloc();
    pktRead<<<sms, THREADS, smem>>>(buf, off_a, off_b, (unsigned)sm_a, (unsigned)sm_b, mt.arrive,
                                                      mt.out, mt.timed_out);
    CHECK_LAUNCH();
    size_t bad = meeting_done(&mt, "pkt");
    CHECK(cudaFree(buf));
    char what[96];
    snprintf(what, sizeof what, "pktRead offsets %d/%d, SMs %d/%d", off_a, off_b, sm_a, sm_b);
    return finish(what, bad);
}

/* The cap and evict modes' buffers: CAP_MAX_INSTR x 32 lines of fillers
 * for each SM, and the CAP_TEST_LINES test lines, zeroed. */
static float *cap_fill_alloc(int sms)
{
    size_t floats = (size_t)sms * CAP_MAX_INSTR * 32 * 32;
    float *fill = dev_alloc<float>(floats);
    CHECK(cudaMemset(fill, 0, floats * sizeof(float)));
    return fill;
}

static float *cap_test_alloc(void)
{
    float *test = dev_alloc<float>((size_t)CAP_TEST_LINES * 32);
    CHECK(cudaMemset(test, 0, (size_t)CAP_TEST_LINES * 128));
    return test;
}

static int run_cap(int m, int filler, long long delay_a, long long delay_b, int sm_a, int sm_b)
{
    int sms, smem = alone_on_each_sm(capRead, &sms);
    float *fill = cap_fill_alloc(sms), *test = cap_test_alloc();
    meeting mt = meeting_alloc();
    unsigned members = 1u + (sm_b != sm_a) + (filler != sm_a && filler != sm_b);
    capRead<<<sms, THREADS, smem>>>(fill, test, m / 32, (unsigned)filler, (unsigned)sm_a,
                                                      (unsigned)sm_b, delay_a, delay_b, members, mt.arrive, mt.out,
                                                      mt.timed_out);
    CHECK_LAUNCH();
    size_t bad = meeting_done(&mt, "cap");
    CHECK(cudaFree(fill));
    CHECK(cudaFree(test));
    char what[128];
    snprintf(what, sizeof what, "capRead %d fillers on SM %d, delays %lld/%lld, SMs %d/%d", m, filler, delay_a,
             delay_b, sm_a, sm_b);
    return finish(what, bad);
}

static int run_evict(int spr, int m, long long delay_f, long long delay_a, long long delay_b, int sm_a, int sm_b,
                     const int *fillers, int nf)
{
    int sms, smem = alone_on_each_sm(evictRead, &sms);
    float *fill = cap_fill_alloc(sms), *test = cap_test_alloc();
    sm_set set = {};
    unsigned members = 1u + (sm_b != sm_a);
    for (int i = 0; i < nf; ++i) {
        int f = fillers[i];
        if (f >= sms || f >= SM_SET_MAX)
            usage_fail(USAGE, "filler SM %d: the GPU has %d", f, sms);
        if (f == sm_a || f == sm_b || (set.bits[f / 32] >> (f % 32) & 1u))
            usage_fail(USAGE, "filler SM %d is SM_A, SM_B or listed twice", f);
        set.bits[f / 32] |= 1u << (f % 32);
        members++;
    }
    meeting mt = meeting_alloc();
    evictRead<<<sms, THREADS, smem>>>(fill, test, spr, m / 32, set, (unsigned)sm_a, (unsigned)sm_b,
                                                        delay_f, delay_a, delay_b, members, mt.arrive, mt.out,
                                                        mt.timed_out);
    CHECK_LAUNCH();
    size_t bad = meeting_done(&mt, "evict");
    CHECK(cudaFree(fill));
    CHECK(cudaFree(test));
    char what[128];
    snprintf(what, sizeof what,
             "evictRead %d-sector reads, %d fillers on each of %d SMs, delays %lld/%lld/%lld, SMs %d/%d", spr, m, nf,
             delay_f, delay_a, delay_b, sm_a, sm_b);
    return finish(what, bad);
}

static int run_xgpc(int spr, int c_off, long long delay_c, long long delay_b, int sm_a, int sm_b, int sm_c)
{
    int sms, smem = alone_on_each_sm(xgpcRead, &sms);
    float *test = cap_test_alloc();
    meeting mt = meeting_alloc();
    unsigned members = 2u + (sm_c >= 0);
    xgpcRead<<<sms, THREADS, smem>>>(test, spr, c_off, (unsigned)sm_a, (unsigned)sm_b,
                                                       sm_c >= 0 ? (unsigned)sm_c : ~0u, delay_c, delay_b, members,
                                                       mt.arrive, mt.out, mt.timed_out);
    CHECK_LAUNCH();
    size_t bad = meeting_done(&mt, "xgpc");
    CHECK(cudaFree(test));
    char what[128];
    snprintf(what, sizeof what, "xgpcRead %d sectors (C at +%d), delays %lld/%lld, SMs %d/%d/%d", spr, c_off,
             delay_c, delay_b, sm_a, sm_b, sm_c);
    return finish(what, bad);
}

static int run_bytes(int fa, int fb, long long delay_b, int sm_a, int sm_b)
{
    int sms, smem = alone_on_each_sm(bytesRead, &sms);
    float *test = cap_test_alloc();
    meeting mt = meeting_alloc();
    bytesRead<<<sms, THREADS, smem>>>(test, fa, fb, (unsigned)sm_a, (unsigned)sm_b, delay_b,
                                                        mt.arrive, mt.out, mt.timed_out);
    CHECK_LAUNCH();
    size_t bad = meeting_done(&mt, "bytes");
    CHECK(cudaFree(test));
    char what[96];
    snprintf(what, sizeof what, "bytesRead floats %d/%d, delay %lld, SMs %d/%d", fa, fb, delay_b, sm_a, sm_b);
    return finish(what, bad);
}

static int run_stride(int s, int k_loads, int fa, int fb, long long delay_b, int sm_a, int sm_b)
{
    int sms, smem = alone_on_each_sm(strideRead, &sms);
    size_t lines = (size_t)STRIDE_MAX_K * 32 * s;
    float *buf = dev_alloc<float>(lines * 32);
    CHECK(cudaMemset(buf, 0, lines * 128));
    meeting mt = meeting_alloc();
    strideRead<<<sms, THREADS, smem>>>(buf, s, k_loads, fa, fb, (unsigned)sm_a, (unsigned)sm_b,
                                                         delay_b, mt.arrive, mt.out, mt.timed_out);
    CHECK_LAUNCH();
    size_t bad = meeting_done(&mt, "stride");
    CHECK(cudaFree(buf));
    char what[112];
    snprintf(what, sizeof what, "strideRead lines %d apart, %d loads, floats %d/%d, delay %lld, SMs %d/%d", s,
             k_loads, fa, fb, delay_b, sm_a, sm_b);
    return finish(what, bad);
}

static int run_strideg(int s, int k_loads, int warps, int spr, int warm, int argc, char **argv)
{
    int sms, smem = alone_on_each_sm(strideGroupRead, &sms);
    sm_set set = {};
    unsigned members = 0;
    std::vector<int> offsets(sms, 0);
    for (int i = 0; i < argc; ++i) { /* SM or SM:OFF */
        char sm_text[16];
        const char *colon = strchr(argv[i], ':');
        size_t len = colon ? (size_t)(colon - argv[i]) : strlen(argv[i]);
        if (len >= sizeof sm_text) usage_fail(USAGE, "strideg: '%s' is not SM or SM:OFF", argv[i]);
        memcpy(sm_text, argv[i], len);
        sm_text[len] = '\0';
        int m = (int)parse_long(sm_text, "SM", 0, sms - 1, USAGE);
        if (m >= SM_SET_MAX || (set.bits[m / 32] >> (m % 32) & 1u)) usage_fail(USAGE, "SM %d listed twice", m);
        if (colon) offsets[m] = (int)parse_long(colon + 1, "OFF", 0, STRIDEG_MAX_OFF - 1, USAGE);
        set.bits[m / 32] |= 1u << (m % 32);
        members++;
    }
    size_t floats = (size_t)warps * STRIDE_MAX_K * 32 * s * 32 + STRIDEG_MAX_OFF;
    float *buf = dev_alloc<float>(floats);
    CHECK(cudaMemset(buf, 0, floats * sizeof(float)));
    int *offs = dev_alloc<int>(sms);
    CHECK(cudaMemcpy(offs, offsets.data(), sms * sizeof(int), cudaMemcpyHostToDevice));
    size_t bad = 0;
    for (int pass = 0; pass <= warm; ++pass) { /* WARM: a first pass fills L2 */
        meeting mt = meeting_alloc();
        strideGroupRead<<<sms, THREADS, smem>>>(buf, s, k_loads, warps, spr, set, members, offs, mt.arrive,
                                                mt.out, mt.timed_out);
        CHECK_LAUNCH();
        bad += meeting_done(&mt, "strideg");
    }
    CHECK(cudaFree(buf));
    CHECK(cudaFree(offs));
    char what[96];
    snprintf(what, sizeof what, "strideGroupRead lines %d apart, %d loads of %d sectors, %d warps, %u SMs%s", s,
             k_loads, spr, warps, members, warm ? ", L2 warm" : "");
    return finish(what, bad);
}

static int run_key(int kib, int warp_a, int warp_b, int alt_pc, int rev, int sm_a, int sm_b)
{
    int sms, smem = alone_on_each_sm(keyRead, &sms);
    int nlines = kib * 1024 / 128;
    float *buf = dev_alloc<float>((size_t)nlines * 32);
    CHECK(cudaMemset(buf, 0, (size_t)nlines * 128));
    meeting mt = meeting_alloc();
    keyRead<<<sms, THREADS, smem>>>(buf, nlines, (unsigned)sm_a, (unsigned)sm_b, warp_a, warp_b,
                                                      alt_pc, rev, mt.arrive, mt.out, mt.timed_out);
    CHECK_LAUNCH();
    size_t bad = meeting_done(&mt, "key");
    CHECK(cudaFree(buf));
    char what[128];
    snprintf(what, sizeof what, "keyRead %d KiB, warps %d/%d, alt_pc %d, rev %d, SMs %d/%d", kib, warp_a, warp_b,
             alt_pc, rev, sm_a, sm_b);
    return finish(what, bad);
}

static int one_cta_per_sm_smem(void)
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    /* more than half of what one SM has, so no SM takes two CTAs */
    return (int)(p.sharedMemPerMultiprocessor / 2 + 1024);
}

static int run_map(int reps)
{
    int smem = one_cta_per_sm_smem();
    CHECK(cudaFuncSetAttribute(mapKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    CHECK(cudaFuncSetAttribute(mapKernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
    const int sizes[] = {2, 4, 8, 16};
    unsigned *d = dev_alloc<unsigned>(256);
    unsigned h[256];
    for (int r = 0; r < reps; ++r)
        for (int s = 0; s < 4; ++s) {
            int cs = sizes[s], clusters = 256 / cs; /* more than fit at once: they queue */
            cudaLaunchConfig_t cfg = {};
            cudaLaunchAttribute attr[1];
            attr[0].id = cudaLaunchAttributeClusterDimension;
            attr[0].val.clusterDim.x = cs;
            attr[0].val.clusterDim.y = 1;
            attr[0].val.clusterDim.z = 1;
            cfg.gridDim = dim3(clusters * cs);
            cfg.blockDim = dim3(32);
            cfg.dynamicSmemBytes = smem;
            cfg.attrs = attr;
            cfg.numAttrs = 1;
            cudaError_t e = cudaLaunchKernelEx(&cfg, mapKernel, d);
            if (e != cudaSuccess) {
                fprintf(stderr, "lrcpair: cluster size %d: %s (skipped)\n", cs, cudaGetErrorString(e));
                (void)cudaGetLastError();
                continue;
            }
            CHECK_LAUNCH();
            CHECK(cudaMemcpy(h, d, sizeof(unsigned) * clusters * cs, cudaMemcpyDeviceToHost));
            for (int c = 0; c < clusters; ++c) {
                fprintf(stderr, "cluster %d:", cs);
                for (int k = 0; k < cs; ++k) fprintf(stderr, " %u", h[c * cs + k]);
                fprintf(stderr, "\n");
            }
        }
    CHECK(cudaFree(d));
    return finish("mapKernel clusters of 2-16", 0);
}

static int run_sweep(int anchor, long long delay, int kib, int argc, char **argv)
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int nsm = p.multiProcessorCount;
    if (anchor >= nsm) usage_fail(USAGE, "ANCHOR %d: the GPU has %d SMs", anchor, nsm);
    int partners[MAX_SMS], np = 0;
    if (argc > 0) {
        for (int i = 0; i < argc; ++i) partners[np++] = (int)parse_long(argv[i], "J", 0, nsm - 1, USAGE);
    } else {
        for (int j = 0; j < nsm; ++j)
            if (j != anchor) partners[np++] = j;
    }
    int smem = one_cta_per_sm_smem();
    CHECK(cudaFuncSetAttribute(pairRead, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int n4 = kib * 1024 / 16;
    float4 *buf = dev_alloc<float4>(n4);
    CHECK(cudaMemset(buf, 0, (size_t)n4 * 16));
    unsigned *arrive = dev_alloc<unsigned>(np);
    CHECK(cudaMemset(arrive, 0, sizeof(unsigned) * np));
    float *out = dev_alloc<float>((size_t)MAX_SMS * THREADS);
    unsigned long long *start = dev_alloc<unsigned long long>(2);
    int *timed_out = dev_alloc<int>(1);
    CHECK(cudaMemset(timed_out, 0, sizeof(int)));
    size_t bad = 0;
    for (int k = 0; k < np; ++k) {
        pairRead<<<nsm, THREADS, smem>>>(buf, n4, (unsigned)anchor, (unsigned)partners[k], delay,
                                         arrive + k, out, start, timed_out);
        CHECK_LAUNCH();
        unsigned long long s[2];
        int to = 0;
        CHECK(cudaMemcpy(s, start, sizeof s, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&to, timed_out, sizeof to, cudaMemcpyDeviceToHost));
        if (to) {
            fprintf(stderr, "lrcpair: launch %d (%d, %d): the two CTAs did not meet\n", k, anchor,
                    partners[k]);
            ++bad;
            CHECK(cudaMemset(timed_out, 0, sizeof(int)));
        }
        fprintf(stderr, "launch %d: %d %d %lld %lld\n", k, anchor, partners[k], delay,
                (long long)(s[1] - s[0]));
    }
    CHECK(cudaFree(buf));
    CHECK(cudaFree(arrive));
    CHECK(cudaFree(out));
    CHECK(cudaFree(start));
    CHECK(cudaFree(timed_out));
    char what[96];
    snprintf(what, sizeof what, "pairRead anchor %d, %d partners, delay %lld, %d KiB", anchor, np,
             delay, kib);
    return finish(what, bad);
}

static int run_group(int kib, int spr, int gather, int load_kib, long long stagger, int passes, int band, int shift,
                     int threads, int argc, char **argv)
{
    cudaDeviceProp p;
    CHECK(cudaGetDeviceProperties(&p, 0));
    int nsm = p.multiProcessorCount;
    int sms[MAX_SMS], n = 0;
    for (int i = 0; i < argc && n < MAX_SMS; ++i) sms[n++] = (int)parse_long(argv[i], "SM", 0, nsm - 1, USAGE);
    if (n < 2) usage_fail(USAGE, "group needs at least 2 SMs");
    int smem = one_cta_per_sm_smem();
    CHECK(cudaFuncSetAttribute(groupRead, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    int nsec = kib * 1024 / 32;
    float *buf = dev_alloc<float>((size_t)nsec * 8);
    CHECK(cudaMemset(buf, 0, (size_t)nsec * 32));
    unsigned *members = dev_alloc<unsigned>(MAX_SMS / 32);
    unsigned *rank = dev_alloc<unsigned>(MAX_SMS), hrank[MAX_SMS] = {0};
    for (int i = 0; i < n; ++i) hrank[sms[i]] = (unsigned)i;
    CHECK(cudaMemcpy(rank, hrank, sizeof hrank, cudaMemcpyHostToDevice));
    unsigned *arrive = dev_alloc<unsigned>(n);
    CHECK(cudaMemset(arrive, 0, sizeof(unsigned) * n));
    float *out = dev_alloc<float>((size_t)MAX_SMS * THREADS);
    int load4 = load_kib * 1024 / 16;
    float4 *load = load4 > 0 ? dev_alloc<float4>((size_t)nsm * load4) : NULL;
    if (load)
        CHECK(cudaMemset(load, 0, (size_t)nsm * load4 * sizeof(float4)));
    unsigned long long *start = dev_alloc<unsigned long long>((size_t)MAX_SMS * MAX_PASSES);
    int *timed_out = dev_alloc<int>(1);
    CHECK(cudaMemset(timed_out, 0, sizeof(int)));
    size_t bad = 0;
    for (int k = passes > 0 ? n : 2; k <= n; ++k) { /* passes 0: group mode, k = 2..n */
        unsigned bits[MAX_SMS / 32] = {0};
        for (int i = 0; i < k; ++i) bits[sms[i] / 32] |= 1u << (sms[i] % 32);
        CHECK(cudaMemcpy(members, bits, sizeof bits, cudaMemcpyHostToDevice));
        groupRead<<<nsm, threads, smem>>>(buf, nsec, spr, gather, band, shift, members, (unsigned)k, rank, stagger, passes > 0 ? passes : 1,
                                          load, load4, arrive + (k - 2), out, start, timed_out);
        CHECK_LAUNCH();
        unsigned long long s[MAX_SMS];
        int to = 0;
        CHECK(cudaMemcpy(s, start, sizeof(unsigned long long) * nsm, cudaMemcpyDeviceToHost));
        CHECK(cudaMemcpy(&to, timed_out, sizeof to, cudaMemcpyDeviceToHost));
        if (to) {
            fprintf(stderr, "lrcpair: group of %d: the CTAs did not meet\n", k);
            ++bad;
            CHECK(cudaMemset(timed_out, 0, sizeof(int)));
        }
        unsigned long long lo = ~0ull, hi = 0;
        for (int i = 0; i < k; ++i) {
            lo = s[sms[i]] < lo ? s[sms[i]] : lo;
            hi = s[sms[i]] > hi ? s[sms[i]] : hi;
        }
        if (passes > 0) {
            /* each pass's start on each SM, against the first SM's (ns, %globaltimer) */
            static unsigned long long ps[(size_t)MAX_SMS * MAX_PASSES];
            CHECK(cudaMemcpy(ps, start, sizeof ps, cudaMemcpyDeviceToHost));
            fprintf(stderr, "passes %d: %d %d %lld %lld skews", passes, spr, k, stagger, (long long)(hi - lo));
            for (int p = 1; p < passes && p < MAX_PASSES; ++p)
                for (int i = 1; i < k; ++i)
                    fprintf(stderr, " p%d:%lld", p + 1,
                            (long long)(ps[(size_t)p * MAX_SMS + sms[i]] - ps[(size_t)p * MAX_SMS + sms[0]]));
            fprintf(stderr, "\n");
        } else
            fprintf(stderr, "group %d: %d %d %lld %lld\n", k - 2, spr, k, stagger, (long long)(hi - lo));
    }
    CHECK(cudaFree(buf));
    CHECK(cudaFree(members));
    CHECK(cudaFree(rank));
    CHECK(cudaFree(arrive));
    CHECK(cudaFree(out));
    if (load)
        CHECK(cudaFree(load));
    CHECK(cudaFree(start));
    CHECK(cudaFree(timed_out));
    char what[96];
    snprintf(what, sizeof what, "groupRead %d SMs, %d-sector requests, stagger %lld, %d KiB", n, spr, stagger, kib);
    return finish(what, bad);
}

int main(int argc, char **argv)
{
    g_prog = "lrcpair";
    if (argc < 3) usage_fail(USAGE, "expected a mode and its arguments");
    setup_device();
    if (strcmp(argv[1], "map") == 0) {
        if (argc != 3) usage_fail(USAGE, "map takes one argument");
        return run_map((int)parse_long(argv[2], "REPS", 1, 100, USAGE));
    }
    if (strcmp(argv[1], "sweep") == 0) {
        if (argc < 5) usage_fail(USAGE, "sweep needs ANCHOR DELAY KIB");
        int anchor = (int)parse_long(argv[2], "ANCHOR", 0, MAX_SMS - 1, USAGE);
        long long delay = parse_long(argv[3], "DELAY", 0, 100000000, USAGE);
        int kib = (int)parse_long(argv[4], "KIB", 1, 1 << 20, USAGE);
        return run_sweep(anchor, delay, kib, argc - 5, argv + 5);
    }
    if (strcmp(argv[1], "group") == 0) {
        if (argc < 7) usage_fail(USAGE, "group needs KIB SPR STAGGER and at least 2 SMs");
        int kib = (int)parse_long(argv[2], "KIB", 1, 1 << 20, USAGE);
        int spr = (int)parse_long(argv[3], "SPR", 1, 4, USAGE);
        if (spr == 3) usage_fail(USAGE, "SPR must be 1, 2 or 4");
        long long stagger = parse_long(argv[4], "STAGGER", 0, 1000000, USAGE);
        return run_group(kib, spr, 0, 0, stagger, 0, 0, 0, THREADS, argc - 5, argv + 5);
    }
    if (strcmp(argv[1], "passes") == 0) {
        if (argc < 8) usage_fail(USAGE, "passes needs P KIB SPR STAGGER and at least 2 SMs");
        int passes = (int)parse_long(argv[2], "P", 1, 64, USAGE);
        int kib = (int)parse_long(argv[3], "KIB", 1, 1 << 20, USAGE);
        int spr = (int)parse_long(argv[4], "SPR", 1, 4, USAGE);
        if (spr == 3) usage_fail(USAGE, "SPR must be 1, 2 or 4");
        long long stagger = parse_long(argv[5], "STAGGER", 0, 1000000, USAGE);
        return run_group(kib, spr, 0, 0, stagger, passes, 0, 0, THREADS, argc - 6, argv + 6);
    }
    if (strcmp(argv[1], "gather") == 0) {
        if (argc < 7) usage_fail(USAGE, "gather needs KIB SAME LOAD_KIB and at least 2 SMs");
        int kib = (int)parse_long(argv[2], "KIB", 1, 1 << 20, USAGE);
        int same = (int)parse_long(argv[3], "SAME", 0, 1, USAGE);
        int load_kib = (int)parse_long(argv[4], "LOAD_KIB", 0, 1 << 16, USAGE);
        return run_group(kib, 1, same ? 1 : 2, load_kib, 0, 1, 0, 0, THREADS, argc - 5, argv + 5);
    }
    if (strcmp(argv[1], "band") == 0) {
        if (argc < 8) usage_fail(USAGE, "band needs KIB BAND SHIFT WARPS and at least 2 SMs");
        int kib = (int)parse_long(argv[2], "KIB", 1, 1 << 20, USAGE);
        int band = (int)parse_long(argv[3], "BAND", 1, 1 << 25, USAGE);
        int shift = (int)parse_long(argv[4], "SHIFT", 0, 1 << 25, USAGE);
        int warps = (int)parse_long(argv[5], "WARPS", 1, THREADS / 32, USAGE);
        return run_group(kib, 1, 3, 0, 0, 1, band, shift, 32 * warps, argc - 6, argv + 6);
    }
    if (strcmp(argv[1], "key") == 0) {
        if (argc != 9) usage_fail(USAGE, "key needs KIB WARP_A WARP_B ALTPC REV SM_A SM_B");
        int kib = (int)parse_long(argv[2], "KIB", 1, 1 << 16, USAGE);
        int wa = (int)parse_long(argv[3], "WARP_A", 0, THREADS / 32 - 1, USAGE);
        int wb = (int)parse_long(argv[4], "WARP_B", 0, THREADS / 32 - 1, USAGE);
        int alt = (int)parse_long(argv[5], "ALTPC", 0, 1, USAGE);
        int rev = (int)parse_long(argv[6], "REV", 0, 1, USAGE);
        int sa = (int)parse_long(argv[7], "SM_A", 0, MAX_SMS - 1, USAGE);
        int sb = (int)parse_long(argv[8], "SM_B", 0, MAX_SMS - 1, USAGE);
        return run_key(kib, wa, wb, alt, rev, sa, sb);
    }
    if (strcmp(argv[1], "pkt") == 0) {
        if (argc != 6) usage_fail(USAGE, "pkt needs OFF_A OFF_B SM_A SM_B");
        int oa = (int)parse_long(argv[2], "OFF_A", 1, PKT_STRIDE - 1, USAGE);
        int ob = (int)parse_long(argv[3], "OFF_B", 1, PKT_STRIDE - 1, USAGE);
        int sa = (int)parse_long(argv[4], "SM_A", 0, MAX_SMS - 1, USAGE);
        int sb = (int)parse_long(argv[5], "SM_B", 0, MAX_SMS - 1, USAGE);
        return run_pkt(oa, ob, sa, sb);
    }
    if (strcmp(argv[1], "cap") == 0) {
        if (argc != 8) usage_fail(USAGE, "cap needs M FILLER_SM DELAY_A DELAY_B SM_A SM_B");
        int m = (int)parse_long(argv[2], "M", 0, CAP_MAX_INSTR * 32, USAGE);
        if (m % 32 != 0) usage_fail(USAGE, "M must be a multiple of 32");
        int f = (int)parse_long(argv[3], "FILLER_SM", 0, MAX_SMS - 1, USAGE);
        long long da = parse_long(argv[4], "DELAY_A", 0, 100000000, USAGE);
        long long db = parse_long(argv[5], "DELAY_B", 0, 100000000, USAGE);
        int sa = (int)parse_long(argv[6], "SM_A", 0, MAX_SMS - 1, USAGE);
        int sb = (int)parse_long(argv[7], "SM_B", 0, MAX_SMS - 1, USAGE);
        return run_cap(m, f, da, db, sa, sb);
    }
    if (strcmp(argv[1], "evict") == 0) {
        if (argc < 10) usage_fail(USAGE, "evict needs SPR M DELAY_F DELAY_A DELAY_B SM_A SM_B FILLER_SM...");
        int spr = (int)parse_long(argv[2], "SPR", 1, 4, USAGE);
        int m = (int)parse_long(argv[3], "M", 0, CAP_MAX_INSTR * 32, USAGE);
        if (m % 32 != 0) usage_fail(USAGE, "M must be a multiple of 32");
        long long df = parse_long(argv[4], "DELAY_F", 0, 100000000, USAGE);
        long long da = parse_long(argv[5], "DELAY_A", 0, 100000000, USAGE);
        long long db = parse_long(argv[6], "DELAY_B", 0, 100000000, USAGE);
        int sa = (int)parse_long(argv[7], "SM_A", 0, MAX_SMS - 1, USAGE);
        int sb = (int)parse_long(argv[8], "SM_B", 0, MAX_SMS - 1, USAGE);
        int fillers[MAX_SMS], nf = 0;
        for (int i = 9; i < argc && nf < MAX_SMS; ++i)
            fillers[nf++] = (int)parse_long(argv[i], "FILLER_SM", 0, MAX_SMS - 1, USAGE);
        return run_evict(spr, m, df, da, db, sa, sb, fillers, nf);
    }
    if (strcmp(argv[1], "xgpc") == 0) {
        if (argc != 8 && argc != 9) usage_fail(USAGE, "xgpc needs SPR C_OFF DELAY_C DELAY_B SM_A SM_B [SM_C]");
        int spr = (int)parse_long(argv[2], "SPR", 1, 4, USAGE);
        int c_off = (int)parse_long(argv[3], "C_OFF", 0, 3, USAGE);
        if (c_off + spr > 4) usage_fail(USAGE, "C_OFF + SPR must be at most 4");
        long long dc = parse_long(argv[4], "DELAY_C", 0, 100000000, USAGE);
        long long db = parse_long(argv[5], "DELAY_B", 0, 100000000, USAGE);
        int sa = (int)parse_long(argv[6], "SM_A", 0, MAX_SMS - 1, USAGE);
        int sb = (int)parse_long(argv[7], "SM_B", 0, MAX_SMS - 1, USAGE);
        int sc = argc == 9 ? (int)parse_long(argv[8], "SM_C", 0, MAX_SMS - 1, USAGE) : -1;
        if (sa == sb || sc == sa || sc == sb) usage_fail(USAGE, "SM_A, SM_B and SM_C must differ");
        return run_xgpc(spr, c_off, dc, db, sa, sb, sc);
    }
    if (strcmp(argv[1], "bytes") == 0) {
        if (argc != 7) usage_fail(USAGE, "bytes needs FA FB DELAY_B SM_A SM_B");
        int fa = (int)parse_long(argv[2], "FA", 0, 31, USAGE);
        int fb = (int)parse_long(argv[3], "FB", 0, 31, USAGE);
        long long db = parse_long(argv[4], "DELAY_B", 0, 100000000, USAGE);
        int sa = (int)parse_long(argv[5], "SM_A", 0, MAX_SMS - 1, USAGE);
        int sb = (int)parse_long(argv[6], "SM_B", 0, MAX_SMS - 1, USAGE);
        if (sa == sb) usage_fail(USAGE, "SM_A and SM_B must differ");
        return run_bytes(fa, fb, db, sa, sb);
    }
    if (strcmp(argv[1], "stride") == 0) {
        if (argc != 9) usage_fail(USAGE, "stride needs S K FA FB DELAY_B SM_A SM_B");
        int st = (int)parse_long(argv[2], "S", 1, 1024, USAGE);
        int k = (int)parse_long(argv[3], "K", 1, STRIDE_MAX_K, USAGE);
        int fa = (int)parse_long(argv[4], "FA", 0, 31, USAGE);
        int fb = (int)parse_long(argv[5], "FB", 0, 31, USAGE);
        long long db = parse_long(argv[6], "DELAY_B", 0, 100000000, USAGE);
        int sa = (int)parse_long(argv[7], "SM_A", 0, MAX_SMS - 1, USAGE);
        int sb = (int)parse_long(argv[8], "SM_B", 0, MAX_SMS - 1, USAGE);
        if (sa == sb) usage_fail(USAGE, "SM_A and SM_B must differ");
        return run_stride(st, k, fa, fb, db, sa, sb);
    }
    if (strcmp(argv[1], "strideg") == 0) {
        if (argc < 7) usage_fail(USAGE, "strideg needs S K W and at least 2 SMs");
        int st = (int)parse_long(argv[2], "S", 1, 1024, USAGE);
        int k = (int)parse_long(argv[3], "K", 1, STRIDE_MAX_K, USAGE);
        int w = (int)parse_long(argv[4], "W", 1, THREADS / 32, USAGE);
        return run_strideg(st, k, w, 1, 0, argc - 5, argv + 5);
    }
    if (strcmp(argv[1], "stridegs") == 0) {
        if (argc < 9) usage_fail(USAGE, "stridegs needs SPR WARM S K W and at least 2 SMs");
        int spr = (int)parse_long(argv[2], "SPR", 1, 4, USAGE);
        if (spr == 3) usage_fail(USAGE, "SPR is 1, 2 or 4");
        int warm = (int)parse_long(argv[3], "WARM", 0, 1, USAGE);
        int st = (int)parse_long(argv[4], "S", 1, 1024, USAGE);
        int k = (int)parse_long(argv[5], "K", 1, STRIDE_MAX_K, USAGE);
        int w = (int)parse_long(argv[6], "W", 1, THREADS / 32, USAGE);
        return run_strideg(st, k, w, spr, warm, argc - 7, argv + 7);
    }
    usage_fail(USAGE, "unknown mode '%s'", argv[1]);
    return EXIT_USAGE;
}
