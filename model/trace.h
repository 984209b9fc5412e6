/* trace.h - gpumemsim trace format v1: the records, and streaming reader and
 * writer for its two forms (binary, zstd-compressed; and text, for people).
 *
 * A trace is: file metadata, then per kernel launch a kernel record, the
 * warp-level memory instructions and barriers it executed in capture order,
 * and a kernel-end record with its counts; then an end record that says how
 * many kernels there were and whether the capture completed. The end record
 * and the per-kernel counts are how truncation is detected.
 *
 * docs/trace-format.md specifies both forms byte by byte and line by line.
 *
 * Memory use of the reader is bounded whatever the trace length: it holds one
 * kernel's metadata and one record at a time. */
#ifndef GMS_TRACE_H
#define GMS_TRACE_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

#define TRACE_FORMAT_VERSION 1u
#define TRACE_WARP_LANES 32
#define TRACE_SM_UNKNOWN (-1)
#define TRACE_FULL_MASK 0xffffffffu

/* Limits the reader enforces before allocating anything, so that a corrupt or
 * hostile trace cannot make it allocate without bound. */
#define TRACE_MAX_STRING_BYTES 65536u     /* names, SASS text, file names, meta */
#define TRACE_MAX_META_ENTRIES 256u
#define TRACE_MAX_PCS 1048576u            /* PC table entries per kernel */
#define TRACE_MAX_FILES 4096u             /* source files per kernel */
#define TRACE_MAX_CTAS ((uint64_t)1 << 32) /* grid x*y*z must be below this */
#define TRACE_MAX_BLOCK_THREADS 1024u
#define TRACE_MAX_RECORD_BYTES (16u << 20) /* one binary record, after length prefix */

typedef enum trace_kind {
    TRACE_KIND_LD,   /* load */
    TRACE_KIND_ST,   /* store */
    TRACE_KIND_ATOM, /* atomic that returns a value */
    TRACE_KIND_RED,  /* reduction: atomic without a return value */
    TRACE_KIND_COUNT
} trace_kind;

typedef enum trace_space {
    TRACE_SPACE_GLOBAL, /* addr = 64-bit virtual address */
    TRACE_SPACE_SHARED, /* addr = offset in the CTA's shared window */
    TRACE_SPACE_LOCAL,  /* addr = offset in the thread's local window */
    TRACE_SPACE_COUNT
} trace_space;

/* PTX cache operators, as the SASS of the instruction implies them. */
typedef enum trace_cache_op {
    TRACE_CACHE_DEFAULT, /* plain ld/st: cached in L1 where the GPU caches globals */
    TRACE_CACHE_CA,      /* cache at all levels */
    TRACE_CACHE_CG,      /* cache in L2 only: bypasses L1 */
    TRACE_CACHE_CS,      /* streaming, evict first */
    TRACE_CACHE_NC,      /* non-coherent read-only path (__ldg, const __restrict__) */
    TRACE_CACHE_LU,      /* last use */
    TRACE_CACHE_CV,      /* volatile: fetch again, bypasses L1 */
    TRACE_CACHE_COUNT
} trace_cache_op;

/* trace_mem.flags */
#define TRACE_MEM_GENERIC 0x1u /* issued as a generic LD/ST/ATOM; the space was resolved at run time */
#define TRACE_MEM_LDGSTS 0x2u  /* one half of a cp.async (LDGSTS): its global read or its shared write */
#define TRACE_MEM_FLAGS_ALL 0x3u

/* One executed warp-level memory instruction. */
typedef struct trace_mem {
    uint32_t cta;         /* flat CTA index: x + gx * (y + gy * z) */
    uint32_t warp;        /* warp within the CTA: flat thread index / 32 */
    int32_t sm;           /* SM that ran the CTA, or TRACE_SM_UNKNOWN */
    uint32_t pc;          /* byte offset of the SASS instruction from the kernel entry */
    uint8_t kind;         /* trace_kind */
    uint8_t space;        /* trace_space */
    uint8_t size_bytes;   /* bytes per lane: 1, 2, 4, 8 or 16 */
    uint8_t cache_op;     /* trace_cache_op */
    uint8_t flags;        /* TRACE_MEM_* bits */
    uint32_t active_mask; /* bit l set: lane l executed the access; never 0 */
    uint64_t addr[TRACE_WARP_LANES]; /* per lane; 0 for inactive lanes */
} trace_mem;

