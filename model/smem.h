/* smem.h - the bank/phase model of the L1 data stage: shared-memory
 * wavefronts and bank conflicts, and the data stage of global and local loads.
 *
 * Rule (hardware-facts.md §2.2, §2.3, §3.4; every measured H200 row is a test):
 *  - A phase moves at most banks x bank_bytes bytes, so it holds
 *    min(32, banks x bank_bytes / size) lanes, in fixed groups (sm_70+:
 *    32-bit whole warp, 64-bit half-warps, 128-bit quarter-warps; Kepler
 *    8-byte banks: 32/64-bit whole warp, 128-bit half-warps). Phases with no
 *    active lane are skipped.
 *  - Shared loads whose lanes pair up (every active lane's address equals lane
 *    l^1's, or every one equals lane l^2's) merge phases two by two: LDS.64 in
 *    one phase, LDS.128 in two. The caller decides (smem_lanes_pair_up);
 *    stores, atomics and global loads never merge.
 *  - A phase costs max over banks of the distinct bank entries requested in
 *    the bank (at least 1), each lane's access being split into
 *    bank_mode_bytes words; bank = (addr / mode_bytes) % banks, entry =
 *    addr / (banks x bank_bytes). Equal entries are broadcast, across lanes of
 *    one phase only.
 *  - Atomics serialise: a phase costs max over banks of the number of lane
 *    words that fall in the bank, with no broadcast. This is the simplest rule
 *    that gives the three measured ATOMS rows (distinct words 1, one word 32,
 *    stride 128 B 32) and it equals "sum over the distinct addresses of a bank
 *    of their lane counts".
 *  - ideal = phases with an active lane; conflicts = wavefronts - ideal.
 * Not modelled: arbitration with concurrent global traffic
 * (l1tex__data_bank_conflicts_type_arbitration), and the placement of L1-hit
 * lines in the data banks (the LDG.32 stride-32 B hit that measured 13). */
#ifndef GMS_SMEM_H
#define GMS_SMEM_H

#include <assert.h>
#include <stdbool.h>
#include <stdint.h>

#include "coal.h"

#define SMEM_MAX_BANKS 64u

typedef struct smem_geom {
    uint32_t banks;       /* power of two, <= SMEM_MAX_BANKS */
    uint32_t bank_bytes;  /* width of a bank entry */
    uint32_t mode_bytes;  /* successive words of this size go to successive banks */
    uint32_t phase_bytes; /* banks x bank_bytes: what one wavefront moves */
    uint32_t mode_shift;
    uint32_t bank_mask;
    uint32_t entry_shift;
} smem_geom;

typedef struct smem_cost {
    uint32_t wavefronts;
    uint32_t ideal; /* phases with an active lane */
} smem_cost;

/* Powers of two, mode_bytes >= 4 (asserted; cfg_validate checks the config). */
void smem_geom_init(smem_geom *g, uint32_t banks, uint32_t bank_bytes, uint32_t mode_bytes);

/* Lanes per phase for an access of size_bytes per lane; merged doubles it
 * (pairing), never beyond a warp. Inline, as smem_cost_affine: every global
 * load asks (a call cost more than the work). */
static inline uint32_t smem_lanes_per_phase(const smem_geom *g, uint32_t size_bytes, bool merged)
{
    assert(size_bytes >= 1 && (size_bytes & (size_bytes - 1u)) == 0);
    uint32_t lanes = size_bytes >= g->phase_bytes ? 1u : g->phase_bytes / size_bytes;
    if (merged)
        lanes *= 2u;
    return lanes > 32u ? 32u : lanes;
}

/* True when every active lane's address equals lane l^1's (that lane active),
 * or every one equals lane l^2's. addr has 32 entries. */
bool smem_lanes_pair_up(const uint64_t *addr, uint32_t active_mask);

/* Whether a shared atomic's lanes on one word are served one after the other
 * (true) or together, as a load's are (false), from its SASS text (NULL when
 * the trace has none: true). ATOMS.POPC.INC, what atomicAdd(p, 1) with an
 * unused result compiles to, adds the number of lanes on a word to it once,
 * so those lanes cost one pass (measured on histogram_uniform and _skewed:
 * docs/findings.md §9); every other atomic serialises them (ATOMS.ADD, 32
 * lanes on one word: 32 wavefronts, hardware-facts §2.2). */
bool smem_atomic_serializes(const char *sass);

/* Cost of chunks (sorted by lane, ascending) grouped into phases of
 * lanes_per_phase lanes (a power of two, <= 32). serialize: atomics (no
 * broadcast). */
smem_cost smem_cost_chunks(const smem_geom *g, const coal_chunk *chunks, uint32_t n,
                           uint32_t lanes_per_phase, bool serialize);

