/* lrc_int.h - private to the L2 request coalescer (lrc.c) and its one hot
 * caller, the timing layer (timing.c): the table's layout, and the lookup of
 * a read request and the record of one sent, inline, so that a read request
 * costs the timing layer no two calls (of seven and six arguments) and no
 * look-up of the way its lookup already chose (the rule: lrc.h). */
#ifndef GMS_LRC_INT_H
#define GMS_LRC_INT_H

#include <stdbool.h>
#include <stdint.h>

#include "cache.h"
#include "err.h"
#include "lrc.h"

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
    /* a read of the line with another mask from a GPC of the other L2
     * partition: requests sent this long after the kept one was no longer
     * merge with it (UINT16_MAX: none; lrc_kept) */
    uint16_t void_after[LRC_WAYS];
    uint8_t pad[4];
} lrc_set;
_Static_assert(256u % LRC_SERVES == 0, "lrc_set.served wraps at a multiple of LRC_SERVES");
_Static_assert(LRC_WAYS == 8u, "lrc_set.win is a tournament of eight ways");
_Static_assert(sizeof(lrc_set) == 256, "lrc_set: four cache lines");

/* The line directory (findings §2f): for a line with kept requests, per L2
 * partition, the mask its GPCs' kept requests were sent with and the GPCs
 * that may keep one (bit g % 16 for GPC g; a bit stays after its GPC's
 * table dropped the line, and a look there finds nothing), and when the
 * last of them is back; so that a request with another mask finds the kept
 * requests to end without a look in every GPC's table. Per partition,
 * because one from the other partition ends them only far_void later, and
 * until then they stay its GPCs' view of the line. Sets of two on other
 * bits of the line's hash than the tables' sets; a line takes an entry
 * whose requests are all back (or of an older kernel), else the one back
 * first: that line's kept requests then merge on as though no other mask
 * came. */
#define LRC_DIR_SETS (1u << 14)
#define LRC_DIR_WAYS 2u
#define LRC_DIR_PARTS 4u /* partitions tracked (a GPC's partition mod this) */
typedef struct lrc_dir_entry {
    uint64_t line;
    uint64_t ret;  /* the latest return of its kept requests */
    uint32_t gen;  /* the table's gen when written: older is empty */
    uint8_t mask[LRC_DIR_PARTS]; /* 0: none kept in that partition */
    uint16_t gpcs[LRC_DIR_PARTS];
} lrc_dir_entry;
_Static_assert(sizeof(lrc_dir_entry) * LRC_DIR_WAYS == 64, "a directory set: one cache line");

struct lrc {
    uint8_t *sm_gpc;    /* [sm_count] */
    uint32_t sm_count, gpcs;
    uint32_t window;
    uint32_t far_void; /* lrc_create's */
    uint32_t gen;
    uint8_t *gpc_part; /* [gpcs]: each GPC's L2 partition */
    lrc_set *table;     /* [gpcs][LRC_SETS], line-aligned */
    void *table_raw;    /* what to free */
    lrc_dir_entry *dir; /* [LRC_DIR_SETS][LRC_DIR_WAYS], line-aligned */
    void *dir_raw;
    lrc_counts counts;
    /* the way lrc_sent will take for the request lrc_merge just found new,
     * so that lrc_sent need not look for it again */
    lrc_set *next_set;
    uint32_t next_way;
    uint64_t next_line;
    uint32_t next_mask, next_sm;
};

/* The set of line for a request of SM sm (splitmix64's finalizer of the
 * line, in its GPC's table), emptied first when it was last used before the
 * latest reset. mask: the request's (the set does not depend on it: a line
 * keeps one request, whatever its mask). */
