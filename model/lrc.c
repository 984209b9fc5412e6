/* lrc.c - the L2 request coalescer's table of read requests in flight, per
 * GPC (the rule and what is not modelled: lrc.h). */
#include "lrc.h"

#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "err.h"
#include "lrc_int.h"

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
    l->table = xcalloc_lines(bytes, 1, &l->table_raw);
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

lrc_outcome lrc_merge_from(lrc *l, lrc_set *set, uint32_t w, uint32_t sm, uint64_t line, uint32_t mask,
                           uint64_t t, uint32_t hit_sectors, uint32_t fetched_beside, uint64_t *ret)
{
    (void)line;
    /* the line's kept request: another mask, or this SM's own, and this one
     * takes its place (lrc_victim) */
    if (set->mask[w] != mask || set->sm[w] == sm)
        return LRC_NEW;
    uint64_t sent = set->sent[w], back = set->ret[w], r;
    if (sent <= t && t <= back + l->window)
        r = back; /* in flight (or just back): its data serves this one too */
    else if (t < sent && sent - t < back - sent)
        r = t + (back - sent); /* this one was first, and still in flight then */
    else
        return LRC_NEW;
    *ret = r;
    /* one L2 read serves LRC_SERVES SMs: every LRC_SERVES-th member of the
     * group is read from L2 again (its data is the group's) */
    if (set->served[w]++ % LRC_SERVES == 0)
        return LRC_READ_AGAIN;
    uint32_t n = cache_popcount(mask);
    l->counts.requests++;
    l->counts.sectors += n;
    l->counts.hit_sectors += hit_sectors < n ? hit_sectors : n;
    l->counts.fetched_beside += fetched_beside;
    return LRC_MERGED;
}

lrc_outcome lrc_merge(lrc *l, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t, uint32_t hit_sectors,
                      uint32_t fetched_beside, uint64_t *ret)
{
    lrc_set *set = lrc_set_of(l, sm, line, mask);
    lrc_outcome out = lrc_merge_in(l, set, sm, line, mask, t, hit_sectors, fetched_beside, ret);
    /* for lrc_sent: the way it will take */
    l->next_set = out == LRC_NEW ? set : NULL;
    l->next_way = lrc_victim(set, line);
    l->next_line = line;
    l->next_mask = mask;
    l->next_sm = sm;
    return out;
}

void lrc_sent(lrc *l, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t, uint64_t ret)
{
    lrc_set *set = l->next_set;
    uint32_t w = l->next_way;
    l->next_set = NULL;
    if (!set || l->next_line != line || l->next_mask != mask || l->next_sm != sm) {
        set = lrc_set_of(l, sm, line, mask);
        w = lrc_victim(set, line);
    }
    lrc_sent_in(set, w, sm, line, mask, t, ret);
}

lrc_counts lrc_get_counts(const lrc *l)
{
    return l->counts;
}

void lrc_counts_apply(const lrc_counts *m, stats *s)
{
    uint64_t hit = m->hit_sectors, miss = m->sectors - m->hit_sectors + m->fetched_beside;
    s->v[STAT_L2_REQ_READ] -= m->requests <= s->v[STAT_L2_REQ_READ] ? m->requests : s->v[STAT_L2_REQ_READ];
    s->v[STAT_L2_SECT_READ] -= m->sectors <= s->v[STAT_L2_SECT_READ] ? m->sectors : s->v[STAT_L2_SECT_READ];
    s->v[STAT_L2_SECT_READ_HIT] -= hit <= s->v[STAT_L2_SECT_READ_HIT] ? hit : s->v[STAT_L2_SECT_READ_HIT];
    s->v[STAT_L2_SECT_READ_MISS] -= miss <= s->v[STAT_L2_SECT_READ_MISS] ? miss : s->v[STAT_L2_SECT_READ_MISS];
}
