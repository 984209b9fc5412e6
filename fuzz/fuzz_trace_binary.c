/* fuzz_trace_binary.c - libFuzzer harness for the binary trace reader
 * (model/trace_binary.c behind trace_reader_open), then the H200 model over
 * the records and the conversion to text and back (fuzz_trace).
 *
 * The input is the decompressed record stream: the harness puts the 16-byte
 * header in front and wraps the records in a zstd frame of raw (stored)
 * blocks without a checksum, which the format allows. So every mutated byte
 * reaches the record decoder as it is, instead of dying at zstd's checksum or
 * being scrambled by its entropy coder, and no compressor runs per input. An
 * input that starts with "GMSTRACE" is taken as a whole file instead, so the
 * header and real zstd framing are fuzzed too (the seeds include such files). */
#include <stdlib.h>
#include <string.h>

#include "fuzz_common.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define RAW_BLOCK_MAX ((size_t)128 << 10) /* zstd's largest block, = the window below */

/* header + zstd frame of raw blocks around data[0..size) into out; returns its length. */
static size_t frame(const uint8_t *data, size_t size, uint8_t *out)
{
    static const uint8_t header[16] = {'G', 'M', 'S', 'T', 'R', 'A', 'C', 'E', 1, 0, 0, 0,
                                       0,   0,   0,   0};
    size_t n = 0;
    memcpy(out, header, sizeof header);
    n += sizeof header;
    /* zstd magic; frame header descriptor 0: no content size, no checksum,
     * a window descriptor follows: 2^(10 + 7) = 128 KiB */
    static const uint8_t zhead[6] = {0x28, 0xb5, 0x2f, 0xfd, 0x00, 7u << 3};
    memcpy(out + n, zhead, sizeof zhead);
    n += sizeof zhead;
    size_t done = 0;
    do {
        size_t k = size - done < RAW_BLOCK_MAX ? size - done : RAW_BLOCK_MAX;
        uint32_t last = done + k == size;
        uint32_t bh = last | 0u << 1 /* raw */ | (uint32_t)k << 3;
        out[n++] = (uint8_t)bh;
        out[n++] = (uint8_t)(bh >> 8);
        out[n++] = (uint8_t)(bh >> 16);
        memcpy(out + n, data + done, k);
        n += k;
        done += k;
    } while (done < size);
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static uint8_t *file;
    static size_t file_cap;
    const char *path;
    if (size >= 8 && memcmp(data, "GMSTRACE", 8) == 0) {
        path = fuzz_memfile(0, data, size);
    } else {
        size_t need = 16 + 6 + 3 * (size / RAW_BLOCK_MAX + 1) + size;
        if (need > file_cap) {
            free(file);
            file = malloc(need);
            fuzz_check(file != NULL, "out of memory");
            file_cap = need;
        }
        path = fuzz_memfile(0, file, frame(data, size, file));
    }
    fuzz_trace(path, fuzz_h200_gpu(), TRACE_FORMAT_TEXT);
    return 0;
}
