/* coal.c - group an instruction's chunks into distinct lines and sectors.
 *
 * Lines are found by a short linear search that first tries the line of the
 * previous chunk: coalesced warps touch one to four lines, so the search is
 * one comparison per chunk. Past 8 distinct lines (gathers) a small hash
 * table takes over, so a 32-line gather is not 32 x 32 compares; the lines
 * keep their order of first touch either way.
 *
 * coal_lanes does coal_run's work for one chunk per lane (global loads and
 * stores that are not at a fixed stride: gathers) with a hash probe per lane
 * from the first, and counts the distinct bytes as it goes.
 *
 * coal_affine gives the same result for lanes at a power-of-two stride by
 * walking the sectors they touch: the lanes inside one sector are a run,
 * and their bytes are a periodic pattern (size bytes every stride). */
#include "coal.h"
#include "bits.h"

#include <assert.h>
#include <string.h>

static uint32_t log2_exact(uint32_t v)
{
    uint32_t s = 0;
    while ((1u << s) < v)
        s++;
    assert((1u << s) == v);
    return s;
}

void coal_geom_init(coal_geom *g, uint32_t line_bytes, uint32_t sector_bytes)
{
    assert(sector_bytes >= 1 && sector_bytes <= 32);
    assert(line_bytes >= sector_bytes);
    g->line_bytes = line_bytes;
    g->sector_bytes = sector_bytes;
    g->line_shift = log2_exact(line_bytes);
    g->sector_shift = log2_exact(sector_bytes);
    g->sectors_per_line = line_bytes / sector_bytes;
    assert(g->sectors_per_line <= COAL_MAX_SECTORS_PER_LINE);
    /* coal_affine's whole-line warp (coal.h): 32-byte sectors (a lane of up
     * to 32 bytes lies in one), lines of at most 4 of them */
    g->whole_line_ok = sector_bytes == 32u && line_bytes <= 128u;
    g->whole_sector_mask = (1u << g->sectors_per_line) - 1u;
    for (uint32_t s = 0; s < COAL_MAX_SECTORS_PER_LINE; s++)
        g->whole_byte_mask[s] = s < g->sectors_per_line ? ~0u : 0u;
}

/* Lines past this many are found through a hash table: a 32-line gather
 * would otherwise compare each lane's line with every line before it. */
#define COAL_LINEAR_LINES 8u
#define COAL_SLOTS 256u /* > 2 x COAL_MAX_LINES: probes stay short */

static inline uint32_t line_slot(uint64_t line)
{
    return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> 56);
}

void coal_run(const coal_geom *g, const coal_chunk *chunks, uint32_t n, coal_result *out)
{
    assert(n <= COAL_MAX_CHUNKS);
    _Static_assert(COAL_MAX_LINES < 255u && COAL_SLOTS >= 2u * COAL_MAX_LINES, "slot bytes");
    uint64_t keys[COAL_MAX_LINES];
    uint8_t slots[COAL_SLOTS]; /* line index + 1, 0 = empty; valid once hashed */
    bool hashed = false;
    uint32_t n_lines = 0;
    uint32_t n_sectors = 0;
    uint32_t last = 0;
    const uint32_t sector_in_line_mask = g->sectors_per_line - 1u;
    const uint32_t off_mask = g->sector_bytes - 1u;

    for (uint32_t i = 0; i < n; i++) {
        const coal_chunk *c = &chunks[i];
        uint64_t line = c->addr >> g->line_shift;
        uint32_t idx;
        if (n_lines > 0 && keys[last] == line) {
            idx = last;
        } else {
            idx = n_lines;
            uint32_t h = 0;
            if (!hashed) {
                for (uint32_t j = 0; j < n_lines; j++) {
                    if (keys[j] == line) {
                        idx = j;
                        break;
                    }
                }
            } else {
                for (h = line_slot(line); slots[h]; h = (h + 1u) & (COAL_SLOTS - 1u)) {
                    if (keys[slots[h] - 1u] == line) {
                        idx = slots[h] - 1u;
                        break;
                    }
                }
            }
            if (idx == n_lines) {
                keys[n_lines] = line;
                coal_line *nl = &out->lines[n_lines];
                nl->line = line;
                nl->sector_mask = 0;
                memset(nl->byte_mask, 0, sizeof nl->byte_mask);
                n_lines++;
                if (hashed) {
                    slots[h] = (uint8_t)n_lines;
                } else if (n_lines == COAL_LINEAR_LINES) {
                    memset(slots, 0, sizeof slots);
                    for (uint32_t j = 0; j < n_lines; j++) {
                        uint32_t k = line_slot(keys[j]);
                        while (slots[k])
                            k = (k + 1u) & (COAL_SLOTS - 1u);
                        slots[k] = (uint8_t)(j + 1u);
                    }
                    hashed = true;
                }
            }
            last = idx;
        }
        coal_line *l = &out->lines[idx];
        uint32_t s = (uint32_t)(c->addr >> g->sector_shift) & sector_in_line_mask;
        uint32_t off = (uint32_t)c->addr & off_mask;
        assert(off + c->bytes <= g->sector_bytes); /* the caller split at sectors */
        if (!(l->sector_mask & (1u << s))) {
            l->sector_mask |= 1u << s;
            n_sectors++;
        }
        l->byte_mask[s] |= coal_byte_mask(off, c->bytes);
    }
    out->n_lines = n_lines;
    out->n_sectors = n_sectors;
}

