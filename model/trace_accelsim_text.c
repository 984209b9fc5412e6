/* trace_accelsim_text.c - the text primitives of the Accel-Sim import: one
 * message per error placed at FILE:LINE, untrusted text quoted safely, a line
 * reader over a file descriptor that can restart at any byte offset (pass 2
 * gives each resident warp its own), and the tokens and numbers the tracer
 * writes (decimal, signed decimal, hexadecimal with or without 0x).
 *
 * Deliberately strict: a sign where none belongs, a digit too many, a NUL
 * byte or a line over ACCELSIM_MAX_LINE_BYTES is an error, never a silent
 * truncation. */
#include "trace_accelsim_int.h"

#include <ctype.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- messages ----------------------------------------------------------------- */

int trace_accelsim_fail_at(err_info *err, const char *path, uint64_t line, const char *fmt, ...)
{
    if (err) {
        char msg[ERR_MSG_BYTES];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(msg, sizeof msg, fmt, ap);
        va_end(ap);
        if (line)
            err_set(err, "%s:%" PRIu64 ": %s", path, line, msg);
        else
            err_set(err, "%s: %s", path, msg);
    }
    return -1;
}

/* A message from a helper, placed at path:line. */
int trace_accelsim_place(err_info *err, const char *path, uint64_t line)
{
    if (line)
        err_prefix(err, "%s:%" PRIu64, path, line);
    else
        err_prefix(err, "%s", path);
    return -1;
}

/* Quote at most 40 bytes of untrusted text, control bytes escaped. */
const char *trace_accelsim_shown(const char *s, char out[64])
{
    size_t o = 0;
    for (; *s && o < 40; s++) {
        unsigned char c = (unsigned char)*s;
        if (c < 0x20 || c >= 0x7f) {
            snprintf(out + o, 5, "\\x%02x", c);
            o += 4;
        } else {
            out[o++] = (char)c;
        }
    }
    if (*s)
        out[o++] = '.', out[o++] = '.', out[o++] = '.';
    out[o] = '\0';
    return out;
}

/* ---- lines from a file descriptor, by offset ---------------------------------- */

/* Next line, NUL-terminated in place without its "\n" (and "\r"): 1, or 0 at
 * the end of the file, or -1 (too long, NUL byte, read error). */
int trace_accelsim_rd_line(line_rd *r, const char *path, char **out, err_info *err)
{
    for (;;) {
        char *nl = memchr(r->buf + r->pos, '\n', r->end - r->pos);
        if (nl || (r->eof && r->end > r->pos)) {
            char *s = r->buf + r->pos;
            size_t len = nl ? (size_t)(nl - s) : r->end - r->pos;
            r->line++;
            if (len + (nl != NULL) > r->max_line)
                return trace_accelsim_fail_at(err, path, r->line,
                                              "line longer than %zu bytes (the limit of "
                                              "gpumemsim's Accel-Sim import)",
                                              r->max_line);
            if (nl)
                r->pos += len + 1;
            else
                r->pos = r->end;
            if (memchr(s, '\0', len))
                return trace_accelsim_fail_at(err, path, r->line,
                                              "NUL byte in a line (expected text)");
            if (len > 0 && s[len - 1] == '\r')
                len--;
            s[len] = '\0'; /* the '\n', or the byte after the data (cap has room) */
            *out = s;
            return 1;
        }
        if (r->eof)
            return 0;
        if (r->end - r->pos >= r->max_line)
            return trace_accelsim_fail_at(err, path, r->line + 1,
                                          "line longer than %zu bytes (the limit of "
                                          "gpumemsim's Accel-Sim import)",
                                          r->max_line);
        /* move the partial line to the front and read more */
        memmove(r->buf, r->buf + r->pos, r->end - r->pos);
        r->file_off += r->pos;
        r->end -= r->pos;
        r->pos = 0;
        ssize_t n = pread(r->fd, r->buf + r->end, r->cap - 1 - r->end,
                          (off_t)(r->file_off + r->end));
        if (n < 0)
            return trace_accelsim_fail_at(err, path, 0, "read error: %s", strerror(errno));
        if (n == 0)
            r->eof = true;
        r->end += (size_t)n;
    }
}

/* ---- numbers -------------------------------------------------------------------- */

char *trace_accelsim_next_tok(char **p)
{
    char *s = *p;
    while (*s == ' ' || *s == '\t')
        s++;
    if (!*s) {
        *p = s;
        return NULL;
    }
    char *t = s;
    while (*s && *s != ' ' && *s != '\t')
        s++;
    if (*s)
        *s++ = '\0';
    *p = s;
    return t;
}

bool trace_accelsim_parse_dec(const char *s, uint64_t max, uint64_t *out)
{
    if (!s || !isdigit((unsigned char)*s))
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        if (!isdigit((unsigned char)*s))
            return false;
        unsigned d = (unsigned)(*s - '0');
        if (d > max || v > (max - d) / 10)
            return false;
        v = v * 10 + d;
    }
    *out = v;
    return true;
}

/* A signed decimal that fits int64. */
bool trace_accelsim_parse_sdec(const char *s, int64_t *out)
{
    if (!s)
        return false;
    bool neg = *s == '-';
    uint64_t v;
    if (!trace_accelsim_parse_dec(s + neg, neg ? (uint64_t)INT64_MAX + 1u : (uint64_t)INT64_MAX,
                                  &v))
        return false;
    *out = neg ? (int64_t)(0 - v) : (int64_t)v;
    return true;
}

/* Hexadecimal with an optional 0x, at most 16 digits. */
bool trace_accelsim_parse_hex(const char *s, uint64_t max, uint64_t *out)
{
    if (!s)
        return false;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X'))
        s += 2;
    size_t n = strlen(s);
    if (n == 0 || n > 16)
        return false;
    uint64_t v = 0;
    for (; *s; s++) {
        int c = (unsigned char)*s, d;
        if (c >= '0' && c <= '9')
            d = c - '0';
        else if (c >= 'a' && c <= 'f')
            d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F')
            d = c - 'A' + 10;
        else
            return false;
        v = v << 4 | (uint64_t)d;
    }
    if (v > max)
        return false;
    *out = v;
    return true;
}

/* Strip blanks and tabs at both ends, in place. */
void trace_accelsim_trim(char **s)
{
    while (**s == ' ' || **s == '\t')
        (*s)++;
    size_t n = strlen(*s);
    while (n > 0 && ((*s)[n - 1] == ' ' || (*s)[n - 1] == '\t'))
        (*s)[--n] = '\0';
}

