/* spmv.cu - y = A x for a sparse matrix in CSR form: beyond the seeds, the
 * irregular gather that real programs make. A is banded: each of its ROWS
 * rows holds NNZ entries whose columns lie within 1,024 of the diagonal at
 * pseudo-random places, so x[col] is a gather with reuse that L1 and L2 can
 * catch (neighbouring rows read overlapping parts of x).
 *
 *   spmvScalar   one thread per row: lanes read entries NNZ x 4 bytes apart
 *                (one sector each) and gather x at 32 scattered columns
 *   spmvVector   one warp per row: lane l reads entry l (coalesced) and
 *                gathers x at its column; a shuffle reduction, lane 0 stores
 *
 * Values are small integers, so every sum is exact.
 *
 *   spmvVectorLat  spmvVector (one iteration: NNZ = 32) with every warp's
 *                gather of x timed on its SM's clock (docs/findings.md §21)
 *
 * usage: spmv scalar|vector|scalar-timed|vector-timed [ROWS]   (default 2^13 rows of 32 entries; blocks
 *        of 64 threads: 128 blocks for scalar, 4,096 for vector)
 *        spmv vector-lat ROWS WARM   WARM 1: a first launch, then L2 emptied by reading 96 MiB,
 *                                    then the stamped launch (as the suite's ncu passes find it:
 *                                    translations warm, data in DRAM); 0: the stamped launch only */
#include "common.cuh"

#define NNZ 32
#define BLOCK 64
#define BAND 1024

static const char *USAGE = "scalar|vector|scalar-timed|vector-timed [ROWS] | vector-lat ROWS WARM";

__global__ void spmvScalar(const int *row_ptr, const int *col, const float *val, const float *x, float *y,
                           int rows)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    if (r >= rows) return;
    float sum = 0.0f;
    for (int k = row_ptr[r]; k < row_ptr[r + 1]; ++k) sum += val[k] * x[col[k]];
    y[r] = sum;
}

__global__ void spmvVector(const int *row_ptr, const int *col, const float *val, const float *x, float *y,
                           int rows)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= rows) return;
    float sum = 0.0f;
    for (int k = row_ptr[warp] + lane; k < row_ptr[warp + 1]; k += 32) sum += val[k] * x[col[k]];
    for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) y[warp] = sum;
}

/* spmvScalar with each warp's progress on the GPU's clock (%globaltimer, ns):
 * lane 0 writes when its warp starts (and its SM), after its half of the
 * entries and at its end, so that how far apart the SMs run can be compared with the model's
 * (docs/findings.md §2e). Its loop is spmvScalar's, cut in two halves. */
__global__ void spmvScalarTimed(const int *row_ptr, const int *col, const float *val, const float *x, float *y,
                                int rows, unsigned long long *stamps)
{
    int r = blockIdx.x * blockDim.x + threadIdx.x;
    int warp = r / 32;
    bool stamp = threadIdx.x % 32 == 0;
    if (stamp) {
        stamps[4 * (size_t)warp] = globaltimer();
        stamps[4 * (size_t)warp + 3] = smid();
    }
    if (r >= rows) return;
    float sum = 0.0f;
    int mid = (row_ptr[r] + row_ptr[r + 1]) / 2;
    for (int k = row_ptr[r]; k < mid; ++k) sum += val[k] * x[col[k]];
    if (stamp) stamps[4 * (size_t)warp + 1] = globaltimer() + (sum == 12345.0f);
    for (int k = mid; k < row_ptr[r + 1]; ++k) sum += val[k] * x[col[k]];
    y[r] = sum;
    if (stamp) stamps[4 * (size_t)warp + 2] = globaltimer() + (sum == 12345.0f);
}

/* spmvVector with lane 0 of each warp reading its SM's clock (%clock64) at
 * its start and right before its store of y, so that how far apart the two
 * warps of a CTA store can be compared with the model's (docs/timing.md,
 * "Reads in the queue": their stores merge only when close). */
__global__ void spmvVectorTimed(const int *row_ptr, const int *col, const float *val, const float *x, float *y,
                                int rows, unsigned long long *stamps)
{
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    unsigned long long t0 = clock64();
    if (warp >= rows) return;
    float sum = 0.0f;
    for (int k = row_ptr[warp] + lane; k < row_ptr[warp + 1]; k += 32) sum += val[k] * x[col[k]];
    for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) {
        unsigned long long t1 = clock64();
        y[warp] = sum;
        stamps[3 * (size_t)warp] = t0;
        stamps[3 * (size_t)warp + 1] = t1;
        stamps[3 * (size_t)warp + 2] = smid();
    }
}

