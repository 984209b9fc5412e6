/* fuzz_accelsim.c - libFuzzer harness for the Accel-Sim import
 * (model/trace_accelsim*.c): the input is one kernel's .traceg. A refused input
 * must give one line that starts with the file's path; an accepted one must
 * give a trace that the reader accepts and the H200 model replays
 * (fuzz_trace). The SM count varies with the input's length (1..8, so that
 * waves of CTAs and refilled slots are reached), the CTAs per SM are derived. */
#include <string.h>

#include "fuzz_common.h"
#include "trace_accelsim.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

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
    return 0;
}
