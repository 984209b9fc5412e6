/* wcomb.c - per-warp store combining (rules in wcomb.h).
 *
 * Entries live in a ring in allocation order, so the oldest is reused first;
 * an open-addressing index (linear probing, backward-shift deletion) finds a
 * warp's entry. Every record asks the index whether its warp has stores
 * waiting, and the answer is nearly always no: so an index slot keeps the
 * key's 32-bit hash beside the ring position, and a probe reads a ring entry
 * (2.4 MB of them, cold) only when the hashes match. No allocation after
 * create. */
#include "wcomb.h"

#include <assert.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"

#define INDEX_SLOTS (2u * WCOMB_CAP) /* power of two, load <= 1/2 */

typedef struct entry {
    uint32_t cta, warp, sm, tag;
    uint32_t n_lines; /* 0 = free */
    wcomb_line lines[WCOMB_LINES];
} entry;

/* An index slot: the ring entry (+ 1; 0 = empty) and its key's hash. */
typedef struct index_slot {
    uint32_t hash;
    uint32_t ring1;
} index_slot;

struct wcomb {
    wcomb_send_fn send;
    wcomb_hint_fn hint;
    void *ctx;
    entry *ring;      /* [WCOMB_CAP] */
    void *ring_raw;   /* what to free */
    uint32_t head;    /* next ring slot to allocate */
    index_slot *index;     /* [INDEX_SLOTS] */
};

static inline uint32_t hash32(uint32_t cta, uint32_t warp)
{
    uint32_t h = (cta * 0x9E3779B1u) ^ (warp * 0x85EBCA77u);
    return h ^ (h >> 15);
}

/* the slot where a key of this hash wants to be */
static inline uint32_t home(uint32_t h)
{
    return h & (INDEX_SLOTS - 1u);
}

wcomb *wcomb_create(wcomb_send_fn send, wcomb_hint_fn hint, void *ctx)
{
    wcomb *w = xcalloc(1, sizeof *w);
    w->send = send;
    w->hint = hint;
    w->ctx = ctx;
    w->ring = xcalloc_lines(WCOMB_CAP, sizeof *w->ring, &w->ring_raw);
    w->index = xcalloc(INDEX_SLOTS, sizeof *w->index);
    return w;
}

void wcomb_destroy(wcomb *w)
{
    if (!w)
        return;
    free(w->ring_raw);
    free(w->index);
    free(w);
}

void wcomb_reset(wcomb *w)
{
    memset(w->ring, 0, WCOMB_CAP * sizeof *w->ring);
    memset(w->index, 0, INDEX_SLOTS * sizeof *w->index);
    w->head = 0;
}

/* The index slot holding (cta, warp), or the empty slot where it would go. */
static inline uint32_t find_slot(const wcomb *w, uint32_t cta, uint32_t warp, uint32_t h32)
{
    uint32_t i = home(h32);
    for (;;) {
        const index_slot *s = &w->index[i];
        if (s->ring1 == 0)
            return i;
        if (s->hash == h32) {
            const entry *e = &w->ring[s->ring1 - 1u];
            if (e->cta == cta && e->warp == warp)
                return i;
        }
        i = (i + 1u) & (INDEX_SLOTS - 1u);
    }
}

/* Remove index slot i, shifting later members of its probe run back. */
static void index_delete(wcomb *w, uint32_t i)
{
    uint32_t j = i;
    for (;;) {
        w->index[i].ring1 = 0;
        for (;;) {
            j = (j + 1u) & (INDEX_SLOTS - 1u);
            if (w->index[j].ring1 == 0)
                return;
            uint32_t k = home(w->index[j].hash); /* where it wants to be */
            /* move it to i unless its home lies cyclically in (i, j] */
            bool stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays)
                break;
        }
        w->index[i] = w->index[j];
        i = j;
    }
}

/* Send an entry's lines and free it (index slot `at` points to it). */
static void send_entry(wcomb *w, entry *e, uint32_t at)
{
    for (uint32_t i = 0; i < e->n_lines; i++)
        w->send(w->ctx, e->sm, e->tag, &e->lines[i]);
    e->n_lines = 0;
    index_delete(w, at);
}

