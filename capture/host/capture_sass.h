/* capture_sass.h - what the capture tool learns from a kernel's SASS: the
 * disassembly (nvdisasm -g -c, or cuobjdump -sass) parsed into per-PC text and
 * source lines, the resource usage (cuobjdump -res-usage), and what each
 * opcode implies for the trace.
 *
 * The Compute Sanitizer API reports the address space an access resolved to,
 * its width and whether it reads, writes or both; it does not say whether the
 * instruction was generic, a reduction rather than an atomic, which cache
 * operator it carried, or which instructions it never reports at all. Those
 * come from the opcode at the record's PC, classified here.
 *
 * Opcode -> cache operator on sm_90 (measured: research/hardware-facts.md
 * §3.2), for LDG/STG, generic LD/ST and LDL/STL; first match wins:
 *   .STRONG.SYS -> cv    (ld.volatile/ld.global.cv; st.global.wt)
 *   .STRONG.GPU -> cg    (ld.global.cg, st.global.cg)
 *   .CONSTANT   -> nc    (__ldg, ld.global.nc)
 *   .LU         -> lu    (ld.global.lu; LDL.LU spill reloads)
 *   .EF         -> cs    (ld.global.cs, st.global.cs: evict first)
 *   .STRONG.SM  -> ca    (ld.global.ca)
 *   otherwise   -> default (LDG.E, STG.E; eviction hints .EL and .NA have no
 *                  PTX cache operator and are kept only in the SASS text)
 * LDGSTS (cp.async): .BYPASS (cp.async.cg) -> cg, otherwise (cp.async.ca) -> ca.
 * Atomics, reductions and shared-memory instructions: default. */
#ifndef GMS_CAPTURE_SASS_H
#define GMS_CAPTURE_SASS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"
#include "trace.h"

typedef enum capture_op_class {
    CAPTURE_OP_OTHER,      /* no memory access the trace is about (ALU, branches, LDC of parameters, ...) */
    CAPTURE_OP_GLOBAL,     /* LDG STG ATOMG REDG */
    CAPTURE_OP_GENERIC,    /* LD ST ATOM RED: the space is resolved per lane at run time */
    CAPTURE_OP_SHARED,     /* LDS STS ATOMS LDSM STSM */
    CAPTURE_OP_LOCAL,      /* LDL STL */
    CAPTURE_OP_LDGSTS,     /* LDGSTS: cp.async global -> shared */
    CAPTURE_OP_BARRIER,    /* BAR: bar.sync, bar.red, bar.arrive */
    CAPTURE_OP_SHFL,       /* SHFL: a warp shuffle (no memory; recorded as a waypoint, trace.h) */
    /* The API never reports these: their memory traffic is missing from a trace. */
    CAPTURE_OP_TMA,        /* UTMALDG UTMASTG UTMAREDG UTMAPF: cp.async.bulk.tensor */
    CAPTURE_OP_TEXTURE,    /* TEX TLD TLD4 TXD: texture fetches */
    CAPTURE_OP_SURFACE,    /* SULD SUST SUATOM SURED */
    CAPTURE_OP_CONST_USER, /* LDC/ULDC of __constant__ variables (constant bank 3 on sm_70..sm_90): read
                            * through the constant caches, never reported by the API. Parameters
                            * (bank 0) and loader-patched addresses (bank 4) are not counted. */
    /* Reported by the API but not recorded by this tool (a bulk copy is up to
     * 2^20 bytes from one thread; a trace record holds 32 lanes x 16 bytes). */
    CAPTURE_OP_BULK,       /* UBLKCP UBLKRED UBLKPF: non-tensor cp.async.bulk */
    CAPTURE_OP_COUNT
} capture_op_class;

/* What one opcode implies. */
typedef struct capture_op {
    uint8_t op_class; /* capture_op_class */
    uint8_t cache_op; /* trace_cache_op for global and local accesses by this instruction */
    bool atomic;      /* ATOM, ATOMG, ATOMS, RED, REDG */
    bool red;         /* RED, REDG: an atomic that returns nothing */
} capture_op;

/* Classify one instruction as the disassembler prints it, with or without a
 * predicate ("@!P0 LDG.E.128 R4, desc[UR6][R2.64] ;"). Never fails: text that
 * is not a known memory opcode is CAPTURE_OP_OTHER. */
void capture_op_classify(const char *sass, capture_op *out);

