/* fuzz_ncu_source.c - libFuzzer harness for the Nsight Compute source-page
 * reader (ncu_source_read_stream: the sass and cuda,sass views), then every
 * lookup of ncu_csv.h on what it read, with the invariants it promises. */
#include <math.h>
#include <string.h>

#include "fuzz_common.h"
#include "ncu_csv.h"

#define NAME "fuzz.source.csv"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_kernel(const ncu_source_kernel *k)
{
    fuzz_check(k->kernel != NULL, "kernel name NULL");
    for (uint32_t r = 0; r < k->n_rows; r++) {
        const ncu_source_row *row = &k->rows[r];
        fuzz_check(row->sass != NULL, "row %u: SASS NULL", r);
        fuzz_check(r == 0 || k->rows[r - 1].address < row->address, "rows not in address order");
        fuzz_check(row->address >= k->base_address &&
                       row->pc_offset == row->address - k->base_address,
                   "row %u: pc_offset is not address - base_address", r);
        fuzz_check(ncu_source_row_at(k, row->pc_offset) == (int64_t)r, "row %u: row_at misses it",
                   r);
    }
    for (uint32_t c = 0; c < k->n_cols; c++) {
        int found = ncu_source_column(k, k->column_names[c]);
        fuzz_check(found >= 0 && (uint32_t)found <= c &&
                       strcmp(k->column_names[found], k->column_names[c]) == 0,
                   "column %u (%s): lookup gives %d", c, k->column_names[c], found);
    }
    for (uint32_t t = 0; t < k->n_texts; t++) {
        const ncu_source_text *x = &k->texts[t];
        fuzz_check(x->row < k->n_rows && x->col < k->n_cols && x->text, "text cell %u out of range",
                   t);
        fuzz_check(t == 0 || k->texts[t - 1].row < x->row ||
                       (k->texts[t - 1].row == x->row && k->texts[t - 1].col < x->col),
                   "text cells not sorted at %u", t);
        fuzz_check(ncu_source_text_at(k, x->row, x->col) == x->text, "text cell %u not found", t);
        fuzz_check(isnan(ncu_source_value(k, x->row, x->col)), "text cell %u has a value", t);
    }
    double sum = 0;
    for (uint32_t r = 0; r < k->n_rows; r++)
        for (uint32_t c = 0; c < k->n_cols; c++) {
            double v = ncu_source_value(k, r, c);
            if (!isnan(v))
                sum += v;
        }
    (void)sum;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_memstream(data, size);
    ncu_source_report rep;
    err_info err;
    err_clear(&err);
    int rc = ncu_source_read_stream(f, NAME, &rep, &err);
    fclose(f);
    if (rc != 0) {
        fuzz_check(strncmp(err.msg, NAME ":", strlen(NAME) + 1) == 0,
                   "message does not name the file: %s", err.msg);
        fuzz_check(strchr(err.msg, '\n') == NULL, "message is not one line: %s", err.msg);
        return 0;
    }
    for (uint32_t i = 0; i < rep.n; i++)
        check_kernel(&rep.kernels[i]);
    for (uint32_t i = 0; i < rep.n_notes; i++)
        fuzz_check(strncmp(rep.notes[i], NAME ":", strlen(NAME) + 1) == 0, "note %s",
                   rep.notes[i]);
    ncu_source_free(&rep);
    return 0;
}
