/* test_ncu_csv.c - the Nsight Compute CSV readers against ncu's own output
 * (tests/data/ncu/, H200) and every way a file can be wrong. */
#include <check.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "ncu_csv.h"
#include "suites.h"

#define DATA "tests/data/ncu/"

/* ---- helpers ---------------------------------------------------------------- */

static FILE *mem_file(const char *bytes, size_t n)
{
    FILE *f = tmpfile();
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(fwrite(bytes, 1, n, f), n);
    rewind(f);
    return f;
}

static int report_mem(const char *text, ncu_report *r, err_info *e)
{
    FILE *f = mem_file(text, strlen(text));
    err_clear(e);
    int rc = ncu_report_read_stream(f, "t.csv", r, e);
    fclose(f);
    return rc;
}

static int source_mem(const char *text, ncu_source_report *r, err_info *e)
{
    FILE *f = mem_file(text, strlen(text));
    err_clear(e);
    int rc = ncu_source_read_stream(f, "s.csv", r, e);
    fclose(f);
    return rc;
}

/* The message a bad report gets; the report must be left empty. */
static const char *report_error(const char *text, err_info *e)
{
    ncu_report r;
    ck_assert_int_eq(report_mem(text, &r, e), -1);
    ck_assert_uint_eq(r.n, 0);
    ck_assert_ptr_null(r.launches);
    return e->msg;
}

static const char *source_error(const char *text, err_info *e)
{
    ncu_source_report r;
    ck_assert_int_eq(source_mem(text, &r, e), -1);
    ck_assert_uint_eq(r.n, 0);
    return e->msg;
}

static const ncu_metric *metric(const ncu_launch *l, const char *name)
{
    const ncu_metric *m = ncu_launch_metric(l, name);
    ck_assert_msg(m != NULL, "launch %u has no metric %s", l->id, name);
    return m;
}

/* A counter as ncu prints it: an exact integer. */
static void assert_count(const ncu_launch *l, const char *name, uint64_t want)
{
    const ncu_metric *m = metric(l, name);
    ck_assert_int_eq(m->kind, NCU_VALUE_NUMBER);
    ck_assert_msg(m->is_integer, "%s: %s is not an integer", name, m->text);
    ck_assert_uint_eq(m->u, want);
    ck_assert_double_eq(m->value, (double)want);
}

/* The long format, as ncu writes it for --metrics, with one row per call. */
#define LONG_HEADER                                                                               \
    "\"ID\",\"Process ID\",\"Process Name\",\"Host Name\",\"Kernel Name\",\"Context\",\"Stream\"," \
    "\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\",\"Metric Name\","             \
    "\"Metric Unit\",\"Metric Value\"\n"
#define ROW(id, kernel, name, unit, value)                                                 \
    "\"" id "\",\"507\",\"probe\",\"127.0.0.1\",\"" kernel "\",\"1\",\"7\",\"(256, 1, 1)\"," \
    "\"(4096, 1, 1)\",\"0\",\"9.0\",\"Command line profiler metrics\",\"" name "\",\"" unit  \
    "\",\"" value "\"\n"
#define K0 "k(const float *, int)"

/* ---- the committed H200 samples --------------------------------------------- */

