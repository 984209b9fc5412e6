/* timing.c - warp clocks, resource calendars, CTA slots, barriers, the L2
 * request coalescer, and the prefetching of a record's hot entries when the
 * replay announces it (the rules are in timing.h and docs/timing.md). */
#include "timing.h"

#include <assert.h>
#include <ctype.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "coal.h"
#include "err.h"
#include "l2.h"
#include "lrc.h"
#include "lrc_int.h"
#include "sass.h"
#include "sassflow.h"
#include "wqueue.h"
#include "wqueue_int.h"
#include "wcomb.h"

/* ---- calendars -----------------------------------------------------------------
 * A resource serves `rate` units per cycle. Its time is cut into bins of
 * CAL_BIN cycles; a ring of CAL_BINS bins holds the units booked in each. A
 * request of n units at time t fills the bins from t's onward, so requests that
 * arrive (in replay order) after others booked the same bins queue behind them
 * whatever their own time. Bins older than the window are forgotten; a request
 * older than the window is served at its start. Invariant: lo is the oldest bin
 * the ring holds; used[b & mask] belongs to bin b for lo <= b < lo + CAL_BINS. */
#define CAL_BIN_SHIFT 5u
#define CAL_BIN (1u << CAL_BIN_SHIFT) /* 32 cycles */
#define CAL_BINS 2048u                /* a window of 65,536 cycles */
#define LOAD_SPAN_SHIFT 7u            /* DRAM's load is counted per 128 cycles */
#define LOAD_SPAN (1u << LOAD_SPAN_SHIFT)
#define LOAD_RING 64u                 /* spans kept: 8,192 cycles */

typedef struct cal {
    /* [CAL_BINS] units booked per bin: bytes when the cap fits in one (the
     * SM's issue slots, tag and data stages, 32 a bin, and slices of up to
     * 7 units a cycle), four times smaller in the CPU's caches; else words */
    void *bins;
    /* [0..cap] ceil(units / rate) (at most CAL_BIN), the table cal_book reads;
     * NULL when cap > CAL_TABLE_MAX (then every booking takes the loop) */
    const uint8_t *cycles;
    uint64_t lo;    /* first bin of the window */
    /* [full_lo, full_hi): bins known to be full, so that a booking behind a
     * long queue jumps over them instead of reading each (bins only fill up
     * while they are in the window; the run is clamped when the window slides) */
    uint64_t full_lo, full_hi;
    uint64_t inv;   /* floor(2^64 / cap) + 1: divides by cap with a multiply */
    uint32_t cap;   /* units per bin = rate x CAL_BIN */
    uint32_t fast_max; /* cap when there is a cycles table, else 0 (cal_book's fast case) */
    bool narrow;    /* bins in bytes (cal_narrow), else words */
    bool dirty;     /* something was booked since the last clear */
} cal;
/* one cache line a calendar: a record books three of its SM's, and the
 * prefetch of a record announced brings each in with one line */
_Static_assert(sizeof(cal) == 64, "cal: one cache line");

#define CAL_NARROW_MAX 255u /* the largest cap kept in bytes */
#define CAL_TABLE_MAX 4095u /* the largest cap with a cycles table (DRAM's is 1,460 on the H200) */

/* ceil(x / cap): the hot path books several calendars per record, and a
 * 64-bit division costs tens of cycles. For x < 2^32, floor(x * inv / 2^64)
 * is floor(x / cap) exactly (Lemire, Kaser, Kurz 2019, "Faster remainder by
 * direct computation"); a rate of 1 unit per cycle divides by nothing. */
static inline uint64_t cal_cycles(const cal *c, uint64_t units)
{
    uint64_t x = units * CAL_BIN + c->cap - 1u;
    if (c->cap == CAL_BIN)
        return units;
    if (x >> 32)
        return x / c->cap;
    /* x * inv / 2^64 from two 32 x 32-bit halves (no 128-bit type in C11) */
    uint64_t hi = c->inv >> 32, lo = c->inv & 0xffffffffu;
    return (x * hi + ((x * lo) >> 32)) >> 32;
}

/* The bins' storage: CAL_BINS bytes when cap <= CAL_NARROW_MAX (cal_narrow),
 * else CAL_BINS words. */
static bool cal_narrow(uint32_t cap)
{
    return cap <= CAL_NARROW_MAX;
}

/* Bytes of a calendar's bins. */
static size_t cal_bin_bytes(uint32_t cap)
{
    return CAL_BINS * (cal_narrow(cap ? cap : 1u) ? sizeof(uint8_t) : sizeof(uint32_t));
}

/* cycles: a table of CAL_TABLE_MAX + 1 entries that cal_init fills
 * (calendars of one cap may share one). */
static void cal_init(cal *c, void *storage, uint32_t cap, uint8_t *cycles)
{
    c->lo = 0;
    c->cap = cap ? cap : 1u;
    c->inv = UINT64_MAX / c->cap + 1u;
    c->bins = storage;
    c->narrow = cal_narrow(c->cap);
    if (c->cap <= CAL_TABLE_MAX) {
        for (uint32_t u = 0; u <= c->cap; u++)
            cycles[u] = (uint8_t)cal_cycles(c, u); /* <= CAL_BIN */
        c->cycles = cycles;
        c->fast_max = c->cap;
    }
}

static void cal_clear(cal *c)
{
    if (c->dirty) /* most of a GPU's calendars stay empty in a small kernel */
        memset(c->bins, 0, CAL_BINS * (c->narrow ? sizeof(uint8_t) : sizeof(uint32_t)));
    c->lo = c->full_lo = c->full_hi = 0;
    c->dirty = false;
}

static inline uint32_t bin_get(const cal *c, uint64_t b)
{
    return c->narrow ? ((const uint8_t *)c->bins)[b & (CAL_BINS - 1u)]
                     : ((const uint32_t *)c->bins)[b & (CAL_BINS - 1u)];
}

static inline void bin_set(cal *c, uint64_t b, uint32_t v)
{
    if (c->narrow)
        ((uint8_t *)c->bins)[b & (CAL_BINS - 1u)] = (uint8_t)v;
    else
        ((uint32_t *)c->bins)[b & (CAL_BINS - 1u)] = v;
}

/* cal_book's general case: any n, any t (before the window, in a full bin,
 * beyond the window), the bins filled one after the other. */
static __attribute__((noinline)) uint64_t cal_book_slow(cal *c, uint64_t t, uint64_t n)
{
    if (n == 0)
        return t;
    /* cycles the units take alone (from the table when it has them) */
    uint64_t own = n <= c->fast_max ? c->cycles[n] : cal_cycles(c, n);
    c->dirty = true;
    uint64_t b = t >> CAL_BIN_SHIFT;
    if (b < c->lo) {
        b = c->lo;
        t = b << CAL_BIN_SHIFT;
    }
    uint64_t first = b;
    for (;;) {
        if (b >= c->full_lo && b < c->full_hi)
            b = c->full_hi;
        if (b >= c->lo + CAL_BINS) { /* slide the window: forget the oldest bins */
            uint64_t lo = b - CAL_BINS + 1u;
            for (uint64_t x = c->lo; x < lo && x < c->lo + CAL_BINS; x++)
                bin_set(c, x, 0);
            c->lo = lo;
            if (c->full_lo < lo)
                c->full_lo = lo;
            if (c->full_hi < c->full_lo)
                c->full_hi = c->full_lo;
            if (first < lo)
                first = lo;
        }
        uint32_t u = bin_get(c, b);
        uint64_t free = u < c->cap ? c->cap - u : 0;
        uint64_t take = n < free ? n : free;
        bin_set(c, b, u + (uint32_t)take);
        n -= take;
        if (n == 0)
            break;
        b++;
    }
    /* every bin from first to b (excluded) is full now: remember the run if it
     * joins the known one or lies beyond it (the queue's frontier moves on) */
    if (b > first) {
        if (first <= c->full_hi && b >= c->full_lo) {
            c->full_lo = first < c->full_lo ? first : c->full_lo;
            c->full_hi = b > c->full_hi ? b : c->full_hi;
        } else if (b > c->full_hi) {
            c->full_lo = first;
            c->full_hi = b;
        }
    }
    uint32_t u = bin_get(c, b); /* <= cap */
    uint64_t fill = (b << CAL_BIN_SHIFT) + (c->fast_max ? c->cycles[u] : cal_cycles(c, u));
    return fill > t + own ? fill : t + own;
}

/* Book n units at time t; returns when the last of them is served. Nearly
 * every booking fits in one bin: t's, or behind a queue the first bin after
 * the full run t falls in. That case is done here, inline, with the same
 * result as cal_book_slow's loop (whose first bin with room that is: the run
 * lies in the window, and stays as it is). */
static inline __attribute__((always_inline)) uint64_t cal_book(cal *c, uint64_t t, uint64_t n)
{
    uint64_t b = t >> CAL_BIN_SHIFT;
    if (b - c->full_lo < c->full_hi - c->full_lo) /* in the full run */
        b = c->full_hi;
    if (n - 1u < c->fast_max && b - c->lo < CAL_BINS) { /* 1 <= n <= cap, b in the window */
        uint64_t v;
        if (c->narrow) {
            uint8_t *u = &((uint8_t *)c->bins)[b & (CAL_BINS - 1u)];
            v = *u + n;
            if (v > c->cap)
                return cal_book_slow(c, t, n);
            *u = (uint8_t)v;
        } else {
            uint32_t *u = &((uint32_t *)c->bins)[b & (CAL_BINS - 1u)];
            v = *u + n;
            if (v > c->cap)
                return cal_book_slow(c, t, n);
            *u = (uint32_t)v;
        }
        c->dirty = true;
        uint64_t fill = (b << CAL_BIN_SHIFT) + c->cycles[v];
        uint64_t alone = t + c->cycles[n];
        return fill > alone ? fill : alone;
    }
    return cal_book_slow(c, t, n);
}

/* When n units asked for at t would be served, booking nothing: cal_book's
 * answer, read from the bins (a warp's drain, warp_ended, asks when L2
 * would take a store's data in behind the queue as it stands). */
static uint64_t cal_when(const cal *c, uint64_t t, uint64_t n)
{
    if (n == 0)
        return t;
    uint64_t own = n <= c->fast_max ? c->cycles[n] : cal_cycles(c, n);
    uint64_t b = t >> CAL_BIN_SHIFT;
    if (b < c->lo) {
        b = c->lo;
        t = b << CAL_BIN_SHIFT;
    }
    uint32_t u = 0;
    for (;;) {
        if (b >= c->full_lo && b < c->full_hi)
            b = c->full_hi;
        u = b < c->lo + CAL_BINS ? bin_get(c, b) : 0u; /* beyond the window: empty */
        uint64_t free = u < c->cap ? c->cap - u : 0;
        if (n <= free) {
            u += (uint32_t)n;
            break;
        }
        n -= free;
        b++;
    }
    uint64_t fill = (b << CAL_BIN_SHIFT) + (c->fast_max ? c->cycles[u] : cal_cycles(c, u));
    return fill > t + own ? fill : t + own;
}

/* cal1_book's booking of n (1 <= n <= CAL_BIN) cycles at t that does not
 * fit in bin b (t's, or the first after the full run t falls in; in the
 * window): when the rest fits in the next bin, which is in the window and
 * not in the full run, it is booked there with cal_book_slow's result, bins
 * and full run (the run is t's bin to b + 1: t's bin is not before the window,
 * since the run never is); else cal_book_slow. Nearly every booking of an
 * SM's issue slots that does not fit in one bin fits in two. */
static __attribute__((noinline)) uint64_t cal1_book_spill(cal *c, uint64_t t, uint64_t n, uint64_t b)
{
    uint8_t *bins = c->bins;
    uint64_t next = b + 1u;
    uint64_t rest = n - (CAL_BIN - bins[b & (CAL_BINS - 1u)]); /* >= 1: it did not fit */
    if (next - c->full_lo < c->full_hi - c->full_lo || next - c->lo >= CAL_BINS)
        return cal_book_slow(c, t, n);
    uint64_t v = bins[next & (CAL_BINS - 1u)] + rest;
    if (v > CAL_BIN)
        return cal_book_slow(c, t, n);
    bins[b & (CAL_BINS - 1u)] = CAL_BIN;
    bins[next & (CAL_BINS - 1u)] = (uint8_t)v;
    c->dirty = true;
    uint64_t first = t >> CAL_BIN_SHIFT; /* bins first .. b are full now (as in cal_book_slow) */
    if (first <= c->full_hi && next >= c->full_lo) {
        c->full_lo = first < c->full_lo ? first : c->full_lo;
        c->full_hi = next > c->full_hi ? next : c->full_hi;
    } else if (next > c->full_hi) {
        c->full_lo = first;
        c->full_hi = next;
    }
    uint64_t fill = (next << CAL_BIN_SHIFT) + v;
    return fill > t + n ? fill : t + n;
}

/* cal1_book's booking of n (1 <= n <= CAL_BIN) cycles at t whose bin (in
 * the window) has no room for them: cal_book's case, the first bin after
 * the full run when t's is in it, then in the next bin (cal1_book_spill). */
static __attribute__((noinline)) uint64_t cal1_book_full(cal *c, uint64_t t, uint64_t n)
{
    uint64_t b = t >> CAL_BIN_SHIFT;
    if (b - c->full_lo >= c->full_hi - c->full_lo) /* not in the full run: t's bin, which has no room */
        return cal1_book_spill(c, t, n, b);
    b = c->full_hi;
    if (b - c->lo >= CAL_BINS)
        return cal_book_slow(c, t, n);
    uint8_t *u = &((uint8_t *)c->bins)[b & (CAL_BINS - 1u)];
    uint64_t v = *u + n;
    if (v > CAL_BIN)
        return cal1_book_spill(c, t, n, b);
    *u = (uint8_t)v;
    c->dirty = true;
    uint64_t fill = (b << CAL_BIN_SHIFT) + v;
    return fill > t + n ? fill : t + n;
}

/* cal_book for a calendar of one unit per cycle (cap CAL_BIN, bins in bytes:
 * an SM's issue slots, tag and data stages), where units are cycles. A bin
 * of the full run holds CAL_BIN, so when t's bin has room for n it is not in
 * the run and is cal_book's bin: no need to look at the run (t's bin is in
 * it for 2% of the SM calendars' bookings of 1M coalesced records). */
static inline __attribute__((always_inline)) uint64_t cal1_book(cal *c, uint64_t t, uint64_t n)
{
    /* callers: calendars made with cap CAL_BIN, so kept in bytes */
    uint64_t b = t >> CAL_BIN_SHIFT;
    if (n - 1u < CAL_BIN && b - c->lo < CAL_BINS) { /* 1 <= n <= cap, b in the window */
        uint8_t *u = &((uint8_t *)c->bins)[b & (CAL_BINS - 1u)];
        uint64_t v = *u + n;
        if (v <= CAL_BIN) {
            *u = (uint8_t)v;
            c->dirty = true;
            uint64_t fill = (b << CAL_BIN_SHIFT) + v;
            return fill > t + n ? fill : t + n;
        }
        return cal1_book_full(c, t, n);
    }
    return cal_book_slow(c, t, n);
}

/* ---- state ------------------------------------------------------------------- */

/* A PC's registers (timing_parse_sass), and those it reads folded mod 32
 * (bit r mod 32 for each register r read): warp_state.pend_regs's filter. */
typedef struct pc_regs {
    timing_regs regs;
    uint32_t src32;
    /* control_words, on a path between records (issue_path_ctrl): how long
     * after its issue the scoreboard it sets is released, and whether it is
     * a cp.async group (LDGDEPBAR) or waits for a scoreboard (DEPBAR.LE SBk:
     * ctrl_depbar = k + 1; 0 when not one) */
    uint32_t ctrl_lat;
    bool ctrl_group;
    uint8_t ctrl_depbar;
    uint16_t cline; /* the constant line it names (const_wait): timing.clines index + 1; 0: none */
} pc_regs;

static void pc_ctrl_kind(const cfg_gpu *c, const char *op, pc_regs *pr);
static void const_lines_begin(timing *t, const trace_kernel *k);

#define MAX_PENDING 16u  /* loads in flight per warp that the model tracks */
#define SCOREBOARDS 6u   /* a warp's dependency scoreboards (control words, trace.h) */
#define ALU_SLOTS 4u     /* arithmetic results per warp: a warp issues at most one a cycle, so
                          * with alu_latency_cycles <= 4 an older one is always ready */
#define PC_BYTES 16u     /* one SASS instruction (sm_70 and later) */
#define PCS_PER_LINE 8u  /* instructions in a 128-byte line of code */
#define BACK_BRANCH_INSTRUCTIONS 2u /* a loop's back edge: the branch and one more, unknown */

