/* selftest.h - launch shapes shared by the capture self-test program
 * (selftest.cu) and its checker (selftest_check.c), so that the checker can
 * say exactly how many records each kernel must produce. */
#ifndef GMS_CAPTURE_SELFTEST_H
#define GMS_CAPTURE_SELFTEST_H

/* k_copy: n elements, 8 CTAs of 128 threads: 31 full warps and one warp
 * with 8 lanes in range; the other 24 threads exit early */
#define ST_COPY_N 1000
#define ST_COPY_GRID 8
#define ST_COPY_BLOCK 128

/* k_transpose: 64x64 floats, 32x32 tiles, CTAs of 32x8 threads */
#define ST_TR_DIM 64
#define ST_TR_TILE 32
#define ST_TR_ROWS 8

/* k_atomics: 2 CTAs of 64 threads */
#define ST_AT_GRID 2
#define ST_AT_BLOCK 64

/* k_dynsmem: one CTA of 256 threads with 4096 bytes of dynamic shared memory */
#define ST_DYN_BLOCK 256
#define ST_DYN_BYTES 4096

/* two streams, each with this many k_copy / k_scale launches */
#define ST_STREAM_REPS 5

/* k_stream: 4M float4 in, 4M out (64 MB each), 256 threads per CTA */
#define ST_STREAM_N (4u << 20)
#define ST_STREAM_BLOCK 256

/* k_shfl (selftest shfl): every warp of ST_SHFL_GRID x ST_SHFL_BLOCK sums a
 * value over its lanes with five unrolled __shfl_down_sync, then runs
 * ST_SHFL_LOOP more __shfl_xor_sync in a loop the compiler cannot unroll
 * (its count is an argument), then lane 0 stores: with --shuffles, five plus
 * ST_SHFL_LOOP shfl records a warp */
#define ST_SHFL_GRID 4
#define ST_SHFL_BLOCK 64
#define ST_SHFL_LOOP 7

#endif
