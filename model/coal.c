/* coal.c - group an instruction's chunks into distinct lines and sectors.
 *
 * Lines are found by a short linear search that first tries the line of the
 * previous chunk: coalesced warps touch one to four lines, so the search is
 * one comparison per chunk; a 32-lane gather costs at most 32 x 32 compares
 * of contiguous uint64_t, which the compiler vectorises. */
#include "coal.h"

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
}

void coal_run(const coal_geom *g, const coal_chunk *chunks, uint32_t n, coal_result *out)
{
    assert(n <= COAL_MAX_CHUNKS);
    uint64_t keys[COAL_MAX_LINES];
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
            for (uint32_t j = 0; j < n_lines; j++) {
                if (keys[j] == line) {
                    idx = j;
                    break;
                }
            }
            if (idx == n_lines) {
                keys[n_lines] = line;
                coal_line *nl = &out->lines[n_lines];
                nl->line = line;
                nl->sector_mask = 0;
                memset(nl->byte_mask, 0, sizeof nl->byte_mask);
                n_lines++;
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
