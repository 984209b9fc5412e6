/* copyAsync.cu - global to shared with cp.async (SASS LDGSTS), then shared to
 * global: beyond the seeds, the asynchronous copy that tiled kernels and
 * cuBLAS use to stage data, on real hardware (ncu counts it apart from loads:
 * smsp__inst_executed_op_ldgsts, l1tex__t_*_ldgsts_cache_access).
 *
 *   copyAsyncCa4    each thread copies one float with cp.async.ca (4 bytes,
 *                   through L1), the block waits for its group, and thread t
 *                   stores the word of thread (t + 32) mod 256 (another warp's
 *                   copy, hence the barrier)
 *   copyAsyncCg16   the same with one float4 per thread and cp.async.cg
 *                   (16 bytes, L2 only)
 *
 * usage: copyAsync ca4|cg16 [N]   (elements: floats or float4s, a multiple of
 *        256; default 2^18: 1,024 blocks) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "ca4|cg16 [N]";

__device__ __forceinline__ unsigned int smem_addr(const void *p)
{
    return (unsigned int)__cvta_generic_to_shared(p);
}

__global__ void copyAsyncCa4(const float *in, float *out)
{
    __shared__ float tile[BLOCK];
    unsigned int tid = threadIdx.x, gid = blockIdx.x * BLOCK + tid;
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4;\n" ::"r"(smem_addr(&tile[tid])), "l"(in + gid)
                 : "memory");
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
    out[gid] = tile[(tid + 32) % BLOCK];
}

__global__ void copyAsyncCg16(const float4 *in, float4 *out)
{
    __shared__ float4 tile[BLOCK];
    unsigned int tid = threadIdx.x, gid = blockIdx.x * BLOCK + tid;
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16;\n" ::"r"(smem_addr(&tile[tid])), "l"(in + gid)
                 : "memory");
    asm volatile("cp.async.commit_group;\n" ::: "memory");
    asm volatile("cp.async.wait_group 0;\n" ::: "memory");
    __syncthreads();
    out[gid] = tile[(tid + 32) % BLOCK];
}

int main(int argc, char **argv)
{
    g_prog = "copyAsync";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    const char *mode = argv[1];
    int cg16 = strcmp(mode, "cg16") == 0;
    if (!cg16 && strcmp(mode, "ca4") != 0) usage_fail(USAGE, "unknown mode '%s'", mode);
    int n = 1 << 18;
    if (argc > 2) n = (int)parse_long(argv[2], "N", BLOCK, 1 << 25, USAGE);
    if (n % BLOCK != 0) usage_fail(USAGE, "N must be a multiple of %d", BLOCK);
    int blocks = n / BLOCK, width = cg16 ? 4 : 1; /* floats per element */
    setup_device();

    size_t floats = (size_t)n * width, bytes = floats * sizeof(float);
    float *hin = (float *)host_alloc(bytes), *hout = (float *)host_alloc(bytes);
    float *want = (float *)host_alloc(bytes);
    for (size_t i = 0; i < floats; ++i) hin[i] = small_value(i);
    for (size_t e = 0; e < (size_t)n; ++e) {
        size_t b = e / BLOCK, t = e % BLOCK, src = b * BLOCK + (t + 32) % BLOCK;
        for (int k = 0; k < width; ++k) want[e * width + k] = hin[src * width + k];
    }
    float *din = dev_alloc<float>(floats), *dout = dev_alloc<float>(floats);
    CHECK(cudaMemcpy(din, hin, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dout, 0, bytes));
    if (cg16)
        copyAsyncCg16<<<blocks, BLOCK>>>((const float4 *)din, (float4 *)dout);
    else
        copyAsyncCa4<<<blocks, BLOCK>>>(din, dout);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, dout, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "%s<<<%d, %d>>>", cg16 ? "copyAsyncCg16" : "copyAsyncCa4", blocks, BLOCK);
    int rc = finish(what, count_mismatches("out", hout, want, floats, 0.0f));
    CHECK(cudaFree(din));
    CHECK(cudaFree(dout));
    free(hin); free(hout); free(want);
    return rc;
}