/* Four cache lines per warp (the table is line-aligned): what every record
 * reads in the first, the pending loads' ready cycles in the next two. Records
 * of thousands of warps interleave in capture order, so each record's warp is
 * usually a cache miss; fewer lines per warp, fewer misses. */
typedef struct warp_state {
    uint32_t gen;        /* kernel generation that owns the entry; 0 = empty */
    uint32_t cta, warp;
    uint32_t bar_gen;    /* barriers this warp passed */
    uint64_t clock;      /* earliest cycle of the warp's next instruction */
    uint32_t last_pc;
    uint32_t pc_idx;     /* index of last_pc in the kernel's PC table, or UINT32_MAX */
    uint8_t smsp;        /* its sub-partition, (its CTA's first_smsp + warp) mod smsps (at most 16) */
    bool started : 1, bar_wait : 1;
    bool ldgsts_open : 1; /* its last record was a cp.async's first half: the next record of
                           * that PC is the same instruction's other half */
    uint8_t n_pend;      /* loads in flight, oldest first: */
    uint8_t pend_first[MAX_PENDING]; /* first destination register */
    uint8_t pend_n[MAX_PENDING];     /* registers */
    uint8_t store_run_id; /* its runs of stores begun, mod 256 (store_run below: whether its entry of
                           * store_runs[] is this run's); in the second line, which every record reads */
    uint32_t pend_regs;  /* bit r mod 32 of every register a pending load fills, and maybe more
                          * (a filter: wait_regs scans the loads only when it meets the registers
                          * an instruction reads or writes, folded the same way) */
    uint64_t mem_done;   /* when its shared stores and cp.async copies are done: its next barrier waits */
    uint64_t data_free;  /* when the data stage has taken its last access's wavefronts, at its own rate */
    union {
        uint64_t pend_ready[MAX_PENDING]; /* cycle the data is in the registers */
        struct { /* control_words: instead of the loads by registers */
            uint64_t next_issue;          /* its last instruction's issue + stall count */
            uint64_t ready[SCOREBOARDS];  /* when each scoreboard's last setter is done */
        } sb;
    };
    /* its latest ALU_SLOTS arithmetic results (alu_latency_cycles): the
     * first register each writes, two registers where bit k of alu_wide */
    uint64_t alu_ready[ALU_SLOTS];
    uint8_t alu_first[ALU_SLOTS];
    uint8_t alu_wide, alu_next;
    uint8_t sb_long;     /* control_words: bit k, scoreboard k waits for global memory (long_sb) */
    uint8_t pad[1];      /* to four whole cache lines */
} warp_state;
_Static_assert(sizeof(warp_state) == 256, "warp_state: four cache lines");
_Static_assert(offsetof(warp_state, store_run_id) / 64u == offsetof(warp_state, pend_regs) / 64u,
               "warp_state: store_run_id beside pend_regs, in a line on_prefetch loads");

/* A warp's run of stores (consecutive global and local stores, which store
 * combining merges, wcomb.h) as its SM's queue saw them: per line, the
 * request the run's stores to it went in, while it takes later ones
 * (wqueue.h). Holds what store combining's entry holds: at most WCOMB_LINES
 * lines, all sent when a new line finds it full. One cache line, every
 * store touches it: the entry cycle's low 32 bits (a run's stores come
 * within 2^32 cycles of each other) and the wait in the queue, saturated. */
typedef struct store_run {
    uint64_t line[WCOMB_LINES];
    uint32_t t32[WCOMB_LINES];   /* the request entered the queue (low 32 bits) */
    uint16_t wait[WCOMB_LINES];  /* and left it this much later (at most UINT16_MAX) */
    uint8_t mask[WCOMB_LINES];   /* sectors its stores wrote */
    uint8_t n, id;               /* lines; the warp's store_run_id it belongs to */
    uint8_t pad[2];
} store_run;
_Static_assert(sizeof(store_run) == 64, "store_run: one cache line");
_Static_assert(WCOMB_LINES == 4u, "store_run: four lines");
_Static_assert(COAL_MAX_SECTORS_PER_LINE <= 8u, "store_run: a line's sectors in a byte");

#define LINE_BYTES 64u
typedef struct cta_state {
    uint32_t gen;        /* kernel generation; 0 = empty */
    uint32_t cta;
    uint16_t sm;
    uint8_t first_smsp;  /* its warp 0's sub-partition (cta_start) */
    uint8_t unused;
    uint32_t slot;       /* its index in sm_slots / slot_end */
    uint64_t start, end; /* end: the latest issue of any of its warps so far */
    uint32_t bar_id[2], bar_count[2];
    uint64_t bar_max[2]; /* latest arrival at barrier bar_id[i] (generations alternate) */
} cta_state;
_Static_assert(sizeof(cta_state) == 64, "cta_state: one cache line");

typedef struct sm_state {
    uint64_t last_store;     /* issue time of its latest global/local store */
    uint64_t first_start;    /* when its first CTA of this kernel started (0: none yet) */
    uint64_t last_end;       /* when the last of its warps so far ended (warp_ended) */
    uint32_t ctas_started;   /* CTAs started on it in this kernel */
} sm_state;

typedef struct slice_state {
    uint64_t atomic_line;
    uint64_t atomic_free_mcycles; /* when the atomic unit is free for the same line, 1/1000 cycle */
    bool atomic_valid;
} slice_state;

/* The last ANNOUNCE_LAG records announced by the replay's read-ahead (the
 * observer's prefetch), in a ring: when a record is announced, the warp
 * entry of the one announced ANNOUNCE_LAG before it (the ring entry it
 * replaces) is in cache by now, and its clock says which bins of its SM's
 * issue slots and L1 stages its turn will book. */
#define ANNOUNCE_LAG 4u
typedef struct announced {
    uint32_t slot;   /* its warp entry's index (warp_slot) */
    uint32_t sm_cal; /* its SM's first calendar in smcal (sm_cal_issue(t, sm, 0)) */
} announced;

/* A read that missed in L2 fetched whole blocks of l2.fetch_sectors sectors
 * (findings §15); the functional model holds the sectors beside those it
 * asked for at once, but their data is in L2 only when the fill is: a read
 * of them before then waits for it (docs/timing.md, "The L2's 64-byte
 * fetch"). Direct-mapped by line: a slot lost to another line only makes a
 * later read of the first line's sectors return as an L2 hit. */
#define TIMING_FILL_SLOTS 4096u
/* When a line's data arrives where a later read finds it before it is there
 * (the functional caches have a line from its miss on): a direct-mapped table
 * by key, a later arrival taking the slot. A slot lost to another key only
 * makes a later read of the first one return as the functional caches say.
 *  - l2_fill_wait: an L2 partition's copy, key (line << 2 | partition) + 1;
 *  - l1_fill_wait: an SM's L1 fill, key line x SMs + SM + 1. */
#define COPY_SLOTS 16384u
#define L1_FILL_SLOTS 65536u
typedef struct arrival_slot {
    uint64_t key;   /* 0: empty */
    uint64_t ready; /* when the data is there */
} arrival_slot;

static inline arrival_slot *arrival_of(arrival_slot *table, uint32_t slots, uint64_t key)
{
    return &table[(cache_mix64(key) >> 40) & (slots - 1u)];
}
#define TIMING_FETCH_MASKS (1u << CACHE_MAX_SECTORS)
typedef struct fill_slot {
    uint64_t line;  /* UINT64_MAX: empty */
    uint64_t ready; /* the fill's data is at the slice */
    uint32_t mask;  /* the sectors it fetched beside those asked for */
} fill_slot;

struct timing {
    cfg_gpu cfg;
    /* announced ANNOUNCE_LAG records ago, at [n_ann % ANNOUNCE_LAG]; zeros
     * (a valid warp and SM) before any */
    announced ann[ANNOUNCE_LAG];
    uint32_t n_ann;           /* records announced */
    uint32_t smsps, partitions, slices_per_partition;
    uint32_t lookup_units;    /* slice units one lookup holds: one L2 cycle */
    /* an L2 request's way there and back in cycles: near, crossing the fabric,
     * and from the slice to DRAM and back (beyond an L2 hit) */
    uint64_t l2_in, l2_out, far_in, far_out, dram_in, dram_out;
    uint8_t *sm_part;         /* [sm_count] the SM's near partition (cfg_partition_of_sm) */
    /* calendars: per SM smsps issue + tag + data (sm_cal_issue & co.); per slice; DRAM */
    uint8_t *cal_storage;     /* the bins, the SMs' first in smcal's order */
    cal *smcal;   /* [sm_count * sm_cals]: SM s's are s * sm_cals + (0 .. smsps-1: issue, smsps: tag, +1: data,
                   * +2: the drain of the queue towards L2: write sectors and read requests) */
    uint32_t sm_cals;         /* smsps + 3 */
    uint32_t smsp_mask;       /* smsps - 1 when smsps is a power of two, else 0 (then warp % smsps) */
    cal *slice;   /* [slices] */
    /* the calendars' cycles tables: the SMs' (one unit a cycle), the slices', DRAM's */
    uint8_t unit_cycles[CAL_TABLE_MAX + 1u], slice_cycles[CAL_TABLE_MAX + 1u], dram_cycles[CAL_TABLE_MAX + 1u];
    uint8_t l2w_cycles[CAL_TABLE_MAX + 1u];
    cal dram;
    /* with l2_write_bytes_per_cycle: what L2 takes in (stores, fills from
     * DRAM); dram_split: DRAM reads and write-backs booked apart (the write
     * cost, the fills) rather than as one count */
    cal l2w;
    bool l2w_on, dram_split;
    bool load_on;               /* dram_load_extra_cycles: a read's latency grows with DRAM's load */
    /* [warp entry] cycles from its CTA's start to its end so far (warp_ended):
     * apart from warp_state, which fills four cache lines */
    uint32_t *warp_life;
    store_run *store_runs; /* [warps]: each warp's run of stores in its SM's queue */
    void *store_runs_raw;  /* what to free */
    uint64_t life_done;         /* the lifetimes of this kernel's warps whose entries were taken since */
    uint32_t load_spans;        /* the spans a load is read over: one unloaded DRAM round trip */
    uint64_t load_div;          /* the units DRAM serves in load_spans spans */
    uint64_t load_top;          /* the latest span with arrivals */
    uint32_t load_ring[LOAD_RING]; /* units asked of DRAM per span (dram_load_note) */
    uint32_t load_extra[1001];  /* timing_dram_load_extra at each thousandth of DRAM's rate */
    uint64_t dram_wb_milli; /* write-backs' thousandths of a sector not yet booked */
    slice_state *slices;
    sm_state *sms;
    uint32_t *sm_slots;       /* [sm_count * max_ctas_per_sm]: cta table index + 1, 0 = free */
    uint64_t *slot_end;       /* [same]: its occupant's end, kept with cta_state.end so that
                               * choosing a slot reads one small array, not 32 CTA entries */
    warp_state *warps;        /* line-aligned */
    void *warps_raw, *ctas_raw, *smcal_raw, *slice_raw, *cal_raw; /* what to free */
    uint32_t warp_mask;
    cta_state *ctas;
    uint32_t cta_mask;

    /* the current kernel */
    uint32_t gen;
    const trace_kernel *k;
    bool by_ctrl; /* control_words, and the kernel's PC table has them all (and its whole SASS) */
    gpu_kernel_info info;
    uint32_t warps_per_cta;
    uint64_t bar_release;     /* last arrival at a barrier to its release, for this kernel's CTAs */
    pc_regs *pcs;             /* [k->n_pcs] */
    uint32_t *pc_next;        /* [k->n_pcs]: the PC index a warp went to from this one when
                               * not the next, UINT32_MAX when none (pc_index's hint) */
    uint32_t cap_pcs;
    uint32_t pc_first;        /* the PC index the latest warp's first record had, UINT32_MAX
                               * when none: where a new warp usually starts (pc_index's hint) */
    uint64_t end;             /* latest completion of anything */
    uint64_t next_dispatch_mcycles; /* the GPU starts no CTA before this, 1/1000 cycle */
    uint64_t fill_mcycles;          /* what a first-wave CTA costs the dispatcher, 1/1000 cycle */
    uint64_t sm_wave_mcycles;       /* first_wave_by_sm: what an SM's first wave costs it */
    uint64_t lrc_in;
    uint64_t issued;          /* warp instructions issued: records, barriers and the
                               * instructions counted between them (issue_to) */
    uint64_t warps_seen;      /* warps that issued a record (the rest the trace never shows) */
    uint64_t *pc_cycles;      /* [cap_pc_cycles] warp cycles spent at each PC-table entry (the
                               * instruction a warp was about to issue); NULL unless kept */
    uint32_t cap_pc_cycles;
    uint64_t *pc_why;         /* [cap_pc_cycles * TIMING_WHYS] the same by reason (timing.h) */
    bool keep_pc_cycles;
    FILE *timeline;      /* timing_set_timeline: a line per memory record, or NULL */
    lrc *lrc;                 /* the L2 request coalescer; NULL: the config has no GPC map */
    uint8_t fetch_beside[TIMING_FETCH_MASKS]; /* a read of sectors m fetches these others when it
                               * misses them all (l2_fetch_blocks(m) & ~m) */
    arrival_slot *copies;     /* [COPY_SLOTS] with l2_fill_wait, else NULL (copy_wait) */
    arrival_slot *l1_fills;   /* [L1_FILL_SLOTS] with l1_fill_wait, else NULL (l1_fill_ready) */
    fill_slot *fills;         /* [TIMING_FILL_SLOTS] the latest fill of each slot's lines that
                               * brought sectors beside those asked for; NULL when L2 fetches
                               * only the sectors asked for (l2.fetch_sectors 1) */
    uint64_t *code_ready;     /* [sm_count * code_lines]: when each 128-byte line of the kernel's
                               * code is fetched on each SM, plus 1 (0: not yet asked for) */
    uint32_t code_lines;
    size_t cap_code;
    /* the constant lines the kernel's instructions name (const_wait): bank
     * << 16 | 64-byte line; per SM when each is fetched, plus 1; per SM the
     * banks it fetched a line of (bit b) and when its last fetch is done */
    uint32_t *clines;
    uint32_t n_clines, cap_clines;
    uint32_t *exits;          /* with pc_cycles kept: the kernel's EXIT instructions (PC indices) */
    uint32_t n_exits, cap_exits;
    uint64_t *const_ready;
    size_t cap_const;
    uint32_t *const_banks;
    uint64_t *const_busy;
    sassflow *flow;          /* the kernel's whole SASS (sassflow.h); NULL: the PC table holds
                               * only memory instructions and barriers */
    /* the SMs' write queues towards L2 (wqueue.h); each SM's drain is its
     * sm_cal_wq calendar, which its read requests book too (read_queue) */
    wqueue *wq;
    uint32_t line_shift, sector_shift; /* L1's line and sector bytes, log2 */
};

/* SM sm's calendars' indexes in smcal (and, times CAL_BINS, their bins' in cal_storage) */
static inline size_t sm_cal_issue(const timing *t, uint32_t sm, uint32_t smsp)
{
    return (size_t)sm * t->sm_cals + smsp;
}
static inline size_t sm_cal_tag(const timing *t, uint32_t sm)
{
    return (size_t)sm * t->sm_cals + t->smsps;
}
static inline size_t sm_cal_data(const timing *t, uint32_t sm)
{
    return (size_t)sm * t->sm_cals + t->smsps + 1u;
}
static inline size_t sm_cal_wq(const timing *t, uint32_t sm)
{
    return (size_t)sm * t->sm_cals + t->smsps + 2u;
}

/* x mod smsps (a warp's sub-partition: x = its CTA's first_smsp + warp). */
static inline uint32_t smsp_of(const timing *t, uint32_t x)
{
    return t->smsp_mask ? x & t->smsp_mask : x % t->smsps;
}

static uint64_t max64(uint64_t a, uint64_t b)
{
    return a > b ? a : b;
}

static uint32_t pow2_at_least(uint64_t v)
{
    uint32_t p = 1;
    while (p < v && p < (1u << 30))
        p <<= 1;
    return p;
}

