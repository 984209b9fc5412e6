/* explain_lanes.c - `gpumemsim explain --lanes`: one execution of an
 * instruction, lane by lane (model/explain.h: line, sector, bank, entry,
 * phase, wavefront), with its source-view values and the reason for its
 * cost in words. The execution is found by reading the trace a second time;
 * its values come from replaying that one record on a fresh model. */
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "explain.h"
#include "explain_int.h"
#include "source_view.h"

/* ---- --lanes: finding the execution ---------------------------------------------- */

/* Read the trace again up to the launch and keep, per selected PC, the first
 * record (of the --warp warp when given). */
static int find_executions(const options *o, const launch_data *d, found_exec *ex, uint32_t n_ex, err_info *err)
{
    trace_reader_options ropt = {.allow_incomplete = o->replay.allow_incomplete};
    trace_reader *r = trace_reader_open(o->trace, &ropt, err);
    if (!r)
        return -1;
    trace_event ev;
    bool in_launch = false;
    uint32_t missing = n_ex;
    int got = 1;
    while (missing && (got = trace_reader_next(r, &ev, err)) == 1) {
        if (ev.type == TRACE_EV_KERNEL) {
            if (in_launch)
                break;
            in_launch = ev.kernel->launch == d->k.launch;
            continue;
        }
        if (!in_launch || ev.type != TRACE_EV_MEM)
            continue;
        if (o->have_warp && (ev.mem.cta != o->cta || ev.mem.warp != o->warp))
            continue;
        for (uint32_t i = 0; i < n_ex; i++) {
            if (!ex[i].found && d->pcs[ex[i].pc_index].pc == ev.mem.pc) {
                ex[i].found = true;
                ex[i].mem = ev.mem;
                missing--;
            }
        }
    }
    trace_reader_close(r);
    return got < 0 ? -1 : 0;
}

/* The source-view values of one record alone, replayed as a kernel of its
 * own (they depend on the addresses only, not on what the caches hold). */
void ex_one_execution(gpu *g, const trace_kernel *k, const trace_mem *m, uint64_t *execs, stats *s)
{
    err_info err = {{0}};
    stats total;
    stats_clear(s);
    *execs = 0;
    if (gpu_kernel_begin(g, k, 0, &err) == 0) { /* it ran in the replay, so it fits */
        gpu_mem(g, m);
        gpu_kernel_end(g, &total);
        uint32_t n;
        const gpu_pc_stats *p = gpu_pc_breakdown(g, &n);
        for (uint32_t i = 0; i < n; i++)
            if (p[i].pc == m->pc) {
                *s = p[i].s;
                *execs = p[i].executions;
            }
    }
}

/* ---- --lanes: output ----------------------------------------------------------------- */

const char *ex_access_name(const explain_result *r)
{
    static const char *const names[TRACE_SPACE_COUNT][TRACE_KIND_COUNT] = {
        [TRACE_SPACE_GLOBAL] = {"global load", "global store", "global atomic", "global reduction"},
        [TRACE_SPACE_SHARED] = {"shared load", "shared store", "shared atomic", "shared reduction"},
        [TRACE_SPACE_LOCAL] = {"local load", "local store", "local atomic", "local reduction"},
    };
    if (r->ldgsts)
        return r->space == TRACE_SPACE_GLOBAL ? "cp.async global read" : "cp.async shared write";
    return names[r->space][r->kind];
}

/* "3", "0-3", "30,31,0,1" (the banks of a lane's words) */
void ex_lane_banks(const explain_result *r, const explain_lane *ln, char *buf, size_t n)
{
    const smem_word *w = &r->bank.words[ln->first_word];
    bool run = true;
    for (uint32_t k = 1; k < ln->n_words; k++)
        run = run && w[k].bank == w[k - 1].bank + 1;
    if (ln->n_words == 1 || run) {
        if (ln->n_words == 1)
            snprintf(buf, n, "%u", w[0].bank);
        else
            snprintf(buf, n, "%u-%u", w[0].bank, w[ln->n_words - 1].bank);
        return;
    }
    size_t o = 0;
    for (uint32_t k = 0; k < ln->n_words && o + 1 < n; k++) {
        int c = snprintf(buf + o, n - o, "%s%u", k ? "," : "", w[k].bank);
        o += c > 0 ? (size_t)c : 0;
    }
}