START_TEST(metrics_page_of_the_probe)
{
    ncu_report r;
    err_info e = {{0}};
    ck_assert_msg(ncu_report_read(DATA "probe_metrics.csv", &r, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(r.format, NCU_FORMAT_LONG);
    ck_assert_uint_eq(r.n, 4);
    ck_assert_uint_eq(r.n_notes, 0); /* ==WARNING== and ==PROF== lines are not notes */

    const ncu_launch *c = &r.launches[0];
    ck_assert_uint_eq(c->id, 0);
    ck_assert_str_eq(c->kernel, "coalesced(const float *, float *, int)");
    ck_assert_str_eq(c->block, "(256, 1, 1)");
    ck_assert_str_eq(c->grid, "(4096, 1, 1)");
    ck_assert_uint_eq(c->block_dim[0], 256);
    ck_assert_uint_eq(c->block_dim[1], 1);
    ck_assert_uint_eq(c->block_dim[2], 1);
    ck_assert_uint_eq(c->grid_dim[0], 4096);
    ck_assert_str_eq(c->device, "0");
    ck_assert_str_eq(c->cc, "9.0");
    ck_assert_uint_eq(c->line, 6); /* after 4 lines of ncu and program output, and the header */
    ck_assert_uint_eq(c->n, 11);

    const ncu_metric *m = metric(c, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum");
    ck_assert_str_eq(m->text, "131,072");
    ck_assert_str_eq(m->unit, "sector");
    ck_assert_str_eq(m->section, "Command line profiler metrics");
    assert_count(c, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 131072);
    assert_count(c, "dram__sectors_read.sum", 131160);
    assert_count(c, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 32768);
    ck_assert_str_eq(metric(c, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum")->unit, "");
    assert_count(c, "smsp__inst_executed_op_global_st.sum", 32768);
    m = metric(c, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct");
    ck_assert_str_eq(m->unit, "%");
    ck_assert_double_eq(m->value, 100.0);
    ck_assert_ptr_null(ncu_launch_metric(c, "no_such_metric.sum"));
    ck_assert_ptr_eq(ncu_launch_metric_in(c, "Command line profiler metrics", "dram__sectors_read.sum"),
                     ncu_launch_metric(c, "dram__sectors_read.sum"));
    ck_assert_ptr_null(ncu_launch_metric_in(c, "Other", "dram__sectors_read.sum"));

    const ncu_launch *s = &r.launches[1];
    ck_assert_str_eq(s->kernel, "strided(const float *, float *, int, int)");
    ck_assert_uint_eq(s->grid_dim[0], 1024);
    assert_count(s, "l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum", 8192);
    assert_count(s, "l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum", 131072);
    ck_assert_double_eq(metric(s, "smsp__sass_average_data_bytes_per_sector_mem_global_op_ld.pct")->value, 25.0);

    /* the same kernel launched twice stays two launches, with their own counts */
    const ncu_launch *a = &r.launches[2], *b = &r.launches[3];
    ck_assert_uint_eq(a->id, 2);
    ck_assert_uint_eq(b->id, 3);
    ck_assert_str_eq(a->kernel, "smem(float *, int)");
    ck_assert_str_eq(b->kernel, "smem(float *, int)");
    ck_assert_uint_eq(a->block_dim[0], 32);
    ck_assert_uint_eq(a->grid_dim[0], 264);
    assert_count(a, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 264);
    assert_count(b, "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", 0);
    assert_count(a, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 528);
    assert_count(b, "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", 264);
    assert_count(b, "dram__sectors_read.sum", 96);
    ncu_report_free(&r);
    ck_assert_uint_eq(r.n, 0);
    ncu_report_free(&r); /* twice is harmless */
}
END_TEST

START_TEST(details_page_keeps_sections_apart_and_skips_rules)
{
    ncu_report r;
    err_info e = {{0}};
    ck_assert_msg(ncu_report_read(DATA "probe_details.csv", &r, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(r.format, NCU_FORMAT_LONG);
    ck_assert_uint_eq(r.n, 4);
    const ncu_launch *c = &r.launches[0];
    ck_assert_uint_eq(c->n, 87); /* 99 rows of launch 0, 12 of them rules */
    const ncu_metric *m = ncu_launch_metric_in(c, "GPU Speed Of Light Throughput", "Memory Throughput");
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->unit, "%");
    ck_assert_double_eq_tol(m->value, 22.21, 1e-12);
    ck_assert(!m->is_integer);
    m = ncu_launch_metric_in(c, "Memory Workload Analysis", "Memory Throughput");
    ck_assert_ptr_nonnull(m);
    ck_assert_str_eq(m->unit, "Gbyte/s");
    ck_assert_double_eq_tol(m->value, 851.64, 1e-12);
    assert_count(c, "Elapsed Cycles", 9680);
    assert_count(c, "Threads", 1048576);
    ck_assert_str_eq(metric(c, "Threads")->text, "1,048,576");
    ck_assert_double_eq_tol(metric(c, "Duration")->value, 4.93, 1e-12);
    ck_assert_str_eq(metric(c, "Duration")->unit, "us");
    ncu_report_free(&r);
}
END_TEST

START_TEST(raw_page_is_one_row_per_launch)
{
    ncu_report r;
    err_info e = {{0}};
    ck_assert_msg(ncu_report_read(DATA "probe_raw.csv", &r, &e) == 0, "%s", e.msg);
    ck_assert_int_eq(r.format, NCU_FORMAT_WIDE);
    ck_assert_uint_eq(r.n, 4);
    for (uint32_t i = 0; i < r.n; i++) {
        ck_assert_uint_eq(r.launches[i].id, i);
        ck_assert_uint_eq(r.launches[i].n, 387 - 11); /* every column but the launch's own */
        ck_assert_uint_eq(r.launches[i].line, 3 + i);
    }
    const ncu_launch *c = &r.launches[0], *s = &r.launches[1];
    ck_assert_str_eq(c->kernel, "coalesced(const float *, float *, int)");
    ck_assert_str_eq(r.launches[3].kernel, "smem(float *, int)");
    assert_count(c, "memory_l2_theoretical_sectors_global", 262144);
    ck_assert_str_eq(metric(c, "memory_l2_theoretical_sectors_global")->unit, "sectors");
    assert_count(s, "memory_l2_theoretical_sectors_global", 163840);
    assert_count(s, "memory_l2_theoretical_sectors_global_ideal", 65536);
    assert_count(c, "thread_inst_executed", 17825792);
    assert_count(s, "launch__grid_size", 1024); /* written "1,024" */
    ck_assert_str_eq(metric(s, "launch__grid_size")->section, "");
    const ncu_metric *m = metric(s, "derived__memory_l2_theoretical_sectors_global_excessive");
    ck_assert_str_eq(m->unit, "Kbyte");
    ck_assert_double_eq_tol(m->value, 98.304, 1e-12);
    ck_assert(!m->is_integer);
    m = metric(c, "launch__func_cache_config");
    ck_assert_int_eq(m->kind, NCU_VALUE_TEXT);
    ck_assert_str_eq(m->text, "CachePreferNone");
    ck_assert(isnan(m->value));
    ck_assert_str_eq(metric(c, "device__attribute_display_name")->text, "NVIDIA H200");
    m = metric(c, "launch__kernel_name"); /* empty on this page: absent, not 0 */
    ck_assert_int_eq(m->kind, NCU_VALUE_ABSENT);
    ck_assert(isnan(m->value));
    ck_assert(!m->is_integer);
    /* launch columns are not metrics */
    ck_assert_ptr_null(ncu_launch_metric(c, "Kernel Name"));
    ck_assert_ptr_null(ncu_launch_metric(c, "Process ID"));
    ncu_report_free(&r);
}
END_TEST

/* The row of the coalesced kernel's global load. Its PC offset 0x00c0 is the
 * one nvdisasm prints for LDG.E.CONSTANT in the same cubin (sm_90). */
START_TEST(source_page_sass_view)
{
    ncu_source_report r;
    err_info e = {{0}};
    ck_assert_msg(ncu_source_read(DATA "probe_source_sass.csv", &r, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(r.n, 8);
    const ncu_source_kernel *k = &r.kernels[0];
    ck_assert_str_eq(k->kernel, "coalesced(const float *, float *, int)");
    ck_assert_ptr_null(k->source_file);
    ck_assert_uint_eq(k->line, 1);
    ck_assert_uint_eq(k->base_address, 0x7f3fdd7a0000ull);
    ck_assert_uint_eq(k->n_rows, 32);
    ck_assert_uint_eq(k->n_cols, 60);
    ck_assert_str_eq(k->column_names[0], "Warp Stall Sampling (All Samples)");
    ck_assert_str_eq(k->column_names[59], "stall_wait (Not Issued)");
    /* the first row is the entry */
    ck_assert_uint_eq(k->rows[0].pc_offset, 0);
    ck_assert_str_eq(k->rows[0].sass, "LDC R1, c[0x0][0x28]");
    ck_assert_uint_eq(k->rows[0].line, 3);
    ck_assert_uint_eq(k->rows[0].source_line, 0);
    ck_assert_str_eq(k->rows[7].sass, "@P0   EXIT");
    ck_assert_uint_eq(k->rows[31].pc_offset, 0x1f0);

    int64_t ldg = ncu_source_row_at(k, 0xc0);
    ck_assert_int_eq(ldg, 12);
    const ncu_source_row *row = &k->rows[ldg];
    ck_assert_uint_eq(row->address, 0x7f3fdd7a00c0ull);
    ck_assert_str_eq(row->sass, "LDG.E.CONSTANT R2, desc[UR4][R2.64]");
    int l2 = ncu_source_column(k, "L2 Theoretical Sectors Global");
    ck_assert_int_ge(l2, 0);
    ck_assert_double_eq(ncu_source_value(k, (uint32_t)ldg, (uint32_t)l2), 131072.0);
    ck_assert_double_eq(ncu_source_value(k, (uint32_t)ldg, (uint32_t)ncu_source_column(k, "Instructions Executed")), 32768.0);
    ck_assert_double_eq(ncu_source_value(k, (uint32_t)ldg, (uint32_t)ncu_source_column(k, "L1 Tag Requests Global")), 32768.0);
    ck_assert_double_eq(ncu_source_value(k, (uint32_t)ldg, (uint32_t)ncu_source_column(k, "Access Size")), 32.0);
    int space = ncu_source_column(k, "Address Space");
    ck_assert_str_eq(ncu_source_text_at(k, (uint32_t)ldg, (uint32_t)space), "Global");
    ck_assert_str_eq(ncu_source_text_at(k, (uint32_t)ldg, (uint32_t)ncu_source_column(k, "Access Operation")), "Load");
    ck_assert(isnan(ncu_source_value(k, (uint32_t)ldg, (uint32_t)space)));
    /* "-" (no memory access) is absent, neither 0 nor text */
    ck_assert(isnan(ncu_source_value(k, 0, (uint32_t)space)));
    ck_assert_ptr_null(ncu_source_text_at(k, 0, (uint32_t)space));
    /* "" is absent too */
    ck_assert(isnan(ncu_source_value(k, (uint32_t)ldg, (uint32_t)ncu_source_column(k, "L2 Explicit Evict Policies"))));
    ck_assert_int_eq(ncu_source_column(k, "No such column"), -1);
    ck_assert_int_eq(ncu_source_row_at(k, 0xc8), -1);
    ck_assert_int_eq(ncu_source_row_at(k, 0x200), -1);
    ck_assert(isnan(ncu_source_value(k, 32, 0))); /* out of range */
    ck_assert(isnan(ncu_source_value(k, 0, 60)));

    /* strided: nvdisasm has LDG.E at 0x00d0 */
    const ncu_source_kernel *s = &r.kernels[2];
    ck_assert_str_eq(s->kernel, "strided(const float *, float *, int, int)");
    ck_assert_uint_eq(s->base_address, 0x7f3fdd7a2800ull);
    ck_assert_str_eq(s->rows[ncu_source_row_at(s, 0xd0)].sass, "LDG.E R3, desc[UR4][R2.64]");

    /* smem: the shared store with its 2-way conflict */
    const ncu_source_kernel *m = &r.kernels[4];
    ck_assert_str_eq(m->kernel, "smem(float *, int)");
    ck_assert_uint_eq(m->n_cols, 63);
    int64_t sts = ncu_source_row_at(m, 0x140);
    ck_assert_int_ge(sts, 0);
    ck_assert_str_eq(m->rows[sts].sass, "STS [R5], R0");
    ck_assert_double_eq(ncu_source_value(m, (uint32_t)sts, (uint32_t)ncu_source_column(m, "L1 Conflicts Shared N-Way")), 2.0);
    ck_assert_double_eq(ncu_source_value(m, (uint32_t)sts, (uint32_t)ncu_source_column(m, "L1 Wavefronts Shared")), 528.0);
    ck_assert_double_eq(ncu_source_value(m, (uint32_t)sts, (uint32_t)ncu_source_column(m, "L1 Wavefronts Shared Ideal")), 264.0);
    ck_assert_str_eq(ncu_source_text_at(m, (uint32_t)sts, (uint32_t)ncu_source_column(m, "Address Space")), "Shared");
    /* the two smem launches are separate blocks with their own samples */
    int samples = ncu_source_column(m, "Warp Stall Sampling (All Samples)");
    ck_assert_double_eq(ncu_source_value(&r.kernels[4], 0, (uint32_t)samples), 13.0);
    ck_assert_double_eq(ncu_source_value(&r.kernels[6], 0, (uint32_t)samples), 12.0);
    ncu_source_free(&r);
    ncu_source_free(&r);
}
END_TEST

/* The cuda,sass view holds the same instructions grouped by source line (with
 * repeats); once de-duplicated they equal the sass view's block by block. */
START_TEST(source_page_cuda_sass_view_equals_sass_view)
{
    ncu_source_report c, s;
    err_info e = {{0}};
    ck_assert_msg(ncu_source_read(DATA "probe_source_cuda_sass.csv", &c, &e) == 0, "%s", e.msg);
    ck_assert_msg(ncu_source_read(DATA "probe_source_sass.csv", &s, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(c.n, 4);
    for (uint32_t b = 0; b < c.n; b++) {
        const ncu_source_kernel *x = &c.kernels[b], *y = &s.kernels[2 * b];
        ck_assert_str_eq(x->kernel, y->kernel);
        ck_assert_str_eq(x->source_file, "/work/main/.probe/probe.cu");
        ck_assert_uint_eq(x->base_address, y->base_address);
        ck_assert_uint_eq(x->n_rows, y->n_rows);
        ck_assert_uint_eq(x->n_cols, y->n_cols);
        ck_assert_uint_eq(x->n_texts, y->n_texts);
        for (uint32_t j = 0; j < x->n_cols; j++)
            ck_assert_str_eq(x->column_names[j], y->column_names[j]);
        for (uint32_t i = 0; i < x->n_rows; i++) {
            ck_assert_uint_eq(x->rows[i].address, y->rows[i].address);
            ck_assert_uint_eq(x->rows[i].pc_offset, y->rows[i].pc_offset);
            ck_assert_str_eq(x->rows[i].sass, y->rows[i].sass);
            ck_assert_uint_gt(x->rows[i].source_line, 0);
            for (uint32_t j = 0; j < x->n_cols; j++) {
                double vx = ncu_source_value(x, i, j), vy = ncu_source_value(y, i, j);
                ck_assert(isnan(vx) == isnan(vy));
                if (!isnan(vx))
                    ck_assert_double_eq(vx, vy);
            }
        }
        for (uint32_t t = 0; t < x->n_texts; t++) {
            ck_assert_uint_eq(x->texts[t].row, y->texts[t].row);
            ck_assert_uint_eq(x->texts[t].col, y->texts[t].col);
            ck_assert_str_eq(x->texts[t].text, y->texts[t].text);
        }
    }
    /* source lines of the coalesced kernel (probe.cu lines 3-6) */
    const ncu_source_kernel *k = &c.kernels[0];
    ck_assert_uint_eq(k->line, 1);
    ck_assert_uint_eq(k->rows[0].source_line, 3);                      /* LDC R1: the signature */
    ck_assert_uint_eq(k->rows[ncu_source_row_at(k, 0x10)].source_line, 4); /* S2R: blockIdx... */
    ck_assert_uint_eq(k->rows[ncu_source_row_at(k, 0xc0)].source_line, 5); /* LDG: b[i] = a[i]... */
    ck_assert_uint_eq(k->rows[ncu_source_row_at(k, 0x100)].source_line, 6);
    ck_assert_uint_eq(c.kernels[1].line, 75);
    ncu_source_free(&c);
    ncu_source_free(&s);
}
END_TEST

/* ---- the tokenizer ------------------------------------------------------------ */

START_TEST(quotes_commas_newlines_and_crlf)
{
    ncu_report r;
    err_info e = {{0}};
    const char *text = LONG_HEADER ROW("0", "f(\"\"x\"\", a,b)", "a.sum", "", "1")
        ROW("1", "two\nlines", "a.sum", "", "2") "\n" ROW("1", "two\nlines", "b.sum", "", "3");
    ck_assert_msg(report_mem(text, &r, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(r.n, 2);
    ck_assert_str_eq(r.launches[0].kernel, "f(\"x\", a,b)");
    ck_assert_str_eq(r.launches[1].kernel, "two\nlines");
    ck_assert_uint_eq(r.launches[1].line, 3);
    ck_assert_uint_eq(r.launches[1].metrics[1].line, 6); /* after the 2-line record and a blank line */
    ncu_report_free(&r);

    /* CRLF line ends, as a Windows copy of the file has them */
    const char *crlf = "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
                       "\"Section Name\",\"Metric Name\",\"Metric Unit\",\"Metric Value\"\r\n"
                       "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"S\",\"a.sum\",\"sector\",\"7\"\r\n"
                       "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"S\",\"b.sum\",\"\",\"\"\r\n";
    ck_assert_msg(report_mem(crlf, &r, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(r.n, 1);
    assert_count(&r.launches[0], "a.sum", 7);
    ck_assert_str_eq(metric(&r.launches[0], "a.sum")->unit, "sector");
    ck_assert_str_eq(r.launches[0].cc, "9.0");
    ck_assert_int_eq(metric(&r.launches[0], "b.sum")->kind, NCU_VALUE_ABSENT);
    ncu_report_free(&r);

    /* a byte-order mark before the header, unquoted fields (RFC 4180 allows them) */
    const char *bom = "\xef\xbb\xbf\"ID\",Kernel Name,Block Size,Grid Size,Device,CC,Section Name,"
                      "Metric Name,Metric Unit,Metric Value\n"
                      "0,k,\"(1, 1, 1)\",\"(2, 1, 1)\",0,9.0,S,a.sum,,\"1,024\"\n";
    ck_assert_msg(report_mem(bom, &r, &e) == 0, "%s", e.msg);
    assert_count(&r.launches[0], "a.sum", 1024);
    ncu_report_free(&r);
}
END_TEST

START_TEST(ncu_lines_are_skipped_and_errors_kept_as_notes)
{
    ncu_report r;
    err_info e = {{0}};
    const char *text = "==PROF== Connected to process 1 (./p)\n"
                       "program output, with \"quotes\n"
                       "==ERROR== Failed to profile \"coalesced\" in process 507: an error was reported by the driver\n"
                       "\n" LONG_HEADER "==WARNING== something\n" ROW("0", K0, "a.sum", "", "5")
                       "==ERROR== second\r\n" ROW("0", K0, "b.sum", "", "6");
    ck_assert_msg(report_mem(text, &r, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(r.n, 1);
    ck_assert_uint_eq(r.launches[0].n, 2);
    ck_assert_uint_eq(r.n_notes, 2);
    ck_assert_str_eq(r.notes[0], "t.csv:3: ==ERROR== Failed to profile \"coalesced\" in process 507: "
                                 "an error was reported by the driver");
    ck_assert_str_eq(r.notes[1], "t.csv:8: ==ERROR== second");
    ncu_report_free(&r);
    ck_assert_uint_eq(r.n_notes, 0);
}
END_TEST

/* ---- numbers -------------------------------------------------------------------- */

START_TEST(numbers_as_ncu_prints_them)
{
    ncu_report r;
    err_info e = {{0}};
    const char *text = LONG_HEADER ROW("0", K0, "a", "", "1,234,567") ROW("0", K0, "b", "", "12.5")
        ROW("0", K0, "c", "", "-3") ROW("0", K0, "d", "", "n/a") ROW("0", K0, "e", "", "")
        ROW("0", K0, "f", "", "18,446,744,073,709,551,615") ROW("0", K0, "g", "", "18446744073709551616")
        ROW("0", K0, "h", "", "1.5e+09") ROW("0", K0, "i", "", "9,999.25") ROW("0", K0, "j", "", "0")
        ROW("0", K0, "k", "", "9007199254740993") ROW("0", K0, "l", "", "-") ROW("0", K0, "m", "", "-0.5")
        ROW("0", K0, "n", "", "No-CC") ROW("0", K0, "o", "", "(32, 1, 1)");
    ck_assert_msg(report_mem(text, &r, &e) == 0, "%s", e.msg);
    const ncu_launch *l = &r.launches[0];
    assert_count(l, "a", 1234567);
    const ncu_metric *m = metric(l, "b");
    ck_assert_int_eq(m->kind, NCU_VALUE_NUMBER);
    ck_assert_double_eq(m->value, 12.5);
    ck_assert(!m->is_integer);
    m = metric(l, "c"); /* negative: a number, but not a uint64 */
    ck_assert_double_eq(m->value, -3.0);
    ck_assert(!m->is_integer);
    for (const char *absent = "del"; *absent; absent++) {
        char name[2] = {*absent, 0};
        m = metric(l, name);
        ck_assert_int_eq(m->kind, NCU_VALUE_ABSENT);
        ck_assert(isnan(m->value));
        ck_assert(!m->is_integer);
        ck_assert_uint_eq(m->u, 0);
    }
    ck_assert_str_eq(metric(l, "d")->text, "n/a");
    assert_count(l, "f", UINT64_MAX);
    m = metric(l, "g"); /* 2^64: a number, too big for u */
    ck_assert(!m->is_integer);
    ck_assert_double_eq(m->value, 18446744073709551616.0);
    ck_assert_double_eq(metric(l, "h")->value, 1.5e9);
    ck_assert(!metric(l, "h")->is_integer);
    ck_assert_double_eq(metric(l, "i")->value, 9999.25);
    assert_count(l, "j", 0);
    /* above 2^53 the double rounds; u stays exact */
    ck_assert_uint_eq(metric(l, "k")->u, 9007199254740993ull);
    ck_assert_double_eq(metric(l, "m")->value, -0.5);
    ck_assert_int_eq(metric(l, "n")->kind, NCU_VALUE_TEXT);
    ck_assert_int_eq(metric(l, "o")->kind, NCU_VALUE_TEXT);
    ncu_report_free(&r);
}
END_TEST

static const char *const bad_numbers[] = {
    "12x", "1,23", "1,2345", "1,234,56", "12,", "1.", "1.2.3", "1e", "1e+", "12 ",
    "0x10", "1,234.5.6", "-1,2", "1..2", "1234,567", "1,23,456", "99999999999999999999999999999999999999999999999999999999999999999999999999999999",
};

START_TEST(bad_number_in_metric_value)
{
    err_info e = {{0}};
    char text[1024], want[512];
    const char *v = bad_numbers[_i];
    snprintf(text, sizeof text, "%s" ROW("0", K0, "a.sum", "", "1") ROW("0", K0, "dram__x.sum", "sector", "%s"),
             LONG_HEADER, v);
    char shown[80];
    snprintf(shown, sizeof shown, "%.60s%s", v, strlen(v) > 60 ? "..." : "");
    snprintf(want, sizeof want,
             "t.csv:3: metric dram__x.sum: value \"%s\": expected a number as ncu prints it "
             "(131,072 or 131072, 12.5, -3) or n/a",
             shown);
    ck_assert_str_eq(report_error(text, &e), want);
}
END_TEST

/* ---- bad reports: one line each, naming the file, the line and what was expected -- */

START_TEST(report_errors)
{
    err_info e = {{0}};
    ncu_report r;
    ck_assert_int_eq(ncu_report_read("tests/data/ncu/no-such-file.csv", &r, &e), -1);
    ck_assert_str_eq(e.msg, "tests/data/ncu/no-such-file.csv: cannot open: No such file or directory");

    ck_assert_str_eq(report_error("", &e), "t.csv:1: empty file: expected ncu --csv output");
    ck_assert_str_eq(report_error("==PROF== Connected to process 1\nhello\n", &e),
                     "t.csv:2: end of file before ncu's CSV header row (\"ID\",\"Process ID\",...): "
                     "expected the output of ncu --csv --metrics or --page raw --csv");
    ck_assert_str_eq(report_error("==ERROR== the application returned an error code (1)\n", &e),
                     "t.csv:1: end of file before ncu's CSV header row (\"ID\",\"Process ID\",...): "
                     "expected the output of ncu --csv --metrics or --page raw --csv (ncu said: "
                     "t.csv:1: ==ERROR== the application returned an error code (1))");
    /* data rows without their header */
    ck_assert_str_eq(report_error("x\n" ROW("0", K0, "a", "", "1"), &e),
                     "t.csv:2: expected ncu's CSV header row starting with \"ID\" (ncu --csv --metrics or "
                     "--page raw --csv), found a row starting with \"0\"");
    ck_assert_str_eq(report_error("\"Kernel Name\",\"k\",\n", &e),
                     "t.csv:1: this is ncu's source page (--page source): expected a metric report "
                     "(--csv --metrics or --page raw) whose header starts with \"ID\"");
    ck_assert_str_eq(report_error("\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\","
                                  "\"Section Name\",\"Metric Name\",\"Metric Unit\"\n",
                                  &e),
                     "t.csv:1: header has no \"Metric Value\" column: expected ncu's --csv --metrics header "
                     "(\"ID\",...,\"Metric Name\",\"Metric Unit\",\"Metric Value\") or --page raw header");
    ck_assert_str_eq(report_error("\"ID\",\"Kernel Name\",\"Block Size\"\n", &e),
                     "t.csv:1: header has no \"Grid Size\" column: expected ncu's --csv --metrics header "
                     "(\"ID\",...,\"Metric Name\",\"Metric Unit\",\"Metric Value\") or --page raw header");
    ck_assert_str_eq(report_error(LONG_HEADER, &e),
                     "t.csv:1: no launch rows after the header on line 1 (expected at least one profiled launch)");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "a", "", "1") "\"0\",\"1\"\n", &e),
                     "t.csv:3: 2 fields: expected 15 as in the header on line 1");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "a", "", "1") ROW("0", K0, "b", "", "1,5") "\n", &e),
                     "t.csv:3: metric b: value \"1,5\": expected a number as ncu prints it "
                     "(131,072 or 131072, 12.5, -3) or n/a");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "a", "", "1") "\"0\",\"unterminated\n\n", &e),
                     "t.csv:3: quoted field not closed before the end of the file");
    ck_assert_str_eq(report_error(LONG_HEADER "\"0\"x,\"1\"\n", &e),
                     "t.csv:2: field 1: expected a comma or the end of the line after the closing quote");
    ck_assert_str_eq(report_error(LONG_HEADER "\"0\",a\"b\n", &e),
                     "t.csv:2: field 2: quote inside an unquoted field (expected the whole field in quotes)");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "a", "", "1") ROW("0", K0, "b", "", "2")
                                      ROW("0", K0, "a", "", "3") ROW("1", K0, "a", "", "3"),
                                  &e),
                     "t.csv:4: launch 0: metric a appears twice (also on line 2; expected each metric once per launch)");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "a", "", "1") ROW("0", K0, "a", "", "1"), &e),
                     "t.csv:3: launch 0: metric a appears twice (also on line 2; expected each metric once per launch)");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("1", K0, "a", "", "1") ROW("0", K0, "a", "", "1"), &e),
                     "t.csv:3: launch ID 0 after ID 1: expected each launch's rows together, in increasing ID "
                     "order, as ncu writes them");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "a", "", "1") ROW("1", K0, "a", "", "1")
                                      ROW("0", K0, "b", "", "1"),
                                  &e),
                     "t.csv:4: launch ID 0 after ID 1: expected each launch's rows together, in increasing ID "
                     "order, as ncu writes them");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "a", "", "1") ROW("0", "other()", "b", "", "1"), &e),
                     "t.csv:3: launch 0: Kernel Name \"other()\" differs from \"k(const float *, int)\" on line 2 "
                     "(expected one value per launch)");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("x", K0, "a", "", "1"), &e),
                     "t.csv:2: ID \"x\" is not a launch number");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "a", "", "1") LONG_HEADER, &e),
                     "t.csv:3: a second header row (expected one ncu report per file)");
    ck_assert_str_eq(report_error(LONG_HEADER ROW("0", K0, "", "", "1"), &e),
                     "t.csv:2: empty Metric Name (expected a metric)");
    ck_assert_str_eq(report_error(LONG_HEADER "\"0\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(256, 1)\",\"(1, 1, 1)\","
                                              "\"0\",\"9.0\",\"S\",\"a\",\"\",\"1\"\n",
                                  &e),
                     "t.csv:2: Block Size \"(256, 1)\": expected \"(x, y, z)\"");
    ck_assert_str_eq(report_error(LONG_HEADER "\"0\",\"1\",\"p\",\"h\",\"k\",\"1\",\"7\",\"(1, 1, 1)\",\"4096\","
                                              "\"0\",\"9.0\",\"S\",\"a\",\"\",\"1\"\n",
                                  &e),
                     "t.csv:2: Grid Size \"4096\": expected \"(x, y, z)\"");
    /* the details page may stop a row after "Metric Value", never before */
    const char *details = "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"Section Name\","
                          "\"Metric Name\",\"Metric Unit\",\"Metric Value\",\"Rule Name\",\"Rule Type\"\n"
                          "\"0\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"S\",\"a\",\"\",\"1\",\n"
                          "\"0\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"S\",\"\",\"\",\"\",\"R\",\"OPT\"\n"
                          "\"0\",\"k\",\"(1, 1, 1)\",\"(1, 1, 1)\",\"0\",\"9.0\",\"S\",\"b\",\"\"\n";
    ck_assert_str_eq(report_error(details, &e), "t.csv:4: 9 fields: expected 12 as in the header on line 1");
}
END_TEST

