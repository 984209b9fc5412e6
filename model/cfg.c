/* cfg.c - GPU configs: the key table (cfg_keys.def), the INI loader (libinih),
 * validation of each value and of the geometry the values imply, the dump of
 * the effective config.
 *
 * Every cfg_gpu field is one key "section.key". A file names each required key
 * exactly once; unknown sections and keys, duplicates, malformed or
 * out-of-range values and inconsistent geometry are errors naming file:line
 * and the key. Keys with a default take it when the file does not set them.
 * Deliberately not supported: includes, overrides from the environment, or
 * silently fixing a value.
 *
 * Parsing is libinih's ini_parse_stream() over our own line reader. The reader
 * counts lines (the distribution's inih does not pass line numbers to the
 * handler), refuses what inih would silently misread (NUL and other control
 * bytes, lines longer than its buffer, which it would split into two lines),
 * and stops at the first error so the message kept is the first one. It also
 * classifies each line the way inih 55 does, to give syntax errors and unknown
 * or repeated sections a message of their own. */
#include "cfg.h"

#include <assert.h>
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include <ini.h>

#include "cache.h"
#include "coal.h"

/* A config is a few KiB; this only stops a wrong path (a trace, a device)
 * from being read to its end. */
#define CFG_FILE_MAX_BYTES (1u << 20)

/* What the model's tag arrays can hold (cache.h, coal.h): a 32-bit byte mask
 * per sector, and CACHE_MAX_SECTORS sector bits per line. */
#define CFG_MAX_SECTOR_BYTES 32u
#define CFG_MAX_SECTORS_PER_LINE \
    (CACHE_MAX_SECTORS < COAL_MAX_SECTORS_PER_LINE ? CACHE_MAX_SECTORS : COAL_MAX_SECTORS_PER_LINE)
/* Tag-array lines of all L1s together, and of the L2: each line costs the
 * model about 45 bytes, so these keep its state below ~400 MB per level
 * whatever the config claims (the H200: 270,336 L1 and 491,520 L2 lines). */
#define CFG_MAX_L1_LINES_TOTAL (1u << 23)
#define CFG_MAX_L2_LINES (1u << 23)

/* compute_capability bounds: major 1..99, minor 0..9 */
#define CFG_CC_MAJOR_MAX 99u
#define CFG_CC_MINOR_MAX 9u

typedef enum key_type {
    KEY_TYPE_UINT,
    KEY_TYPE_U64,
    KEY_TYPE_BOOL,
    KEY_TYPE_ENUM,
    KEY_TYPE_STRING,
    KEY_TYPE_VERSION,
    KEY_TYPE_LIST,
    KEY_TYPE_GPC_MAP,
    KEY_TYPE_COUNT
} key_type;

static const char *const key_type_names[KEY_TYPE_COUNT] = {
    "uint", "uint64", "bool", "enum", "string", "X.Y", "list of uint", "GPC map",
};

/* Enum value names, indexed by the C enum value. */
static const char *const cfg_set_index_names[] = {"linear", "xor", "masks", NULL};
static const char *const cfg_l2_placement_names[] = {"granule", "page", NULL};
static const char *const cfg_l1_global_loads_names[] = {"cache", "bypass", NULL};
static const char *const cfg_l1_stores_names[] = {"update", "invalidate", NULL};
static const char *const cfg_cta_placement_names[] = {"trace", "round_robin", NULL};

#define NAMES_COUNT(a) (sizeof(a) / sizeof((a)[0]) - 1)
_Static_assert(NAMES_COUNT(cfg_set_index_names) == CFG_INDEX_COUNT, "set_index names");
_Static_assert(NAMES_COUNT(cfg_l2_placement_names) == CFG_L2_PLACE_COUNT, "placement names");
_Static_assert(NAMES_COUNT(cfg_l1_global_loads_names) == CFG_L1_GLOBAL_COUNT, "global_loads names");
_Static_assert(NAMES_COUNT(cfg_l1_stores_names) == CFG_L1_STORES_COUNT, "stores names");
_Static_assert(NAMES_COUNT(cfg_cta_placement_names) == CFG_PLACE_COUNT, "cta_placement names");
/* Enum fields are read and written as unsigned through memcpy. */
_Static_assert(sizeof(cfg_set_index) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(cfg_l2_placement) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(cfg_l1_global_loads) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(cfg_l1_stores) == sizeof(unsigned), "enum size");
_Static_assert(sizeof(cfg_cta_placement) == sizeof(unsigned), "enum size");

typedef struct cfg_key {
    const char *section;      /* "l1" */
    const char *name;         /* "sets" */
    const char *full;         /* "l1.sets" */
    key_type type;
    const char *unit;         /* "" when unitless */
    uint64_t min, max;        /* UINT, U64; LIST: each element */
    const char *const *names; /* ENUM: value names, NULL-terminated */
    const char *def;          /* default, written as in a file; NULL = required */
    size_t offset;            /* the cfg_gpu field */
    size_t offset2;           /* VERSION: the minor field; LIST: the count field */
    const char *help;
} cfg_key;

