/* trace_records.c - seed maker for fuzz_trace_binary: writes the records of a
 * binary trace (its zstd stream, decompressed, without the 16-byte header),
 * which is the input form that harness takes.
 *
 * usage: trace_records IN.trace OUT [MAX_BYTES]   (stops after MAX_BYTES) */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

int main(int argc, char **argv)
{
    if (argc < 3) {
        fprintf(stderr, "usage: trace_records IN.trace OUT [MAX_BYTES]\n");
        return 2;
    }
    unsigned long max = argc > 3 ? strtoul(argv[3], NULL, 10) : 0;
    FILE *in = fopen(argv[1], "rb");
    if (!in) {
        perror(argv[1]);
        return 2;
    }
    char head[16];
    if (fread(head, 1, 16, in) != 16 || memcmp(head, "GMSTRACE", 8) != 0) {
        fprintf(stderr, "%s: not a binary trace\n", argv[1]);
        return 2;
    }
    FILE *out = fopen(argv[2], "wb");
    if (!out) {
        perror(argv[2]);
        return 2;
    }
    ZSTD_DCtx *d = ZSTD_createDCtx();
    static char ibuf[1 << 16], obuf[1 << 17];
    unsigned long written = 0;
    size_t n;
    while ((n = fread(ibuf, 1, sizeof ibuf, in)) > 0) {
        ZSTD_inBuffer zi = {ibuf, n, 0};
        while (zi.pos < zi.size) {
            ZSTD_outBuffer zo = {obuf, sizeof obuf, 0};
            size_t rc = ZSTD_decompressStream(d, &zo, &zi);
            if (ZSTD_isError(rc)) {
                fprintf(stderr, "%s: %s\n", argv[1], ZSTD_getErrorName(rc));
                return 2;
            }
            size_t k = zo.pos;
            if (max && written + k > max)
                k = max - written;
            fwrite(obuf, 1, k, out);
            written += k;
            if (max && written == max)
                goto done;
        }
    }
done:
    ZSTD_freeDCtx(d);
    fclose(in);
    return fclose(out) == 0 ? 0 : 2;
}