START_TEST(wide_report_errors)
{
    err_info e = {{0}};
#define WIDE_HEADER "\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"a.sum\",\"b.pct\"\n"
#define WIDE_UNITS "\"\",\"\",\"\",\"\",\"\",\"\",\"sector\",\"%\"\n"
    ncu_report r;
    ck_assert_msg(report_mem(WIDE_HEADER WIDE_UNITS "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"1,024\",\"n/a\"\n",
                             &r, &e) == 0,
                  "%s", e.msg);
    ck_assert_int_eq(r.format, NCU_FORMAT_WIDE);
    assert_count(&r.launches[0], "a.sum", 1024);
    ck_assert_str_eq(metric(&r.launches[0], "b.pct")->unit, "%");
    ck_assert_int_eq(metric(&r.launches[0], "b.pct")->kind, NCU_VALUE_ABSENT);
    ncu_report_free(&r);

    ck_assert_str_eq(report_error(WIDE_HEADER, &e),
                     "t.csv:1: expected the units row of --page raw (8 fields, the ID field empty) after the header on line 1");
    ck_assert_str_eq(report_error(WIDE_HEADER "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"1\",\"2\"\n", &e),
                     "t.csv:2: expected the units row of --page raw (8 fields, the ID field empty) after the header on line 1");
    ck_assert_str_eq(report_error(WIDE_HEADER WIDE_UNITS, &e),
                     "t.csv:2: no launch rows after the header on line 1 (expected at least one profiled launch)");
    ck_assert_str_eq(report_error(WIDE_HEADER WIDE_UNITS "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"1\"\n", &e),
                     "t.csv:3: 7 fields: expected 8 as in the header on line 1");
    ck_assert_str_eq(report_error(WIDE_HEADER WIDE_UNITS "\"0\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"1\",\"2%\"\n", &e),
                     "t.csv:3: metric b.pct: value \"2%\": expected a number as ncu prints it "
                     "(131,072 or 131072, 12.5, -3) or n/a");
    ck_assert_str_eq(report_error(WIDE_HEADER WIDE_UNITS "\"1\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"1\",\"2\"\n"
                                                         "\"1\",\"k\",\"(1, 1, 1)\",\"(2, 1, 1)\",\"0\",\"9.0\",\"1\",\"2\"\n",
                                  &e),
                     "t.csv:4: launch ID 1 after ID 1: expected each launch's rows together, in increasing ID "
                     "order, as ncu writes them");
    ck_assert_str_eq(report_error("\"ID\",\"Kernel Name\",\"Block Size\",\"Grid Size\",\"Device\",\"CC\",\"a.sum\",\"a.sum\"\n" WIDE_UNITS, &e),
                     "t.csv:1: column \"a.sum\" appears twice in the header");
#undef WIDE_HEADER
#undef WIDE_UNITS
}
END_TEST