#define REQUIRED NULL
#define KEY_ENTRY(sec, key, type, unit, lo, hi, names, def, off, off2, help) \
    {#sec, #key, #sec "." #key, type, unit, lo, hi, names, def, off, off2, help},
#define CFG_UINT(sec, key, field, unit, lo, hi, def, help) \
    KEY_ENTRY(sec, key, KEY_TYPE_UINT, unit, lo, hi, NULL, def, offsetof(cfg_gpu, field), 0, help)
#define CFG_U64(sec, key, field, unit, lo, hi, def, help) \
    KEY_ENTRY(sec, key, KEY_TYPE_U64, unit, lo, hi, NULL, def, offsetof(cfg_gpu, field), 0, help)
#define CFG_BOOL(sec, key, field, def, help) \
    KEY_ENTRY(sec, key, KEY_TYPE_BOOL, "", 0, 1, NULL, def, offsetof(cfg_gpu, field), 0, help)
#define CFG_ENUM(sec, key, field, names, def, help) \
    KEY_ENTRY(sec, key, KEY_TYPE_ENUM, "", 0, NAMES_COUNT(names) - 1, names, def, \
              offsetof(cfg_gpu, field), 0, help)
#define CFG_STRING(sec, key, field, def, help) \
    KEY_ENTRY(sec, key, KEY_TYPE_STRING, "", 1, CFG_NAME_BYTES - 1, NULL, def, \
              offsetof(cfg_gpu, field), 0, help)
#define CFG_VERSION(sec, key, major, minor, def, help) \
    KEY_ENTRY(sec, key, KEY_TYPE_VERSION, "", 0, 0, NULL, def, offsetof(cfg_gpu, major), \
              offsetof(cfg_gpu, minor), help)
#define CFG_LIST(sec, key, field, count, unit, lo, hi, def, help) \
    KEY_ENTRY(sec, key, KEY_TYPE_LIST, unit, lo, hi, NULL, def, offsetof(cfg_gpu, field), \
              offsetof(cfg_gpu, count), help)
#define CFG_GPC_MAP(sec, key, field, count, def, help) \
    KEY_ENTRY(sec, key, KEY_TYPE_GPC_MAP, "", 0, CFG_MAX_GPCS - 1, NULL, def, offsetof(cfg_gpu, field), \
              offsetof(cfg_gpu, count), help)

static const cfg_key keys[] = {
#include "cfg_keys.def"
};

#undef CFG_UINT
#undef CFG_U64
#undef CFG_BOOL
#undef CFG_ENUM
#undef CFG_STRING
#undef CFG_VERSION
#undef CFG_LIST
#undef CFG_GPC_MAP

/* KEY_l1_sets etc.: the index of each key in keys[], so the checks below name
 * keys by constant and a renamed key is a compile error. */
enum key_id {
#define CFG_UINT(sec, key, ...) KEY_##sec##_##key,
#define CFG_U64(sec, key, ...) KEY_##sec##_##key,
#define CFG_BOOL(sec, key, ...) KEY_##sec##_##key,
#define CFG_ENUM(sec, key, ...) KEY_##sec##_##key,
#define CFG_STRING(sec, key, ...) KEY_##sec##_##key,
#define CFG_VERSION(sec, key, ...) KEY_##sec##_##key,
#define CFG_LIST(sec, key, ...) KEY_##sec##_##key,
#define CFG_GPC_MAP(sec, key, ...) KEY_##sec##_##key,
#include "cfg_keys.def"
#undef CFG_UINT
#undef CFG_U64
#undef CFG_BOOL
#undef CFG_ENUM
#undef CFG_STRING
#undef CFG_VERSION
#undef CFG_LIST
#undef CFG_GPC_MAP
    KEY_COUNT
};
_Static_assert(sizeof keys / sizeof keys[0] == KEY_COUNT, "key table");

/* ---- field access (memcpy: the table holds offsets, not typed pointers) ---- */

static uint32_t get_u32(const cfg_gpu *c, size_t off)
{
    uint32_t v;
    memcpy(&v, (const char *)c + off, sizeof v);
    return v;
}

static void put_u32(cfg_gpu *c, size_t off, uint32_t v)
{
    memcpy((char *)c + off, &v, sizeof v);
}

static uint64_t get_u64(const cfg_gpu *c, size_t off)
{
    uint64_t v;
    memcpy(&v, (const char *)c + off, sizeof v);
    return v;
}

static void put_u64(cfg_gpu *c, size_t off, uint64_t v)
{
    memcpy((char *)c + off, &v, sizeof v);
}

static bool get_bool(const cfg_gpu *c, size_t off)
{
    bool v;
    memcpy(&v, (const char *)c + off, sizeof v);
    return v;
}

static void put_bool(cfg_gpu *c, size_t off, bool v)
{
    memcpy((char *)c + off, &v, sizeof v);
}

static unsigned get_enum(const cfg_gpu *c, size_t off)
{
    unsigned v;
    memcpy(&v, (const char *)c + off, sizeof v);
    return v;
}

static void put_enum(cfg_gpu *c, size_t off, unsigned v)
{
    memcpy((char *)c + off, &v, sizeof v);
}

static const char *get_str(const cfg_gpu *c, size_t off)
{
    return (const char *)c + off;
}

/* ---- text helpers ---- */

static bool is_pow2(uint64_t v)
{
    return v != 0 && (v & (v - 1)) == 0;
}

/* Append to buf[n] at *len, cutting at the end of the buffer. */
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static void append(char *buf, size_t n, size_t *len, const char *fmt, ...)
{
    if (*len >= n)
        return;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(buf + *len, n - *len, fmt, ap);
    va_end(ap);
    if (w > 0)
        *len = (size_t)w >= n - *len ? n : *len + (size_t)w;
}

/* Enum names joined by sep ("linear|xor") or as prose ("linear or xor"). */
static void join_names(const char *const *names, char *buf, size_t n, bool prose)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; names[i]; i++) {
        const char *sep = "";
        if (i > 0)
            sep = !prose ? "|" : names[i + 1] ? ", " : " or ";
        append(buf, n, &len, "%s%s", sep, names[i]);
    }
}

static bool string_char_ok(unsigned char ch)
{
    return ch >= 0x20 && ch <= 0x7e && ch != '#' && ch != ';' && ch != '"';
}

/* Strict unsigned decimal: one or more digits and nothing else. Returns 0,
 * -1 when s is not such a number, 1 when it does not fit 64 bits. */
static int parse_decimal(const char *s, size_t len, uint64_t *out)
{
    if (len == 0)
        return -1;
    uint64_t v = 0;
    int overflow = 0;
    for (size_t i = 0; i < len; i++) {
        if (s[i] < '0' || s[i] > '9')
            return -1;
        unsigned d = (unsigned)(s[i] - '0');
        if (v > (UINT64_MAX - d) / 10)
            overflow = 1;
        else
            v = v * 10 + d;
    }
    *out = v;
    return overflow;
}

/* A GPC map's digits: 0-9 then a-z. */
static int gpc_digit(char ch)
{
    if (ch >= '0' && ch <= '9')
        return ch - '0';
    if (ch >= 'a' && ch <= 'z')
        return 10 + (ch - 'a');
    return -1;
}

static char gpc_char(unsigned g)
{
    return (char)(g < 10 ? '0' + g : 'a' + (g - 10));
}

/* ---- per-key values: parse from text, check, format ---- */

void cfg_key_bounds(size_t i, char *buf, size_t n)
{
    assert(i < KEY_COUNT);
    const cfg_key *k = &keys[i];
    if (n == 0)
        return;
    switch (k->type) {
    case KEY_TYPE_UINT:
    case KEY_TYPE_U64:
        if (k->min == k->max)
            snprintf(buf, n, "%" PRIu64, k->min);
        else
            snprintf(buf, n, "%" PRIu64 "..%" PRIu64, k->min, k->max);
        break;
    case KEY_TYPE_BOOL:
        snprintf(buf, n, "true|false");
        break;
    case KEY_TYPE_ENUM:
        join_names(k->names, buf, n, false);
        break;
    case KEY_TYPE_STRING:
        snprintf(buf, n, "%" PRIu64 "..%" PRIu64 " characters", k->min, k->max);
        break;
    case KEY_TYPE_VERSION:
        snprintf(buf, n, "1.0..%u.%u", CFG_CC_MAJOR_MAX, CFG_CC_MINOR_MAX);
        break;
    case KEY_TYPE_LIST:
        snprintf(buf, n, "1..%d values, each %" PRIu64 "..%" PRIu64, CFG_MAX_CARVEOUTS, k->min,
                 k->max);
        break;
    case KEY_TYPE_GPC_MAP:
        snprintf(buf, n, "none, or one GPC digit 0-9/a-z per SM (spaces between groups allowed)");
        break;
    case KEY_TYPE_COUNT:
        assert(0);
        break;
    }
}