/* What a barrier record says the warp did at pc. */
typedef enum trace_bar_kind {
    TRACE_BAR_SYNC = 0, /* arrived at a CTA barrier (bar.sync / __syncthreads) */
    TRACE_BAR_SHFL = 1, /* ran a warp shuffle (SHFL): no synchronization, only where the warp
                         * was, so that a timing model runs loops without memory instructions
                         * (a reduction's shuffles) as often as the warp did */
} trace_bar_kind;

/* A warp arriving at a CTA barrier, or (kind TRACE_BAR_SHFL) running a shuffle. */
typedef struct trace_barrier {
    uint32_t cta;
    uint32_t warp;
    int32_t sm;
    uint32_t pc;
    uint8_t kind; /* trace_bar_kind */
} trace_barrier;

/* What is known of one SASS instruction of a kernel. */
typedef struct trace_pc_info {
    uint32_t pc;      /* byte offset from the kernel entry */
    char *sass;       /* SASS text as the disassembler prints it, e.g. "LDG.E.128 R4, desc[UR6][R2.64]" */
    uint8_t cache_op; /* trace_cache_op the opcode implies (TRACE_CACHE_DEFAULT for non-memory) */
    int32_t file;     /* index into trace_kernel.files, or -1 when unknown */
    uint32_t line;    /* source line, 0 when unknown */
    /* the instruction's scheduling control bits (sm_70 and later: bits 105-127
     * of its encoding, 23 bits: stall, yield, write and read scoreboards, wait
     * mask, reuse; trace_ctrl_* below) with TRACE_CTRL_KNOWN set, or 0 when the
     * trace does not have them */
    uint32_t ctrl;
} trace_pc_info;

#define TRACE_CTRL_KNOWN 0x80000000u
#define TRACE_CTRL_BITS 23u
/* The fields of a known control word (docs/trace-format.md, "Control words"). */
static inline unsigned trace_ctrl_stall(uint32_t c) { return c & 0xfu; }
static inline unsigned trace_ctrl_yield(uint32_t c) { return (c >> 4) & 1u; }
static inline unsigned trace_ctrl_wbar(uint32_t c) { return (c >> 5) & 7u; } /* 7: none */
static inline unsigned trace_ctrl_rbar(uint32_t c) { return (c >> 8) & 7u; } /* 7: none */
static inline unsigned trace_ctrl_wait(uint32_t c) { return (c >> 11) & 0x3fu; }
static inline unsigned trace_ctrl_reuse(uint32_t c) { return (c >> 17) & 0xfu; }

/* One kernel launch. */
typedef struct trace_kernel {
    uint32_t launch;    /* launch index in the traced program, from 0 */
    char *name;         /* mangled name as the driver reports it */
    char *demangled;    /* demangled name; equal to name for extern "C" kernels */
    uint32_t grid[3];   /* CTAs in x, y, z; each >= 1 */
    uint32_t block[3];  /* threads in x, y, z; each >= 1, product <= 1024 */
    uint32_t smem_static_bytes;  /* per CTA */
    uint32_t smem_dynamic_bytes; /* per CTA */
    uint32_t regs_per_thread;
    uint32_t local_bytes_per_thread;
    uint32_t n_files;
    char **files;       /* source file paths */
    uint32_t n_pcs;
    trace_pc_info *pcs; /* sorted by pc, no duplicates */
} trace_kernel;

/* Counts written at the end of each kernel; the reader checks them. */
typedef struct trace_kernel_end {
    uint64_t mem_records;
    uint64_t barrier_records;
} trace_kernel_end;

/* File metadata: ordered key/value pairs. Known keys (docs/trace-format.md):
 * capture_tool, capture_version, gpu, cc, sm_count, driver, cuda, date. */
typedef struct trace_meta {
    uint32_t n;
    char **keys;
    char **values;
} trace_meta;