/* coal_lanes' table: at most 32 lines in 128 slots, so that a probe for a
 * new line mostly ends at its first slot (in 64, a gather's inserts took
 * ~2.5 probes: random 100k, 53 -> 50 instructions per lane) */
#define COAL_LANE_SLOT_BITS 7u
#define COAL_LANE_SLOTS (1u << COAL_LANE_SLOT_BITS)

static inline uint32_t lane_slot(uint64_t line)
{
    return (uint32_t)((line * 0x9e3779b97f4a7c15ull) >> (64u - COAL_LANE_SLOT_BITS));
}

/* Bits set in a byte mask (overlapping lanes only): no libgcc call. */

/* coal_lanes' work, for its geometry's shifts and masks as arguments: inlined
 * twice, once with the constants of every shipped config (128-byte lines of
 * 32-byte sectors), where the shifts cost one instruction each. */
#if defined(__GNUC__)
__attribute__((always_inline))
#endif
static inline uint32_t lanes_run(const uint64_t *addr, uint32_t active_mask, uint32_t size,
                                 coal_result *out, uint8_t *line_of, uint32_t line_shift,
                                 uint32_t sector_shift, uint32_t spl_mask, uint32_t off_mask)
{
    uint8_t slots[COAL_LANE_SLOTS]; /* line index + 1, 0 = empty */
    memset(slots, 0, sizeof slots);
    const uint32_t size_mask = coal_byte_mask(0, size);
    coal_line *const lines = out->lines;
    coal_line *cur = lines; /* the previous lane's line */
    uint64_t prev = UINT64_MAX; /* its number (none is that high) */
    uint8_t *lo = line_of;
    uint32_t n_lines = 0, n_sectors = 0, overlap = 0;
    uint64_t ored = 0; /* the lanes' addresses ORed: aligned to size, all of them */
    for (uint32_t mask = active_mask; mask; mask &= mask - 1u, lo++) {
        uint64_t a = addr[__builtin_ctz(mask)];
        ored |= a;
        uint64_t line = a >> line_shift;
        uint32_t s = (uint32_t)(a >> sector_shift) & spl_mask;
        uint32_t bm = size_mask << ((uint32_t)a & off_mask);
        if (line != prev) { /* a coalesced warp's lanes stay in the line */
            uint32_t h = lane_slot(line), e;
            while ((e = slots[h]) != 0 && lines[e - 1u].line != line)
                h = (h + 1u) & (COAL_LANE_SLOTS - 1u);
            prev = line;
            if (!e) { /* a new line: its first sector, its first bytes */
                cur = &lines[n_lines];
                cur->line = line;
                cur->sector_mask = 1u << s;
                memset(cur->byte_mask, 0, sizeof cur->byte_mask);
                cur->byte_mask[s] = bm;
                *lo = (uint8_t)n_lines++;
                slots[h] = (uint8_t)n_lines;
                n_sectors++;
                continue;
            }
            cur = &lines[e - 1u];
        }
        *lo = (uint8_t)(cur - lines);
        uint32_t old = cur->byte_mask[s];
        n_sectors += old == 0; /* a touched sector's byte mask is not 0 */
        cur->sector_mask |= 1u << s;
        cur->byte_mask[s] = old | bm;
        if (old & bm) /* lanes on the same bytes: those count once */
            overlap += bits_count32(old & bm);
    }
    assert((ored & (size - 1u)) == 0); /* naturally aligned: each lane inside a sector */
    (void)ored;
    out->n_lines = n_lines;
    out->n_sectors = n_sectors;
    return (uint32_t)(lo - line_of) * size - overlap;
}

uint32_t coal_lanes(const coal_geom *g, const uint64_t *addr, uint32_t active_mask, uint32_t size,
                    coal_result *out, uint8_t *line_of)
{
    assert(size >= 1 && size <= g->sector_bytes && (size & (size - 1u)) == 0);
    _Static_assert(COAL_LANE_SLOTS >= 2u * 32u && COAL_LANE_SLOTS <= 256u, "slot bytes");
    if (g->line_shift == 7u && g->sector_shift == 5u)
        return lanes_run(addr, active_mask, size, out, line_of, 7u, 5u, 3u, 31u);
    return lanes_run(addr, active_mask, size, out, line_of, g->line_shift, g->sector_shift,
                     g->sectors_per_line - 1u, g->sector_bytes - 1u);
}