/* Distinct passes of a lane's words: "0", "0,1" */
void ex_lane_passes(const explain_result *r, const explain_lane *ln, char *buf, size_t n)
{
    uint32_t seen = 0; /* passes below 32 as bits; more are listed as they come */
    size_t o = 0;
    buf[0] = '\0';
    for (uint32_t k = 0; k < ln->n_words && o + 1 < n; k++) {
        uint32_t p = r->bank.words[ln->first_word + k].pass;
        if (p < 32 && (seen & (1u << p)))
            continue;
        if (p < 32)
            seen |= 1u << p;
        int c = snprintf(buf + o, n - o, "%s%u", o ? "," : "", p);
        o += c > 0 ? (size_t)c : 0;
    }
}

bool ex_lane_broadcast(const explain_result *r, const explain_lane *ln)
{
    if (!ln->n_words)
        return false;
    for (uint32_t k = 0; k < ln->n_words; k++)
        if (!r->bank.words[ln->first_word + k].repeat)
            return false;
    return true;
}

/* Lanes whose non-repeated words fall in the worst bank of phase p. */
uint32_t ex_worst_bank_lanes(const explain_result *r, uint32_t p)
{
    const smem_phase *ph = &r->bank.phases[p];
    uint32_t mask = 0;
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        for (uint32_t k = 0; k < ln->n_words; k++) {
            const smem_word *w = &r->bank.words[ln->first_word + k];
            if (ln->phase == p && w->bank == ph->worst_bank && !w->repeat)
                mask |= 1u << l;
        }
    }
    return mask;
}

uint32_t ex_phase_lane_mask(const explain_result *r, uint32_t p)
{
    uint32_t mask = 0;
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++)
        if (r->lanes[l].n_words && r->lanes[l].phase == p)
            mask |= 1u << l;
    return mask;
}

uint64_t ex_line_base(const explain_geom *g, const explain_result *r)
{
    return r->lowest_addr & ~(uint64_t)(g->coal.line_bytes - 1u);
}

