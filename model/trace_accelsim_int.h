/* trace_accelsim_int.h - private to the Accel-Sim import (trace_accelsim*.c):
 * what its modules share. The flow (trace_accelsim.c drives it):
 *
 *   list (trace_accelsim_list.c) -> per kernel file:
 *     pass 1 (trace_accelsim_kernel.c: header via trace_accelsim_header.c,
 *             every instruction line via trace_accelsim_inst.c) -> a kfile:
 *             header, PC table, warp index
 *     pass 2 (trace_accelsim_replay.c): the kfile's warps re-read by offset,
 *             interleaved, written as records
 *
 * All functions that fail return -1 with err filled; those documented as
 * giving a "bare message" leave the FILE:LINE placing to the caller
 * (trace_accelsim_place), which knows the line. */
#ifndef GMS_TRACE_ACCELSIM_INT_H
#define GMS_TRACE_ACCELSIM_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "err.h"
#include "trace.h"
#include "trace_accelsim.h"

#define MAX_OPCODE_BYTES 128u
/* a line of ACCELSIM_MAX_LINE_BYTES with its newline, and the NUL put after it */
#define RD_BUF_BYTES (ACCELSIM_MAX_LINE_BYTES + 1u)
#define MAX_REGS_PER_THREAD 255u

/* The progress callback and what it is told, shared by the passes. */
typedef struct accelsim_tick {
    accelsim_progress_fn fn; /* NULL = none */
    void *ctx;
    accelsim_progress p;
} accelsim_tick;

#define ACCELSIM_TICK_EVERY 65536u /* lines of pass 1, records of pass 2; a power of two */

static inline void trace_accelsim_tick(accelsim_tick *t)
{
    if (t && t->fn)
        t->fn(&t->p, t->ctx);
}

/* ---- messages and text (trace_accelsim_text.c) -------------------------------- */

