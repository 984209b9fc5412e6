/* fuzz_common.h - what the libFuzzer harnesses share: handing the input to a
 * reader that wants a path, the H200 model built once, and the replay of a
 * trace through that model (with its checks).
 *
 * The library reads traces and configs from paths only (trace_reader_open,
 * cfg_load), so the input goes to a memory-backed file (memfd) that the
 * reader opens as /proc/self/fd/N: no disk, no temp-file names. The CSV
 * readers take a stream and get fmemopen() directly.
 *
 * A failed check is a crash on purpose (fuzz_check -> abort), so libFuzzer
 * keeps the input. */
#ifndef GMS_FUZZ_COMMON_H
#define GMS_FUZZ_COMMON_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "cfg.h"
#include "gpu.h"
#include "trace.h"

/* Abort with the condition and a message when cond is false. */
#define fuzz_check(cond, ...) \
    ((cond) ? (void)0 : fuzz_fail(__FILE__, __LINE__, #cond, __VA_ARGS__))
void fuzz_fail(const char *file, int line, const char *cond, const char *fmt, ...)
    __attribute__((noreturn, format(printf, 4, 5)));

/* Put bytes in memory-backed file number `slot` (0..3) and return a path
 * that opens it; valid until the next call for that slot. */
const char *fuzz_memfile(int slot, const void *data, size_t size);

/* A read-only stream of the bytes (fmemopen; an empty input is /dev/null). */
FILE *fuzz_memstream(const uint8_t *data, size_t size);

/* configs/h200.ini, loaded once (GMS_FUZZ_CONFIG overrides the path). */
const cfg_gpu *fuzz_h200(void);
/* A model of it, built once and reused: every kernel begins with cold caches
 * (the H200 config says so), so no state carries from one input to the next. */
gpu *fuzz_h200_gpu(void);

/* Read the trace at path to its end, replaying every kernel that fits the
 * model through g and checking the per-PC breakdown. When convert is not
 * TRACE_FORMAT_COUNT, also write what was read in that form and read the
 * result back: it must give the same events (the writer accepts whatever the
 * reader accepted, and the two forms say the same). Returns 0 for a trace
 * the reader accepted, -1 for one it refused (with a message that must be one
 * line naming the trace). */
int fuzz_trace(const char *path, gpu *g, trace_format convert);

#endif
