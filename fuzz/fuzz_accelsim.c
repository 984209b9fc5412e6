/* fuzz_accelsim.c - libFuzzer harness for the Accel-Sim import
 * (model/trace_accelsim*.c): the input is one kernel's .traceg. A refused input
 * must give one line that starts with the file's path; an accepted one must
 * give a trace that the reader accepts and the H200 model replays
 * (fuzz_trace). The SM count varies with the input's length (1..8, so that
 * waves of CTAs and refilled slots are reached), the CTAs per SM are derived.
 *
 * The interleaving may change the order of records, never the records: an
 * accepted input is imported again with one SM and one CTA at a time (warps
 * in turn), which must also be accepted and give the same summary and, warp
 * by warp, the same records in the same order (compared as a hash per warp's
 * stream, summed over the warps). */
#include <string.h>

#include "fuzz_common.h"
#include "trace_accelsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define STREAMS 4096u /* open addressing; a kernel of the harness's inputs has fewer warps */

typedef struct stream_hash {
    uint64_t key[STREAMS]; /* (cta << 32 | warp) + 1, 0 = empty */
    uint64_t h[STREAMS];
} stream_hash;

static uint64_t mix(uint64_t x)
{
    x ^= x >> 33;
    x *= 0xff51afd7ed558ccdull;
    x ^= x >> 33;
    x *= 0xc4ceb9fe1a85ec53ull;
    return x ^ (x >> 33);
}

/* Fold one record v into the stream of (cta, warp); false when the table is full. */
static bool fold(stream_hash *t, uint32_t cta, uint32_t warp, uint64_t v)
{
    uint64_t key = ((uint64_t)cta << 32 | warp) + 1;
    for (uint64_t i = mix(key) % STREAMS, n = 0; n < STREAMS; i = (i + 1) % STREAMS, n++) {
        if (t->key[i] == 0)
            t->key[i] = key;
        if (t->key[i] == key) {
            t->h[i] = mix(t->h[i] ^ v);
            return true;
        }
    }
    return false;
}

/* The order-insensitive sum of the per-warp order-sensitive hashes of the
 * trace's records; 0 when it has too many warps to tell. */
static uint64_t trace_streams(const char *path, stream_hash *t)
{
    memset(t, 0, sizeof *t);
    err_info err;
    trace_reader *r = trace_reader_open(path, NULL, &err);
    fuzz_check(r != NULL, "%s", err.msg);
    trace_event ev;
    int got;
    bool fits = true;
    while (fits && (got = trace_reader_next(r, &ev, &err)) == 1) {
        if (ev.type == TRACE_EV_MEM) {
            const trace_mem *m = &ev.mem;
            uint64_t v = mix((uint64_t)m->pc << 32 | (uint64_t)m->kind << 24 |
                             (uint64_t)m->space << 16 | (uint64_t)m->size_bytes << 8 | m->flags);
            v = mix(v ^ m->active_mask ^ (uint64_t)m->cache_op << 40);
            for (int l = 0; l < TRACE_WARP_LANES; l++)
                v = mix(v ^ m->addr[l]);
            fits = fold(t, m->cta, m->warp, v);
        } else if (ev.type == TRACE_EV_BARRIER) {
            fits = fold(t, ev.barrier.cta, ev.barrier.warp, mix(0xba55ull << 32 | ev.barrier.pc));
        }
    }
    fuzz_check(!fits || got == 0, "%s", err.msg);
    trace_reader_close(r);
    uint64_t sum = 0;
    for (uint32_t i = 0; fits && i < STREAMS; i++)
        sum += t->key[i] ? mix(t->key[i] ^ t->h[i]) : 0;
    return fits ? sum | 1 : 0;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const char *in = fuzz_memfile(0, data, size);
    const char *out = fuzz_memfile(1, "", 0);
    accelsim_options opt = {.input = ACCELSIM_INPUT_TRACEG, .sm_count = 1u + (uint32_t)(size % 8u),
                            .format = TRACE_FORMAT_BINARY, .zstd_level = 1};
    err_info err;
    err_clear(&err);
    accelsim_summary sum;
    if (trace_accelsim_import(in, out, &opt, &sum, &err) < 0) {
        fuzz_check(strncmp(err.msg, in, strlen(in)) == 0 && !strchr(err.msg, '\n'),
                   "message '%s' is not one line naming %s", err.msg, in);
        return 0;
    }
    fuzz_check(fuzz_trace(out, fuzz_h200_gpu(), TRACE_FORMAT_COUNT) == 0,
               "the imported trace of %s was refused", in);

    /* the same records, warp by warp, with one CTA at a time on one SM */
    const char *serial = fuzz_memfile(2, "", 0);
    accelsim_options one = opt;
    one.sm_count = 1;
    one.ctas_per_sm = 1;
    accelsim_summary sum1;
    fuzz_check(trace_accelsim_import(in, serial, &one, &sum1, &err) == 0,
               "accepted on %u SMs, refused on one: %s", opt.sm_count, err.msg);
    fuzz_check(sum.kernels == sum1.kernels && sum.mem_records == sum1.mem_records &&
                   sum.barrier_records == sum1.barrier_records &&
                   sum.other_insts == sum1.other_insts && sum.pred_off_insts == sum1.pred_off_insts,
               "summaries differ: %llu/%llu/%llu/%llu on %u SMs, %llu/%llu/%llu/%llu on one",
               (unsigned long long)sum.mem_records, (unsigned long long)sum.barrier_records,
               (unsigned long long)sum.other_insts, (unsigned long long)sum.pred_off_insts,
               opt.sm_count, (unsigned long long)sum1.mem_records,
               (unsigned long long)sum1.barrier_records, (unsigned long long)sum1.other_insts,
               (unsigned long long)sum1.pred_off_insts);
    static stream_hash ta, tb;
    uint64_t a = trace_streams(out, &ta), b = trace_streams(serial, &tb);
    fuzz_check(a == 0 || b == 0 || a == b,
               "the records of a warp differ between %u SMs and one SM, one CTA", opt.sm_count);
    return 0;
}
