/* cmd_trace.c - `gpumemsim trace info|dump`: look inside traces and convert
 * between the binary and the text form.
 *
 *   trace info [--allow-incomplete] TRACE...
 *       form and version, metadata, per kernel: launch, names, grid, block,
 *       memory records by space and kind, barriers, PCs; then the totals and
 *       the bytes on disk per memory/barrier record.
 *   trace dump [--allow-incomplete] [--binary [--zstd-level N]] [-o FILE] TRACE
 *       the text form (to stdout by default), or with --binary a binary trace
 *       (-o required then; zstd level N = 1..19, default 3: 19 makes a
 *       captured trace ~15% smaller, for traces kept in the repository). A dump of an incomplete trace stays marked
 *       incomplete; a dump that fails half-way is removed (-o) or ends with an
 *       "incomplete" end line (stdout), so it is never taken for a whole trace.
 *   trace synth --pattern NAME --instructions N -o FILE [--seed S]
 *       a synthetic trace (sim/cmd_synth.c).
 *   trace import --accelsim PATH -o OUT [...]
 *       an Accel-Sim trace collection (sim/cmd_import.c).
 *
 * Bad usage or input: one line on stderr, exit 2. */
#include <errno.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cmd_synth.h"
#include "commands.h"
#include "trace.h"

#define USAGE_INFO "gpumemsim trace info [--allow-incomplete] TRACE..."
#define USAGE_DUMP "gpumemsim trace dump [--allow-incomplete] [--binary [--zstd-level N]] [-o FILE] TRACE"
#define PROGRESS_EVERY ((uint64_t)1 << 22)

/* ---- progress on stderr, only when it is a terminal -------------------------- */

typedef struct progress {
    bool on;
    bool shown;
    const char *path;
} progress;

static void progress_init(progress *p, const char *path)
{
    p->on = isatty(STDERR_FILENO) == 1;
    p->shown = false;
    p->path = path;
}

static void progress_tick(progress *p, uint64_t events)
{
    if (p->on && events % PROGRESS_EVERY == 0) {
        fprintf(stderr, "\rgpumemsim: %s: %" PRIu64 " records", p->path, events);
        p->shown = true;
    }
}

static void progress_done(progress *p)
{
    if (p->shown)
        fputs("\r\033[K", stderr);
    p->shown = false;
}

/* ---- info ---------------------------------------------------------------------- */

/* s as the text form writes strings: quoted, with \" \\ \n \t escaped, and
 * other control bytes as \xHH so that one item stays one line */
static void print_quoted(const char *s)
{
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\')
            printf("\\%c", c);
        else if (c == '\n')
            fputs("\\n", stdout);
        else if (c == '\t')
            fputs("\\t", stdout);
        else if (c < 0x20 || c == 0x7f)
            printf("\\x%02x", c);
        else
            putchar(c);
    }
    putchar('"');
}

typedef struct kernel_tally {
    uint64_t mem[TRACE_SPACE_COUNT][TRACE_KIND_COUNT];
    uint64_t mem_total, barriers; /* barrier records, shuffles included */
    uint64_t shuffles;
} kernel_tally;

static void print_kernel(uint32_t index, const trace_kernel *k, const kernel_tally *t)
{
    printf("  kernel %" PRIu32 ": launch %" PRIu32 ", ", index, k->launch);
    print_quoted(k->demangled);
    putchar('\n');
    if (strcmp(k->name, k->demangled) != 0) {
        printf("    mangled ");
        print_quoted(k->name);
        putchar('\n');
    }
    printf("    grid %" PRIu32 ",%" PRIu32 ",%" PRIu32 "  block %" PRIu32 ",%" PRIu32 ",%" PRIu32
           "  smem %" PRIu32 "+%" PRIu32 " B  regs %" PRIu32 "  local %" PRIu32 " B\n",
           k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1], k->block[2],
           k->smem_static_bytes, k->smem_dynamic_bytes, k->regs_per_thread,
           k->local_bytes_per_thread);
    printf("    %" PRIu32 " PCs, %" PRIu32 " source files, %" PRIu64 " barriers", k->n_pcs, k->n_files,
           t->barriers - t->shuffles);
    if (t->shuffles)
        printf(", %" PRIu64 " shuffles", t->shuffles);
    putchar('\n');
    printf("    %" PRIu64 " memory records", t->mem_total);
    const char *sep = ": ";
    for (int s = 0; s < TRACE_SPACE_COUNT; s++) {
        for (int kd = 0; kd < TRACE_KIND_COUNT; kd++) {
            if (t->mem[s][kd]) {
                printf("%s%s %s %" PRIu64, sep, trace_space_name((trace_space)s),
                       trace_kind_name((trace_kind)kd), t->mem[s][kd]);
                sep = ", ";
            }
        }
    }
    printf("\n");
}