/* What a string value must look like, for messages. */
static void string_expectation(const cfg_key *k, char *buf, size_t n)
{
    snprintf(buf, n,
             "%" PRIu64 "..%" PRIu64 " printable ASCII characters other than '#', ';' and '\"'",
             k->min, k->max);
}

/* Parse value v (as inih handed it: trimmed, inline comment removed) into the
 * field of key k. Returns 0, or -1 with why = "expected ..., got ...". */
static int set_value(const cfg_key *k, const char *v, cfg_gpu *c, char *why, size_t n)
{
    char bounds[128];
    cfg_key_bounds((size_t)(k - keys), bounds, sizeof bounds);
    uint64_t u = 0;
    switch (k->type) {
    case KEY_TYPE_UINT:
    case KEY_TYPE_U64: {
        int r = parse_decimal(v, strlen(v), &u);
        if (r < 0) {
            snprintf(why, n, "expected an unsigned decimal integer, got \"%s\"", v);
            return -1;
        }
        if (r > 0 || u < k->min || u > k->max) {
            snprintf(why, n, "expected %s, got %s", bounds, v);
            return -1;
        }
        if (k->type == KEY_TYPE_UINT)
            put_u32(c, k->offset, (uint32_t)u);
        else
            put_u64(c, k->offset, u);
        return 0;
    }
    case KEY_TYPE_BOOL:
        if (strcmp(v, "true") == 0 || strcmp(v, "false") == 0) {
            put_bool(c, k->offset, v[0] == 't');
            return 0;
        }
        snprintf(why, n, "expected true or false, got \"%s\"", v);
        return -1;
    case KEY_TYPE_ENUM:
        for (unsigned e = 0; k->names[e]; e++) {
            if (strcmp(v, k->names[e]) == 0) {
                put_enum(c, k->offset, e);
                return 0;
            }
        }
        join_names(k->names, bounds, sizeof bounds, true);
        snprintf(why, n, "expected %s, got \"%s\"", bounds, v);
        return -1;
    case KEY_TYPE_STRING: {
        size_t len = strlen(v);
        bool ok = len >= k->min && len <= k->max;
        for (size_t i = 0; ok && i < len; i++)
            ok = string_char_ok((unsigned char)v[i]);
        if (!ok) {
            string_expectation(k, bounds, sizeof bounds);
            snprintf(why, n, "expected %s, got \"%s\"", bounds, v);
            return -1;
        }
        memcpy((char *)c + k->offset, v, len + 1);
        return 0;
    }
    case KEY_TYPE_VERSION: {
        const char *dot = strchr(v, '.');
        uint64_t major = 0, minor = 0;
        if (!dot || parse_decimal(v, (size_t)(dot - v), &major) < 0 ||
            parse_decimal(dot + 1, strlen(dot + 1), &minor) < 0) {
            snprintf(why, n, "expected X.Y, e.g. 9.0, got \"%s\"", v);
            return -1;
        }
        if (major < 1 || major > CFG_CC_MAJOR_MAX || minor > CFG_CC_MINOR_MAX) {
            snprintf(why, n, "expected %s (major 1..%u, minor 0..%u), got %s", bounds,
                     CFG_CC_MAJOR_MAX, CFG_CC_MINOR_MAX, v);
            return -1;
        }
        put_u32(c, k->offset, (uint32_t)major);
        put_u32(c, k->offset2, (uint32_t)minor);
        return 0;
    }
    case KEY_TYPE_LIST: {
        uint32_t vals[CFG_MAX_CARVEOUTS];
        uint32_t count = 0;
        const char *p = v;
        for (;;) {
            while (*p == ' ' || *p == '\t')
                p++;
            size_t len = strcspn(p, ",");
            size_t end = len;
            while (end > 0 && (p[end - 1] == ' ' || p[end - 1] == '\t'))
                end--;
            int r = parse_decimal(p, end, &u);
            if (r < 0) {
                snprintf(why, n,
                         "expected a comma-separated list of unsigned decimal integers, got \"%s\"",
                         v);
                return -1;
            }
            if (r > 0 || u < k->min || u > k->max) {
                snprintf(why, n, "expected each value in %" PRIu64 "..%" PRIu64 ", got %.*s",
                         k->min, k->max, (int)end, p);
                return -1;
            }
            if (count == CFG_MAX_CARVEOUTS) {
                size_t more = 1;
                for (const char *q = p; *q; q++)
                    more += *q == ',';
                snprintf(why, n, "expected 1..%d values, got %zu", CFG_MAX_CARVEOUTS,
                         (size_t)count + more);
                return -1;
            }
            vals[count++] = (uint32_t)u;
            if (p[len] == '\0')
                break;
            p += len + 1;
        }
        memcpy((char *)c + k->offset, vals, count * sizeof vals[0]);
        put_u32(c, k->offset2, count);
        return 0;
    }
    case KEY_TYPE_GPC_MAP: {
        uint8_t *map = (uint8_t *)c + k->offset;
        if (strcmp(v, "none") == 0) {
            put_u32(c, k->offset2, 0);
            return 0;
        }
        uint32_t count = 0;
        for (const char *p = v; *p; p++) {
            if (*p == ' ' || *p == '\t')
                continue;
            int g = gpc_digit(*p);
            if (g < 0) {
                snprintf(why, n, "expected %s, got '%c' at position %zu", bounds, *p, (size_t)(p - v) + 1);
                return -1;
            }
            if (count == CFG_MAX_SMS) {
                snprintf(why, n, "expected at most %d SMs, got more", CFG_MAX_SMS);
                return -1;
            }
            map[count++] = (uint8_t)g;
        }
        if (count == 0) {
            snprintf(why, n, "expected %s, got \"%s\"", bounds, v);
            return -1;
        }
        put_u32(c, k->offset2, count);
        return 0;
    }
    case KEY_TYPE_COUNT:
        break;
    }
    assert(0);
    return -1;
}

/* Check the value of key k in c against its bounds (for a struct filled by
 * hand; a loaded one passed these when parsed). Returns 0 or -1 with why. */
