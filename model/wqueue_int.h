/* wqueue_int.h - private to the SMs' write queues (wqueue.c) and their one
 * hot caller, the timing layer (timing.c): the queue's state, and its merge
 * test and its record of a request sent, inline, so that a store line costs
 * the timing layer no two calls of seven arguments (the rule: wqueue.h). */
#ifndef GMS_WQUEUE_INT_H
#define GMS_WQUEUE_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "wqueue.h"

/* One request that entered an SM's queue. gen: the kernel (0 = empty), so
 * that wqueue_reset forgets every request without clearing the history. */
typedef struct wqueue_entry {
    uint64_t line;
    uint64_t writer;
    uint64_t t, left; /* entered the queue; left it (waiting in [t, left)) */
    uint32_t gen;
    uint32_t mask;    /* sectors written: the request's and those merged into it */
} wqueue_entry;

#define WQ_SLOTS 256u /* four times the ring: few lines of the ring share a slot */

struct wqueue {
    uint32_t sm_count;
    uint32_t gen;
    wqueue_entry *hist;  /* [sm_count][WQUEUE_HISTORY]: ring, the newest at (n[sm] - 1) % WQUEUE_HISTORY */
    uint64_t *hist_t;    /* [sm_count][WQUEUE_HISTORY]: their entry cycles again, packed (wqueue_join_open) */
    uint32_t *n;     /* [sm_count] requests the SM's ring took in this kernel */
    /* [sm_count][WQ_SLOTS]: per line hash (wqueue_newest), 1 + the ring
     * position (0 .. n - 1) of the newest request to such a line, 0 none: a
     * request looks at that one only, not the whole ring */
    uint32_t *newest;
    wqueue_counts counts;
};

/* Until when a request that entered at t and left the queue at left takes
 * later stores to its line: while it waits, and WQUEUE_OPEN_CYCLES after it
 * entered (wqueue.h). */
static inline uint64_t wqueue_open_until(uint64_t t, uint64_t left)
{
    uint64_t open = t + WQUEUE_OPEN_CYCLES;
    return left > open ? left : open;
}

/* SM sm's queue (an SM past the count: the first's, as every call does). */
static inline uint32_t wqueue_sm(const wqueue *q, uint32_t sm)
{
    return sm < q->sm_count ? sm : 0;
}

/* The slot in newest of line in SM s's queue: Fibonacci hashing (the lines
 * of one SM's CTAs lie at multiples of large powers of two apart, which a
 * plain modulo folds). */
static inline uint32_t *wqueue_newest(const wqueue *q, uint32_t s, uint64_t line)
{
    return &q->newest[(size_t)s * WQ_SLOTS + (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 56)];
}

/* wqueue_merge past its first test: the i-th newest request of s's ring is
 * the newest to a line of line's slot. */
bool wqueue_merge_ith(wqueue *q, uint32_t s, uint32_t i, uint64_t writer, uint64_t line, uint32_t mask,
                      uint64_t t);

/* wqueue_merge for SM s (wqueue_sm) and line's slot (wqueue_newest). */
static inline bool wqueue_merge_in(wqueue *q, uint32_t s, const uint32_t *slot, uint64_t writer, uint64_t line,
                                   uint32_t mask, uint64_t t)
{
    /* the newest request of the SM to this line (earlier ones to the same
     * line: only when it is a request of the same warp or one that entered
     * later than t, both rare) */
    uint32_t pos = *slot;
    if (pos == 0 || q->n[s] - (pos - 1u) > WQUEUE_HISTORY)
        return false;
    return wqueue_merge_ith(q, s, q->n[s] - pos /* 0: the newest of the ring */, writer, line, mask, t);
}

/* wqueue_sent for SM s (wqueue_sm) and line's slot (wqueue_newest). */
static inline void wqueue_sent_in(wqueue *q, uint32_t s, uint32_t *slot, uint64_t writer, uint64_t line,
                                  uint32_t mask, uint64_t t, uint64_t left)
{
    uint32_t n = q->n[s];
    q->hist[(size_t)s * WQUEUE_HISTORY + n % WQUEUE_HISTORY] =
        (wqueue_entry){.line = line, .writer = writer, .t = t, .left = left < t ? t : left, .gen = q->gen, .mask = mask};
    q->hist_t[(size_t)s * WQUEUE_HISTORY + n % WQUEUE_HISTORY] = t;
    *slot = n + 1u;
    q->n[s] = n + 1u;
}

#endif
