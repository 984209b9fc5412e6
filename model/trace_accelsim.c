/* trace_accelsim.c - Accel-Sim trace collections (kernelslist.g and
 * kernel-N.traceg[.xz] of the NVBit tracer, versions 3 and later) to a
 * gpumemsim trace. The format, what maps to what and the interleaving rule are
 * in docs/accelsim.md; the interface is trace_accelsim.h.
 *
 * This file is the driver: the list (or one kernel file), then per kernel
 * file two passes, and the output's metadata from the list and the first
 * kernel's header. The pieces, each readable alone:
 *   trace_accelsim_text.c    messages, the line reader, tokens and numbers
 *   trace_accelsim_list.c    kernelslist.g, and .xz to a temporary file
 *   trace_accelsim_header.c  a kernel file's "-key = value" header
 *   trace_accelsim_inst.c    one instruction line: fields, addresses, opcode
 *   trace_accelsim_kernel.c  pass 1: structure, checks, PC table, warp index
 *   trace_accelsim_replay.c  pass 2: the resident warps interleaved into records
 * and trace_accelsim_int.h, what they share. */
#include "trace_accelsim_int.h"

#include <inttypes.h>
#include <stdio.h>
#include <string.h>

static void meta_u64(trace_meta *m, const char *key, uint64_t v)
{
    char b[32];
    snprintf(b, sizeof b, "%" PRIu64, v);
    trace_meta_set(m, key, b);
}

int trace_accelsim_import(const char *path, const char *out_path, const accelsim_options *opt_in,
                          accelsim_summary *sum_out, err_info *err)
{
    accelsim_options opt = *opt_in;
    accelsim_summary sum;
    memset(&sum, 0, sizeof sum);
    if (opt.sm_count == 0)
        opt.sm_count = ACCELSIM_DEFAULT_SM_COUNT;
    if (opt.sm_count > ACCELSIM_MAX_SM_COUNT || opt.ctas_per_sm > ACCELSIM_MAX_CTAS_PER_SM) {
        err_set(err, "sm_count %" PRIu32 " and ctas_per_sm %" PRIu32 " (expected at most %u and "
                "%u)", opt.sm_count, opt.ctas_per_sm, ACCELSIM_MAX_SM_COUNT,
                ACCELSIM_MAX_CTAS_PER_SM);
        return -1;
    }
    klist l;
    memset(&l, 0, sizeof l);
    accelsim_input in = opt.input;
    if (in == ACCELSIM_INPUT_AUTO)
        in = trace_accelsim_ends_with(path, ".traceg")      ? ACCELSIM_INPUT_TRACEG
             : trace_accelsim_ends_with(path, ".traceg.xz") ? ACCELSIM_INPUT_TRACEG_XZ
                                                            : ACCELSIM_INPUT_LIST;
    if (in == ACCELSIM_INPUT_LIST) {
        if (trace_accelsim_list_read(path, &l, err) < 0) {
            trace_accelsim_list_free(&l);
            return -1;
        }
    } else {
        trace_accelsim_list_add(&l, xstrdup(path), in == ACCELSIM_INPUT_TRACEG_XZ);
    }

    trace_writer *w = NULL;
    kfile f;
    memset(&f, 0, sizeof f);
    f.fd = -1;
    accelsim_tick tick = {.fn = opt.progress, .ctx = opt.progress_ctx, .p = {.kernels = l.n}};
    int rc = 0;
    for (uint32_t i = 0; rc == 0 && i < l.n; i++) {
        trace_accelsim_kfile_free(&f);
        if (tick.fn) {
            f.tick = &tick;
            tick.p.kernel = i;
            tick.p.path = l.paths[i];
            tick.p.writing = false;
            tick.p.lines = 0;
            trace_accelsim_tick(&tick);
        }
        rc = trace_accelsim_kfile_open(&f, l.paths[i], l.xz[i], &opt, err);
        if (rc == 0)
            rc = trace_accelsim_kfile_build(&f, &sum, err);
        if (rc == 0 && !w) {
            /* the metadata, from the list and the first kernel's header */
            trace_meta m;
            trace_meta_init(&m);
            trace_meta_set(&m, "capture_tool", "accel-sim tracer (NVBit), imported by gpumemsim "
                                               "trace import");
            meta_u64(&m, "capture_version", f.h.tracer_version);
            if (f.h.nvbit[0])
                trace_meta_set(&m, "accelsim_nvbit_version", f.h.nvbit);
            if (f.h.binary_version >= 10 && f.h.binary_version < 1000) {
                char cc[16];
                snprintf(cc, sizeof cc, "%d.%d", (int)(f.h.binary_version / 10),
                         (int)(f.h.binary_version % 10));
                trace_meta_set(&m, "cc", cc);
            }
            meta_u64(&m, "accelsim_kernels", l.n);
            meta_u64(&m, "accelsim_memcpy", l.memcpy_count);
            meta_u64(&m, "accelsim_memcpy_bytes", l.memcpy_bytes);
            meta_u64(&m, "accelsim_sm_count", opt.sm_count);
            if (opt.ctas_per_sm)
                meta_u64(&m, "accelsim_ctas_per_sm", opt.ctas_per_sm);
            else
                trace_meta_set(&m, "accelsim_ctas_per_sm",
                               "derived per kernel (H200 limits)");
            trace_meta_set(&m, "accelsim_interleave", "round robin, one instruction per resident "
                                                      "warp; CTA c on SM c mod sm_count");
            w = trace_writer_open(out_path, opt.format, opt.zstd_level, &m, err);
            trace_meta_free(&m);
            if (!w)
                rc = -1;
        }
        if (rc == 0)
            rc = trace_writer_kernel(w, &f.k, err);
        if (rc == 0) {
            uint32_t k = opt.ctas_per_sm;
            if (!k)
                k = trace_accelsim_ctas_per_sm(trace_kernel_threads_per_cta(&f.k), f.h.nregs,
                                               f.h.shmem);
            tick.p.writing = true;
            trace_accelsim_tick(&tick);
            rc = trace_accelsim_replay(&f, opt.sm_count, k, w, &sum, err);
        }
        if (rc == 0)
            rc = trace_writer_kernel_end(w, err);
        if (rc == 0)
            sum.kernels++;
    }
    trace_accelsim_kfile_free(&f);
    if (w) {
        if (rc < 0) {
            err_info ignored;
            trace_writer_close(w, false, "gpumemsim trace import stopped on an error", &ignored);
        } else {
            rc = trace_writer_close(w, true, NULL, err);
        }
    }
    sum.memcpy_count = l.memcpy_count;
    sum.memcpy_bytes = l.memcpy_bytes;
    trace_accelsim_list_free(&l);
    if (sum_out)
        *sum_out = sum;
    return rc;
}
