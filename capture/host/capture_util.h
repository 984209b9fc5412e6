/* capture_util.h - small CUDA-free services of the capture tool: demangling,
 * running NVIDIA's disassemblers, and the facts that go into a trace's
 * metadata (GPU list handed from the wrapper to the library, driver and CUDA
 * versions, the date). */
#ifndef GMS_CAPTURE_UTIL_H
#define GMS_CAPTURE_UTIL_H

#include <stddef.h>
#include <stdint.h>
#include <time.h>

#include "err.h"

/* The C++ runtime's demangler: __cxa_demangle's signature (the library
 * passes the real one, tests a stand-in; C code can call it, its symbol has C
 * linkage). It returns a malloc'd string and sets *status to 0 on success. */
typedef char *(*capture_demangler)(const char *mangled, char *buf, size_t *len, int *status);

/* The demangled form of a C++ symbol; a copy of mangled when it is not a
 * mangled name, fn is NULL or fails. The caller frees the result. */
char *capture_demangle(const char *mangled, capture_demangler fn);

/* Run argv[0] (an absolute path) with argv, its standard output into
 * stdout_path and its standard error into stdout_path + ".err". Returns 0
 * when it exited with status 0; else -1 with a message that quotes the first
 * line of its standard error. */
int capture_run_tool(const char *const argv[], const char *stdout_path, err_info *err);

/* The driver version in the text of /proc/driver/nvidia/version ("NVRM
 * version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  ..."). 0, or -1 when
 * there is none. */
int capture_driver_version(const char *proc_text, char *out, size_t out_bytes);

/* "13.0" for cuDriverGetVersion's 13000. */
void capture_cuda_version(int v, char *out, size_t out_bytes);

/* "2026-11-23T10:04:05Z" */
void capture_iso8601_utc(time_t t, char *out, size_t out_bytes);

/* One GPU as the wrapper saw it. The list travels in one environment
 * variable: "name|major.minor|sms" per device ordinal, separated by ';'
 * ('|' and ';' in names are replaced by '_'). */
typedef struct capture_gpu {
    char name[128];
    uint32_t cc_major, cc_minor;
    uint32_t sm_count;
} capture_gpu;

/* Append g to the list in buf (size buf_bytes). -1 when it does not fit. */
int capture_gpu_append(char *buf, size_t buf_bytes, const capture_gpu *g);
/* Entry `ordinal` of list. -1 with a message when absent or malformed. */
int capture_gpu_lookup(const char *list, uint32_t ordinal, capture_gpu *out, err_info *err);

#endif
