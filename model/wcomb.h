/* wcomb.h - store combining: the consecutive store instructions of one warp
 * reach L2 as one write per 128-byte line.
 *
 * Measured on the H200 (traces/h200, docs/validation.md): simpleMathAoS stores
 * x and y of each {float x, y} with two STG.32 at stride 8 (524,288 L1 store
 * sectors) and L2 receives 263,744 write sectors, not 524,288; a transpose
 * whose 8 warps write the same sectors at different times gets no merging
 * (524,288 of 524,288). So the merging is per warp: a warp's stored lines wait
 * in its entry until the warp issues anything other than a global or local
 * store (a shared store or a barrier ends the run too), holds more
 * than WCOMB_LINES lines, or the entry is the oldest of WCOMB_CAP live ones
 * when a new warp needs one; then they are sent (the flush callback).
 * Merging between different warps (about 10% of the boundary sectors of
 * writeSegment offset 11) depends on timing: not here, but in the timing
 * model's per-SM write queue (model/wqueue.h, `--timing` only). So does
 * whether a warp's own merged stores really leave together (16 warps storing
 * at once: 2.6 requests a line, findings §24): wcomb_store says which lines
 * joined, the queue decides. */
#ifndef GMS_WCOMB_H
#define GMS_WCOMB_H

#include <stdint.h>

#include "coal.h"
#include "trace.h"

#define WCOMB_LINES 4u   /* lines one warp's pending stores may hold */
#define WCOMB_CAP 16384u /* live entries: above the 8,448 warps an H200 holds at once */

typedef struct wcomb_line {
    uint64_t line;
    uint32_t sector_mask;
    uint32_t byte_mask[COAL_MAX_SECTORS_PER_LINE];
} wcomb_line;

/* Called for each line an entry sends; tag is what wcomb_store was given. */
typedef void (*wcomb_send_fn)(void *ctx, uint32_t sm, uint32_t tag, const wcomb_line *line);

/* A hint that line will be sent soon (its entry is the next the ring reuses).
 * Changes nothing. */
typedef void (*wcomb_hint_fn)(void *ctx, uint64_t line);

typedef struct wcomb wcomb;

/* hint may be NULL */
wcomb *wcomb_create(wcomb_send_fn send, wcomb_hint_fn hint, void *ctx);
void wcomb_destroy(wcomb *w);
/* Drop every entry unsent (start of a kernel). */
void wcomb_reset(wcomb *w);

/* The lines of r were stored by (cta, warp) on sm; tag (e.g. the PC's index)
 * is passed back when they are sent. Returns which of r's lines (bit i: line
 * i, for i < 32) joined a line the warp's entry already held: merged with an
 * earlier store of its run, not sent on their own. */
uint32_t wcomb_store(wcomb *w, uint32_t cta, uint32_t warp, uint32_t sm, uint32_t tag,
                     const coal_result *r);
/* Whether a record of this kind and space ends its warp's run of stores:
 * anything but a global or local store does (a barrier too; the functional
 * model and the timing layer's store_run both ask here). */
static inline bool wcomb_ends_run(uint8_t kind, uint8_t space)
{
    return kind != TRACE_KIND_ST || space == TRACE_SPACE_SHARED;
}

/* (cta, warp) issued something else: send its lines. */
void wcomb_end_run(wcomb *w, uint32_t cta, uint32_t warp);
/* A hint that (cta, warp) will store or end its run soon. Changes nothing. */
void wcomb_prefetch(const wcomb *w, uint32_t cta, uint32_t warp);
/* Send everything, oldest first (end of a kernel). */
void wcomb_flush_all(wcomb *w);

#endif
