/* trace_accelsim_list.c - the files of a collection: the kernelslist.g
 * (blank lines, MemcpyHtoD/MemcpyDtoH lines counted, kernel file names
 * resolved against the list's directory, anything else an error) and the
 * decompression of a .traceg.xz into an unlinked temporary file, so that both
 * passes can read it by offset like a plain file (bounded by XZ_MEMLIMIT of
 * decoder memory and the uncompressed size in disk space).
 *
 * Not read: the kernel files themselves (trace_accelsim_kernel.c); copies are
 * counted, not modelled. */
#include "trace_accelsim_int.h"

#include <errno.h>
#include <fcntl.h>
#include <lzma.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define XZ_MEMLIMIT ((uint64_t)256 << 20)

/* ---- files: plain, or .xz into a temporary file ------------------------------------ */

bool trace_accelsim_ends_with(const char *s, const char *suffix)
{
    size_t n = strlen(s), m = strlen(suffix);
    return n >= m && strcmp(s + n - m, suffix) == 0;
}

int trace_accelsim_xz_to_tmp(const char *path, const char *tmp_dir, int *out_fd, err_info *err)
{
    FILE *in = fopen(path, "rb");
    if (!in)
        return trace_accelsim_fail_at(err, path, 0, "cannot open: %s", strerror(errno));
    if (!tmp_dir || !*tmp_dir)
        tmp_dir = getenv("TMPDIR");
    if (!tmp_dir || !*tmp_dir)
        tmp_dir = "/tmp";
    size_t tn = strlen(tmp_dir) + 32;
    char *tmpl = xmalloc(tn);
    snprintf(tmpl, tn, "%s/gpumemsim-accelsim-XXXXXX", tmp_dir);
    int fd = mkstemp(tmpl);
    if (fd < 0) {
        trace_accelsim_fail_at(err, path, 0,
                               "cannot create a temporary file in %s to decompress into: %s",
                               tmp_dir, strerror(errno));
        free(tmpl);
        fclose(in);
        return -1;
    }
    unlink(tmpl); /* gone when closed, whatever happens */
    free(tmpl);
    lzma_stream zs = LZMA_STREAM_INIT;
    int rc = 0;
    if (lzma_stream_decoder(&zs, XZ_MEMLIMIT, LZMA_CONCATENATED) != LZMA_OK)
        rc = trace_accelsim_fail_at(err, path, 0, "cannot start the xz decoder");
    uint8_t ibuf[1 << 16], obuf[1 << 16];
    lzma_action action = LZMA_RUN;
    while (rc == 0) {
        if (zs.avail_in == 0 && action == LZMA_RUN) {
            zs.next_in = ibuf;
            zs.avail_in = fread(ibuf, 1, sizeof ibuf, in);
            if (ferror(in)) {
                rc = trace_accelsim_fail_at(err, path, 0, "read error: %s", strerror(errno));
                break;
            }
            if (feof(in))
                action = LZMA_FINISH;
        }
        zs.next_out = obuf;
        zs.avail_out = sizeof obuf;
        lzma_ret ret = lzma_code(&zs, action);
        size_t n = sizeof obuf - zs.avail_out;
        for (size_t o = 0; o < n;) {
            ssize_t wn = write(fd, obuf + o, n - o);
            if (wn < 0) {
                rc = trace_accelsim_fail_at(err, path, 0,
                                            "writing the decompressed kernel to %s: %s", tmp_dir,
                                            strerror(errno));
                break;
            }
            o += (size_t)wn;
        }
        if (rc < 0 || ret == LZMA_STREAM_END)
            break;
        if (ret == LZMA_OK)
            continue;
        const char *why = ret == LZMA_FORMAT_ERROR ? "not an xz file"
                          : ret == LZMA_MEMLIMIT_ERROR ? "the xz stream needs more than 256 MiB "
                                                         "to decode"
                          : ret == LZMA_BUF_ERROR ? "the xz stream is truncated"
                          : ret == LZMA_DATA_ERROR || ret == LZMA_OPTIONS_ERROR ? "corrupt xz data"
                          : "xz decoder error";
        rc = trace_accelsim_fail_at(err, path, 0, "%s (expected an xz-compressed .traceg)", why);
    }
    lzma_end(&zs);
    fclose(in);
    if (rc < 0) {
        close(fd);
        return -1;
    }
    *out_fd = fd;
    return 0;
}