/* The same cost as smem_cost_chunks (not serialized) for one chunk per
 * active lane (lane l: size_bytes at addr[l], a power of two at natural
 * alignment, as for coal_lanes), given each lane's line as coal_lanes
 * numbers them (line_of[k] for the k-th active lane, n_lines lines of
 * 2^line_shift bytes): for gathers, without a list of entries per bank.
 * With one word per bank entry (bank_bytes == mode_bytes) two words share a
 * bank entry only if they are the same word, and the same word lies in the
 * same line: with a line per lane (a gather) no word repeats, so a phase
 * costs its busiest bank's words; otherwise a phase keeps, per line, a mask
 * of the words already asked for. Returns false, *out untouched, when
 * bank_bytes != mode_bytes or a line holds more than 32 words or less than
 * one. */
bool smem_cost_lanes(const smem_geom *g, const uint64_t *addr, uint32_t active_mask,
                     uint32_t size_bytes, const uint8_t *line_of, uint32_t n_lines,
                     uint32_t line_shift, uint32_t lanes_per_phase, smem_cost *out);

/* The same cost as smem_cost_chunks for all 32 lanes of a warp at
 * a0 + l * stride (size bytes each, not serialized), in closed form: with one
 * word per bank in a row (bank_bytes == mode_bytes), lanes whose words never
 * overlap (stride 0, or a power of two >= mode_bytes) put
 * max(1, lanes_per_phase x min(stride / mode, banks) / banks) words in the
 * busiest bank of each phase (stride 0: 1). Returns false, *out untouched, when
 * the geometry or the stride is outside that case. */
static inline bool smem_cost_affine(const smem_geom *g, uint64_t a0, uint64_t stride,
                                    uint32_t size_bytes, uint32_t lanes_per_phase, smem_cost *out)
{
    (void)a0; /* a rotation of the banks: it changes no count */
    if (g->bank_bytes != g->mode_bytes || size_bytes == 0 || size_bytes > g->phase_bytes ||
        (stride & (stride - 1u)) || (stride != 0 && stride < g->mode_bytes) ||
        (stride != 0 && stride < size_bytes) || lanes_per_phase == 0 || lanes_per_phase > 32u)
        return false;
    uint32_t phases = 32u / lanes_per_phase;
    uint32_t per_phase = 1;
    if (stride != 0) {
        uint64_t words = stride >> g->mode_shift; /* words from one lane to the next */
        uint64_t spread = words < g->banks ? words : g->banks;
        uint64_t busiest = (uint64_t)lanes_per_phase * spread / g->banks;
        per_phase = busiest > 1u ? (uint32_t)busiest : 1u;
    }
    out->wavefronts = phases * per_phase;
    out->ideal = phases;
    return true;
}

/* Cost of one warp instruction: lane l accesses size_bytes at addr[l] when
 * bit l of active_mask is set. merged as returned by the caller's pairing
 * decision; serialize for atomics. */
smem_cost smem_cost_warp(const smem_geom *g, const uint64_t *addr, uint32_t active_mask,
                         uint32_t size_bytes, bool merged, bool serialize);

/* ---- explaining a cost (model/explain.h; not on the hot path) ------------- */

#define SMEM_MAX_WORDS_PER_CHUNK 4u /* a 16-byte chunk in 4-byte bank words */

/* One bank word of one chunk, as the phase rule serves it. */
typedef struct smem_word {
    uint16_t chunk;   /* index of its chunk in the input */
    uint8_t bank;
    uint8_t repeat;   /* 1: an earlier word of the phase asked for the same entry of
                         this bank, so it rides on that word's wavefront (broadcast);
                         never for atomics */
    uint16_t pass;    /* 0-based wavefront of its phase that serves it: the rank of its
                         entry among the distinct entries of its bank, in request order
                         (atomics: the rank of the word itself) */
    uint64_t entry;   /* bank entry (row): byte address / phase_bytes */
} smem_word;

/* One phase: consecutive chunks of one group of lanes_per_phase lanes. */
typedef struct smem_phase {
    uint32_t first_chunk, n_chunks;
    uint32_t first_word, n_words; /* into smem_breakdown.words */
    uint32_t group;               /* lane / lanes_per_phase */
    uint32_t wavefronts;          /* max over banks of their passes, at least 1 */
    uint32_t worst_bank;          /* the lowest bank that needs `wavefronts` passes */
} smem_phase;

typedef struct smem_breakdown {
    smem_cost cost;   /* equal to smem_cost_chunks() on the same input */
    uint32_t n_phases;
    smem_phase phases[32];
    uint32_t n_words;
    smem_word words[COAL_MAX_CHUNKS * SMEM_MAX_WORDS_PER_CHUNK];
} smem_breakdown;

/* The cost of smem_cost_chunks() (same arguments and rule), with every word's
 * bank, entry and wavefront and each phase's worst bank, so that a tool can
 * show why an access costs what it costs. Words are listed chunk by chunk,
 * in address order within a chunk. */
void smem_breakdown_chunks(const smem_geom *g, const coal_chunk *chunks, uint32_t n,
                           uint32_t lanes_per_phase, bool serialize, smem_breakdown *out);

#endif