static void table_lanes(FILE *f, const explain_geom *g, const explain_result *r)
{
    char banks[48], passes[48], bytes[16];
    fputc('\n', f);
    if (r->space == TRACE_SPACE_SHARED) {
        fprintf(f, "lane  offset       word   B  bank(s)      entry  phase  wavefront  note\n");
        for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
            const explain_lane *ln = &r->lanes[l];
            if (!ln->active) {
                fprintf(f, "%4u  (inactive)\n", l);
                continue;
            }
            ex_lane_banks(r, ln, banks, sizeof banks);
            ex_lane_passes(r, ln, passes, sizeof passes);
            fprintf(f, "%4u  0x%-9" PRIx64 "  %5" PRIu64 "  %2u  %-11s  %5" PRIu64 "  %5u  %9s%s\n", l, ln->addr,
                    ln->addr / g->banks.mode_bytes, r->size_bytes, banks, r->bank.words[ln->first_word].entry,
                    ln->phase, passes,
                    !ex_lane_broadcast(r, ln) ? ""
                    : r->kind == TRACE_KIND_ATOM || r->kind == TRACE_KIND_RED ? "  same word, one add"
                                                                             : "  broadcast");
        }
        char note[256];
        snprintf(note, sizeof note, "(word = offset / %u B; bank = word %% %u; entry = offset / %u B; wavefront 0 "
                 "is the first pass of the phase)", g->banks.mode_bytes, g->banks.banks, g->banks.phase_bytes);
        ex_write_wrapped(f, note, "", " ");
        return;
    }
    bool local = r->space == TRACE_SPACE_LOCAL;
    if (local)
        fprintf(f, "lane  offset      B  interleaved   line  sector  bytes\n");
    else
        fprintf(f, "lane  address             offset   B  line  sector  bytes%s\n",
                r->banked ? "  bank(s)      phase  wavefront" : "");
    uint64_t base = ex_line_base(g, r);
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        if (r->zero_fill_mask >> l & 1u) {
            fprintf(f, "%4u  0x%-16" PRIx64 "  (zero fill: a source in the null page, nothing read)\n", l, ln->addr);
            continue;
        }
        if (!ln->active) {
            fprintf(f, "%4u  (inactive)\n", l);
            continue;
        }
        uint32_t chunk = local ? (r->size_bytes >= 4 ? 4u : r->size_bytes) : r->size_bytes;
        snprintf(bytes, sizeof bytes, "%u-%u", ln->sector_offset, ln->sector_offset + chunk - 1u);
        if (local) {
            fprintf(f, "%4u  0x%-8" PRIx64 "  %2u  0x%-10" PRIx64 "  %4u  %6u  %5s\n", l, ln->addr, r->size_bytes,
                    ln->coal_addr, ln->line_index, ln->sector, bytes);
            continue;
        }
        fprintf(f, "%4u  0x%-16" PRIx64 "  %6" PRIu64 "  %2u  %4u  %6u  %5s", l, ln->addr, ln->addr - base,
                r->size_bytes, ln->line_index, ln->sector, bytes);
        if (r->banked) {
            ex_lane_banks(r, ln, banks, sizeof banks);
            ex_lane_passes(r, ln, passes, sizeof passes);
            fprintf(f, "  %-11s  %5u  %9s", banks, ln->phase, passes);
        }
        fputc('\n', f);
    }
    char note[256];
    if (local)
        snprintf(note, sizeof note, "(interleaved: the address of the lane's first 4-byte word in the warp's local "
                 "region; %s)", r->local_words > 1 ? "its other words lie 128 B apart" : "one word per lane");
    else
        snprintf(note, sizeof note, "(offset: from the start of the %u-B line of the lowest address; line: in "
                 "order of first touch; bytes: in the %u-B sector)", g->coal.line_bytes, g->coal.sector_bytes);
    ex_write_wrapped(f, note, "", " ");
}

/* A line's sectors as a list ("1,2,3"), the bytes of them used and their count. */
void ex_line_sectors(const explain_geom *g, const coal_line *cl, char *list, size_t size, uint32_t *used,
                     uint32_t *n)
{
    size_t o = 0;
    *used = *n = 0;
    list[0] = '\0';
    for (uint32_t s = 0; s < g->coal.sectors_per_line; s++) {
        if (!(cl->sector_mask & (1u << s)))
            continue;
        if (o < size) {
            int c = snprintf(list + o, size - o, "%s%u", *n ? "," : "", s);
            o += c > 0 ? (size_t)c : 0;
        }
        *used += (uint32_t)__builtin_popcount(cl->byte_mask[s]);
        (*n)++;
    }
}

static void table_lines(FILE *f, const explain_geom *g, const explain_result *r)
{
    fprintf(f, "\nline  address             sectors touched  bytes used\n");
    for (uint32_t i = 0; i < r->coal.n_lines; i++) {
        const coal_line *cl = &r->coal.lines[i];
        char list[32];
        uint32_t used, n;
        ex_line_sectors(g, cl, list, sizeof list, &used, &n);
        fprintf(f, "%4u  0x%-16" PRIx64 "  %-15s  %u of %u\n", i, cl->line << g->coal.line_shift, list, used,
                n * g->coal.sector_bytes);
    }
}