/* Absurd sizes are refused by name, before memory grows with them. */
START_TEST(absurd_sizes_are_refused)
{
    err_info e = {{0}};
    ncu_report r;
    size_t n = NCU_CSV_RECORD_MAX_BYTES + 16;
    char *big = malloc(n + 1);
    ck_assert_ptr_nonnull(big);
    memset(big, 'a', n);
    big[0] = '"';
    big[n] = '\0';
    ck_assert_str_eq(report_error(big, &e), "t.csv:1: CSV record longer than 4194304 bytes (NCU_CSV_RECORD_MAX_BYTES)");
    /* also inside a quoted field spread over many lines */
    for (size_t i = 1; i < n; i += 80)
        big[i] = '\n';
    ck_assert_str_eq(report_error(big, &e), "t.csv:52430: CSV record longer than 4194304 bytes (NCU_CSV_RECORD_MAX_BYTES)");
    /* program output before the header is bounded the same way */
    memset(big, 'a', n);
    ck_assert_str_eq(report_error(big, &e), "t.csv:1: CSV record longer than 4194304 bytes (NCU_CSV_RECORD_MAX_BYTES)");

    size_t m = 0;
    for (uint32_t i = 0; i <= NCU_CSV_FIELDS_MAX; i++) {
        memcpy(big + m, "\"ID\",", 5);
        m += 5;
    }
    big[m] = '\0';
    ck_assert_str_eq(report_error(big, &e), "t.csv:1: more than 16384 fields (NCU_CSV_FIELDS_MAX)");
    free(big);

    FILE *f = mem_file("\"ID\"\0,\"x\"\n", 10);
    ck_assert_int_eq(ncu_report_read_stream(f, "t.csv", &r, &e), -1);
    ck_assert_str_eq(e.msg, "t.csv:1: NUL byte: expected ncu's CSV text");
    fclose(f);

    /* ==ERROR== notes are bounded too */
    size_t cap = (NCU_CSV_NOTES_MAX + 1) * 12 + 1;
    char *notes = malloc(cap);
    ck_assert_ptr_nonnull(notes);
    notes[0] = '\0';
    for (uint32_t i = 0; i <= NCU_CSV_NOTES_MAX; i++)
        strcat(notes, "==ERROR== x\n");
    ck_assert_str_eq(report_error(notes, &e), "t.csv:257: more than 256 ==ERROR== lines (NCU_CSV_NOTES_MAX)");
    free(notes);
}
END_TEST