timing *timing_create(const cfg_gpu *c)
{
    assert(c->timing);
    timing *t = xcalloc(1, sizeof *t);
    t->cfg = *c;
    t->smsps = c->t_smsps_per_sm;
    t->partitions = c->l2_partitions;
    t->slices_per_partition = c->l2_slices / c->l2_partitions;
    t->lookup_units = c->t_l2_slice_bytes_per_cycle / c->l2_sector_bytes;
    if (t->lookup_units == 0)
        t->lookup_units = 1;
    t->l2_in = c->t_l2_hit_cycles / 2u;
    t->l2_out = c->t_l2_hit_cycles - t->l2_in;
    t->far_in = t->l2_in + c->t_l2_far_extra_cycles / 2u;
    t->far_out = t->l2_out + (c->t_l2_far_extra_cycles - c->t_l2_far_extra_cycles / 2u);
    uint64_t extra = c->t_dram_cycles > c->t_l2_hit_cycles ? c->t_dram_cycles - c->t_l2_hit_cycles : 0;
    t->dram_in = extra / 2u;
    t->dram_out = extra - t->dram_in;
    t->sm_part = xcalloc(c->sm_count, sizeof *t->sm_part);
    for (uint32_t i = 0; i < c->sm_count; i++)
        t->sm_part[i] = (uint8_t)cfg_partition_of_sm(c, i);
    uint32_t n_sm = c->sm_count;
    uint32_t sector = c->l2_sector_bytes;
    uint32_t slice_cap = (uint32_t)(((uint64_t)c->t_l2_slice_bytes_per_cycle * c->t_l2_clock_permille * CAL_BIN) /
                                    (1000u * sector));
    uint32_t dram_cap = (uint32_t)(((uint64_t)c->t_dram_bytes_per_cycle * CAL_BIN) / sector);
    t->sm_cals = t->smsps + 3u;
    t->smsp_mask = (t->smsps & (t->smsps - 1u)) == 0 ? t->smsps - 1u : 0;
    size_t n_sm_cal = (size_t)n_sm * t->sm_cals;
    uint32_t l2w_cap = (uint32_t)(((uint64_t)c->t_l2_write_bytes_per_cycle * CAL_BIN) / sector);
    t->l2w_on = l2w_cap > 0;
    for (uint32_t i = 0; i < c->n_t_dram_load_extra_cycles; i++)
        t->load_on |= c->t_dram_load_extra_cycles[i] != 0;
    for (uint32_t m = 0; m <= 1000u; m++)
        t->load_extra[m] = timing_dram_load_extra(c, m);
    t->load_spans = (c->t_dram_cycles + (LOAD_SPAN >> 1)) >> LOAD_SPAN_SHIFT;
    if (t->load_spans == 0)
        t->load_spans = 1;
    if (t->load_spans > LOAD_RING - 1u)
        t->load_spans = LOAD_RING - 1u;
    t->dram_split = t->l2w_on || t->load_on || c->t_dram_write_cost_permille != 1000u;
    size_t bytes = n_sm_cal * cal_bin_bytes(CAL_BIN) + c->l2_slices * cal_bin_bytes(slice_cap) +
                   cal_bin_bytes(dram_cap) + (t->l2w_on ? cal_bin_bytes(l2w_cap) : 0);
    t->cal_storage = xcalloc_lines(bytes, 1, &t->cal_raw);
    t->smcal = xcalloc_lines(n_sm_cal, sizeof *t->smcal, &t->smcal_raw);
    t->slice = xcalloc_lines(c->l2_slices, sizeof *t->slice, &t->slice_raw);
    uint8_t *p = t->cal_storage; /* each calendar's bins: a multiple of 4 bytes, so words stay aligned */
    /* one instruction, tag wavefront, data wavefront or written sector
     * leaving for L2 per cycle */
    for (size_t i = 0; i < n_sm_cal; i++, p += cal_bin_bytes(CAL_BIN))
        cal_init(&t->smcal[i], p, CAL_BIN, t->unit_cycles);
    for (uint32_t i = 0; i < c->l2_slices; i++, p += cal_bin_bytes(slice_cap))
        cal_init(&t->slice[i], p, slice_cap, t->slice_cycles);
    cal_init(&t->dram, p, dram_cap, t->dram_cycles);
    /* units a span: the cap is per bin of CAL_BIN cycles */
    t->load_div = (uint64_t)t->load_spans * t->dram.cap * (LOAD_SPAN / CAL_BIN);
    p += cal_bin_bytes(dram_cap);
    if (t->l2w_on)
        cal_init(&t->l2w, p, l2w_cap, t->l2w_cycles);
    t->slices = xcalloc(c->l2_slices, sizeof *t->slices);
    t->sms = xcalloc(n_sm, sizeof *t->sms);
    t->sm_slots = xcalloc((size_t)n_sm * c->max_ctas_per_sm, sizeof *t->sm_slots);
    t->slot_end = xcalloc((size_t)n_sm * c->max_ctas_per_sm, sizeof *t->slot_end);
    /* four times what can be resident, so that a CTA still live in the replay
     * is not displaced by a later one that maps to the same entry */
    uint32_t n_warps = pow2_at_least(4ull * n_sm * (c->max_threads_per_sm / 32u));
    t->warps = xcalloc_lines(n_warps, sizeof *t->warps, &t->warps_raw);
    t->warp_life = xcalloc(n_warps, sizeof *t->warp_life);
    t->store_runs = xcalloc_lines(n_warps, sizeof *t->store_runs, &t->store_runs_raw);
    t->warp_mask = n_warps - 1u;
    uint32_t n_ctas = pow2_at_least(4ull * n_sm * c->max_ctas_per_sm);
    t->ctas = xcalloc_lines(n_ctas, sizeof *t->ctas, &t->ctas_raw);
    t->cta_mask = n_ctas - 1u;
    if (c->n_sm_gpc == n_sm)
        t->lrc = lrc_create(c->sm_gpc, n_sm, c->t_lrc_window_cycles, c->l2_gpc_partition, c->l2_n_gpc_partition,
                            c->t_lrc_far_void_cycles);
    if (c->t_l2_fill_wait)
        t->copies = xcalloc(COPY_SLOTS, sizeof *t->copies);
    if (c->t_l1_fill_wait)
        t->l1_fills = xcalloc(L1_FILL_SLOTS, sizeof *t->l1_fills);
    if (c->l2_fetch_sectors > 1u) {
        t->fills = xcalloc(TIMING_FILL_SLOTS, sizeof *t->fills);
        uint32_t spl = c->l2_line_bytes / c->l2_sector_bytes;
        for (uint32_t m = 0; m < TIMING_FETCH_MASKS; m++)
            t->fetch_beside[m] = (uint8_t)(l2_fetch_blocks(m, c->l2_fetch_sectors, spl) & ~m);
    }
    t->line_shift = (uint32_t)__builtin_ctz(c->l1_line_bytes);
    t->sector_shift = (uint32_t)__builtin_ctz(c->l1_sector_bytes);
    t->wq = wqueue_create(n_sm);
    return t;
}

void timing_destroy(timing *t)
{
    if (!t)
        return;
    sassflow_destroy(t->flow);
    free(t->cal_raw);
    free(t->smcal_raw);
    free(t->slice_raw);
    free(t->slices);
    free(t->sms);
    free(t->sm_slots);
    free(t->slot_end);
    free(t->sm_part);
    free(t->warps_raw);
    free(t->warp_life);
    free(t->store_runs_raw);
    free(t->ctas_raw);
    free(t->pcs);
    free(t->pc_next);
    free(t->pc_cycles);
    free(t->pc_why);
    free(t->code_ready);
    free(t->clines);
    free(t->exits);
    free(t->const_ready);
    free(t->const_banks);
    free(t->const_busy);
    lrc_destroy(t->lrc);
    wqueue_destroy(t->wq);
    free(t->fills);
    free(t->copies);
    free(t->l1_fills);
    free(t);
}

/* ---- SASS registers -------------------------------------------------------------- */

/* The bits of registers first .. first + n - 1 (n <= 8, first < 255) in the
 * set m: bit j is register first + j; registers past R254 are never set. */
static inline uint32_t reg_bits(const uint64_t *m, unsigned first, unsigned n)
{
    unsigned w = first >> 6, s = first & 63u;
    uint64_t v = m[w] >> s;
    if (s + n > 64u && w < 3u)
        v |= m[w + 1u] << (64u - s);
    return (uint32_t)(v & ((1u << n) - 1u));
}

void timing_parse_sass(const char *sass, bool has_dst, timing_regs *out)
{
    sass_registers(sass, has_dst, &out->dst, out->src);
}

/* ---- kernels ---------------------------------------------------------------------- */

