/* sassflow.c - paths between PCs through a kernel's SASS (see sassflow.h). */
#include "sassflow.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "err.h"
#include "sass.h"

#define PC_BYTES 16u
#define NONE UINT32_MAX
#define CACHE_SLOTS 4096u /* (a, b) pairs remembered; a kernel's warps use a few dozen */
#define POOL_ENTRIES (1u << 18) /* their paths' instructions, all pairs together */

enum inst_kind { INST_PLAIN, INST_MEMORY, INST_BRANCH, INST_END };

typedef struct inst {
    uint8_t kind;     /* inst_kind */
    bool guarded;     /* @P: a branch or EXIT that may fall through */
    bool exit;        /* an EXIT (of the INST_END kinds) */
    bool constant;    /* LDC, ULDC: a constant-bank load (where a deferred barrier blocks too) */
    uint32_t target;  /* INST_BRANCH: the target's index, NONE when not in the kernel */
    uint8_t dst, dst_n; /* INST_PLAIN: the first register written (255: none) and how many */
    uint32_t reads32; /* reads folded mod 32 */
    uint64_t reads[4];
} inst;

typedef struct pair_slot {
    uint32_t a, b; /* b == NONE: empty */
    uint32_t count;
    uint32_t first; /* its path: pool[first .. first + count - 1] */
} pair_slot;

struct sassflow {
    uint32_t n;
    inst *insts;
    uint32_t *parent; /* BFS: the instruction before each on the path, per search */
    uint32_t *seen;   /* BFS: the search that reached it (a stamp; 0 = never) */
    uint32_t *queue;  /* BFS: the instructions reached, in order */
    uint32_t *path;   /* the last path searched, in order */
    uint32_t stamp;
    pair_slot *cache;
    uint32_t cached;
    uint32_t *pool;   /* the cached pairs' paths */
    uint32_t pooled;
};

/* The opcode without its modifiers ("LDG.E.64" -> "LDG") into base. */
static void base_opcode(const char *op, char *base, size_t n)
{
    size_t i = 0;
    while (op && op[i] && op[i] != '.' && !isspace((unsigned char)op[i]) && op[i] != ';' && i + 1 < n) {
        base[i] = op[i];
        i++;
    }
    base[i] = '\0';
}

/* Instructions the trace records (memory accesses) or marks (barriers). */
static bool is_memory(const char *base)
{
    static const char *const ops[] = {"LD",   "ST",    "LDG",   "STG",  "LDS",    "STS",  "LDL",
                                      "STL",  "ATOM",  "ATOMG", "ATOMS", "RED",   "REDG", "LDGSTS",
                                      "LDSM", "STSM",  "BAR"};
    for (size_t i = 0; i < sizeof ops / sizeof ops[0]; i++)
        if (strcmp(base, ops[i]) == 0)
            return true;
    return false;
}

/* The registers an instruction reads: those it names, but its first operand
 * when that is a register (its destination, *dst; sass_registers), which a
 * 64-bit result extends to the next register (*dst_n 2). */
static void parse_regs(const char *op, const char *base, uint64_t reads[4], uint8_t *dst, uint8_t *dst_n)
{
    const char *p = op;
    while (*p && !isspace((unsigned char)*p))
        p++;
    size_t mods = (size_t)(p - op);
    while (*p && isspace((unsigned char)*p))
        p++;
    sass_registers(op, *p == 'R' && isdigit((unsigned char)p[1]), dst, reads);
    bool wide = base[0] == 'D' || strncmp(base, "CS2R", 4) == 0; /* DADD, DFMA, DMUL, ...; the clock pair */
    for (const char *m = op; m + 3 <= op + mods && !wide; m++)
        wide = strncmp(m, ".64", 3) == 0 || (m + 5 <= op + mods && strncmp(m, ".WIDE", 5) == 0);
    *dst_n = wide ? 2u : 1u;
}

