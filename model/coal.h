/* coal.h - the coalescer: what one warp-level memory instruction touches, in
 * 128-byte lines and 32-byte sectors.
 *
 * Input is a list of chunks (address, bytes, lane), each lying inside one
 * sector: a global access of 1..16 bytes at natural alignment is one chunk;
 * a local access is split by the caller into the 4-byte words of its
 * interleaved layout. Output is the distinct lines in order of first touch,
 * each with its touched sectors and, per sector, the bytes touched, so that
 * a cache can tell whether the bytes a load needs are valid and which bytes a
 * store writes.
 *
 * Modelled: Volta and later (one request per instruction, sectors = distinct
 * sectors). Not modelled: the Maxwell/Pascal request split before the tag
 * stage, and Kepler's 128-byte L1 transactions. */
#ifndef GMS_COAL_H
#define GMS_COAL_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#define COAL_MAX_SECTORS_PER_LINE 4u  /* line_bytes / sector_bytes: 128 / 32 */
#define COAL_MAX_CHUNKS 128u          /* 32 lanes x 4 words (a 16-byte local access) */
#define COAL_MAX_LINES COAL_MAX_CHUNKS

/* One piece of one lane's access. Invariant: it does not cross a sector. */
typedef struct coal_chunk {
    uint64_t addr;  /* byte address (global virtual, local physical, or shared offset) */
    uint8_t bytes;  /* 1..16 */
    uint8_t lane;   /* 0..31 */
} coal_chunk;

/* One distinct line an instruction touches. */
typedef struct coal_line {
    uint64_t line;         /* line number: address >> line shift */
    uint32_t sector_mask;  /* bit s: sector s of the line is touched */
    uint32_t byte_mask[COAL_MAX_SECTORS_PER_LINE]; /* bit b: byte b of sector s is touched */
} coal_line;

typedef struct coal_result {
    uint32_t n_lines;   /* distinct lines */
    uint32_t n_sectors; /* distinct sectors, summed over lines */
    coal_line lines[COAL_MAX_LINES];
} coal_result;

/* Line and sector geometry with its shifts precomputed. */
typedef struct coal_geom {
    uint32_t line_bytes;
    uint32_t sector_bytes;
    uint32_t line_shift;
    uint32_t sector_shift;
    uint32_t sectors_per_line;
    /* coal_affine's commonest warp (lanes of 1-32 bytes filling one aligned
     * line): possible at all (32-byte sectors, lines <= 128 bytes), and its
     * line's masks, every sector whole */
    bool whole_line_ok;
    uint32_t whole_sector_mask;
    uint32_t whole_byte_mask[COAL_MAX_SECTORS_PER_LINE];
} coal_geom;

/* line_bytes and sector_bytes are powers of two, sector_bytes <= 32 and
 * line_bytes / sector_bytes <= COAL_MAX_SECTORS_PER_LINE (asserted). */
void coal_geom_init(coal_geom *g, uint32_t line_bytes, uint32_t sector_bytes);

/* Coalesce n chunks (n <= COAL_MAX_CHUNKS) into *out. */
void coal_run(const coal_geom *g, const coal_chunk *chunks, uint32_t n, coal_result *out);

/* coal_run for one chunk per active lane, without the chunks: lane l (bit l
 * of active_mask) touches size bytes at addr[l], size a power of two at
 * natural alignment (as trace records are) and <= sector_bytes, so each lane
 * is one chunk.
 * For gathers (a line per lane): each lane's line is found by one probe of a
 * small hash table, not a linear search of the lines so far. Also gives the
 * line of each active lane, lowest lane first, as an index into out->lines
 * (line_of[k] for the k-th active lane: smem_cost_lanes uses it), and returns
 * the distinct bytes touched. */
uint32_t coal_lanes(const coal_geom *g, const uint64_t *addr, uint32_t active_mask, uint32_t size,
                    coal_result *out, uint8_t *line_of);

/* The same result as coal_run for the n chunks (a0 + l * stride, size, lane l),
 * l = 0 .. n-1, computed per sector instead of per lane: for the warps whose
 * lanes step through memory at a fixed stride (most of any real trace).
 * Applies when stride is 0 or a power of two (>= size), a0 is aligned to
 * size (<= sector_bytes) and the last address does not wrap; returns false,
 * leaving *out undefined, otherwise. */
static inline bool coal_affine(const coal_geom *g, uint64_t a0, uint64_t stride, uint32_t size,
                               uint32_t n, coal_result *out);
/* coal_affine but for the warps that fill one aligned line, which it answers inline. */
bool coal_affine_other(const coal_geom *g, uint64_t a0, uint64_t stride, uint32_t size,
                       uint32_t n, coal_result *out);

static inline bool coal_affine(const coal_geom *g, uint64_t a0, uint64_t stride, uint32_t size,
                               uint32_t n, coal_result *out)
{
    if (g->whole_line_ok && stride == size && (uint64_t)n * size == g->line_bytes &&
        (a0 & (g->line_bytes - 1u)) == 0 && size <= 32u && (size & (size - 1u)) == 0) {
        /* the commonest warp of all (32 lanes of 4 bytes at an aligned line):
         * every sector of one line, whole */
        coal_line *cl = &out->lines[0];
        cl->line = a0 >> g->line_shift;
        cl->sector_mask = g->whole_sector_mask;
        memcpy(cl->byte_mask, g->whole_byte_mask, sizeof cl->byte_mask);
        out->n_lines = 1;
        out->n_sectors = g->sectors_per_line;
        return true;
    }
    return coal_affine_other(g, a0, stride, size, n, out);
}

/* The byte mask of `bytes` bytes starting at offset `off` in a sector. */
static inline uint32_t coal_byte_mask(uint32_t off, uint32_t bytes)
{
    uint32_t m = bytes >= 32 ? 0xffffffffu : ((1u << bytes) - 1u);
    return m << off;
}

#endif