void timing_kernel_begin(timing *t, const trace_kernel *k, const gpu_kernel_info *info)
{
    t->gen++;
    if (t->gen == 0)
        t->gen = 1; /* 0 marks empty entries; after a wrap stale entries would look live */
    t->k = k;
    t->info = *info;
    t->warps_per_cta = trace_kernel_warps_per_cta(k);
    t->bar_release = t->cfg.t_barrier_cycles + (uint64_t)t->cfg.t_barrier_cycles_per_warp * t->warps_per_cta;
    if (t->cap_pcs < k->n_pcs) {
        free(t->pcs);
        free(t->pc_next);
        t->pcs = xmalloc((size_t)k->n_pcs * sizeof *t->pcs);
        t->pc_next = xmalloc((size_t)k->n_pcs * sizeof *t->pc_next);
        t->cap_pcs = k->n_pcs;
    }
    t->pc_first = UINT32_MAX;
    if (t->keep_pc_cycles) {
        if (t->cap_pc_cycles < k->n_pcs) {
            free(t->pc_cycles);
            free(t->pc_why);
            t->pc_cycles = xmalloc((size_t)k->n_pcs * sizeof *t->pc_cycles);
            t->pc_why = xmalloc((size_t)k->n_pcs * TIMING_WHYS * sizeof *t->pc_why);
            t->cap_pc_cycles = k->n_pcs;
        }
        if (k->n_pcs)
            memset(t->pc_why, 0, (size_t)k->n_pcs * TIMING_WHYS * sizeof *t->pc_why);
        if (k->n_pcs)
            memset(t->pc_cycles, 0, (size_t)k->n_pcs * sizeof *t->pc_cycles);
    }
    sassflow_destroy(t->flow);
    t->flow = sassflow_create(k->pcs, k->n_pcs);
    t->n_exits = 0;
    /* the code's lines on each SM (code_wait) */
    t->code_lines = t->flow && t->cfg.t_code_line_cycles ? (k->n_pcs + PCS_PER_LINE - 1u) / PCS_PER_LINE : 0;
    if (t->code_lines) {
        size_t n = (size_t)t->cfg.sm_count * t->code_lines;
        if (t->cap_code < n) {
            free(t->code_ready);
            t->code_ready = xmalloc(n * sizeof *t->code_ready);
            t->cap_code = n;
        }
        memset(t->code_ready, 0, n * sizeof *t->code_ready);
    }
    for (uint32_t i = 0; i < k->n_pcs; i++) {
        t->pc_next[i] = UINT32_MAX;
        /* the opcode past any guard: "@!P0 LDS R4, [R5]" is a load too */
        const char *op = sass_opcode(k->pcs[i].sass);
        if (t->keep_pc_cycles && t->flow && op && strncmp(op, "EXIT", 4) == 0) {
            if (t->n_exits == t->cap_exits) {
                t->cap_exits = t->cap_exits ? 2u * t->cap_exits : 16u;
                t->exits = xrealloc(t->exits, t->cap_exits * sizeof *t->exits);
            }
            t->exits[t->n_exits++] = i;
        }
        /* loads and value-returning atomics write their first register operand */
        bool dst = op && (strncmp(op, "LD", 2) == 0 || strncmp(op, "ATOM", 4) == 0) &&
                   strncmp(op, "LDGSTS", 6) != 0;
        timing_regs *r = &t->pcs[i].regs;
        timing_parse_sass(op, dst, r);
        uint64_t src = r->src[0] | r->src[1] | r->src[2] | r->src[3];
        t->pcs[i].src32 = (uint32_t)(src | (src >> 32));
        pc_ctrl_kind(&t->cfg, op, &t->pcs[i]);
    }
    const_lines_begin(t, k);
    t->by_ctrl = t->cfg.t_control_words && t->flow && k->n_pcs > 0;
    for (uint32_t i = 0; t->by_ctrl && i < k->n_pcs; i++)
        t->by_ctrl = (k->pcs[i].ctrl & TRACE_CTRL_KNOWN) != 0;
    uint32_t n_sm = t->cfg.sm_count;
    for (size_t i = 0; i < (size_t)n_sm * t->sm_cals; i++)
        cal_clear(&t->smcal[i]);
    for (uint32_t i = 0; i < t->cfg.l2_slices; i++)
        cal_clear(&t->slice[i]);
    cal_clear(&t->dram);
    if (t->l2w_on)
        cal_clear(&t->l2w);
    t->dram_wb_milli = 0;
    memset(t->load_ring, 0, sizeof t->load_ring);
    t->load_top = 0;
    if (t->fills)
        for (uint32_t i = 0; i < TIMING_FILL_SLOTS; i++)
            t->fills[i].line = UINT64_MAX;
    if (t->copies)
        memset(t->copies, 0, COPY_SLOTS * sizeof *t->copies);
    if (t->l1_fills)
        memset(t->l1_fills, 0, L1_FILL_SLOTS * sizeof *t->l1_fills);
    wqueue_reset(t->wq);
    memset(t->slices, 0, t->cfg.l2_slices * sizeof *t->slices);
    memset(t->sms, 0, n_sm * sizeof *t->sms);
    memset(t->sm_slots, 0, (size_t)n_sm * t->cfg.max_ctas_per_sm * sizeof *t->sm_slots);
    memset(t->slot_end, 0, (size_t)n_sm * t->cfg.max_ctas_per_sm * sizeof *t->slot_end);
    t->end = 0;
    t->next_dispatch_mcycles = 0;
    t->fill_mcycles = t->cfg.t_cta_fill_mcycles_per_warp ? (uint64_t)t->cfg.t_cta_fill_mcycles_per_warp * t->warps_per_cta
                                                         : t->cfg.t_cta_launch_mcycles;
    /* first_wave_by_sm: an SM's first wave is the grid's share of an SM, at
     * most its slots */
    uint64_t grid = (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
    uint64_t share = (grid + n_sm - 1u) / n_sm, slots = info->ctas_per_sm < t->cfg.max_ctas_per_sm
                                                          ? info->ctas_per_sm : t->cfg.max_ctas_per_sm;
    t->sm_wave_mcycles = (share < slots ? share : slots) * t->fill_mcycles;
    t->lrc_in = 0;
    t->life_done = 0;
    t->issued = 0;
    t->warps_seen = 0;
    if (t->lrc)
        lrc_reset(t->lrc);
}

void timing_set_timeline(timing *t, FILE *f)
{
    t->timeline = f;
    if (f)
        fputs(TIMING_TIMELINE_HEADER "\n", f);
}

const char *timing_why_name(unsigned why)
{
    static const char *const names[TIMING_WHYS] = {
        [TIMING_WHY_SELECTED] = "selected", [TIMING_WHY_NOT_SELECTED] = "not_selected",
        [TIMING_WHY_WAIT] = "wait",         [TIMING_WHY_LONG_SB] = "long_sb",
        [TIMING_WHY_SHORT_SB] = "short_sb", [TIMING_WHY_BARRIER] = "barrier",
        [TIMING_WHY_NO_INST] = "no_inst",   [TIMING_WHY_BRANCH] = "branch_resolving",
        [TIMING_WHY_IMC] = "imc",           [TIMING_WHY_DRAIN] = "drain",
    };
    return why < TIMING_WHYS ? names[why] : NULL;
}

void timing_keep_pc_cycles(timing *t, bool on)
{
    t->keep_pc_cycles = on;
}

static uint64_t warp_life_final(timing *t, size_t wi);

void timing_kernel_end(timing *t, timing_result *out)
{
    /* the GPU starts every CTA of the grid, also those that executed no
     * memory instruction (the trace does not show them): the first wave at
     * fill_mcycles each, the rest at cta_launch_millicycles */
    uint64_t ctas = trace_kernel_ctas(t->k);
    uint32_t slots = t->info.ctas_per_sm < t->cfg.max_ctas_per_sm ? t->info.ctas_per_sm : t->cfg.max_ctas_per_sm;
    uint64_t first = (uint64_t)t->cfg.sm_count * slots;
    first = first < ctas ? first : ctas;
    uint64_t dispatch_m = first * t->fill_mcycles + (ctas - first) * t->cfg.t_cta_launch_mcycles;
    out->lrc_input_sectors = t->lrc_in;
    /* every warp of the grid ends with its EXIT, after its last record:
     * counted, not booked (one issue slot at its very end); a warp without
     * a record ran, with the whole SASS known, what lies between the
     * kernel's entry and its nearest EXIT (the empty kernel's LDC) */
    uint64_t warps = ctas * trace_kernel_warps_per_cta(t->k);
    out->instructions = t->issued + warps;
    if (t->flow && warps > t->warps_seen) {
        uint32_t before_exit = sassflow_entry_to_exit(t->flow);
        if (before_exit != UINT32_MAX)
            out->instructions += (warps - t->warps_seen) * before_exit;
    }
    out->warp_cycles = t->life_done;
    for (uint32_t i = 0; i <= t->warp_mask; i++)
        if (t->warps[i].gen == t->gen)
            out->warp_cycles += warp_life_final(t, i);
    uint64_t active = 0; /* after warp_life_final: a barrier's release may end an SM's last warp */
    uint64_t last_end = 0;
    for (uint32_t i = 0; i < t->cfg.sm_count; i++) {
        if (t->sms[i].last_end > t->sms[i].first_start)
            active += t->sms[i].last_end - t->sms[i].first_start;
        last_end = max64(last_end, t->sms[i].last_end);
    }
    /* the kernel is done when its last warp is: after its last issue, and
     * after its stores have left the SM and been accepted (what its EXIT
     * waits for, ncu's drain; findings §24: 16 and 32 warps storing at once
     * keep one SM busy 220 and 137 thousand cycles sending them) */
    uint64_t busy = max64(max64(t->end, last_end), (dispatch_m + 999u) / 1000u);
    out->cycles = t->cfg.t_launch_cycles + busy;
    out->sm_cycles_active = (active + t->cfg.sm_count / 2u) / t->cfg.sm_count;
    uint32_t warps_per_sm = t->cfg.max_threads_per_sm / 32u;
    out->warps_active_pct = active ? 100.0 * (double)out->warp_cycles / ((double)active * warps_per_sm) : 0.0;
    out->lrc = t->lrc ? lrc_get_counts(t->lrc) : (lrc_counts){0};
    out->wq = wqueue_get_counts(t->wq);
    out->pc_cycles = t->keep_pc_cycles ? t->pc_cycles : NULL;
    out->n_pc_cycles = t->keep_pc_cycles ? t->k->n_pcs : 0;
    out->pc_why = t->keep_pc_cycles ? t->pc_why : NULL;
    t->k = NULL;
}

/* ---- CTAs and warps -------------------------------------------------------------- */

static uint32_t sm_of(const timing *t, uint32_t cta, int32_t sm)
{
    if (t->info.trace_sms && sm >= 0 && (uint32_t)sm < t->cfg.sm_count)
        return (uint32_t)sm;
    return cta % t->cfg.sm_count;
}

/* The CTA's entry; a CTA seen for the first time takes the slot of its SM
 * whose occupant ended earliest, and starts when that one ended and the SM
 * can start another CTA. */
static __attribute__((noinline)) cta_state *cta_start(timing *t, cta_state *c, uint32_t cta, uint32_t sm);

static inline cta_state *cta_get(timing *t, uint32_t cta, uint32_t sm)
{
    cta_state *c = &t->ctas[cta & t->cta_mask];
    if (c->gen == t->gen && c->cta == cta)
        return c;
    return cta_start(t, c, cta, sm);
}

/* first_wave_by_sm (findings §20: an SM's first-wave CTAs start within 32 ns
 * of each other): a CTA for a slot of SM sm never held in this kernel
 * (best_end 0) after another such starts with the SM's first one. */
static inline bool joins_sm_wave(const timing *t, uint32_t sm, uint64_t best_end)
{
    return t->cfg.t_first_wave_by_sm && best_end == 0 && t->sms[sm].ctas_started > 0;
}

/* SM sm's slot whose occupant ended earliest (0 for a slot never taken in
 * this kernel), and that end in *end: where and from when its next CTA can
 * start (cta_start; timing_next_issue asks the same without starting one). */
static uint32_t earliest_slot(const timing *t, uint32_t sm, uint64_t *end)
{
    uint32_t slots = t->info.ctas_per_sm < t->cfg.max_ctas_per_sm ? t->info.ctas_per_sm : t->cfg.max_ctas_per_sm;
    const uint64_t *ends = &t->slot_end[(size_t)sm * t->cfg.max_ctas_per_sm];
    uint32_t best = 0;
    uint64_t best_end = UINT64_MAX;
    for (uint32_t i = 0; i < slots; i++) {
        if (ends[i] < best_end) {
            best_end = ends[i];
            best = i;
        }
    }
    *end = best_end;
    return best;
}

/* A CTA seen for the first time (cta_get), in its entry c. */
static cta_state *cta_start(timing *t, cta_state *c, uint32_t cta, uint32_t sm)
{
    uint32_t idx = (uint32_t)(c - t->ctas);
    size_t base = (size_t)sm * t->cfg.max_ctas_per_sm;
    uint64_t best_end;
    uint32_t best = earliest_slot(t, sm, &best_end);
    /* one dispatcher for the GPU: a CTA per cta_launch_millicycles, or, for
     * a CTA of the first wave (its slot never held in this kernel), its warps
     * x cta_fill_millicycles_per_warp (findings §16: the first wave starts in
     * a time that grows with its warps, not its CTAs) */
    /* kept exact: folding the rounded-up start back in added up to a cycle per
     * CTA (1,277 became 2,000 millicycles when CTAs came faster than slots) */
    uint64_t at_m = max64(t->next_dispatch_mcycles, best_end * 1000u);
    uint64_t start = (at_m + 999u) / 1000u;
    if (joins_sm_wave(t, sm, best_end))
        start = t->sms[sm].first_start; /* dispatched with the SM's first, which paid for it */
    else if (best_end != 0)
        t->next_dispatch_mcycles = at_m + t->cfg.t_cta_launch_mcycles;
    else
        t->next_dispatch_mcycles = at_m + (t->cfg.t_first_wave_by_sm ? t->sm_wave_mcycles : t->fill_mcycles);
    t->sm_slots[base + best] = idx + 1u;
    t->slot_end[base + best] = start;
    memset(c, 0, sizeof *c);
    c->gen = t->gen;
    c->cta = cta;
    c->sm = (uint16_t)sm;
    c->slot = (uint32_t)(base + best);
    c->start = c->end = start;
    /* Which sub-partition its warp 0 issues on, as measured (findings §11,
     * kernels/warpslot.cu): the SM hands out sub-partitions round robin, the
     * n-th CTA's warp w on (n x warps + w) mod smsps, and one further for
     * each CTA when its warps are a multiple of smsps (so that warp 0 of
     * every CTA is not on the same one) */
    if (t->sms[sm].ctas_started == 0 || start < t->sms[sm].first_start)
        t->sms[sm].first_start = start;
    uint32_t n = t->sms[sm].ctas_started++, wpc = t->warps_per_cta;
    c->first_smsp = (uint8_t)(((uint64_t)n * wpc + (wpc % t->smsps == 0 ? n : 0)) % t->smsps);
    return c;
}

/* When warp (cta, warp) would issue its next record, as far as the model
 * knows now (a replay in time order asks, replay.c): a warp it has seen
 * issues at its clock; a warp of a CTA that has started, at the CTA's start;
 * a warp of a CTA not yet started, when its SM's earliest slot frees and
 * the dispatcher is free (cta_start's time, booking nothing). */
uint64_t timing_next_issue(const timing *t, uint32_t cta, uint32_t warp, int32_t sm_hint)
{
    const warp_state *w = &t->warps[(uint32_t)((uint64_t)cta * t->warps_per_cta + warp) & t->warp_mask];
    if (w->gen == t->gen && w->cta == cta && w->warp == warp)
        return w->clock;
    const cta_state *c = &t->ctas[cta & t->cta_mask];
    if (c->gen == t->gen && c->cta == cta)
        return c->start;
    uint64_t best_end;
    uint32_t sm = sm_of(t, cta, sm_hint);
    (void)earliest_slot(t, sm, &best_end);
    if (joins_sm_wave(t, sm, best_end)) /* as cta_start */
        return t->sms[sm].first_start;
    uint64_t at_m = max64(t->next_dispatch_mcycles, best_end * 1000u);
    return (at_m + 999u) / 1000u;
}

/* The CTA ran until at least v: its end, and its slot's while it holds the slot. */
static void cta_ran_until(timing *t, cta_state *c, uint64_t v)
{
    if (v <= c->end)
        return;
    c->end = v;
    if (t->sm_slots[c->slot] == (uint32_t)(c - t->ctas) + 1u)
        t->slot_end[c->slot] = v;
}

/* Warp w of CTA c on SM sm is resident at least until `end`: the last of its
 * instructions issued and what it waits for at its EXIT (a load's data, a
 * store's or reduction's acceptance by L2: ncu's `drain`). A warp is active
 * (sm__warps_active) from its CTA's start to its end, an SM
 * (sm__cycles_active) from its first CTA's start to its last warp's end. */
static inline void warp_ended(timing *t, const warp_state *w, const cta_state *c, uint32_t sm, uint64_t end)
{
    uint32_t *life = &t->warp_life[w - t->warps];
    uint64_t l = end - c->start;
    if (l > *life)
        *life = l < UINT32_MAX ? (uint32_t)l : UINT32_MAX;
    if (end > t->sms[sm].last_end)
        t->sms[sm].last_end = end;
}

static void charge_drain(timing *t, const warp_state *w, uint64_t end);

/* Warp entry wi's lifetime, once the warp has no more records: a warp that
 * arrived at a barrier after its last record waits there until the barrier
 * lets its CTA go, and exits then (reduce's warps that the last steps leave
 * idle). Its CTA's entry must still be its own (else its arrival time). */
static uint64_t warp_life_final(timing *t, size_t wi)
{
    const warp_state *w = &t->warps[wi];
    uint64_t life = t->warp_life[wi];
    const cta_state *c = &t->ctas[w->cta & t->cta_mask];
    if (t->n_exits && !w->bar_wait && c->gen == t->gen && c->cta == w->cta)
        charge_drain(t, w, c->start + life);
    if (w->bar_wait && c->gen == t->gen && c->cta == w->cta) {
        uint32_t s = (w->bar_gen - 1u) & 1u;
        if (c->bar_id[s] == w->bar_gen - 1u) {
            uint64_t released = c->bar_max[s] + t->bar_release + 1u;
            uint64_t l = released - c->start;
            if (l > life) {
                life = l;
                if (released > t->sms[c->sm].last_end)
                    t->sms[c->sm].last_end = released;
            }
        }
    }
    return life;
}

static __attribute__((noinline)) warp_state *warp_start(timing *t, warp_state *w, uint32_t cta, uint32_t warp,
                                                        const cta_state *c);

static inline warp_state *warp_get(timing *t, uint32_t cta, uint32_t warp, cta_state **cp, uint32_t sm)
{
    cta_state *c = cta_get(t, cta, sm);
    *cp = c;
    uint32_t idx = (uint32_t)((uint64_t)cta * t->warps_per_cta + warp) & t->warp_mask;
    warp_state *w = &t->warps[idx];
    if (w->gen == t->gen && w->cta == cta && w->warp == warp)
        return w;
    return warp_start(t, w, cta, warp, c);
}

/* A warp seen for the first time in this kernel (warp_get), in its entry w. */
static warp_state *warp_start(timing *t, warp_state *w, uint32_t cta, uint32_t warp, const cta_state *c)
{
    size_t wi = (size_t)(w - t->warps);
    if (w->gen == t->gen) /* the entry's former warp, of this kernel: over */
        t->life_done += warp_life_final(t, wi);
    t->warp_life[wi] = 0;
    /* the first line only: no load is pending, so pend_ready is not read */
    memset(w, 0, offsetof(warp_state, pend_ready));
    w->gen = t->gen;
    w->cta = cta;
    w->warp = warp;
    w->clock = c->start;
    w->pc_idx = UINT32_MAX;
    w->smsp = (uint8_t)smsp_of(t, c->first_smsp + warp);
    if (t->cfg.t_alu_latency_cycles) /* a former warp's results, in another kernel's time */
        memset(w->alu_ready, 0, sizeof w->alu_ready);
    if (t->by_ctrl)
        memset(&w->sb, 0, sizeof w->sb);
    return w;
}

/* The PC table index of pc: usually the entry after the warp's last one, or
 * for a warp's first record where the latest warp started (the PCs are
 * ascending without duplicates: an entry whose pc matches is pc's). */
static inline uint32_t pc_index(timing *t, const warp_state *w, uint32_t pc)
{
    const trace_kernel *k = t->k;
    uint32_t i = w->pc_idx;
    if (i != UINT32_MAX) {
        if (i + 1u < k->n_pcs && k->pcs[i + 1u].pc == pc)
            return i + 1u;
        uint32_t j = t->pc_next[i]; /* a loop's back edge: where the last warp went from i */
        if (j != UINT32_MAX && k->pcs[j].pc == pc)
            return j;
    } else {
        uint32_t j = t->pc_first; /* in a kernel's thousands of warps, each one's first
                                   * record was a binary search (13.7 instructions a
                                   * record of 1M coalesced ones) */
        if (j != UINT32_MAX && k->pcs[j].pc == pc)
            return j;
    }
    const trace_pc_info *p = trace_kernel_find_pc(k, pc);
    uint32_t r = p ? (uint32_t)(p - k->pcs) : UINT32_MAX;
    if (i != UINT32_MAX)
        t->pc_next[i] = r;
    else
        t->pc_first = r;
    return r;
}

static void wait_all(warp_state *w, uint64_t *at)
{
    for (uint32_t i = 0; i < w->n_pend; i++)
        *at = max64(*at, w->pend_ready[i]);
    w->n_pend = 0;
    w->pend_regs = 0;
}

/* Registers first .. first + n - 1 folded mod 32 (bit r mod 32 for each). */
static inline uint32_t regs32(unsigned first, unsigned n)
{
    uint32_t m = n >= 32u ? UINT32_MAX : (1u << n) - 1u;
    unsigned s = first & 31u;
    return (m << s) | (m >> ((32u - s) & 31u));
}

/* Wait for the loads whose registers p reads or rewrites (dst .. dst +
 * dst_n - 1, folded: dst32); drop them. Returns whether some pending load
 * wrote a register p reads. */
static inline __attribute__((always_inline)) bool wait_regs(warp_state *w, const pc_regs *p, uint8_t dst, uint8_t dst_n,
                                                          uint32_t dst32, uint64_t *at)
{
    /* no pending load's register among them, folded: none is waited for */
    uint32_t touched = p->src32 | dst32;
    if (!(w->pend_regs & touched))
        return false;
    const timing_regs *r = &p->regs;
    bool any = false;
    uint32_t keep = 0, kept_regs = 0;
    for (uint32_t i = 0; i < w->n_pend; i++) {
        unsigned first = w->pend_first[i], n = w->pend_n[i];
        bool hit = reg_bits(r->src, first, n) != 0;
        any |= hit;
        /* writing a register a load is still filling means its value was used */
        if (!hit && dst != TIMING_NO_REG)
            hit = first < (unsigned)dst + dst_n && dst < first + n;
        if (hit) {
            *at = max64(*at, w->pend_ready[i]);
        } else {
            if (keep != i) { /* a load before it was dropped: move it down */
                w->pend_first[keep] = (uint8_t)first;
                w->pend_n[keep] = (uint8_t)n;
                w->pend_ready[keep] = w->pend_ready[i];
            }
            keep++;
            kept_regs |= regs32(first, n);
        }
    }
    w->n_pend = (uint8_t)keep;
    w->pend_regs = kept_regs;
    return any;
}

/* A load filling registers dst .. dst + n - 1 (folded: dst32) at ready. */
static void add_pending(warp_state *w, uint8_t dst, uint8_t n, uint32_t dst32, uint64_t ready, uint64_t *clock)
{
    if (dst == TIMING_NO_REG)
        return;
    if (w->n_pend == MAX_PENDING) { /* out of scoreboards: wait for the oldest */
        *clock = max64(*clock, w->pend_ready[0]);
        memmove(w->pend_first, w->pend_first + 1, MAX_PENDING - 1u);
        memmove(w->pend_n, w->pend_n + 1, MAX_PENDING - 1u);
        memmove(w->pend_ready, w->pend_ready + 1, (MAX_PENDING - 1u) * sizeof *w->pend_ready);
        w->n_pend--;
    }
    w->pend_first[w->n_pend] = dst;
    w->pend_n[w->n_pend] = n;
    w->pend_ready[w->n_pend++] = ready;
    w->pend_regs |= dst32; /* the oldest's, when dropped above: still a superset */
}

/* Wait for the loads in flight that path instruction p reads (the SASS's
 * registers, sassflow.h); drop them. */
static inline void wait_path_loads(const timing *t, warp_state *w, uint32_t p, uint64_t *at)
{
    pc_regs reads = {.regs = {.dst = TIMING_NO_REG}, .src32 = sassflow_reads32(t->flow, p)};
    memcpy(reads.regs.src, sassflow_reads(t->flow, p), sizeof reads.regs.src);
    wait_regs(w, &reads, TIMING_NO_REG, 0, 0, at);
}

/* Wait for the warp's arithmetic results that reads (bit r: register Rr)
 * needs (alu_latency_cycles). */
static inline void alu_wait(const warp_state *w, const uint64_t reads[4], uint64_t *at)
{
    for (uint32_t k = 0; k < ALU_SLOTS; k++) {
        if (w->alu_ready[k] <= *at)
            continue;
        unsigned r = w->alu_first[k];
        bool hit = (reads[r >> 6] >> (r & 63u)) & 1u;
        if (!hit && ((w->alu_wide >> k) & 1u) && r + 1u < 256u)
            hit = (reads[(r + 1u) >> 6] >> ((r + 1u) & 63u)) & 1u;
        if (hit)
            *at = w->alu_ready[k];
    }
}

/* The warp's arithmetic instruction issued at cycle at wrote registers
 * first (.. first + 1 when count is 2). */
static inline void alu_wrote(warp_state *w, uint8_t first, uint8_t count, uint64_t ready)
{
    uint32_t k = w->alu_next++ & (ALU_SLOTS - 1u);
    w->alu_first[k] = first;
    w->alu_wide = (uint8_t)((w->alu_wide & ~(1u << k)) | ((count > 1u ? 1u : 0u) << k));
    w->alu_ready[k] = ready;
}

/* ---- code fetch (findings §23) ----------------------------------------------- */

/* A measured curve at x: y[i] at x[i] (n points, x ascending), linear
 * between them (rounded down), y[0] below the first, y[n-1] beyond the last;
 * 0 without points. DRAM's latency under load and a cold jump's cost. */
static uint32_t curve_at(const uint32_t *x, const uint32_t *y, uint32_t n, uint32_t at)
{
    if (n == 0)
        return 0;
    if (at <= x[0])
        return y[0];
    for (uint32_t i = 1; i < n; i++)
        if (at < x[i]) {
            int64_t dy = (int64_t)y[i] - (int64_t)y[i - 1];
            return (uint32_t)((int64_t)y[i - 1] + dy * (int64_t)(at - x[i - 1]) / (int64_t)(x[i] - x[i - 1]));
        }
    return y[n - 1];
}

/* How long after a warp asks for a line of code not fetched on its SM, gap
 * lines past the line it ran last, the line arrives (code_jump_lines and
 * code_jump_cycles). */
static uint64_t code_jump(const cfg_gpu *c, uint32_t gap)
{
    return curve_at(c->t_code_jump_lines, c->t_code_jump_cycles, c->n_t_code_jump_lines, gap);
}

/* Line `line` of the kernel's code on an SM (code: its row of code_ready),
 * asked for at `at` by a warp whose last instruction was prev (UINT32_MAX:
 * none yet): when it is there. A line is fetched once per SM: the first
 * warp to ask books it, a later one finds it. Its arrival: at once for the
 * kernel's entry (the launch fetched it: launch_cycles); code_line_cycles
 * after the line before it when that one was fetched (the fetch streams
 * ahead); else a jump, code_jump_cycles after the ask. Warps are replayed
 * out of time order, so a warp that asks before the time a line was booked
 * for fetches it at its own time (the earlier of the two). */
static __attribute__((noinline)) uint64_t code_fetch(const timing *t, uint64_t *code, uint32_t prev, uint32_t line,
                                                     uint64_t at)
{
    uint64_t ready;
    if (prev == UINT32_MAX && line == 0)
        ready = at;
    else if (line > 0 && code[line - 1])
        ready = code[line - 1] - 1u + t->cfg.t_code_line_cycles;
    else {
        uint32_t from = prev == UINT32_MAX ? 0 : prev / PCS_PER_LINE;
        uint32_t gap = line > from ? line - from - 1u : from - line - 1u;
        ready = at + code_jump(&t->cfg, gap);
    }
    if (code[line] && code[line] - 1u < ready)
        ready = code[line] - 1u;
    code[line] = ready + 1u;
    return ready > at ? ready : at;
}

/* Where a warp's cycles go (timing_keep_pc_cycles): the cycles from *mark
 * to `to` to instruction p (an index of the PC table), for reason why
 * (TIMING_WHY_*), and *mark moves to `to`. Nothing when not kept. */
static inline void charge(timing *t, uint32_t p, unsigned why, uint64_t *mark, uint64_t to)
{
    if (!t->pc_cycles || to <= *mark || p == UINT32_MAX)
        return;
    t->pc_cycles[p] += to - *mark;
    t->pc_why[(size_t)p * TIMING_WHYS + why] += to - *mark;
    *mark = to;
}

static uint64_t const_wait(timing *t, uint32_t sm, uint32_t p, uint64_t at);

/* With pc_cycles kept: a warp that ended at `end` after its last issue
 * waited that long at its EXIT for its last loads and stores (drain): charged
 * where ncu samples it, the instruction after the EXIT nearest its last
 * record on the kernel's control flow (a warp past its EXIT points at the
 * next PC: vecAdd_float4's drain samples are at the BRA after its EXIT). */
static void charge_drain(timing *t, const warp_state *w, uint64_t end)
{
    if (!t->pc_cycles || !w->started || end <= w->clock)
        return;
    uint32_t best = UINT32_MAX, best_n = UINT32_MAX;
    for (uint32_t i = 0; i < t->n_exits; i++) {
        uint32_t n;
        const uint32_t *path;
        if (sassflow_between(t->flow, w->last_pc, t->exits[i] * PC_BYTES, &n, &path) && n < best_n) {
            best_n = n;
            best = t->exits[i];
        }
    }
    if (best != UINT32_MAX && best + 1u < t->k->n_pcs)
        best++;
    uint64_t mark = w->clock;
    charge(t, best, TIMING_WHY_DRAIN, &mark, end);
}

/* A warp that ran instruction prev (an index of the whole SASS; UINT32_MAX:
 * none yet) is about to issue p at `at`: after a taken branch (p not the
 * next) branch_taken_cycles later; not before p's line of code is on its
 * SM (code: the SM's row of code_ready; NULL: code costs nothing); nor
 * before the constant line p names is (const_wait). mark: charge() the
 * waits to p (NULL: not kept). */
static inline uint64_t fetch_wait(timing *t, uint64_t *code, uint32_t sm, uint32_t prev, uint32_t p, uint64_t at,
                                  uint64_t *mark)
{
    if (prev != UINT32_MAX && p != prev + 1u) {
        at += t->cfg.t_branch_taken_cycles;
        if (mark)
            charge(t, p, TIMING_WHY_BRANCH, mark, at);
    }
    if (code && (prev == UINT32_MAX || p / PCS_PER_LINE != prev / PCS_PER_LINE)) {
        at = code_fetch(t, code, prev, p / PCS_PER_LINE, at);
        if (mark)
            charge(t, p, TIMING_WHY_NO_INST, mark, at);
    }
    if (t->n_clines) {
        at = const_wait(t, sm, p, at);
        if (mark)
            charge(t, p, TIMING_WHY_IMC, mark, at);
    }
    return at;
}

/* ---- constant banks (findings §23) -------------------------------------------- */

#define CONST_LINE_BYTES 64u /* [MEAS] kernels/icache.cu const: reads 32 bytes apart share a miss, 64 do not */

/* The kernel's constant lines (pc_regs.cline) and, with const_line_cycles,
 * every SM's record of them, empty. */
static void const_lines_begin(timing *t, const trace_kernel *k)
{
    t->n_clines = 0;
    bool on = t->cfg.t_const_line_cycles && t->flow;
    for (uint32_t i = 0; i < k->n_pcs; i++) {
        uint32_t bank, offset;
        t->pcs[i].cline = 0;
        if (!on || !sass_const_operand(k->pcs[i].sass, &bank, &offset))
            continue;
        uint32_t key = bank << 16 | (offset / CONST_LINE_BYTES & 0xffffu), j = 0;
        while (j < t->n_clines && t->clines[j] != key)
            j++;
        if (j == t->n_clines) {
            if (j == UINT16_MAX)
                continue; /* more lines than a kernel has: the rest cost nothing */
            if (t->n_clines == t->cap_clines) {
                t->cap_clines = t->cap_clines ? 2u * t->cap_clines : 64u;
                t->clines = xrealloc(t->clines, t->cap_clines * sizeof *t->clines);
            }
            t->clines[t->n_clines++] = key;
        }
        t->pcs[i].cline = (uint16_t)(j + 1u);
    }
    if (!t->n_clines)
        return;
    size_t n = (size_t)t->cfg.sm_count * t->n_clines;
    if (t->cap_const < n) {
        free(t->const_ready);
        t->const_ready = xmalloc(n * sizeof *t->const_ready);
        t->cap_const = n;
    }
    memset(t->const_ready, 0, n * sizeof *t->const_ready);
    if (!t->const_banks) {
        t->const_banks = xcalloc(t->cfg.sm_count, sizeof *t->const_banks);
        t->const_busy = xcalloc(t->cfg.sm_count, sizeof *t->const_busy);
    }
    memset(t->const_banks, 0, t->cfg.sm_count * sizeof *t->const_banks);
    memset(t->const_busy, 0, t->cfg.sm_count * sizeof *t->const_busy);
}

/* Instruction p (an index of the whole SASS) of a warp on SM sm, about to
 * issue at `at`: not before the constant line it names is on the SM. The
 * first warp to ask fetches it, behind the SM's fetches before it (one at a
 * time: kernels/icache.cu params, N lines read at a kernel's start cost N
 * times as much); the launch brought bank 0's first line (the empty
 * kernel's LDC R1, c[0x0][0x28] is in launch_cycles). */
static uint64_t const_wait(timing *t, uint32_t sm, uint32_t p, uint64_t at)
{
    uint32_t ci = t->pcs[p].cline;
    if (!ci)
        return at;
    uint64_t *r = &t->const_ready[(size_t)sm * t->n_clines + ci - 1u];
    if (*r)
        return at > *r - 1u ? at : *r - 1u;
    uint32_t key = t->clines[ci - 1u], bank = key >> 16;
    uint64_t ready = at;
    if (key != 0) {
        bool first = bank != 0 && bank < 32 && !(t->const_banks[sm] & (1u << bank));
        if (bank < 32)
            t->const_banks[sm] |= 1u << bank;
        ready = max64(at, t->const_busy[sm]) + (first ? t->cfg.t_const_bank_cycles : t->cfg.t_const_line_cycles);
        t->const_busy[sm] = ready;
    }
    *r = ready + 1u;
    return ready;
}

/* Issue the instructions on a flowed path one by one (alu_latency_cycles):
 * each waits for the loads and the arithmetic results it reads, and the
 * warp's deferred barrier before the first that blocks (bar_i); returns
 * the cycle after the last. mark: where the charges stand (NULL: not kept).
 * A pending load here may be a shared one too (this path does not keep which):
 * its wait is charged as long_sb. */
static uint64_t issue_path_alu(timing *t, warp_state *w, cal *iss, uint64_t at, const uint32_t *path, uint32_t n,
                               uint32_t bar_i, uint64_t release, uint64_t *mark, uint64_t *code, uint32_t sm,
                               uint32_t *prev)
{
    uint32_t lat = t->cfg.t_alu_latency_cycles;
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = path[i];
        if (i == bar_i) {
            at = max64(at, release);
            if (mark)
                charge(t, p, TIMING_WHY_BARRIER, mark, at);
        }
        at = fetch_wait(t, code, sm, *prev, p, at, mark);
        *prev = p;
        if (sassflow_reads32(t->flow, p) & w->pend_regs) {
            wait_path_loads(t, w, p, &at);
            if (mark)
                charge(t, p, TIMING_WHY_LONG_SB, mark, at);
        }
        alu_wait(w, sassflow_reads(t->flow, p), &at);
        uint64_t issued = cal1_book(iss, at, 1) - 1u;
        if (mark) {
            charge(t, p, TIMING_WHY_WAIT, mark, at);
            charge(t, p, TIMING_WHY_NOT_SELECTED, mark, issued);
            charge(t, p, TIMING_WHY_SELECTED, mark, issued + 1u);
        }
        at = issued + 1u;
        uint8_t count, first = sassflow_writes(t->flow, p, &count);
        if (first != 255u)
            alu_wrote(w, first, count, issued + lat);
    }
    return at;
}

