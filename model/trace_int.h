/* trace_int.h - private to the trace module: the reader and writer objects,
 * the interface between the common reader/writer logic (trace_reader.c,
 * trace_writer.c) and the two forms (trace_binary.c, trace_text.c), and the
 * varint/zigzag helpers of the binary encoding.
 *
 * The split: a form's decoder turns bytes into raw records (one at a time,
 * strings borrowed from its buffers) and knows nothing of the order of
 * records; trace_reader.c owns the order, the counts and the validation, so
 * both forms are checked by the same code and give the same messages. The
 * writer side mirrors it. */
#ifndef GMS_TRACE_INT_H
#define GMS_TRACE_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "trace.h"

/* Meta keys are written bare in the text form; their length is bounded too. */
#define TRACE_MAX_META_KEY_BYTES 256u

/* The strings of one kernel's table (source file paths and SASS text) held
 * at once. Each is at most TRACE_MAX_STRING_BYTES, but a million PCs of
 * 64 KiB would be 64 GiB from a few KiB of zstd; real tables are ~50 bytes a
 * PC, so this leaves room for a kernel of a million instructions. */
#define TRACE_MAX_TABLE_BYTES ((uint64_t)64 << 20)

/* Binary record tags (docs/trace-format.md). 0 is never a tag. */
enum {
    TRACE_TAG_META = 1,
    TRACE_TAG_KERNEL = 2,
    TRACE_TAG_FILE = 3,
    TRACE_TAG_PC = 4,
    TRACE_TAG_MEM = 5,
    TRACE_TAG_BARRIER = 6,
    TRACE_TAG_KERNEL_END = 7,
    TRACE_TAG_END = 8
};

#define TRACE_BIN_MAGIC "GMSTRACE"
#define TRACE_BIN_HEADER_BYTES 16
#define TRACE_TEXT_MAGIC "gpumemsim-trace"

/* The most a MEM record's payload can take: 2 flag bytes, 4 zigzag deltas of
 * at most 5 bytes (32-bit fields), a 4-byte mask, and in LIST mode 32
 * addresses of at most 10 bytes. */
#define TRACE_MEM_MAX_PAYLOAD (2 + 4 * 5 + 4 + TRACE_WARP_LANES * 10)

/* The raw records a form's decoder produces. */
typedef enum trace_rec_type {
    TREC_META,
    TREC_KERNEL,
    TREC_FILE,
    TREC_PC,
    TREC_MEM,        /* decoded into ev->mem */
    TREC_BARRIER,    /* decoded into ev->barrier */
    TREC_KERNEL_END,
    TREC_END,
    TREC_COUNT
} trace_rec_type;

/* One raw record. Strings are borrowed from the decoder and valid until its
 * next call. */
typedef struct trace_rec {
    trace_rec_type type;
    const char *key, *value;   /* META */
    trace_kernel kernel;       /* KERNEL: scalars and names; no files, no PCs */
    bool has_table_counts;     /* KERNEL: the binary form declares its table sizes */
    uint32_t n_files, n_pcs;   /*   ... which are these */
    bool has_file_index;       /* FILE: the text form states the index */
    uint32_t file_index;
    const char *str;           /* FILE: the path; END: the reason when incomplete */
    trace_pc_info pc;          /* PC: sass borrowed */
    trace_kernel_end counts;   /* KERNEL_END */
    uint64_t kernels;          /* END */
    bool complete;             /* END */
} trace_rec;

struct trace_bin_dec;
struct trace_text_dec;
struct trace_bin_enc;
struct trace_text_enc;

typedef enum trace_rd_state {
    TRACE_RD_META,   /* file metadata may come */
    TRACE_RD_TOP,    /* between kernels: a kernel or the end */
    TRACE_RD_TABLE,  /* after a kernel: its files and PCs */
    TRACE_RD_BODY,   /* inside a kernel: mem, barriers, kernel end */
    TRACE_RD_DONE    /* after the end record */
} trace_rd_state;

/* What trace_mem_validate computes from the kernel for every record, kept
 * per kernel by the reader (trace_mem_limits_of). */
typedef struct trace_mem_limits {
    uint64_t ctas;          /* grid x*y*z */
    uint32_t warps;         /* per CTA */
    uint32_t last_lanes;    /* lanes with threads in the CTA's last warp */
} trace_mem_limits;

struct trace_reader {
    char *path;
    trace_format format;
    uint32_t version;
    trace_reader_options opt;
    trace_meta meta;
    FILE *f;
    bool own_file;
    uint64_t bytes;      /* consumed from the file */
    uint64_t loc;        /* binary: number of the current record; text: its line */
    uint64_t records;    /* records (binary) or record lines (text) read */
    struct trace_bin_dec *bin;
    struct trace_text_dec *text;

    trace_rd_state state;
    trace_kernel kernel;       /* the current kernel, tables included */
    trace_mem_limits limits;   /* of kernel, once its table is read */
    uint64_t kernel_loc;
    uint32_t files_cap, pcs_cap;
    bool has_table_counts;
    uint32_t decl_files, decl_pcs;
    uint64_t table_bytes;      /* string bytes of the current kernel's table */
    uint64_t n_mem, n_bar;     /* records of the current kernel */
    uint32_t n_kernels;        /* kernels begun */
    bool incomplete;
    char *reason;

