/* lrc.c - the L2 request coalescer's table of read requests in flight, per
 * GPC (the rule and what is not modelled: lrc.h). */
#include "lrc.h"

#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "err.h"

/* A set of LRC_WAYS requests sent to L2, one array per field so that the
 * usual lookup (no identical request: the set's lines compared, the way to
 * take chosen) reads two cache lines of the four: the lines and the header.
 * Invariants, for a set whose gen is the table's: its requests are ways
 * 0 .. n - 1 (a way is only ever taken empty in order, or replaced; a reset
 * empties every set at once), the ways from n hold line UINT64_MAX (no line
 * number is that high), and when n == LRC_WAYS, win[] is the tournament of
 * their ret: win[0..3] the earlier-back way of each pair (0, 1) .. (6, 7),
 * win[4..5] of each half, win[6] of the set, ties to the lower way (so
 * win[6] is the first of the earliest back). A set whose gen is older is
 * empty, whatever it holds. */
typedef struct lrc_set {
    uint64_t line[LRC_WAYS];
    uint64_t ret[LRC_WAYS];  /* data back at the SM */
    uint64_t sent[LRC_WAYS]; /* at the LRC */
    uint32_t gen;            /* the table's gen when the set was last used (0 = never) */
    uint8_t n;               /* ways in use */
    uint8_t win[LRC_WAYS - 1u];
    uint8_t mask[LRC_WAYS];
    uint8_t served[LRC_WAYS]; /* members of its group, its sender included (mod 256) */
    uint16_t sm[LRC_WAYS];
    uint8_t pad[20];
} lrc_set;
_Static_assert(256u % LRC_SERVES == 0, "lrc_set.served wraps at a multiple of LRC_SERVES");
_Static_assert(LRC_WAYS == 8u, "lrc_set.win is a tournament of eight ways");
_Static_assert(sizeof(lrc_set) == 256, "lrc_set: four cache lines");

struct lrc {
    uint8_t *sm_gpc;    /* [sm_count] */
    uint32_t sm_count, gpcs;
    uint32_t window;
    uint32_t gen;
    lrc_set *table;     /* [gpcs][LRC_SETS], line-aligned */
    void *table_raw;    /* what to free */
    lrc_counts counts;
    /* the way lrc_sent will take for the request lrc_merge just found new,
     * so that lrc_sent need not look for it again */
    lrc_set *next_set;
    uint32_t next_way;
    uint64_t next_line;
    uint32_t next_mask, next_sm;
};

lrc *lrc_create(const uint8_t *sm_gpc, uint32_t sm_count, uint32_t window)
{
    lrc *l = xcalloc(1, sizeof *l);
    l->sm_gpc = xmalloc(sm_count);
    memcpy(l->sm_gpc, sm_gpc, sm_count);
    l->sm_count = sm_count;
    for (uint32_t s = 0; s < sm_count; s++)
        if (sm_gpc[s] + 1u > l->gpcs)
            l->gpcs = sm_gpc[s] + 1u;
    l->window = window;
    size_t bytes = (size_t)l->gpcs * LRC_SETS * sizeof *l->table;
    l->table_raw = xcalloc(bytes + 64u, 1);
    l->table = (lrc_set *)(((uintptr_t)l->table_raw + 63u) & ~(uintptr_t)63u);
    l->gen = 1;
    return l;
}

void lrc_destroy(lrc *l)
{
    if (!l)
        return;
    free(l->sm_gpc);
    free(l->table_raw);
    free(l);
}

void lrc_reset(lrc *l)
{
    l->gen++;
    if (l->gen == 0) { /* after a wrap, sets of an old kernel would look live */
        memset(l->table, 0, (size_t)l->gpcs * LRC_SETS * sizeof *l->table);
        l->gen = 1;
    }
    l->counts = (lrc_counts){0};
    l->next_set = NULL;
}

/* The set of GPC g that (line, mask) maps to (splitmix64's finalizer),
 * emptied first when it was last used before the latest reset. */
static inline lrc_set *set_of(const lrc *l, uint32_t sm, uint64_t line, uint32_t mask)
{
    uint64_t z = cache_mix64(line * 16u + mask);
    uint32_t g = sm < l->sm_count ? l->sm_gpc[sm] : 0;
    lrc_set *set = &l->table[(size_t)g * LRC_SETS + (z & (LRC_SETS - 1u))];
    if (set->gen != l->gen) {
        for (uint32_t w = 0; w < LRC_WAYS; w++)
            set->line[w] = UINT64_MAX;
        set->n = 0;
        set->gen = l->gen;
    }
    return set;
}

/* The earlier back of ways a < b (a on a tie). */
static inline uint8_t earlier(const lrc_set *set, uint32_t a, uint32_t b)
{
    return (uint8_t)(set->ret[b] < set->ret[a] ? b : a);
}

