/* cfg.h - a GPU model's configuration: one INI file per GPU (configs/).
 *
 * One table of keys (cfg.c) drives parsing, validation, the documentation in
 * docs/config.md and the dump of the effective config that starts every report.
 * Unknown, duplicate and missing required keys, values out of range and
 * inconsistent geometry are errors that name file:line and the key; nothing is
 * silently defaulted or fixed. Keys with a default are listed as such in the
 * table and the effective config shows the value used.
 *
 * The struct is plain public data: tests may fill one by hand and call
 * cfg_validate(). */
#ifndef GMS_CFG_H
#define GMS_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

#define CFG_NAME_BYTES 128
#define CFG_MAX_CARVEOUTS 16
#define CFG_MAX_SMS 1024   /* gpu.sm_count's bound */
#define CFG_MAX_GPCS 36    /* a GPC map's digits: 0-9, a-z */

typedef enum cfg_set_index {
    CFG_INDEX_LINEAR, /* set = line number mod sets */
    CFG_INDEX_XOR,    /* set = XOR-fold of the line number's bit groups: no power-of-two stride aliasing */
    CFG_INDEX_MASKS,  /* set = the low bits, XORed with a mask per higher bit (l1.set_masks; L1 only) */
    CFG_INDEX_COUNT
} cfg_set_index;

#define CFG_L2_GRANULE_LINES 16u /* lines of an L2 placement granule (l2.h) */

typedef enum cfg_l2_placement {
    CFG_L2_PLACE_GRANULE, /* each 2 KiB granule's slice from a hash of its number; the set from l2.set_index */
    CFG_L2_PLACE_PAGE,    /* each 2 MiB page's granules spread evenly over slices and set groups,
                           * arranged by a hash of the page (docs/findings.md §3h) */
    CFG_L2_PLACE_COUNT
} cfg_l2_placement;

typedef enum cfg_l1_global_loads {
    CFG_L1_GLOBAL_CACHE,  /* default global loads are cached in L1 (sm_50+) */
    CFG_L1_GLOBAL_BYPASS, /* only local memory is cached in L1 (Kepler) */
    CFG_L1_GLOBAL_COUNT
} cfg_l1_global_loads;

typedef enum cfg_l1_stores {
    CFG_L1_STORES_UPDATE,     /* write through to L2; the written bytes become valid in L1 (measured on H200) */
    CFG_L1_STORES_INVALIDATE, /* write through to L2; the line is dropped from L1 */
    CFG_L1_STORES_COUNT
} cfg_l1_stores;

typedef enum cfg_cta_placement {
    CFG_PLACE_TRACE,       /* the SM the trace recorded, when the trace's GPU has as many SMs; else round-robin */
    CFG_PLACE_ROUND_ROBIN, /* CTA c runs on SM c mod sm_count */
    CFG_PLACE_COUNT
} cfg_cta_placement;