    /* one record of look-ahead: a kernel's table ends at the first other record */
    bool has_pending;
    trace_rec pending;
    uint64_t pending_loc;
    trace_mem pending_mem;
    bool pending_strided;      /* and its closed form (trace_event.mem_strided) */
    uint64_t pending_base, pending_stride;
    trace_barrier pending_bar;

    bool failed;               /* sticky: later calls repeat the message */
    char failed_msg[ERR_MSG_BYTES];
};

struct trace_writer {
    char *name;
    trace_format format;
    FILE *f;
    bool own_file;
    uint64_t bytes;            /* written to the file */
    uint64_t loc;              /* records (binary) or lines (text) written */
    bool in_kernel;
    trace_kernel kernel;       /* copy of the current kernel, for validation */
    uint64_t n_mem, n_bar;
    uint32_t n_kernels;
    bool failed;
    char failed_msg[ERR_MSG_BYTES];
    struct trace_bin_enc *bin;
    struct trace_text_enc *text;
};

/* ---- helpers shared by the forms (trace.c) ---------------------------- */

int trace_meta_key_check(const char *key, err_info *err);
int trace_meta_validate(const trace_meta *m, err_info *err);
/* A kernel's dimensions and names (what can be checked before its tables). */
int trace_kernel_validate_dims(const trace_kernel *k, err_info *err);
/* One PC table entry, given the entry before it (NULL for the first). */
int trace_pc_check(const trace_kernel *k, const trace_pc_info *p, const trace_pc_info *prev,
                   err_info *err);
void trace_mem_limits_of(const trace_kernel *k, trace_mem_limits *lim);
/* trace_mem_validate with the kernel's limits computed once: the same
 * result and, on failure, the same message (it defers to it). */
int trace_mem_validate_limits(const trace_kernel *k, const trace_mem_limits *lim,
                              const trace_mem *m, err_info *err);
/* The same for a record whose active lanes l all hold base + l * stride (the
 * binary form's stride records): the addresses are checked in closed form
 * (alignment of base and stride, the range of the first and last lane), not
 * lane by lane; anything else defers as above. */
int trace_mem_validate_strided(const trace_kernel *k, const trace_mem_limits *lim,
                               const trace_mem *m, uint64_t base, uint64_t stride, err_info *err);
/* The common case of trace_mem_validate_strided, inline for the reader's hot
 * path: true only when that function would return 0 by its closed form (a
 * whole warp, all of whose lanes have threads, whose fields are in range,
 * aligned, global or with offsets below 2^32 by the first and last lane).
 * False says nothing: then call it. */
static inline bool trace_mem_strided_plainly_valid(const trace_mem_limits *lim, const trace_mem *m,
                                                   uint64_t base, uint64_t stride)
{
    uint32_t s = m->size_bytes;
    bool ok = m->active_mask == TRACE_FULL_MASK && m->warp < lim->warps &&
              (m->warp + 1u < lim->warps || lim->last_lanes == TRACE_FULL_MASK) &&
              m->kind < TRACE_KIND_COUNT && m->space < TRACE_SPACE_COUNT &&
              m->cache_op < TRACE_CACHE_COUNT && !(m->flags & ~TRACE_MEM_FLAGS_ALL) &&
              s != 0 && s <= 16u && (s & (s - 1u)) == 0 &&
              !(m->space == TRACE_SPACE_LOCAL && m->kind >= TRACE_KIND_ATOM) &&
              m->cta < lim->ctas && m->sm >= TRACE_SM_UNKNOWN &&
              !((base | stride) & ((uint64_t)s - 1u));
    if (!ok || m->space == TRACE_SPACE_GLOBAL)
        return ok;
    const uint64_t last = base + (uint64_t)(TRACE_WARP_LANES - 1) * stride;
    return base <= UINT32_MAX && stride <= UINT32_MAX / (TRACE_WARP_LANES - 1) &&
           last <= UINT32_MAX;
}

/* Whether the active lanes' addresses are base + stride * lane (mod 2^64);
 * if so sets base (the value for lane 0) and stride. */
bool trace_mem_fit_stride(const trace_mem *m, uint64_t *base, uint64_t *stride);
/* Fill m->addr from base and stride over m->active_mask (inactive lanes 0). */
void trace_mem_expand_stride(trace_mem *m, uint64_t base, uint64_t stride);
/* The same for a whole warp, four lanes per AVX2 store (x86-64 gcc builds,
 * TRACE_AVX2_BUILDS; for CPUs where trace_cpu_has_avx2()). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define TRACE_AVX2_BUILDS 1
void trace_mem_expand_stride_full_avx2(uint64_t *addr, uint64_t base, uint64_t stride);
#else
#define TRACE_AVX2_BUILDS 0
#endif
bool trace_cpu_has_avx2(void);

/* Prefix err with the location: "PATH: record N: " (binary) or "PATH:N: " (text),
 * and make it one line. */
