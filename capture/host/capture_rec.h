/* capture_rec.h - what the capture tool's device patches write, shared by the
 * CUDA patch code (capture/device/patches.cu, compiled by nvcc as C++) and
 * the host side (plain C). Only fixed-width fields: both compilers must lay
 * the structs out identically (checked by the size asserts below).
 *
 * One raw record is one executed warp-level instruction as the Compute
 * Sanitizer API reported it: the warp's leader claims a slot with one atomic,
 * every active lane writes its own address. The host turns raw records into
 * trace_mem / trace_barrier records (capture_decode.h); nothing here is
 * interpreted on the device beyond what the callbacks were given. */
#ifndef GMS_CAPTURE_REC_H
#define GMS_CAPTURE_REC_H

#include <stdint.h>

/* capture_raw_rec.type: which patch wrote the record */
enum {
    CAPTURE_RAW_NONE = 0,          /* never written (a slot must not hold this) */
    CAPTURE_RAW_GLOBAL = 1,        /* GLOBAL_MEMORY_ACCESS: addr = virtual address */
    CAPTURE_RAW_SHARED = 2,        /* SHARED_MEMORY_ACCESS: addr = offset in the CTA's shared window */
    CAPTURE_RAW_LOCAL = 3,         /* LOCAL_MEMORY_ACCESS: addr = offset in the thread's local window */
    CAPTURE_RAW_LDGSTS_GLOBAL = 4, /* MEMCPY_ASYNC (cp.async): its global source; next slot is the shared half */
    CAPTURE_RAW_LDGSTS_SHARED = 5, /* MEMCPY_ASYNC: its shared destination offset */
    CAPTURE_RAW_MATRIX = 6,        /* MATRIX_MEMORY_ACCESS (ldmatrix/stmatrix): one 16-byte row per lane */
    CAPTURE_RAW_BARRIER = 7,       /* BARRIER (bar.sync): a warp arriving */
    CAPTURE_RAW_SHFL = 8,          /* SHFL (a warp shuffle): where the warp was */
    CAPTURE_RAW_TYPE_COUNT
};

/* Sanitizer_DeviceMemoryFlags, restated so that the host side needs no CUDA
 * header (sanitizer_patching.h, CUDA 13.0). */
#define CAPTURE_SAN_READ 0x1u
#define CAPTURE_SAN_WRITE 0x2u
#define CAPTURE_SAN_ATOMSYS 0x4u  /* system-scoped atomic */
#define CAPTURE_SAN_PREFETCH 0x8u /* cache prefetch */

#define CAPTURE_RAW_LANES 32

/* One warp-level instruction; 288 bytes. Lanes not in active_mask are not
 * written by the device (their addr[] holds whatever the slot held before). */
typedef struct capture_raw_rec {
    uint64_t pc;          /* absolute device address of the original instruction */
    uint32_t tag;         /* the launch's tag (capture_tracker.tag): catches slots never written */
    uint32_t cta;         /* blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z) */
    uint32_t warp;        /* flat thread index in the CTA / 32 */
    uint32_t active_mask; /* __activemask() in the callback: the lanes that execute the access */
    uint32_t sm;          /* %smid */
    uint8_t type;         /* CAPTURE_RAW_* */
    uint8_t size_bytes;   /* accessSize as the callback got it (0 for barriers) */
    uint8_t flags;        /* CAPTURE_SAN_* as the callback got them (matrix: READ or WRITE) */
    uint8_t count;        /* MATRIX: number of 8x8 matrices (1, 2 or 4); else 0 */
    uint64_t addr[CAPTURE_RAW_LANES];
} capture_raw_rec;

/* Per-launch control block in device memory, passed to every patch as its
 * userdata (sanitizerSetLaunchCallbackData). Launches that are not recorded
 * get a block with enabled == 0, so patched code never sees NULL or a stale
 * pointer. */
typedef struct capture_tracker {
    uint64_t count;          /* slots claimed so far; may exceed cap (then records were lost) */
    uint64_t cap;            /* slots the buffer may use: min(buffer size, --max-records) */
    uint64_t buf;            /* device address of capture_raw_rec[cap] */
    uint64_t exited_threads; /* threads that reached EXIT (BLOCK_EXIT patch) */
    uint32_t enabled;        /* 0: patches return at once */
    uint32_t tag;            /* written into every record of this launch */
    uint32_t dyn_smem_bytes; /* %dynamic_smem_size, written by the device */
    uint32_t dyn_smem_valid; /* 1 once dyn_smem_bytes is set */
} capture_tracker;

#ifdef __cplusplus
static_assert(sizeof(capture_raw_rec) == 288, "capture_raw_rec layout");
static_assert(sizeof(capture_tracker) == 48, "capture_tracker layout");
#else
_Static_assert(sizeof(capture_raw_rec) == 288, "capture_raw_rec layout");
_Static_assert(sizeof(capture_tracker) == 48, "capture_tracker layout");
#endif

#endif
