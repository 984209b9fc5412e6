/* vecAdd.cu - c = a + b with wide accesses: each thread adds one float4
 * (16-byte loads and stores, LDG.E.128 / STG.E.128) or one double (8-byte).
 * Beyond the seeds: a warp's 16-byte accesses cover 512 bytes, four lines,
 * and 8-byte ones two; the request, sector and wavefront counts of wide
 * accesses on real hardware.
 *
 *   addFloat4   c4[i] = a4[i] + b4[i]
 *   addDouble   c[i]  = a[i] + b[i]
 *
 * SMEM_KIB (default 0) reserves that much dynamic shared memory per CTA,
 * unused, so that fewer CTAs fit an SM and the same bytes stream in more
 * waves (docs/findings.md §24b: one wave against several).
 *
 * usage: vecAdd float4|double [N [SMEM_KIB]]   (elements of the type; default
 *        2^18 float4s = 4 MiB per vector, or 2^19 doubles = 4 MiB; blocks of 256) */
#include "common.cuh"

#define BLOCK 256

static const char *USAGE = "float4|double [N [SMEM_KIB]]";

__global__ void addFloat4(const float4 *a, const float4 *b, float4 *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) {
        float4 x = a[i], y = b[i];
        c[i] = make_float4(x.x + y.x, x.y + y.y, x.z + y.z, x.w + y.w);
    }
}

__global__ void addDouble(const double *a, const double *b, double *c, int n)
{
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (i < n) c[i] = a[i] + b[i];
}

int main(int argc, char **argv)
{
    g_prog = "vecAdd";
    if (argc < 2 || argc > 4) usage_fail(USAGE, "expected 1 to 3 arguments");
    const char *mode = argv[1];
    int f4 = strcmp(mode, "float4") == 0;
    if (!f4 && strcmp(mode, "double") != 0) usage_fail(USAGE, "unknown mode '%s'", mode);
    int n = f4 ? 1 << 18 : 1 << 19;
    if (argc > 2) n = (int)parse_long(argv[2], "N", 1, 1 << 25, USAGE);
    int smem = argc > 3 ? (int)parse_long(argv[3], "SMEM_KIB", 0, 200, USAGE) * 1024 : 0;
    setup_device();
    if (smem > 48 * 1024) {
        CHECK(cudaFuncSetAttribute(addFloat4, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
        CHECK(cudaFuncSetAttribute(addDouble, cudaFuncAttributeMaxDynamicSharedMemorySize, smem));
    }

    /* the same 4 MiB per vector either way: floats of small integers, whose
     * sums are exact in float and in double */
    size_t floats = f4 ? (size_t)n * 4 : (size_t)n * 2;
    size_t bytes = floats * sizeof(float);
    float *ha = (float *)host_alloc(bytes), *hb = (float *)host_alloc(bytes);
    float *hc = (float *)host_alloc(bytes), *want = (float *)host_alloc(bytes);
    double *da_h = NULL, *db_h = NULL, *dc_h = NULL, *dwant = NULL;
    if (f4) {
        for (size_t i = 0; i < floats; ++i) {
            ha[i] = small_value(i);
            hb[i] = small_value(i + 17);
            want[i] = ha[i] + hb[i];
        }
    } else {
        da_h = (double *)ha; db_h = (double *)hb; dc_h = (double *)hc; dwant = (double *)want;
        for (int i = 0; i < n; ++i) {
            da_h[i] = (double)small_value((size_t)i);
            db_h[i] = (double)small_value((size_t)i + 17);
            dwant[i] = da_h[i] + db_h[i];
        }
    }
    void *a = dev_alloc<char>(bytes), *b = dev_alloc<char>(bytes), *c = dev_alloc<char>(bytes);
    CHECK(cudaMemcpy(a, ha, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(b, hb, bytes, cudaMemcpyHostToDevice));
    CHECK(cudaMemset(c, 0, bytes));
    int blocks = (n + BLOCK - 1) / BLOCK;
    if (f4)
        addFloat4<<<blocks, BLOCK, smem>>>((const float4 *)a, (const float4 *)b, (float4 *)c, n);
    else
        addDouble<<<blocks, BLOCK, smem>>>((const double *)a, (const double *)b, (double *)c, n);
    CHECK_LAUNCH();
    CHECK(cudaMemcpy(hc, c, bytes, cudaMemcpyDeviceToHost));

    size_t bad = 0;
    if (f4) {
        bad = count_mismatches("c", hc, want, floats, 0.0f);
    } else {
        for (int i = 0; i < n; ++i)
            if (dc_h[i] != dwant[i]) {
                if (bad < 5) fprintf(stderr, "vecAdd: c[%d] = %g, expected %g\n", i, dc_h[i], dwant[i]);
                ++bad;
            }
    }
    char what[96];
    snprintf(what, sizeof what, "%s<<<%d, %d>>> n %d", f4 ? "addFloat4" : "addDouble", blocks, BLOCK, n);
    int rc = finish(what, bad);
    CHECK(cudaFree(a));
    CHECK(cudaFree(b));
    CHECK(cudaFree(c));
    free(ha); free(hb); free(hc); free(want);
    return rc;
}