static int check_value(const cfg_key *k, const cfg_gpu *c, char *why, size_t n)
{
    char bounds[128];
    cfg_key_bounds((size_t)(k - keys), bounds, sizeof bounds);
    switch (k->type) {
    case KEY_TYPE_UINT:
    case KEY_TYPE_U64: {
        uint64_t v = k->type == KEY_TYPE_UINT ? get_u32(c, k->offset) : get_u64(c, k->offset);
        if (v < k->min || v > k->max) {
            snprintf(why, n, "expected %s, got %" PRIu64, bounds, v);
            return -1;
        }
        return 0;
    }
    case KEY_TYPE_BOOL:
        return 0;
    case KEY_TYPE_ENUM: {
        unsigned v = get_enum(c, k->offset);
        if (v > k->max) {
            join_names(k->names, bounds, sizeof bounds, true);
            snprintf(why, n, "expected %s, got enum value %u", bounds, v);
            return -1;
        }
        return 0;
    }
    case KEY_TYPE_STRING: {
        const char *s = get_str(c, k->offset);
        const char *nul = memchr(s, '\0', CFG_NAME_BYTES);
        size_t len = nul ? (size_t)(nul - s) : CFG_NAME_BYTES;
        bool ok = nul && len >= k->min && len <= k->max;
        for (size_t i = 0; ok && i < len; i++)
            ok = string_char_ok((unsigned char)s[i]);
        if (!ok) {
            string_expectation(k, bounds, sizeof bounds);
            snprintf(why, n, "expected %s, got %s", bounds,
                     nul ? "other characters" : "no terminating NUL");
            return -1;
        }
        return 0;
    }
    case KEY_TYPE_VERSION: {
        uint32_t major = get_u32(c, k->offset), minor = get_u32(c, k->offset2);
        if (major < 1 || major > CFG_CC_MAJOR_MAX || minor > CFG_CC_MINOR_MAX) {
            snprintf(why, n, "expected %s, got %u.%u", bounds, major, minor);
            return -1;
        }
        return 0;
    }
    case KEY_TYPE_LIST: {
        uint32_t count = get_u32(c, k->offset2);
        if (count < 1 || count > CFG_MAX_CARVEOUTS) {
            snprintf(why, n, "expected 1..%d values, got %u", CFG_MAX_CARVEOUTS, count);
            return -1;
        }
        for (uint32_t j = 0; j < count; j++) {
            uint32_t v = get_u32(c, k->offset + j * sizeof(uint32_t));
            if (v < k->min || v > k->max) {
                snprintf(why, n, "expected each value in %" PRIu64 "..%" PRIu64 ", got %u",
                         k->min, k->max, v);
                return -1;
            }
        }
        return 0;
    }
    case KEY_TYPE_GPC_MAP: {
        uint32_t count = get_u32(c, k->offset2);
        const uint8_t *map = (const uint8_t *)c + k->offset;
        if (count > CFG_MAX_SMS) {
            snprintf(why, n, "expected at most %d SMs, got %u", CFG_MAX_SMS, count);
            return -1;
        }
        for (uint32_t j = 0; j < count; j++) {
            if (map[j] > k->max) {
                snprintf(why, n, "expected GPCs 0..%" PRIu64 ", got %u for SM %u", k->max, map[j], j);
                return -1;
            }
        }
        return 0;
    }
    case KEY_TYPE_COUNT:
        break;
    }
    assert(0);
    return -1;
}

void cfg_key_value(const cfg_gpu *c, size_t i, char *buf, size_t n)
{
    assert(i < KEY_COUNT);
    const cfg_key *k = &keys[i];
    if (n == 0)
        return;
    switch (k->type) {
    case KEY_TYPE_UINT:
        snprintf(buf, n, "%" PRIu32, get_u32(c, k->offset));
        break;
    case KEY_TYPE_U64:
        snprintf(buf, n, "%" PRIu64, get_u64(c, k->offset));
        break;
    case KEY_TYPE_BOOL:
        snprintf(buf, n, "%s", get_bool(c, k->offset) ? "true" : "false");
        break;
    case KEY_TYPE_ENUM: {
        unsigned v = get_enum(c, k->offset);
        if (v <= k->max)
            snprintf(buf, n, "%s", k->names[v]);
        else
            snprintf(buf, n, "<bad enum value %u>", v);
        break;
    }
    case KEY_TYPE_STRING:
        snprintf(buf, n, "%.*s", CFG_NAME_BYTES - 1, get_str(c, k->offset));
        break;
    case KEY_TYPE_VERSION:
        snprintf(buf, n, "%" PRIu32 ".%" PRIu32, get_u32(c, k->offset), get_u32(c, k->offset2));
        break;
    case KEY_TYPE_LIST: {
        uint32_t count = get_u32(c, k->offset2);
        if (count > CFG_MAX_CARVEOUTS)
            count = CFG_MAX_CARVEOUTS;
        size_t len = 0;
        buf[0] = '\0';
        for (uint32_t j = 0; j < count; j++)
            append(buf, n, &len, "%s%" PRIu32, j ? "," : "",
                   get_u32(c, k->offset + j * sizeof(uint32_t)));
        break;
    }
    case KEY_TYPE_GPC_MAP: {
        uint32_t count = get_u32(c, k->offset2);
        const uint8_t *map = (const uint8_t *)c + k->offset;
        size_t len = 0;
        buf[0] = '\0';
        if (count == 0)
            append(buf, n, &len, "none");
        for (uint32_t j = 0; j < count && j < CFG_MAX_SMS; j++)
            append(buf, n, &len, "%s%c", j && j % 16 == 0 ? " " : "", gpc_char(map[j]));
        break;
    }
    case KEY_TYPE_COUNT:
        assert(0);
        break;
    }
}

/* ---- the key table, public view ---- */

size_t cfg_key_count(void)
{
    return KEY_COUNT;
}

const char *cfg_key_name(size_t i)
{
    assert(i < KEY_COUNT);
    return keys[i].full;
}

const char *cfg_key_unit(size_t i)
{
    assert(i < KEY_COUNT);
    return keys[i].unit;
}

const char *cfg_key_help(size_t i)
{
    assert(i < KEY_COUNT);
    return keys[i].help;
}

const char *cfg_key_default(size_t i)
{
    assert(i < KEY_COUNT);
    return keys[i].def;
}

const char *cfg_key_type(size_t i)
{
    assert(i < KEY_COUNT);
    return key_type_names[keys[i].type];
}

/* ---- validation ---- */

/* Where a config came from, for messages: the file and the line that set
 * each key (0: the key took its default). path NULL: filled by hand. */
typedef struct cfg_origin {
    const char *path;
    const uint32_t *lines; /* [KEY_COUNT] */
} cfg_origin;