/* control_words: wait for the warp's last instruction's stall count and for
 * the scoreboards of ctrl's wait mask; mark: charge() the waits to
 * instruction p (NULL: not kept), the stall as wait, a scoreboard as
 * long_sb or short_sb by what set it (w->sb_long). */
static inline void ctrl_wait(timing *t, const warp_state *w, uint32_t ctrl, uint64_t *at, uint32_t p, uint64_t *mark)
{
    *at = max64(*at, w->sb.next_issue);
    if (!mark) {
        for (unsigned m = trace_ctrl_wait(ctrl), k = 0; m; m >>= 1, k++)
            if (m & 1u)
                *at = max64(*at, w->sb.ready[k]);
        return;
    }
    charge(t, p, TIMING_WHY_WAIT, mark, *at);
    uint64_t lng = 0, shrt = 0;
    for (unsigned m = trace_ctrl_wait(ctrl), k = 0; m; m >>= 1, k++)
        if (m & 1u) {
            if (w->sb_long & (1u << k))
                lng = max64(lng, w->sb.ready[k]);
            else
                shrt = max64(shrt, w->sb.ready[k]);
        }
    /* the one that is ready first is waited for first */
    bool long_last = lng >= shrt;
    *at = max64(*at, long_last ? shrt : lng);
    charge(t, p, long_last ? TIMING_WHY_SHORT_SB : TIMING_WHY_LONG_SB, mark, *at);
    *at = max64(*at, long_last ? lng : shrt);
    charge(t, p, long_last ? TIMING_WHY_LONG_SB : TIMING_WHY_SHORT_SB, mark, *at);
}

/* control_words: the instruction of ctrl issued at cycle issued, done (its
 * result written) at done: the warp's next one no earlier than its stall
 * count after it; its write scoreboard released at done (long: what it
 * waits for is global memory, the long scoreboard), its read scoreboard
 * (its operands read) 2 cycles after issue. */
static inline void ctrl_issued(warp_state *w, uint32_t ctrl, uint64_t issued, uint64_t done, bool lng)
{
    unsigned stall = trace_ctrl_stall(ctrl), wb = trace_ctrl_wbar(ctrl), rb = trace_ctrl_rbar(ctrl);
    w->sb.next_issue = issued + (stall ? stall : 1u);
    if (wb < SCOREBOARDS) {
        if (done >= w->sb.ready[wb]) /* the later setter says which kind the wait is */
            w->sb_long = (uint8_t)(lng ? w->sb_long | (1u << wb) : w->sb_long & ~(1u << wb));
        w->sb.ready[wb] = max64(w->sb.ready[wb], done);
    }
    if (rb < SCOREBOARDS)
        w->sb.ready[rb] = max64(w->sb.ready[rb], issued + 2u);
}

/* What a path instruction's control word does beyond its bits (pc_regs'
 * ctrl_ fields), from its opcode op (past any guard; NULL: none): what sets
 * a scoreboard on a path is not a traced access, so LDGDEPBAR (a cp.async
 * group) is done when the warp's copies are, S2R and S2UR
 * s2r_latency_cycles after issue, LDC ldc_latency_cycles, the others
 * l1_hit_latency_cycles (an assumption: not measured); DEPBAR.LE SBk waits
 * for scoreboard k. */
static void pc_ctrl_kind(const cfg_gpu *c, const char *op, pc_regs *pr)
{
    pr->ctrl_group = op && strncmp(op, "LDGDEPBAR", 9) == 0;
    pr->ctrl_depbar = 0;
    if (op && !pr->ctrl_group && strncmp(op, "DEPBAR.LE SB", 12) == 0 && op[12] >= '0' &&
        op[12] < '0' + (int)SCOREBOARDS)
        pr->ctrl_depbar = (uint8_t)(op[12] - '0' + 1);
    pr->ctrl_lat = c->t_l1_hit_cycles;
    if (op && (strncmp(op, "S2R", 3) == 0 || strncmp(op, "S2UR", 4) == 0) && c->t_s2r_cycles)
        pr->ctrl_lat = c->t_s2r_cycles;
    else if (op && strncmp(op, "LDC", 3) == 0 && c->t_ldc_cycles)
        pr->ctrl_lat = c->t_ldc_cycles;
}

