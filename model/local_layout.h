/* local_layout.h - where a warp's local memory lies, the one definition the
 * model (gpu.c) and explain (explain.c) share.
 *
 * Local addresses in a trace are offsets in the thread's window (2^24 bytes;
 * larger offsets wrap). The hardware interleaves the windows of a warp's 32
 * threads at 4-byte words, so word k of lane l is at k * 128 + l * 4 in the
 * warp's region: a warp reading the same offset in every thread touches one
 * 128-byte line (docs/metrics.md, "Local memory"; measured: local_array's
 * source view, L2 Theoretical Sectors Local). */
#ifndef GMS_LOCAL_LAYOUT_H
#define GMS_LOCAL_LAYOUT_H

#include <stdint.h>

#include "coal.h"
#include "trace.h"

#define LOCAL_BASE ((uint64_t)1 << 60)             /* above any global address */
#define LOCAL_WINDOW_SHIFT 24u                    /* bytes of one thread's local window */
#define LOCAL_WARP_SHIFT (LOCAL_WINDOW_SHIFT + 5u) /* 32 interleaved windows per warp */
#define LOCAL_WARP_MASK (((uint64_t)1 << 31) - 1u) /* keeps the region below bit 61 */

/* The chunks of local record m in the region that starts at base, word-major
 * (word k of every active lane, in lane order, then word k + 1); accesses
 * below 4 bytes are one word. Returns the chunk count; *words gets the words
 * per lane. c has room for TRACE_WARP_LANES * 4 chunks. */
static inline uint32_t local_layout_chunks(const trace_mem *m, uint64_t base, coal_chunk *c, uint32_t *words)
{
    const uint64_t window_mask = ((uint64_t)1 << LOCAL_WINDOW_SHIFT) - 1u;
    uint32_t w = m->size_bytes >= 4 ? m->size_bytes / 4u : 1u;
    uint8_t word_bytes = m->size_bytes >= 4 ? 4 : m->size_bytes;
    uint32_t n = 0;
    for (uint32_t k = 0; k < w; k++) {
        uint32_t mask = m->active_mask;
        while (mask) {
            uint32_t l = (uint32_t)__builtin_ctz(mask);
            mask &= mask - 1u;
            uint64_t off = (m->addr[l] + 4u * k) & window_mask;
            c[n].addr = base + (off >> 2) * 128u + l * 4u + (off & 3u);
            c[n].bytes = word_bytes;
            c[n].lane = (uint8_t)l;
            n++;
        }
    }
    *words = w;
    return n;
}

/* The base of the region of warp `warp` of CTA `cta`. */
static inline uint64_t local_layout_base(uint32_t cta, uint32_t warps_per_cta, uint32_t warp)
{
    uint64_t gwarp = ((uint64_t)cta * warps_per_cta + warp) & LOCAL_WARP_MASK;
    return LOCAL_BASE + (gwarp << LOCAL_WARP_SHIFT);
}

#endif
