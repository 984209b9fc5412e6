/* sassflow.h - a kernel's whole SASS as the timing model needs it: which
 * instructions a warp executes between two of its records, and which
 * registers those instructions read.
 *
 * A trace's PC table holds the memory instructions and barriers; a capture
 * since the seventh session holds every instruction of the kernel
 * (docs/trace-format.md). With every instruction known, the instructions
 * between a warp's records are those on the shortest path of the kernel's
 * control flow from one record's PC to the next (branches read from the
 * SASS: BRA to a function-relative 0x target, EXIT), not the PC distance,
 * which counts code a warp jumped over; and the registers they read are
 * known, so a warp stops at the first instruction that reads a load still
 * in flight, as the in-order issue of an SM sub-partition does (an
 * arithmetic instruction between two loads carries the dependency the
 * loads' own operands do not show: `IMAD.WIDE R10, R9, 0x4, R6` between
 * `LDG R9` and `LDG R11, [R10.64]`). docs/timing.md, "Work between
 * records".
 *
 * Memory is fixed at creation except the pair cache, which is bounded. */
#ifndef GMS_SASSFLOW_H
#define GMS_SASSFLOW_H

#include <stdbool.h>
#include <stdint.h>

#include "trace.h"

typedef struct sassflow sassflow;

/* The flow of a kernel whose PC table holds every instruction: PCs 0, 16,
 * 32, ... without a gap, and at least one that is neither a memory
 * instruction nor a barrier. NULL otherwise (the caller keeps counting PC
 * distances). */
sassflow *sassflow_create(const trace_pc_info *pcs, uint32_t n_pcs);
void sassflow_destroy(sassflow *f);

/* The instructions executed strictly between PC a and PC b (a warp's
 * consecutive records; a == UINT32_MAX: from the kernel's entry, the first
 * instruction included) on the shortest path: *count of them, *path their
 * indices in the order they run (valid until the next call). False when b
 * cannot be reached from a (then nothing is set). */
bool sassflow_between(sassflow *f, uint32_t a, uint32_t b, uint32_t *count, const uint32_t **path);

/* Whether instruction i (an index of a path) is where a warp that passed a
 * BAR.SYNC.DEFER_BLOCKING waits for its CTA (timing.c): a memory
 * instruction, a barrier or a constant-bank load (LDC, ULDC). */
bool sassflow_blocks_barrier(const sassflow *f, uint32_t i);

/* The instructions a warp runs from the kernel's entry up to its nearest
 * EXIT (the EXIT not included): what a warp that executes no memory
 * instruction and no barrier issues before it ends, as the empty kernel's
 * `LDC; EXIT`. UINT32_MAX when no EXIT can be reached. */
uint32_t sassflow_entry_to_exit(sassflow *f);

/* The registers instruction i (an index of a path) reads: bit r of the
 * returned [4] words; and the same folded mod 32 (bit r mod 32), a quick
 * filter. Memory instructions and branches read none here (a memory
 * instruction on a path is one the warp ran with every lane off). */
const uint64_t *sassflow_reads(const sassflow *f, uint32_t i);
uint32_t sassflow_reads32(const sassflow *f, uint32_t i);

/* The registers instruction i (an index of a path) writes when it is an
 * arithmetic instruction whose first operand is a register: the first, and
 * *count 2 for a 64-bit result (.WIDE, .64, double precision), else 1.
 * Returns 255 when it writes none the model follows (memory instructions,
 * branches, predicates only). */
uint8_t sassflow_writes(const sassflow *f, uint32_t i, uint8_t *count);

#endif