/* Issue the instructions on a flowed path one by one by their control
 * words (control_words), each as pc_ctrl_kind says; returns the cycle after
 * the last. mark: where the charges stand (NULL: not kept). */
static uint64_t issue_path_ctrl(timing *t, warp_state *w, cal *iss, uint64_t at, const uint32_t *path, uint32_t n,
                                uint32_t bar_i, uint64_t release, uint64_t *mark, uint64_t *code, uint32_t sm,
                                uint32_t *prev)
{
    for (uint32_t i = 0; i < n; i++) {
        uint32_t p = path[i];
        if (mark) /* a DEPBAR's wait, which ncu samples at the next instruction */
            charge(t, p, TIMING_WHY_LONG_SB, mark, at);
        if (i == bar_i) {
            at = max64(at, release);
            if (mark)
                charge(t, p, TIMING_WHY_BARRIER, mark, at);
        }
        at = fetch_wait(t, code, sm, *prev, p, at, mark);
        *prev = p;
        const trace_pc_info *pi = &t->k->pcs[p];
        const pc_regs *pr = &t->pcs[p];
        ctrl_wait(t, w, pi->ctrl, &at, p, mark);
        uint64_t issued = cal1_book(iss, at, 1) - 1u;
        if (mark) {
            charge(t, p, TIMING_WHY_NOT_SELECTED, mark, issued);
            charge(t, p, TIMING_WHY_SELECTED, mark, issued + 1u);
        }
        at = issued + 1u;
        /* DEPBAR.LE SBk issues and the warp's next instruction waits for
         * scoreboard k: ncu samples the wait there (copyAsync_ca4: 54% at
         * the BAR.SYNC after the DEPBAR, none at the DEPBAR) */
        if (pr->ctrl_depbar)
            at = max64(at, w->sb.ready[pr->ctrl_depbar - 1u]);
        ctrl_issued(w, pi->ctrl, issued, pr->ctrl_group ? max64(w->mem_done, issued) : issued + pr->ctrl_lat,
                    pr->ctrl_group);
    }
    return at;
}

/* The warp cycles [from, to) of n instructions of a path booked in a row:
 * one each (selected), the rest (waiting for an issue slot, not_selected)
 * to the last; returns to. */
static uint64_t charge_path(timing *t, const uint32_t *path, uint32_t n, uint64_t from, uint64_t to)
{
    uint64_t mark = from;
    for (uint32_t j = 0; j + 1u < n; j++)
        charge(t, path[j], TIMING_WHY_SELECTED, &mark, mark + 1u);
    charge(t, path[n - 1u], TIMING_WHY_NOT_SELECTED, &mark, to - 1u);
    charge(t, path[n - 1u], TIMING_WHY_SELECTED, &mark, to);
    return to;
}

/* Book path[from .. to) on the issue calendar from at, in a row, and (mark)
 * charge their cycles since *mark; returns the cycle after them. */
static inline uint64_t book_path(timing *t, cal *iss, uint64_t at, const uint32_t *path, uint32_t from, uint32_t to,
                                 uint64_t *mark)
{
    if (to <= from)
        return at;
    at = cal1_book(iss, at, to - from);
    if (mark)
        *mark = charge_path(t, path + from, to - from, *mark, at);
    return at;
}

/* Issue the instructions between the warp's last record and pc, then pc
 * itself; returns the cycle pc issues. regs: pc's registers (NULL: none).
 * Inlined: every record calls it, and a call saved and restored six
 * registers and passed eight arguments (25 instructions a record). */
static inline __attribute__((always_inline)) uint64_t issue_to_kept(timing *t, warp_state *w, cta_state *c,
                                                                    uint32_t sm, uint32_t pc, const pc_regs *regs,
                                                                    bool is_store, uint8_t dst_n, uint32_t dst32,
                                                                    bool kept)
{
    uint64_t at = w->clock;
    /* where the warp's cycles go (kept: t->pc_cycles, else NULL): to the
     * instruction it waits to issue, as ncu samples it, by why it waits */
    uint64_t mark_at = at, *mark = kept ? &mark_at : NULL;
    uint32_t me = w->pc_idx; /* the record's entry (UINT32_MAX: none): its waits are charged to it */
    /* the CTA's barrier, when the warp's last record was one: its release */
    uint64_t release = 0;
    bool bar = false;
    if (w->bar_wait) {
        uint32_t s = (w->bar_gen - 1u) & 1u;
        if (c->bar_id[s] == w->bar_gen - 1u) {
            release = c->bar_max[s] + t->bar_release;
            bar = true;
        }
        w->bar_wait = false;
    }
    cal *iss = &t->smcal[sm_cal_issue(t, sm, w->smsp)];
    uint64_t *code = t->code_lines ? &t->code_ready[(size_t)sm * t->code_lines] : NULL;
    uint32_t prev = w->started ? w->last_pc / PC_BYTES : UINT32_MAX; /* fetch_wait's */
    uint64_t between;
    uint32_t on_path;
    const uint32_t *path;
    bool flowed = t->flow && sassflow_between(t->flow, w->started ? w->last_pc : UINT32_MAX, pc, &on_path, &path);
    bool one_by_one = flowed && (t->by_ctrl || t->cfg.t_alu_latency_cycles);
    if (bar && !flowed) {
        at = max64(at, release);
        if (mark)
            charge(t, me, TIMING_WHY_BARRIER, mark, at);
        bar = false;
    }
    if (one_by_one) {
        /* one by one: each waits for what it reads, arithmetic results too,
         * or by their control words */
        uint32_t bar_i = on_path;
        for (uint32_t i = 0; bar && i < on_path; i++)
            if (sassflow_blocks_barrier(t->flow, path[i])) {
                bar_i = i;
                break;
            }
        at = (t->by_ctrl ? issue_path_ctrl : issue_path_alu)(t, w, iss, at, path, on_path,
                                                              bar ? bar_i : UINT32_MAX, release, mark, code, sm,
                                                              &prev);
        if (mark) /* a DEPBAR's wait at the path's end */
            charge(t, me, TIMING_WHY_LONG_SB, mark, at);
        if (bar && bar_i == on_path) { /* no memory instruction on the way: the record is the next */
            at = max64(at, release);
            if (mark)
                charge(t, me, TIMING_WHY_BARRIER, mark, at);
        }
        bar = false;
        t->issued += on_path;
        between = 0;
    } else if (flowed) {
        /* the instructions on the control flow's shortest path, in order;
         * the warp stops at each that reads a load in flight (in-order
         * issue), which also covers what a loop's back edge waits for; a
         * BAR.SYNC.DEFER_BLOCKING blocks the warp at its next memory
         * instruction, not at the one after it (findings §14) */
        uint32_t booked = 0, bar_i = on_path;
        for (uint32_t i = 0; bar && i < on_path; i++)
            if (sassflow_blocks_barrier(t->flow, path[i])) {
                bar_i = i;
                break;
            }
        for (uint32_t i = 0; i < on_path && (w->n_pend || (bar && i <= bar_i)); i++) {
            if (bar && i == bar_i) {
                at = book_path(t, iss, at, path, booked, i, mark);
                booked = i;
                at = max64(at, release);
                bar = false;
                if (mark)
                    charge(t, path[i], TIMING_WHY_BARRIER, mark, at);
            }
            if (!(sassflow_reads32(t->flow, path[i]) & w->pend_regs))
                continue;
            at = book_path(t, iss, at, path, booked, i, mark);
            booked = i;
            wait_path_loads(t, w, path[i], &at);
            if (mark)
                charge(t, path[i], TIMING_WHY_LONG_SB, mark, at);
        }
        t->issued += on_path;
        between = on_path - booked;
        if (mark || bar) { /* the rest now, not below: the barrier or the charges come after them */
            at = book_path(t, iss, at, path, booked, on_path, mark);
            between = 0;
        }
        if (bar) { /* no memory instruction on the way: the record is the next */
            at = max64(at, release);
            if (mark)
                charge(t, me, TIMING_WHY_BARRIER, mark, at);
        }
    } else if (!w->started)
        between = pc / PC_BYTES; /* the kernel's prologue, straight from its entry */
    else if (pc > w->last_pc)
        between = (pc - w->last_pc) / PC_BYTES - 1u;
    else {
        /* a loop's next iteration: its body's non-memory instructions used
         * the loads (the branch back waits on nothing, but what lies between
         * the last load and the branch does, as far as a trace can tell) */
        between = BACK_BRANCH_INSTRUCTIONS;
        wait_all(w, &at);
        if (mark)
            charge(t, me, TIMING_WHY_LONG_SB, mark, at);
    }
    t->issued += (flowed ? 0u : between) + 1u;
    if (between) {
        /* instructions the PC table does not hold, issued before the record:
         * their cycles are the record's (issue slots) */
        at = cal1_book(iss, at, between);
        if (mark)
            charge(t, me, TIMING_WHY_SELECTED, mark, at);
    }
    if (t->by_ctrl && me != UINT32_MAX) {
        ctrl_wait(t, w, t->k->pcs[me].ctrl, &at, me, mark);
    } else if (regs) {
        bool from_load = wait_regs(w, regs, regs->regs.dst, dst_n, dst32, &at);
        /* a store whose data no pending load wrote directly stores a value
         * computed since: from the loads in flight (with the whole SASS the
         * instructions that computed it waited for what they read) */
        if (is_store && !from_load && !flowed)
            wait_all(w, &at);
        if (mark)
            charge(t, me, TIMING_WHY_LONG_SB, mark, at);
        if (t->flow && t->cfg.t_alu_latency_cycles) /* its address or data computed on the path */
            alu_wait(w, regs->regs.src, &at);
        if (mark)
            charge(t, me, TIMING_WHY_WAIT, mark, at);
    }
    if (one_by_one) /* prev followed the path one by one */
        at = fetch_wait(t, code, sm, prev, pc / PC_BYTES, at, me == pc / PC_BYTES ? mark : NULL);
    at = cal1_book(iss, at, 1) - 1u;
    if (mark) { /* the record: its slot, its issue */
        charge(t, me, TIMING_WHY_NOT_SELECTED, mark, at);
        charge(t, me, TIMING_WHY_SELECTED, mark, at + 1u);
    }
    t->warps_seen += !w->started;
    w->started = true;
    w->last_pc = pc;
    w->clock = at + 1u;
    return at; /* the caller tells the CTA it ran until w->clock (cta_ran_until) */
}

/* issue_to_kept twice over, so that the replay without pc_cycles (every
 * run but explain --timing) carries none of the charges' tests */
static inline __attribute__((always_inline)) uint64_t issue_to(timing *t, warp_state *w, cta_state *c, uint32_t sm,
                                                               uint32_t pc, const pc_regs *regs, bool is_store,
                                                               uint8_t dst_n, uint32_t dst32)
{
    return t->pc_cycles ? issue_to_kept(t, w, c, sm, pc, regs, is_store, dst_n, dst32, true)
                        : issue_to_kept(t, w, c, sm, pc, regs, is_store, dst_n, dst32, false);
}

/* ---- L2 ------------------------------------------------------------------------- */

/* Where r's line lives in L2: its home partition, where writes and atomics
 * are done (the functional L2's, which the request carries, so that both
 * agree on what crosses the fabric), and the slice within a partition whose
 * queues it waits in (partition p's is p * slices_per_partition + slice).
 * The queues' slice is the granule hash's whatever l2.placement says: with
 * the even slices of placement = page, spmv_vector and transpose_naive run
 * 22-23% fast, the hash's busy slices standing in for what their dependent
 * chains wait for and the model lacks (docs/findings.md §21, §3h). */
static inline l2_home_slice place_of(const timing *t, const gpu_l2_req *r)
{
    l2_home_slice hs = l2_home_slice_of(r->line, t->partitions, t->slices_per_partition);
    hs.home = r->home;
    return hs;
}

uint32_t timing_dram_load_extra(const cfg_gpu *c, uint32_t permille)
{
    return curve_at(c->t_dram_load_permille, c->t_dram_load_extra_cycles, c->n_t_dram_load_permille, permille);
}

/* DRAM's load as its requests arrive: the units (read sectors, weighted
 * write-backs) asked of it in each LOAD_SPAN cycles, in a ring of LOAD_RING
 * spans. A read's load is what arrived in the spans of one unloaded round
 * trip before its own (load_spans of them): the requests in flight as it
 * travels, as thousandths of what DRAM serves in that time (findings §18:
 * kernels/dramlat.cu's chase). Arrivals replayed late but early in time
 * count once they are replayed; spans older than the ring are forgotten. */
static void dram_load_note(timing *t, uint64_t at, uint64_t units)
{
    uint64_t span = at >> LOAD_SPAN_SHIFT;
    if (span > t->load_top) { /* the ring moves on: clear the spans it takes over (at most all) */
        uint64_t from = span >= t->load_top + LOAD_RING ? span - LOAD_RING + 1u : t->load_top + 1u;
        for (uint64_t s = from; s <= span; s++)
            t->load_ring[s & (LOAD_RING - 1u)] = 0;
        t->load_top = span;
    } else if (span + LOAD_RING <= t->load_top) {
        return; /* older than the ring */
    }
    t->load_ring[span & (LOAD_RING - 1u)] += (uint32_t)units;
}

static uint64_t dram_load_extra(const timing *t, uint64_t at)
{
    /* the spans [span - load_spans, span) that the ring holds: (load_top - LOAD_RING, load_top] */
    uint64_t span = at >> LOAD_SPAN_SHIFT, sum = 0;
    uint64_t lo = span > t->load_spans ? span - t->load_spans : 0, hi = span; /* [lo, hi) */
    uint64_t oldest = t->load_top + 1u > LOAD_RING ? t->load_top + 1u - LOAD_RING : 0;
    if (lo < oldest)
        lo = oldest;
    if (hi > t->load_top + 1u)
        hi = t->load_top + 1u;
    for (uint64_t s = lo; s < hi; s++)
        sum += t->load_ring[s & (LOAD_RING - 1u)];
    uint64_t permille = sum * 1000u / t->load_div;
    return t->load_extra[permille > 1000u ? 1000u : permille];
}

/* A request's DRAM and L2 intake when they are booked apart (dram_split),
 * from the slice that served it at `served` (`back`: the way from the slice
 * to the SM); returns when its data (a read) or its acknowledgement (a
 * store) is back at the SM as far as these two decide, 0 when they do not.
 *  - DRAM: a read sector is one unit of dram_bytes_per_cycle, a sector
 *    written back dram_write_cost_permille thousandths (booked whole, the
 *    rest carried to the next write-back); a read's data also waits
 *    dram_load_extra for DRAM's load;
 *  - L2 intake (l2_write_bytes_per_cycle): a store's sectors enter as its
 *    lookup ends, a read's sectors from DRAM as DRAM delivers them; the
 *    store's acknowledgement and the read's data wait for their turn;
 *  - nothing waits for a write-back: the line it leaves is free once the
 *    dirty data is read out (findings §18). */
static inline __attribute__((always_inline)) uint64_t dram_split_request(timing *t, const gpu_l2_req *r, gpu_l2_op op,
                                                                        uint64_t served, uint64_t back)
{
    uint64_t ret = 0;
    if (t->l2w_on && op == GPU_L2_WRITE) /* its data goes in as its lookup ends */
        ret = cal_book(&t->l2w, served - 1u, r->sectors) + back;
    if (!r->dram_sectors)
        return ret;
    uint32_t written = r->dram_written < r->dram_sectors ? r->dram_written : r->dram_sectors;
    uint32_t fetched = r->dram_sectors - written;
    uint64_t at = served + t->dram_in; /* at DRAM */
    if (fetched) {
        uint64_t d = cal_book(&t->dram, at, fetched);
        if (t->load_on) {
            d += dram_load_extra(t, at);
            dram_load_note(t, at, fetched);
        }
        if (op != GPU_L2_WRITE) {
            if (t->l2w_on) /* the fill streams in as DRAM delivers: its first cycle is DRAM's last */
                d = cal_book(&t->l2w, d - 1u, fetched);
            ret = max64(ret, d + t->dram_out + back);
        }
    }
    if (written) {
        t->dram_wb_milli += (uint64_t)written * t->cfg.t_dram_write_cost_permille;
        uint64_t units = t->dram_wb_milli / 1000u;
        t->dram_wb_milli %= 1000u;
        (void)cal_book(&t->dram, at, units);
        if (t->load_on)
            dram_load_note(t, at, units);
    }
    return ret;
}

