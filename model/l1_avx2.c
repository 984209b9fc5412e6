/* l1_avx2.c - l1_load and l1_store compiled for CPUs with AVX2 (and POPCNT,
 * which every AVX2 CPU has): the same code as l1.c's (l1_int.h), whose
 * 64-way tag lookups compare 32 fingerprints per step instead of 16, and
 * whose sector masks are counted by one instruction (cache_popcount).
 * l1_create picks it at run time (__builtin_cpu_supports), so the binary
 * still runs on the x86-64 baseline. Empty where CACHE_AVX2_BUILDS is 0. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("avx2,popcnt")
#endif

#include "l1_int.h"

#if CACHE_AVX2_BUILDS
#if !defined(__AVX2__)
#error "#pragma GCC target(\"avx2\") did not define __AVX2__"
#endif
#if !defined(__POPCNT__)
#error "#pragma GCC target(\"popcnt\") did not define __POPCNT__"
#endif
void l1_load_avx2(l1 *c, const coal_result *r, l1_load_mode mode, uint32_t *miss_mask,
                  uint32_t *hit_sectors, uint32_t *miss_sectors)
{
    l1_load_lines(c, r, NULL, mode, miss_mask, hit_sectors, miss_sectors);
}

void l1_store_avx2(l1 *c, const coal_result *r, cfg_l1_stores policy, uint32_t *hit_sectors,
                   uint32_t *miss_sectors)
{
    l1_store_lines(c, r, NULL, policy, hit_sectors, miss_sectors);
}

void l1_load_sets_avx2(l1 *c, const coal_result *r, const uint32_t *sets, l1_load_mode mode,
                       uint32_t *miss_mask, uint32_t *hit_sectors, uint32_t *miss_sectors)
{
    l1_load_lines(c, r, sets, mode, miss_mask, hit_sectors, miss_sectors);
}

void l1_store_sets_avx2(l1 *c, const coal_result *r, const uint32_t *sets, cfg_l1_stores policy,
                        uint32_t *hit_sectors, uint32_t *miss_sectors)
{
    l1_store_lines(c, r, sets, policy, hit_sectors, miss_sectors);
}
#else
typedef int l1_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