static int info_one(const char *path, const trace_reader_options *opt)
{
    err_info err;
    err_clear(&err);
    trace_reader *r = trace_reader_open(path, opt, &err);
    if (!r)
        return cmd_fail("%s", err.msg);
    const trace_meta *meta = trace_reader_meta(r);
    printf("%s: %s trace, format version %" PRIu32 "\n", trace_reader_path(r),
           trace_reader_format(r) == TRACE_FORMAT_BINARY ? "binary" : "text",
           trace_reader_version(r));
    for (uint32_t i = 0; i < meta->n; i++) {
        printf("  meta %s ", meta->keys[i]);
        print_quoted(meta->values[i]);
        putchar('\n');
    }

    /* records as the format counts them: meta, end, and per kernel its
     * kernel, file, pc, memory, barrier and kernel end records */
    uint64_t records = meta->n + 1, mem = 0, barriers = 0, events = 0;
    uint32_t index = 0;
    kernel_tally t;
    progress pr;
    progress_init(&pr, trace_reader_path(r));
    trace_event ev;
    int rc;
    while ((rc = trace_reader_next(r, &ev, &err)) == 1) {
        progress_tick(&pr, ++events);
        switch (ev.type) {
        case TRACE_EV_KERNEL:
            memset(&t, 0, sizeof t);
            records += 2 + (uint64_t)ev.kernel->n_files + ev.kernel->n_pcs;
            break;
        case TRACE_EV_MEM:
            t.mem[ev.mem.space][ev.mem.kind]++;
            t.mem_total++;
            break;
        case TRACE_EV_BARRIER:
            t.barriers++;
            t.shuffles += ev.barrier.kind == TRACE_BAR_SHFL;
            break;
        case TRACE_EV_KERNEL_END:
            progress_done(&pr);
            print_kernel(index++, ev.kernel, &t);
            records += t.mem_total + t.barriers;
            mem += t.mem_total;
            barriers += t.barriers;
            break;
        case TRACE_EV_COUNT:
            break;
        }
    }
    progress_done(&pr);
    if (rc < 0) {
        trace_reader_close(r);
        return cmd_fail("%s", err.msg);
    }
    uint64_t bytes = trace_reader_bytes(r);
    printf("  total: %" PRIu32 " kernels, %" PRIu64 " records (%" PRIu64 " memory, %" PRIu64
           " barrier), %" PRIu64 " bytes", trace_reader_kernels(r), records, mem, barriers, bytes);
    if (mem + barriers)
        printf(", %.2f bytes per memory/barrier record", (double)bytes / (double)(mem + barriers));
    printf("\n");
    const char *reason;
    if (trace_reader_incomplete(r, &reason))
        printf("  INCOMPLETE: %s\n", reason);
    else
        printf("  complete\n");
    trace_reader_close(r);
    return 0;
}

static int cmd_trace_info(int argc, char **argv)
{
    trace_reader_options opt = {.allow_incomplete = false};
    int first = argc;
    bool options_done = false;
    for (int i = 1; i < argc; i++) {
        if (!options_done && strcmp(argv[i], "--") == 0) {
            options_done = true;
        } else if (!options_done && strcmp(argv[i], "--allow-incomplete") == 0) {
            opt.allow_incomplete = true;
        } else if (!options_done && argv[i][0] == '-' && argv[i][1] != '\0') {
            return cmd_fail("trace info: unknown option %s (usage: %s)", argv[i], USAGE_INFO);
        } else if (first == argc) {
            first = i;
        }
    }
    if (first == argc)
        return cmd_fail("trace info: no trace given (usage: %s)", USAGE_INFO);
    options_done = false;
    for (int i = first; i < argc; i++) {
        if (!options_done && strcmp(argv[i], "--") == 0) {
            options_done = true;
            continue;
        }
        if (!options_done && argv[i][0] == '-' && argv[i][1] != '\0')
            continue;
        int rc = info_one(argv[i], &opt);
        if (rc != 0)
            return rc;
    }
    if (fflush(stdout) != 0 || ferror(stdout))
        return cmd_fail("standard output: write error: %s", strerror(errno));
    return 0;
}

/* ---- dump ---------------------------------------------------------------------- */

static bool same_file(const char *a, const char *b)
{
    struct stat sa, sb;
    return stat(a, &sa) == 0 && stat(b, &sb) == 0 && sa.st_dev == sb.st_dev &&
           sa.st_ino == sb.st_ino;
}

/* A failed dump removes its output, if that is a regular file (-o /dev/null
 * must survive a failed dump). */
static void remove_output(const char *out)
{
    struct stat st;
    if (out && strcmp(out, "-") != 0 && stat(out, &st) == 0 && S_ISREG(st.st_mode))
        remove(out);
}