static void send_lines_keep(wcomb *w, entry *e)
{
    for (uint32_t i = 0; i < e->n_lines; i++)
        w->send(w->ctx, e->sm, e->tag, &e->lines[i]);
    e->n_lines = 0;
}

void wcomb_end_run(wcomb *w, uint32_t cta, uint32_t warp)
{
    uint32_t s = find_slot(w, cta, warp, hash32(cta, warp));
    if (w->index[s].ring1)
        send_entry(w, &w->ring[w->index[s].ring1 - 1u], s);
}

uint32_t wcomb_store(wcomb *w, uint32_t cta, uint32_t warp, uint32_t sm, uint32_t tag,
                     const coal_result *r)
{
    uint32_t h32 = hash32(cta, warp);
    uint32_t s = find_slot(w, cta, warp, h32);
    entry *e;
    if (w->index[s].ring1) {
        e = &w->ring[w->index[s].ring1 - 1u];
    } else {
        /* take the ring's next slot, sending the (oldest) entry living there */
        uint32_t ri = w->head;
        w->head = (w->head + 1u) % WCOMB_CAP;
        e = &w->ring[ri];
        /* the entry four on is reused soon: start loading it; the one two
         * on (loaded two allocations ago) will be sent then, and its lines'
         * writes find their L2 sets cold unless hinted now: a warp that
         * stores and exits is sent only when the ring comes round */
        __builtin_prefetch(&w->ring[(ri + 4u) % WCOMB_CAP], 1, 3);
        const entry *next = &w->ring[(ri + 2u) % WCOMB_CAP];
        if (w->hint)
            for (uint32_t i = 0; i < next->n_lines; i++)
                w->hint(w->ctx, next->lines[i].line);
        if (e->n_lines) {
            send_entry(w, e, find_slot(w, e->cta, e->warp, hash32(e->cta, e->warp)));
            s = find_slot(w, cta, warp, h32); /* the deletion may have moved slots */
        }
        /* the key and an empty line list; lines past n_lines are never read
         * (each is written whole when added), so they are not cleared */
        e->cta = cta;
        e->warp = warp;
        e->n_lines = 0;
        w->index[s] = (index_slot){.hash = h32, .ring1 = ri + 1u};
    }
    e->sm = sm;
    uint32_t joined = 0;
    for (uint32_t i = 0; i < r->n_lines; i++) {
        const coal_line *ln = &r->lines[i];
        wcomb_line *p = NULL;
        for (uint32_t j = 0; j < e->n_lines && !p; j++)
            if (e->lines[j].line == ln->line)
                p = &e->lines[j];
        if (!p) { /* a new line: its masks are the store's */
            if (e->n_lines == WCOMB_LINES)
                send_lines_keep(w, e); /* the entry stays, empty of lines */
            p = &e->lines[e->n_lines++];
            p->line = ln->line;
            p->sector_mask = ln->sector_mask;
            memcpy(p->byte_mask, ln->byte_mask, sizeof p->byte_mask);
            continue;
        }
        if (i < 32u)
            joined |= 1u << i;
        p->sector_mask |= ln->sector_mask;
        for (uint32_t k = 0; k < COAL_MAX_SECTORS_PER_LINE; k++)
            p->byte_mask[k] |= ln->byte_mask[k];
    }
    e->tag = tag;
    assert(e->n_lines > 0);
    return joined;
}

void wcomb_prefetch(const wcomb *w, uint32_t cta, uint32_t warp)
{
    __builtin_prefetch(&w->index[home(hash32(cta, warp))], 1, 3);
}

void wcomb_flush_all(wcomb *w)
{
    for (uint32_t k = 0; k < WCOMB_CAP; k++) {
        entry *e = &w->ring[(w->head + k) % WCOMB_CAP];
        if (e->n_lines)
            send_entry(w, e, find_slot(w, e->cta, e->warp, hash32(e->cta, e->warp)));
    }
}
