/* fuzz_trace_text.c - libFuzzer harness for the text trace reader
 * (model/trace_text.c behind trace_reader_open), then the H200 model and the
 * conversion to binary and back (fuzz_trace). The input is the file. */
#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_trace(fuzz_memfile(0, data, size), fuzz_h200_gpu(), TRACE_FORMAT_BINARY);
    return 0;
}
