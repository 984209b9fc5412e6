/* l2_avx2.c - l2_read and l2_write compiled for CPUs with AVX2 and POPCNT:
 * the same code as l2.c's (l2_int.h), whose 20-way tag lookups take one
 * step of 32 fingerprints instead of two of 16, and whose sector masks are
 * counted by one instruction. l2_create picks them at run time, as
 * l1_avx2.c. Empty where CACHE_AVX2_BUILDS is 0. */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#pragma GCC target("avx2,popcnt")
#endif

#include "l2_int.h"

#if CACHE_AVX2_BUILDS
#if !defined(__AVX2__)
#error "#pragma GCC target(\"avx2\") did not define __AVX2__"
#endif
#if !defined(__POPCNT__)
#error "#pragma GCC target(\"popcnt\") did not define __POPCNT__"
#endif
void l2_read_avx2(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask, stats *s)
{
    l2_read_lines(c, part, line, place_get(c, line), sector_mask, s);
}

void l2_read_at_avx2(l2 *c, uint32_t part, uint64_t line, l2_place pl, uint32_t sector_mask, stats *s)
{
    l2_read_lines(c, part, line, pl, sector_mask, s);
}

void l2_write_avx2(l2 *c, uint32_t part, uint64_t line, uint32_t sector_mask,
                   const uint32_t *byte_mask, stats *s)
{
    l2_write_lines(c, part, line, sector_mask, byte_mask, s);
}
#else
typedef int l2_avx2_unused; /* ISO C: a translation unit is not empty */
#endif
