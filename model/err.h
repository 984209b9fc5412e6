/* err.h - one error message, carried from where input goes wrong to the one
 * place that prints it.
 *
 * The model library never prints and never exits: a function that can fail on
 * bad input returns -1 (or NULL) and fills an err_info with one line that names
 * the file, the line or record, and what was expected. sim/ prints it and exits
 * with the documented code. Broken internal invariants are asserts instead. */
#ifndef GMS_ERR_H
#define GMS_ERR_H

#include <stddef.h>

#define ERR_MSG_BYTES 1024

typedef struct err_info {
    char msg[ERR_MSG_BYTES]; /* one line, no trailing newline; "" when no error */
} err_info;

/* Replace the message (printf-style). Safe with e == NULL. */
void err_set(err_info *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/* Put context in front of the current message: "<prefix>: <old message>". */
void err_prefix(err_info *e, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

void err_clear(err_info *e);

/* Allocation that cannot fail: out of memory aborts with a message. The only
 * place in the library that may end the process. */
void *xmalloc(size_t n);
void *xcalloc(size_t count, size_t size);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
/* count x size zeroed bytes starting on a 64-byte line; *raw is what to free.
 * Tables of half a huge page or more (megabytes read at random) get whole
 * huge pages where the system has them, so that a lookup, or the prefetch
 * that precedes it, does not also wait for a page walk; the memory is the
 * same either way. */
void *xcalloc_lines(size_t count, size_t size, void **raw);

#endif
