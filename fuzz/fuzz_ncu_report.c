/* fuzz_ncu_report.c - libFuzzer harness for the Nsight Compute metric-report
 * reader (ncu_report_read_stream: long and wide CSV), then the lookups that
 * validation makes on what it read, with the invariants ncu_csv.h promises. */
#include <math.h>
#include <string.h>

#include "fuzz_common.h"
#include "ncu_csv.h"

#define NAME "fuzz.ncu.csv"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check_metric(const ncu_launch *l, const ncu_metric *m)
{
    fuzz_check(m->name && m->section && m->unit && m->text, "a metric string is NULL");
    fuzz_check(ncu_launch_metric_in(l, m->section, m->name) == m,
               "metric %s in %s is not found as itself (a duplicate?)", m->name, m->section);
    const ncu_metric *first = ncu_launch_metric(l, m->name);
    fuzz_check(first && strcmp(first->name, m->name) == 0 && first <= m,
               "metric %s: the lookup by name misses it", m->name);
    switch (m->kind) {
    case NCU_VALUE_ABSENT:
        fuzz_check(isnan(m->value) && !m->is_integer, "absent value %s is a number", m->text);
        break;
    case NCU_VALUE_NUMBER:
        fuzz_check(!isnan(m->value), "number %s is NaN", m->text);
        fuzz_check(!m->is_integer || (double)m->u == m->value, "integer %s: %llu vs %g", m->text,
                   (unsigned long long)m->u, m->value);
        break;
    case NCU_VALUE_TEXT:
        fuzz_check(isnan(m->value) && !m->is_integer, "label %s has a value", m->text);
        break;
    case NCU_VALUE_KIND_COUNT:
        fuzz_check(0, "value kind COUNT");
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    FILE *f = fuzz_memstream(data, size);
    ncu_report rep;
    err_info err;
    err_clear(&err);
    int rc = ncu_report_read_stream(f, NAME, &rep, &err);
    fclose(f);
    if (rc != 0) {
        fuzz_check(strncmp(err.msg, NAME ":", strlen(NAME) + 1) == 0,
                   "message does not name the file: %s", err.msg);
        fuzz_check(strchr(err.msg, '\n') == NULL, "message is not one line: %s", err.msg);
        return 0;
    }
    fuzz_check((unsigned)rep.format < NCU_FORMAT_COUNT, "format %d", (int)rep.format);
    for (uint32_t i = 0; i < rep.n; i++) {
        const ncu_launch *l = &rep.launches[i];
        fuzz_check(i == 0 || rep.launches[i - 1].id < l->id, "launch ids do not increase");
        fuzz_check(l->kernel && l->block && l->grid && l->device && l->cc, "a launch string is NULL");
        for (uint32_t j = 0; j < l->n; j++)
            check_metric(l, &l->metrics[j]);
    }
    for (uint32_t i = 0; i < rep.n_notes; i++)
        fuzz_check(strncmp(rep.notes[i], NAME ":", strlen(NAME) + 1) == 0, "note %s",
                   rep.notes[i]);
    ncu_report_free(&rep);
    return 0;
}
