/* l2.h - the L2 cache shared by all SMs, and the DRAM sector counts behind it.
 *
 * Modelled (hardware-facts.md §3.3, §3.5, §4):
 *  - sectored 128-byte lines, LRU, write-back, write-allocate at sector
 *    granularity; partial sectors are kept with byte masks. A read miss
 *    fetches l2.fetch_sectors sectors around each missing one (64 bytes on
 *    the H100 and H200, findings §15).
 *  - partitions x slices. A line's home partition and slice are those of
 *    its 2 KiB granule, which keeps 16 neighbouring lines in one slice, in
 *    neighbouring sets (uncalibrated, chosen because it keeps the model's
 *    own tag arrays local for streaming kernels). l2.placement says where a
 *    granule goes: granule (the default), a hash of its number, the set in
 *    the slice from the configured index function; page (the H200, findings
 *    §3h), each 2 MiB page's granules spread evenly over all slices and set
 *    groups in an arrangement a hash of the page picks (l2_page_place_of).
 *    The same slice number within each partition holds the line.
 *  - SM s sits in the partition of its GPC (cfg_partition_of_sm: the
 *    measured map of [l2] gpc_partition, docs/findings.md §7; without one,
 *    s % partitions). A read looks up the SM's near partition
 *    first (these lookups are the srcunit_tex hit/miss counters); a near miss
 *    of a far-homed line crosses the fabric (counted per sector) to a second
 *    lookup at home, where a miss reads DRAM; the line is then also kept in
 *    the near partition as a clean copy, so a second read from that
 *    partition hits with no fabric traffic (§3.5).
 *  - writes and atomics are done at home (crossing the fabric when far) and
 *    drop the copies of the line in the other partitions; a write from the
 *    far side leaves a clean copy of the sectors home holds whole in the
 *    writer's partition, as a read does (findings §3h: an SM reads back
 *    what it wrote all near, no fabric traffic). Writes are
 *    write-validate: they never fetch, and every write sector counts as a
 *    lookup hit (measured: write lookup misses are 0 on every H200 kernel).
 *  - ECC: a dirty sector that is only partly valid when it is evicted is
 *    completed from DRAM first (dram__sectors_read and
 *    lts__t_sectors_data_ecc); a read of a partly valid sector reads DRAM.
 *  - DRAM writes = dirty sectors evicted, and those a set writes back to keep
 *    at most l2.dirty_ways dirty lines (its least recently used dirty line,
 *    kept clean: the H200 keeps ~26 MiB dirty, a limit per slice, findings
 *    §3b, §3h), and those a write cleans in its set beyond the
 *    l2.dirty_recent_ways most recently used lines (kept clean: in one
 *    kernel dirty data leaves early beside streaming reads, §3h). Nothing is written back at the end of a kernel (measured: a
 *    kernel writing 4 MB shows 0 DRAM write sectors); l2_clear drops dirty
 *    data uncounted, as ncu's cache flush.
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

/* l2.placement = granule (above): a line's home partition and its slice
 * within each partition, from splitmix64's finaliser of its 2 KiB granule
 * (every bit of the granule number moves every bit of the hash, so
 * neighbouring granules spread over slices and partitions; Lemire's
 * multiply-shift reduction of its two 32-bit halves). The timing layer's
 * slice queues use it whatever l2.placement says (timing.c, place_of). */
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

_Static_assert((1u << L2_GRANULE_LINES_SHIFT) == CFG_L2_GRANULE_LINES, "granule lines");

/* l2.placement = page (docs/findings.md §3h): the H200 spreads every buffer
 * evenly over its slices (a linear buffer's busiest slice takes 4-6% more
 * than the mean) and a 2 MiB page's lines over distinct sets, while pages
 * land where the driver puts them, so that the sets' loads add up across
 * pages as random subsets do (what makes the knee of the dirty-data limit,
 * l2.dirty_ways, soft). The model: a page's 1,024 granules (2 MiB of
 * 128-byte lines) go to the slots (slice, set group of 16 sets) of all
 * partitions by slot = (a * granule_in_page + b) mod slots, a and b picked
 * by a hash of the page (a coprime to slots: no two granules of a page
 * share a slot while the page has fewer granules than slots); slot s is on
 * slice s mod slices (s mod partitions its home, s / partitions its slice
 * there), set group s / slices, and the granule's 16 lines on the group's
 * 16 sets. */
#define L2_PAGE_GRANULES_SHIFT 10u /* 1,024 granules: 2 MiB of 128-byte lines */
#define L2_PAGER_MULTS 64u

typedef struct l2_pager {
    uint32_t slots;      /* slices (of all partitions) x set groups: at most 2^22 (cfg's bounds) */
    uint32_t slices;     /* of all partitions */
    uint32_t partitions; /* a power of two (cfg: 1 or 2) */
    uint32_t part_shift; /* log2(partitions) */
    uint64_t slots_inv, slices_inv; /* floor(2^64 / d) + 1: x / d with a multiply (l2_div32) */
    uint32_t mult[L2_PAGER_MULTS]; /* the a's, each coprime to slots, below it */
} l2_pager;

/* floor(x / d) for x < 2^32, from inv = floor(2^64 / d) + 1 (Lemire, Kaser,
 * Kurz 2019; timing.c's calendars divide the same way): the placement is
 * computed for every line a hint announces, and a division costs tens of
 * cycles. d = 1 has no such inv: callers keep d >= 2 or fall back. */
static inline uint32_t l2_div32(uint32_t x, uint64_t inv)
{
    uint64_t hi = inv >> 32, lo = inv & 0xffffffffu;
    return (uint32_t)((x * hi + ((x * lo) >> 32)) >> 32);
}

typedef struct l2_page_place {
    uint32_t home;  /* partition */
    uint32_t slice; /* within each partition */
    uint32_t group; /* set group: the line's set in the slice is group * 16 + line % 16 */
} l2_page_place;

void l2_pager_init(l2_pager *p, uint32_t partitions, uint32_t slices_per_partition, uint32_t sets_per_slice);

static inline l2_page_place l2_page_place_of(const l2_pager *p, uint64_t line)
{
    uint64_t g = line >> L2_GRANULE_LINES_SHIFT;
    uint64_t h = cache_mix64(g >> L2_PAGE_GRANULES_SHIFT);
    /* b = h mod slots, by multiply-shift; a * granule + b < slots * 1,024 <= 2^32 */
    uint32_t b = (uint32_t)(((h & 0xffffffffu) * p->slots) >> 32);
    uint32_t x = p->mult[h >> 58] * (uint32_t)(g & ((1u << L2_PAGE_GRANULES_SHIFT) - 1u)) + b;
    uint32_t slot = p->slots > 1u ? x - l2_div32(x, p->slots_inv) * p->slots : 0u;
    uint32_t group = p->slices > 1u ? l2_div32(slot, p->slices_inv) : slot;
    uint32_t s = slot - group * p->slices;
    return (l2_page_place){.home = s & (p->partitions - 1u), .slice = s >> p->part_shift, .group = group};
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
