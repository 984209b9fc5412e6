/* wqueue.c - the per-SM history of write requests that entered the queue
 * towards L2 (the rule and what is not modelled: wqueue.h). */
#include "wqueue.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "wqueue_int.h"

wqueue *wqueue_create(uint32_t sm_count)
{
    wqueue *q = xcalloc(1, sizeof *q);
    q->sm_count = sm_count ? sm_count : 1u;
    q->hist = xcalloc((size_t)q->sm_count * WQUEUE_HISTORY, sizeof *q->hist);
    q->hist_t = xcalloc((size_t)q->sm_count * WQUEUE_HISTORY, sizeof *q->hist_t);
    q->n = xcalloc(q->sm_count, sizeof *q->n);
    q->newest = xcalloc((size_t)q->sm_count * WQ_SLOTS, sizeof *q->newest);
    q->gen = 1;
    return q;
}

void wqueue_destroy(wqueue *q)
{
    if (!q)
        return;
    free(q->hist);
    free(q->hist_t);
    free(q->n);
    free(q->newest);
    free(q);
}

void wqueue_reset(wqueue *q)
{
    q->gen++;
    if (q->gen == 0) { /* after a wrap, entries of an old kernel would look live */
        memset(q->hist, 0, (size_t)q->sm_count * WQUEUE_HISTORY * sizeof *q->hist);
        q->gen = 1;
    }
    memset(q->n, 0, q->sm_count * sizeof *q->n);
    memset(q->newest, 0, (size_t)q->sm_count * WQ_SLOTS * sizeof *q->newest);
    q->counts = (wqueue_counts){0};
}

/* The i-th newest request of SM s's history (i = 0: the newest), or NULL. */
static wqueue_entry *nth_newest(const wqueue *q, uint32_t s, uint32_t i)
{
    if (i >= WQUEUE_HISTORY || i >= q->n[s])
        return NULL;
    wqueue_entry *e = &q->hist[(size_t)s * WQUEUE_HISTORY + (q->n[s] - 1u - i) % WQUEUE_HISTORY];
    return e->gen == q->gen ? e : NULL;
}

/* How many requests of s's history entered at or before t and after e
 * (at e's cycle too when newer in replay order, i-th newest being e). */
static uint32_t entered_between(const wqueue *q, uint32_t s, uint32_t i, const wqueue_entry *e, uint64_t t)
{
    uint32_t later = 0;
    for (uint32_t j = 0;; j++) {
        const wqueue_entry *o = nth_newest(q, s, j);
        if (!o)
            break;
        if (j != i && o->t <= t && (o->t > e->t || (o->t == e->t && j < i)))
            later++;
    }
    return later;
}

bool wqueue_merge_ith(wqueue *q, uint32_t s, uint32_t i, uint64_t writer, uint64_t line, uint32_t mask, uint64_t t)
{
    wqueue_entry *e = nth_newest(q, s, i);
    if (!e || e->line != line || e->writer == writer || e->t > t || t >= wqueue_open_until(e->t, e->left))
        return false;
    if (entered_between(q, s, i, e, t) >= WQUEUE_LOOKBACK)
        return false; /* open, but too far back for the comparison to reach */
    q->counts.requests++;
    q->counts.sectors += (uint32_t)__builtin_popcount(mask & e->mask);
    e->mask |= mask;
    return true;
}

bool wqueue_join_open(const wqueue *q, uint32_t sm, uint64_t t0, uint64_t left, uint64_t t)
{
    if (t0 > t || t >= wqueue_open_until(t0, left))
        return false;
    /* the requests that entered in (t0, t], as far as the history reaches:
     * the ring's entries of this kernel, in any order (slots 0 .. n - 1
     * until the ring is full) */
    uint32_t s = wqueue_sm(q, sm), since = 0;
    uint32_t n = q->n[s] < WQUEUE_HISTORY ? q->n[s] : WQUEUE_HISTORY;
    const uint64_t *ht = &q->hist_t[(size_t)s * WQUEUE_HISTORY];
    for (uint32_t j = 0; j < n; j++)
        since += ht[j] - t0 - 1u < t - t0; /* t0 < ht[j] <= t */
    return since < WQUEUE_LOOKBACK;
}

void wqueue_split(wqueue *q, uint32_t overlap)
{
    q->counts.split_requests++;
    q->counts.split_sectors += (uint32_t)__builtin_popcount(overlap);
}

bool wqueue_merge(wqueue *q, uint32_t sm, uint64_t writer, uint64_t line, uint32_t mask, uint64_t t)
{
    uint32_t s = wqueue_sm(q, sm);
    return wqueue_merge_in(q, s, wqueue_newest(q, s, line), writer, line, mask, t);
}

void wqueue_sent(wqueue *q, uint32_t sm, uint64_t writer, uint64_t line, uint32_t mask, uint64_t t, uint64_t left)
{
    uint32_t s = wqueue_sm(q, sm);
    wqueue_sent_in(q, s, wqueue_newest(q, s, line), writer, line, mask, t, left);
}

wqueue_counts wqueue_get_counts(const wqueue *q)
{
    return q->counts;
}

/* v -= n, never below 0 */
static void take(uint64_t *v, uint64_t n)
{
    *v -= n <= *v ? n : *v;
}

void wqueue_counts_apply(const wqueue_counts *m, stats *s)
{
    uint64_t hit = m->sectors <= s->v[STAT_L2_SECT_WRITE_HIT] ? m->sectors : s->v[STAT_L2_SECT_WRITE_HIT];
    take(&s->v[STAT_L2_REQ_WRITE], m->requests);
    take(&s->v[STAT_L2_SECT_WRITE], m->sectors);
    take(&s->v[STAT_L1_M_WRITE_SECTORS], m->sectors);
    take(&s->v[STAT_L2_SECT_WRITE_HIT], hit);
    take(&s->v[STAT_L2_SECT_WRITE_MISS], m->sectors - hit);
    /* a split store's request finds its line just written: L2 hits */
    s->v[STAT_L2_REQ_WRITE] += m->split_requests;
    s->v[STAT_L2_SECT_WRITE] += m->split_sectors;
    s->v[STAT_L1_M_WRITE_SECTORS] += m->split_sectors;
    s->v[STAT_L2_SECT_WRITE_HIT] += m->split_sectors;
}
