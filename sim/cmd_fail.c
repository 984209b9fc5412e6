/* cmd_fail.c - the one way commands report bad input or usage, and open
 * their output. Kept out of main.c so the test runner, which links every
 * command but not main, has them. */
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

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

FILE *cmd_open_output(const char *path)
{
    if (!path || strcmp(path, "-") == 0)
        return stdout;
    return fopen(path, "w");
}

int cmd_close_output(FILE *f)
{
    int failed = ferror(f);
    failed |= f == stdout ? fflush(f) : fclose(f);
    return failed ? -1 : 0;
}
