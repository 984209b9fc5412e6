/* patches.cu - the device side of gpumemsim-capture: Compute Sanitizer patch
 * functions that the library inserts before every memory access, cp.async,
 * ldmatrix/stmatrix and barrier of the traced program's kernels.
 *
 * Each callback runs once per active thread, before the instruction. The
 * warp's lowest active lane claims one slot (two for a cp.async: its global
 * read and its shared write) with one atomicAdd, every active lane writes its
 * address, the leader writes the header. __activemask() inside the callback
 * is the set of lanes that execute the instruction. Slots past the capacity
 * are counted but not written: the host sees count > cap and fails the
 * capture loudly (capture_inject.c); nothing is dropped silently.
 *
 * Build: nvcc --fatbin --compile-as-tools-patch (capture/Makefile). Signatures
 * are the CUDA 13.0 typedefs of sanitizer_patching.h. */
#include <stdint.h>

#include <sanitizer_patching.h>

#include "capture_rec.h"

static __device__ __forceinline__ uint32_t lane_id()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%laneid;" : "=r"(r));
    return r;
}

static __device__ __forceinline__ uint32_t sm_id()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(r));
    return r;
}

static __device__ __forceinline__ uint32_t dynamic_smem_bytes()
{
    uint32_t r;
    asm volatile("mov.u32 %0, %%dynamic_smem_size;" : "=r"(r));
    return r;
}

static __device__ __forceinline__ uint32_t flat_cta()
{
    return blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
}

static __device__ __forceinline__ uint32_t flat_tid()
{
    return threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
}

/* The launch's dynamic shared memory is only known on the device; the first
 * warp to get here writes it (every writer writes the same value). */
static __device__ __forceinline__ void note_dynamic_smem(capture_tracker *t)
{
    /* a stale 0 read only costs a redundant write of the same value; the host
     * reads both fields after the kernel has finished */
    if (!t->dyn_smem_valid) {
        t->dyn_smem_bytes = dynamic_smem_bytes();
        t->dyn_smem_valid = 1;
    }
}

static __device__ __forceinline__ void write_header(capture_raw_rec *r, const capture_tracker *t, uint64_t pc,
                                                    uint32_t am, uint32_t type, uint32_t size, uint32_t flags,
                                                    uint32_t count)
{
    r->pc = pc;
    r->tag = t->tag;
    r->cta = flat_cta();
    r->warp = flat_tid() / 32;
    r->active_mask = am;
    r->sm = sm_id();
    r->type = (uint8_t)type;
    r->size_bytes = (uint8_t)size;
    r->flags = (uint8_t)flags;
    r->count = (uint8_t)count;
}

/* One warp record (two for cp.async: addr2 is the shared half). */
static __device__ __forceinline__ void record(void *ud, uint64_t pc, uint64_t addr, uint64_t addr2, uint32_t size,
                                              uint32_t flags, uint32_t type, uint32_t count)
{
    capture_tracker *t = (capture_tracker *)ud;
    if (!t || !t->enabled)
        return;
    const uint32_t am = __activemask();
    const uint32_t lane = lane_id();
    const uint32_t leader = __ffs(am) - 1;
    const bool pair = type == CAPTURE_RAW_LDGSTS_GLOBAL;
    unsigned long long i = 0;
    if (lane == leader) {
        i = atomicAdd((unsigned long long *)&t->count, pair ? 2ULL : 1ULL);
        note_dynamic_smem(t);
    }
    i = __shfl_sync(am, i, leader);
    const unsigned long long cap = t->cap;
    capture_raw_rec *buf = (capture_raw_rec *)t->buf;
    if (i < cap) {
        capture_raw_rec *r = buf + i;
        r->addr[lane] = addr;
        if (lane == leader)
            write_header(r, t, pc, am, type, size, flags, count);
    }
    if (pair && i + 1 < cap) {
        capture_raw_rec *r = buf + i + 1;
        r->addr[lane] = addr2;
        if (lane == leader)
            write_header(r, t, pc, am, CAPTURE_RAW_LDGSTS_SHARED, size, CAPTURE_SAN_WRITE, 0);
    }
    __syncwarp(am);
}