typedef enum trace_format {
    TRACE_FORMAT_BINARY,
    TRACE_FORMAT_TEXT,
    TRACE_FORMAT_COUNT
} trace_format;

/* ---- names ---------------------------------------------------------------- */

const char *trace_kind_name(trace_kind k);          /* "ld", "st", "atom", "red" */
const char *trace_space_name(trace_space s);        /* "global", "shared", "local" */
const char *trace_cache_op_name(trace_cache_op c);  /* "default", "ca", "cg", "cs", "nc", "lu", "cv" */
/* Parse a name; return 0 and set *out, or -1 when the name is not one of them. */
int trace_kind_parse(const char *s, trace_kind *out);
int trace_space_parse(const char *s, trace_space *out);
int trace_cache_op_parse(const char *s, trace_cache_op *out);

/* ---- metadata and kernels ----------------------------------------------- */

void trace_meta_init(trace_meta *m);
void trace_meta_free(trace_meta *m);
/* Set key to value (replacing an earlier value). */
void trace_meta_set(trace_meta *m, const char *key, const char *value);
/* The value of key, or NULL when absent. */
const char *trace_meta_get(const trace_meta *m, const char *key);

void trace_kernel_init(trace_kernel *k);
void trace_kernel_free(trace_kernel *k);
void trace_kernel_copy(trace_kernel *dst, const trace_kernel *src); /* deep copy */
uint64_t trace_kernel_ctas(const trace_kernel *k);          /* grid x*y*z */
uint32_t trace_kernel_threads_per_cta(const trace_kernel *k); /* block x*y*z */
uint32_t trace_kernel_warps_per_cta(const trace_kernel *k);
/* The PC table entry for pc, or NULL. Binary search. */
const trace_pc_info *trace_kernel_find_pc(const trace_kernel *k, uint32_t pc);

/* Check a kernel record on its own (dimensions, sorted PC table, file indices).
 * Returns 0, or -1 with a message that says what was expected. */
int trace_kernel_validate(const trace_kernel *k, err_info *err);

/* Check a record against its kernel: cta and warp in range, lanes active only
 * where the CTA has threads, size one of 1/2/4/8/16, each active address
 * aligned to size, kind allowed in the space (no atomics on local memory),
 * inactive lanes' addresses 0. Returns 0, or -1 with a message. */
int trace_mem_validate(const trace_kernel *k, const trace_mem *m, err_info *err);

/* The lanes of a cp.async's global half (TRACE_MEM_LDGSTS, a load) that read
 * memory: those whose source lies outside the null page (below
 * TRACE_NULL_PAGE_BYTES, which CUDA never maps). A lane whose source is in
 * it cannot have read, or the kernel would have faulted: it is a zero fill
 * (the copy's ignore-source predicate or a source size of 0), which reads
 * nothing and writes zeros to shared memory. The Sanitizer API reports a
 * zero-filling lane's source as 0 whatever pointer the program passed (a
 * source size of 0 or the ignore-source predicate; measured with
 * kernels/zfill.cu, docs/findings.md §26), so every zero fill is known.
 * Any other record: its active lanes. */
#define TRACE_NULL_PAGE_BYTES 4096u
uint32_t trace_mem_read_lanes(const trace_mem *m);
int trace_barrier_validate(const trace_kernel *k, const trace_barrier *b, err_info *err);

/* ---- reading ----------------------------------------------------------------
 * One reader for both forms: trace_reader_open looks at the first bytes and
 * picks the binary or the text decoder. Every error message starts with the
 * path and names the record (binary: "record N", counting from 1 over all
 * records after the file header: "PATH: record N: ...") or the line (text:
 * "PATH:N: ...", as compilers do). */

typedef enum trace_event_type {
    TRACE_EV_KERNEL,     /* a kernel begins; ev->kernel is its metadata */
    TRACE_EV_MEM,        /* ev->mem */
    TRACE_EV_BARRIER,    /* ev->barrier */
    TRACE_EV_KERNEL_END, /* ev->kernel_end: the counts, already checked */
    TRACE_EV_COUNT
} trace_event_type;

