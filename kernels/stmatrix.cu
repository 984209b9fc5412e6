/* stmatrix.cu - one stmatrix (SASS STSM) per warp, then each lane reads its
 * row back: how ncu counts stmatrix (an instruction class of its own,
 * smsp__inst_executed_op_shared_stsm, like ldmatrix's op_ldsm?) and its
 * wavefronts (docs/findings.md §9).
 *
 *   stmatrixX4   stmatrix.sync.aligned.m8n8.x4.shared.b16: lane l gives the
 *                address of row l % 8 of matrix l / 8; rows are STRIDE bytes
 *                apart (16: the four 8 x 8 matrices packed, conflict-free;
 *                32: every other 16-byte slot); then lane l loads that row
 *                (16 bytes) and stores it to global memory
 *
 * Element (r, c) of matrix m holds m * 64 + 8 r + c (exact in half), so the
 * rows read back are checked exactly.
 *
 * usage: stmatrix 16|32 [BLOCKS]   (row stride in bytes; one warp per block,
 *        default 264 blocks) */
#include <cuda_fp16.h>

#include "common.cuh"

static const char *USAGE = "16|32 [BLOCKS]";

__global__ void stmatrixX4(uint4 *out, int stride)
{
    __shared__ __align__(128) unsigned char s[4 * 8 * 32];
    int t = threadIdx.x;
    unsigned regs[4];
    for (int m = 0; m < 4; ++m) {
        /* thread t holds row t / 4, columns 2 (t % 4) and 2 (t % 4) + 1 of matrix m */
        int r = t / 4, c = 2 * (t % 4);
        __half2 h = __floats2half2_rn((float)(m * 64 + 8 * r + c), (float)(m * 64 + 8 * r + c + 1));
        regs[m] = *(unsigned *)&h;
    }
    unsigned char *row = &s[((t / 8) * 8 + t % 8) * stride];
    unsigned addr = (unsigned)__cvta_generic_to_shared(row);
    asm volatile("stmatrix.sync.aligned.m8n8.x4.shared.b16 [%0], {%1, %2, %3, %4};\n" ::"r"(addr),
                 "r"(regs[0]), "r"(regs[1]), "r"(regs[2]), "r"(regs[3])
                 : "memory");
    __syncwarp();
    out[blockIdx.x * 32 + t] = *(const uint4 *)row;
}

int main(int argc, char **argv)
{
    g_prog = "stmatrix";
    if (argc < 2 || argc > 3) usage_fail(USAGE, "expected 1 or 2 arguments");
    int stride = (int)parse_long(argv[1], "STRIDE", 16, 32, USAGE);
    if (stride != 16 && stride != 32) usage_fail(USAGE, "STRIDE must be 16 or 32");
    int blocks = argc > 2 ? (int)parse_long(argv[2], "BLOCKS", 1, 1 << 16, USAGE) : 264;
    setup_device();

    size_t n = (size_t)blocks * 32;
    uint4 *d = dev_alloc<uint4>(n);
    uint4 *h = (uint4 *)host_alloc(n * sizeof(uint4));
    stmatrixX4<<<blocks, 32>>>(d, stride);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(h, d, n * sizeof(uint4), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (size_t i = 0; i < n; ++i) {
        int t = (int)(i % 32), m = t / 8, r = t % 8;
        const __half *v = (const __half *)&h[i];
        for (int c = 0; c < 8; ++c) {
            float want = (float)(m * 64 + 8 * r + c), got = __half2float(v[c]);
            if (got != want) {
                if (bad < 5) fprintf(stderr, "stmatrix: block %zu lane %d element %d = %g, expected %g\n", i / 32,
                                     t, c, got, want);
                ++bad;
            }
        }
    }
    char what[96];
    snprintf(what, sizeof what, "stmatrixX4<<<%d, 32>>> stride %d", blocks, stride);
    int rc = finish(what, bad);
    CHECK(cudaFree(d));
    free(h);
    return rc;
}