extern "C" {

__device__ __noinline__ SanitizerPatchResult gms_cb_global(void *ud, uint64_t pc, void *ptr, uint32_t size,
                                                           uint32_t flags, const void *data)
{
    (void)data;
    record(ud, pc, (uint64_t)ptr, 0, size, flags, CAPTURE_RAW_GLOBAL, 0);
    return SANITIZER_PATCH_SUCCESS;
}

__device__ __noinline__ SanitizerPatchResult gms_cb_shared(void *ud, uint64_t pc, void *ptr, uint32_t size,
                                                           uint32_t flags, const void *data)
{
    (void)data;
    record(ud, pc, (uint64_t)ptr, 0, size, flags, CAPTURE_RAW_SHARED, 0);
    return SANITIZER_PATCH_SUCCESS;
}

__device__ __noinline__ SanitizerPatchResult gms_cb_local(void *ud, uint64_t pc, void *ptr, uint32_t size,
                                                          uint32_t flags, const void *data)
{
    (void)data;
    record(ud, pc, (uint64_t)ptr, 0, size, flags, CAPTURE_RAW_LOCAL, 0);
    return SANITIZER_PATCH_SUCCESS;
}

/* cp.async (LDGSTS): src is a global address, dst a shared-window offset. */
__device__ __noinline__ SanitizerPatchResult gms_cb_memcpy_async(void *ud, uint64_t pc, void *src, uint32_t dst,
                                                                 uint32_t size)
{
    record(ud, pc, (uint64_t)src, (uint64_t)dst, size, CAPTURE_SAN_READ, CAPTURE_RAW_LDGSTS_GLOBAL, 0);
    return SANITIZER_PATCH_SUCCESS;
}

/* ldmatrix / stmatrix: this lane's 16-byte row (shared-window offset). */
__device__ __noinline__ SanitizerPatchResult gms_cb_matrix(void *ud, uint64_t pc, uint32_t address, uint32_t size,
                                                           uint32_t flags, uint32_t count, const void *value)
{
    (void)value;
    record(ud, pc, (uint64_t)address, 0, size, flags, CAPTURE_RAW_MATRIX, count);
    return SANITIZER_PATCH_SUCCESS;
}

__device__ __noinline__ SanitizerPatchResult gms_cb_barrier(void *ud, uint64_t pc, uint32_t index, uint32_t threads,
                                                            uint32_t flags)
{
    (void)index;
    (void)threads;
    (void)flags;
    record(ud, pc, 0, 0, 0, 0, CAPTURE_RAW_BARRIER, 0);
    return SANITIZER_PATCH_SUCCESS;
}

/* A warp shuffle: recorded as a waypoint (trace.h, TRACE_BAR_SHFL), so that a
 * timing model runs a loop of shuffles (a reduction's) as often as the warp did. */
__device__ __noinline__ SanitizerPatchResult gms_cb_shfl(void *ud, uint64_t pc)
{
    record(ud, pc, 0, 0, 0, 0, CAPTURE_RAW_SHFL, 0);
    return SANITIZER_PATCH_SUCCESS;
}

/* Every thread passes here at its EXIT: count them (the host checks that the
 * whole grid ran) and make sure the dynamic shared memory size is known even
 * for a launch that recorded nothing. */
__device__ __noinline__ SanitizerPatchResult gms_cb_block_exit(void *ud, uint64_t pc)
{
    (void)pc;
    capture_tracker *t = (capture_tracker *)ud;
    if (!t || !t->enabled)
        return SANITIZER_PATCH_SUCCESS;
    const uint32_t am = __activemask();
    if (lane_id() == (uint32_t)(__ffs(am) - 1)) {
        note_dynamic_smem(t);
        atomicAdd((unsigned long long *)&t->exited_threads, (unsigned long long)__popc(am));
    }
    __syncwarp(am);
    return SANITIZER_PATCH_SUCCESS;
}

} /* extern "C" */
