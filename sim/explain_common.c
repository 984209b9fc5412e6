/* explain_common.c - helpers of `gpumemsim explain`: what a PC is (its
 * source file and line, SASS text, opcode) and how values are written. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain_int.h"
#include "version.h"

/* ---- what a PC is ----------------------------------------------------------------- */

const trace_pc_info *ex_pc_info(const launch_data *d, uint32_t pc)
{
    return pc == GPU_PC_NONE ? NULL : trace_kernel_find_pc(&d->k, pc);
}

const char *ex_pc_file(const launch_data *d, uint32_t pc)
{
    const trace_pc_info *p = ex_pc_info(d, pc);
    return p && p->file >= 0 && (uint32_t)p->file < d->k.n_files ? d->k.files[p->file] : NULL;
}

uint32_t ex_pc_line(const launch_data *d, uint32_t pc)
{
    const trace_pc_info *p = ex_pc_info(d, pc);
    return p && ex_pc_file(d, pc) ? p->line : 0;
}

const char *ex_pc_sass(const launch_data *d, uint32_t pc)
{
    const trace_pc_info *p = ex_pc_info(d, pc);
    return p && p->sass ? p->sass : "";
}

static const char *base_name(const char *path)
{
    const char *s = strrchr(path, '/');
    return s ? s + 1 : path;
}

/* "file.cu:20", or "-" when the trace has no line for the PC */
void ex_where_of(const launch_data *d, uint32_t pc, char *buf, size_t n)
{
    const char *f = ex_pc_file(d, pc);
    if (f)
        snprintf(buf, n, "%s:%u", base_name(f), ex_pc_line(d, pc));
    else
        snprintf(buf, n, "-");
}

/* The opcode with its predicate: "@!P3 LDG.E" of "@!P3 LDG.E R10, desc[UR6][R2.64+-0x28]". */
void ex_opcode_of(const char *sass, char *buf, size_t n)
{
    size_t len = 0;
    const char *p = sass;
    if (*p == '@')
        p = strchr(p, ' ') ? strchr(p, ' ') + 1 : p + strlen(p);
    len = (size_t)(p - sass) + strcspn(p, " ");
    if (len >= n)
        len = n - 1;
    memcpy(buf, sass, len);
    buf[len] = '\0';
}

void ex_pc_text(uint32_t pc, char *buf, size_t n)
{
    if (pc == GPU_PC_NONE)
        snprintf(buf, n, "other");
    else
        snprintf(buf, n, "0x%04x", pc);
}

/* ---- output helpers ----------------------------------------------------------------- */

void ex_value_text(double v, bool per_execution, bool thousands, char *buf, size_t n)
{
    if (per_execution)
        snprintf(buf, n, "%.2f", v);
    else if (thousands)
        report_thousands(buf, n, (uint64_t)v);
    else
        snprintf(buf, n, "%" PRIu64, (uint64_t)v);
}

void ex_json_number(FILE *f, double v)
{
    if (v == (double)(uint64_t)v)
        fprintf(f, "%" PRIu64, (uint64_t)v);
    else
        fprintf(f, "%.6g", v);
}

/* Split a column name into up to 3 lines of at most HEADER_WRAP characters. */
int ex_wrap_header(const char *name, char lines[3][32])
{
    int n = 0;
    lines[0][0] = lines[1][0] = lines[2][0] = '\0';
    const char *p = name;
    while (*p && n < 3) {
        size_t len = strlen(lines[n]);
        size_t word = strcspn(p, " ");
        if (len && len + 1 + word > HEADER_WRAP) {
            n++;
            continue;
        }
        if (word > 31 - len - 1)
            word = 31 - len - 1;
        if (len)
            lines[n][len++] = ' ';
        memcpy(lines[n] + len, p, word);
        lines[n][len + word] = '\0';
        p += word;
        while (*p == ' ')
            p++;
    }
    return lines[n < 3 ? n : 2][0] ? (n < 3 ? n + 1 : 3) : n;
}

/* Write text wrapped at WHY_WIDTH, each line starting with indent. */
void ex_write_wrapped(FILE *f, const char *text, const char *indent, const char *cont)
{
    const char *p = text;
    const char *lead = indent;
    while (*p) {
        size_t room = WHY_WIDTH - strlen(lead);
        size_t len = strlen(p);
        size_t take = len;
        if (len > room) {
            take = room;
            while (take > 0 && p[take] != ' ')
                take--;
            if (take == 0)
                take = room;
        }
        fprintf(f, "%s%.*s\n", lead, (int)take, p);
        p += take;
        while (*p == ' ')
            p++;
        lead = cont;
    }
}

void ex_write_head(FILE *f, const options *o, const cfg_gpu *cfg)
{
    if (o->fmt == REPORT_JSON) {
        fputs("{\n  \"gpumemsim\": ", f);
        report_json_string(f, GMS_VERSION);
        fputs(",\n  \"command\": \"explain\",\n  \"config_file\": ", f);
        report_json_string(f, o->config_path);
        fputs(",\n  \"gpu\": ", f);
        report_json_string(f, cfg->name);
        fputs(",\n  \"trace\": ", f);
        report_json_string(f, o->trace);
        return;
    }
    fprintf(f, "# gpumemsim %s explain\n# config: %s (%s: %u banks x %u B, %u-B words; %u-B lines of %u-B "
            "sectors)\n# trace: %s\n", GMS_VERSION, o->config_path, cfg->name, cfg->smem_banks, cfg->smem_bank_bytes,
            cfg->smem_bank_mode_bytes, cfg->l1_line_bytes, cfg->l1_sector_bytes, o->trace);
}