static void table_phases(FILE *f, const explain_result *r)
{
    fprintf(f, "\nphase  lanes          active  wavefronts  worst bank  its distinct entries (lanes)\n");
    for (uint32_t p = 0; p < r->bank.n_phases; p++) {
        const smem_phase *ph = &r->bank.phases[p];
        char lanes[160], worst[160];
        uint32_t first = ph->group * r->lanes_per_phase;
        if (r->lanes_per_phase == 1)
            snprintf(lanes, sizeof lanes, "%u", first);
        else
            snprintf(lanes, sizeof lanes, "%u-%u", first, first + r->lanes_per_phase - 1u);
        uint32_t active = (uint32_t)__builtin_popcount(ex_phase_lane_mask(r, p));
        if (ph->wavefronts == 1) {
            fprintf(f, "%5u  %-13s  %6u  %10u  %10s  at most 1 in every bank\n", p, lanes, active, 1u, "-");
            continue;
        }
        explain_lane_list(ex_worst_bank_lanes(r, p), worst, sizeof worst);
        fprintf(f, "%5u  %-13s  %6u  %10u  %10u  %u (%s)\n", p, lanes, active, ph->wavefronts, ph->worst_bank,
                ph->wavefronts, worst);
    }
}

static void table_execution(FILE *f, const options *o, const explain_geom *g, const launch_data *d,
                            const found_exec *ex, const explain_result *r, uint64_t execs1, const stats *s1,
                            const char *why)
{
    const gpu_pc_stats *p = &d->pcs[ex->pc_index];
    char where[192], pc[16], num[40];
    ex_where_of(d, p->pc, where, sizeof where);
    ex_pc_text(p->pc, pc, sizeof pc);
    report_thousands(num, sizeof num, p->executions);
    if (ex_pc_sass(d, p->pc)[0])
        fprintf(f, "\n-- %s  %s  (%s)\n", pc, ex_pc_sass(d, p->pc), where);
    else
        fprintf(f, "\n-- %s  (the trace has no SASS%s for this PC)\n", pc, ex_pc_file(d, p->pc) ? "" : " or source line");
    if (r->zero_fill_mask) /* active lanes that read nothing (explain.h) */
        fprintf(f, "   %s, %u B per lane, %u of 32 lanes active (mask 0x%08x): %u read, %u zero-fill\n",
                ex_access_name(r), r->size_bytes, r->active_lanes + (uint32_t)__builtin_popcount(r->zero_fill_mask),
                r->active_mask | r->zero_fill_mask, r->active_lanes, (uint32_t)__builtin_popcount(r->zero_fill_mask));
    else
        fprintf(f, "   %s, %u B per lane, %u of 32 lanes active (mask 0x%08x)\n", ex_access_name(r), r->size_bytes,
                r->active_lanes, r->active_mask);
    if (o->have_warp)
        fprintf(f, "   CTA %u warp %u: its first execution (%s in all, over every warp)\n", ex->mem.cta,
                ex->mem.warp, num);
    else if (p->executions == 1)
        fprintf(f, "   CTA %u warp %u: the only execution\n", ex->mem.cta, ex->mem.warp);
    else
        fprintf(f, "   CTA %u warp %u: the first of %s executions in capture order (--warp CTA:WARP for "
                "another)\n", ex->mem.cta, ex->mem.warp, num);
    if (r->coalesced || r->banked)
        table_lanes(f, g, r);
    if (r->coalesced)
        table_lines(f, g, r);
    if (r->banked)
        table_phases(f, r);

    size_t ncols;
    const source_column *cols = source_view_columns(&ncols);
    fputs("\nthis execution in the source view (the model, from this record alone):\n", f);
    for (size_t c = 0; c < ncols; c++) {
        double v = source_view_value(c, execs1, s1);
        if (v == 0 && c != 0)
            continue;
        ex_value_text(v, cols[c].per_execution, true, num, sizeof num);
        fprintf(f, "  %-42s %10s\n", cols[c].name, num);
    }
    fputs("\nwhy:\n", f);
    char line[1024];
    for (const char *q = why; *q;) {
        size_t len = strcspn(q, "\n");
        snprintf(line, sizeof line, "%.*s", (int)len, q);
        ex_write_wrapped(f, line, "  ", "    ");
        q += len + (q[len] == '\n');
    }
}