/* ---- bad source pages ----------------------------------------------------------- */

#define SRC_HEAD "\"Kernel Name\",\"k(int)\",\n\"Address\",\"Source\",\"Instructions Executed\",\"Address Space\"\n"
#define CS_HEAD                                                             \
    "\"File Path\",\"/p.cu\"\n\"Function Name\",\"k(int)\"\n"              \
    "\"Line No\",\"Source\",\"Address\",\"Source\",\"Instructions Executed\"\n"

START_TEST(source_errors)
{
    err_info e = {{0}};
    ncu_source_report r;
    ck_assert_int_eq(ncu_source_read("tests/data/ncu/no-such-file.csv", &r, &e), -1);
    ck_assert_str_eq(e.msg, "tests/data/ncu/no-such-file.csv: cannot open: No such file or directory");
    ck_assert_str_eq(source_error("", &e), "s.csv:1: empty file: expected ncu --page source --csv output");
    ck_assert_str_eq(source_error("==PROF== x\n\n", &e),
                     "s.csv:2: end of file before the first kernel block: expected ncu --page source --csv "
                     "output starting with \"Kernel Name\" or \"File Path\"");
    ck_assert_str_eq(source_error(LONG_HEADER, &e),
                     "s.csv:1: this is a metric report (its header starts with \"ID\"): expected ncu's "
                     "source page (--page source --csv), starting with \"Kernel Name\" or \"File Path\"");
    ck_assert_str_eq(source_error("\"Address\",\"Source\"\n", &e),
                     "s.csv:1: expected ncu's source page (--page source --csv) starting with \"Kernel Name\" "
                     "or \"File Path\", found a row starting with \"Address\"");
    ck_assert_str_eq(source_error("\"Kernel Name\",\"k\",\"x\"\n", &e),
                     "s.csv:1: expected \"Kernel Name\",\"VALUE\" on this line");
    ck_assert_str_eq(source_error("\"Kernel Name\",\"k\",\n", &e),
                     "s.csv:1: kernel block has no column header row (expected it on the next line)");
    ck_assert_str_eq(source_error("\"Kernel Name\",\"k\",\n\"0x10\",\"NOP\"\n", &e),
                     "s.csv:2: expected a \"Kernel Name\" line and a header row before instruction rows");
    ck_assert_str_eq(source_error("\"Kernel Name\",\"k\",\n\"Address\",\"SASS\"\n", &e),
                     "s.csv:2: expected a header row starting with \"Address\",\"Source\"");
    ck_assert_str_eq(source_error(SRC_HEAD "\"Kernel Name\",\"j\",\n", &e),
                     "s.csv:1: kernel block has no instruction rows (expected one row per SASS instruction)");
    ck_assert_str_eq(source_error(SRC_HEAD "\"Address\",\"Source\"\n", &e),
                     "s.csv:3: column header row outside a kernel block (expected it right after \"Kernel Name\")");
    ck_assert_str_eq(source_error(SRC_HEAD "\"0x10\",\"  NOP\",\"1\"\n", &e),
                     "s.csv:3: 3 fields: expected 4 as in the kernel's header row");
    ck_assert_str_eq(source_error(SRC_HEAD "\"16\",\"  NOP\",\"1\",\"-\"\n", &e),
                     "s.csv:3: Address \"16\": expected a hexadecimal address such as 0x7f3fdd7a00c0");
    ck_assert_str_eq(source_error(SRC_HEAD "\"0x\",\"  NOP\",\"1\",\"-\"\n", &e),
                     "s.csv:3: Address \"0x\": expected a hexadecimal address such as 0x7f3fdd7a00c0");
    ck_assert_str_eq(source_error(SRC_HEAD "\"0x10000000000000000\",\"  NOP\",\"1\",\"-\"\n", &e),
                     "s.csv:3: Address \"0x10000000000000000\": expected a hexadecimal address such as 0x7f3fdd7a00c0");
    ck_assert_str_eq(source_error(SRC_HEAD "\"0x20\",\"  NOP\",\"1\",\"-\"\n\"0x10\",\"  NOP\",\"1\",\"-\"\n", &e),
                     "s.csv:4: address 0x10 is not above the previous row's 0x20 (expected the sass view in "
                     "address order, starting at the kernel's entry)");
    ck_assert_str_eq(source_error("\"File Path\",\"/p.cu\"\n\"Line No\",\"Source\"\n", &e),
                     "s.csv:2: expected \"Function Name\",\"NAME\" after the \"File Path\" line");
    ck_assert_str_eq(source_error("\"File Path\",\"/p.cu\"\n", &e),
                     "s.csv:1: end of file after \"File Path\": expected \"Function Name\"");
    ck_assert_str_eq(source_error(CS_HEAD "\"x\",\"int i;\",\"-\",\"-\",\"1\"\n", &e),
                     "s.csv:4: Line No \"x\": expected a line number");
    ck_assert_str_eq(source_error(CS_HEAD "\"\",\"\",\"0x10\",\"NOP\",\"1\"\n\"\",\"\",\"...\",\"...\",\"-\"\n"
                                          "\"\",\"\",\"0x10\",\"NOP\",\"2\"\n",
                                  &e),
                     "s.csv:6: instruction 0x10 listed again with other values than on line 4 (expected "
                     "ncu's repeats to be identical)");
}
END_TEST

