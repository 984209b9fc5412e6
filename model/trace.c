/* trace.c - trace records: names of the enums, file metadata, kernel helpers,
 * and the validation of kernels, memory and barrier records.
 *
 * Validation is what the reader applies to every record of both forms (and
 * the writer to every record it writes), so the model downstream can rely on
 * the invariants written in trace.h. It checks a record against its kernel
 * only: it does not know the GPU (SM count, shared-memory size), so an SM
 * index or a shared offset beyond a particular GPU's limits is the model's
 * business, not this file's. */
#include "trace_int.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#if defined(__SSE2__)
#include <emmintrin.h>
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#include <immintrin.h>
#endif
#endif

/* ---- names ---------------------------------------------------------------- */

static const char *const kind_names[TRACE_KIND_COUNT] = {"ld", "st", "atom", "red"};
static const char *const space_names[TRACE_SPACE_COUNT] = {"global", "shared", "local"};
static const char *const cache_op_names[TRACE_CACHE_COUNT] = {"default", "ca", "cg", "cs",
                                                              "nc",      "lu", "cv"};

const char *trace_kind_name(trace_kind k)
{
    return (unsigned)k < TRACE_KIND_COUNT ? kind_names[k] : "invalid";
}

const char *trace_space_name(trace_space s)
{
    return (unsigned)s < TRACE_SPACE_COUNT ? space_names[s] : "invalid";
}

const char *trace_cache_op_name(trace_cache_op c)
{
    return (unsigned)c < TRACE_CACHE_COUNT ? cache_op_names[c] : "invalid";
}

static int find_name(const char *const *names, int n, const char *s)
{
    for (int i = 0; i < n; i++)
        if (strcmp(names[i], s) == 0)
            return i;
    return -1;
}

int trace_kind_parse(const char *s, trace_kind *out)
{
    int i = find_name(kind_names, TRACE_KIND_COUNT, s);
    if (i < 0)
        return -1;
    *out = (trace_kind)i;
    return 0;
}

int trace_space_parse(const char *s, trace_space *out)
{
    int i = find_name(space_names, TRACE_SPACE_COUNT, s);
    if (i < 0)
        return -1;
    *out = (trace_space)i;
    return 0;
}

int trace_cache_op_parse(const char *s, trace_cache_op *out)
{
    int i = find_name(cache_op_names, TRACE_CACHE_COUNT, s);
    if (i < 0)
        return -1;
    *out = (trace_cache_op)i;
    return 0;
}

/* ---- metadata ------------------------------------------------------------- */

void trace_meta_init(trace_meta *m)
{
    m->n = 0;
    m->keys = NULL;
    m->values = NULL;
}

void trace_meta_free(trace_meta *m)
{
    for (uint32_t i = 0; i < m->n; i++) {
        free(m->keys[i]);
        free(m->values[i]);
    }
    free(m->keys);
    free(m->values);
    trace_meta_init(m);
}

void trace_meta_set(trace_meta *m, const char *key, const char *value)
{
    for (uint32_t i = 0; i < m->n; i++) {
        if (strcmp(m->keys[i], key) == 0) {
            char *v = xstrdup(value);
            free(m->values[i]);
            m->values[i] = v;
            return;
        }
    }
    m->keys = xrealloc(m->keys, (m->n + 1) * sizeof *m->keys);
    m->values = xrealloc(m->values, (m->n + 1) * sizeof *m->values);
    m->keys[m->n] = xstrdup(key);
    m->values[m->n] = xstrdup(value);
    m->n++;
}

const char *trace_meta_get(const trace_meta *m, const char *key)
{
    for (uint32_t i = 0; i < m->n; i++)
        if (strcmp(m->keys[i], key) == 0)
            return m->values[i];
    return NULL;
}

/* Keys are written bare in the text form, so they are restricted to a
 * word-like alphabet. */
