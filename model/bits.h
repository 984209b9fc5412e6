/* bits.h - bit counting shared by the models that count lanes and sectors. */
#ifndef GMS_BITS_H
#define GMS_BITS_H

#include <stdint.h>

/* Bits set in x, portable (no libgcc call without -mpopcnt). */
static inline uint32_t bits_count32(uint32_t x)
{
    x = x - ((x >> 1) & 0x55555555u);
    x = (x & 0x33333333u) + ((x >> 2) & 0x33333333u);
    x = (x + (x >> 4)) & 0x0f0f0f0fu;
    return (x * 0x01010101u) >> 24;
}

#endif
