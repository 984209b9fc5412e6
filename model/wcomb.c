/* wcomb.c - per-warp store combining (rules in wcomb.h).
 *
 * Entries live in a ring in allocation order, so the oldest is reused first;
 * an open-addressing index (linear probing, backward-shift deletion) finds a
 * warp's entry. No allocation after create. */
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

struct wcomb {
    wcomb_send_fn send;
    void *ctx;
    entry *ring;      /* [WCOMB_CAP] */
    uint32_t head;    /* next ring slot to allocate */
    uint32_t *index;  /* [INDEX_SLOTS]: ring index + 1, 0 = empty */
};

static inline uint32_t hash(uint32_t cta, uint32_t warp)
{
    uint32_t h = (cta * 0x9E3779B1u) ^ (warp * 0x85EBCA77u);
    return (h ^ (h >> 15)) & (INDEX_SLOTS - 1u);
}

wcomb *wcomb_create(wcomb_send_fn send, void *ctx)
{
    wcomb *w = xcalloc(1, sizeof *w);
    w->send = send;
    w->ctx = ctx;
    w->ring = xcalloc(WCOMB_CAP, sizeof *w->ring);
    w->index = xcalloc(INDEX_SLOTS, sizeof *w->index);
    return w;
}

void wcomb_destroy(wcomb *w)
{
    if (!w)
        return;
    free(w->ring);
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
static uint32_t find_slot(const wcomb *w, uint32_t cta, uint32_t warp)
{
    uint32_t h = hash(cta, warp);
    for (;;) {
        uint32_t v = w->index[h];
        if (v == 0)
            return h;
        const entry *e = &w->ring[v - 1u];
        if (e->cta == cta && e->warp == warp)
            return h;
        h = (h + 1u) & (INDEX_SLOTS - 1u);
    }
}

/* Remove index slot i, shifting later members of its probe run back. */
static void index_delete(wcomb *w, uint32_t i)
{
    uint32_t j = i;
    for (;;) {
        w->index[i] = 0;
        for (;;) {
            j = (j + 1u) & (INDEX_SLOTS - 1u);
            uint32_t v = w->index[j];
            if (v == 0)
                return;
            const entry *e = &w->ring[v - 1u];
            uint32_t k = hash(e->cta, e->warp); /* where it wants to be */
            /* move it to i unless its home lies cyclically in (i, j] */
            bool stays = (i <= j) ? (i < k && k <= j) : (i < k || k <= j);
            if (!stays)
                break;
        }
        w->index[i] = w->index[j];
        i = j;
    }
}

/* Send an entry's lines and free it (its index slot is islot). */
static void send_entry(wcomb *w, entry *e, uint32_t islot)
{
    for (uint32_t i = 0; i < e->n_lines; i++)
        w->send(w->ctx, e->sm, e->tag, &e->lines[i]);
    e->n_lines = 0;
    index_delete(w, islot);
}

static void send_lines_keep(wcomb *w, entry *e)
{
    for (uint32_t i = 0; i < e->n_lines; i++)
        w->send(w->ctx, e->sm, e->tag, &e->lines[i]);
    e->n_lines = 0;
}

void wcomb_end_run(wcomb *w, uint32_t cta, uint32_t warp)
{
    uint32_t s = find_slot(w, cta, warp);
    if (w->index[s])
        send_entry(w, &w->ring[w->index[s] - 1u], s);
}

void wcomb_store(wcomb *w, uint32_t cta, uint32_t warp, uint32_t sm, uint32_t tag,
                 const coal_result *r)
{
    uint32_t s = find_slot(w, cta, warp);
    entry *e;
    if (w->index[s]) {
        e = &w->ring[w->index[s] - 1u];
    } else {
        /* take the ring's next slot, sending the (oldest) entry living there */
        uint32_t ri = w->head;
        w->head = (w->head + 1u) % WCOMB_CAP;
        e = &w->ring[ri];
        if (e->n_lines) {
            send_entry(w, e, find_slot(w, e->cta, e->warp));
            s = find_slot(w, cta, warp); /* the deletion may have moved slots */
        }
        *e = (entry){.cta = cta, .warp = warp};
        w->index[s] = ri + 1u;
    }
    e->sm = sm;
    for (uint32_t i = 0; i < r->n_lines; i++) {
        const coal_line *ln = &r->lines[i];
        wcomb_line *p = NULL;
        for (uint32_t j = 0; j < e->n_lines && !p; j++)
            if (e->lines[j].line == ln->line)
                p = &e->lines[j];
        if (!p) {
            if (e->n_lines == WCOMB_LINES)
                send_lines_keep(w, e); /* the entry stays, empty of lines */
            p = &e->lines[e->n_lines++];
            *p = (wcomb_line){.line = ln->line};
        }
        p->sector_mask |= ln->sector_mask;
        for (uint32_t k = 0; k < COAL_MAX_SECTORS_PER_LINE; k++)
            p->byte_mask[k] |= ln->byte_mask[k];
    }
    e->tag = tag;
    assert(e->n_lines > 0);
}

void wcomb_flush_all(wcomb *w)
{
    for (uint32_t k = 0; k < WCOMB_CAP; k++) {
        entry *e = &w->ring[(w->head + k) % WCOMB_CAP];
        if (e->n_lines)
            send_entry(w, e, find_slot(w, e->cta, e->warp));
    }
}
