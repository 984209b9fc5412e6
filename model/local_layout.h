/* local_layout.h - where a warp's local memory lies, the one definition the
 * model (gpu.c) and explain (explain.c) share.
 *
 * Local addresses in a trace are offsets in the thread's window (2^24 bytes;
 * larger offsets wrap). The hardware interleaves the windows of a warp's 32
 * threads at 4-byte words, so word k of lane l is at k * 128 + l * 4 in the
 * warp's region: a warp reading the same offset in every thread touches one
 * 128-byte line (docs/metrics.md, "Local memory"; measured: local_array's
 * source view, L2 Theoretical Sectors Local).
 *
 * Where the words lie: the driver reserves local memory per resident
 * thread of an SM, and word k of every resident thread comes before word
 * k + 1 of any: word k of thread slot t (warp slot * 32 + lane) is at
 * k * (threads per SM * 4) + t * 4 in its SM's region. So a warp's word k
 * is still one 128-byte line, and the resident warps' word-k lines lie side
 * by side. L1 indexes its sets by the address (findings §3f), and the
 * driver's own layout is not known (one thread's words lie on lines in
 * order, findings §3g; how the threads' frames interleave is open); this one spreads
 * local_array's frames over the sets as consecutive lines, where a frame
 * of its own per warp, a stack apart, put four warps' frames in every set
 * and missed most of its loads (the H200 misses 0.15%). A later CTA takes
 * the slot of one that finished. */
#ifndef GMS_LOCAL_LAYOUT_H
#define GMS_LOCAL_LAYOUT_H

#include <stdint.h>

#include "coal.h"
#include "trace.h"

#define LOCAL_BASE ((uint64_t)1 << 60)             /* above any global address */
#define LOCAL_WINDOW_SHIFT 24u                    /* bytes of one thread's local window */

/* The chunks of local record m for the warp whose word 0 is at base, words
 * word_stride bytes apart (a multiple of 128), word-major (word k of every
 * active lane, in lane order, then word k + 1); accesses below 4 bytes are
 * one word. Returns the chunk count; *words gets the words per lane. c has
 * room for TRACE_WARP_LANES * 4 chunks. */
static inline uint32_t local_layout_chunks(const trace_mem *m, uint64_t base, uint64_t word_stride,
                                           coal_chunk *c, uint32_t *words)
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
            c[n].addr = base + (off >> 2) * word_stride + l * 4u + (off & 3u);
            c[n].bytes = word_bytes;
            c[n].lane = (uint8_t)l;
            n++;
        }
    }
    *words = w;
    return n;
}

#define LOCAL_SM_SHIFT 40u /* each SM's threads in a region of their own */

/* Where word 0 of the warp in resident slot `warp_slot` of SM `sm` lies (a
 * CTA's slot times its warps, plus the warp), and *word_stride the distance
 * between its words: threads_per_sm x 4 bytes. */
static inline uint64_t local_layout_base(uint32_t sm, uint32_t warp_slot, uint32_t threads_per_sm,
                                         uint64_t *word_stride)
{
    *word_stride = (uint64_t)threads_per_sm * 4u;
    return LOCAL_BASE + ((uint64_t)(sm & 0xfffffu) << LOCAL_SM_SHIFT) + (uint64_t)warp_slot * 128u;
}

#endif