/* A branch's function-relative target ("BRA 0x1f0"), NONE when not read. */
static uint32_t branch_target(const char *op, uint32_t n)
{
    const char *x = strstr(op, "0x");
    if (!x)
        return NONE;
    char *end;
    unsigned long pc = strtoul(x + 2, &end, 16);
    if (end == x + 2 || pc % PC_BYTES != 0 || pc / PC_BYTES >= n)
        return NONE;
    return (uint32_t)(pc / PC_BYTES);
}

sassflow *sassflow_create(const trace_pc_info *pcs, uint32_t n_pcs)
{
    if (n_pcs == 0)
        return NULL;
    bool other = false;
    for (uint32_t i = 0; i < n_pcs; i++) {
        if (pcs[i].pc != i * PC_BYTES || !pcs[i].sass)
            return NULL;
        char base[32];
        base_opcode(sass_opcode(pcs[i].sass), base, sizeof base);
        other |= !is_memory(base);
    }
    if (!other)
        return NULL;
    sassflow *f = xcalloc(1, sizeof *f);
    f->n = n_pcs;
    f->insts = xcalloc(n_pcs, sizeof *f->insts);
    f->parent = xcalloc(n_pcs, sizeof *f->parent);
    f->seen = xcalloc(n_pcs, sizeof *f->seen);
    f->queue = xcalloc(n_pcs, sizeof *f->queue);
    f->path = xcalloc(n_pcs, sizeof *f->path);
    f->pool = xmalloc(POOL_ENTRIES * sizeof *f->pool);
    f->cache = xmalloc(CACHE_SLOTS * sizeof *f->cache);
    for (uint32_t i = 0; i < CACHE_SLOTS; i++)
        f->cache[i].b = NONE;
    for (uint32_t i = 0; i < n_pcs; i++) {
        inst *in = &f->insts[i];
        const char *s = pcs[i].sass;
        while (isspace((unsigned char)*s))
            s++;
        in->guarded = *s == '@';
        const char *op = sass_opcode(pcs[i].sass);
        char base[32];
        base_opcode(op, base, sizeof base);
        in->target = NONE;
        in->constant = strcmp(base, "LDC") == 0 || strcmp(base, "ULDC") == 0;
        if (is_memory(base)) {
            in->kind = INST_MEMORY;
        } else if (strcmp(base, "BRA") == 0) {
            in->kind = INST_BRANCH;
            in->target = branch_target(op, n_pcs);
        } else if (strcmp(base, "EXIT") == 0 || strcmp(base, "RET") == 0 || strcmp(base, "BRX") == 0 ||
                   strcmp(base, "JMX") == 0 || strcmp(base, "KILL") == 0) {
            in->kind = INST_END; /* no way on that the SASS shows */
            in->exit = strcmp(base, "EXIT") == 0;
        } else {
            in->kind = INST_PLAIN;
            parse_regs(op, base, in->reads, &in->dst, &in->dst_n);
            uint64_t r = in->reads[0] | in->reads[1] | in->reads[2] | in->reads[3];
            in->reads32 = (uint32_t)(r | (r >> 32));
        }
    }
    return f;
}

void sassflow_destroy(sassflow *f)
{
    if (!f)
        return;
    free(f->insts);
    free(f->parent);
    free(f->seen);
    free(f->queue);
    free(f->path);
    free(f->pool);
    free(f->cache);
    free(f);
}

/* The instructions that may follow i: the next one unless i is an
 * unconditional branch or end, and a branch's target. */
static uint32_t successors(const sassflow *f, uint32_t i, uint32_t out[2])
{
    const inst *in = &f->insts[i];
    uint32_t n = 0;
    if (in->kind == INST_BRANCH && in->target != NONE)
        out[n++] = in->target;
    bool falls = in->kind == INST_PLAIN || in->kind == INST_MEMORY || in->guarded;
    if (falls && i + 1u < f->n)
        out[n++] = i + 1u;
    return n;
}

/* Breadth-first from a (exclusive; NONE: from instruction 0, inclusive) to
 * b; the path found into f->path, its length into *count. */