static void csv_lanes_header(FILE *f)
{
    fputs("launch,pc,cta,warp,lane,active,address,bytes,line,line_address,sector,sector_offset,phase,banks,"
          "entries,wavefronts,broadcast\n", f);
}

static void csv_execution(FILE *f, const explain_geom *g, const launch_data *d, const found_exec *ex,
                          const explain_result *r, const char *why)
{
    char pc[16];
    ex_pc_text(d->pcs[ex->pc_index].pc, pc, sizeof pc);
    for (const char *q = why; *q;) {
        size_t len = strcspn(q, "\n");
        fprintf(f, "# why %s: %.*s\n", pc, (int)len, q);
        q += len + (q[len] == '\n');
    }
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        fprintf(f, "%u,%s,%u,%u,%u,%d,", d->k.launch, pc, ex->mem.cta, ex->mem.warp, l, ln->active);
        if (!ln->active) {
            fputs(",,,,,,,,,,\n", f);
            continue;
        }
        fprintf(f, "0x%" PRIx64 ",%u,", ln->addr, r->size_bytes);
        if (r->coalesced)
            fprintf(f, "%u,0x%" PRIx64 ",%u,%u,", ln->line_index,
                    r->coal.lines[ln->line_index].line << g->coal.line_shift, ln->sector, ln->sector_offset);
        else
            fputs(",,,,", f);
        if (r->banked) {
            fprintf(f, "%u,", ln->phase);
            for (int part = 0; part < 3; part++) {
                fputc('"', f);
                for (uint32_t k = 0; k < ln->n_words; k++) {
                    const smem_word *w = &r->bank.words[ln->first_word + k];
                    if (part == 0)
                        fprintf(f, "%s%u", k ? " " : "", w->bank);
                    else if (part == 1)
                        fprintf(f, "%s%" PRIu64, k ? " " : "", w->entry);
                    else
                        fprintf(f, "%s%u", k ? " " : "", w->pass);
                }
                fputs("\",", f);
            }
            fprintf(f, "%d\n", ex_lane_broadcast(r, ln));
        } else {
            fputs(",,,,\n", f);
        }
    }
}