static inline arrival_slot *copy_of(const timing *t, uint64_t line, uint32_t partition, uint64_t *key)
{
    *key = ((line << 2) | (partition & 3u)) + 1u;
    return arrival_of(t->copies, COPY_SLOTS, *key);
}

/* l2_fill_wait: a read of `line` served at `served` gets its data no earlier
 * than the copy it is served from arrives. The functional L2 has a line from
 * its miss on, in replay order; the slice holds later reads of it until the
 * data is there ([MEAS] kernels/hotline.cu: 132 SMs reading one cold line at
 * once wait as long as one SM reading a line of its own). A read that hit near
 * waits for the near copy; one that missed near and found the line at home
 * across the fabric, for the home copy and the way back. A read that missed
 * records the copy it made near, and a DRAM fill across the fabric the home
 * copy too. Returns ret, later where it must wait. */
static inline uint64_t copy_wait(timing *t, const gpu_l2_req *r, uint32_t near, uint32_t home, uint64_t served,
                                 uint64_t back, uint64_t ret)
{
    uint64_t kn, kh;
    arrival_slot *cn = copy_of(t, r->line, near, &kn), *ch = copy_of(t, r->line, home, &kh);
    uint64_t fabric = t->far_out > t->l2_out ? t->far_out - t->l2_out : 0u;
    if (r->hit_sectors) {
        if (cn->key == kn && cn->ready > served)
            ret = max64(ret, cn->ready + back);
        return ret;
    }
    if (r->far && !r->dram_sectors && ch->key == kh)
        ret = max64(ret, ch->ready + fabric + back);
    if (r->miss_sectors) {
        cn->key = kn;
        cn->ready = ret - back;
        if (r->far && r->dram_sectors) {
            ch->key = kh;
            ch->ready = ret - back > fabric ? ret - back - fabric : 0u;
        }
    }
    return ret;
}

/* One request from SM sm leaving L1 at t1; returns when its data (or its
 * acknowledgement) is back at the SM. op is r->op: callers that know it
 * pass it as a constant, and the cases of the others fold away. last: r is
 * a record's GPU_OBS_MAX_L2-th request, the only one that can be folded
 * (gpu.h: then its sectors are the sum of several masks). */
static inline __attribute__((always_inline)) uint64_t l2_request(timing *t, uint32_t sm, const gpu_l2_req *r,
                                                                 uint64_t t1, gpu_l2_op op, bool last)
{
    bool read = op == GPU_L2_READ;
    l2_home_slice pl = place_of(t, r);
    uint32_t near = t->sm_part[sm];
    uint64_t arrive = t1 + (r->far ? t->far_in : t->l2_in);
    /* reads are looked up in the SM's near partition; writes and atomics at home */
    uint32_t si = (read ? near : pl.home) * t->slices_per_partition + pl.slice;
    slice_state *ss = &t->slices[si];
    uint64_t served, group_ret = 0;
    lrc_outcome outcome = LRC_NEW;
    uint32_t sectors = r->sectors;
    lrc_set *lset = NULL; /* the LRC's set the request was looked up in */

    /* reads: the sectors its L2 read fetched beyond its own missing ones
     * (l2.fetch_sectors blocks, findings §15) */
    uint32_t beside = read ? r->miss_sectors - (r->sectors - r->hit_sectors) : 0u;
    if (read) {
        /* the LRC: a read another SM of the GPC has in flight (and that its
         * line still keeps) gets that one's data and books nothing
         * (model/lrc.h) */
        uint64_t at_lrc = t1; /* held for the whole round trip from the SM (findings §2e) */
        t->lrc_in += r->sectors;
        if (t->lrc && (!last || r->sectors == cache_popcount(r->sector_mask))) { /* not folded */
            lset = lrc_set_of(t->lrc, sm, r->line, r->sector_mask);
            outcome = lrc_merge_in(t->lrc, lset, sm, r->line, r->sector_mask, at_lrc, r->hit_sectors, beside,
                                   &group_ret);
            if (outcome == LRC_MERGED)
                return max64(group_ret, at_lrc);
        }
    }

    /* a request crossing the fabric is looked up in both partitions (hardware-facts
     * 3.5: a far access costs two L2 lookups, the near one first); each lookup
     * holds its slice at least one L2 cycle, a 1-sector request as long as 2 */
    uint64_t units = sectors > t->lookup_units ? sectors : t->lookup_units;
    if (r->far) {
        uint32_t other = read ? pl.home : near;
        arrive = cal_book(&t->slice[other * t->slices_per_partition + pl.slice], arrive, units);
    }

    if (op == GPU_L2_ATOMIC) {
        if (ss->atomic_valid && ss->atomic_line == r->line) {
            uint64_t m = max64(arrive * 1000u, ss->atomic_free_mcycles) + t->cfg.t_l2_atomic_same_line_mcycles;
            ss->atomic_free_mcycles = m;
            served = (m + 999u) / 1000u;
        } else {
            served = cal_book(&t->slice[si], arrive, units);
            ss->atomic_line = r->line;
            ss->atomic_valid = true;
            ss->atomic_free_mcycles = served * 1000u;
        }
    } else {
        served = cal_book(&t->slice[si], arrive, units);
    }
    uint64_t back = r->far ? t->far_out : t->l2_out;
    uint64_t ret = served + back;
    if (t->dram_split) {
        ret = max64(ret, dram_split_request(t, r, op, served, back));
    } else if (r->dram_sectors) {
        uint64_t d = cal_book(&t->dram, served + t->dram_in, r->dram_sectors);
        ret = max64(ret, d + t->dram_out + back);
    }
    if (read && t->copies && !last)
        ret = copy_wait(t, r, near, pl.home, served, back, ret);
    if (read && t->fills && !last) {
        /* sectors another read's fill brought beside its own are there when
         * it is: a read that hit some waits for it; a read that fetched
         * sectors beside its own (more misses than its missing sectors)
         * records them, when they are all of its blocks' others (if some
         * were there already, the count says so but not which: nothing is
         * recorded) */
        if (r->hit_sectors || beside) {
            fill_slot *f = &t->fills[(cache_mix64(r->line) >> 40) & (TIMING_FILL_SLOTS - 1u)];
            if (r->hit_sectors && f->line == r->line && (f->mask & r->sector_mask) && f->ready > served)
                ret = max64(ret, f->ready + back);
            uint32_t others = t->fetch_beside[r->sector_mask & (TIMING_FETCH_MASKS - 1u)];
            if (beside && cache_popcount(others) == beside) {
                f->line = r->line;
                f->mask = others;
                f->ready = ret - back;
            }
        }
    }
    if (outcome == LRC_READ_AGAIN) /* its data is the group's, back at the SM no earlier */
        ret = max64(ret, group_ret);
    else if (lset) /* the way the lookup found for it */
        lrc_keep(t->lrc, lset, lrc_victim(lset, r->line), sm, r->line, r->sector_mask, t1, ret);
    else if (t->lrc && read) /* folded (sectors unlike its mask's): not looked up */
        lrc_sent(t->lrc, sm, r->line, r->sector_mask, t1, ret);
    return ret;
}

/* ---- L1's fills (l1_fill_wait) ---------------------------------------------------- */

static inline arrival_slot *l1_fill_of(const timing *t, uint32_t sm, uint64_t line, uint64_t *key)
{
    *key = line * t->cfg.sm_count + sm + 1u;
    return arrival_of(t->l1_fills, L1_FILL_SLOTS, *key);
}

/* l1_fill_wait: the latest arrival of a fill still on its way to SM sm's L1
 * among the lines a load reads (0: none). The functional L1 has a line from
 * its miss on, in replay order; the L1's miss status holds later loads of it
 * until the data is there ([MEAS] kernels/mmtimed.cu: matrixMul_naive's warps
 * wait about an L2 round trip per block of loads though 85% hit L1). */
static uint64_t l1_fill_ready(const timing *t, uint32_t sm, const coal_result *lines)
{
    uint64_t ready = 0, key;
    for (uint32_t i = 0; lines && i < lines->n_lines; i++) {
        const arrival_slot *f = l1_fill_of(t, sm, lines->lines[i].line, &key);
        if (f->key == key)
            ready = max64(ready, f->ready);
    }
    return ready;
}

/* A read request of SM sm for line missed in L1: the line is on its way until
 * `back`, when the request's data is. */
static void l1_fill_note(timing *t, uint32_t sm, uint64_t line, uint64_t back)
{
    uint64_t key;
    arrival_slot *f = l1_fill_of(t, sm, line, &key);
    if (f->key != key || f->ready < back) {
        f->key = key;
        f->ready = back;
    }
}

/* ---- the SM's write queue (wqueue.h) ----------------------------------------------- */

#define WQ_MAX_LINES 32u /* lines one warp's store can touch: one per lane */

/* The lines a store record writes and their sectors, in address order;
 * returns how many (at most WQ_MAX_LINES). */
static uint32_t store_lines(const timing *t, const trace_mem *m, uint64_t *lines, uint32_t *masks)
{
    uint32_t spl_shift = t->line_shift - t->sector_shift; /* sectors per line, log2 */
    uint32_t size = m->size_bytes;
    /* nearly every store: lanes aligned to their size, within 64 sectors of
     * the first lane's line: one bit per sector in a word */
    uint64_t base = (m->addr[__builtin_ctz(m->active_mask)] >> t->line_shift) << spl_shift;
    uint64_t bits = 0, odd = 0, far = 0; /* odd: a lane off its size's alignment; far: beyond the word */
    const uint32_t sector_shift = t->sector_shift, align = size - 1u; /* in registers, not reloaded */
    const uint64_t *addrs = m->addr;
    for (uint32_t a = m->active_mask; a; a &= a - 1u) {
        uint64_t addr = addrs[__builtin_ctz(a)];
        uint64_t rel = (addr >> sector_shift) - base;
        odd |= addr & align;
        far |= rel >> 6;
        bits |= 1ull << (rel & 63u);
    }
    uint32_t n = 0;
    if (!odd && !far && size <= (1u << t->sector_shift) && (size & (size - 1u)) == 0 && spl_shift <= 5u) {
        uint32_t spl = 1u << spl_shift;
        uint64_t line_bits = spl == 64u ? UINT64_MAX : (1ull << spl) - 1u;
        for (uint32_t k = 0; bits && k < 64u; k += spl, bits >>= spl) {
            if (bits & line_bits) {
                lines[n] = (base >> spl_shift) + k / spl;
                masks[n++] = (uint32_t)(bits & line_bits);
            }
        }
        return n;
    }
    uint64_t line_mask = (1ull << t->line_shift) - 1u;
    for (uint32_t a = m->active_mask; a; a &= a - 1u) {
        uint64_t addr = m->addr[__builtin_ctz(a)];
        uint64_t line = addr >> t->line_shift;
        uint32_t first = (uint32_t)((addr & line_mask) >> t->sector_shift);
        uint32_t last = (uint32_t)(((addr + size - 1u) & line_mask) >> t->sector_shift);
        if ((addr + size - 1u) >> t->line_shift != line)
            last = (uint32_t)(line_mask >> t->sector_shift); /* crosses the line: to its end */
        uint32_t mask = (uint32_t)(((2u << last) - 1u) & ~((1u << first) - 1u));
        uint32_t i = 0;
        while (i < n && lines[i] != line)
            i++;
        if (i == n) {
            if (n == WQ_MAX_LINES)
                continue;
            while (i > 0 && lines[i - 1u] > line) { /* keep address order */
                lines[i] = lines[i - 1u];
                masks[i] = masks[i - 1u];
                i--;
            }
            lines[i] = line;
            masks[i] = 0;
            n++;
        }
        masks[i] |= mask;
    }
    return n;
}

/* w's current run (emptied when w began another since). */
static inline store_run *store_run_of(timing *t, const warp_state *w)
{
    store_run *r = &t->store_runs[w - t->warps];
    if (r->id != w->store_run_id) {
        r->n = 0;
        r->id = w->store_run_id;
    }
    return r;
}

/* The index of line in run r, or r->n. */
static inline uint32_t store_run_find(const store_run *r, uint64_t line)
{
    uint32_t k = 0;
    while (k < r->n && r->line[k] != line)
        k++;
    return k;
}

/* line's request of run r from now: entered at t, left at left. */
static inline void store_run_put(store_run *r, uint64_t line, uint32_t mask, uint64_t t, uint64_t left)
{
    uint32_t k = store_run_find(r, line);
    if (k == r->n) {
        if (r->n == WCOMB_LINES)
            r->n = 0, k = 0; /* store combining sends the run's lines and goes on */
        r->n++;
    }
    uint64_t wait = left > t ? left - t : 0;
    r->line[k] = line;
    r->t32[k] = (uint32_t)t;
    r->wait[k] = (uint16_t)(wait < UINT16_MAX ? wait : UINT16_MAX);
    r->mask[k] = (uint8_t)mask;
}

/* The entry cycle of run r's request k, for a store of the run at `at`
 * (at or after it, less than 2^32 cycles later). */
static inline uint64_t store_run_t(const store_run *r, uint32_t k, uint64_t at)
{
    uint64_t t = (at & ~(uint64_t)UINT32_MAX) | r->t32[k];
    return t > at ? t - ((uint64_t)1 << 32) : t;
}

/* One line's write request of writer entering SM sm's queue (drain) at at.
 * When store combining merged it with an earlier store of the warp's run
 * (combined), it goes in that store's request while the request is open,
 * else it is a request of its own (a split); any other merges into a
 * waiting request of another warp to the same line. What does not merge is
 * drained at the L1-to-L2 write rate. Inlined: a call saved six registers
 * (8.6 instructions a coalesced record). */
static inline __attribute__((always_inline)) uint64_t write_request(timing *t, cal *drain, uint32_t sm,
                                                                    uint64_t writer, uint64_t line, uint32_t mask,
                                                                    uint64_t at, bool combined, store_run *run)
{
    wqueue *q = t->wq;
    uint32_t s = wqueue_sm(q, sm);
    uint32_t *slot = wqueue_newest(q, s, line);
    if (combined) {
        /* store combining merged it with an earlier store of the run: it
         * goes in that one's request while the request is open (wqueue.h) */
        uint32_t k = store_run_find(run, line);
        bool known = k < run->n;
        uint64_t t0 = known ? store_run_t(run, k, at) : 0;
        if (known && wqueue_join_open(q, s, t0, t0 + run->wait[k], at)) {
            run->mask[k] |= (uint8_t)mask;
            return at;
        }
        wqueue_split(q, mask & (known ? run->mask[k] : mask));
    } else if (wqueue_merge_in(q, s, slot, writer, line, mask, at)) {
        store_run_put(run, line, mask, at, at);
        return at; /* in a request that waits already: it leaves with that one */
    }
    /* the queue sends one sector a cycle ([MEAS] kernels/wrate.cu,
     * traces/h200-probes/wrate.txt: one SM storing whole lines sends
     * 32.0 bytes a cycle with 2 to 32 warps; misaligned stores, merged,
     * 0.99-1.01 sectors a cycle); a request waits until its first
     * sector leaves: the end of its booking less its own sectors */
    uint64_t sectors = cache_popcount(mask);
    uint64_t gone = cal1_book(drain, at, sectors);
    uint64_t left = gone - sectors;
    wqueue_sent_in(q, s, slot, writer, line, mask, at, left > at ? left : at);
    store_run_put(run, line, mask, at, left);
    return gone; /* its last sector has left */
}

/* Whether store combining merged line of store e with an earlier store of its
 * warp's run (gpu_event.combined, by the coalescer's line order). */
static bool line_combined(const gpu_event *e, uint64_t line)
{
    const coal_result *r = e->lines;
    for (uint32_t i = 0; r && e->combined && i < r->n_lines && i < 32u; i++)
        if (r->lines[i].line == line)
            return (e->combined >> i) & 1u;
    return false;
}

/* write_queue for a store whose coalescer's lines are not in address order
 * (or more than WQ_MAX_LINES): worked out again in that order (kept apart:
 * its arrays would make every call's frame large). */
static __attribute__((noinline)) uint64_t write_queue_sorted(timing *t, cal *drain, uint32_t sm,
                                                             const gpu_event *e, uint64_t writer, uint64_t at,
                                                             store_run *run)
{
    uint64_t lines[WQ_MAX_LINES];
    uint32_t masks[WQ_MAX_LINES];
    uint32_t n = store_lines(t, e->m, lines, masks);
    uint64_t gone = at;
    for (uint32_t i = 0; i < n; i++)
        gone = max64(gone,
                     write_request(t, drain, sm, writer, lines[i], masks[i], at, line_combined(e, lines[i]), run));
    return gone;
}