/* cuda,sass: rows out of address order and repeated come out sorted, once. */
START_TEST(cuda_sass_rows_are_sorted_and_deduplicated)
{
    err_info e = {{0}};
    ncu_source_report r;
    const char *text = CS_HEAD "\"7\",\"x = y;\",\"-\",\"-\",\"2\"\n"
                               "\"\",\"\",\"0x120\",\"    STS [R1], R2\",\"Shared\"\n"
                               "\"3\",\"void k(int) {\",\"-\",\"-\",\"1\"\n"
                               "\"\",\"\",\"0x100\",\"    LDC R1, c[0x0][0x28]\",\"1\"\n"
                               "\"\",\"\",\"...\",\"...\",\"-\"\n"
                               "\"\",\"\",\"0x120\",\"    STS [R1], R2\",\"Shared\"\n"
                               "\"\",\"\",\"0x110\",\"    NOP\",\"-\"\n";
    ck_assert_msg(source_mem(text, &r, &e) == 0, "%s", e.msg);
    ck_assert_uint_eq(r.n, 1);
    const ncu_source_kernel *k = &r.kernels[0];
    ck_assert_str_eq(k->source_file, "/p.cu");
    ck_assert_uint_eq(k->base_address, 0x100);
    ck_assert_uint_eq(k->n_rows, 3);
    ck_assert_str_eq(k->rows[0].sass, "LDC R1, c[0x0][0x28]");
    ck_assert_uint_eq(k->rows[0].source_line, 3);
    ck_assert_uint_eq(k->rows[1].pc_offset, 0x10);
    ck_assert_uint_eq(k->rows[1].source_line, 3);
    ck_assert_uint_eq(k->rows[2].pc_offset, 0x20);
    ck_assert_uint_eq(k->rows[2].source_line, 7); /* its first listing */
    ck_assert_uint_eq(k->rows[2].line, 5);
    ck_assert_double_eq(ncu_source_value(k, 0, 0), 1.0);
    ck_assert(isnan(ncu_source_value(k, 1, 0)));
    ck_assert_uint_eq(k->n_texts, 1);
    ck_assert_str_eq(ncu_source_text_at(k, 2, 0), "Shared");
    ck_assert_ptr_null(ncu_source_text_at(k, 1, 0));
    ncu_source_free(&r);
}
END_TEST

