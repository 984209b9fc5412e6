/* sass.c - opcodes from SASS text (sass.h). */
#include "sass.h"

#include <string.h>

static bool blank(char c)
{
    return c == ' ' || c == '\t';
}

const char *sass_opcode(const char *sass)
{
    if (!sass)
        return NULL;
    while (blank(*sass))
        sass++;
    if (*sass == '@') {
        while (*sass && !blank(*sass))
            sass++;
        while (blank(*sass))
            sass++;
    }
    return sass;
}

bool sass_opcode_is(const char *sass, const char *prefix)
{
    const char *op = sass_opcode(sass);
    return op && strncmp(op, prefix, strlen(prefix)) == 0;
}