static int key_fail(err_info *err, const cfg_origin *o, enum key_id id, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
static int key_fail(err_info *err, const cfg_origin *o, enum key_id id, const char *fmt, ...)
{
    char msg[ERR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    const cfg_key *k = &keys[id];
    if (!o || !o->path)
        err_set(err, "[%s] %s: %s", k->section, k->name, msg);
    else if (o->lines[id])
        err_set(err, "%s:%" PRIu32 ": [%s] %s: %s", o->path, o->lines[id], k->section, k->name,
                msg);
    else
        err_set(err, "%s: [%s] %s (not set, default %s): %s", o->path, k->section, k->name,
                k->def ? k->def : "none", msg);
    return -1;
}

/* A curve of two lists (points x and values y, linear between them): as many
 * values as points, the points ascending ("expected ascending WHAT"). */
static int check_curve(err_info *err, const cfg_origin *o, enum key_id xk, const uint32_t *x, uint32_t nx,
                       enum key_id yk, uint32_t ny, const char *what)
{
    if (ny != nx)
        return key_fail(err, o, yk, "expected as many values as %s.%s (%" PRIu32 "), got %" PRIu32,
                        keys[xk].section, keys[xk].name, nx, ny);
    for (uint32_t i = 1; i < nx; i++)
        if (x[i] <= x[i - 1])
            return key_fail(err, o, xk, "expected ascending %s, got %" PRIu32 " after %" PRIu32, what, x[i],
                            x[i - 1]);
    return 0;
}

/* line_bytes / sector_bytes of one cache level. */
static int check_line_sector(const cfg_gpu *c, const cfg_origin *o, err_info *err,
                             enum key_id line_id, enum key_id sector_id, const char *level)
{
    uint32_t line = get_u32(c, keys[line_id].offset);
    uint32_t sector = get_u32(c, keys[sector_id].offset);
    if (!is_pow2(sector))
        return key_fail(err, o, sector_id, "expected a power of two, got %" PRIu32, sector);
    if (line % sector != 0)
        return key_fail(err, o, line_id, "expected a multiple of %s.sector_bytes (%" PRIu32
                        "), got %" PRIu32, level, sector, line);
    uint32_t per_line = line / sector;
    if (per_line != 1 && per_line != 2 && per_line != 4 && per_line != 8)
        return key_fail(err, o, line_id,
                        "expected 1, 2, 4 or 8 sectors of %s.sector_bytes (%" PRIu32
                        ") per line (the model keeps a sector mask per line), got %" PRIu32
                        " sectors",
                        level, sector, per_line);
    if (sector > CFG_MAX_SECTOR_BYTES)
        return key_fail(err, o, sector_id,
                        "expected at most %u (the model keeps a 32-bit byte mask per sector), "
                        "got %" PRIu32, CFG_MAX_SECTOR_BYTES, sector);
    if (per_line > CFG_MAX_SECTORS_PER_LINE)
        return key_fail(err, o, line_id,
                        "expected at most %u sectors of %s.sector_bytes (%" PRIu32
                        ") per line (the model's tag arrays keep %u sector bits per line), got %"
                        PRIu32 " sectors",
                        CFG_MAX_SECTORS_PER_LINE, level, sector, CFG_MAX_SECTORS_PER_LINE, per_line);
    return 0;
}

static int check_l1_and_shared(const cfg_gpu *c, const cfg_origin *o, err_info *err)
{
    if (check_line_sector(c, o, err, KEY_l1_line_bytes, KEY_l1_sector_bytes, "l1"))
        return -1;
    if (!is_pow2(c->l1_sets))
        return key_fail(err, o, KEY_l1_sets, "expected a power of two, got %" PRIu32, c->l1_sets);
    if (c->l1_ways && (uint64_t)c->l1_sets * c->l1_ways > 65535u)
        return key_fail(err, o, KEY_l1_ways,
                        "expected l1.sets * ways at most 65535 (the model numbers the tags in "
                        "16 bits), got %" PRIu32 " * %" PRIu32,
                        c->l1_sets, c->l1_ways);
    if (c->l1_set_index == CFG_INDEX_MASKS)
        for (uint32_t i = 0; i < c->n_l1_set_masks; i++)
            if (c->l1_set_masks[i] >= c->l1_sets)
                return key_fail(err, o, KEY_l1_set_masks,
                                "expected each mask below l1.sets (%" PRIu32 "), got %" PRIu32,
                                c->l1_sets, c->l1_set_masks[i]);

    if (c->smem_bank_bytes != 4 && c->smem_bank_bytes != 8)
        return key_fail(err, o, KEY_shared_bank_bytes, "expected 4 or 8, got %" PRIu32,
                        c->smem_bank_bytes);
    if (c->smem_bank_mode_bytes != 4 && c->smem_bank_mode_bytes != 8)
        return key_fail(err, o, KEY_shared_bank_mode_bytes, "expected 4 or 8, got %" PRIu32,
                        c->smem_bank_mode_bytes);
    if (c->smem_bank_mode_bytes > c->smem_bank_bytes)
        return key_fail(err, o, KEY_shared_bank_mode_bytes,
                        "expected 4 with shared.bank_bytes = %" PRIu32
                        " (8-byte mode needs 8-byte banks), got %" PRIu32,
                        c->smem_bank_bytes, c->smem_bank_mode_bytes);

    /* Each carveout leaves L1 (unified - carveout) KiB, which must hold a
     * whole number of ways of sets * line bytes, and at least one. */
    uint64_t way_bytes = (uint64_t)c->l1_sets * c->l1_line_bytes;
    for (uint32_t j = 0; j < c->n_carveouts; j++) {
        uint32_t kib = c->carveout_kib[j];
        if (j > 0 && kib <= c->carveout_kib[j - 1])
            return key_fail(err, o, KEY_shared_carveouts_kib,
                            "expected ascending values, got %" PRIu32 " after %" PRIu32, kib,
                            c->carveout_kib[j - 1]);
        if (kib >= c->l1_unified_kib)
            return key_fail(err, o, KEY_shared_carveouts_kib,
                            "expected each value below l1.unified_kib (%" PRIu32
                            ") so that L1 keeps some capacity, got %" PRIu32,
                            c->l1_unified_kib, kib);
        uint64_t l1_bytes = (uint64_t)(c->l1_unified_kib - kib) * 1024;
        if (!c->l1_ways && l1_bytes % way_bytes != 0)
            return key_fail(err, o, KEY_l1_sets,
                            "expected the L1 capacity of every carveout to be a whole number of "
                            "ways of sets * l1.line_bytes = %" PRIu64 " bytes, got %" PRIu32
                            " sets: the %" PRIu32 " KiB carveout leaves %" PRIu32 " KiB",
                            way_bytes, c->l1_sets, kib, c->l1_unified_kib - kib);
    }
    uint64_t l1_lines = (uint64_t)c->sm_count * c->l1_unified_kib * 1024u / c->l1_line_bytes;
    if (l1_lines > CFG_MAX_L1_LINES_TOTAL)
        return key_fail(err, o, KEY_l1_unified_kib,
                        "expected gpu.sm_count * l1.unified_kib KiB / l1.line_bytes = %" PRIu32
                        " * %" PRIu32 " KiB / %" PRIu32 " to be at most %u tag lines (the "
                        "model's memory bound), got %" PRIu64,
                        c->sm_count, c->l1_unified_kib, c->l1_line_bytes, CFG_MAX_L1_LINES_TOTAL,
                        l1_lines);
    /* the tag arrays' way numbers and LRU links are one byte (cache_int.h) */
    uint64_t l1_ways = c->l1_ways ? c->l1_ways : (uint64_t)c->l1_unified_kib * 1024u / way_bytes;
    if (l1_ways > CACHE_MAX_WAYS)
        return key_fail(err, o, KEY_l1_sets,
                        "expected at most %u ways per set, l1.unified_kib KiB / (sets * "
                        "l1.line_bytes) = %" PRIu32 " KiB / (%" PRIu32 " * %" PRIu32
                        ") (the model's way numbers are one byte): more sets, got %" PRIu64
                        " ways",
                        CACHE_MAX_WAYS, c->l1_unified_kib, c->l1_sets, c->l1_line_bytes,
                        l1_ways);
    uint32_t largest = c->carveout_kib[c->n_carveouts - 1];
    if (c->smem_reserved_per_cta_bytes > (uint64_t)largest * 1024)
        return key_fail(err, o, KEY_shared_reserved_per_cta_bytes,
                        "expected at most the largest carveout (%" PRIu32 " KiB), got %" PRIu32,
                        largest, c->smem_reserved_per_cta_bytes);
    return 0;
}

static int check_l2(const cfg_gpu *c, const cfg_origin *o, err_info *err)
{
    if (check_line_sector(c, o, err, KEY_l2_line_bytes, KEY_l2_sector_bytes, "l2"))
        return -1;
    if (c->l2_set_index == CFG_INDEX_MASKS)
        return key_fail(err, o, KEY_l2_set_index, "expected linear or xor (masks is the L1's), got masks");
    if (!is_pow2(c->l2_sets_per_slice))
        return key_fail(err, o, KEY_l2_sets_per_slice, "expected a power of two, got %" PRIu32,
                        c->l2_sets_per_slice);
    if (c->l2_slices % c->l2_partitions != 0)
        return key_fail(err, o, KEY_l2_slices,
                        "expected a multiple of l2.partitions (%" PRIu32 "), got %" PRIu32,
                        c->l2_partitions, c->l2_slices);
    /* bounds keep this product below 2^42 */
    uint64_t product = (uint64_t)c->l2_slices * c->l2_sets_per_slice * c->l2_ways *
                       c->l2_line_bytes;
    if (c->l2_size_bytes != product)
        return key_fail(err, o, KEY_l2_size_bytes,
                        "expected l2.slices * l2.sets_per_slice * l2.ways * l2.line_bytes = %" PRIu32
                        " * %" PRIu32 " * %" PRIu32 " * %" PRIu32 " = %" PRIu64 ", got %" PRIu64,
                        c->l2_slices, c->l2_sets_per_slice, c->l2_ways, c->l2_line_bytes, product,
                        c->l2_size_bytes);
    if (c->l2_size_bytes / c->l2_line_bytes > CFG_MAX_L2_LINES)
        return key_fail(err, o, KEY_l2_size_bytes,
                        "expected at most %u lines of l2.line_bytes (%" PRIu32 ") = %" PRIu64
                        " bytes (the model's memory bound), got %" PRIu64, CFG_MAX_L2_LINES,
                        c->l2_line_bytes, (uint64_t)CFG_MAX_L2_LINES * c->l2_line_bytes,
                        c->l2_size_bytes);
    if (c->l2_placement == CFG_L2_PLACE_PAGE && c->l2_sets_per_slice < CFG_L2_GRANULE_LINES)
        return key_fail(err, o, KEY_l2_placement,
                        "expected l2.sets_per_slice of at least %u (a granule's lines on distinct sets) "
                        "with page, got %" PRIu32, CFG_L2_GRANULE_LINES, c->l2_sets_per_slice);
    if (c->l2_dirty_recent_ways > c->l2_ways)
        return key_fail(err, o, KEY_l2_dirty_recent_ways, "expected at most l2.ways (%" PRIu32 "), got %" PRIu32,
                        c->l2_ways, c->l2_dirty_recent_ways);
    if (c->l2_dirty_ways > c->l2_ways)
        return key_fail(err, o, KEY_l2_dirty_ways, "expected at most l2.ways (%" PRIu32 "), got %" PRIu32,
                        c->l2_ways, c->l2_dirty_ways);
    uint32_t sectors = c->l2_line_bytes / c->l2_sector_bytes;
    if (!is_pow2(c->l2_fetch_sectors) || c->l2_fetch_sectors > sectors)
        return key_fail(err, o, KEY_l2_fetch_sectors,
                        "expected a power of two of at most the sectors of a line (%" PRIu32 "), got %" PRIu32,
                        sectors, c->l2_fetch_sectors);
    /* the model moves whole lines and sectors between L1 and L2 */
    if (c->l2_line_bytes != c->l1_line_bytes)
        return key_fail(err, o, KEY_l2_line_bytes,
                        "expected l1.line_bytes (%" PRIu32 "): the model moves whole lines "
                        "between L1 and L2, got %" PRIu32, c->l1_line_bytes, c->l2_line_bytes);
    if (c->l2_sector_bytes != c->l1_sector_bytes)
        return key_fail(err, o, KEY_l2_sector_bytes,
                        "expected l1.sector_bytes (%" PRIu32 "): the model moves whole sectors "
                        "between L1 and L2, got %" PRIu32, c->l1_sector_bytes,
                        c->l2_sector_bytes);
    return 0;
}

static int check_config(const cfg_gpu *c, const cfg_origin *o, err_info *err)
{
    char why[ERR_MSG_BYTES / 2];
    for (size_t i = 0; i < KEY_COUNT; i++)
        if ((c->timing || !cfg_key_is_timing(i)) && check_value(&keys[i], c, why, sizeof why))
            return key_fail(err, o, (enum key_id)i, "%s", why);
    if (c->max_threads_per_sm % 32 != 0)
        return key_fail(err, o, KEY_gpu_max_threads_per_sm,
                        "expected a multiple of the warp size 32, got %" PRIu32,
                        c->max_threads_per_sm);
    if (check_l1_and_shared(c, o, err) || check_l2(c, o, err))
        return -1;
    if (c->n_sm_gpc != 0 && c->n_sm_gpc != c->sm_count)
        return key_fail(err, o, KEY_gpu_sm_gpc,
                        "expected one GPC per SM, gpu.sm_count = %" PRIu32 ", got %" PRIu32,
                        c->sm_count, c->n_sm_gpc);
    if (c->l2_n_gpc_partition != 0) {
        if (c->n_sm_gpc == 0)
            return key_fail(err, o, KEY_l2_gpc_partition, "expected gpu.sm_gpc as well (a GPC map)");
        for (uint32_t s = 0; s < c->n_sm_gpc; s++)
            if (c->sm_gpc[s] >= c->l2_n_gpc_partition)
                return key_fail(err, o, KEY_l2_gpc_partition,
                                "expected a partition for every GPC of gpu.sm_gpc, got %" PRIu32
                                " (SM %" PRIu32 " is in GPC %u)",
                                c->l2_n_gpc_partition, s, (unsigned)c->sm_gpc[s]);
        for (uint32_t g = 0; g < c->l2_n_gpc_partition; g++)
            if (c->l2_gpc_partition[g] >= c->l2_partitions)
                return key_fail(err, o, KEY_l2_gpc_partition,
                                "expected partitions below l2.partitions = %" PRIu32
                                ", got %u for GPC %" PRIu32,
                                c->l2_partitions, (unsigned)c->l2_gpc_partition[g], g);
    }
    if (c->timing) {
        int r = check_curve(err, o, KEY_timing_code_jump_lines, c->t_code_jump_lines, c->n_t_code_jump_lines,
                            KEY_timing_code_jump_cycles, c->n_t_code_jump_cycles, "distances");
        if (r == 0)
            r = check_curve(err, o, KEY_timing_dram_load_permille, c->t_dram_load_permille,
                            c->n_t_dram_load_permille, KEY_timing_dram_load_extra_cycles,
                            c->n_t_dram_load_extra_cycles, "loads");
        if (r)
            return r;
    }
    return 0;
}

uint32_t cfg_partition_of_sm(const cfg_gpu *c, uint32_t sm)
{
    if (c->l2_n_gpc_partition != 0 && sm < c->n_sm_gpc)
        return c->l2_gpc_partition[c->sm_gpc[sm]];
    return sm % c->l2_partitions;
}

int cfg_validate(const cfg_gpu *c, err_info *err)
{
    return check_config(c, NULL, err);
}

uint32_t cfg_l2_slices_per_partition(const cfg_gpu *c)
{
    assert(c->l2_partitions > 0);
    return c->l2_slices / c->l2_partitions;
}

/* ---- loading ---- */

typedef struct load_ctx {
    const char *path;
    FILE *f;
    cfg_gpu *c;
    err_info *err;
    bool failed;               /* the first error is in err; read no further */
    uint32_t lineno;           /* lines handed to inih so far */
    uint64_t bytes;            /* bytes read so far */
    bool prev_key;             /* inih would continue the last key on an indented line */
    bool continuation;         /* the current line is such a continuation */
    uint32_t lines[KEY_COUNT]; /* the line that set each key; 0 = not set */
    uint32_t section_line[KEY_COUNT]; /* by a section's first key: its header's line */
} load_ctx;

static int load_fail(load_ctx *x, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static int load_fail(load_ctx *x, const char *fmt, ...)
{
    char msg[ERR_MSG_BYTES];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(msg, sizeof msg, fmt, ap);
    va_end(ap);
    err_set(x->err, "%s:%" PRIu32 ": %s", x->path, x->lineno, msg);
    x->failed = true;
    return 0; /* as an inih handler: stop with this line */
}

static bool same_section(size_t i, size_t j)
{
    return strcmp(keys[i].section, keys[j].section) == 0;
}

/* The first key of section name[0..len), or -1. */
static int find_section(const char *name, size_t len)
{
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (strlen(keys[i].section) == len && memcmp(keys[i].section, name, len) == 0)
            return (int)i;
    return -1;
}

static int find_key(int first, const char *name)
{
    for (size_t i = (size_t)first; i < KEY_COUNT && same_section(i, (size_t)first); i++)
        if (strcmp(keys[i].name, name) == 0)
            return (int)i;
    return -1;
}

static void section_list(char *buf, size_t n)
{
    size_t len = 0;
    buf[0] = '\0';
    for (size_t i = 0; i < KEY_COUNT; i++) {
        if (i > 0 && same_section(i, i - 1))
            continue;
        bool last = true;
        for (size_t j = i + 1; j < KEY_COUNT; j++)
            last = last && same_section(j, i);
        append(buf, n, &len, "%s[%s]", i == 0 ? "" : last ? " or " : ", ", keys[i].section);
    }
}

static char lower(char ch)
{
    return ch >= 'A' && ch <= 'Z' ? (char)(ch - 'A' + 'a') : ch;
}

/* Edit distance of two short names, ignoring case (inih keeps names below
 * 50 bytes). */
static size_t edit_distance(const char *a, const char *b)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la > 63 || lb > 63)
        return SIZE_MAX;
    size_t row[64];
    for (size_t j = 0; j <= lb; j++)
        row[j] = j;
    for (size_t i = 1; i <= la; i++) {
        size_t diag = row[0];
        row[0] = i;
        for (size_t j = 1; j <= lb; j++) {
            size_t up = row[j];
            size_t best = diag + (lower(a[i - 1]) != lower(b[j - 1]));
            if (up + 1 < best)
                best = up + 1;
            if (row[j - 1] + 1 < best)
                best = row[j - 1] + 1;
            row[j] = best;
            diag = up;
        }
    }
    return row[lb];
}

static int unknown_key(load_ctx *x, int first, const char *name)
{
    char list[512];
    size_t len = 0;
    int best = -1;
    size_t best_d = 3; /* suggest only names within two edits */
    list[0] = '\0';
    for (size_t i = (size_t)first; i < KEY_COUNT && same_section(i, (size_t)first); i++) {
        append(list, sizeof list, &len, "%s%s", i == (size_t)first ? "" : ", ", keys[i].name);
        size_t d = edit_distance(name, keys[i].name);
        if (d < best_d) {
            best_d = d;
            best = (int)i;
        }
    }
    char hint[128] = "";
    for (size_t i = 0; i < KEY_COUNT && !hint[0]; i++)
        if (strcmp(keys[i].name, name) == 0)
            snprintf(hint, sizeof hint, "; %s is a key of [%s]", name, keys[i].section);
    if (!hint[0] && best >= 0)
        snprintf(hint, sizeof hint, "; did you mean %s?", keys[best].name);
    return load_fail(x, "[%s] %s: unknown key, expected one of %s%s", keys[first].section, name,
                     list, hint);
}

/* inih handler: one key = value. Returns 0 to make inih report this line. */
static int on_key(void *user, const char *section, const char *name, const char *value)
{
    load_ctx *x = user;
    if (x->failed)
        return 1;
    char list[128];
    if (section[0] == '\0') {
        section_list(list, sizeof list);
        return load_fail(x, "%s: key before any section, expected a section line first: %s", name,
                         list);
    }
    int first = find_section(section, strlen(section));
    if (first < 0) { /* the reader refuses unknown sections; inih cuts long names */
        section_list(list, sizeof list);
        return load_fail(x, "[%s]: unknown section, expected %s", section, list);
    }
    int i = find_key(first, name);
    if (i < 0)
        return unknown_key(x, first, name);
    const cfg_key *k = &keys[i];
    if (x->lines[i])
        return load_fail(x, "[%s] %s: duplicate key, already set on line %" PRIu32 "%s",
                         k->section, k->name, x->lines[i],
                         x->continuation
                             ? " (an indented line continues the previous key's value)"
                             : "");
    char why[ERR_MSG_BYTES / 2];
    if (set_value(k, value, x->c, why, sizeof why))
        return load_fail(x, "[%s] %s: %s", k->section, k->name, why);
    x->lines[i] = x->lineno;
    return 1;
}

/* inih's find_chars_or_comment(): the first of chars, or an inline ';'
 * comment (a ';' after whitespace), or the end. */
static const char *find_chars_or_comment(const char *s, const char *chars)
{
    bool was_space = false;
    while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
        was_space = *s == ' ' || *s == '\t' || *s == '\r' || *s == '\v' || *s == '\f';
        s++;
    }
    return s;
}

