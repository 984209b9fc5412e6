/* wqueue.h - an SM's queue of write requests towards L2 as the timing layer
 * sees it: a store to a 128-byte line whose request from the same SM is
 * still OPEN merges into it (docs/findings.md §6, §6b, §22a, §24;
 * docs/timing.md "The SM's write queue").
 *
 * Per SM, write requests wait in a queue that is drained at the L1-to-L2
 * write rate (findings §6b). A request is OPEN while it waits there and for
 * WQUEUE_OPEN_CYCLES after it entered, whichever is longer: stores of a
 * CTA's warps issued together after a barrier merge even when nothing else
 * waits, 8 cycles apart a request gathers about three warps' stores, 32
 * apart none (findings §22a, kernels/storemerge.cu). A merged request is one
 * request fewer, and a sector both wrote partly is sent once.
 *
 * This module is the bookkeeping only: the caller says when a request
 * entered the queue (t) and when it left it (left: the caller's drain
 * calendar decides; the SM's read requests take slots of it too, one each,
 * findings §6c, but are not in this history: no write merges into a read,
 * and the lookback counts write requests). A request is WAITING in
 * [t, left) and open until wqueue_open_until(t, left). A new request looks
 * at its SM's newest request to the same line: it merges into it when that
 * one belongs to another warp, entered at or before it and is still open,
 * and no more than WQUEUE_LOOKBACK - 1 requests entered between the two (by
 * cycle; replay order breaks ties). The lookback is bounded by a
 * measurement, not fitted: transpose_naive's warp stores are 32 one-sector
 * requests each, and the next warp of its CTA writes the same 32 lines
 * while the first's wait (the queue drains one sector a cycle); the H200
 * merges none of them (524,288 write requests), which a comparison reaching
 * 32 requests back would (docs/timing.md).
 * A warp's own consecutive stores to a line (one run, which the functional
 * model's store combining, wcomb.h, merged into one request) merge by the
 * same rule: into the run's request while it is open and no more than
 * WQUEUE_LOOKBACK - 1 requests entered between (wqueue_join_open; the
 * caller keeps the run's requests); otherwise the later store is a request
 * of its own, counted as a split (findings §24: 16 or 32 warps storing four
 * floats of a line each, one store after another after a barrier, reach L2
 * as 2.6 and 3.2 requests a line, 4 and 8 warps as one).
 *
 * Requests arrive in replay order, which is not time order across warps:
 * a request that arrives late in the replay but entered early in time is
 * compared with the history as the replay left it (the WQUEUE_HISTORY requests
 * replayed last on its SM), and a request that entered LATER than the new one
 * is not a candidate. Only the newest request to a line is looked at (an
 * older one of another warp behind a newer one that does not qualify is
 * missed: 1-3% of writeSegment's merges against a scan of the whole history,
 * docs/timing.md). Memory is fixed at wqueue_create (per SM WQUEUE_HISTORY
 * entries and a table of their lines); no allocation per request. Not modelled: a limit on the queue's
 * length and the stall it would cause, local stores (a local line belongs to
 * one warp), the slice lookups a merged request saves (the timing layer
 * still books every functional write request). */
#ifndef GMS_WQUEUE_H
#define GMS_WQUEUE_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

#define WQUEUE_LOOKBACK 31u /* requests a new one is compared with: fewer than 32 (transpose_naive) */
#define WQUEUE_HISTORY 64u  /* requests remembered per SM, in replay order (>= WQUEUE_LOOKBACK) */
/* cycles a request takes later stores to its line after it entered, waiting
 * or not: a write request stays open for about 16-24 cycles (findings §22a:
 * two warps' stores after a barrier merge, 8 cycles apart a request gathers
 * about three warps' stores, 32 apart none) */
#define WQUEUE_OPEN_CYCLES 20u

typedef struct wqueue wqueue;

/* What the queues merged in one kernel: the functional model sent every
 * request on its own, so its L1-to-L2 and L2 write counters are too high by
 * these. */
typedef struct wqueue_counts {
    uint64_t requests; /* write requests merged into a waiting one */
    uint64_t sectors;  /* sectors both requests wrote (sent once) */
    /* and too low by these: stores of a warp's run that store combining
     * merged but that left apart (wqueue_join_own) */
    uint64_t split_requests;
    uint64_t split_sectors; /* sectors written by the split store and earlier ones of its request */
} wqueue_counts;

wqueue *wqueue_create(uint32_t sm_count);
void wqueue_destroy(wqueue *q);
/* Forget every request and zero the counts (a new kernel). */
void wqueue_reset(wqueue *q);

/* A write request of warp `writer` (any id unique per warp of the kernel) of
 * SM sm for line's sectors mask enters the SM's queue at cycle t. When the
 * SM's newest request to the line qualifies (see above), the new one merges
 * into it: returns true and adds it to the counts (the sectors both wrote are
 * sent once). Otherwise returns false: the caller drains it and calls
 * wqueue_sent. */
bool wqueue_merge(wqueue *q, uint32_t sm, uint64_t writer, uint64_t line, uint32_t mask, uint64_t t);
/* A store that store combining merged with an earlier store of its warp's
 * run (gpu_event.combined), entering SM sm's queue at t: whether the run's
 * request to its line, which entered at t0 and left at left (the caller
 * keeps them), still takes it (see above). When not, the caller counts it
 * with wqueue_split, drains it and calls wqueue_sent. */
bool wqueue_join_open(const wqueue *q, uint32_t sm, uint64_t t0, uint64_t left, uint64_t t);
/* A store of a run left on its own: one request more, and the sectors of
 * overlap (those the run's earlier stores to the line wrote too) sent again. */
void wqueue_split(wqueue *q, uint32_t overlap);
/* The request (not merged) entered at t and left the queue at left (>= t). */
void wqueue_sent(wqueue *q, uint32_t sm, uint64_t writer, uint64_t line, uint32_t mask, uint64_t t, uint64_t left);

/* The counts since the last reset. */
wqueue_counts wqueue_get_counts(const wqueue *q);

/* Take the merged requests out of the functional write counters of s: L2
 * write requests and sectors, L1-to-L2 write sectors, and of the sectors the
 * L2 write hits first (the other request wrote them just before: resident),
 * the rest from the misses. */
void wqueue_counts_apply(const wqueue_counts *m, stats *s);

#endif