typedef struct cfg_gpu {
    /* [gpu] */
    char name[CFG_NAME_BYTES];   /* as the driver names the GPU, e.g. "NVIDIA H200" */
    char chip[CFG_NAME_BYTES];   /* Nsight Compute chip name, e.g. "gh100" */
    uint32_t cc_major, cc_minor; /* compute_capability "9.0" */
    uint32_t sm_count;
    uint32_t max_threads_per_sm;
    uint32_t max_ctas_per_sm;
    uint32_t registers_per_sm;   /* 32-bit registers */
    /* the GPC of each SM (l2.gpc_partition, the L2 request coalescer of model/lrc.h);
     * none (0 SMs): no map */
    uint32_t n_sm_gpc;                /* 0 or sm_count */
    uint8_t sm_gpc[CFG_MAX_SMS];

    /* [l1] L1 data cache of each SM; it shares storage with shared memory. */
    uint32_t l1_line_bytes;
    uint32_t l1_sector_bytes;
    uint32_t l1_unified_kib;     /* storage for L1 data + shared memory, KiB */
    uint32_t l1_sets;            /* power of two; ways = capacity / (sets * line), or l1_ways */
    cfg_set_index l1_set_index;
    uint32_t l1_ways;            /* tag ways per set; 0: capacity / (sets * line), per carveout */
    uint32_t n_l1_set_masks;
    uint32_t l1_set_masks[CFG_MAX_CARVEOUTS]; /* CFG_INDEX_MASKS: line bit log2(sets) + i flips these set bits */
    cfg_l1_global_loads l1_global_loads;
    cfg_l1_stores l1_stores;
    uint32_t l1_tags_per_cycle;  /* 128-byte lines the tag stage resolves per wavefront */

    /* [shared] */
    uint32_t smem_banks;
    uint32_t smem_bank_bytes;      /* width of a bank entry: 4 (sm_50+) or 8 (Kepler) */
    uint32_t smem_bank_mode_bytes; /* successive words of this size go to successive banks: 4, or 8 (Kepler 8-byte mode) */
    bool smem_load_pairing;        /* sm_70+: LDS.64/.128 whose lanes pair up (l^1 or l^2) merge phases */
    uint32_t smem_reserved_per_cta_bytes; /* shared memory the driver reserves per CTA */
    uint32_t n_carveouts;
    uint32_t carveout_kib[CFG_MAX_CARVEOUTS]; /* shared-memory sizes the driver can pick, ascending */
    uint32_t carveout_ctas_factor;       /* the carveout holds this many times the resident CTAs' shared memory */
    uint32_t carveout_min_per_cta_bytes; /* and at least this much per resident CTA */

    /* [l2] */
    uint32_t l2_line_bytes;
    uint32_t l2_sector_bytes;
    uint64_t l2_size_bytes;      /* must equal slices * sets_per_slice * ways * line_bytes */
    uint32_t l2_partitions;      /* 1, or 2 joined by a fabric (A100, H100, H200) */
    uint32_t l2_slices;          /* in all partitions together; a multiple of partitions */
    uint32_t l2_sets_per_slice;  /* power of two */
    uint32_t l2_ways;
    cfg_set_index l2_set_index;
    cfg_l2_placement l2_placement;
    uint32_t l2_dirty_ways;      /* a set keeps at most this many dirty lines (0: no limit) */
    uint32_t l2_dirty_recent_ways; /* a write cleans its set's dirty lines older than this many (0: never) */
    uint32_t l2_fetch_sectors;   /* a read miss fetches the aligned block of this many sectors */
    bool l2_ecc;                 /* partial-sector writes make L2 read the sector from DRAM */
    uint32_t l2_n_gpc_partition; /* 0 (none: SM s in partition s mod partitions) or GPCs mapped */
    uint8_t l2_gpc_partition[CFG_MAX_SMS]; /* the partition of each GPC (a GPC map's storage) */

    /* [sim] */
    bool cold_caches_per_kernel; /* empty L1 and L2 at each kernel start, as ncu --cache-control all */
    uint32_t background_dram_read_sectors; /* read by every launch beside its accesses (cold caches) */
    cfg_cta_placement cta_placement;

    /* [timing] the cycle model (model/timing.h); optional as a whole */
    bool timing;                     /* the file has the [timing] section: every key below is set */
    uint32_t t_launch_cycles;        /* fixed launch cost, cycles */
    uint32_t t_cta_launch_mcycles;   /* the GPU starts at most one CTA per this long, 1/1000 cycle */
    uint32_t t_cta_fill_mcycles_per_warp; /* a first-wave CTA costs this per warp instead; 0: as above */
    uint32_t t_l1_hit_cycles;        /* load latencies, issue to data ready, unloaded */
    uint32_t t_l2_hit_cycles;
    uint32_t t_l2_far_extra_cycles;
    uint32_t t_dram_cycles;
    uint32_t t_smem_cycles;
    uint32_t t_barrier_cycles;       /* last arrival to release, plus ... */
    uint32_t t_barrier_cycles_per_warp; /* ... this per warp of the CTA */
    uint32_t t_smsps_per_sm;         /* issue: 1 instruction per cycle per sub-partition */
    uint32_t t_l2_slice_bytes_per_cycle;
    uint32_t t_l2_clock_permille;    /* L2 cycles per 1000 SM cycles */
    uint32_t t_dram_bytes_per_cycle; /* whole GPU */
    uint32_t t_dram_write_cost_permille; /* a written-back sector's share of the DRAM, in read sectors */
    uint32_t t_l2_write_bytes_per_cycle; /* whole GPU: SM stores and DRAM fills into L2; 0: no limit */
    uint32_t n_t_dram_load_permille, n_t_dram_load_extra_cycles;
    uint32_t t_dram_load_permille[CFG_MAX_CARVEOUTS];     /* DRAM's load points (thousandths of its rate) */
    uint32_t t_dram_load_extra_cycles[CFG_MAX_CARVEOUTS]; /* a read's extra latency at each */
    uint32_t t_l2_atomic_same_line_mcycles; /* thousandths of a cycle per same-line atomic */
    uint32_t t_smem_wavefront_cycles; /* latency each further data-stage wavefront of a shared access or an L1 hit adds */
    uint32_t t_alu_latency_cycles;   /* an arithmetic result is usable this long after its issue; 0: at once */
    bool t_control_words;            /* issue by the SASS control words where the trace has them */
    bool t_l2_fill_wait;             /* a read waits for its partition's copy of the line to arrive */
    bool t_l1_fill_wait;             /* an L1 hit waits for its line's fill from L2 to arrive */
    bool t_first_wave_by_sm;         /* an SM's first-wave CTAs start together */
    uint32_t t_s2r_cycles;           /* control_words: an S2R/S2UR's result, issue to ready */
    uint32_t t_ldc_cycles;           /* control_words: an LDC's (constant bank, one address) */
    uint32_t t_code_line_cycles;     /* a cold code line after a fetched one, on each SM; 0: code is free */
    uint32_t n_t_code_jump_lines, n_t_code_jump_cycles;
    uint32_t t_code_jump_lines[CFG_MAX_CARVEOUTS];  /* a jump to a cold line: lines skipped ... */
    uint32_t t_code_jump_cycles[CFG_MAX_CARVEOUTS]; /* ... and its line's arrival after the ask */
    uint32_t t_branch_taken_cycles;  /* a taken branch's redirect, beyond its stall count */
    uint32_t t_const_line_cycles;    /* a constant line's first fetch on an SM; 0: constants are free */
    uint32_t t_const_bank_cycles;    /* ... the first line of a bank other than 0 */
    uint32_t t_lrc_window_cycles;    /* an identical read still merges this long after the data came back */
    uint32_t t_lrc_far_void_cycles;  /* the other partition's read of another mask ends kept requests this late */
} cfg_gpu;

