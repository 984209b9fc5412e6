/* simpleMathSoA.cu - seed 003, structure of arrays: struct {float x[LEN],
 * y[LEN]}, x += 10, y += 20 (Professional CUDA C Programming, simpleMathSoA.cu).
 * Every load and store is a coalesced 128-byte warp access: the seed reports
 * ld.pct = st.pct = 100% (RTX 5090). LEN is 2^20 here, not the seed's 2^22.
 *
 * usage: simpleMathSoA [BLOCK]   (default 128) */
#include "common.cuh"

#define LEN (1 << 20)

static const char *USAGE = "[BLOCK]";

struct InnerArray {
    float x[LEN];
    float y[LEN];
};

__global__ void testInnerArray(InnerArray *data, InnerArray *result, const int n)
{
    unsigned int i = blockIdx.x * blockDim.x + threadIdx.x;

    if (i < n) {
        float tmpx = data->x[i];
        float tmpy = data->y[i];

        tmpx += 10.f;
        tmpy += 20.f;
        result->x[i] = tmpx;
        result->y[i] = tmpy;
    }
}

int main(int argc, char **argv)
{
    g_prog = "simpleMathSoA";
    if (argc > 2) usage_fail(USAGE, "expected at most 1 argument");
    int block = 128;
    if (argc > 1) block = (int)parse_long(argv[1], "BLOCK", 32, 1024, USAGE);
    if (block % 32 != 0) usage_fail(USAGE, "BLOCK %s must be a multiple of 32", argv[1]);
    setup_device();

    const int n = LEN;
    size_t bytes = sizeof(InnerArray);
    InnerArray *h = (InnerArray *)host_alloc(bytes), *hr = (InnerArray *)host_alloc(bytes);
    InnerArray *want = (InnerArray *)host_alloc(bytes);
    for (int i = 0; i < n; ++i) {
        h->x[i] = small_value(i);
        h->y[i] = small_value(i + 5);
        want->x[i] = h->x[i] + 10.f;
        want->y[i] = h->y[i] + 20.f;
    }
    InnerArray *d = dev_alloc<InnerArray>(1), *dr = dev_alloc<InnerArray>(1);
    CHECK(cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dr, 0, bytes));

    dim3 blk(block), grid((n + block - 1) / block);
    testInnerArray<<<grid, blk>>>(d, dr, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hr, dr, bytes, cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "testInnerArray<<<%u, %u>>> n %d", grid.x, blk.x, n);
    size_t bad = count_mismatches("result->x", hr->x, want->x, n, 0.0f) +
                 count_mismatches("result->y", hr->y, want->y, n, 0.0f);
    int rc = finish(what, bad);
    CHECK(cudaFree(d));
    CHECK(cudaFree(dr));
    free(h); free(hr); free(want);
    return rc;
}
