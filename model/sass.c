/* sass.c - opcodes from SASS text (sass.h). */
#include "sass.h"

#include <ctype.h>
#include <stdlib.h>
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

static void reg_set(uint64_t *m, unsigned long r)
{
    if (r < 255u)
        m[r >> 6] |= 1ull << (r & 63u);
}

void sass_registers(const char *op, bool has_dst, uint8_t *dst, uint64_t src[4])
{
    memset(src, 0, 4 * sizeof *src);
    *dst = 255u;
    if (!op)
        return;
    const char *p = op;
    while (*p && !isspace((unsigned char)*p)) /* the opcode and its modifiers */
        p++;
    bool first = true;
    while (*p) {
        /* a register: R<digits> not part of a longer name (UR4, SR_TID, P0) */
        if (*p == 'R' && isdigit((unsigned char)p[1]) && !(isalnum((unsigned char)p[-1]) || p[-1] == '_')) {
            char *end;
            unsigned long r = strtoul(p + 1, &end, 10);
            bool pair = strncmp(end, ".64", 3) == 0;
            if (first && has_dst) {
                *dst = r < 255u ? (uint8_t)r : 255u;
            } else {
                reg_set(src, r);
                if (pair)
                    reg_set(src, r + 1u);
            }
            first = false;
            p = end;
            continue;
        }
        p++;
    }
}

bool sass_const_operand(const char *sass, uint32_t *bank, uint32_t *offset)
{
    const char *c = sass ? strstr(sass, "c[0x") : NULL;
    if (!c)
        return false;
    char *end;
    unsigned long b = strtoul(c + 4, &end, 16);
    if (strncmp(end, "][0x", 4) != 0)
        return false;
    unsigned long o = strtoul(end + 4, &end, 16);
    if (*end != ']' || b > 0xffff || o > 0xffffff)
        return false;
    *bank = (uint32_t)b;
    *offset = (uint32_t)o;
    return true;
}
