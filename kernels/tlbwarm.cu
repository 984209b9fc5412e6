/* tlbwarm.cu - does a suite kernel pay for translating its buffers on its
 * first launch? (docs/findings.md §19) vecAdd.cu's addFloat4 on the same
 * sizes (2^18 float4s, 4 MiB per vector), launched four times:
 *   1 suite  : a and b copied from the host, c cleared by cudaMemset, as
 *              vecAdd.cu does before its one launch
 *   2 again  : the same buffers again (their translations warm)
 *   3 memset : new buffers, all three written by cudaMemset first
 *   4 copied : new buffers, all three copied from the host (none warm)
 * Run under ncu (--metrics sm__cycles_elapsed.avg) to see each launch's
 * cycles; the program itself checks the sums.
 * usage: tlbwarm   Exit codes as common.cuh. */
#include "common.cuh"

#define BLOCK 256

__global__ void addFloat4(const float4 *a, const float4 *b, float4 *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

int main(int argc, char **argv)
{
    g_prog = "tlbwarm";
    if (argc != 1) usage_fail("", "expected no arguments, got %d", argc - 1);
    (void)argv;
    setup_device();
    int n = 1 << 18;
    size_t bytes = (size_t)n * sizeof(float4);
    float *ha = (float *)host_alloc(bytes), *hb = (float *)host_alloc(bytes), *hc = (float *)host_alloc(bytes);
    for (size_t i = 0; i < (size_t)n * 4; ++i) {
        ha[i] = small_value(i);
        hb[i] = small_value(i + 17);
    }
    size_t bad = 0;
    float4 *bufs[3][3] = {{NULL}};
    for (int launch = 0; launch < 4; ++launch) {
        int set = launch == 0 || launch == 1 ? 0 : launch - 1;
        float4 **v = bufs[set];
        if (launch != 1) {
            for (int k = 0; k < 3; ++k) v[k] = dev_alloc<float4>((size_t)n);
            if (launch == 2) {
                for (int k = 0; k < 3; ++k) CHECK(cudaMemset(v[k], 0, bytes));
            }
            CHECK(cudaMemcpy(v[0], ha, bytes, cudaMemcpyHostToDevice));
            CHECK(cudaMemcpy(v[1], hb, bytes, cudaMemcpyHostToDevice));
            if (launch == 3)
                CHECK(cudaMemcpy(v[2], hc, bytes, cudaMemcpyHostToDevice));
            else if (launch == 0)
                CHECK(cudaMemset(v[2], 0, bytes));
        }
        addFloat4<<<n / BLOCK, BLOCK>>>(v[0], v[1], v[2], n);
        CHECK_LAUNCH();
        CHECK(cudaMemcpy(hc, v[2], bytes, cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < (size_t)n * 4; ++i) bad += hc[i] != ha[i] + hb[i];
    }
    for (int s = 0; s < 3; ++s)
        for (int k = 0; k < 3; ++k) CHECK(cudaFree(bufs[s][k]));
    return finish("tlbwarm", bad);
}
