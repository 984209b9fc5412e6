/* gpu.h - the functional memory model of one GPU: SMs with their L1s, shared
 * memory, the L2 and DRAM, driven by a trace's records in capture order.
 *
 * Data flow: trace_mem -> (global/local) coalescer -> L1 tag and data stages
 * -> L2 slices -> DRAM; (shared) -> bank/phase model. Every step adds to the
 * counters of stats.def, per PC; the kernel's totals are the sum over PCs.
 *
 * Deterministic counts only; cycles are a later, separate timing layer.
 * Two gpu objects never share state, so one process may model two GPUs. */
#ifndef GMS_GPU_H
#define GMS_GPU_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"
#include "err.h"
#include "stats.h"
#include "trace.h"

typedef struct gpu gpu;

/* c must have passed cfg_validate(); the gpu keeps a copy. */
gpu *gpu_create(const cfg_gpu *c);
void gpu_destroy(gpu *g);

/* How a kernel was placed on the modelled GPU. */
typedef struct gpu_kernel_info {
    uint32_t ctas_per_sm;      /* resident CTAs per SM by threads, registers, shared memory */
    uint32_t carveout_kib;     /* shared-memory carveout the driver would pick */
    uint32_t l1_kib;           /* L1 data capacity left: unified - carveout */
    bool trace_sms;            /* CTAs ran on the SMs the trace recorded (else round-robin) */
    uint64_t dram_reads;       /* DRAM sectors the launch reads of no instruction (its code and the
                                * background, with cold caches): in the kernel's dram__sectors_read,
                                * not in its per-PC breakdown */
} gpu_kernel_info;

/* An SM's limits on resident CTAs, and the rule that applies them: the
 * fewest of max_ctas, max_threads / warp_threads (threads rounded up to whole
 * warps), registers / regs_per_cta and smem_bytes / smem_per_cta (the CTA's
 * shared memory with its reservation); a zero need is no limit. 0 when a CTA
 * does not fit. gpu_kernel_begin uses it with the config's limits; a caller
 * without a gpu (trace import) with its own. */
typedef struct gpu_sm_limits {
    uint32_t max_ctas;
    uint32_t max_threads;
    uint32_t registers;
    uint64_t smem_bytes;   /* the largest shared-memory carveout */
} gpu_sm_limits;
uint32_t gpu_ctas_per_sm(const gpu_sm_limits *l, uint64_t warp_threads, uint64_t regs_per_cta,
                         uint64_t smem_per_cta);
/* The shared-memory carveout (KiB) the driver picks for a kernel of ctas
 * resident CTAs per SM, each needing smem_per_cta bytes (its static and
 * dynamic shared memory and the driver's reservation): [shared]
 * carveout_ctas_factor and carveout_min_per_cta_bytes of c (cfg.h). */
uint32_t gpu_carveout_kib(const cfg_gpu *c, uint32_t ctas, uint64_t smem_per_cta);

/* Start a kernel. trace_sm_count is the SM count of the GPU the trace came
 * from (0 when unknown); recorded SM ids are used only when it equals the
 * config's. Returns 0, or -1 when the kernel cannot run on this GPU (a CTA needs
 * more threads, registers or shared memory than an SM has), with a message. */
int gpu_kernel_begin(gpu *g, const trace_kernel *k, uint32_t trace_sm_count, err_info *err);
const gpu_kernel_info *gpu_kernel_info_get(const gpu *g);

/* One record; it must have passed trace_mem_validate() for the current kernel. */
void gpu_mem(gpu *g, const trace_mem *m);
/* The same, for a record whose active lanes l all hold base + l * stride
 * (mod 2^64), as the reader gives them (trace_event.mem_strided): the model
 * takes the stride as given instead of recovering it from the lanes. Every
 * count is the same as gpu_mem's. */
void gpu_mem_strided(gpu *g, const trace_mem *m, uint64_t base, uint64_t stride);
/* A hint that m will be passed to gpu_mem soon (after the records before it):
 * starts loading the tag-array sets and store-combining entry it will touch
 * into the CPU's caches, so that a replay that reads a few records ahead
 * overlaps those memory accesses. Changes no count; m need not be validated
 * yet (any record is safe). Returns the number of lines announced, so that the
 * caller can bound how much it asks for at once. */
uint32_t gpu_prefetch(const gpu *g, const trace_mem *m);
void gpu_barrier(gpu *g, const trace_barrier *b);

/* Records announced ahead, with work done early (the batch interface of a
 * replay that reads ahead, sim/replay.c): gpu_prepare is gpu_prefetch for a
 * record, and also coalesces a global load or store then (a pure function
 * of the record and the line geometry) into slot `slot` of p, so that its
 * hints name exactly the lines it touches and gpu_mem_prepared does not
 * coalesce it again. ev is a memory record as the reader gives it
 * (validated; mem_strided and mem_lanes_pending as trace_event says: the
 * two fill the lanes, trace_event_fill_lanes, only where a path needs
 * them), and must stay unchanged in place until
 * gpu_mem_prepared(g, ev, p, slot), with the same slot, simulates it: that does what gpu_mem_strided or gpu_mem would (every
 * count the same) and frees the slot. gpu_mem_prepared of a record that
 * the slot does not hold (never announced, or the slot freed since)
 * simulates it from its lanes. A replay keeps one slot per record it
 * reads ahead. */
typedef struct gpu_prep gpu_prep;
gpu_prep *gpu_prep_create(uint32_t slots);
void gpu_prep_destroy(gpu_prep *p);
uint32_t gpu_prepare(const gpu *g, trace_event *ev, gpu_prep *p, uint32_t slot);
void gpu_mem_prepared(gpu *g, trace_event *ev, gpu_prep *p, uint32_t slot);


