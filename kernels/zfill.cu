/* zfill.cu - how the H200 counts cp.async zero fills (docs/findings.md §26).
 * cuBLAS's sgemm zero-fills its last k-tiles' copies with a null source;
 * the Sanitizer API reports a copy's source address but not whether it was
 * read, and gpumemsim takes a source in the null page for a zero fill. This
 * kernel makes each kind on purpose: every thread copies 16 bytes from
 * global to shared memory with cp.async.ca, ITER times, then writes its
 * shared bytes back to global memory (checked on the host: zeros where the
 * copy zero-filled).
 *
 * MODE, for the lanes the zero fill applies to (LANES: all, or half = lanes
 * 0-15 of every warp):
 *   copy   every lane reads (no zero fill)
 *   null   the source pointer is 0 and the source size 0 (cuBLAS's form)
 *   size0  the source pointer is the lane's own valid address, size 0
 *          (CUTLASS's predicated form: the trace cannot tell it from a read)
 *
 * usage: zfill copy|null|size0 all|half [CTAS [ITER]]   (CTAS of 256 threads,
 * default 264; ITER default 16) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "copy|null|size0 all|half [CTAS [ITER]]";

__global__ void zeroFill(const float4 *in, float4 *out, int mode, int half, int iter)
{
    __shared__ float4 tile[BLOCK];
    unsigned lane = threadIdx.x % 32;
    bool zero = mode != 0 && (!half || lane < 16);
    unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
    for (int k = 0; k < iter; ++k) {
        size_t i = ((size_t)k * gridDim.x + blockIdx.x) * BLOCK + threadIdx.x;
        const float4 *src = zero && mode == 1 ? (const float4 *)0 : &in[i];
        unsigned size = zero ? 0u : 16u;
        asm volatile("cp.async.ca.shared.global [%0], [%1], 16, %2;\n" ::"r"(dst), "l"(src), "r"(size) : "memory");
        asm volatile("cp.async.commit_group;\n" ::: "memory");
        asm volatile("cp.async.wait_group 0;\n" ::: "memory");
        __syncthreads();
        out[i] = tile[threadIdx.x];
        __syncthreads();
    }
}

int main(int argc, char **argv)
{
    g_prog = "zfill";
    if (argc < 3 || argc > 5) usage_fail(USAGE, "expected 2 to 4 arguments");
    int mode = strcmp(argv[1], "copy") == 0 ? 0 : strcmp(argv[1], "null") == 0 ? 1 : strcmp(argv[1], "size0") == 0 ? 2 : -1;
    if (mode < 0) usage_fail(USAGE, "MODE '%s' must be copy, null or size0", argv[1]);
    int half = strcmp(argv[2], "half") == 0;
    if (!half && strcmp(argv[2], "all") != 0) usage_fail(USAGE, "LANES '%s' must be all or half", argv[2]);
    int ctas = argc > 3 ? (int)parse_long(argv[3], "CTAS", 1, 4096, USAGE) : 264;
    int iter = argc > 4 ? (int)parse_long(argv[4], "ITER", 1, 1024, USAGE) : 16;
    size_t n4 = (size_t)ctas * BLOCK * iter, floats = n4 * 4;
    setup_device();
    float *hin = (float *)host_alloc(floats * sizeof(float)), *hout = (float *)host_alloc(floats * sizeof(float));
    float *want = (float *)host_alloc(floats * sizeof(float));
    for (size_t i = 0; i < floats; ++i) {
        hin[i] = small_value(i);
        size_t thread = (i / 4) % BLOCK;
        bool zero = mode != 0 && (!half || thread % 32 < 16);
        want[i] = zero ? 0.0f : hin[i];
    }
    float4 *in = dev_alloc<float4>(n4), *out = dev_alloc<float4>(n4);
    CHECK(cudaMemcpy(in, hin, floats * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(out, 0xff, floats * sizeof(float)));
    zeroFill<<<ctas, BLOCK>>>(in, out, mode, half, iter);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hout, out, floats * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = count_mismatches("out", hout, want, floats, 0.0f);
    CHECK(cudaFree(in));
    CHECK(cudaFree(out));
    free(hin); free(hout); free(want);
    char what[96];
    snprintf(what, sizeof what, "zeroFill %s %s CTAS %d ITER %d", argv[1], argv[2], ctas, iter);
    return finish(what, bad);
}