static bool is_blank(char ch)
{
    return ch == ' ' || ch == '\t' || ch == '\r' || ch == '\v' || ch == '\f';
}

/* Classify a line as inih 55 will (comment, continuation, section, key) and
 * refuse what it would refuse, with a message of our own; also refuse unknown
 * and repeated sections, which inih passes silently when they hold no key.
 * Returns false after recording an error. */
static bool check_line(load_ctx *x, char *line)
{
    char *start = line;
    if (x->lineno == 1 && strncmp(start, "\xEF\xBB\xBF", 3) == 0)
        start += 3; /* inih skips a UTF-8 byte-order mark */
    size_t len = strlen(start);
    while (len > 0 && is_blank(start[len - 1]))
        start[--len] = '\0'; /* inih strips it anyway */
    while (is_blank(*start))
        start++;
    x->continuation = false;
    if (*start == '\0' || *start == ';' || *start == '#')
        return true;
    if (x->prev_key && start > line) {
        x->continuation = true; /* inih hands it to on_key under the previous key's name */
        return true;
    }
    if (*start == '[') {
        const char *end = find_chars_or_comment(start + 1, "]");
        if (*end != ']') {
            load_fail(x, "expected \"]\" closing the section name, got \"%s\"", start);
            return false;
        }
        size_t nlen = (size_t)(end - start - 1);
        int first = find_section(start + 1, nlen);
        if (first < 0) {
            char list[128];
            section_list(list, sizeof list);
            load_fail(x, "[%.*s]: unknown section, expected %s", (int)nlen, start + 1, list);
            return false;
        }
        if (x->section_line[first]) {
            load_fail(x, "[%s]: duplicate section, first on line %" PRIu32, keys[first].section,
                      x->section_line[first]);
            return false;
        }
        x->section_line[first] = x->lineno;
        x->prev_key = false;
        return true;
    }
    const char *end = find_chars_or_comment(start, "=:");
    if (*end != '=' && *end != ':') {
        load_fail(x, "expected \"key = value\", \"[section]\" or a comment, got \"%s\"", start);
        return false;
    }
    while (end > start && is_blank(end[-1]))
        end--;
    x->prev_key = end > start; /* inih keeps no name for "= value" */
    return true;
}

