/* lrc.h - Hopper's L2 request coalescer (LRC) as the timing layer sees it:
 * per GPC, the L2 read requests in flight, and whether a new read request is
 * the same as one another SM of its GPC has in flight (docs/findings.md §2b).
 *
 * The rule, measured on the H200 (findings §2b, §2e): the LRC merges a
 * read request only with a request of ANOTHER SM of the SAME GPC for the
 * same 128-byte line AND the same sector mask, while the first one is in
 * flight: for its whole round trip from its SM (the caller's times). And it
 * keeps ONE request per line: a read of a line that the line's kept request
 * does not merge (another mask, or its own SM's) takes its place, so two SMs
 * reading a line's sectors in different orders, or at random, seldom meet
 * (findings §2e, ninth session: 4 warps of each of two SMs reading one
 * sector of the same 32 lines, in step, merge none of the 128; whole lines
 * all). One L2 read serves at most LRC_SERVES SMs: of a group of n
 * identical requests in flight together, ceil(n / LRC_SERVES) are read from
 * L2 (findings §2c). SMs of different GPCs never merge, but a line's
 * kept requests answer to every GPC of its L2 partition: a read of the line
 * with another mask from any of them ends the other GPCs' kept requests of
 * it (they merge no more; findings §2f: 8 SMs of GPCs 0, 4 and 5 reading
 * sector 0 of 256 lines merge all they can alone and ~25% of it beside 8
 * SMs of GPCs 5, 6 and 7 reading sector 1 of them, as a transpose's readers
 * do; identical reads of other GPCs leave them). One from the other
 * partition's GPCs ends them only for requests sent far_void or more after
 * it (lrcpair xgpc: ~350 cycles; in bulk hardly at all).
 *
 * Times are what the caller says (SM cycles). Requests arrive in the
 * replay's order, which is not time order across SMs, so a request may
 * find in the table one that is LATER in time: when the later one arrived
 * while the earlier (this one) would still have been in flight, the pair
 * still meets, and one of the two merges. The line's kept request is the
 * latest in replay order (a choice, measured: kept by the model's own
 * cycles instead, the latest sent at or before each request, the matrix
 * products and spmv merge far too much, docs/timing.md; the model's SMs
 * run more in step than the H200's, whose identical requests are tens of
 * cycles apart, findings §2e).
 *
 * Memory is fixed at lrc_create: per GPC a set-associative table of
 * LRC_SETS x LRC_WAYS lines; a full set replaces its line whose data came
 * back earliest (the hardware's capacity is not known); and a directory of
 * lines with kept requests (lrc_int.h), which finds the GPCs to tell.
 * No allocation per request. Not modelled: the LRC's own latency and
 * bandwidth, atomics and writes (never merged), requests folded by the
 * observer (gpu.h GPU_OBS_MAX_L2: never merged). */
#ifndef GMS_LRC_H
#define GMS_LRC_H

#include <stdbool.h>
#include <stdint.h>

#include "stats.h"

#define LRC_WAYS 8u
#define LRC_SETS 512u
/* SMs one L2 read's data serves, its sender included: measured on the H200,
 * k SMs of one GPC reading the same sectors at once cost ceil(k / 4) L2 reads
 * of them, for requests of 1, 2 and 4 sectors (docs/findings.md §2c). */
#define LRC_SERVES 4u

typedef struct lrc lrc;

/* What the LRC merged in one kernel: those requests never reached an L2
 * slice, so the functional L2 read counters (which count every request that
 * left an L1) are too high by these. */
typedef struct lrc_counts {
    uint64_t requests;     /* merged read requests */
    uint64_t sectors;      /* their sectors */
    uint64_t hit_sectors;  /* of those, sectors the functional model counted as L2 hits */
    uint64_t fetched_beside; /* sectors their functional reads fetched beyond those asked for
                              * (l2.fetch_sectors), lookup misses too */
} lrc_counts;

/* sm_gpc[s]: the GPC of SM s, for s < sm_count; gpcs: 1 + the largest.
 * window: cycles after the first request's data came back during which an
 * identical request still merges (0: only while in flight).
 * gpc_partition[g]: the L2 partition of GPC g, for g < n_gpc_partition
 * (NULL: one partition). far_void: cycles after a read of a line with
 * another mask from a GPC of the other partition from which the line's kept
 * requests no longer merge. */
lrc *lrc_create(const uint8_t *sm_gpc, uint32_t sm_count, uint32_t window, const uint8_t *gpc_partition,
                uint32_t n_gpc_partition, uint32_t far_void);
void lrc_destroy(lrc *l);
/* Forget every request and zero the counts (a new kernel). */
void lrc_reset(lrc *l);

/* What lrc_merge decided for a read request. */
typedef enum lrc_outcome {
    LRC_NEW,        /* no identical request in flight: send it and call lrc_sent */
    LRC_MERGED,     /* merged: it gets the data of the one in flight, books no L2 */
    LRC_READ_AGAIN  /* in flight together with one that already serves LRC_SERVES
                     * SMs: it is read from L2 (booked, counted), and its data is
                     * back no earlier than the group's; do not call lrc_sent */
} lrc_outcome;

/* A read request of SM sm for line's sectors mask leaving its SM at cycle
 * t. When its line's kept request is an identical one of another SM of its
 * GPC, in flight, sets *ret to the cycle the group's data is back at the SM
 * (the kept request's return, or for a pair met out of replay order t plus
 * the kept one's time in flight) and merges it (added to the counts; hit_sectors: what the
 * functional model counted as L2 hits of it, fetched_beside: the sectors its
 * functional read fetched beyond mask) or, every LRC_SERVES-th member of
 * the group, has it read again. */
lrc_outcome lrc_merge(lrc *l, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t, uint32_t hit_sectors,
                      uint32_t fetched_beside, uint64_t *ret);
/* The request (not merged) was sent to L2 at t; its data is back at ret. It
 * becomes its line's kept request. */
void lrc_sent(lrc *l, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t, uint64_t ret);

/* The counts since the last reset. */
lrc_counts lrc_get_counts(const lrc *l);

/* Take the merged requests out of the functional L2 read counters of s: read
 * requests and sectors, and of the sectors the hits (the rest, and the
 * sectors fetched beside them, are misses). */
void lrc_counts_apply(const lrc_counts *m, stats *s);

#endif
