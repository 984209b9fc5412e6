/* ncu_csv.h - read Nsight Compute's CSV output exactly as ncu writes it.
 *
 * Two kinds of file, both committed unedited from the GPU machine:
 *
 *  - metric reports (ncu_report_read):
 *      long:  `ncu --csv --metrics LIST ./prog` (also the default details page,
 *             `ncu --csv ./prog`): one row per (launch, metric);
 *      wide:  `ncu --csv --page raw ...`: one row per launch, a header row of
 *             metric names and a second row of units.
 *  - the source page (ncu_source_read): `ncu -i REP --page source --csv
 *    --print-source sass` (one block per kernel, one row per SASS instruction)
 *    and the `--print-source cuda,sass` variant.
 *
 * What is read: ncu's own "==PROF==" / "==WARNING==" lines are skipped,
 * "==ERROR==" lines are kept as notes; program output before the CSV header is
 * skipped. Numbers as ncu prints them ("131,072", "12.5", "-3"); "n/a", "-" and
 * "" are absent, never 0. What is not: ncu's rule advice (details-page rows with
 * no metric), the per-source-line aggregate rows of the cuda,sass view, the
 * --print-summary shapes. docs/ncu-csv.md has the details.
 *
 * The library never prints: bad input returns -1 and one line in err_info,
 * "PATH:LINE: what was expected". */
#ifndef GMS_NCU_CSV_H
#define GMS_NCU_CSV_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "err.h"

/* Refused by name before anything grows past them (bounded memory on any
 * input). The biggest real record is a --page raw header of ~400 metric names
 * (~20 KB); --set full raw pages stay below a few thousand columns. */
#define NCU_CSV_RECORD_MAX_BYTES (4u << 20) /* one CSV record, quotes included */
#define NCU_CSV_FIELDS_MAX 16384u           /* fields in one record */
#define NCU_CSV_LAUNCHES_MAX 1000000u       /* launches in one report */
#define NCU_CSV_NOTES_MAX 256u              /* ==ERROR== lines kept */
#define NCU_SOURCE_KERNELS_MAX 100000u      /* kernel blocks in one source page */
#define NCU_SOURCE_CELLS_MAX (1u << 24)     /* rows x metric columns of one kernel block */

typedef enum ncu_value_kind {
    NCU_VALUE_ABSENT, /* "", "n/a" or "-": ncu has no value; never read as 0 */
    NCU_VALUE_NUMBER, /* a number as ncu prints it: "131,072", "12.5", "-3", "1.5e+09" */
    NCU_VALUE_TEXT,   /* a label: "PolicySpread", "NVIDIA H200", "Global" */
    NCU_VALUE_KIND_COUNT
} ncu_value_kind;

typedef enum ncu_format {
    NCU_FORMAT_LONG, /* --csv [--metrics LIST]: one row per (launch, metric) */
    NCU_FORMAT_WIDE, /* --csv --page raw: one row per launch, a units row */
    NCU_FORMAT_COUNT
} ncu_format;

typedef struct ncu_metric {
    char *name;    /* "dram__sectors_read.sum"; on the details page ncu's label, "Duration" */
    char *section; /* "Command line profiler metrics", a details section; "" on the raw page */
    char *unit;    /* "sector", "%", "inst"; "" when ncu prints none */
    char *text;    /* the value exactly as written: "131,072", "n/a", "PolicySpread" */
    ncu_value_kind kind;
    double value;    /* NCU_VALUE_NUMBER: the value; NAN otherwise */
    bool is_integer; /* written without fraction or exponent, and 0 <= value < 2^64 */
    uint64_t u;      /* is_integer: the exact value (counters above 2^53 stay exact here) */
    uint32_t line;   /* line of the file it was read from */
} ncu_metric;

typedef struct ncu_launch {
    uint32_t id;     /* the ID column: ncu's index of the profiled launch */
    char *kernel;    /* Kernel Name as ncu prints it: "coalesced(const float *, float *, int)" */
    char *block;     /* Block Size as printed, "(256, 1, 1)" */
    char *grid;      /* Grid Size as printed, "(4096, 1, 1)" */
    uint32_t block_dim[3], grid_dim[3]; /* the same, parsed (x, y, z) */
    char *device;    /* Device column, "0" */
    char *cc;        /* compute capability, "9.0" */
    uint32_t line;   /* first line of the launch in the file */
    uint32_t n;      /* metrics, in file order */
    ncu_metric *metrics;
} ncu_launch;