/* A global store of writer (cta x warps + warp) on SM sm whose lines are
 * ready to leave L1 at t: each line's write request enters the SM's queue,
 * in address order (the coalescer's), and merges into a waiting request of
 * another warp to the same line, or is drained at the L1-to-L2 write rate.
 * Returns when the last of its sectors has left the SM. */
static uint64_t write_queue(timing *t, uint32_t sm, const gpu_event *e, uint64_t writer, uint64_t at,
                            store_run *run)
{
    cal *drain = &t->smcal[sm_cal_wq(t, sm)];
    /* the coalescer's lines when they are in address order (nearly every
     * store: one line, or lanes ascending), read where they are */
    const coal_result *r = e->lines;
    if (r && r->n_lines == 1)
        return write_request(t, drain, sm, writer, r->lines[0].line, r->lines[0].sector_mask, at, e->combined & 1u,
                             run);
    bool ascending = r && r->n_lines <= WQ_MAX_LINES;
    for (uint32_t i = 1; ascending && i < r->n_lines; i++)
        ascending = r->lines[i].line > r->lines[i - 1u].line;
    if (!ascending)
        return write_queue_sorted(t, drain, sm, e, writer, at, run);
    uint64_t gone = at;
    for (uint32_t i = 0; i < r->n_lines; i++)
        gone = max64(gone, write_request(t, drain, sm, writer, r->lines[i].line, r->lines[i].sector_mask, at,
                                         i < 32u && ((e->combined >> i) & 1u), run));
    return gone; /* when its last request's last sector has left the SM */
}

/* A read request of SM sm ready to leave L1 at at: it takes one slot of the
 * SM's queue towards L2, the drain calendar its write requests' sectors book
 * ([MEAS] kernels/rwmix.cu, traces/h200-probes/rwmix-h100.txt, on an H100:
 * one SM storing whole lines while other warps read L2 past L1 sends, per
 * cycle, store sectors + read requests = 0.91-1.00, for reads of 1 sector
 * and of 4 alike). Returns when it leaves; the write queue's merge history
 * holds writes only (no write merges into a read). */
static uint64_t read_queue(timing *t, uint32_t sm, uint64_t at)
{
    uint64_t left = cal1_book(&t->smcal[sm_cal_wq(t, sm)], at, 1) - 1u;
    return left > at ? left : at;
}

/* ---- records --------------------------------------------------------------------- */

/* When L2 has taken in and acknowledged a store's `sectors` whose last left
 * its SM at `sent`: behind L2's intake queue as it stands (cal_when, booking
 * nothing: the store's line books it when store combining sends it), then
 * back. What a warp's EXIT waits for (warp_ended); the store's issue does not
 * wait for it. */
static inline uint64_t store_accepted(const timing *t, uint64_t sent, uint32_t sectors)
{
    uint64_t at = sent + t->l2_in; /* its data goes in as its lookup ends (dram_split_request) */
    if (t->l2w_on)
        at = cal_when(&t->l2w, at - 1u, sectors);
    return at + t->l2_out;
}

/* When an access of wf data-stage wavefronts (shared memory, or an L1 hit)
 * ready at cycle at starts in the data stage: the stage takes one wavefront
 * a cycle from all warps, but one warp's at one per smem_wavefront_cycles,
 * so its next access starts when this one's are through (kernels/l1cost.cu,
 * findings §17: one warp's N-way conflicted loads and stores, global or
 * shared, go 2N cycles apart; two or more warps' together one a cycle). */
static inline uint64_t data_start(const cfg_gpu *c, warp_state *w, uint64_t at, uint32_t wf)
{
    uint64_t start = at > w->data_free ? at : w->data_free;
    w->data_free = start + (uint64_t)c->t_smem_wavefront_cycles * wf;
    return start;
}

/* When the data of an access of wf wavefronts that reaches the data stage
 * at cycle at is ready: the stage's booking (data_start), then latency, and
 * each further wavefront adds smem_wavefront_cycles to it (findings §10 for
 * LDS, §13 for LDG chains: the same data stage). */
static inline uint64_t data_ready(timing *t, warp_state *w, uint32_t sm, uint64_t at, uint32_t wf, uint64_t latency)
{
    const cfg_gpu *c = &t->cfg;
    return cal1_book(&t->smcal[sm_cal_data(t, sm)], data_start(c, w, at, wf), wf) + latency - 1u +
           (wf > 1u ? (uint64_t)(c->t_smem_wavefront_cycles - 1u) * (wf - 1u) : 0u);
}

static void on_record(void *ctx, const gpu_event *e)
{
    timing *t = ctx;
    const cfg_gpu *c = &t->cfg;
    const trace_mem *m = e->m;
    uint32_t sm = e->sm;
    cta_state *cs;
    warp_state *w = warp_get(t, m->cta, m->warp, &cs, sm);
    uint32_t pi = pc_index(t, w, m->pc);
    const pc_regs *regs = pi != UINT32_MAX ? &t->pcs[pi] : NULL;
    w->pc_idx = pi;
    uint8_t dst_n = (uint8_t)(m->size_bytes > 4 ? m->size_bytes / 4u : 1u);
    /* its destination registers folded (wait_regs, add_pending) */
    uint32_t dst32 = regs && regs->regs.dst != TIMING_NO_REG ? regs32(regs->regs.dst, dst_n) : 0u;
    /* a cp.async is one instruction traced as two records of its PC (the
     * global read, then the shared write): the second issues nothing more
     * (until the seventh session it was taken for a loop's back edge: two
     * instructions more and a wait for the warp's loads) */
    if (wcomb_ends_run(m->kind, m->space))
        w->store_run_id++; /* as store combining's run ends */
    bool second_half = w->ldgsts_open && m->pc == w->last_pc && (m->flags & TRACE_MEM_LDGSTS);
    w->ldgsts_open = !second_half && (m->flags & TRACE_MEM_LDGSTS);
    uint64_t at = second_half ? w->clock - 1u
                              : issue_to(t, w, cs, sm, m->pc, regs, m->kind == TRACE_KIND_ST, dst_n, dst32);
    bool returns = m->kind == TRACE_KIND_LD || m->kind == TRACE_KIND_ATOM;
    uint64_t done;
    uint64_t drained = 0; /* what the warp's EXIT would wait for: done, or a reduction's acceptance */

    if (m->space == TRACE_SPACE_SHARED) {
        done = data_ready(t, w, sm, at, e->data_wavefronts, c->t_smem_cycles); /* §10: N-way LDS, 22 + 2N */
    } else {
        /* l1_fill_wait: a load's lines that hit wait for fills on their way
         * (atomics are L2's business) */
        uint64_t fill = t->l1_fills && m->kind == TRACE_KIND_LD ? l1_fill_ready(t, sm, e->lines) : 0;
        uint64_t tagged = cal1_book(&t->smcal[sm_cal_tag(t, sm)], at, e->tag_wavefronts);
        uint32_t n_l2 = e->n_l2 < GPU_OBS_MAX_L2 ? e->n_l2 : GPU_OBS_MAX_L2;
        /* a reduction is acknowledged as a store is: one round trip to L2
         * (its slice's atomic queue and DRAM fill are L2's business; the
         * model has no backpressure from them to the SM: docs/timing.md,
         * "Achieved occupancy") */
        if (m->kind == TRACE_KIND_RED)
            drained = tagged + c->t_l2_hit_cycles;

        if (m->kind == TRACE_KIND_ST) {
            t->sms[sm].last_store = tagged;
            uint64_t sent = tagged;
            if (m->space == TRACE_SPACE_GLOBAL)
                sent = write_queue(t, sm, e, (uint64_t)m->cta * t->warps_per_cta + m->warp, tagged,
                                   store_run_of(t, w));
            done = tagged + c->t_l2_hit_cycles; /* acknowledged by L2 */
            drained = store_accepted(t, sent, e->lines ? e->lines->n_sectors : 1u);
        } else if (n_l2 == 0) {
            /* an L1 hit: the data stage as a shared access's */
            done = max64(data_ready(t, w, sm, tagged, e->data_wavefronts, c->t_l1_hit_cycles), fill);
        } else {
            done = max64(tagged + c->t_l1_hit_cycles, fill);
            for (uint32_t i = 0; i < n_l2; i++) {
                /* a read request leaves through the SM's queue towards L2 */
                const gpu_l2_req *r = &e->l2[i];
                bool last = i == GPU_OBS_MAX_L2 - 1u;
                uint64_t back = r->op == GPU_L2_READ
                                    ? l2_request(t, sm, r, read_queue(t, sm, tagged), GPU_L2_READ, last)
                                    : l2_request(t, sm, r, tagged, (gpu_l2_op)r->op, last);
                done = max64(done, back);
                if (t->l1_fills && r->op == GPU_L2_READ)
                    l1_fill_note(t, sm, r->line, back);
            }
            if (e->data_wavefronts > 1)
                done = cal1_book(&t->smcal[sm_cal_data(t, sm)], done, e->data_wavefronts);
        }
    }
    if (t->by_ctrl && pi != UINT32_MAX) /* the record's scoreboards: a load's when its data is back */
        ctrl_issued(w, t->k->pcs[pi].ctrl, at, returns ? done : at + 2u, returns && m->space != TRACE_SPACE_SHARED);
    else if (returns && regs)
        add_pending(w, regs->regs.dst, dst_n, dst32, done, &w->clock);
    /* bar.sync makes the warp's shared-memory writes visible to its CTA: the
     * warp reaches its next barrier when its shared stores and atomics are
     * done, and its cp.async copies (waited for by cp.async.wait_group before
     * the barrier, as kernels use them) have their data */
    if ((m->space == TRACE_SPACE_SHARED && !returns) || (m->flags & TRACE_MEM_LDGSTS))
        w->mem_done = max64(w->mem_done, done);
    t->end = max64(t->end, max64(done, w->clock));
    cta_ran_until(t, cs, w->clock);
    warp_ended(t, w, cs, sm, max64(w->clock, drained ? drained : done));
    if (t->timeline)
        fprintf(t->timeline, "%u,%u,%u,%u,0x%04x,%s.%s,%llu,%llu\n", t->k->launch, m->cta, m->warp, sm,
                (unsigned)m->pc, trace_kind_name(m->kind), trace_space_name(m->space), (unsigned long long)at,
                (unsigned long long)done);
}

static void on_store_line(void *ctx, uint32_t sm, const gpu_l2_req *r)
{
    timing *t = ctx;
    assert(r->op == GPU_L2_WRITE); /* a store-combining line (gpu.h) */
    uint64_t done = l2_request(t, sm, r, t->sms[sm].last_store, GPU_L2_WRITE, false);
    t->end = max64(t->end, done);
}

/* GCC's pure-const pass counts a prefetch as no side effect: a function that
 * only prefetches is "pure", and a call to it whose result is unused is
 * deleted. Inlined before that pass, the prefetches stay. */
#define PREFETCHER static inline __attribute__((always_inline))

/* The bin of cycle in SM calendar i (bins in bytes, in smcal's order): its
 * address needs no read of the calendar. A bin outside the window is still
 * an address inside the ring: harmless. */
PREFETCHER void sm_bin_prefetch(const timing *t, size_t i, uint64_t cycle)
{
    __builtin_prefetch(&t->cal_storage[i * CAL_BINS + ((cycle >> CAL_BIN_SHIFT) & (CAL_BINS - 1u))], 1);
}

PREFETCHER uint32_t warp_slot(const timing *t, uint32_t cta, uint32_t warp)
{
    return (uint32_t)((uint64_t)cta * t->warps_per_cta + warp) & t->warp_mask;
}

/* The replay's read-ahead announces a record (gpu.h's observer prefetch): the
 * entries its turn will read first are its warp (two lines), its CTA and two
 * calendars of its SM it books (the tag and data stages); the record
 * announced ANNOUNCE_LAG before it has its warp entry in cache by now, so
 * that its sub-partition's issue calendar (the warp entry knows which: its
 * CTA's first_smsp + warp, cta_start) and the bins its clock falls in in the
 * three can be prefetched too (a heuristic: earlier records of the same warp
 * may still move its clock; an entry of this kernel that another warp took
 * since, or the zeros before the first records, prefetch lines that go
 * unused). m is not validated yet: every index is masked or checked, nothing
 * is written but the ring. */
static void on_prefetch(void *ctx, const trace_mem *m)
{
    timing *t = ctx;
    uint32_t slot = warp_slot(t, m->cta, m->warp);
    const warp_state *w = &t->warps[slot];
    __builtin_prefetch(w, 1);
    __builtin_prefetch(&w->pend_ready, 1);
    __builtin_prefetch(&t->warp_life[slot], 1);
    if (m->kind == TRACE_KIND_ST)
        __builtin_prefetch(&t->store_runs[slot], 1);
    __builtin_prefetch(&t->ctas[m->cta & t->cta_mask], 1);
    uint32_t sm = sm_of(t, m->cta, m->sm);
    size_t sm_cal = sm_cal_issue(t, sm, 0);
    const cal *tag = &t->smcal[sm_cal + t->smsps];
    __builtin_prefetch(tag, 1);
    __builtin_prefetch(tag + 1, 1); /* the data stage's, next to it (sm_cal_data) */
    if (m->space != TRACE_SPACE_SHARED) {
        __builtin_prefetch(tag + 2, 1); /* the queue towards L2 (sm_cal_wq) */
        /* a global load's read requests look up the LRC's set of their
         * line: the first lane's (a coalesced warp's only one) */
        if (t->lrc && m->kind == TRACE_KIND_LD && m->active_mask)
            lrc_prefetch(t->lrc, sm, m->addr[__builtin_ctz(m->active_mask)] >> t->line_shift);
    }
    announced *a = &t->ann[t->n_ann++ % ANNOUNCE_LAG];
    const announced o = *a;
    *a = (announced){.slot = slot, .sm_cal = (uint32_t)sm_cal};
    const warp_state *ow = &t->warps[o.slot];
    if (ow->gen != t->gen)
        return;
    size_t issue = o.sm_cal + ow->smsp;
    __builtin_prefetch(&t->smcal[issue], 1);
    sm_bin_prefetch(t, issue, ow->clock);
    sm_bin_prefetch(t, o.sm_cal + t->smsps, ow->clock);
    sm_bin_prefetch(t, o.sm_cal + t->smsps + 1u, ow->clock);
    sm_bin_prefetch(t, o.sm_cal + t->smsps + 2u, ow->clock);
}

gpu_observer timing_observer(timing *t)
{
    return (gpu_observer){.record = on_record, .store_line = on_store_line, .prefetch = on_prefetch,
                          .ctx = t};
}

void timing_barrier(timing *t, const trace_barrier *b)
{
    uint32_t sm = sm_of(t, b->cta, b->sm);
    cta_state *c;
    warp_state *w = warp_get(t, b->cta, b->warp, &c, sm);
    w->pc_idx = pc_index(t, w, b->pc);
    w->ldgsts_open = false;
    if (b->kind == TRACE_BAR_SHFL) {
        /* a warp shuffle (trace.h): the warp issues the path to it and the
         * shuffle, so that a loop of shuffles runs as often as it did; a
         * barrier it passed before still blocks at its next memory
         * instruction (a shuffle is none) */
        bool barrier_pending = w->bar_wait;
        w->bar_wait = false;
        uint64_t at = issue_to(t, w, c, sm, b->pc, NULL, false, 0, 0);
        w->bar_wait = barrier_pending;
        if (t->by_ctrl && w->pc_idx != UINT32_MAX) /* its result, as on a path (pc_ctrl_kind) */
            ctrl_issued(w, t->k->pcs[w->pc_idx].ctrl, at, at + t->pcs[w->pc_idx].ctrl_lat, false);
        cta_ran_until(t, c, w->clock);
        warp_ended(t, w, c, sm, at + 1u);
        t->end = max64(t->end, at + 1u);
        return;
    }
    w->store_run_id++; /* a barrier ends a run of stores (wcomb.h) */
    uint64_t at = max64(issue_to(t, w, c, sm, b->pc, NULL, false, 0, 0), w->mem_done);
    cta_ran_until(t, c, w->clock);
    uint32_t g = w->bar_gen, s = g & 1u;
    if (c->bar_id[s] != g || c->bar_count[s] == 0) {
        c->bar_id[s] = g;
        c->bar_count[s] = 0;
        c->bar_max[s] = 0;
    }
    c->bar_count[s]++;
    c->bar_max[s] = max64(c->bar_max[s], at);
    warp_ended(t, w, c, sm, at + 1u);
    w->bar_gen++;
    w->bar_wait = true;
    t->end = max64(t->end, at + 1u);
}
