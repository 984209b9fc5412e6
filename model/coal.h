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
} coal_geom;

/* line_bytes and sector_bytes are powers of two, sector_bytes <= 32 and
 * line_bytes / sector_bytes <= COAL_MAX_SECTORS_PER_LINE (asserted). */
void coal_geom_init(coal_geom *g, uint32_t line_bytes, uint32_t sector_bytes);

/* Coalesce n chunks (n <= COAL_MAX_CHUNKS) into *out. */
void coal_run(const coal_geom *g, const coal_chunk *chunks, uint32_t n, coal_result *out);

/* The same result as coal_run for the n chunks (a0 + l * stride, size, lane l),
 * l = 0 .. n-1, computed per sector instead of per lane: for the warps whose
 * lanes step through memory at a fixed stride (most of any real trace).
 * Applies when stride is 0 or a power of two (>= size), a0 is aligned to
 * size (<= sector_bytes) and the last address does not wrap; returns false,
 * leaving *out undefined, otherwise. */
bool coal_affine(const coal_geom *g, uint64_t a0, uint64_t stride, uint32_t size, uint32_t n,
                 coal_result *out);

/* The byte mask of `bytes` bytes starting at offset `off` in a sector. */
static inline uint32_t coal_byte_mask(uint32_t off, uint32_t bytes)
{
    uint32_t m = bytes >= 32 ? 0xffffffffu : ((1u << bytes) - 1u);
    return m << off;
}

#endif
