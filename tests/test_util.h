/* test_util.h - hand-built configs and records for the model's tests, so
 * they do not depend on the config loader or the trace reader. */
#ifndef GMS_TEST_UTIL_H
#define GMS_TEST_UTIL_H

#include <stdint.h>

#include "cfg.h"
#include "trace.h"

/* NVIDIA H200 (GH100, sm_90) as measured (hardware-facts.md §1, §4, §5). */
void test_cfg_h200(cfg_gpu *c);
/* Tesla K20c (GK110, sm_35): global loads bypass L1, 8-byte banks in
 * 4-byte mode, one L2 partition. */
void test_cfg_k20c(cfg_gpu *c);

/* A kernel of grid x block threads, no shared memory, 16 registers, no PC table. */
void test_kernel(trace_kernel *k, const char *name, uint32_t ctas, uint32_t threads_per_cta);

/* A record whose active lane l accesses base + stride * l. */
void test_mem(trace_mem *m, trace_kind kind, trace_space space, uint32_t size_bytes,
              uint32_t active_mask, uint64_t base, int64_t stride);
/* A record with explicit per-lane addresses (32 entries; inactive lanes ignored). */
void test_mem_addrs(trace_mem *m, trace_kind kind, trace_space space, uint32_t size_bytes,
                    uint32_t active_mask, const uint64_t *addr);

/* Byte offset of lane l in pattern pat of the H200 calibration kernels:
 * off_of() of research/ubench/h200_mem_counters.cu (0..19) and goff() of
 * h200_mem_counters2.cu (20, 21). */
uint64_t test_ubench_offset(int pat, uint32_t lane);

#endif