/* What a record's PC's SASS (the trace's PC table) adds to its instruction
 * class: ldmatrix and stmatrix are classes of their own for ncu
 * (smsp__inst_executed_op_ldsm, _shared_stsm: wmma_gemm's 32,768 LDSM count
 * there and not as op_shared_ld, docs/findings.md §9), although the trace
 * records them as shared loads and stores and their wavefronts are shared
 * loads' and stores'. NULL SASS: plain. */
typedef enum gpu_inst_kind { GPU_INST_PLAIN, GPU_INST_LDSM, GPU_INST_STSM } gpu_inst_kind;
gpu_inst_kind gpu_inst_kind_of(const char *sass);

/* Add one record's warp-level instruction to the instruction counters of
 * *s (smsp__inst_executed_op_*): by space and kind, generic, LDGSTS, LDSM
 * and STSM apart. The one mapping, shared by the model and `trace check`. */
void gpu_count_instruction(const trace_mem *m, gpu_inst_kind kind, stats *s);

/* A generic instruction's counter by the space its addresses fell in
 * (memory_inst_generic_*; STAT_COUNT for none: a local atomic). */
stat_id gpu_generic_resolved(uint8_t space, uint8_t kind);

/* ncu's instrumented smsp__sass_inst_executed_op_X counts generic
 * instructions by their space: for a model counter op_X (plain), the
 * memory_inst_generic_* counter that its sass twin adds, else STAT_COUNT.
 * validate and trace check compare plain + that with the sass metric. */
stat_id gpu_sass_generic_part(stat_id plain);

/* The model's value of the sass twin of op counter plain: plain plus its
 * gpu_sass_generic_part (what validate and trace check compare). */
uint64_t gpu_sass_count(const stats *s, stat_id plain);

/* End the kernel and put its totals in *out. */
void gpu_kernel_end(gpu *g, stats *out);

/* The kernel just ended, per PC, ascending; *n entries. Counters that no one
 * PCs beyond GPU_MAX_PCS in one kernel are lumped under GPU_PC_NONE (every
 * count has a PC; store-combined writes go to the warp's last store). Valid until the
 * next gpu_kernel_begin. */
#define GPU_PC_NONE UINT32_MAX
typedef struct gpu_pc_stats {
    uint32_t pc;
    uint64_t executions; /* warp-level executions of this PC */
    stats s;
} gpu_pc_stats;
const gpu_pc_stats *gpu_pc_breakdown(const gpu *g, uint32_t *n);

/* ---- an observer of per-record outcomes (the timing layer, model/timing.h) ----
 * Optional; without one the model does exactly what it did before. The
 * observer sees each record after the functional model handled it, with what
 * the record cost: L1 tag and data wavefronts, and every request it sent to
 * L2 with that request's outcome; and each store-combining line when it
 * leaves for L2 (which can happen during a later record, or at kernel end). */
typedef enum gpu_l2_op { GPU_L2_READ, GPU_L2_WRITE, GPU_L2_ATOMIC, GPU_L2_OP_COUNT } gpu_l2_op;
typedef struct gpu_l2_req {
    uint64_t line;          /* line number (address / line_bytes) */
    uint32_t sector_mask;   /* sectors requested: bit i = sector i of the line */
    uint32_t sectors;       /* bits in sector_mask (folded requests: their sum) */
    uint32_t hit_sectors;   /* reads: sectors that hit in the SM's near partition */
    uint32_t dram_sectors;  /* DRAM sectors read and written because of this request */
    uint32_t miss_sectors;  /* reads: sectors fetched into the near partition (the lookup misses;
                             * more than those of sector_mask that missed when l2.fetch_sectors
                             * blocks brought others beside them, findings §15) */
    uint8_t op;             /* gpu_l2_op */
    unsigned far : 1;       /* crossed the fabric to the other partition */
    unsigned home : 7;      /* the line's home partition, as the L2 places it (l2.placement) */
    uint16_t dram_written;  /* of dram_sectors, those written back (dirty sectors it evicted) */
} gpu_l2_req;
_Static_assert(sizeof(gpu_l2_req) == 32, "gpu_l2_req: far and home share op's word");
#define GPU_OBS_MAX_L2 64u  /* requests reported per record; more are folded into the last */
typedef struct gpu_event {
    const trace_mem *m;
    uint32_t sm;
    uint32_t tag_wavefronts;  /* L1 tag stage (global/local) */
    uint32_t data_wavefronts; /* L1 data stage: global/local load data or shared-memory wavefronts */
    uint32_t n_l2;
    const gpu_l2_req *l2;     /* [n_l2] loads' misses and atomics; stores go through store_line */
    const struct coal_result *lines; /* global and local records: the lines and sectors they touch, in
                                 order of first touch (the coalescer's); NULL for shared */
    uint32_t combined;        /* global stores: bit i set when lines[i] joined a line the warp's store
                               * combining held from an earlier store of its run (wcomb.h) */
} gpu_event;
typedef struct gpu_observer {
    void (*record)(void *ctx, const gpu_event *e);
    void (*store_line)(void *ctx, uint32_t sm, const gpu_l2_req *r);
    /* each record gpu_prefetch or gpu_prepare announces, when it is announced (optional) */
    void (*prefetch)(void *ctx, const trace_mem *m);
    void *ctx;
} gpu_observer;
/* Set (or with NULL remove) the observer; the gpu keeps a copy. */
void gpu_set_observer(gpu *g, const gpu_observer *o);

#endif
