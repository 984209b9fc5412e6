/* err.c - error messages and the allocation wrappers. */
#include "err.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void err_set(err_info *e, const char *fmt, ...)
{
    if (!e)
        return;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(e->msg, sizeof e->msg, fmt, ap);
    va_end(ap);
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
