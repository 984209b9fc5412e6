/* explain.h - why one warp-level memory instruction costs what it costs: per
 * lane, the 128-byte line and 32-byte sector its bytes fall in (global and
 * local memory) and the banks, bank entries, phase and wavefront its words
 * land in (shared memory, and the L1 data stage of global loads), with a
 * short explanation in words computed from the same numbers.
 *
 * Every number comes from the model's own functions on the same input as
 * gpu.c gives them: coal_run() for lines and sectors, smem_lanes_per_phase(),
 * smem_lanes_pair_up() and smem_breakdown_chunks() (whose cost equals
 * smem_cost_chunks()) for phases and wavefronts. The source-view rules
 * (ideal and excessive sectors) are those of gpu.c and source_view.h.
 *
 * Deliberately not explained: anything that depends on cache state (L1/L2
 * hits, DRAM), which replay counts per PC instead; how ncu counts the data
 * stage of an L1-hit load whose lines are scattered (hardware-facts §3.4:
 * measured 13 where the address rule gives 8). Local memory is shown in the
 * model's interleaved layout relative to the warp's local region (the
 * region's base is a multiple of 2^29, so the counts do not depend on it). */
#ifndef GMS_EXPLAIN_H
#define GMS_EXPLAIN_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"
#include "coal.h"
#include "smem.h"
#include "trace.h"

#define EXPLAIN_NO_STRIDE INT64_MIN

/* The geometry explain needs from a config, shifts precomputed. */
typedef struct explain_geom {
    coal_geom coal;
    smem_geom banks;
    uint32_t tags_per_cycle; /* lines the L1 tag stage resolves per wavefront */
    bool load_pairing;       /* sm_70+: shared loads whose lanes pair up merge phases */
} explain_geom;

/* c must have passed cfg_validate(). */
void explain_geom_init(explain_geom *g, const cfg_gpu *c);

/* One lane of the instruction. */
typedef struct explain_lane {
    bool active;
    uint64_t addr;          /* as traced: global virtual address, shared or local offset */
    /* coalescing (global and local): where the lane's first byte falls */
    uint64_t coal_addr;     /* what the coalescer sees: addr, or for local memory the
                               interleaved address of its first word in the warp's region */
    uint32_t line_index;    /* into explain_result.coal.lines (order of first touch) */
    uint32_t sector;        /* sector of the line, 0-based */
    uint32_t sector_offset; /* byte offset in that sector */
    /* banks (shared; data stage of global loads) */
    uint32_t phase;         /* into explain_result.bank.phases */
    uint32_t first_word;    /* into explain_result.bank.words */
    uint32_t n_words;       /* bank words of this lane's access (0 when not banked) */
} explain_lane;

typedef struct explain_result {
    /* the instruction */
    trace_space space;
    trace_kind kind;
    uint32_t size_bytes;      /* per lane */
    uint32_t active_mask;
    uint32_t active_lanes;
    bool ldgsts;              /* one half of a cp.async */
    /* a cp.async's global half: the lanes whose source lies in the null page,
     * zero fills that read nothing (trace_mem_read_lanes). They are not in
     * active_mask, active_lanes or lanes[].active, which hold the lanes
     * that read, nor in the coalescing. */
    uint32_t zero_fill_mask;
    explain_lane lanes[TRACE_WARP_LANES];

    /* coalescing: global and local memory */
    bool coalesced;
    coal_result coal;           /* the model's distinct lines and sectors */
    uint32_t requested_bytes;   /* active lanes x size */
    uint32_t distinct_bytes;    /* bytes touched, each counted once */
    uint32_t ideal_sectors;     /* global: min(sectors, ceil(requested / sector)), the source view's */
    uint32_t excessive_sectors; /* global: sectors - ideal */
    uint32_t tag_wavefronts;    /* global loads: ceil(lines / tags per cycle) */
    uint32_t local_words;       /* local: 4-byte words per lane (1 for smaller accesses) */
    uint64_t lowest_addr;       /* lowest active coal_addr */
    int64_t stride_bytes;       /* addr[l] = addr[l0] + stride x (l - l0) for every active lane, or
                                   EXPLAIN_NO_STRIDE (also with one active lane) */

    /* banks: shared memory, and the data stage of global loads */
    bool banked;
    bool merged;              /* shared loads whose lanes pair up: phases merged two by two */
    bool serialized;          /* atomics: no broadcast */
    uint32_t lanes_per_phase;
    smem_breakdown bank;      /* bank.cost = the model's wavefronts and ideal (phases) */
    uint32_t data_ideal_if_miss; /* global loads: max(phases, tag wavefronts), the ideal of a
                                    load with a missing sector (hardware-facts §3.4) */
} explain_result;

/* Decompose record m (it must have passed trace_mem_validate()). warps_per_cta
 * is not needed: local addresses are shown relative to the warp's region.
 * sass: the SASS text of m's PC, or NULL; it decides whether a shared atomic
 * serialises its lanes on one word (smem_atomic_serializes). */
void explain_mem(const explain_geom *g, const trace_mem *m, const char *sass, explain_result *out);

/* Lanes of the lane set mask as people read them: "0-31", "0,4,8,...,28",
 * "3,5,17". Returns buf. */
char *explain_lane_list(uint32_t mask, char *buf, size_t n);

/* Why the instruction costs what it costs, in plain words: one sentence per
 * line, lines separated by '\n', numbers from r. Returns the length written
 * (truncated to n - 1 like snprintf). */
size_t explain_why(const explain_geom *g, const explain_result *r, char *buf, size_t n);

#endif