/* inih's reader: one line per call (inih counts calls as lines), without
 * its newline; NULL at the end or after the first error. */
static char *read_line(char *str, int num, void *stream)
{
    load_ctx *x = stream;
    if (x->failed || num < 3)
        return NULL;
    /* fgets(str, num) would return num - 2 characters and the newline */
    size_t limit = (size_t)num - 2;
    size_t n = 0;
    bool any = false;
    int ch;
    while ((ch = getc(x->f)) != EOF) {
        if (!any) {
            any = true;
            x->lineno++;
        }
        if (++x->bytes > CFG_FILE_MAX_BYTES) {
            load_fail(x, "expected a config file of at most %u bytes, got a larger file",
                      CFG_FILE_MAX_BYTES);
            return NULL;
        }
        if (ch == '\n')
            break;
        if ((ch < 0x20 && ch != '\t' && ch != '\r') || ch == 0x7f) {
            load_fail(x, "expected text (a config is a plain-text INI file), got byte 0x%02x at column %zu", (unsigned)ch, n + 1);
            return NULL;
        }
        if (n == limit) {
            load_fail(x, "expected lines of at most %zu characters, got a longer one", limit);
            return NULL;
        }
        str[n++] = (char)ch;
    }
    if (ferror(x->f)) {
        err_set(x->err, "%s: cannot read: %s", x->path, strerror(errno));
        x->failed = true;
        return NULL;
    }
    if (!any)
        return NULL;
    str[n] = '\0';
    return check_line(x, str) ? str : NULL;
}