/* Open and check one kernel file (pass 1). */
/* ---- the collection ----------------------------------------------------------------- */

void trace_accelsim_list_free(klist *l)
{
    for (uint32_t i = 0; i < l->n; i++)
        free(l->paths[i]);
    free(l->paths);
    free(l->xz);
}

void trace_accelsim_list_add(klist *l, char *path, bool xz)
{
    if (l->n == l->cap) {
        l->cap = l->cap ? 2 * l->cap : 16;
        l->paths = xrealloc(l->paths, l->cap * sizeof *l->paths);
        l->xz = xrealloc(l->xz, l->cap * sizeof *l->xz);
    }
    l->paths[l->n] = path;
    l->xz[l->n++] = xz;
}

int trace_accelsim_list_read(const char *path, klist *l, err_info *err)
{
    int fd = open(path, O_RDONLY);
    if (fd < 0)
        return trace_accelsim_fail_at(err, path, 0, "cannot open: %s", strerror(errno));
    char *buf = xmalloc(RD_BUF_BYTES);
    line_rd r = {.fd = fd, .buf = buf, .cap = RD_BUF_BYTES, .max_line = ACCELSIM_MAX_LINE_BYTES};
    const char *slash = strrchr(path, '/');
    size_t dir_len = slash ? (size_t)(slash - path) + 1 : 0;
    char sh[64];
    char *line;
    int rc;
    while ((rc = trace_accelsim_rd_line(&r, path, &line, err)) == 1) {
        char *s = line;
        trace_accelsim_trim(&s);
        if (!*s)
            continue;
        if (strncmp(s, "MemcpyHtoD,", 11) == 0 || strncmp(s, "MemcpyDtoH,", 11) == 0) {
            char *addr = s + 11, *comma = strchr(addr, ',');
            uint64_t a, n;
            if (comma)
                *comma = '\0';
            bool ok = comma && trace_accelsim_parse_hex(addr, UINT64_MAX, &a) &&
                      trace_accelsim_parse_dec(comma + 1, UINT64_MAX, &n);
            if (comma)
                *comma = ',';
            if (!ok) {
                rc = trace_accelsim_fail_at(err, path, r.line,
                                            "'%s' (expected 'MemcpyHtoD,0xADDRESS,BYTES')",
                                            trace_accelsim_shown(s, sh));
                break;
            }
            l->memcpy_count++;
            l->memcpy_bytes += n;
            continue;
        }
        bool xz = trace_accelsim_ends_with(s, ".traceg.xz");
        if (strncmp(s, "kernel", 6) != 0 || (!xz && !trace_accelsim_ends_with(s, ".traceg"))) {
            /* the two usual mistakes get a hint: the tracer's raw list
             * (kernel-N.trace, before post-processing), and a kernel file
             * (its header) read as a list because of its name */
            bool raw = strncmp(s, "kernel", 6) == 0 && (trace_accelsim_ends_with(s, ".trace") ||
                                                        trace_accelsim_ends_with(s, ".trace.xz"));
            rc = trace_accelsim_fail_at(
                err, path, r.line,
                "'%s' (expected 'MemcpyHtoD,0xADDRESS,BYTES' or a kernel file "
                "'kernel-N...traceg' or '...traceg.xz'%s)",
                trace_accelsim_shown(s, sh),
                raw ? ": a raw tracer file; the tracer's post-traces-processing turns "
                      "kernelslist and its .trace files into kernelslist.g and .traceg files"
                : *s == '-' ? "; this looks like a kernel file's header, but a kernel file "
                              "is read as one only when named *.traceg or *.traceg.xz"
                            : "");
            break;
        }
        if (l->n >= ACCELSIM_MAX_KERNELS) {
            rc = trace_accelsim_fail_at(err, path, r.line,
                                        "more than %u kernels (the limit of gpumemsim's "
                                        "Accel-Sim import)",
                                        ACCELSIM_MAX_KERNELS);
            break;
        }
        size_t n = dir_len + strlen(s) + 1;
        char *p = xmalloc(n);
        snprintf(p, n, "%.*s%s", (int)dir_len, path, s);
        trace_accelsim_list_add(l, p, xz);
    }
    free(buf);
    close(fd);
    if (rc < 0)
        return -1;
    if (l->n == 0)
        return trace_accelsim_fail_at(err, path, 0,
                                      "no kernel lines (expected at least one kernel-N.traceg)");
    return 0;
}

