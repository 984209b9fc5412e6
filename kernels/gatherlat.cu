/* gatherlat.cu - what a load that touches L lines costs one warp, in L1 and
 * in L2 (docs/findings.md §13). One warp chases pointers: at step s, lane l
 * reads the int at line (s x L + l mod L) of a table, word (l / L) mod 32, and
 * that int is the lane's index for step s + 1, so each load waits for the
 * one before and touches exactly L lines (1 <= L <= 32; 32 / L lanes share a
 * line, so 4 sectors of a line at L = 1 and 1 sector at L = 8 or more). The
 * chase runs twice: the first pass fills the caches, the second is timed
 * (clock64), so every load of it hits: in L2 with __ldcg (past L1; a table
 * of STEPS x L lines, at most 2 MiB) or in L1 with __ldca (a table of at most
 * 64 KiB: STEPS_L1 x L lines).
 *
 * usage: gatherlat       One line per cache level and L on stderr: cycles per
 * step (per dependent load) of the timed pass. */
#include "common.cuh"

#define STEPS 512    /* L2 chase: 512 x 32 lines x 128 B = 2 MiB at L = 32 */
#define STEPS_L1 16  /* L1 chase: 16 x 32 x 128 B = 64 KiB at L = 32 */

static const char *USAGE = "";

/* Lane l's index at step 0 (and after the last step: the chase is a ring). */
__host__ __device__ static inline int start_of(int l, int lines_per_step)
{
    return (l % lines_per_step) * 32 + (l / lines_per_step) % 32;
}

template <bool L1>
__global__ void chase(const int *table, int lines_per_step, int steps, long long *cycles, int *sink)
{
    int i = start_of(threadIdx.x, lines_per_step);
    for (int pass = 0; pass < 2; ++pass) {
        long long t0 = clock64();
        for (int s = 0; s < steps; ++s)
            i = L1 ? __ldca(table + i) : __ldcg(table + i);
        long long t1 = clock64();
        if (pass == 1 && threadIdx.x == 0) cycles[0] = t1 - t0;
    }
    sink[threadIdx.x] = i;
}

/* The table: the int lane l reads at step s holds its index for step s + 1
 * (the last step's: its step-0 index, so the second pass repeats the first). */
static void build(int *h, int lines_per_step, int steps)
{
    for (int s = 0; s < steps; ++s)
        for (int l = 0; l < 32; ++l) {
            long here = (long)s * lines_per_step * 32 + start_of(l, lines_per_step);
            long next = s + 1 < steps ? here + (long)lines_per_step * 32 : start_of(l, lines_per_step);
            h[here] = (int)next;
        }
}

int main(int argc, char **argv)
{
    g_prog = "gatherlat";
    if (argc != 1) usage_fail(USAGE, "expected no arguments");
    setup_device();
    size_t ints = (size_t)STEPS * 32 * 32;
    int *d = dev_alloc<int>(ints);
    int *h = (int *)host_alloc(ints * sizeof(int));
    long long *dc = dev_alloc<long long>(1);
    int *sink = dev_alloc<int>(32);
    for (int level = 0; level < 2; ++level) {
        int steps = level ? STEPS_L1 : STEPS;
        for (int lines = 1; lines <= 32; lines *= 2) {
            memset(h, 0, ints * sizeof(int));
            build(h, lines, steps);
            CHECK(cudaMemcpy(d, h, (size_t)steps * lines * 32 * sizeof(int), cudaMemcpyHostToDevice));
            if (level)
                chase<true><<<1, 32>>>(d, lines, steps, dc, sink);
            else
                chase<false><<<1, 32>>>(d, lines, steps, dc, sink);
            CHECK_LAUNCH();
            long long c = 0;
            CHECK(cudaMemcpy(&c, dc, sizeof c, cudaMemcpyDeviceToHost));
            fprintf(stderr, "%s L %2d: %lld cycles for %d steps, %.1f cycles per step\n", level ? "L1" : "L2", lines,
                    c, steps, (double)c / steps);
        }
    }
    CHECK(cudaFree(d));
    CHECK(cudaFree(dc));
    CHECK(cudaFree(sink));
    free(h);
    return finish("chase", 0);
}