static void json_execution(FILE *f, const explain_geom *g, const launch_data *d, const found_exec *ex,
                           const explain_result *r, uint64_t execs1, const stats *s1, const char *why, bool first)
{
    const gpu_pc_stats *p = &d->pcs[ex->pc_index];
    char pc[16];
    ex_pc_text(p->pc, pc, sizeof pc);
    fprintf(f, "%s\n    {\"pc\": \"%s\", \"sass\": ", first ? "" : ",", pc);
    report_json_string(f, ex_pc_sass(d, p->pc));
    fputs(", ", f);
    ex_json_where(f, d, p->pc);
    fprintf(f, ",\n     \"access\": \"%s\", \"space\": \"%s\", \"kind\": \"%s\", \"size_bytes\": %u, "
            "\"active_mask\": \"0x%08x\",\n     \"cta\": %u, \"warp\": %u, \"executions_of_pc\": %" PRIu64 ",\n",
            ex_access_name(r), trace_space_name(r->space), trace_kind_name(r->kind), r->size_bytes, r->active_mask,
            ex->mem.cta, ex->mem.warp, p->executions);
    if (r->zero_fill_mask) /* active lanes that read nothing; active_mask holds those that read */
        fprintf(f, "     \"zero_fill_mask\": \"0x%08x\",\n", r->zero_fill_mask);
    fputs("     \"source_view\": ", f);
    ex_json_source_view(f, execs1, s1);
    fputs(",\n     \"lanes\": [", f);
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        fprintf(f, "%s\n       {\"lane\": %u, \"active\": %s", l ? "," : "", l, ln->active ? "true" : "false");
        if (r->zero_fill_mask >> l & 1u) /* active in the warp, but reads nothing */
            fprintf(f, ", \"zero_fill\": true, \"address\": \"0x%" PRIx64 "\"", ln->addr);
        if (ln->active) {
            fprintf(f, ", \"address\": \"0x%" PRIx64 "\"", ln->addr);
            if (r->coalesced)
                fprintf(f, ", \"coalescer_address\": \"0x%" PRIx64 "\", \"line\": %u, \"sector\": %u, "
                        "\"sector_offset\": %u", ln->coal_addr, ln->line_index, ln->sector, ln->sector_offset);
            if (r->banked) {
                fprintf(f, ", \"phase\": %u, \"words\": [", ln->phase);
                for (uint32_t k = 0; k < ln->n_words; k++) {
                    const smem_word *w = &r->bank.words[ln->first_word + k];
                    fprintf(f, "%s{\"bank\": %u, \"entry\": %" PRIu64 ", \"wavefront\": %u, \"broadcast\": %s}",
                            k ? ", " : "", w->bank, w->entry, w->pass, w->repeat ? "true" : "false");
                }
                fputc(']', f);
            }
        }
        fputc('}', f);
    }
    fputs("\n     ]", f);
    if (r->coalesced) {
        fputs(",\n     \"lines\": [", f);
        for (uint32_t i = 0; i < r->coal.n_lines; i++) {
            const coal_line *cl = &r->coal.lines[i];
            fprintf(f, "%s{\"line\": %u, \"address\": \"0x%" PRIx64 "\", \"sectors\": [", i ? ", " : "", i,
                    cl->line << g->coal.line_shift);
            uint32_t n = 0, used = 0;
            for (uint32_t s = 0; s < g->coal.sectors_per_line; s++)
                if (cl->sector_mask & (1u << s)) {
                    fprintf(f, "%s%u", n++ ? ", " : "", s);
                    used += (uint32_t)__builtin_popcount(cl->byte_mask[s]);
                }
            fprintf(f, "], \"bytes_used\": %u}", used);
        }
        fprintf(f, "],\n     \"coalescing\": {\"lines\": %u, \"sectors\": %u, \"requested_bytes\": %u, "
                "\"distinct_bytes\": %u, \"ideal_sectors\": %u, \"excessive_sectors\": %u, \"tag_wavefronts\": %u}",
                r->coal.n_lines, r->coal.n_sectors, r->requested_bytes, r->distinct_bytes, r->ideal_sectors,
                r->excessive_sectors, r->tag_wavefronts);
    }
    if (r->banked) {
        fputs(",\n     \"phases\": [", f);
        for (uint32_t ph = 0; ph < r->bank.n_phases; ph++) {
            const smem_phase *x = &r->bank.phases[ph];
            char lanes[160];
            explain_lane_list(ex_worst_bank_lanes(r, ph), lanes, sizeof lanes);
            fprintf(f, "%s{\"phase\": %u, \"first_lane\": %u, \"lanes\": %u, \"active\": %u, \"wavefronts\": %u, "
                    "\"worst_bank\": %u, \"worst_bank_lanes\": \"%s\"}", ph ? ", " : "", ph,
                    x->group * r->lanes_per_phase, r->lanes_per_phase,
                    (uint32_t)__builtin_popcount(ex_phase_lane_mask(r, ph)), x->wavefronts, x->worst_bank, lanes);
        }
        fprintf(f, "],\n     \"banks\": {\"lanes_per_phase\": %u, \"merged\": %s, \"serialized\": %s, "
                "\"wavefronts\": %u, \"ideal\": %u", r->lanes_per_phase, r->merged ? "true" : "false",
                r->serialized ? "true" : "false", r->bank.cost.wavefronts, r->bank.cost.ideal);
        if (r->space == TRACE_SPACE_GLOBAL)
            fprintf(f, ", \"ideal_if_miss\": %u", r->data_ideal_if_miss);
        fputc('}', f);
    }
    fputs(",\n     \"why\": [", f);
    bool first_w = true;
    for (const char *q = why; *q;) {
        size_t len = strcspn(q, "\n");
        char line[1024];
        snprintf(line, sizeof line, "%.*s", (int)len, q);
        fputs(first_w ? "\n       " : ",\n       ", f);
        first_w = false;
        report_json_string(f, line);
        q += len + (q[len] == '\n');
    }
    fputs("]}", f);
}