/* ---- never a crash, whatever the bytes ------------------------------------------- */

static char *slurp(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s missing (run from the repository root)", path);
    ck_assert_int_eq(fseek(f, 0, SEEK_END), 0);
    long len = ftell(f);
    ck_assert_int_ge(len, 0);
    rewind(f);
    char *buf = malloc((size_t)len + 1);
    ck_assert_ptr_nonnull(buf);
    ck_assert_uint_eq(fread(buf, 1, (size_t)len, f), (size_t)len);
    fclose(f);
    buf[len] = '\0';
    *n = (size_t)len;
    return buf;
}

/* Read bytes both ways; either a report or one line naming the input. */
static void read_any(const char *bytes, size_t n, int *ok_report, int *ok_source)
{
    err_info e = {{0}};
    FILE *f = mem_file(bytes, n);
    ncu_report r;
    int rc = ncu_report_read_stream(f, "t.csv", &r, &e);
    ck_assert(rc == 0 || rc == -1);
    if (rc == 0) {
        ck_assert_uint_gt(r.n, 0);
        ncu_report_free(&r);
        ++*ok_report;
    } else {
        ck_assert_msg(strncmp(e.msg, "t.csv:", 6) == 0, "%s", e.msg);
        ck_assert_msg(strchr(e.msg, '\n') == NULL, "%s", e.msg);
    }
    rewind(f);
    ncu_source_report s;
    err_clear(&e);
    rc = ncu_source_read_stream(f, "t.csv", &s, &e);
    ck_assert(rc == 0 || rc == -1);
    if (rc == 0) {
        ck_assert_uint_gt(s.n, 0);
        for (uint32_t i = 0; i < s.n; i++) {
            ck_assert_uint_gt(s.kernels[i].n_rows, 0);
            ck_assert_uint_eq(s.kernels[i].rows[0].pc_offset, 0);
        }
        ncu_source_free(&s);
        ++*ok_source;
    } else {
        ck_assert_msg(strncmp(e.msg, "t.csv:", 6) == 0, "%s", e.msg);
        ck_assert_msg(strchr(e.msg, '\n') == NULL, "%s", e.msg);
    }
    fclose(f);
}

