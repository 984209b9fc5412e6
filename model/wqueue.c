/* wqueue.c - the per-SM history of write requests that entered the queue
 * towards L2 (the rule and what is not modelled: wqueue.h). */
#include "wqueue.h"

#include <stdlib.h>
#include <string.h>

#include "err.h"

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

/* A line's slot in newest: Fibonacci hashing (the lines of one SM's CTAs lie
 * at multiples of large powers of two apart, which a plain modulo folds). */
static inline uint32_t line_slot(uint64_t line)
{
    return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 56);
}

struct wqueue {
    uint32_t sm_count;
    uint32_t gen;
    wqueue_entry *hist;  /* [sm_count][WQUEUE_HISTORY]: ring, the newest at (n[sm] - 1) % WQUEUE_HISTORY */
    uint32_t *n;     /* [sm_count] requests the SM's ring took in this kernel */
    /* [sm_count][WQ_SLOTS]: per line hash (line_slot), 1 + the ring position
     * (0 .. n - 1) of the newest request to such a line, 0 none: a request
     * looks at that one only, not the whole ring */
    uint32_t *newest;
    wqueue_counts counts;
};

wqueue *wqueue_create(uint32_t sm_count)
{
    wqueue *q = xcalloc(1, sizeof *q);
    q->sm_count = sm_count ? sm_count : 1u;
    q->hist = xcalloc((size_t)q->sm_count * WQUEUE_HISTORY, sizeof *q->hist);
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

/* wqueue_merge past its first test: the i-th newest request of s's ring is
 * the newest to a line of line's slot (kept apart so that the usual call,
 * which finds none, saves no registers). */
static __attribute__((noinline)) bool merge_into(wqueue *q, uint32_t s, uint32_t i, uint64_t writer, uint64_t line,
                                                 uint32_t mask, uint64_t t)
{
    wqueue_entry *e = nth_newest(q, s, i);
    if (!e || e->line != line || e->writer == writer || e->t > t || t >= e->left)
        return false;
    if (entered_between(q, s, i, e, t) >= WQUEUE_LOOKBACK)
        return false; /* waiting, but too far back for the comparison to reach */
    q->counts.requests++;
    q->counts.sectors += (uint32_t)__builtin_popcount(mask & e->mask);
    e->mask |= mask;
    return true;
}

bool wqueue_merge(wqueue *q, uint32_t sm, uint64_t writer, uint64_t line, uint32_t mask, uint64_t t)
{
    uint32_t s = sm < q->sm_count ? sm : 0;
    /* the newest request of the SM to this line (earlier ones to the same
     * line: only when it is a request of the same warp or one that entered
     * later than t, both rare) */
    uint32_t pos = q->newest[(size_t)s * WQ_SLOTS + line_slot(line)];
    if (pos == 0 || q->n[s] - (pos - 1u) > WQUEUE_HISTORY)
        return false;
    return merge_into(q, s, q->n[s] - pos /* 0: the newest of the ring */, writer, line, mask, t);
}

void wqueue_sent(wqueue *q, uint32_t sm, uint64_t writer, uint64_t line, uint32_t mask, uint64_t t, uint64_t left)
{
    uint32_t s = sm < q->sm_count ? sm : 0;
    q->hist[(size_t)s * WQUEUE_HISTORY + q->n[s] % WQUEUE_HISTORY] =
        (wqueue_entry){.line = line, .writer = writer, .t = t, .left = left < t ? t : left, .gen = q->gen, .mask = mask};
    q->newest[(size_t)s * WQ_SLOTS + line_slot(line)] = q->n[s] + 1u;
    q->n[s]++;
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
}
