/* smem.c - phases, banks and wavefronts (the rule is in smem.h).
 *
 * Per phase, each bank keeps a short list of the distinct entries requested in
 * it (an index-linked list in a stack array), so a conflict-free warp costs one
 * comparison per word and an n-way conflict n^2/2; nothing is allocated. */
#include "smem.h"

#include "sass.h"

#include <assert.h>
#include <string.h>

/* 128 chunks x at most 4 words each (16 bytes in 4-byte words). */
#define SMEM_MAX_WORDS (COAL_MAX_CHUNKS * 4u)

static uint32_t log2_exact(uint32_t v)
{
    uint32_t s = 0;
    while ((1u << s) < v)
        s++;
    assert((1u << s) == v);
    return s;
}

void smem_geom_init(smem_geom *g, uint32_t banks, uint32_t bank_bytes, uint32_t mode_bytes)
{
    assert(banks >= 1 && banks <= SMEM_MAX_BANKS);
    assert(mode_bytes >= 4 && bank_bytes >= 1);
    g->banks = banks;
    g->bank_bytes = bank_bytes;
    g->mode_bytes = mode_bytes;
    g->phase_bytes = banks * bank_bytes;
    g->mode_shift = log2_exact(mode_bytes);
    g->bank_mask = banks - 1u;
    (void)log2_exact(banks);
    g->entry_shift = log2_exact(g->phase_bytes);
}

bool smem_atomic_serializes(const char *sass)
{
    return !sass_opcode_is(sass, "ATOMS.POPC.INC");
}

static bool pairs_with(const uint64_t *addr, uint32_t active_mask, uint32_t x)
{
    for (uint32_t l = 0; l < 32; l++) {
        if (!(active_mask & (1u << l)))
            continue;
        uint32_t p = l ^ x;
        if (!(active_mask & (1u << p)) || addr[p] != addr[l])
            return false;
    }
    return true;
}

bool smem_lanes_pair_up(const uint64_t *addr, uint32_t active_mask)
{
    return pairs_with(addr, active_mask, 1u) || pairs_with(addr, active_mask, 2u);
}

typedef struct phase_state {
    int16_t head[SMEM_MAX_BANKS];
    uint16_t count[SMEM_MAX_BANKS];
    uint64_t entry[SMEM_MAX_WORDS];
    int16_t next[SMEM_MAX_WORDS];
    uint32_t n_words;
    uint32_t max_count;
} phase_state;

static void phase_reset(phase_state *ps, uint32_t banks)
{
    memset(ps->head, 0xff, banks * sizeof ps->head[0]);
    memset(ps->count, 0, banks * sizeof ps->count[0]);
    ps->n_words = 0;
    ps->max_count = 0;
}

static void phase_add(phase_state *ps, const smem_geom *g, const coal_chunk *c, bool serialize)
{
    uint64_t first = c->addr >> g->mode_shift;
    uint64_t last = (c->addr + c->bytes - 1u) >> g->mode_shift;
    for (uint64_t w = first; w <= last; w++) {
        uint32_t bank = (uint32_t)w & g->bank_mask;
        uint64_t entry = (w << g->mode_shift) >> g->entry_shift;
        if (!serialize) {
            bool seen = false;
            for (int16_t i = ps->head[bank]; i >= 0; i = ps->next[i]) {
                if (ps->entry[i] == entry) {
                    seen = true;
                    break;
                }
            }
            if (seen)
                continue; /* broadcast */
            assert(ps->n_words < SMEM_MAX_WORDS);
            int16_t node = (int16_t)ps->n_words++;
            ps->entry[node] = entry;
            ps->next[node] = ps->head[bank];
            ps->head[bank] = node;
        }
        uint32_t n = ++ps->count[bank];
        if (n > ps->max_count)
            ps->max_count = n;
    }
}

/* Wavefronts of one phase: chunks [0, n). */
static uint32_t phase_cost(const smem_geom *g, const coal_chunk *c, uint32_t n, bool serialize)
{
    if (!serialize) {
        /* fast path: every word in one bank row (coalesced, or broadcast) */
        uint64_t row = c[0].addr >> g->entry_shift;
        uint32_t i = 0;
        while (i < n && (c[i].addr >> g->entry_shift) == row &&
               ((c[i].addr + c[i].bytes - 1u) >> g->entry_shift) == row)
            i++;
        if (i == n)
            return 1;
    }
    phase_state ps;
    phase_reset(&ps, g->banks);
    for (uint32_t i = 0; i < n; i++)
        phase_add(&ps, g, &c[i], serialize);
    return ps.max_count ? ps.max_count : 1u;
}

