/* lrc.c - the L2 request coalescer's table of read requests in flight, per
 * GPC (the rule and what is not modelled: lrc.h). */
#include "lrc.h"

#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "err.h"

/* One request sent to L2. gen: the kernel that sent it (0 = empty), so that
 * lrc_reset forgets every request without clearing the table. */
typedef struct lrc_entry {
    uint64_t line;
    uint64_t sent, ret; /* at the LRC; data back at the SM */
    uint32_t gen;
    uint16_t sm;
    uint8_t mask;
    uint8_t served; /* members of its group, its sender included (mod 256) */
} lrc_entry;
_Static_assert(256u % LRC_SERVES == 0, "lrc_entry.served wraps at a multiple of LRC_SERVES");
_Static_assert(sizeof(lrc_entry) == 32, "lrc_entry: two per cache line");

struct lrc {
    uint8_t *sm_gpc;    /* [sm_count] */
    uint32_t sm_count, gpcs;
    uint32_t window;
    uint32_t gen;
    lrc_entry *table;   /* [gpcs][LRC_SETS][LRC_WAYS] */
    lrc_counts counts;
    /* the way lrc_sent will take for the request lrc_merge just found new
     * (its scan saw the whole set), so that lrc_sent need not scan it again */
    lrc_entry *next_victim;
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
    l->table = xcalloc((size_t)l->gpcs * LRC_SETS * LRC_WAYS, sizeof *l->table);
    l->gen = 1;
    return l;
}

void lrc_destroy(lrc *l)
{
    if (!l)
        return;
    free(l->sm_gpc);
    free(l->table);
    free(l);
}

void lrc_reset(lrc *l)
{
    l->gen++;
    if (l->gen == 0) { /* after a wrap, entries of an old kernel would look live */
        memset(l->table, 0, (size_t)l->gpcs * LRC_SETS * LRC_WAYS * sizeof *l->table);
        l->gen = 1;
    }
    l->counts = (lrc_counts){0};
    l->next_victim = NULL;
}

/* The set of GPC g that (line, mask) maps to (splitmix64's finalizer). */
static inline lrc_entry *set_of(const lrc *l, uint32_t sm, uint64_t line, uint32_t mask)
{
    uint64_t z = cache_mix64(line * 16u + mask);
    uint32_t g = sm < l->sm_count ? l->sm_gpc[sm] : 0;
    return &l->table[((size_t)g * LRC_SETS + (z & (LRC_SETS - 1u))) * LRC_WAYS];
}

lrc_outcome lrc_merge(lrc *l, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t, uint32_t hit_sectors,
                      uint64_t *ret)
{
    lrc_entry *set = set_of(l, sm, line, mask);
    /* the way lrc_sent would take: the first empty way, else the first of
     * the earliest back (each way's ret compared with a register, not with
     * the victim's entry: a set is read 666,672 times in 1M coalesced records) */
    lrc_entry *empty = NULL, *oldest = &set[0];
    uint64_t oldest_ret = set[0].ret;
    const uint32_t gen = l->gen;
    l->next_victim = NULL;
#pragma GCC unroll 8
    for (uint32_t w = 0; w < LRC_WAYS; w++) {
        lrc_entry *e = &set[w];
        if (e->gen != gen) {
            if (!empty)
                empty = e;
            continue;
        }
        /* branch-free: which way came back earliest is a coin toss */
        bool older = e->ret < oldest_ret;
        oldest_ret = older ? e->ret : oldest_ret;
        oldest = older ? e : oldest;
        if (e->line != line || e->mask != mask || e->sm == sm)
            continue;
        uint64_t r;
        if (e->sent <= t && t <= e->ret + l->window)
            r = e->ret; /* in flight (or just back): its data serves this one too */
        else if (t < e->sent && e->sent - t < e->ret - e->sent)
            r = t + (e->ret - e->sent); /* this one was first, and still in flight then */
        else
            continue;
        *ret = r;
        /* one L2 read serves LRC_SERVES SMs: every LRC_SERVES-th member of
         * the group is read from L2 again (its data is the group's) */
        if (e->served++ % LRC_SERVES == 0)
            return LRC_READ_AGAIN;
        uint32_t n = cache_popcount(mask);
        l->counts.requests++;
        l->counts.sectors += n;
        l->counts.hit_sectors += hit_sectors < n ? hit_sectors : n;
        return LRC_MERGED;
    }
    l->next_victim = empty ? empty : oldest;
    l->next_line = line;
    l->next_mask = mask;
    l->next_sm = sm;
    return LRC_NEW;
}

void lrc_sent(lrc *l, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t, uint64_t ret)
{
    lrc_entry *victim = l->next_victim;
    l->next_victim = NULL;
    if (!victim || l->next_line != line || l->next_mask != mask || l->next_sm != sm) {
        lrc_entry *set = set_of(l, sm, line, mask);
        /* an empty way, else the request whose data came back earliest */
        victim = &set[0];
        for (uint32_t w = 0; w < LRC_WAYS; w++) {
            lrc_entry *e = &set[w];
            if (e->gen != l->gen) {
                victim = e;
                break;
            }
            if (e->ret < victim->ret)
                victim = e;
        }
    }
    *victim = (lrc_entry){.line = line, .sent = t, .ret = ret < t ? t : ret, .gen = l->gen,
                          .sm = (uint16_t)sm, .mask = (uint8_t)mask, .served = 1};
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
