/* err.c - error messages (always one line) and the allocation wrappers. */
/* madvise(MADV_HUGEPAGE) is a Linux hint outside POSIX; everything else here is C11 + POSIX */
#define _DEFAULT_SOURCE
#include "err.h"

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

/* Messages quote names and values read from files (a kernel's name, a CSV
 * field, a config value), which may hold any byte. Shown as is, a newline
 * there would make two lines of one message, so control bytes are escaped:
 * \n, \t, \xNN; the message is cut to fit. Idempotent: backslashes stay. */
static void one_line(char *msg)
{
    const unsigned char *s = (const unsigned char *)msg;
    while (*s && *s >= 0x20 && *s != 0x7f)
        s++;
    if (!*s)
        return; /* the usual case: nothing to escape */
    char out[ERR_MSG_BYTES];
    size_t o = (size_t)((const char *)s - msg);
    memcpy(out, msg, o);
    for (; *s && o + 5 < sizeof out; s++) {
        if (*s == '\n' || *s == '\t') {
            out[o++] = '\\';
            out[o++] = *s == '\n' ? 'n' : 't';
        } else if (*s < 0x20 || *s == 0x7f) {
            snprintf(out + o, 5, "\\x%02x", *s);
            o += 4;
        } else {
            out[o++] = (char)*s;
        }
    }
    out[o] = '\0';
    memcpy(msg, out, o + 1);
}

void err_set(err_info *e, const char *fmt, ...)
{
    if (!e)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
    one_line(e->msg);
}

void err_prefix(err_info *e, const char *fmt, ...)
{
    if (!e)
        return;
    char head[ERR_MSG_BYTES];
    char old[ERR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(head, sizeof head, fmt, ap);
    va_end(ap);
    memcpy(old, e->msg, sizeof old);
    /* head + ": " + old, cut to fit: the message stays one bounded line */
    size_t n = strlen(head);
    memcpy(e->msg, head, n);
    size_t room = sizeof e->msg - 1 - n;
    const char sep[] = ": ";
    size_t k = room < 2 ? room : 2;
    memcpy(e->msg + n, sep, k);
    n += k;
    room -= k;
    size_t m = strnlen(old, sizeof old - 1);
    if (m > room)
        m = room;
    memcpy(e->msg + n, old, m);
    e->msg[n + m] = '\0';
    one_line(e->msg);
}

void err_clear(err_info *e)
{
    if (e)
        e->msg[0] = '\0';
}

static void out_of_memory(size_t n)
{
    fprintf(stderr, "gpumemsim: out of memory (asked for %zu bytes)\n", n);
    abort();
}

void *xmalloc(size_t n)
{
    void *p = malloc(n ? n : 1);
    if (!p)
        out_of_memory(n);
    return p;
}

void *xcalloc(size_t count, size_t size)
{
    void *p = calloc(count ? count : 1, size ? size : 1);
    if (!p)
        out_of_memory(count * size);
    return p;
}

#define HUGE_BYTES ((size_t)XC_HUGE_BYTES)

/* calloc, not memset: a big calloc is fresh zero pages, touched only where used */
void *xcalloc_lines(size_t count, size_t size, void **raw)
{
    if (size && count > (SIZE_MAX - (HUGE_BYTES << 1)) / size)
        out_of_memory(SIZE_MAX); /* no table that large fits: as calloc would fail */
    size_t n = count * size;
    size_t a = 64u;
#ifdef MADV_HUGEPAGE
    if (n >= HUGE_BYTES / 2u) { /* whole huge pages */
        a = HUGE_BYTES;
        n = (n + HUGE_BYTES - 1u) & ~(HUGE_BYTES - 1u);
    }
#endif
    *raw = xcalloc(n + a, 1);
    uintptr_t p = ((uintptr_t)*raw + a - 1u) & ~(uintptr_t)(a - 1u);
#ifdef MADV_HUGEPAGE
    if (a == HUGE_BYTES)
        (void)madvise((void *)p, n, MADV_HUGEPAGE); /* a hint: failure changes nothing */
#endif
    return (void *)p;
}

void *xrealloc(void *p, size_t n)
{
    void *q = realloc(p, n ? n : 1);
    if (!q)
        out_of_memory(n);
    return q;
}

char *xstrdup(const char *s)
{
    size_t n = strlen(s) + 1;
    char *d = xmalloc(n);
    memcpy(d, s, n);
    return d;
}