static void set_defaults(cfg_gpu *c)
{
    memset(c, 0, sizeof *c);
    for (size_t i = 0; i < KEY_COUNT; i++) {
        if (!keys[i].def)
            continue;
        char why[256];
        int r = set_value(&keys[i], keys[i].def, c, why, sizeof why);
        assert(r == 0 && "a default in cfg_keys.def does not parse");
        (void)r;
    }
}

int cfg_load(const char *path, cfg_gpu *out, err_info *err)
{
    cfg_gpu c;
    set_defaults(&c);
    load_ctx x;
    memset(&x, 0, sizeof x);
    x.path = path;
    x.c = &c;
    x.err = err;
    x.f = fopen(path, "r");
    if (!x.f) {
        err_set(err, "%s: cannot open: %s", path, strerror(errno));
        return -1;
    }
    int r = ini_parse_stream(read_line, &x, on_key, &x);
    fclose(x.f);
    if (x.failed)
        return -1;
    if (r > 0) { /* an error inih found and check_line did not foresee */
        err_set(err, "%s:%d: expected \"key = value\", \"[section]\" or a comment", path, r);
        return -1;
    }
    if (r < 0) {
        err_set(err, "%s: the INI parser failed (%d)", path, r);
        return -1;
    }
    /* [timing] is optional as a whole: when the file sets none of its keys,
     * none is missing; when it sets one, it must set them all */
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (cfg_key_is_timing(i) && x.lines[i])
            c.timing = true;
    size_t missing = 0, first = 0;
    for (size_t i = 0; i < KEY_COUNT; i++)
        if (!keys[i].def && !x.lines[i] && (c.timing || !cfg_key_is_timing(i)) && missing++ == 0)
            first = i;
    if (missing) {
        const cfg_key *k = &keys[first];
        char more[64] = "";
        if (missing > 1)
            snprintf(more, sizeof more, " (and %zu more missing keys)", missing - 1);
        err_set(err,
                "%s:%" PRIu32 ": [%s] %s: missing required key, expected \"%s = <%s>\" in [%s]%s",
                path, x.lineno, k->section, k->name, k->name, key_type_names[k->type], k->section,
                more);
        return -1;
    }
    cfg_origin o = {path, x.lines};
    if (check_config(&c, &o, err))
        return -1;
    *out = c;
    return 0;
}

/* ---- the effective config ---- */

bool cfg_key_is_timing(size_t i)
{
    assert(i < KEY_COUNT);
    return strcmp(keys[i].section, "timing") == 0;
}

static void dump_keys(const cfg_gpu *c, FILE *f, const char *prefix, bool timing)
{
    char value[512];
    for (size_t i = 0; i < KEY_COUNT; i++) {
        const cfg_key *k = &keys[i];
        if (cfg_key_is_timing(i) != timing)
            continue;
        if (i == 0 || !same_section(i, i - 1))
            fprintf(f, "%s[%s]\n", prefix, k->section);
        cfg_key_value(c, i, value, sizeof value);
        bool is_default = k->def && strcmp(value, k->def) == 0;
        fprintf(f, "%s%s = %s%s\n", prefix, k->name, value, is_default ? " ; default" : "");
    }
}

void cfg_dump(const cfg_gpu *c, FILE *f, const char *prefix)
{
    dump_keys(c, f, prefix, false);
}

void cfg_dump_timing(const cfg_gpu *c, FILE *f, const char *prefix)
{
    if (c->timing)
        dump_keys(c, f, prefix, true);
}
