/* lrc.c - the L2 request coalescer's table of read requests in flight, per
 * GPC (the rule and what is not modelled: lrc.h). */
#include "lrc.h"

#include <stdlib.h>
#include <string.h>

#include "cache.h"
#include "err.h"
#include "lrc_int.h"

lrc *lrc_create(const uint8_t *sm_gpc, uint32_t sm_count, uint32_t window, const uint8_t *gpc_partition,
                uint32_t n_gpc_partition, uint32_t far_void)
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
    l->dir = xcalloc_lines((size_t)LRC_DIR_SETS * LRC_DIR_WAYS, sizeof *l->dir, &l->dir_raw);
    l->gen = 1;
    l->far_void = far_void;
    l->gpc_part = xcalloc(l->gpcs, 1); /* no map: one partition */
    for (uint32_t g = 0; g < l->gpcs && gpc_partition && g < n_gpc_partition; g++)
        l->gpc_part[g] = gpc_partition[g];
    return l;
}

/* End the kept requests of line, other than of mask, in the GPCs of gpcs
 * (bits g % 16) but g: at once (same, in the same partition as g), or for
 * requests sent from t + far_void on. */
static void lrc_end_kept(lrc *l, uint32_t g, size_t index, uint32_t gpcs, uint64_t line, uint32_t mask, uint64_t t,
                         bool same)
{
    for (uint32_t h = 0; h < l->gpcs; h++) {
        if (h == g || !(gpcs >> (h % 16u) & 1u))
            continue;
        lrc_set *other = &l->table[(size_t)h * LRC_SETS + index];
        if (other->gen != l->gen)
            continue; /* empty since the last reset */
        for (uint32_t w = 0; w < LRC_WAYS; w++) {
            if (other->line[w] != line)
                continue;
            if (other->mask[w] == mask) {
                /* the same request: it stays */
            } else if (same) {
                other->mask[w] = 0; /* no request has no sector: it merges none from now */
            } else if (t + l->far_void > other->sent[w]) { /* sent before the end comes */
                uint64_t after = t + l->far_void - other->sent[w];
                if (after < other->void_after[w])
                    other->void_after[w] = (uint16_t)(after < UINT16_MAX ? after : UINT16_MAX - 1u);
            }
            break;
        }
    }
}

void lrc_kept(lrc *l, uint32_t sm, const lrc_set *set, uint64_t line, uint32_t mask, uint64_t t, uint64_t ret)
{
    uint32_t g = sm < l->sm_count ? l->sm_gpc[sm] : 0, p = l->gpc_part[g] % LRC_DIR_PARTS;
    uint16_t bit = (uint16_t)(1u << (g % 16u));
    lrc_dir_entry *d = lrc_dir_of(l, cache_mix64(line)), *e = NULL;
    for (uint32_t w = 0; w < LRC_DIR_WAYS; w++)
        if (d[w].line == line && d[w].gen == l->gen)
            e = &d[w];
    if (!e) { /* none kept (or its record was pushed out): an empty entry, else the one back first */
        e = &d[0];
        for (uint32_t w = 0; w < LRC_DIR_WAYS; w++) {
            if (d[w].gen != l->gen || d[w].ret <= t) {
                e = &d[w];
                break;
            }
            if (d[w].ret < e->ret)
                e = &d[w];
        }
        *e = (lrc_dir_entry){.line = line, .ret = ret, .gen = l->gen};
        e->mask[p] = (uint8_t)mask;
        e->gpcs[p] = bit;
        return;
    }
    size_t index = (size_t)(set - l->table) - (size_t)g * LRC_SETS;
    for (uint32_t q = 0; q < LRC_DIR_PARTS; q++) /* another mask kept in a partition: end those */
        if (e->mask[q] && e->mask[q] != mask)
            lrc_end_kept(l, g, index, e->gpcs[q], line, mask, t, q == p);
    if (e->mask[p] != mask) { /* its partition's view of the line is this request now */
        e->mask[p] = (uint8_t)mask;
        e->gpcs[p] = 0;
    }
    e->gpcs[p] |= bit;
    if (ret > e->ret)
        e->ret = ret;
}

void lrc_destroy(lrc *l)
{
    if (!l)
        return;
    free(l->sm_gpc);
    free(l->table_raw);
    free(l->dir_raw);
    free(l->gpc_part);
    free(l);
}

void lrc_reset(lrc *l)
{
    l->gen++;
    if (l->gen == 0) { /* after a wrap, sets of an old kernel would look live */
        memset(l->table, 0, (size_t)l->gpcs * LRC_SETS * sizeof *l->table);
        memset(l->dir, 0, (size_t)LRC_DIR_SETS * LRC_DIR_WAYS * sizeof *l->dir);
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
    uint64_t voided = set->void_after[w] == UINT16_MAX ? UINT64_MAX : sent + set->void_after[w];
    if (sent <= t && t <= back + l->window && t < voided)
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
    lrc_keep(l, set, w, sm, line, mask, t, ret);
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