/* Load path into *out (keys left out take their defaults) and validate it.
 * Returns 0, or -1 with "path:line: [section] key: what was expected, got
 * what"; *out is written only on success. */
int cfg_load(const char *path, cfg_gpu *out, err_info *err);

/* Check values and their consistency. Returns 0, or -1 naming the key. */
int cfg_validate(const cfg_gpu *c, err_info *err);

/* The L2 partition near SM sm: its GPC's (gpu.sm_gpc, l2.gpc_partition), or
 * sm mod l2.partitions without those maps. The one rule, for the model and
 * the timing layer. */
uint32_t cfg_partition_of_sm(const cfg_gpu *c, uint32_t sm);

/* The keys, in table order, for dumping the effective config and for docs. */
size_t cfg_key_count(void);
const char *cfg_key_name(size_t i);   /* "section.key", e.g. "l1.sets" */
const char *cfg_key_unit(size_t i);   /* "" when unitless */
const char *cfg_key_help(size_t i);
const char *cfg_key_default(size_t i); /* NULL when the key is required */
const char *cfg_key_type(size_t i);   /* "uint", "uint64", "bool", "enum", "string", "X.Y", "list of uint", "GPC map" */
/* The values key i accepts, as text: "1..1024", "32", "linear|xor", "true|false",
 * "1..16 values, each 0..1024", "1..127 characters", "1.0..99.9". */
void cfg_key_bounds(size_t i, char *buf, size_t n);
/* The value of key i in c, formatted as the INI file would write it. */
void cfg_key_value(const cfg_gpu *c, size_t i, char *buf, size_t n);

/* Write the effective config as INI text, each line starting with prefix.
 * The [timing] section is left out (reports without --timing stay as they
 * were); cfg_dump_timing writes it, when the config has one. */
void cfg_dump(const cfg_gpu *c, FILE *f, const char *prefix);
void cfg_dump_timing(const cfg_gpu *c, FILE *f, const char *prefix);
/* Whether key i belongs to the optional [timing] section. */
bool cfg_key_is_timing(size_t i);

/* Derived geometry. */
uint32_t cfg_l2_slices_per_partition(const cfg_gpu *c);

#endif