/* spmvVector with lane 0 of each warp reading its SM's clock before its loads
 * of col and val, after a shared store that waits for both, and after a
 * shared store that waits for its gather of x: the gather's latency on the
 * H200, beside the model's for the same kernel (kernels/probes/spmvlat.sh).
 * The clobber of clock_now keeps each load and store on its side of a read;
 * a warp issues in order, so a read after a store waits for the store's data.
 * The GPU's clock (%globaltimer, ns) at the first read (g0) and after the
 * warp's stores issued (g3, with the SM's clock t3 after it) place the warps
 * of all SMs on one time line; tb and gb are read first of all. The SASS
 * reads t0 after the IMAD that adds the loaded row_ptr to the lane, so tb to
 * t0 holds the load of row_ptr and the wait for its data. */
#define LAT_STAMPS 9
__global__ void spmvVectorLat(const int *row_ptr, const int *col, const float *val, const float *x, float *y,
                              int rows, long long *stamps)
{
    long long tb = clock_now(); /* the warp's first instructions */
    unsigned long long gb = globaltimer();
    __shared__ float sink_mem[BLOCK];
    volatile float *sink = sink_mem; /* volatile: the stores stay */
    int warp = (blockIdx.x * blockDim.x + threadIdx.x) / 32, lane = threadIdx.x % 32;
    if (warp >= rows) return;
    int k = row_ptr[warp] + lane; /* NNZ = 32: one entry a lane */
    long long t0 = clock_now();
    unsigned long long g0 = globaltimer();
    int c = col[k];
    float v = val[k];
    sink[threadIdx.x] = v + (float)c;
    long long t1 = clock_now();
    float xv = x[c];
    sink[threadIdx.x] = xv;
    long long t2 = clock_now();
    float sum = v * xv;
    for (int off = 16; off > 0; off /= 2) sum += __shfl_down_sync(0xffffffffu, sum, off);
    if (lane == 0) {
        long long *st = stamps + LAT_STAMPS * (size_t)warp;
        y[warp] = sum;
        st[0] = t0;
        st[1] = t1;
        st[2] = t2;
        st[3] = smid();
        st[4] = (long long)g0;
        st[5] = (long long)globaltimer(); /* after the stores before it issued */
        st[6] = clock_now();
        st[7] = tb;
        st[8] = (long long)gb;
    }
}