smem_cost smem_cost_chunks(const smem_geom *g, const coal_chunk *chunks, uint32_t n,
                           uint32_t lanes_per_phase, bool serialize)
{
    smem_cost cost = {0, 0};
    assert(n <= COAL_MAX_CHUNKS);
    assert(lanes_per_phase >= 1 && lanes_per_phase <= 32);
    uint32_t shift = 0; /* lanes per phase is a power of two: no division per lane */
    while ((1u << shift) < lanes_per_phase)
        shift++;
    assert((1u << shift) == lanes_per_phase);
    uint32_t i = 0;
    while (i < n) {
        uint32_t phase = (uint32_t)chunks[i].lane >> shift;
        uint32_t j = i + 1;
        while (j < n && ((uint32_t)chunks[j].lane >> shift) == phase) {
            assert(chunks[j].lane >= chunks[j - 1].lane);
            j++;
        }
        cost.wavefronts += phase_cost(g, chunks + i, j - i, serialize);
        cost.ideal++;
        i = j;
    }
    return cost;
}

smem_cost smem_cost_warp(const smem_geom *g, const uint64_t *addr, uint32_t active_mask,
                         uint32_t size_bytes, bool merged, bool serialize)
{
    coal_chunk chunks[32];
    uint32_t n = 0;
    for (uint32_t l = 0; l < 32; l++) {
        if (active_mask & (1u << l)) {
            chunks[n].addr = addr[l];
            chunks[n].bytes = (uint8_t)size_bytes;
            chunks[n].lane = (uint8_t)l;
            n++;
        }
    }
    return smem_cost_chunks(g, chunks, n, smem_lanes_per_phase(g, size_bytes, merged), serialize);
}

/* ---- explaining a cost ------------------------------------------------------
 * The rule of phase_add/phase_cost, keeping what they throw away: which pass of
 * its bank serves each word. Separate from the hot path on purpose; the tests
 * (tests/test_explain.c) check that its cost equals smem_cost_chunks(). */

static void breakdown_phase(const smem_geom *g, const coal_chunk *c, uint32_t first, uint32_t n,
                            bool serialize, smem_breakdown *out, smem_phase *ph)
{
    uint16_t passes[SMEM_MAX_BANKS];
    memset(passes, 0, sizeof passes);
    ph->first_word = out->n_words;
    for (uint32_t i = first; i < first + n; i++) {
        uint64_t w0 = c[i].addr >> g->mode_shift;
        uint64_t w1 = (c[i].addr + c[i].bytes - 1u) >> g->mode_shift;
        for (uint64_t w = w0; w <= w1; w++) {
            assert(out->n_words < sizeof out->words / sizeof out->words[0]);
            smem_word *sw = &out->words[out->n_words];
            sw->chunk = (uint16_t)i;
            sw->bank = (uint8_t)((uint32_t)w & g->bank_mask);
            sw->entry = (w << g->mode_shift) >> g->entry_shift;
            sw->repeat = 0;
            if (!serialize) {
                for (uint32_t k = ph->first_word; k < out->n_words; k++) {
                    const smem_word *o = &out->words[k];
                    if (o->bank == sw->bank && o->entry == sw->entry && !o->repeat) {
                        sw->repeat = 1; /* broadcast: the same entry of the same bank */
                        sw->pass = o->pass;
                        break;
                    }
                }
            }
            if (!sw->repeat)
                sw->pass = passes[sw->bank]++;
            out->n_words++;
        }
    }
    ph->n_words = out->n_words - ph->first_word;
    uint32_t worst = 0;
    for (uint32_t b = 1; b < g->banks; b++)
        if (passes[b] > passes[worst])
            worst = b;
    ph->worst_bank = worst;
    ph->wavefronts = passes[worst] ? passes[worst] : 1u;
}

void smem_breakdown_chunks(const smem_geom *g, const coal_chunk *chunks, uint32_t n,
                           uint32_t lanes_per_phase, bool serialize, smem_breakdown *out)
{
    assert(n <= COAL_MAX_CHUNKS);
    assert(lanes_per_phase >= 1 && lanes_per_phase <= 32 && (lanes_per_phase & (lanes_per_phase - 1u)) == 0);
    out->cost.wavefronts = 0;
    out->cost.ideal = 0;
    out->n_phases = 0;
    out->n_words = 0;
    uint32_t i = 0;
    while (i < n) {
        uint32_t group = (uint32_t)chunks[i].lane / lanes_per_phase;
        uint32_t j = i + 1;
        while (j < n && (uint32_t)chunks[j].lane / lanes_per_phase == group) {
            assert(chunks[j].lane >= chunks[j - 1].lane);
            j++;
        }
        assert(out->n_phases < 32);
        smem_phase *ph = &out->phases[out->n_phases++];
        ph->first_chunk = i;
        ph->n_chunks = j - i;
        ph->group = group;
        breakdown_phase(g, chunks, i, j - i, serialize, out, ph);
        out->cost.wavefronts += ph->wavefronts;
        out->cost.ideal++;
        i = j;
    }
}