/* True for the classes whose memory traffic cannot be in the trace. */
bool capture_op_missing_from_trace(capture_op_class c);
/* "global", "generic", ..., "TMA tensor copy", "texture fetch", ... */
const char *capture_op_class_name(capture_op_class c);

/* ---- a module's disassembly --------------------------------------------- */

typedef struct capture_sass_inst {
    uint32_t pc;   /* byte offset from the function's entry */
    char *text;    /* the instruction without the trailing " ;" */
    int32_t file;  /* index into capture_sass_func.files, -1 when no line info */
    uint32_t line; /* 0 when no line info */
    uint32_t ctrl; /* its control word | TRACE_CTRL_KNOWN (trace.h), from the encoding's upper
                    * word when the listing prints it (nvdisasm -hex); 0 when not */
} capture_sass_inst;

typedef struct capture_sass_func {
    char *name;                /* symbol (mangled) name */
    uint32_t n_insts;
    capture_sass_inst *insts;  /* ascending pc */
    uint32_t n_files;
    char **files;
    /* resource usage, from cuobjdump -res-usage (has_res false when absent) */
    bool has_res;
    uint32_t regs;
    uint32_t stack_bytes;
    uint32_t shared_bytes;     /* static shared memory per CTA */
    uint32_t local_bytes;
} capture_sass_func;

typedef struct capture_sass_module {
    uint32_t n_funcs;
    capture_sass_func *funcs;
} capture_sass_module;

void capture_sass_module_init(capture_sass_module *m);
void capture_sass_module_free(capture_sass_module *m);

/* Parse a listing from `nvdisasm -g -c` (functions start at ".text.NAME"
 * section headers; "//## File "F", line N" annotations give source lines) or
 * `cuobjdump -sass` ("Function : NAME"). name is used in messages. Returns 0,
 * or -1 with a message naming the line.
 *
 * Branch targets come out as function-relative PCs in either case: nvdisasm's
 * label operands ("BRA `(.L_x_0)", "BSSY B0, `(.L_x_1)") become the PC of the
 * instruction after the label's line ("BRA 0x1a0"); cuobjdump prints them so
 * already (each function is its own .text section, listed from 0). A label
 * the function does not define (a call into another function) stays as
 * printed. */
int capture_sass_parse(FILE *f, const char *name, capture_sass_module *m, err_info *err);

/* Parse `cuobjdump -res-usage` output (" Function NAME:" then
 * "  REG:n STACK:n SHARED:n LOCAL:n ...") into the module's functions,
 * adding functions the listing did not have. */
int capture_res_usage_parse(FILE *f, const char *name, capture_sass_module *m, err_info *err);

const capture_sass_func *capture_sass_find(const capture_sass_module *m, const char *fname);

/* ---- trace kernels --------------------------------------------------------- */

/* Give k its PC table and per-kernel resources from f: one trace_pc_info per
 * instruction of the function (PCs 0, 16, 32, ... for a whole listing, which
 * the timing model needs to follow the kernel's control flow:
 * model/sassflow.h), with the SASS text, the cache operator its opcode
 * implies (default for all but loads and stores) and the source line; the
 * files those lines name; static shared memory, registers and local bytes
 * (stack + local, per thread). Replaces what k had there. */
void capture_kernel_set_sass(trace_kernel *k, const capture_sass_func *f);

/* The kernel's own static shared memory (what Nsight Compute calls
 * launch__shared_mem_per_block_static, and the trace's smem_static) from
 * cuobjdump's SHARED: on sm_80 and later SHARED also counts the reservation
 * the driver makes for each CTA (reserved bytes, 1 KiB) whenever the kernel
 * uses shared memory at all, and is 0 otherwise (measured on the H200 for
 * every kernel of the suite, docs/findings.md §3e). reserved: 1024 from
 * compute capability 8.0 on, 0 before. */
uint32_t capture_static_smem(uint32_t res_shared, uint32_t reserved);

/* Free everything the capture code may have put into k (names, PC table,
 * files) and zero it. Same ownership as trace_kernel_free: every string and
 * array is the kernel's own, from malloc. */
void capture_kernel_clear(trace_kernel *k);

/* Summarize the instructions of f whose traffic is missing from a trace, as
 * one line ("2 TMA tensor copy (first: 'UTMALDG.2D [UR4], [UR8]' at 0x0230),
 * ..."). Returns how many such instructions f has; 0 leaves msg "". */
uint32_t capture_sass_missing_summary(const capture_sass_func *f, char *msg, size_t msg_bytes);

#endif
