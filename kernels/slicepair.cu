/* slicepair.cu - which 1 KiB chunks of a 2 MiB page share an L2 slice on the
 * H200 (docs/findings.md §21). ncu gives no per-slice values of L2 counters,
 * only the busiest slice's (lts__t_requests_srcunit_tex_op_read.max), so a
 * launch asks one question (readPair, common.cuh): SM SM alone reads the
 * first line of chunk a and of chunk b of a 2 MiB-aligned buffer, 256 times
 * each, past L1; the busiest slice then served all the requests that
 * reached L2 when both lines are on one slice (of the SM's near partition),
 * half when not (reads of one line in flight together reach L2 as one: ~128
 * requests in all, not 512). The pairs: every
 * two of the 12 chunks BASE, BASE ^ 1, BASE ^ 2, ..., BASE ^ 1024 (the
 * address bits 10 to 20 one at a time): 66 launches after one warm-up
 * launch that reads all 12 lines (their near copies made). 2 MiB pages keep
 * a virtual address's bits 0-20 in the physical address the hash reads.
 *
 * usage: slicepair SM BASE   (SM 0-131, BASE a chunk 0-2047); stderr: the
 *        pairs in launch order ("pair N: chunk A chunk B"), for
 *        kernels/probes/slicepair.sh to put beside ncu's rows. */
#include "common.cuh"

#define CHUNKS 12

static const char *USAGE = "SM BASE";

__global__ void readAll(const float *buf, const unsigned *lines, unsigned n, unsigned sm, float *sink)
{
    if (smid() != sm) return;
    float sum = 0.0f;
    for (unsigned i = 0; i < n; ++i) sum += __ldcg(buf + (size_t)lines[i] * 32 + threadIdx.x);
    if (sum == 12345.0f) sink[threadIdx.x] = sum;
}

int main(int argc, char **argv)
{
    g_prog = "slicepair";
    if (argc != 3) usage_fail(USAGE, "expected 2 arguments");
    unsigned sm = (unsigned)parse_long(argv[1], "SM", 0, 131, USAGE);
    unsigned base = (unsigned)parse_long(argv[2], "BASE", 0, 2047, USAGE);
    setup_device();
    const size_t page = (size_t)2 << 20;
    char *raw = NULL;
    CHECK(cudaMalloc((void **)&raw, 2 * page));
    CHECK(cudaMemset(raw, 0, 2 * page));
    const float *buf = (const float *)(((uintptr_t)raw + page - 1) & ~(uintptr_t)(page - 1));
    float *sink = dev_alloc<float>(32);
    unsigned chunk[CHUNKS], line[CHUNKS];
    chunk[0] = base;
    for (int j = 0; j < CHUNKS - 1; ++j) chunk[j + 1] = base ^ (1u << j);
    for (int j = 0; j < CHUNKS; ++j) line[j] = chunk[j] * 8; /* 1 KiB = 8 lines */
    unsigned *dlines = dev_alloc<unsigned>(CHUNKS);
    CHECK(cudaMemcpy(dlines, line, sizeof line, cudaMemcpyHostToDevice));
    readAll<<<132, 32>>>(buf, dlines, CHUNKS, sm, sink);
    CHECK_LAUNCH();
    int n = 0;
    for (int i = 0; i < CHUNKS; ++i)
        for (int j = i + 1; j < CHUNKS; ++j) {
            fprintf(stderr, "pair %d: chunk %u chunk %u\n", n++, chunk[i], chunk[j]);
            readPair<<<132, 32>>>(buf, line[i], line[j], sm, 0u, sink);
            CHECK_LAUNCH();
        }
    CHECK(cudaFree(raw));
    CHECK(cudaFree(sink));
    CHECK(cudaFree(dlines));
    char what[64];
    snprintf(what, sizeof what, "readPair x %d on SM %u, base chunk %u", n, sm, base);
    return finish(what, 0);
}