static bool search(sassflow *f, uint32_t a, uint32_t b, uint32_t *count)
{
    if (++f->stamp == 0) { /* the stamps wrapped: forget every search */
        memset(f->seen, 0, f->n * sizeof *f->seen);
        f->stamp = 1;
    }
    uint32_t *queue = f->queue, head = 0, tail = 0;
    if (a == NONE) {
        f->seen[0] = f->stamp;
        f->parent[0] = NONE;
        queue[tail++] = 0;
    } else {
        uint32_t s[2];
        for (uint32_t k = successors(f, a, s), j = 0; j < k; j++)
            if (f->seen[s[j]] != f->stamp) {
                f->seen[s[j]] = f->stamp;
                f->parent[s[j]] = NONE;
                queue[tail++] = s[j];
            }
    }
    bool found = false;
    while (head < tail) {
        uint32_t v = queue[head++];
        if (v == b) {
            found = true;
            break;
        }
        uint32_t s[2];
        for (uint32_t k = successors(f, v, s), j = 0; j < k; j++)
            if (f->seen[s[j]] != f->stamp) {
                f->seen[s[j]] = f->stamp;
                f->parent[s[j]] = v;
                queue[tail++] = s[j];
            }
    }
    if (!found)
        return false;
    uint32_t c = 0;
    for (uint32_t v = f->parent[b]; v != NONE; v = f->parent[v])
        c++;
    uint32_t i = c;
    for (uint32_t v = f->parent[b]; v != NONE; v = f->parent[v])
        f->path[--i] = v;
    *count = c;
    return true;
}

bool sassflow_between(sassflow *f, uint32_t a, uint32_t b, uint32_t *count, const uint32_t **path)
{
    uint32_t ai = a == UINT32_MAX ? NONE : a / PC_BYTES, bi = b / PC_BYTES;
    if (bi >= f->n || (ai != NONE && ai >= f->n))
        return false;
    uint32_t h = (uint32_t)((((uint64_t)ai * 0x9e3779b1u) ^ bi) * 0x85ebca6bu) & (CACHE_SLOTS - 1u);
    for (uint32_t k = 0; k < CACHE_SLOTS; k++) {
        pair_slot *s = &f->cache[(h + k) & (CACHE_SLOTS - 1u)];
        if (s->b == NONE)
            break;
        if (s->a == ai && s->b == bi) {
            *count = s->count;
            *path = f->pool + s->first;
            return true;
        }
    }
    if (!search(f, ai, bi, count))
        return false;
    *path = f->path;
    /* remembered while there is room; past that, searched again each time */
    if (f->cached < CACHE_SLOTS * 3u / 4u && f->pooled + *count <= POOL_ENTRIES) {
        for (uint32_t k = 0;; k++) {
            pair_slot *s = &f->cache[(h + k) & (CACHE_SLOTS - 1u)];
            if (s->b == NONE) {
                *s = (pair_slot){.a = ai, .b = bi, .count = *count, .first = f->pooled};
                memcpy(f->pool + f->pooled, f->path, *count * sizeof *f->path);
                f->pooled += *count;
                f->cached++;
                *path = f->pool + s->first;
                break;
            }
        }
    }
    return true;
}

bool sassflow_blocks_barrier(const sassflow *f, uint32_t i)
{
    return f->insts[i].kind == INST_MEMORY || f->insts[i].constant;
}

uint32_t sassflow_entry_to_exit(sassflow *f)
{
    uint32_t best = UINT32_MAX;
    for (uint32_t i = 0; i < f->n; i++) {
        uint32_t count;
        if (f->insts[i].kind != INST_END || !f->insts[i].exit)
            continue;
        if (search(f, NONE, i, &count) && count < best)
            best = count;
    }
    return best;
}

const uint64_t *sassflow_reads(const sassflow *f, uint32_t i)
{
    return f->insts[i].reads;
}

uint8_t sassflow_writes(const sassflow *f, uint32_t i, uint8_t *count)
{
    const inst *in = &f->insts[i];
    *count = in->dst_n;
    return in->kind == INST_PLAIN ? in->dst : 255u;
}

uint32_t sassflow_reads32(const sassflow *f, uint32_t i)
{
    return f->insts[i].reads32;
}