void trace_err_at(err_info *err, trace_format fmt, const char *path, uint64_t loc);
/* Escape control bytes (\n, \t, \xHH) so that the message is one line. */
void trace_err_one_line(err_info *err);

/* ---- the forms' decoders and encoders ---------------------------------- */

/* Decoders: open takes the bytes the format detection already read from r->f.
 * next returns 1 with a record (MEM into ev->mem, BARRIER into ev->barrier),
 * 0 at the end of the input, -1 with a full message (path and location).
 * finish checks that nothing but the end of the input follows the end record. */
int trace_bin_dec_open(trace_reader *r, const uint8_t *head, size_t n, err_info *err);
int trace_bin_dec_next(trace_reader *r, trace_rec *rec, trace_event *ev, err_info *err);
/* The next record when it is a memory record whose bytes are at hand: 1 with
 * it in ev->mem (and its closed form), 0 when not (nothing consumed: call
 * trace_bin_dec_next), -1 on a malformed record. */
int trace_bin_dec_next_mem(trace_reader *r, trace_event *ev, err_info *err);
int trace_bin_dec_finish(trace_reader *r, err_info *err);
void trace_bin_dec_close(trace_reader *r);

int trace_text_dec_open(trace_reader *r, const uint8_t *head, size_t n, err_info *err);
int trace_text_dec_next(trace_reader *r, trace_rec *rec, trace_event *ev, err_info *err);
int trace_text_dec_finish(trace_reader *r, err_info *err);
void trace_text_dec_close(trace_reader *r);

/* Encoders: the records are already validated; they only fail on I/O, with
 * a full message. end writes the end record and flushes (not closes). */
typedef struct trace_enc_ops {
    int (*open)(trace_writer *w, int zstd_level, err_info *err);
    int (*meta)(trace_writer *w, const char *key, const char *value, err_info *err);
    int (*kernel)(trace_writer *w, const trace_kernel *k, err_info *err);
    int (*mem)(trace_writer *w, const trace_mem *m, err_info *err);
    int (*barrier)(trace_writer *w, const trace_barrier *b, err_info *err);
    int (*kernel_end)(trace_writer *w, const trace_kernel_end *c, err_info *err);
    int (*end)(trace_writer *w, uint32_t kernels, bool complete, const char *reason,
               err_info *err);
    void (*free)(trace_writer *w);
} trace_enc_ops;

extern const trace_enc_ops trace_bin_enc_ops;
extern const trace_enc_ops trace_text_enc_ops;

/* ---- varints and zigzag (binary form) ----------------------------------- */

/* LEB128: 7 bits per byte, low first, high bit = more. At most 10 bytes. */
static inline size_t trace_put_varint(uint8_t *p, uint64_t v)
{
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (uint8_t)v;
    return n;
}

/* Read a varint from [*pp, end). Returns 0 and advances *pp, or -1 (with
 * *out = 0 and *pp unchanged) when the bytes end first or the value does not
 * fit 64 bits. */
static inline int trace_get_varint(const uint8_t **pp, const uint8_t *end, uint64_t *out)
{
    const uint8_t *p = *pp;
    if (p < end && *p < 0x80) { /* the common one-byte case */
        *out = *p;
        *pp = p + 1;
        return 0;
    }
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    /* Up to 8 bytes without a branch per byte: one load, the first byte with
     * its high bit clear ends the varint, then the 7-bit groups are packed
     * together pairwise (7+7, 14+14, 28+28). */
    if (end - p >= 8) {
        uint64_t w;
        memcpy(&w, p, sizeof w);
        uint64_t stops = ~w & 0x8080808080808080ull;
        if (stops) {
            unsigned bits = (unsigned)__builtin_ctzll(stops) + 1; /* 8 x bytes used */
            uint64_t x = (bits == 64 ? w : w & (((uint64_t)1 << bits) - 1)) &
                         0x7f7f7f7f7f7f7f7full;
            x = ((x & 0x7f007f007f007f00ull) >> 1) | (x & 0x007f007f007f007full);
            x = ((x & 0x3fff00003fff0000ull) >> 2) | (x & 0x00003fff00003fffull);
            x = ((x & 0x0fffffff00000000ull) >> 4) | (x & 0x000000000fffffffull);
            *out = x;
            *pp = p + bits / 8;
            return 0;
        }
    }
#endif
    uint64_t v = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
        uint8_t c = *p++;
        if (shift == 63 && c > 1)
            break;
        v |= (uint64_t)(c & 0x7f) << shift;
        if (!(c & 0x80)) {
            *out = v;
            *pp = p;
            return 0;
        }
        if (shift == 63)
            break;
    }
    *out = 0;
    return -1;
}

/* zigzag: a signed difference (as a 64-bit two's complement value) to an
 * unsigned one with small magnitudes small: 0,-1,1,-2,.. -> 0,1,2,3,.. */
static inline uint64_t trace_zigzag(uint64_t d)
{
    return (d << 1) ^ (0 - (d >> 63));
}

static inline uint64_t trace_unzigzag(uint64_t z)
{
    return (z >> 1) ^ (0 - (z & 1));
}

#endif
