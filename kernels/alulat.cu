/* alulat.cu - how many cycles a dependent arithmetic instruction takes on the
 * H200 before the next one can use its result (docs/findings.md §13): one
 * warp runs a chain of N dependent instructions of one kind (clock64 around
 * it, second run), for the kinds a kernel puts between its loads: integer
 * multiply-add (IMAD), 64-bit address arithmetic (IMAD.WIDE), integer add
 * (IADD3), float add (FADD) and fused multiply-add (FFMA); and two that
 * release a scoreboard when done rather than after a fixed stall (findings
 * §17): a special-register read (%globaltimer_lo, which the compiler
 * cannot fold: S2UR, each added to a sum that waits for it) and a
 * constant-bank load whose index is the previous one's value (a table of
 * 256 ints that point at themselves; one index a warp that the compiler
 * does not know to be uniform, so an LDC with a register index, and a shift
 * for the index between them).
 *
 * usage: alulat    One line per kind on stderr: cycles per instruction. */
#include "common.cuh"

#define N 4096
#define KINDS 7

__constant__ int c_table[256];

static const char *USAGE = "";

__global__ void chains(int seed, long long *cycles, int *sink)
{
    int a = seed + threadIdx.x, k = seed | 1;
    unsigned long long p = (unsigned long long)seed;
    float f = (float)seed, g = 1.0001f;
    int c = (seed + threadIdx.x / 32) & 255; /* one index a warp, but not known uniform: an LDC, not a ULDC */
    for (int kind = 0; kind < KINDS; ++kind)
        for (int pass = 0; pass < 2; ++pass) {
            long long t0 = clock64();
            switch (kind) {
            case 0:
#pragma unroll 64
                for (int i = 0; i < N; ++i) a = a * k + 7;                 /* IMAD */
                break;
            case 1:
#pragma unroll 64
                for (int i = 0; i < N; ++i) p = (unsigned long long)(unsigned)a * 4u + p; /* IMAD.WIDE */
                break;
            case 2:
#pragma unroll 64
                for (int i = 0; i < N; ++i) a = a + k + i;                 /* IADD3 */
                break;
            case 3:
#pragma unroll 64
                for (int i = 0; i < N; ++i) f = f + g;                     /* FADD */
                break;
            case 4:
#pragma unroll 64
                for (int i = 0; i < N; ++i) f = f * g + g;                 /* FFMA */
                break;
            case 5:
#pragma unroll 64
                for (int i = 0; i < N; ++i) {                              /* S2R, then IADD3 */
                    unsigned t;
                    asm volatile("mov.u32 %0, %%globaltimer_lo;" : "=r"(t));
                    a += (int)t;
                }
                break;
            default:
#pragma unroll 64
                for (int i = 0; i < N; ++i) c = c_table[c & 255];          /* LDC, LOP3 */
                break;
            }
            long long t1 = clock64();
            if (pass == 1 && threadIdx.x == 0) cycles[kind] = t1 - t0;
        }
    sink[threadIdx.x] = a + (int)p + (int)f + c;
}

int main(int argc, char **argv)
{
    (void)argv;
    g_prog = "alulat";
    if (argc != 1) usage_fail(USAGE, "expected no arguments");
    setup_device();
    int table[256];
    for (int i = 0; i < 256; ++i) table[i] = i; /* each entry points at itself */
    CHECK(cudaMemcpyToSymbol(c_table, table, sizeof table));
    long long *d = dev_alloc<long long>(KINDS);
    int *sink = dev_alloc<int>(32);
    chains<<<1, 32>>>(3, d, sink);
    CHECK_LAUNCH();
    long long h[KINDS];
    CHECK(cudaMemcpy(h, d, sizeof h, cudaMemcpyDeviceToHost));
    static const char *name[KINDS] = {"IMAD", "IMAD.WIDE", "IADD3", "FADD", "FFMA", "S2UR+IADD3", "LDC+SHF"};
    for (int i = 0; i < KINDS; ++i)
        fprintf(stderr, "%-9s: %lld cycles for %d, %.2f cycles per dependent instruction\n", name[i], h[i], N,
                (double)h[i] / N);
    CHECK(cudaFree(d));
    CHECK(cudaFree(sink));
    return finish("chains", 0);
}