/* The tournament's matches on way w's path (the set is full). */
static inline void rematch(lrc_set *set, uint32_t w)
{
    uint32_t p = w >> 1, h = w >> 2;
    set->win[p] = earlier(set, 2u * p, 2u * p + 1u);
    set->win[4u + h] = earlier(set, set->win[2u * h], set->win[2u * h + 1u]);
    set->win[6] = earlier(set, set->win[4], set->win[5]);
}

/* lrc_merge's choice for a new request: the way lrc_sent will take, the
 * first empty, else the first of the earliest back. */
static inline lrc_outcome merge_new(lrc *l, lrc_set *set, uint32_t sm, uint64_t line, uint32_t mask)
{
    l->next_set = set;
    l->next_way = set->n < LRC_WAYS ? set->n : set->win[6];
    l->next_line = line;
    l->next_mask = mask;
    l->next_sm = sm;
    return LRC_NEW;
}

/* lrc_merge past its first look: way w is the first of set that holds
 * line; the first way from it that qualifies gets the request (kept apart
 * so that the usual call, which finds none, saves no registers). */
static __attribute__((noinline)) lrc_outcome merge_from(lrc *l, lrc_set *set, uint32_t w, uint32_t sm,
                                                       uint64_t line, uint32_t mask, uint64_t t,
                                                       uint32_t hit_sectors, uint64_t *ret)
{
    for (; w < set->n; w++) {
        if (set->line[w] != line || set->mask[w] != mask || set->sm[w] == sm)
            continue;
        uint64_t sent = set->sent[w], back = set->ret[w], r;
        if (sent <= t && t <= back + l->window)
            r = back; /* in flight (or just back): its data serves this one too */
        else if (t < sent && sent - t < back - sent)
            r = t + (back - sent); /* this one was first, and still in flight then */
        else
            continue;
        *ret = r;
        l->next_set = NULL;
        /* one L2 read serves LRC_SERVES SMs: every LRC_SERVES-th member of
         * the group is read from L2 again (its data is the group's) */
        if (set->served[w]++ % LRC_SERVES == 0)
            return LRC_READ_AGAIN;
        uint32_t n = cache_popcount(mask);
        l->counts.requests++;
        l->counts.sectors += n;
        l->counts.hit_sectors += hit_sectors < n ? hit_sectors : n;
        return LRC_MERGED;
    }
    return merge_new(l, set, sm, line, mask);
}

lrc_outcome lrc_merge(lrc *l, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t, uint32_t hit_sectors,
                      uint64_t *ret)
{
    lrc_set *set = set_of(l, sm, line, mask);
    /* the first way that holds the line (ways past n hold none): usually none */
#pragma GCC unroll 8
    for (uint32_t w = 0; w < LRC_WAYS; w++)
        if (set->line[w] == line)
            return merge_from(l, set, w, sm, line, mask, t, hit_sectors, ret);
    return merge_new(l, set, sm, line, mask);
}

void lrc_sent(lrc *l, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t, uint64_t ret)
{
    lrc_set *set = l->next_set;
    uint32_t w = l->next_way;
    l->next_set = NULL;
    if (!set || l->next_line != line || l->next_mask != mask || l->next_sm != sm) {
        set = set_of(l, sm, line, mask);
        w = set->n < LRC_WAYS ? set->n : set->win[6];
    }
    set->line[w] = line;
    set->sent[w] = t;
    set->ret[w] = ret < t ? t : ret;
    set->mask[w] = (uint8_t)mask;
    set->sm[w] = (uint16_t)sm;
    set->served[w] = 1;
    if (set->n == LRC_WAYS) {
        rematch(set, w);
    } else if (++set->n == LRC_WAYS) { /* full: the whole tournament */
        for (uint32_t p = 0; p < 4u; p++)
            set->win[p] = earlier(set, 2u * p, 2u * p + 1u);
        set->win[4] = earlier(set, set->win[0], set->win[1]);
        set->win[5] = earlier(set, set->win[2], set->win[3]);
        set->win[6] = earlier(set, set->win[4], set->win[5]);
    }
}

lrc_counts lrc_get_counts(const lrc *l)
{
    return l->counts;
}

void lrc_counts_apply(const lrc_counts *m, stats *s)
{
    uint64_t hit = m->hit_sectors, miss = m->sectors - m->hit_sectors;
    s->v[STAT_L2_REQ_READ] -= m->requests <= s->v[STAT_L2_REQ_READ] ? m->requests : s->v[STAT_L2_REQ_READ];
    s->v[STAT_L2_SECT_READ] -= m->sectors <= s->v[STAT_L2_SECT_READ] ? m->sectors : s->v[STAT_L2_SECT_READ];
    s->v[STAT_L2_SECT_READ_HIT] -= hit <= s->v[STAT_L2_SECT_READ_HIT] ? hit : s->v[STAT_L2_SECT_READ_HIT];
    s->v[STAT_L2_SECT_READ_MISS] -= miss <= s->v[STAT_L2_SECT_READ_MISS] ? miss : s->v[STAT_L2_SECT_READ_MISS];
}