bool coal_affine_other(const coal_geom *g, uint64_t a0, uint64_t stride, uint32_t size,
                       uint32_t n, coal_result *out)
{
    const uint32_t sb = g->sector_bytes;
    if (n == 0 || n > COAL_MAX_CHUNKS || size == 0 || size > sb || (size & (size - 1u)) ||
        (a0 & (size - 1u)) || (stride & (stride - 1u)) || (stride != 0 && stride < size) ||
        stride > ((uint64_t)1 << 56) || a0 > UINT64_MAX - (uint64_t)(n - 1u) * stride)
        return false;
    const uint32_t spl_mask = g->sectors_per_line - 1u;
    const uint64_t zmask = coal_byte_mask(0, size);
    if (stride == 0) { /* every lane the same bytes */
        coal_line *l = &out->lines[0];
        uint32_t s = (uint32_t)(a0 >> g->sector_shift) & spl_mask;
        l->line = a0 >> g->line_shift;
        memset(l->byte_mask, 0, sizeof l->byte_mask);
        l->sector_mask = 1u << s;
        l->byte_mask[s] = (uint32_t)(zmask << (a0 & (sb - 1u)));
        out->n_lines = 1;
        out->n_sectors = 1;
        return true;
    }
    if (stride == size && g->line_bytes <= 128u && sb == 32u && (uint64_t)n * size <= 4u * 128u &&
        a0 <= UINT64_MAX - (uint64_t)n * size) {
        /* contiguous lanes, the usual case: the bytes [a0, end) by line, the
         * sectors of a line at once: those from lo's to hi's are touched, and
         * whole but for the first and the last (a 32-byte sector's mask is all
         * ones) */
        const uint64_t end = a0 + (uint64_t)n * size;
        uint32_t n_lines = 0, n_sectors = 0;
        for (uint64_t line = a0 >> g->line_shift; (line << g->line_shift) < end; line++) {
            uint64_t base = line << g->line_shift;
            uint32_t lo = a0 > base ? (uint32_t)(a0 - base) : 0;           /* first byte in the line */
            uint32_t hi = end - base < g->line_bytes ? (uint32_t)(end - base) : g->line_bytes;
            uint32_t s0 = lo >> 5, s1 = (hi - 1u) >> 5;                   /* lo < hi */
            uint32_t touched = ((2u << s1) - 1u) & ~((1u << s0) - 1u);
            coal_line *cl = &out->lines[n_lines++];
            cl->line = line;
            cl->sector_mask = touched;
            n_sectors += s1 - s0 + 1u;
            _Static_assert(COAL_MAX_SECTORS_PER_LINE == 4, "four sector masks");
            cl->byte_mask[0] = 0u - (touched & 1u);
            cl->byte_mask[1] = 0u - ((touched >> 1) & 1u);
            cl->byte_mask[2] = 0u - ((touched >> 2) & 1u);
            cl->byte_mask[3] = 0u - (touched >> 3);
            cl->byte_mask[s0] &= ~0u << (lo & 31u);
            cl->byte_mask[s1] &= ~0u >> (31u - ((hi - 1u) & 31u));
        }
        out->n_lines = n_lines;
        out->n_sectors = n_sectors;
        return true;
    }
    uint32_t log2_stride = (uint32_t)__builtin_ctzll(stride);
    /* size bytes every stride bytes, from bit 0, over 64 bits (stride < sb <= 32);
     * contiguous lanes (stride == size, the usual case) cover every byte */
    uint64_t pattern = ~(uint64_t)0;
    if (stride != size) {
        pattern = zmask;
        for (uint64_t w = stride; w < 64u; w <<= 1)
            pattern |= pattern << w;
    }
    uint32_t n_lines = 0, n_sectors = 0;
    coal_line *cur = NULL;
    uint64_t a = a0;
    for (uint32_t lane = 0; lane < n;) {
        uint32_t off = (uint32_t)a & (sb - 1u);
        uint32_t k = 1; /* lanes in this sector */
        uint64_t bytes = zmask << off;
        if (stride < sb) {
            k = (sb - off + (uint32_t)stride - 1u) >> log2_stride;
            if (k > n - lane)
                k = n - lane;
            uint32_t end = off + ((k - 1u) << log2_stride) + size; /* <= sb */
            bytes = (pattern << off) & ((((uint64_t)1 << end) - 1u) & ~(((uint64_t)1 << off) - 1u));
        }
        uint64_t line = a >> g->line_shift;
        if (!cur || cur->line != line) {
            cur = &out->lines[n_lines++];
            cur->line = line;
            cur->sector_mask = 0;
            memset(cur->byte_mask, 0, sizeof cur->byte_mask);
        }
        uint32_t s = (uint32_t)(a >> g->sector_shift) & spl_mask;
        cur->sector_mask |= 1u << s; /* addresses rise: each sector comes once */
        cur->byte_mask[s] = (uint32_t)bytes;
        n_sectors++;
        lane += k;
        a += (uint64_t)k << log2_stride;
    }
    out->n_lines = n_lines;
    out->n_sectors = n_sectors;
    return true;
}
