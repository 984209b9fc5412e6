/* l2.h - the L2 cache shared by all SMs, and the DRAM sector counts behind it.
 *
 * Modelled (hardware-facts.md §3.3, §3.5, §4):
 *  - sectored 128-byte lines, LRU, write-back, write-allocate at sector
 *    granularity; partial sectors are kept with byte masks. A read miss
 *    fetches l2.fetch_sectors sectors around each missing one (64 bytes on
 *    the H100 and H200, findings §15).
 *  - partitions x slices. A line's home partition and slice come from a hash
 *    of its 2 KiB granule (splitmix64's finaliser of line >> 4; the real hash
 *    is not public, the measured fact is only that about half of a footprint
 *    is homed in the far partition). The granule keeps 16 neighbouring lines
 *    in one slice, in neighbouring sets: uncalibrated, chosen because it
 *    keeps the model's own tag arrays local for streaming kernels. The same
 *    slice number within each partition holds the line; the set within the
 *    slice comes from the configured index function.
 *  - SM s sits in the partition of its GPC (cfg_partition_of_sm: the
 *    measured map of [l2] gpc_partition, docs/findings.md §7; without one,
 *    s % partitions). A read looks up the SM's near partition
 *    first (these lookups are the srcunit_tex hit/miss counters); a near miss
 *    of a far-homed line crosses the fabric (counted per sector) to a second
 *    lookup at home, where a miss reads DRAM; the line is then also kept in
 *    the near partition as a clean copy, so a second read from that
 *    partition hits with no fabric traffic (§3.5).
 *  - writes and atomics are done at home (crossing the fabric when far) and
 *    drop the copies of the line in the other partitions. Writes are
 *    write-validate: they never fetch, and every write sector counts as a
 *    lookup hit (measured: write lookup misses are 0 on every H200 kernel).
 *  - ECC: a dirty sector that is only partly valid when it is evicted is
 *    completed from DRAM first (dram__sectors_read and
 *    lts__t_sectors_data_ecc); a read of a partly valid sector reads DRAM.
 *  - DRAM writes = dirty sectors evicted. Nothing is written back at the end
 *    of a kernel (measured: a kernel writing 4 MB shows 0 DRAM write
 *    sectors); l2_clear drops dirty data uncounted, as ncu's cache flush.
 * Not modelled: compression, residency control (persisting lines),
 * evict_first/evict_last classes at L2, the background traffic of the
 * profiler (§3.5), timing. The L2 request coalescer, which merges reads by
 * time, is the timing layer's (lrc.h). */
#ifndef GMS_L2_H
#define GMS_L2_H

#include <stdbool.h>
#include <stdint.h>

#include "cache.h"
#include "cfg.h"
#include "coal.h"
#include "stats.h"

/* Where the L2 keeps a line (above): its home partition and its slice within
 * each partition, from splitmix64's finaliser of its 2 KiB granule (every
 * bit of the granule number moves every bit of the hash, so neighbouring
 * granules spread over slices and partitions; Lemire's multiply-shift
 * reduction of its two 32-bit halves). The functional L2 and the timing
 * layer (timing.c) both place lines with it, so they agree on which lines
 * share a slice. */
#define L2_GRANULE_LINES_SHIFT 4u /* 16 lines = 2 KiB per slice granule */

typedef struct l2_home_slice {
    uint32_t home;  /* partition */
    uint32_t slice; /* within each partition */
} l2_home_slice;

static inline l2_home_slice l2_home_slice_of(uint64_t line, uint32_t partitions, uint32_t slices_per_partition)
{
    uint64_t z = cache_mix64(line >> L2_GRANULE_LINES_SHIFT);
    return (l2_home_slice){.home = (uint32_t)(((z & 0xffffffffu) * partitions) >> 32),
                           .slice = (uint32_t)(((z >> 32) * slices_per_partition) >> 32)};
}

typedef struct l2 l2;

/* The sectors a read missing the sectors of mask fetches: the aligned
 * blocks of fetch_sectors (a power of two) that hold them, in a line of
 * sectors_per_line (findings §15). */
static inline uint32_t l2_fetch_blocks(uint32_t mask, uint32_t fetch_sectors, uint32_t sectors_per_line)
{
    uint32_t block = (1u << fetch_sectors) - 1u, f = 0;
    for (uint32_t b = 0; b < sectors_per_line; b += fetch_sectors)
        if (mask & (block << b))
            f |= block << b;
    return f & ((1u << sectors_per_line) - 1u);
}

/* Where a line lives: its home partition, and its set in each partition's tag array. */
typedef struct l2_place {
    uint32_t home; /* partition */
    uint32_t set;  /* set in each partition's tag array: slice * sets_per_slice + set in slice */
} l2_place;

/* c->l2_line_bytes / l2_sector_bytes must equal the L1's (one request per
 * L1 line); at most 4 sectors per line; sets per slice a power of two. */
l2 *l2_create(const cfg_gpu *c);
void l2_destroy(l2 *c);

/* Empty every partition; dirty data is dropped, uncounted. */
void l2_clear(l2 *c);

uint32_t l2_home_partition(const l2 *c, uint64_t line);


/* A read request from an SM of partition part for the sectors of line in
 * sector_mask (whole sectors). Counts the request, its sectors, hits,
 * misses, fabric sectors, DRAM reads and write-backs into *s. A miss
 * fetches the aligned blocks of l2.fetch_sectors around its missing
 * sectors (what the line does not hold whole of them), and each sector
 * fetched is a lookup miss (findings §15). */
void l2_read(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask, stats *s);

/* A write request: byte_mask[i] are the bytes written in sector i. */
void l2_write(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask,
              const uint32_t *byte_mask, stats *s);

/* An atomic (reduction when is_red) request on the sectors of line. */
void l2_atomic(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask, bool is_red,
               stats *s);

/* A hint that line will be requested soon: its set in every partition (near
 * and home) starts loading into the CPU caches, and its placement (home,
 * set) is kept in a small memo for the request, which then need not compute
 * it again. Changes no count. */
void l2_prefetch(l2 *c, uint64_t line);
/* The same for a read from an SM of partition part: only the sets a read
 * touches, near and home (a write also drops the copies everywhere else). */
void l2_prefetch_read(l2 *c, uint32_t part, uint64_t line);
/* For every line of r in one call (a gather's): l2_prefetch_read when
 * read, else l2_prefetch. For reads the places are kept in places[i] for
 * r->lines[i] (for l2_read_at) instead of the memo; for writes, which store
 * combining sends later (l2_write), in the memo. */
void l2_prefetch_lines(l2 *c, uint32_t part, bool read, const coal_result *r, l2_place *places);
/* l2_prefetch_read for one line, returning its place instead of keeping it. */
l2_place l2_prefetch_place(l2 *c, uint32_t part, uint64_t line);
/* l2_read of a line whose place the hint gave (the same counts). */
void l2_read_at(l2 *c, uint32_t part, uint64_t line, l2_place pl, uint32_t sector_mask, stats *s);

/* Lines held in partition part (walks the cache: for tests). */
uint64_t l2_count_lines(l2 *c, uint32_t part);

#endif
