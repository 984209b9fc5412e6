/* storepair.cu - within how many cycles two warps' stores to the same
 * 128-byte line merge in L1 before L2 (docs/findings.md §6b). One CTA of 8
 * warps; per line, warp 0 stores the line's first 64 bytes and warp P its last
 * 64 bytes, warp P DELAY cycles later (both start at a barrier). N lines, one
 * pair of stores each. ncu's L2 write requests then say how many pairs merged:
 * 2N requests when none merges, N when all do.
 *
 * With SPLIT = 1 each store instead covers two lines, as writeSegment's
 * misaligned warps do: warp 0 stores 32 floats from the middle of line 3i,
 * the partner 32 floats from the middle of line 3i + 1, so line 3i + 1 gets
 * its first half from warp 0's store and its second half from the partner's.
 *
 * usage: storepair P DELAY N [SPLIT]   (P 1..7: the partner warp; warp w
 * issues on sub-partition w mod 4, so P = 4 shares warp 0's) */
#include "common.cuh"

static const char *USAGE = "P DELAY N [SPLIT]";

__global__ void storePair(float *out, int partner, long long delay, int n, int split)
{
    int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
    for (int i = 0; i < n; ++i) {
        __syncthreads();
        if (warp == partner) {
            long long s = clock64();
            while (clock64() - s < delay) {
            }
        }
        if (split) {
            if (warp == 0 || warp == partner)
                out[(size_t)i * 96 + (warp == 0 ? 16 : 48) + lane] = (float)(i + lane);
        } else if (lane < 16 && (warp == 0 || warp == partner)) {
            out[(size_t)i * 32 + (warp == 0 ? 0 : 16) + lane] = (float)(i + lane);
        }
    }
}

int main(int argc, char **argv)
{
    g_prog = "storepair";
    if (argc != 4 && argc != 5) usage_fail(USAGE, "expected 3 or 4 arguments");
    int p = (int)parse_long(argv[1], "P", 1, 7, USAGE);
    long long d = parse_long(argv[2], "DELAY", 0, 1000000, USAGE);
    int n = (int)parse_long(argv[3], "N", 1, 1 << 20, USAGE);
    int split = argc == 5 ? (int)parse_long(argv[4], "SPLIT", 0, 1, USAGE) : 0;
    size_t floats = (size_t)n * (split ? 96 : 32);
    setup_device();
    float *o = dev_alloc<float>(floats);
    CHECK(cudaMemset(o, 0, floats * sizeof(float)));
    storePair<<<1, 256>>>(o, p, d, n, split);
    CHECK_LAUNCH();
    float *h = (float *)host_alloc(floats * sizeof(float));
    CHECK(cudaMemcpy(h, o, floats * sizeof(float), cudaMemcpyDeviceToHost));
    size_t bad = 0;
    for (int i = 0; i < n; ++i)
        for (int l = 0; l < 32; ++l) {
            if (split) {
                bad += h[(size_t)i * 96 + 16 + l] != (float)(i + l);
                bad += h[(size_t)i * 96 + 48 + l] != (float)(i + l);
            } else {
                bad += h[(size_t)i * 32 + l] != (float)(i + l % 16);
            }
        }
    CHECK(cudaFree(o));
    free(h);
    char what[64];
    snprintf(what, sizeof what, "storePair P %d DELAY %lld N %d SPLIT %d", p, d, n, split);
    return finish(what, bad);
}
