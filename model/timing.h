/* timing.h - the cycle-approximate timing layer: predicts a kernel launch's
 * sm__cycles_elapsed.avg from the functional model's per-record outcomes
 * (gpu.h's observer), and the reads the L2 request coalescer (LRC) merges.
 *
 * Records arrive in capture order, which is not time order across warps. Each
 * warp keeps its own clock in program order; shared resources (the issue slots
 * of each SM sub-partition, each SM's L1 tag and data stages, each L2 slice,
 * DRAM) are time calendars: capacity per time bin in a ring, so a request that
 * arrives late in the replay but early in time still queues behind what is
 * already booked in its bins. An L2 request holds its slice at least one L2
 * cycle (one tag lookup; the L2 clock is a share of the SM clock), and one
 * that crosses the fabric is looked up in both partitions. Events are modelled
 * as they arrive; the observer's prefetch (the replay's read-ahead) loads the
 * warp, CTA and calendar entries they will touch into the CPU's caches
 * beforehand. What is modelled, and every constant's source:
 * docs/timing.md. Deliberately not modelled: instruction latencies of the
 * non-memory instructions (the trace holds only memory instructions and
 * barriers; the work between two records is counted from their PCs and
 * issued at one instruction per cycle), warp scheduling policy, MSHR limits,
 * TLBs, DRAM banks and refresh, clock changes during a kernel. Each SM's
 * write requests towards L2 wait in a queue drained one sector a cycle; one
 * that meets another warp's request to the same line still waiting there
 * merges into it (model/wqueue.h, findings §6b): those leave the write
 * counters, but the slices still see every functional write request.
 *
 * No allocation per record: tables are sized at timing_create from the
 * config; timing_kernel_begin allocates the kernel's per-PC register table. */
#ifndef GMS_TIMING_H
#define GMS_TIMING_H

#include <stdint.h>
#include <stdio.h>

#include "cfg.h"
#include "gpu.h"
#include "lrc.h"
#include "wqueue.h"
#include "trace.h"

typedef struct timing timing;

/* What the timing layer predicts for one kernel launch. */
typedef struct timing_result {
    uint64_t cycles;              /* predicted sm__cycles_elapsed.avg */
    uint64_t instructions;        /* predicted smsp__inst_executed.sum: the warp instructions the
                                   * model issued (its records and barriers, and the instructions it
                                   * counts between a warp's records: docs/timing.md, "Work between
                                   * records") */
    uint64_t lrc_input_sectors;   /* read sectors that reached the LRC (the functional L2 read sectors) */
    uint64_t warp_cycles;         /* predicted sm__warps_active.sum: each warp's cycles from its CTA's
                                   * start to its end (its last instruction, or what its EXIT waits
                                   * for: a load's data, a store's or reduction's acceptance by L2),
                                   * summed; warps without a record count none */
    uint64_t sm_cycles_active;    /* predicted sm__cycles_active.avg: an SM's cycles from its first
                                   * CTA's start to its last warp's end, averaged over the SMs */
    double warps_active_pct;      /* predicted sm__warps_active.avg.pct_of_peak_sustained_active:
                                   * warp_cycles over the SMs' active cycles times the warps an SM
                                   * holds (achieved occupancy, in percent) */
    lrc_counts lrc;               /* what the LRC merged (model/lrc.h): lrc.sectors are those merged
                                   * with an identical read of another SM of the GPC in flight
                                   * (lrc__request_sectors_op_read_coalescing_achieved_type_hardware);
                                   * zero without a GPC map */
    wqueue_counts wq;             /* write requests merged in the SMs' write queues (model/wqueue.h) */
    const uint64_t *pc_cycles;    /* with timing_keep_pc_cycles: per entry of the kernel's PC table,
                                   * the warp cycles spent with it as the next instruction to issue
                                   * (waiting for its operands, a barrier or an issue slot, and its
                                   * own issue cycle): where the warps wait, as ncu's warp state
                                   * sampling sees it; valid until the next kernel begins. NULL
                                   * otherwise */
    uint32_t n_pc_cycles;
    const uint64_t *pc_why;       /* with timing_keep_pc_cycles: the same cycles by why the warp
                                   * waited, [n_pc_cycles * TIMING_WHYS] (entry i's reason r at
                                   * i * TIMING_WHYS + r); each entry's sum is its pc_cycles */
} timing_result;