typedef struct trace_event {
    trace_event_type type;
    const trace_kernel *kernel; /* the current kernel; valid until the next TRACE_EV_KERNEL */
    trace_mem mem;
    /* TRACE_EV_MEM: the lanes in closed form, as the binary form stores most
     * records. When mem_strided, every active lane l of mem holds
     * mem_base + l * mem_stride (mod 2^64) (mem.addr is filled all the same,
     * for any consumer), and the reader validated it in that form; the model
     * takes it instead of recovering the stride from the lanes
     * (gpu_mem_strided). False when the lanes came one by one. */
    bool mem_strided;
    uint64_t mem_base, mem_stride;
    /* Only with trace_reader_options.lazy_lanes: a whole warp's strided lanes
     * are not written yet, mem.addr holds lane 0 alone (mem_base), and
     * trace_event_fill_lanes() writes the rest. Always false otherwise. */
    bool mem_lanes_pending;
    trace_barrier barrier;
    trace_kernel_end kernel_end;
} trace_event;

typedef struct trace_reader trace_reader;

typedef struct trace_reader_options {
    /* A trace whose end record says the capture did not complete is refused
     * unless this is true; then it is read and trace_reader_incomplete() says so. */
    bool allow_incomplete;
    /* A whole warp's strided record comes with mem_lanes_pending (trace_event)
     * instead of its 32 lanes written: for a consumer that mostly needs only
     * base and stride (the replay's model) and fills the lanes where it
     * needs them. */
    bool lazy_lanes;
} trace_reader_options;

/* Write the lanes of a record read with mem_lanes_pending (nothing otherwise). */
void trace_event_fill_lanes(trace_event *ev);

/* Open path ("-" is standard input) and read the file metadata. NULL on error. */
trace_reader *trace_reader_open(const char *path, const trace_reader_options *opt, err_info *err);
trace_format trace_reader_format(const trace_reader *r);
uint32_t trace_reader_version(const trace_reader *r);
const trace_meta *trace_reader_meta(const trace_reader *r);
const char *trace_reader_path(const trace_reader *r);

/* Next event. Returns 1 with *ev filled, 0 at the clean end of the trace (the
 * end record was read and every count agreed), or -1 on error. */
int trace_reader_next(trace_reader *r, trace_event *ev, err_info *err);

/* After the end: the number of kernels, and whether the capture was marked
 * incomplete (then reason is its stated cause). */
uint32_t trace_reader_kernels(const trace_reader *r);
bool trace_reader_incomplete(const trace_reader *r, const char **reason);
/* Bytes consumed from the file so far (compressed size for binary). */
uint64_t trace_reader_bytes(const trace_reader *r);
void trace_reader_close(trace_reader *r);

/* ---- writing ------------------------------------------------------------- */

typedef struct trace_writer trace_writer;

/* Create path ("-" is standard output) and write the header and metadata.
 * The binary form uses zstd at the given level (1..19; 0 = default 3). */
trace_writer *trace_writer_open(const char *path, trace_format fmt, int zstd_level,
                                const trace_meta *meta, err_info *err);
/* As above on an open stream, which the writer does not close. name is used in messages. */
trace_writer *trace_writer_open_stream(FILE *f, const char *name, trace_format fmt,
                                       int zstd_level, const trace_meta *meta, err_info *err);
int trace_writer_kernel(trace_writer *w, const trace_kernel *k, err_info *err);
int trace_writer_mem(trace_writer *w, const trace_mem *m, err_info *err);
int trace_writer_barrier(trace_writer *w, const trace_barrier *b, err_info *err);
/* End the current kernel: writes its counts. */
int trace_writer_kernel_end(trace_writer *w, err_info *err);
/* Write the end record and close. complete=false marks the trace incomplete
 * with the given reason (e.g. "traced program exited during kernel 3"). A
 * kernel still open is ended first. Always frees w. */
int trace_writer_close(trace_writer *w, bool complete, const char *reason, err_info *err);
/* Bytes written so far (compressed size for binary). */
uint64_t trace_writer_bytes(const trace_writer *w);

#endif
