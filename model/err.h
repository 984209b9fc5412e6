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
#include <stdint.h>

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

/* The huge page xcalloc_lines uses (2 MiB, x86-64's). */
#define XC_HUGE_BYTES ((uintptr_t)2 << 20)

/* Call before prefetching p, which lies in the block that xcalloc_lines
 * returned at base; returns p, to prefetch. On the CI-class AMD machine a
 * software prefetch of the LRC's table, eight records ahead, still left
 * every lookup waiting on its set, and a load of a line of the same huge
 * page just before the prefetch ended that (docs/performance.md,
 * "Twenty-second session"): read as the prefetch being dropped when its
 * address misses the data TLB. So this loads the first line of p's huge
 * page, which such loads keep in the L1 cache. That line lies in the block
 * (a block of huge pages starts on one); without huge pages it is base's
 * line, harmless. */
static inline const void *tlb_touch(const void *base, const void *p)
{
    uintptr_t b = (uintptr_t)base, page = (uintptr_t)p & ~(XC_HUGE_BYTES - 1u);
    unsigned char v = *(const volatile unsigned char *)(page > b ? page : b);
    /* p as if computed from the load, so that the compiler keeps the
     * prefetch that follows after it (no instruction: the CPU does not
     * wait for the load, which a dependence made slower) */
    __asm__("" : "+r"(p) : "r"(v));
    return p;
}

#endif