/* Why a warp's cycle went to the instruction it was about to issue, named as
 * Nsight Compute's warp stall reasons (stall_NAME) that mean the same: its
 * issue cycle (selected), an issue slot another warp took (not_selected), the
 * previous instruction's fixed stall or an arithmetic result (wait), a global
 * or local load or cp.async copy not back (long_sb), a shared-memory access
 * or a constant, special-register or other variable-latency result (short_sb),
 * the CTA's barrier (barrier), its code not fetched (no_inst), a taken
 * branch's redirect (branch_resolving), a constant line not fetched (imc),
 * and after its last instruction its stores' acceptance, charged to the EXIT
 * it goes to (drain).
 * docs/explain.md, "Where the warps wait". */
enum {
    TIMING_WHY_SELECTED,
    TIMING_WHY_NOT_SELECTED,
    TIMING_WHY_WAIT,
    TIMING_WHY_LONG_SB,
    TIMING_WHY_SHORT_SB,
    TIMING_WHY_BARRIER,
    TIMING_WHY_NO_INST,
    TIMING_WHY_BRANCH,
    TIMING_WHY_IMC,
    TIMING_WHY_DRAIN,
    TIMING_WHYS
};
/* "selected", "long_sb", ... (ncu's stall_ suffixes); NULL beyond TIMING_WHYS. */
const char *timing_why_name(unsigned why);

/* c->timing must be true (the [timing] section is set). */
timing *timing_create(const cfg_gpu *c);
void timing_destroy(timing *t);

/* When warp (cta, warp) would issue its next record as the model knows now:
 * its clock, its CTA's start, or (a CTA not started) when its SM (sm_hint,
 * the trace's, or TRACE_SM_UNKNOWN) could start it. For a replay in time order. */
uint64_t timing_next_issue(const timing *t, uint32_t cta, uint32_t warp, int32_t sm_hint);

/* The observer to give gpu_set_observer: its callbacks feed t. */
gpu_observer timing_observer(timing *t);

/* Keep where each kernel's warps spend their cycles, per PC (timing_result.pc_cycles;
 * off by default: it costs the replay a few instructions a record). */
void timing_keep_pc_cycles(timing *t, bool on);

/* Write one CSV line per memory record to f as the model times it (NULL: none,
 * the default), after the header TIMING_TIMELINE_HEADER: the launch, the
 * record's CTA, warp, SM and PC, its operation ("ld.global", "st.shared", ...),
 * the cycle it issued and the cycle it was done (a load's data in its
 * registers, a store acknowledged by L2 or, in shared memory, written). Cycles
 * count from when the first CTA may start (sm__cycles_elapsed.avg adds
 * [timing] launch_cycles to the last of them). For comparing
 * the model with a kernel's own clock stamps (docs/timing.md, "The record
 * timeline"); the caller checks f for write errors. */
#define TIMING_TIMELINE_HEADER "launch,cta,warp,sm,pc,op,issue,done"
void timing_set_timeline(timing *t, FILE *f);

/* Start a kernel (after gpu_kernel_begin succeeded: info is its placement). */
void timing_kernel_begin(timing *t, const trace_kernel *k, const gpu_kernel_info *info);
/* A barrier record (after gpu_barrier). */
void timing_barrier(timing *t, const trace_barrier *b);
/* End the kernel (after gpu_kernel_end, whose store-combining flush the
 * observer has seen) and fill *out. */
void timing_kernel_end(timing *t, timing_result *out);

/* The registers a SASS instruction names, parsed from its text: the first
 * register operand when it is a destination (loads, atomics that return),
 * and every register read (addresses, store data; a ".64" operand names two
 * registers). For tests and the timing layer. */
typedef struct timing_regs {
    uint8_t dst;          /* first destination register, TIMING_NO_REG when none */
    uint64_t src[4];      /* bit r: register Rr is read (R0..R254) */
} timing_regs;
#define TIMING_NO_REG 255u
void timing_parse_sass(const char *sass, bool has_dst, timing_regs *out);

/* How many cycles longer a DRAM read takes when DRAM carries `permille`
 * thousandths of its read rate ([timing] dram_load_permille and
 * dram_load_extra_cycles: linear between the points, the first value below
 * the first point, the last above the last; docs/timing.md, "DRAM and what
 * L2 takes in"). For tests and the timing layer. */
uint32_t timing_dram_load_extra(const cfg_gpu *c, uint32_t permille);

#endif