static inline lrc_set *lrc_set_of(const lrc *l, uint32_t sm, uint64_t line, uint32_t mask)
{
    (void)mask;
    uint64_t z = cache_mix64(line);
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

/* The line's directory set (the hash's bits above the tables' sets). */
static inline lrc_dir_entry *lrc_dir_of(const lrc *l, uint64_t z)
{
    return &l->dir[((z >> 32) & (LRC_DIR_SETS - 1u)) * LRC_DIR_WAYS];
}

/* A hint that a read request of SM sm for line comes soon: the set's four
 * cache lines (its lines, their returns and sends, the header), which its
 * lookup and send read and write, and the line's directory entry
 * (tlb_touch: without it the prefetch did nothing, err.h). */
static inline void lrc_prefetch(const lrc *l, uint32_t sm, uint64_t line)
{
    uint32_t g = sm < l->sm_count ? l->sm_gpc[sm] : 0;
    uint64_t z = cache_mix64(line);
    const lrc_set *set = &l->table[(size_t)g * LRC_SETS + (z & (LRC_SETS - 1u))];
    set = tlb_touch(l->table, set);
    __builtin_prefetch(set->line, 1);
    __builtin_prefetch(set->ret, 1);
    __builtin_prefetch(set->sent, 1);
    __builtin_prefetch(&set->gen, 1);
    __builtin_prefetch(tlb_touch(l->dir, lrc_dir_of(l, z)), 1);
}

/* The way of set a new request for line takes: the line's own (a line
 * keeps one request), else the first empty, else the first of the earliest
 * back. */
static inline uint32_t lrc_victim(const lrc_set *set, uint64_t line)
{
#pragma GCC unroll 8
    for (uint32_t w = 0; w < LRC_WAYS; w++)
        if (set->line[w] == line)
            return w;
    return set->n < LRC_WAYS ? set->n : set->win[6];
}

/* lrc_merge_in past its first look: way w of set holds line's kept request
 * (out of line: the usual lookup finds none). */
lrc_outcome lrc_merge_from(lrc *l, lrc_set *set, uint32_t w, uint32_t sm, uint64_t line, uint32_t mask,
                           uint64_t t, uint32_t hit_sectors, uint32_t fetched_beside, uint64_t *ret);

/* lrc_merge in set (lrc_set_of's): LRC_NEW when the line's kept request
 * does not merge it (then lrc_victim(set, line) is the way for lrc_keep). */
static inline lrc_outcome lrc_merge_in(lrc *l, lrc_set *set, uint32_t sm, uint64_t line, uint32_t mask,
                                       uint64_t t, uint32_t hit_sectors, uint32_t fetched_beside,
                                       uint64_t *ret)
{
    /* the way that holds the line (ways past n hold none): usually none */
#pragma GCC unroll 8
    for (uint32_t w = 0; w < LRC_WAYS; w++)
        if (set->line[w] == line)
            return lrc_merge_from(l, set, w, sm, line, mask, t, hit_sectors, fetched_beside, ret);
    return LRC_NEW;
}

/* A request of SM sm for line's sectors mask, sent at t, its data back at
 * ret, has just become its GPC's kept request (in set, lrc_set_of's): the
 * line's kept requests of other masks in the other GPCs of its L2 partition
 * merge no more, those of the other partition's GPCs not with requests sent
 * far_void or more after t (findings §2f; lrc.h). */
void lrc_kept(lrc *l, uint32_t sm, const lrc_set *set, uint64_t line, uint32_t mask, uint64_t t, uint64_t ret);

/* The earlier back of ways a < b (a on a tie). */
static inline uint8_t lrc_earlier(const lrc_set *set, uint32_t a, uint32_t b)
{
    return (uint8_t)(set->ret[b] < set->ret[a] ? b : a);
}

/* lrc_sent into way w (lrc_victim's) of set (lrc_set_of's): the line's
 * kept request from now. */
static inline void lrc_sent_in(lrc_set *set, uint32_t w, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t,
                               uint64_t ret)
{
    set->line[w] = line;
    set->sent[w] = t;
    set->ret[w] = ret < t ? t : ret;
    set->mask[w] = (uint8_t)mask;
    set->sm[w] = (uint16_t)sm;
    set->served[w] = 1;
    set->void_after[w] = UINT16_MAX;
    if (set->n == LRC_WAYS) { /* the tournament's matches on w's path */
        uint32_t p = w >> 1, h = w >> 2;
        set->win[p] = lrc_earlier(set, 2u * p, 2u * p + 1u);
        set->win[4u + h] = lrc_earlier(set, set->win[2u * h], set->win[2u * h + 1u]);
        set->win[6] = lrc_earlier(set, set->win[4], set->win[5]);
    } else if (w == set->n && ++set->n == LRC_WAYS) { /* a new way that fills the set: the whole tournament */
        for (uint32_t p = 0; p < 4u; p++)
            set->win[p] = lrc_earlier(set, 2u * p, 2u * p + 1u);
        set->win[4] = lrc_earlier(set, set->win[0], set->win[1]);
        set->win[5] = lrc_earlier(set, set->win[2], set->win[3]);
        set->win[6] = lrc_earlier(set, set->win[4], set->win[5]);
    }
}

/* A request sent to L2 becomes its line's kept request: recorded in way w
 * of set (lrc_sent_in), and the other GPCs' kept requests of the line with
 * other masks end (lrc_kept). Every request the LRC keeps goes through here. */
static inline void lrc_keep(lrc *l, lrc_set *set, uint32_t w, uint32_t sm, uint64_t line, uint32_t mask, uint64_t t,
                            uint64_t ret)
{
    lrc_sent_in(set, w, sm, line, mask, t, ret);
    lrc_kept(l, sm, set, line, mask, t, ret);
}

#endif