static int dump(const char *in, const char *out, bool binary, int zstd_level, const trace_reader_options *opt)
{
    err_info err;
    err_clear(&err);
    if (out && strcmp(out, "-") != 0 && strcmp(in, "-") != 0 && same_file(in, out))
        return cmd_fail("trace dump: the output %s is the input trace", out);
    trace_reader *r = trace_reader_open(in, opt, &err);
    if (!r)
        return cmd_fail("%s", err.msg);
    const char *out_path = out ? out : "-";
    trace_writer *w = trace_writer_open(out_path, binary ? TRACE_FORMAT_BINARY : TRACE_FORMAT_TEXT,
                                        zstd_level, trace_reader_meta(r), &err);
    if (!w) {
        trace_reader_close(r);
        return cmd_fail("%s", err.msg);
    }
    progress pr;
    progress_init(&pr, trace_reader_path(r));
    uint64_t events = 0;
    trace_event ev;
    int rc;
    while ((rc = trace_reader_next(r, &ev, &err)) == 1) {
        progress_tick(&pr, ++events);
        switch (ev.type) {
        case TRACE_EV_KERNEL:
            rc = trace_writer_kernel(w, ev.kernel, &err);
            break;
        case TRACE_EV_MEM:
            rc = trace_writer_mem(w, &ev.mem, &err);
            break;
        case TRACE_EV_BARRIER:
            rc = trace_writer_barrier(w, &ev.barrier, &err);
            break;
        case TRACE_EV_KERNEL_END:
            rc = trace_writer_kernel_end(w, &err);
            break;
        case TRACE_EV_COUNT:
            rc = 0;
            break;
        }
        if (rc < 0)
            break;
    }
    progress_done(&pr);
    if (rc < 0) {
        /* mark what was written as incomplete, then drop it if it is a file */
        err_info ignored;
        trace_writer_close(w, false, "gpumemsim trace dump stopped on an error", &ignored);
        remove_output(out);
        trace_reader_close(r);
        return cmd_fail("%s", err.msg);
    }
    const char *reason;
    bool incomplete = trace_reader_incomplete(r, &reason);
    rc = trace_writer_close(w, !incomplete, reason, &err);
    trace_reader_close(r);
    if (rc < 0) {
        remove_output(out);
        return cmd_fail("%s", err.msg);
    }
    return 0;
}

static int cmd_trace_dump(int argc, char **argv)
{
    trace_reader_options opt = {.allow_incomplete = false};
    const char *in = NULL, *out = NULL;
    bool binary = false, options_done = false;
    int zstd_level = 0; /* the writer's default */
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!options_done && strcmp(a, "--") == 0) {
            options_done = true;
        } else if (!options_done && strcmp(a, "--allow-incomplete") == 0) {
            opt.allow_incomplete = true;
        } else if (!options_done && strcmp(a, "--binary") == 0) {
            binary = true;
        } else if (!options_done && strcmp(a, "--zstd-level") == 0) {
            char *end;
            long v = i + 1 < argc ? strtol(argv[i + 1], &end, 10) : 0;
            if (i + 1 == argc || end == argv[i + 1] || *end != '\0' || v < 1 || v > 19)
                return cmd_fail("trace dump: --zstd-level: expected a level from 1 to 19, got %s (usage: %s)",
                                i + 1 < argc ? argv[i + 1] : "nothing", USAGE_DUMP);
            zstd_level = (int)v;
            i++;
        } else if (!options_done && strcmp(a, "-o") == 0) {
            if (i + 1 == argc)
                return cmd_fail("trace dump: -o needs a FILE (usage: %s)", USAGE_DUMP);
            if (out)
                return cmd_fail("trace dump: -o given twice (usage: %s)", USAGE_DUMP);
            out = argv[++i];
        } else if (!options_done && a[0] == '-' && a[1] != '\0') {
            return cmd_fail("trace dump: unknown option %s (usage: %s)", a, USAGE_DUMP);
        } else if (in) {
            return cmd_fail("trace dump: more than one trace given (%s and %s; usage: %s)", in, a,
                            USAGE_DUMP);
        } else {
            in = a;
        }
    }
    if (!in)
        return cmd_fail("trace dump: no trace given (usage: %s)", USAGE_DUMP);
    if (binary && (!out || strcmp(out, "-") == 0))
        return cmd_fail("trace dump: --binary needs -o FILE (usage: %s)", USAGE_DUMP);
    if (zstd_level && !binary)
        return cmd_fail("trace dump: --zstd-level is for --binary output (usage: %s)", USAGE_DUMP);
    return dump(in, out, binary, zstd_level, &opt);
}

int cmd_trace(int argc, char **argv)
{
    if (argc < 2)
        return cmd_fail("trace: missing subcommand (usage: %s | %s)", USAGE_INFO, USAGE_DUMP);
    if (strcmp(argv[1], "info") == 0)
        return cmd_trace_info(argc - 1, argv + 1);
    if (strcmp(argv[1], "dump") == 0)
        return cmd_trace_dump(argc - 1, argv + 1);
    if (strcmp(argv[1], "check") == 0)
        return cmd_trace_check(argc - 1, argv + 1);
    if (strcmp(argv[1], "synth") == 0)
        return cmd_trace_synth(argc - 1, argv + 1);
    if (strcmp(argv[1], "import") == 0)
        return cmd_trace_import(argc - 1, argv + 1);
    if (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        printf("usage: %s\n       %s\n       gpumemsim trace check TRACE NCU_CSV\n       %s\n"
               "       gpumemsim trace import --accelsim PATH -o OUT [--text] [--sm-count N] "
               "[--ctas-per-sm K]\n", USAGE_INFO, USAGE_DUMP, SYNTH_USAGE);
        return 0;
    }
    return cmd_fail("trace: unknown subcommand %s (expected info, dump, check, synth or import)", argv[1]);
}