START_TEST(every_truncation_of_the_metrics_page)
{
    size_t n;
    char *buf = slurp(DATA "probe_metrics.csv", &n);
    int ok = 0, ok_src = 0;
    for (size_t len = 0; len <= n; len++)
        read_any(buf, len, &ok, &ok_src);
    /* Only three cuts per row (44 rows) read: after its newline, before it, and
     * just after the comma that precedes Metric Value - a well-formed row whose
     * value is empty, i.e. absent (CSV cannot tell that from a cut). Every
     * other cut is refused with a message. */
    ck_assert_int_eq(ok, 3 * 44);
    ck_assert_int_eq(ok_src, 0);
    free(buf);
}
END_TEST

START_TEST(truncations_of_the_other_pages)
{
    static const char *const files[] = {DATA "probe_raw.csv", DATA "probe_details.csv",
                                        DATA "probe_source_sass.csv", DATA "probe_source_cuda_sass.csv"};
    for (size_t i = 0; i < sizeof files / sizeof files[0]; i++) {
        size_t n;
        char *buf = slurp(files[i], &n);
        int ok = 0, ok_src = 0;
        for (size_t len = 0; len <= n; len += 1 + len % 251)
            read_any(buf, len, &ok, &ok_src);
        read_any(buf, n, &ok, &ok_src);
        ck_assert_int_gt(ok + ok_src, 0);
        free(buf);
    }
}
END_TEST

static uint64_t next_random(uint64_t *s)
{
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

START_TEST(random_bytes_and_mutations)
{
    uint64_t seed = 0x9e3779b97f4a7c15ull;
    static const char alphabet[] = "\"\",,,\n\r0123456789x.-= IDn/a(),Kernel NameAddressFile Path";
    char buf[4096];
    int ok = 0, ok_src = 0;
    for (int round = 0; round < 400; round++) {
        size_t n = next_random(&seed) % sizeof buf;
        for (size_t i = 0; i < n; i++) {
            uint64_t x = next_random(&seed);
            buf[i] = x % 8 == 0 ? (char)(x >> 8) : alphabet[(x >> 8) % (sizeof alphabet - 1)];
        }
        read_any(buf, n, &ok, &ok_src);
    }
    /* a real file with a few bytes changed, so the readers get past the header */
    static const char *const files[] = {DATA "probe_metrics.csv", DATA "probe_raw.csv",
                                        DATA "probe_source_cuda_sass.csv"};
    for (size_t fi = 0; fi < sizeof files / sizeof files[0]; fi++) {
        size_t n;
        char *orig = slurp(files[fi], &n);
        char *mut = malloc(n + 1);
        ck_assert_ptr_nonnull(mut);
        for (int round = 0; round < 150; round++) {
            memcpy(mut, orig, n);
            int flips = 1 + (int)(next_random(&seed) % 4);
            for (int j = 0; j < flips; j++) {
                uint64_t x = next_random(&seed);
                mut[(x >> 16) % n] = alphabet[x % (sizeof alphabet - 1)];
            }
            read_any(mut, n, &ok, &ok_src);
        }
        free(mut);
        free(orig);
    }
    ck_assert_int_gt(ok + ok_src, 0); /* some mutations only touch values, labels or program output */
}
END_TEST

Suite *ncu_csv_suite(void)
{
    Suite *s = suite_create("ncu_csv");
    TCase *tc = tcase_create("h200_samples");
    tcase_add_test(tc, metrics_page_of_the_probe);
    tcase_add_test(tc, details_page_keeps_sections_apart_and_skips_rules);
    tcase_add_test(tc, raw_page_is_one_row_per_launch);
    tcase_add_test(tc, source_page_sass_view);
    tcase_add_test(tc, source_page_cuda_sass_view_equals_sass_view);
    suite_add_tcase(s, tc);

    tc = tcase_create("csv_and_numbers");
    tcase_add_test(tc, quotes_commas_newlines_and_crlf);
    tcase_add_test(tc, ncu_lines_are_skipped_and_errors_kept_as_notes);
    tcase_add_test(tc, numbers_as_ncu_prints_them);
    tcase_add_loop_test(tc, bad_number_in_metric_value, 0, (int)(sizeof bad_numbers / sizeof bad_numbers[0]));
    suite_add_tcase(s, tc);

    tc = tcase_create("bad_input");
    tcase_add_test(tc, report_errors);
    tcase_add_test(tc, wide_report_errors);
    tcase_add_test(tc, absurd_sizes_are_refused);
    tcase_add_test(tc, source_errors);
    tcase_add_test(tc, cuda_sass_rows_are_sorted_and_deduplicated);
    tcase_set_timeout(tc, 60);
    suite_add_tcase(s, tc);

    tc = tcase_create("any_bytes");
    tcase_add_test(tc, every_truncation_of_the_metrics_page);
    tcase_add_test(tc, truncations_of_the_other_pages);
    tcase_add_test(tc, random_bytes_and_mutations);
    tcase_set_timeout(tc, 300);
    suite_add_tcase(s, tc);
    return s;
}
