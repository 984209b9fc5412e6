/* capture_decode.h - raw device records (capture_rec.h) into trace records.
 *
 * The device writes what the Compute Sanitizer callbacks were given; this
 * module decides what it means for the trace, using the kernel's SASS where
 * the API is silent:
 *   - space: the callback that fired (the API resolves generic pointers per
 *     lane; shared and local addresses are window offsets); TRACE_MEM_GENERIC
 *     when the instruction at the PC is a generic LD/ST/ATOM/RED;
 *   - kind: READ -> ld, WRITE -> st, READ|WRITE -> atom, or red when the
 *     opcode is RED/REDG; the ATOMSYS flag only says "system scope";
 *   - cache operator: implied by the opcode (capture_sass.h), global and local;
 *   - cp.async (LDGSTS): two adjacent raw records, the global read and the
 *     shared write, both flagged TRACE_MEM_LDGSTS;
 *   - ldmatrix/stmatrix: one shared load/store of 16 bytes per lane; with
 *     count = 1 or 2 matrices only lanes 0-7 or 0-15 supply row addresses
 *     (PTX ISA), so the others are dropped from the active mask;
 *   - barriers: one trace_barrier per warp arrival.
 * A record is checked before it is trusted: the launch tag (a slot that was
 * claimed but never written), the CTA and warp against the launch's
 * dimensions, the width, the alignment of every active lane, that its PC is
 * an instruction of the listing and that a memory opcode there can issue the
 * access the callback reported (a wrong PC mapping would otherwise go
 * unnoticed). An opcode the table does not know as a memory instruction at
 * all is not an error: the record keeps what the API reported and is
 * counted, so the caller can name the opcode. Accesses the API flags as cache
 * prefetches are not data accesses: they are skipped and counted.
 *
 * Not done here: anything about files (the caller writes the records). */
#ifndef GMS_CAPTURE_DECODE_H
#define GMS_CAPTURE_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include "capture_rec.h"
#include "capture_sass.h"
#include "err.h"
#include "trace.h"

/* SASS instructions are 16 bytes on every architecture CUDA 13 supports (sm_75+). */
#define CAPTURE_SASS_INST_BYTES 16u

/* What the listing says about each 16-byte instruction slot of one function. */
typedef struct capture_pc_slot {
    capture_op op;
    bool known; /* the listing has an instruction here */
} capture_pc_slot;

typedef struct capture_pc_map {
    uint64_t code_bytes; /* the function's size as the driver reports it */
    uint32_t n_slots;
    capture_pc_slot *slots;
    bool has_sass;       /* false: no listing; nothing is refined from SASS */
} capture_pc_map;

/* Build the map for a function of code_bytes bytes from its listing f (NULL:
 * no SASS available). Returns -1 when code_bytes is absurd. */
int capture_pc_map_build(capture_pc_map *map, const capture_sass_func *f, uint64_t code_bytes,
                         err_info *err);
void capture_pc_map_free(capture_pc_map *map);

/* One traced launch, as the decoder needs it. */
typedef struct capture_launch {
    uint32_t launch;    /* index over all kernel launches of the program */
    const char *name;   /* kernel name, for messages */
    uint32_t grid[3];
    uint32_t block[3];
    uint64_t code_pc;   /* the kernel's entry (sanitizerGetFunctionPcAndSize) */
    uint64_t code_bytes;
    uint32_t tag;       /* capture_tracker.tag of the launch */
} capture_launch;

typedef enum capture_out_type {
    CAPTURE_OUT_MEM,     /* out->mem is a record */
    CAPTURE_OUT_BARRIER, /* out->barrier is a record */
    CAPTURE_OUT_SKIP,    /* nothing to write (a prefetch) */
    CAPTURE_OUT_COUNT
} capture_out_type;

typedef struct capture_out {
    capture_out_type type;
    trace_mem mem;
    trace_barrier barrier;
} capture_out;

typedef struct capture_decoder {
    capture_launch l;
    const capture_pc_map *map;
    uint64_t ctas;
    uint32_t warps_per_cta;
    uint32_t last_warp_mask; /* lanes that exist in a CTA's last warp */
    /* the global half of a cp.async waiting for its shared half */
    bool ldgsts_open;
    uint64_t ldgsts_pc;
    uint32_t ldgsts_cta, ldgsts_warp, ldgsts_mask;
    /* what was decoded so far */
    uint64_t n_mem;
    uint64_t n_barrier;
    uint64_t n_prefetch;     /* skipped: prefetches */
    uint64_t n_outside_code; /* records at PCs outside the kernel's code (no SASS for them) */
    uint64_t n_unknown_opcode; /* records at opcodes capture_sass.c does not know as memory instructions */
    uint32_t first_unknown_pc;
    /* optional, owned by the caller (map->n_slots bytes, zeroed per launch):
     * seen[i] is set when a record came from instruction slot i */
    uint8_t *seen;
} capture_decoder;

/* Returns -1 when the launch's dimensions are impossible. */
int capture_decoder_init(capture_decoder *d, const capture_launch *l, const capture_pc_map *map,
                         err_info *err);

/* Decode the record in slot (counted from 0 in the launch's buffer). Returns
 * 0 with *out filled, or -1 with a message naming the launch, the slot and
 * what was wrong. */
int capture_decode(capture_decoder *d, const capture_raw_rec *raw, uint64_t slot, capture_out *out,
                   err_info *err);

/* The instructions of class cls in map that produced no record (seen as
 * filled by a decoder); *first_pc gets the first one's offset. Local-memory
 * instructions with no record are how a user learns that register spills,
 * which the API does not report, are missing from a trace (docs/capture.md). */
uint32_t capture_pc_map_unseen(const capture_pc_map *map, const uint8_t *seen, capture_op_class cls,
                               uint32_t *first_pc);

/* After the last record: -1 when a cp.async half is left unpaired. */
int capture_decoder_finish(capture_decoder *d, err_info *err);

#endif