int trace_meta_key_check(const char *key, err_info *err)
{
    size_t n = strlen(key);
    if (n == 0) {
        err_set(err, "empty meta key (expected a word of letters, digits, '_', '.' or '-')");
        return -1;
    }
    if (n > TRACE_MAX_META_KEY_BYTES) {
        err_set(err, "meta key of %zu bytes (expected at most %u)", n, TRACE_MAX_META_KEY_BYTES);
        return -1;
    }
    for (size_t i = 0; i < n; i++) {
        unsigned char c = (unsigned char)key[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '.' || c == '-')) {
            err_set(err, "meta key \"%.64s\" has the character 0x%02x (expected letters, digits, "
                         "'_', '.' or '-')", key, c);
            return -1;
        }
    }
    return 0;
}

int trace_meta_validate(const trace_meta *m, err_info *err)
{
    if (m->n > TRACE_MAX_META_ENTRIES) {
        err_set(err, "%" PRIu32 " meta entries (expected at most %u)", m->n, TRACE_MAX_META_ENTRIES);
        return -1;
    }
    for (uint32_t i = 0; i < m->n; i++) {
        if (trace_meta_key_check(m->keys[i], err) < 0)
            return -1;
        size_t vn = strlen(m->values[i]);
        if (vn > TRACE_MAX_STRING_BYTES) {
            err_set(err, "meta %s: value of %zu bytes (expected at most %u)", m->keys[i], vn,
                    TRACE_MAX_STRING_BYTES);
            return -1;
        }
        for (uint32_t j = 0; j < i; j++) {
            if (strcmp(m->keys[i], m->keys[j]) == 0) {
                err_set(err, "meta key %s given twice", m->keys[i]);
                return -1;
            }
        }
    }
    return 0;
}

/* ---- kernels -------------------------------------------------------------- */

void trace_kernel_init(trace_kernel *k)
{
    memset(k, 0, sizeof *k);
}

void trace_kernel_free(trace_kernel *k)
{
    free(k->name);
    free(k->demangled);
    for (uint32_t i = 0; i < k->n_files; i++)
        free(k->files[i]);
    free(k->files);
    for (uint32_t i = 0; i < k->n_pcs; i++)
        free(k->pcs[i].sass);
    free(k->pcs);
    trace_kernel_init(k);
}

static char *dup_or_null(const char *s)
{
    return s ? xstrdup(s) : NULL;
}

void trace_kernel_copy(trace_kernel *dst, const trace_kernel *src)
{
    *dst = *src;
    dst->name = dup_or_null(src->name);
    dst->demangled = dup_or_null(src->demangled);
    dst->files = NULL;
    dst->pcs = NULL;
    if (src->n_files) {
        dst->files = xmalloc(src->n_files * sizeof *dst->files);
        for (uint32_t i = 0; i < src->n_files; i++)
            dst->files[i] = dup_or_null(src->files[i]);
    }
    if (src->n_pcs) {
        dst->pcs = xmalloc(src->n_pcs * sizeof *dst->pcs);
        for (uint32_t i = 0; i < src->n_pcs; i++) {
            dst->pcs[i] = src->pcs[i];
            dst->pcs[i].sass = dup_or_null(src->pcs[i].sass);
        }
    }
}

uint64_t trace_kernel_ctas(const trace_kernel *k)
{
    return (uint64_t)k->grid[0] * k->grid[1] * k->grid[2];
}

uint32_t trace_kernel_threads_per_cta(const trace_kernel *k)
{
    /* only meaningful for a validated kernel (product <= 1024); saturate otherwise */
    uint64_t t = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    return t > UINT32_MAX ? UINT32_MAX : (uint32_t)t;
}

uint32_t trace_kernel_warps_per_cta(const trace_kernel *k)
{
    uint32_t t = trace_kernel_threads_per_cta(k);
    return t / TRACE_WARP_LANES + (t % TRACE_WARP_LANES != 0);
}

