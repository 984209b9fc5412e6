/* smem.c - phases, banks and wavefronts (the rule is in smem.h).
 *
 * Per phase, each bank keeps a short list of the distinct entries requested in
 * it (an index-linked list in a stack array), so a conflict-free warp costs one
 * comparison per word and an n-way conflict n^2/2; nothing is allocated.
 * smem_cost_lanes, for gathers, needs no lists: with one word per bank entry
 * a repeated entry is a repeated word, found in a per-line word mask. */
#include "smem.h"
#include "bits.h"

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


/* Wavefronts of one phase whose lanes all lie in distinct lines: no word is
 * asked for twice, so a bank's entries are its words. Inlined twice (as
 * coal.c's lanes_run), once with the usual gather's constants: lanes of one
 * 4-byte word in 32 banks. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint32_t phase_distinct(const uint64_t *addr, uint32_t lanes, uint32_t words_per_lane,
                                      uint32_t mode_shift, uint32_t bank_mask)
{
    uint8_t count[SMEM_MAX_BANKS]; /* at most 32 lanes x 4 words */
    memset(count, 0, sizeof count);
    uint32_t worst = 0;
    for (; lanes; lanes &= lanes - 1u) {
        uint32_t w = (uint32_t)(addr[__builtin_ctz(lanes)] >> mode_shift);
        for (uint32_t j = 0; j < words_per_lane; j++) {
            uint32_t c = ++count[(w + j) & bank_mask];
            worst = c > worst ? c : worst;
        }
    }
    return worst;
}

bool smem_cost_lanes(const smem_geom *g, const uint64_t *addr, uint32_t active_mask,
                     uint32_t size_bytes, const uint8_t *line_of, uint32_t n_lines,
                     uint32_t line_shift, uint32_t lanes_per_phase, smem_cost *out)
{
    const uint32_t mode_shift = g->mode_shift, bank_mask = g->bank_mask;
    if (g->bank_bytes != g->mode_bytes || line_shift < mode_shift || line_shift - mode_shift > 5u)
        return false;
    assert(size_bytes >= 1 && (size_bytes & (size_bytes - 1u)) == 0 && lanes_per_phase >= 1 &&
           lanes_per_phase <= 32 && (lanes_per_phase & (lanes_per_phase - 1u)) == 0);
    const uint32_t word_in_line = (1u << (line_shift - mode_shift)) - 1u;
    /* lanes naturally aligned (coal_lanes asserts it): whole words */
    const uint32_t words_per_lane = size_bytes > g->mode_bytes ? size_bytes >> mode_shift : 1u;
    assert(words_per_lane <= 4u); /* 16 bytes in 4-byte words */
    const uint32_t lane_words = (1u << words_per_lane) - 1u;
    const uint32_t group = lanes_per_phase == 32u ? ~0u : (1u << lanes_per_phase) - 1u;
    const uint32_t phase_shift = (uint32_t)__builtin_ctz(lanes_per_phase);
    const bool distinct = n_lines == bits_count32(active_mask); /* a gather: a line per lane */
    const bool usual = mode_shift == 2u && bank_mask == 31u;
    /* per line, valid from its first lane on: the words asked for in the
     * phase seen_phase names (lines are numbered in the order of their first
     * lane, so line n_known is the next new one) */
    uint32_t seen[COAL_MAX_LINES];
    uint8_t seen_phase[COAL_MAX_LINES];
    uint32_t n_known = 0;
    smem_cost cost = {0, 0};
    uint32_t k = 0; /* active lanes before this one */
    uint32_t mask = active_mask;
    for (uint32_t phase = 0; mask; phase++) {
        uint32_t first = ((uint32_t)__builtin_ctz(mask) >> phase_shift) << phase_shift;
        uint32_t lanes = mask & (group << first); /* the phase's active lanes */
        mask &= ~(group << first);
        uint32_t worst;
        if (distinct) {
            worst = usual && words_per_lane == 1u ? phase_distinct(addr, lanes, 1u, 2u, 31u)
                    : phase_distinct(addr, lanes, words_per_lane, mode_shift, bank_mask);
        } else {
            uint8_t count[SMEM_MAX_BANKS]; /* per bank: distinct words (entries) in this phase */
            memset(count, 0, sizeof count);
            worst = 0;
            for (; lanes; lanes &= lanes - 1u, k++) {
                uint32_t w = (uint32_t)(addr[__builtin_ctz(lanes)] >> mode_shift);
                uint32_t at = w & word_in_line;
                uint32_t words = lane_words << at;
                uint32_t li = line_of[k];
                uint32_t fresh = words;
                if (li < n_known && seen_phase[li] == phase) {
                    fresh &= ~seen[li]; /* the rest are broadcast */
                    seen[li] |= words;
                } else {
                    n_known += li == n_known;
                    seen[li] = words;
                    seen_phase[li] = (uint8_t)phase;
                }
                for (; fresh; fresh &= fresh - 1u) {
                    uint32_t c = ++count[(w - at + (uint32_t)__builtin_ctz(fresh)) & bank_mask];
                    worst = c > worst ? c : worst;
                }
            }
        }
        cost.wavefronts += worst ? worst : 1u;
        cost.ideal++;
    }
    *out = cost;
    return true;
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

