/* trace_accelsim.h - import Accel-Sim trace collections (the NVBit tracer's
 * kernelslist.g + kernel-N.traceg[.xz], tracer versions 3 and later) into a
 * gpumemsim trace (docs/accelsim.md).
 *
 * A .traceg holds a kernel grouped by thread block, then warp, each warp's
 * instructions in program order. The import writes what a capture would have
 * recorded: a kernel record (grid, block, shared memory, registers), a PC table
 * (PC and SASS opcode), and the warp-level memory instructions and barriers of
 * the resident warps interleaved: CTAs are placed on SMs as gpu.c places
 * SM-unknown records (CTA c on SM c mod sm_count), at most ctas_per_sm at a
 * time per SM, and every resident warp issues one instruction per round
 * (memory or not), a CTA barrier holding its warps until all have arrived.
 *
 * Not imported: SM ids (records say SM unknown), timing, source files (lines
 * only, with lineinfo), the shared-memory half of cp.async (the post-processor
 * drops it), host-device copies (counted in the metadata only).
 *
 * Memory is bounded whatever the file size: one 32-byte index entry per warp
 * of the kernel (ACCELSIM_MAX_WARPS), one line buffer per resident warp, the PC
 * table. .xz files are decompressed to an unlinked temporary file first. */
#ifndef GMS_TRACE_ACCELSIM_H
#define GMS_TRACE_ACCELSIM_H

#include <stdbool.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"

#define ACCELSIM_DEFAULT_SM_COUNT 132u     /* the H200 (configs/h200.ini) */
#define ACCELSIM_MAX_SM_COUNT 4096u
#define ACCELSIM_MAX_CTAS_PER_SM 64u
#define ACCELSIM_MAX_LINE_BYTES 4096u      /* one line of any file, newline included */
#define ACCELSIM_MAX_WARPS (1u << 22)      /* warps of one kernel: a 128 MiB index */
#define ACCELSIM_MAX_RESIDENT_WARPS 32768u /* resident at once: 128 MiB of line buffers */
#define ACCELSIM_MAX_KERNELS 1000000u      /* kernel lines of one kernelslist.g */

typedef enum accelsim_input {
    ACCELSIM_INPUT_AUTO,     /* by name: *.traceg or *.traceg.xz is one kernel, else a list */
    ACCELSIM_INPUT_LIST,     /* a kernelslist.g */
    ACCELSIM_INPUT_TRACEG,   /* one plain kernel file */
    ACCELSIM_INPUT_TRACEG_XZ,/* one xz-compressed kernel file */
    ACCELSIM_INPUT_COUNT
} accelsim_input;

/* Where a long import is, for a progress line (the library never prints). */
typedef struct accelsim_progress {
    uint32_t kernel, kernels; /* the kernel file being read (from 0) and the list's count */
    const char *path;         /* that file */
    bool writing;             /* false: pass 1 (checking it), true: pass 2 (writing records) */
    uint64_t lines;           /* lines of it read in pass 1 so far */
    uint64_t records;         /* memory and barrier records written so far, all kernels */
} accelsim_progress;

typedef void (*accelsim_progress_fn)(const accelsim_progress *p, void *ctx);

typedef struct accelsim_options {
    accelsim_input input;
    uint32_t sm_count;     /* SMs the CTAs are placed on; 0 = ACCELSIM_DEFAULT_SM_COUNT */
    uint32_t ctas_per_sm;  /* resident CTAs per SM; 0 = derived per kernel from threads,
                            * registers and shared memory with the H200's limits */
    const char *tmp_dir;   /* for .xz; NULL = $TMPDIR, else /tmp */
    trace_format format;   /* of the output */
    int zstd_level;        /* binary output; 0 = the writer's default */
    accelsim_progress_fn progress; /* NULL = none; else called when each kernel file's pass
                                    * begins, every 65,536 lines of pass 1 and every 65,536
                                    * records of pass 2 (never per record: cheap) */
    void *progress_ctx;
} accelsim_options;

typedef struct accelsim_summary {
    uint32_t kernels;
    uint64_t mem_records, barrier_records;
    uint64_t other_insts;     /* non-memory instructions, skipped */
    uint64_t pred_off_insts;  /* memory instructions and barriers with no active lane, skipped */
    uint32_t memcpy_count;    /* MemcpyHtoD/MemcpyDtoH lines of the list */
    uint64_t memcpy_bytes;
    uint32_t bad_nregs;       /* kernels whose -nregs was beyond 255, written as 0 */
    uint32_t bad_nregs_first_id;  /* the first such kernel's id */
    uint32_t bad_nregs_first_value;
} accelsim_summary;

/* Import the collection (or one kernel file) at path into a new trace at
 * out_path ("-" = standard output). On error returns -1 with one line naming
 * the input file, its line and what was expected; what was written is closed
 * as an incomplete trace (the caller removes it). sum may be NULL. */
int trace_accelsim_import(const char *path, const char *out_path, const accelsim_options *opt,
                          accelsim_summary *sum, err_info *err);

/* The resident CTAs per SM that ctas_per_sm = 0 derives for a kernel: the
 * H200's 64 warps, 65536 registers (when 1 <= regs <= 255), 228 KiB of shared
 * memory (1 KiB reserved per CTA) and 32 CTAs per SM; at least 1. */
uint32_t trace_accelsim_ctas_per_sm(uint32_t threads_per_cta, uint32_t regs_per_thread,
                                    uint32_t smem_bytes);

#endif
