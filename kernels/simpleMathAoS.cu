/* simpleMathAoS.cu - seed 003, array of structures: struct {float x, y},
 * x += 10, y += 20 (Professional CUDA C Programming, simpleMathAoS.cu).
 * Each field is a separate 4-byte load and store at a stride of 8 bytes (the
 * struct is 4-byte aligned, so no 8-byte access), so a warp touches twice the
 * sectors it needs: the seed reports ld.pct = st.pct = 50% (RTX 5090).
 * LEN is 2^20 here, not the seed's 2^22, to keep the trace small.
 *
 * usage: simpleMathAoS [BLOCK]   (default 128) */
#include "common.cuh"

#define LEN (1 << 20)

static const char *USAGE = "[BLOCK]";

struct innerStruct {
    float x;
    float y;
};

__global__ void testInnerStruct(innerStruct *data, innerStruct *result, const int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        innerStruct tmp = data[i];
        tmp.x += 10.f;
        tmp.y += 20.f;
        result[i] = tmp;
    }
}

int main(int argc, char **argv)
{
    g_prog = "simpleMathAoS";
    if (argc > 2) usage_fail(USAGE, "expected at most 1 argument");
    int block = 128;
    if (argc > 1) block = (int)parse_long(argv[1], "BLOCK", 32, 1024, USAGE);
    if (block % 32 != 0) usage_fail(USAGE, "BLOCK %s must be a multiple of 32", argv[1]);
    setup_device();

    const int n = LEN;
    size_t bytes = (size_t)n * sizeof(innerStruct);
    innerStruct *h = (innerStruct *)host_alloc(bytes), *hr = (innerStruct *)host_alloc(bytes);
    float *got = (float *)host_alloc(2 * (size_t)n * sizeof(float));
    float *want = (float *)host_alloc(2 * (size_t)n * sizeof(float));
    for (int i = 0; i < n; ++i) {
        h[i].x = small_value(i);
        h[i].y = small_value(i + 5);
        want[2 * i] = h[i].x + 10.f;
        want[2 * i + 1] = h[i].y + 20.f;
    }
    innerStruct *d = dev_alloc<innerStruct>(n), *dr = dev_alloc<innerStruct>(n);
    CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dr, 0, bytes));

    dim3 blk(block), grid((n + block - 1) / block);
    testInnerStruct<<<grid, blk>>>(d, dr, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hr, dr, bytes, cudaMemcpyDeviceToHost));
    for (int i = 0; i < n; ++i) {
        got[2 * i] = hr[i].x;
        got[2 * i + 1] = hr[i].y;
    }

    char what[96];
    snprintf(what, sizeof what, "testInnerStruct<<<%u, %u>>> n %d", grid.x, blk.x, n);
    int rc = finish(what, count_mismatches("result(x,y)", got, want, 2 * (size_t)n, 0.0f));
    CHECK(cudaFree(d));
    CHECK(cudaFree(dr));
    free(h); free(hr); free(got); free(want);
    return rc;
}