/* Set err to "path:line: message" ("path: message" when line is 0); returns -1. */
int trace_accelsim_fail_at(err_info *err, const char *path, uint64_t line, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
/* Place a bare message from a helper at path:line (path alone when line is 0); returns -1. */
int trace_accelsim_place(err_info *err, const char *path, uint64_t line);
/* Quote at most 40 bytes of untrusted text, control bytes escaped; returns out. */
const char *trace_accelsim_shown(const char *s, char out[64]);

typedef struct line_rd {
    int fd;
    char *buf;
    size_t cap, pos, end;
    size_t max_line;   /* a partial line this long without its newline is too long */
    uint64_t file_off; /* file offset of buf[0] */
    uint64_t line;     /* number of the line last returned */
    bool eof;
} line_rd;

static inline void trace_accelsim_rd_seek(line_rd *r, uint64_t off, uint64_t line)
{
    r->file_off = off;
    r->pos = r->end = 0;
    r->line = line;
    r->eof = false;
}

/* The offset of the next line. */
static inline uint64_t trace_accelsim_rd_tell(const line_rd *r)
{
    return r->file_off + r->pos;
}

/* Next line, NUL-terminated in place without its "\n" (and "\r"): 1, or 0 at
 * the end of the file, or -1 (too long, NUL byte, read error). */
int trace_accelsim_rd_line(line_rd *r, const char *path, char **out, err_info *err);

/* The next blank- or tab-separated token of *p (cut in place), or NULL at the end. */
char *trace_accelsim_next_tok(char **p);
/* A decimal number of digits only, at most max. */
bool trace_accelsim_parse_dec(const char *s, uint64_t max, uint64_t *out);
/* A signed decimal that fits int64. */
bool trace_accelsim_parse_sdec(const char *s, int64_t *out);
/* Hexadecimal with an optional 0x, at most 16 digits, at most max. */
bool trace_accelsim_parse_hex(const char *s, uint64_t max, uint64_t *out);
/* Strip blanks and tabs at both ends, in place. */
void trace_accelsim_trim(char **s);

/* ---- the kernel header (trace_accelsim_header.c) ------------------------------ */

enum {
    H_NAME, H_ID, H_GRID, H_BLOCK, H_SHMEM, H_NREGS, H_BINARY, H_STREAM, H_SHMEM_BASE,
    H_LOCAL_BASE, H_NVBIT, H_TRACER, H_LINEINFO, H_WARP_SIZE, H_COUNT
};


typedef struct kheader {
    bool seen[H_COUNT];
    char *name;
    uint64_t id;
    uint32_t grid[3], block[3];
    uint32_t shmem, nregs;
    int64_t binary_version;
    uint64_t tracer_version;
    bool lineinfo;
    uint64_t shmem_base, local_base;
    char nvbit[64];
} kheader;

/* Read the header up to the "#traces format" line; the required keys, and a
 * tracer version of 3 or later. */
int trace_accelsim_read_header(line_rd *r, const char *path, kheader *h, err_info *err);

/* ---- one instruction line (trace_accelsim_inst.c) ----------------------------- */

typedef enum op_space {
    OPS_GLOBAL,
    OPS_SHARED,
    OPS_LOCAL,
    OPS_GENERIC, /* LD/ST/ATOM/RED: by the header's shared and local windows */
    OPS_LDGSTS   /* cp.async: its global read (or, in a shared window, its shared write) */
} op_space;

typedef enum op_class {
    OPC_OTHER,   /* skipped */
    OPC_BARRIER, /* BAR.SYNC, BAR.RED */
    OPC_MEMORY
} op_class;

typedef struct op_info {
    op_class cls;
    trace_kind kind;
    op_space space;
    trace_cache_op cache;
    uint32_t signed_bytes; /* 1 for an .S8 and 2 for an .S16 access, else 0: the tracer's
                            * mem_width is 4 for both (its width rule knows U8, U16 and
                            * numbers only), their real size is this */
} op_info;

typedef struct inst {
    uint32_t src_line; /* with lineinfo, else 0 */
    uint32_t pc;
    uint32_t mask;
    const char *opcode;
    op_info op;
    uint32_t mem_width;  /* as written; 0 for no memory access */
    uint32_t size_bytes; /* of each lane's access: mem_width, but 1 or 2 for .S8 or .S16 */
    uint64_t addr[TRACE_WARP_LANES]; /* active lanes; 0 elsewhere */
} inst;

/* Parse line s (modified in place; in->opcode points into it) into in.
 * Fails with a bare message. */
int trace_accelsim_parse_inst(char *s, const kheader *h, inst *in, err_info *err);

/* ---- pass 1: one kernel file (trace_accelsim_kernel.c) ------------------------ */

typedef struct pc_ent {
    uint32_t pc;
    uint32_t src_line;
    char *opcode;
    uint8_t cache;
} pc_ent;

typedef struct pc_table {
    pc_ent *e;
    uint32_t n, cap;
    uint32_t *slot; /* open addressing: index + 1, 0 = empty */
    uint32_t slots; /* a power of two, > 2 n */
    uint64_t bytes;
} pc_table;

typedef struct warp_ent {
    uint64_t offset; /* of the line after "insts = N" */
    uint64_t line;   /* number of the "insts = N" line */
    uint64_t insts;
    uint32_t cta, warp;
} warp_ent;

typedef struct kfile {
    const char *path; /* for messages: the kernel file as the list names it */
    int fd;
    kheader h;
    uint64_t body_off, body_line; /* after the header */
    pc_table pcs;
    warp_ent *w;
    uint32_t n_w, cap_w;
    uint32_t *cta_start; /* [ctas + 1]: first index entry of each CTA */
    uint64_t ctas;
    uint32_t warps_per_cta;
    trace_kernel k;
    accelsim_tick *tick; /* progress, or NULL; not owned */
} kfile;

/* Open and check one kernel file (an .xz first decompressed): header, pass 1.
 * f must be zeroed with fd -1, or freed by trace_accelsim_kfile_free. */
int trace_accelsim_kfile_open(kfile *f, const char *path, bool xz, const accelsim_options *opt,
                              err_info *err);
/* The kernel record f->k and its PC table; a -nregs beyond 255 is counted in sum. */
int trace_accelsim_kfile_build(kfile *f, accelsim_summary *sum, err_info *err);
/* Free everything of f and leave it zeroed, fd -1. */
void trace_accelsim_kfile_free(kfile *f);

/* ---- pass 2: the interleaving (trace_accelsim_replay.c) ----------------------- */

/* Write f's memory and barrier records to wr, its CTAs on sm_count SMs,
 * ctas_per_sm resident per SM; counts go to sum. */
int trace_accelsim_replay(kfile *f, uint32_t sm_count, uint32_t ctas_per_sm, trace_writer *wr,
                          accelsim_summary *sum, err_info *err);

/* ---- the list and .xz files (trace_accelsim_list.c) --------------------------- */

typedef struct klist {
    char **paths; /* as opened: the list's directory joined with the line */
    bool *xz;
    uint32_t n, cap;
    uint32_t memcpy_count;
    uint64_t memcpy_bytes;
} klist;

/* Read a kernelslist.g into l (l zeroed first; free it with
 * trace_accelsim_list_free even on failure). */
int trace_accelsim_list_read(const char *path, klist *l, err_info *err);
/* Add one kernel file; l takes path (allocated). */
void trace_accelsim_list_add(klist *l, char *path, bool xz);
void trace_accelsim_list_free(klist *l);
bool trace_accelsim_ends_with(const char *s, const char *suffix);
/* Decompress the xz file at path into an unlinked temporary file in tmp_dir
 * (NULL: $TMPDIR, else /tmp); *out_fd is open on it, at offset 0 or later
 * (read it with pread). */
int trace_accelsim_xz_to_tmp(const char *path, const char *tmp_dir, int *out_fd, err_info *err);

#endif