const trace_pc_info *trace_kernel_find_pc(const trace_kernel *k, uint32_t pc)
{
    uint32_t lo = 0, hi = k->n_pcs;
    while (lo < hi) {
        uint32_t mid = lo + (hi - lo) / 2;
        if (k->pcs[mid].pc < pc)
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo < k->n_pcs && k->pcs[lo].pc == pc ? &k->pcs[lo] : NULL;
}

static int check_string(const char *what, const char *s, err_info *err)
{
    if (!s) {
        err_set(err, "%s is missing", what);
        return -1;
    }
    size_t n = strlen(s);
    if (n > TRACE_MAX_STRING_BYTES) {
        err_set(err, "%s of %zu bytes (expected at most %u)", what, n, TRACE_MAX_STRING_BYTES);
        return -1;
    }
    return 0;
}

int trace_pc_check(const trace_kernel *k, const trace_pc_info *p, const trace_pc_info *prev,
                   err_info *err)
{
    if (prev && p->pc <= prev->pc) {
        err_set(err, "PC table: pc 0x%" PRIx32 " follows pc 0x%" PRIx32
                     " (expected ascending PCs without duplicates)", p->pc, prev->pc);
        return -1;
    }
    if (check_string("SASS text", p->sass, err) < 0) {
        err_prefix(err, "PC table: pc 0x%" PRIx32, p->pc);
        return -1;
    }
    if (p->cache_op >= TRACE_CACHE_COUNT) {
        err_set(err, "PC table: pc 0x%" PRIx32 ": cache op %u is out of range (expected 0..%d)",
                p->pc, p->cache_op, TRACE_CACHE_COUNT - 1);
        return -1;
    }
    if (p->file < -1 || (p->file >= 0 && (uint32_t)p->file >= k->n_files)) {
        err_set(err, "PC table: pc 0x%" PRIx32 ": file index %" PRId32
                     " is not in the file table of %" PRIu32 " files (expected -1 for unknown or "
                     "0..%" PRId64 ")", p->pc, p->file, k->n_files, (int64_t)k->n_files - 1);
        return -1;
    }
    return 0;
}

int trace_kernel_validate_dims(const trace_kernel *k, err_info *err)
{
    static const char axis[3] = {'x', 'y', 'z'};
    for (int i = 0; i < 3; i++) {
        if (k->grid[i] == 0) {
            err_set(err, "grid %c is 0 (expected >= 1)", axis[i]);
            return -1;
        }
        if (k->block[i] == 0) {
            err_set(err, "block %c is 0 (expected >= 1)", axis[i]);
            return -1;
        }
    }
    /* 3 x 32 bits can overflow 64: check x*y first, then x*y < 2^32 times z fits */
    uint64_t gxy = (uint64_t)k->grid[0] * k->grid[1];
    if (gxy >= TRACE_MAX_CTAS || gxy * k->grid[2] >= TRACE_MAX_CTAS) {
        err_set(err, "grid %" PRIu32 ",%" PRIu32 ",%" PRIu32 " has %.0f CTAs (expected fewer than %"
                     PRIu64 ")", k->grid[0], k->grid[1], k->grid[2],
                (double)k->grid[0] * k->grid[1] * k->grid[2], TRACE_MAX_CTAS);
        return -1;
    }
    uint64_t threads = (uint64_t)k->block[0] * k->block[1] * k->block[2];
    if (threads > TRACE_MAX_BLOCK_THREADS) {
        err_set(err, "block %" PRIu32 ",%" PRIu32 ",%" PRIu32 " has %" PRIu64
                     " threads (expected at most %u)", k->block[0], k->block[1], k->block[2],
                threads, TRACE_MAX_BLOCK_THREADS);
        return -1;
    }
    if (check_string("kernel name", k->name, err) < 0 ||
        check_string("demangled name", k->demangled, err) < 0)
        return -1;
    if (k->name[0] == '\0') {
        err_set(err, "kernel name is empty (expected the mangled name)");
        return -1;
    }
    return 0;
}

int trace_kernel_validate(const trace_kernel *k, err_info *err)
{
    if (trace_kernel_validate_dims(k, err) < 0)
        return -1;
    if (k->n_files > TRACE_MAX_FILES) {
        err_set(err, "%" PRIu32 " source files (expected at most %u)", k->n_files, TRACE_MAX_FILES);
        return -1;
    }
    if (k->n_pcs > TRACE_MAX_PCS) {
        err_set(err, "%" PRIu32 " PC table entries (expected at most %u)", k->n_pcs, TRACE_MAX_PCS);
        return -1;
    }
    for (uint32_t i = 0; i < k->n_files; i++) {
        if (check_string("source file name", k->files[i], err) < 0) {
            err_prefix(err, "file %" PRIu32, i);
            return -1;
        }
    }
    for (uint32_t i = 0; i < k->n_pcs; i++)
        if (trace_pc_check(k, &k->pcs[i], i ? &k->pcs[i - 1] : NULL, err) < 0)
            return -1;
    return 0;
}

/* cta, warp and sm, shared by memory and barrier records */
static int check_place(const trace_kernel *k, uint32_t cta, uint32_t warp, int32_t sm,
                       err_info *err)
{
    uint64_t ctas = trace_kernel_ctas(k);
    if (cta >= ctas) {
        err_set(err, "cta %" PRIu32 " is out of range (the grid has %" PRIu64 " CTAs)", cta, ctas);
        return -1;
    }
    uint32_t warps = trace_kernel_warps_per_cta(k);
    if (warp >= warps) {
        err_set(err, "warp %" PRIu32 " is out of range (a CTA of %" PRIu32 " threads has %" PRIu32
                     " warps)", warp, trace_kernel_threads_per_cta(k), warps);
        return -1;
    }
    if (sm < TRACE_SM_UNKNOWN) {
        err_set(err, "sm %" PRId32 " is invalid (expected an SM index >= 0, or unknown)", sm);
        return -1;
    }
    return 0;
}

/* Lanes that hold threads in warp `warp` of a CTA of `threads` threads. */
static uint32_t lanes_with_threads(uint32_t threads, uint32_t warp)
{
    uint64_t first = (uint64_t)warp * TRACE_WARP_LANES;
    if (first + TRACE_WARP_LANES <= threads)
        return TRACE_FULL_MASK;
    return (uint32_t)(((uint64_t)1 << (threads - first)) - 1);
}

/* The slow path of the lane check: find the first bad lane and say why. */
static int lane_error(const trace_mem *m, err_info *err)
{
    uint64_t align = (uint64_t)m->size_bytes - 1;
    for (int l = 0; l < TRACE_WARP_LANES; l++) {
        uint64_t a = m->addr[l];
        if (!(m->active_mask >> l & 1u)) {
            if (a != 0) {
                err_set(err, "lane %d is inactive but has address 0x%" PRIx64 " (expected 0)", l, a);
                return -1;
            }
            continue;
        }
        if (a & align) {
            err_set(err, "lane %d: address 0x%" PRIx64 " is not aligned to the access size %u", l, a,
                    m->size_bytes);
            return -1;
        }
        if (m->space != TRACE_SPACE_GLOBAL && a > UINT32_MAX) {
            err_set(err, "lane %d: %s address 0x%" PRIx64
                         " is beyond the 32-bit window (expected < 0x100000000)", l,
                    trace_space_name((trace_space)m->space), a);
            return -1;
        }
    }
    return 0;
}

static uint64_t full_warp_or(const trace_mem *m);

uint32_t trace_mem_read_lanes(const trace_mem *m)
{
    if (!(m->flags & TRACE_MEM_LDGSTS) || m->space != TRACE_SPACE_GLOBAL || m->kind != TRACE_KIND_LD)
        return m->active_mask;
    uint32_t real = 0;
    for (uint32_t mask = m->active_mask; mask; mask &= mask - 1u) {
        uint32_t l = (uint32_t)__builtin_ctz(mask);
        if (m->addr[l] >= TRACE_NULL_PAGE_BYTES)
            real |= 1u << l;
    }
    return real;
}

int trace_mem_validate(const trace_kernel *k, const trace_mem *m, err_info *err)
{
    if (m->kind >= TRACE_KIND_COUNT) {
        err_set(err, "kind %u is out of range (expected 0..%d: ld, st, atom, red)", m->kind,
                TRACE_KIND_COUNT - 1);
        return -1;
    }
    if (m->space >= TRACE_SPACE_COUNT) {
        err_set(err, "space %u is out of range (expected 0..%d: global, shared, local)", m->space,
                TRACE_SPACE_COUNT - 1);
        return -1;
    }
    if (m->cache_op >= TRACE_CACHE_COUNT) {
        err_set(err, "cache op %u is out of range (expected 0..%d)", m->cache_op,
                TRACE_CACHE_COUNT - 1);
        return -1;
    }
    if (m->flags & ~TRACE_MEM_FLAGS_ALL) {
        err_set(err, "flags 0x%x has undefined bits (expected within 0x%x)", m->flags,
                TRACE_MEM_FLAGS_ALL);
        return -1;
    }
    uint8_t s = m->size_bytes;
    if (!(s == 1 || s == 2 || s == 4 || s == 8 || s == 16)) {
        err_set(err, "access size %u is invalid (expected 1, 2, 4, 8 or 16)", s);
        return -1;
    }
    if (m->space == TRACE_SPACE_LOCAL && (m->kind == TRACE_KIND_ATOM || m->kind == TRACE_KIND_RED)) {
        err_set(err, "%s on local memory (atomics and reductions apply to global and shared "
                     "memory only)", trace_kind_name((trace_kind)m->kind));
        return -1;
    }
    if (check_place(k, m->cta, m->warp, m->sm, err) < 0)
        return -1;
    if (m->active_mask == 0) {
        err_set(err, "active mask is 0 (expected at least one active lane)");
        return -1;
    }
    uint32_t threads = trace_kernel_threads_per_cta(k);
    uint32_t allowed = lanes_with_threads(threads, m->warp);
    if (m->active_mask & ~allowed) {
        int lane = __builtin_ctz(m->active_mask & ~allowed);
        err_set(err, "lane %d is active but warp %" PRIu32 " of a CTA of %" PRIu32
                     " threads has only %d lanes with threads", lane, m->warp, threads,
                __builtin_popcount(allowed));
        return -1;
    }
    /* Fast path: OR the active lanes' addresses together (and, apart, the
     * inactive ones'): misaligned or high bits of any active lane, or any bit
     * of an inactive lane, show in the two ORs; only then are the lanes walked
     * again for the message. Four accumulators for the full mask, so the ORs
     * do not wait on each other. */
    uint64_t align = (uint64_t)s - 1;
    uint64_t high = m->space == TRACE_SPACE_GLOBAL ? 0 : ~(uint64_t)UINT32_MAX;
    uint64_t or_active = 0, or_inactive = 0;
    if (m->active_mask == TRACE_FULL_MASK) {
        or_active = full_warp_or(m);
    } else {
        for (int l = 0; l < TRACE_WARP_LANES; l++) {
            if (m->active_mask >> l & 1u)
                or_active |= m->addr[l];
            else
                or_inactive |= m->addr[l];
        }
    }
    if ((or_active & (align | high)) | or_inactive)
        return lane_error(m, err);
    return 0;
}

/* The OR of all 32 lanes' addresses. */
static uint64_t full_warp_or(const trace_mem *m)
{
    uint64_t or_active;
    {
#if defined(__SSE2__)
        /* two lanes per OR, four accumulators, unrolled: 16 loads and ORs */
        __m128i o[4] = {_mm_setzero_si128(), _mm_setzero_si128(), _mm_setzero_si128(),
                        _mm_setzero_si128()};
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
        for (int l = 0; l < TRACE_WARP_LANES; l += 2)
            o[(l / 2) & 3] = _mm_or_si128(o[(l / 2) & 3],
                                          _mm_loadu_si128((const __m128i *)(const void *)(m->addr + l)));
        __m128i x = _mm_or_si128(_mm_or_si128(o[0], o[1]), _mm_or_si128(o[2], o[3]));
        x = _mm_or_si128(x, _mm_unpackhi_epi64(x, x));
        _mm_storel_epi64((__m128i *)(void *)&or_active, x);
#else
        uint64_t o0 = 0, o1 = 0, o2 = 0, o3 = 0;
        for (int l = 0; l < TRACE_WARP_LANES; l += 4) {
            o0 |= m->addr[l];
            o1 |= m->addr[l + 1];
            o2 |= m->addr[l + 2];
            o3 |= m->addr[l + 3];
        }
        or_active = o0 | o1 | o2 | o3;
#endif
    }
    return or_active;
}

void trace_mem_limits_of(const trace_kernel *k, trace_mem_limits *lim)
{
    uint32_t threads = trace_kernel_threads_per_cta(k);
    lim->ctas = trace_kernel_ctas(k);
    lim->warps = trace_kernel_warps_per_cta(k);
    lim->last_lanes = lim->warps ? lanes_with_threads(threads, lim->warps - 1u) : 0;
}

int trace_mem_validate_limits(const trace_kernel *k, const trace_mem_limits *lim,
                              const trace_mem *m, err_info *err)
{
    uint32_t s = m->size_bytes;
    uint32_t allowed = m->warp + 1u == lim->warps ? lim->last_lanes : TRACE_FULL_MASK;
    bool ok = m->kind < TRACE_KIND_COUNT && m->space < TRACE_SPACE_COUNT &&
              m->cache_op < TRACE_CACHE_COUNT && !(m->flags & ~TRACE_MEM_FLAGS_ALL) &&
              s != 0 && s <= 16u && (s & (s - 1u)) == 0 &&
              !(m->space == TRACE_SPACE_LOCAL && m->kind >= TRACE_KIND_ATOM) &&
              m->cta < lim->ctas && m->warp < lim->warps && m->sm >= TRACE_SM_UNKNOWN &&
              m->active_mask != 0 && !(m->active_mask & ~allowed);
    if (!ok || m->active_mask != TRACE_FULL_MASK)
        return trace_mem_validate(k, m, err); /* it finds and names what is wrong */
    uint64_t bad = (uint64_t)s - 1u;
    if (m->space != TRACE_SPACE_GLOBAL)
        bad |= ~(uint64_t)UINT32_MAX;
    if (full_warp_or(m) & bad)
        return lane_error(m, err);
    return 0;
}

int trace_mem_validate_strided(const trace_kernel *k, const trace_mem_limits *lim,
                               const trace_mem *m, uint64_t base, uint64_t stride, err_info *err)
{
    uint32_t s = m->size_bytes;
    uint32_t allowed = m->warp + 1u == lim->warps ? lim->last_lanes : TRACE_FULL_MASK;
    bool ok = m->kind < TRACE_KIND_COUNT && m->space < TRACE_SPACE_COUNT &&
              m->cache_op < TRACE_CACHE_COUNT && !(m->flags & ~TRACE_MEM_FLAGS_ALL) &&
              s != 0 && s <= 16u && (s & (s - 1u)) == 0 &&
              !(m->space == TRACE_SPACE_LOCAL && m->kind >= TRACE_KIND_ATOM) &&
              m->cta < lim->ctas && m->warp < lim->warps && m->sm >= TRACE_SM_UNKNOWN &&
              m->active_mask != 0 && !(m->active_mask & ~allowed);
    if (!ok || m->active_mask != TRACE_FULL_MASK)
        return trace_mem_validate(k, m, err); /* it finds and names what is wrong */
    /* every lane aligned iff lane 0 and the step are (lanes 0 and 1 show either) */
    if ((base | stride) & ((uint64_t)s - 1u))
        return lane_error(m, err);
    if (m->space != TRACE_SPACE_GLOBAL) {
        /* offsets below 2^32: rising lanes from the first to the last when the
         * step is small; otherwise the lanes themselves */
        const uint64_t last = base + (uint64_t)(TRACE_WARP_LANES - 1) * stride;
        bool in_range = base <= UINT32_MAX && stride <= UINT32_MAX / (TRACE_WARP_LANES - 1) &&
                        last <= UINT32_MAX;
        if (!in_range && (full_warp_or(m) & ~(uint64_t)UINT32_MAX))
            return lane_error(m, err);
    }
    return 0;
}

int trace_barrier_validate(const trace_kernel *k, const trace_barrier *b, err_info *err)
{
    return check_place(k, b->cta, b->warp, b->sm, err);
}

/* ---- shared by the writers ------------------------------------------------ */

bool trace_mem_fit_stride(const trace_mem *m, uint64_t *base, uint64_t *stride)
{
    uint32_t mask = m->active_mask;
    if (mask == 0)
        return false;
    int l1 = __builtin_ctz(mask);
    uint32_t rest = mask & (mask - 1);
    if (rest == 0) {
        *stride = 0;
        *base = m->addr[l1];
        return true;
    }
    int l2 = __builtin_ctz(rest);
    /* the stride from the first two active lanes, as a signed exact quotient */
    int64_t d = (int64_t)(m->addr[l2] - m->addr[l1]);
    int64_t gap = l2 - l1;
    if (d % gap != 0)
        return false;
    uint64_t s = (uint64_t)(d / gap);
    uint64_t b = m->addr[l1] - s * (uint64_t)l1;
    if (mask == TRACE_FULL_MASK) {
        uint64_t diff = 0;
        for (int l = 0; l < TRACE_WARP_LANES; l++)
            diff |= m->addr[l] ^ (b + s * (uint64_t)l);
        if (diff)
            return false;
    } else {
        for (uint32_t r = rest; r; r &= r - 1) {
            int l = __builtin_ctz(r);
            if (m->addr[l] != b + s * (uint64_t)l)
                return false;
        }
    }
    *base = b;
    *stride = s;
    return true;
}

#if TRACE_AVX2_BUILDS
__attribute__((target("avx2"))) void trace_mem_expand_stride_full_avx2(uint64_t *addr,
                                                                        uint64_t base,
                                                                        uint64_t stride)
{
    __m256i v = _mm256_set_epi64x((long long)(base + 3u * stride), (long long)(base + 2u * stride),
                                  (long long)(base + stride), (long long)base);
    const __m256i step4 = _mm256_set1_epi64x((long long)(4u * stride));
#pragma GCC unroll 8
    for (int l = 0; l < TRACE_WARP_LANES; l += 4) {
        _mm256_storeu_si256((__m256i *)(void *)(addr + l), v);
        v = _mm256_add_epi64(v, step4);
    }
}
#endif

bool trace_cpu_has_avx2(void)
{
#if TRACE_AVX2_BUILDS
    return __builtin_cpu_supports("avx2");
#else
    return false;
#endif
}

void trace_mem_expand_stride(trace_mem *m, uint64_t base, uint64_t stride)
{
    uint32_t mask = m->active_mask;
    if (mask == TRACE_FULL_MASK) {
#if defined(__SSE2__)
        /* two lanes per store: most records of a trace come this way */
        __m128i v = _mm_set_epi64x((long long)(base + stride), (long long)base);
        const __m128i step2 = _mm_set1_epi64x((long long)(2u * stride));
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC unroll 16
#endif
        for (int l = 0; l < TRACE_WARP_LANES; l += 2) {
            _mm_storeu_si128((__m128i *)(void *)(m->addr + l), v);
            v = _mm_add_epi64(v, step2);
        }
        return;
#endif
        /* two running sums: each add waits only on its own chain */
        uint64_t even = base, odd = base + stride, step = 2 * stride;
        for (int l = 0; l < TRACE_WARP_LANES; l += 2) {
            m->addr[l] = even;
            m->addr[l + 1] = odd;
            even += step;
            odd += step;
        }
        return;
    }
    for (int l = 0; l < TRACE_WARP_LANES; l++)
        m->addr[l] = (mask >> l & 1u) ? base + stride * (uint64_t)l : 0;
}
