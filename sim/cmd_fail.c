/* cmd_fail.c - the one way commands report bad input or usage. Kept out of
 * main.c so the test runner, which links every command but not main, has it. */
#include <stdarg.h>
#include <stdio.h>

#include "commands.h"

int cmd_fail(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("gpumemsim: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    return 2;
}