int explain_write_lanes(FILE *f, const options *o, const cfg_gpu *cfg, const collected *c, err_info *err)
{
    const launch_data *d = NULL;
    for (uint32_t i = 0; i < c->n && !d; i++)
        if (c->launches[i].n_selected)
            d = &c->launches[i];
    if (o->have_warp) {
        uint64_t ctas = trace_kernel_ctas(&d->k);
        uint32_t warps = trace_kernel_warps_per_cta(&d->k);
        if (o->cta >= ctas || o->warp >= warps) {
            err_set(err, "%s: --warp %u:%u: launch %u has CTAs 0..%" PRIu64 " of warps 0..%u", o->trace, o->cta,
                    o->warp, d->k.launch, ctas - 1u, warps - 1u);
            return -1;
        }
    }
    found_exec *ex = xcalloc((size_t)d->n_selected, sizeof *ex);
    uint32_t n = 0;
    for (uint32_t i = 0; i < d->n_pcs; i++)
        if (d->selected[i])
            ex[n++].pc_index = i;
    if (find_executions(o, d, ex, n, err) != 0) {
        free(ex);
        return -1;
    }
    uint32_t found = 0;
    for (uint32_t i = 0; i < n; i++)
        found += ex[i].found;
    if (found == 0) {
        char what[600];
        if (o->have_pc)
            snprintf(what, sizeof what, "PC 0x%04x", o->pc);
        else
            snprintf(what, sizeof what, "the memory instructions of %s:%u", o->line_file, o->line);
        err_set(err, "%s: --warp %u:%u: CTA %u warp %u never executed %s in launch %u", o->trace, o->cta, o->warp,
                o->cta, o->warp, what, d->k.launch);
        free(ex);
        return -1;
    }

    explain_geom g;
    explain_geom_init(&g, cfg);
    explain_result *r = xmalloc(sizeof *r);
    char *why = xmalloc(8192);
    gpu *model = gpu_create(cfg);
    ex_write_head(f, o, cfg);
    if (o->fmt == REPORT_TABLE) {
        fprintf(f, "\n== launch %u: %s\n", d->k.launch, d->k.demangled);
    } else if (o->fmt == REPORT_CSV) {
        csv_lanes_header(f);
    } else {
        fputs(",\n  ", f);
        ex_json_launch_head(f, d);
        fputs(",\n  \"executions\": [", f);
    }
    bool first = true;
    for (uint32_t i = 0; i < n; i++) {
        if (!ex[i].found) {
            if (o->fmt == REPORT_TABLE)
                fprintf(f, "\n-- 0x%04x  %s: not executed by CTA %u warp %u\n", d->pcs[ex[i].pc_index].pc,
                        ex_pc_sass(d, d->pcs[ex[i].pc_index].pc), o->cta, o->warp);
            continue;
        }
        explain_mem(&g, &ex[i].mem, ex_pc_sass(d, ex[i].mem.pc), r);
        explain_why(&g, r, why, 8192);
        uint64_t execs1;
        stats s1;
        ex_one_execution(model, &d->k, &ex[i].mem, &execs1, &s1);
        if (o->fmt == REPORT_TABLE)
            table_execution(f, o, &g, d, &ex[i], r, execs1, &s1, why);
        else if (o->fmt == REPORT_CSV)
            csv_execution(f, &g, d, &ex[i], r, why);
        else
            json_execution(f, &g, d, &ex[i], r, execs1, &s1, why, first);
        first = false;
    }
    if (o->fmt == REPORT_JSON)
        fputs("\n  ]\n}\n", f);
    gpu_destroy(model);
    free(why);
    free(r);
    free(ex);
    return 0;
}