typedef struct ncu_report {
    ncu_format format;
    uint32_t n; /* launches, in file order; ids strictly increase */
    ncu_launch *launches;
    uint32_t n_notes; /* ncu's "==ERROR==" lines, each "PATH:LINE: ==ERROR== ..." */
    char **notes;
} ncu_report;

/* Read a metric report (long or wide; told apart by the header row). On
 * success fills *out (free with ncu_report_free) and returns 0; on bad input
 * returns -1, leaves *out empty and fills err. Rows of one launch must be
 * together and launch ids must increase, as ncu writes them; a launch with the
 * same metric (same section and name) twice is an error. */
int ncu_report_read(const char *path, ncu_report *out, err_info *err);
/* The same from an open stream; name is used in messages. Does not close f. */
int ncu_report_read_stream(FILE *f, const char *name, ncu_report *out, err_info *err);
void ncu_report_free(ncu_report *r);

/* The launch's first metric called name (any section), or NULL. */
const ncu_metric *ncu_launch_metric(const ncu_launch *l, const char *name);
/* The metric called name in section (details page: "Memory Throughput" is in
 * two sections), or NULL. */
const ncu_metric *ncu_launch_metric_in(const ncu_launch *l, const char *section,
                                       const char *name);

/* ---- source page ------------------------------------------------------------
 * PC convention: a kernel block's base_address is the address of its entry,
 * and each row's pc_offset = address - base_address, which is the offset that
 * nvdisasm prints beside the same instruction (its "00c0" column). In the sass view ncu
 * lists every instruction of the kernel in address order starting at the
 * entry, so the entry is the first row; the reader checks that addresses
 * strictly increase. In the cuda,sass view ncu groups instructions under source
 * lines and repeats some; the reader drops repeats (they must be identical),
 * puts rows in address order and takes the lowest address as the entry. */

typedef struct ncu_source_row {
    uint64_t address;     /* the Address column: the instruction's address in that launch */
    uint64_t pc_offset;   /* address - base_address */
    char *sass;           /* Source column without ncu's indentation: "LDG.E.CONSTANT R2, ..."
                           * (a predicate keeps ncu's spacing: "@P0   EXIT") */
    uint32_t source_line; /* cuda,sass view: the CUDA line it belongs to; 0 in the sass view */
    uint32_t line;        /* line of the CSV file */
} ncu_source_row;

typedef struct ncu_source_text {
    uint32_t row, col; /* the cell; sorted by (row, col) */
    char *text;        /* "Global", "Load", "32(2)" */
} ncu_source_text;

typedef struct ncu_source_kernel {
    char *kernel;          /* "coalesced(const float *, float *, int)" */
    char *source_file;     /* cuda,sass view: the File Path; NULL in the sass view */
    uint64_t base_address; /* the entry: see the PC convention above */
    uint32_t n_rows;       /* instructions, in address order */
    ncu_source_row *rows;
    uint32_t n_cols;       /* metric columns (those after Address and Source) */
    char **column_names;   /* "Instructions Executed", "L2 Theoretical Sectors Global", ... */
    double *values;        /* n_rows x n_cols, row-major; NAN when "-", "" or text */
    uint32_t n_texts;      /* the cells that are labels rather than numbers */
    ncu_source_text *texts;
    uint32_t line;         /* line of the block's first record */
} ncu_source_kernel;

typedef struct ncu_source_report {
    uint32_t n; /* kernel blocks in file order (ncu may print one kernel more than once) */
    ncu_source_kernel *kernels;
    uint32_t n_notes; /* ncu's "==ERROR==" lines, as in ncu_report */
    char **notes;
} ncu_source_report;

int ncu_source_read(const char *path, ncu_source_report *out, err_info *err);
int ncu_source_read_stream(FILE *f, const char *name, ncu_source_report *out, err_info *err);
void ncu_source_free(ncu_source_report *r);

/* Index of the column called name, or -1. */
int ncu_source_column(const ncu_source_kernel *k, const char *name);
/* The value of a cell (NAN when absent or text). row < n_rows, col < n_cols. */
double ncu_source_value(const ncu_source_kernel *k, uint32_t row, uint32_t col);
/* The text of a cell that is a label, or NULL. */
const char *ncu_source_text_at(const ncu_source_kernel *k, uint32_t row, uint32_t col);
/* Index of the row at pc_offset, or -1. */
int64_t ncu_source_row_at(const ncu_source_kernel *k, uint64_t pc_offset);

#endif