int main(int argc, char **argv)
{
    g_prog = "spmv";
    if (argc < 2 || argc > 4) usage_fail(USAGE, "expected 1 to 3 arguments");
    const char *mode = argv[1];
    int lat = strcmp(mode, "vector-lat") == 0;
    int vtimed = strcmp(mode, "vector-timed") == 0;
    int vector = strcmp(mode, "vector") == 0 || vtimed || lat, timed = strcmp(mode, "scalar-timed") == 0;
    if (!vector && !timed && strcmp(mode, "scalar") != 0) usage_fail(USAGE, "unknown mode '%s'", mode);
    if (lat != (argc == 4)) usage_fail(USAGE, lat ? "vector-lat takes ROWS and WARM" : "WARM is vector-lat's");
    int rows = 1 << 13;
    if (argc > 2) rows = (int)parse_long(argv[2], "ROWS", BAND, 1 << 22, USAGE);
    int warm = lat ? (int)parse_long(argv[3], "WARM", 0, 1, USAGE) : 0;
    setup_device();

    size_t nnz = (size_t)rows * NNZ;
    int *hptr = (int *)host_alloc((size_t)(rows + 1) * sizeof(int));
    int *hcol = (int *)host_alloc(nnz * sizeof(int));
    float *hval = (float *)host_alloc(nnz * sizeof(float));
    float *hx = (float *)host_alloc((size_t)rows * sizeof(float));
    float *hy = (float *)host_alloc((size_t)rows * sizeof(float));
    float *want = (float *)host_alloc((size_t)rows * sizeof(float));
    for (int r = 0; r < rows; ++r) hx[r] = small_value((size_t)r);
    for (int r = 0; r <= rows; ++r) hptr[r] = r * NNZ;
    for (int r = 0; r < rows; ++r) {
        float s = 0.0f;
        for (int j = 0; j < NNZ; ++j) {
            size_t k = (size_t)r * NNZ + j;
            int c = r + (int)(hash_mix32((unsigned int)k + 1u) % (2 * BAND)) - BAND;
            c = ((c % rows) + rows) % rows;
            hcol[k] = c;
            hval[k] = (float)((k * 5u) % 7u) - 3.0f;
            s += hval[k] * hx[c];
        }
        want[r] = s;
    }
    int *dptr = dev_alloc<int>((size_t)rows + 1), *dcol = dev_alloc<int>(nnz);
    float *dval = dev_alloc<float>(nnz), *dx = dev_alloc<float>((size_t)rows), *dy = dev_alloc<float>((size_t)rows);
    CHECK(cudaMemcpy(dptr, hptr, (size_t)(rows + 1) * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dcol, hcol, nnz * sizeof(int), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dval, hval, nnz * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemcpy(dx, hx, (size_t)rows * sizeof(float), cudaMemcpyHostToDevice));
    CHECK(cudaMemset(dy, 0, (size_t)rows * sizeof(float)));
    int blocks = vector ? (int)(((size_t)rows * 32 + BLOCK - 1) / BLOCK) : (rows + BLOCK - 1) / BLOCK;
    unsigned long long *dstamps = NULL;
    size_t nstamps = 4 * ((size_t)blocks * BLOCK / 32);
    if (vtimed) nstamps = 3 * (size_t)rows;
    if (lat) nstamps = LAT_STAMPS * (size_t)rows;
    if (timed || vtimed || lat) {
        dstamps = dev_alloc<unsigned long long>(nstamps);
        CHECK(cudaMemset(dstamps, 0, nstamps * sizeof(unsigned long long)));
    }
    if (lat && warm) {
        spmvVectorLat<<<blocks, BLOCK>>>(dptr, dcol, dval, dx, dy, rows, (long long *)dstamps);
        CHECK_LAUNCH();
        size_t sfloats = (size_t)96 << 18; /* 96 MiB: more than L2 holds */
        float *scratch = dev_alloc<float>(sfloats), *sink = dev_alloc<float>(1);
        CHECK(cudaMemset(scratch, 0, sfloats * sizeof(float)));
        read_all<<<132 * 8, 256>>>((const float4 *)scratch, sfloats / 4, sink);
        CHECK_LAUNCH();
        CHECK(cudaFree(scratch));
        CHECK(cudaFree(sink));
    }
    if (lat)
        spmvVectorLat<<<blocks, BLOCK>>>(dptr, dcol, dval, dx, dy, rows, (long long *)dstamps);
    else if (vtimed)
        spmvVectorTimed<<<blocks, BLOCK>>>(dptr, dcol, dval, dx, dy, rows, dstamps);
    else if (vector)
        spmvVector<<<blocks, BLOCK>>>(dptr, dcol, dval, dx, dy, rows);
    else if (timed)
        spmvScalarTimed<<<blocks, BLOCK>>>(dptr, dcol, dval, dx, dy, rows, dstamps);
    else
        spmvScalar<<<blocks, BLOCK>>>(dptr, dcol, dval, dx, dy, rows);
    CHECK_LAUNCH();
    if (timed) { /* stdout: "warp start mid end sm", times in ns from the earliest start */
        unsigned long long *h = (unsigned long long *)host_alloc(nstamps * sizeof(unsigned long long)), t0 = ~0ull;
        CHECK(cudaMemcpy(h, dstamps, nstamps * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < nstamps; i += 4) t0 = h[i] < t0 ? h[i] : t0;
        for (size_t i = 0; i < nstamps; i += 4)
            printf("%zu %llu %llu %llu %llu\n", i / 4, h[i] - t0, h[i + 1] - t0, h[i + 2] - t0, h[i + 3]);
        free(h);
        CHECK(cudaFree(dstamps));
    }
    if (vtimed) { /* stdout: "warp start store sm", SM clock cycles */
        unsigned long long *h = (unsigned long long *)host_alloc(nstamps * sizeof(unsigned long long));
        CHECK(cudaMemcpy(h, dstamps, nstamps * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < nstamps; i += 3) printf("%zu %llu %llu %llu\n", i / 3, h[i], h[i + 1], h[i + 2]);
        free(h);
        CHECK(cudaFree(dstamps));
    }
    if (lat) { /* stdout: "warp sm t0 t1 t2 g0 g3 t3 tb gb": SM clock cycles, the GPU's ns, SM cycles */
        unsigned long long *h = (unsigned long long *)host_alloc(nstamps * sizeof(unsigned long long));
        CHECK(cudaMemcpy(h, dstamps, nstamps * sizeof(unsigned long long), cudaMemcpyDeviceToHost));
        for (size_t i = 0; i < nstamps; i += LAT_STAMPS)
            printf("%zu %llu %llu %llu %llu %llu %llu %llu %llu %llu\n", i / LAT_STAMPS, h[i + 3], h[i], h[i + 1],
                   h[i + 2], h[i + 4], h[i + 5], h[i + 6], h[i + 7], h[i + 8]);
        free(h);
        CHECK(cudaFree(dstamps));
    }
    CHECK(cudaMemcpy(hy, dy, (size_t)rows * sizeof(float), cudaMemcpyDeviceToHost));

    char what[96];
    snprintf(what, sizeof what, "%s<<<%d, %d>>> rows %d nnz %zu",
             lat ? "spmvVectorLat" : vtimed ? "spmvVectorTimed" : vector ? "spmvVector" : timed ? "spmvScalarTimed" : "spmvScalar", blocks,
             BLOCK, rows, nnz);
    int rc = finish(what, count_mismatches("y", hy, want, (size_t)rows, 0.0f));
    CHECK(cudaFree(dptr)); CHECK(cudaFree(dcol)); CHECK(cudaFree(dval)); CHECK(cudaFree(dx)); CHECK(cudaFree(dy));
    free(hptr); free(hcol); free(hval); free(hx); free(hy); free(want);
    return rc;
}
