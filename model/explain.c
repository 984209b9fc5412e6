/* explain.c - the per-lane decomposition of one memory instruction and its
 * explanation in words (the rules are in explain.h, smem.h and gpu.c).
 *
 * Not on the hot path: one record at a time, for people. The decisions that
 * gpu.c makes before calling the coalescer and the bank model (which lanes
 * form chunks, whether a shared load merges its phases, which accesses have
 * a data stage) are repeated here, the interleaved local layout is shared
 * (local_layout.h); the unit tests replay the same records through gpu.c and
 * check that every count agrees. */
#include "explain.h"
#include "local_layout.h"

#include <stdarg.h>
#include <stdio.h>
#include <string.h>


void explain_geom_init(explain_geom *g, const cfg_gpu *c)
{
    coal_geom_init(&g->coal, c->l1_line_bytes, c->l1_sector_bytes);
    smem_geom_init(&g->banks, c->smem_banks, c->smem_bank_bytes, c->smem_bank_mode_bytes);
    g->tags_per_cycle = c->l1_tags_per_cycle;
    g->load_pairing = c->smem_load_pairing;
}

static uint32_t popcount32(uint32_t v)
{
    return (uint32_t)__builtin_popcount(v);
}

/* One chunk per active lane, in lane order (gpu.c lane_chunks). */
static uint32_t lane_chunks(const trace_mem *m, coal_chunk *c)
{
    uint32_t n = 0;
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        if (!(m->active_mask & (1u << l)))
            continue;
        c[n].addr = m->addr[l];
        c[n].bytes = m->size_bytes;
        c[n].lane = (uint8_t)l;
        n++;
    }
    return n;
}

static void locate_lanes(const explain_geom *g, explain_result *r)
{
    const uint32_t sector_mask = g->coal.sectors_per_line - 1u;
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        explain_lane *ln = &r->lanes[l];
        if (!ln->active)
            continue;
        uint64_t line = ln->coal_addr >> g->coal.line_shift;
        for (uint32_t i = 0; i < r->coal.n_lines; i++) {
            if (r->coal.lines[i].line == line) {
                ln->line_index = i;
                break;
            }
        }
        ln->sector = (uint32_t)(ln->coal_addr >> g->coal.sector_shift) & sector_mask;
        ln->sector_offset = (uint32_t)ln->coal_addr & (g->coal.sector_bytes - 1u);
    }
}

static void summarise_coalescing(const explain_geom *g, const trace_mem *m, explain_result *r)
{
    r->coalesced = true;
    for (uint32_t i = 0; i < r->coal.n_lines; i++)
        for (uint32_t s = 0; s < COAL_MAX_SECTORS_PER_LINE; s++)
            r->distinct_bytes += popcount32(r->coal.lines[i].byte_mask[s]);
    r->requested_bytes = r->active_lanes * m->size_bytes;
    bool first = true;
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        if (r->lanes[l].active && (first || r->lanes[l].coal_addr < r->lowest_addr)) {
            r->lowest_addr = r->lanes[l].coal_addr;
            first = false;
        }
    }
    if (m->space == TRACE_SPACE_GLOBAL) {
        uint32_t sect = g->coal.sector_bytes;
        uint32_t need = (r->requested_bytes + sect - 1u) / sect;
        r->ideal_sectors = need < r->coal.n_sectors ? need : r->coal.n_sectors;
        r->excessive_sectors = r->coal.n_sectors - r->ideal_sectors;
    }
    locate_lanes(g, r);
}

/* addr[l] = addr[l0] + stride * (l - l0) over the active lanes, else EXPLAIN_NO_STRIDE. */
static int64_t lane_stride(const trace_mem *m)
{
    int first = -1;
    int64_t stride = EXPLAIN_NO_STRIDE;
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        if (!(m->active_mask & (1u << l)))
            continue;
        if (first < 0) {
            first = (int)l;
            continue;
        }
        int64_t d = (int64_t)(m->addr[l] - m->addr[first]);
        int64_t dl = (int64_t)l - first;
        if (stride == EXPLAIN_NO_STRIDE) {
            if (d % dl != 0)
                return EXPLAIN_NO_STRIDE;
            stride = d / dl;
        } else if ((uint64_t)d != (uint64_t)stride * (uint64_t)dl) { /* unsigned: no overflow */
            return EXPLAIN_NO_STRIDE;
        }
    }
    return stride;
}

static void break_down_banks(const explain_geom *g, const coal_chunk *c, uint32_t n, explain_result *r)
{
    r->banked = true;
    smem_breakdown_chunks(&g->banks, c, n, r->lanes_per_phase, r->serialized, &r->bank);
    for (uint32_t p = 0; p < r->bank.n_phases; p++) {
        const smem_phase *ph = &r->bank.phases[p];
        for (uint32_t i = ph->first_chunk; i < ph->first_chunk + ph->n_chunks; i++)
            r->lanes[c[i].lane].phase = p;
    }
    for (uint32_t w = 0; w < r->bank.n_words; w++) {
        explain_lane *ln = &r->lanes[c[r->bank.words[w].chunk].lane];
        if (ln->n_words == 0)
            ln->first_word = w;
        ln->n_words++;
    }
}

void explain_mem(const explain_geom *g, const trace_mem *m, const char *sass, explain_result *out)
{
    memset(out, 0, sizeof *out);
    uint32_t reads = trace_mem_read_lanes(m);
    trace_mem reading;
    if (reads != m->active_mask) { /* zero fills: the lanes that read are the access */
        out->zero_fill_mask = m->active_mask & ~reads;
        reading = *m; /* the zero fills' addresses stay, for the lane table */
        reading.active_mask = reads;
        m = &reading;
    }
    out->space = (trace_space)m->space;
    out->kind = (trace_kind)m->kind;
    out->size_bytes = m->size_bytes;
    out->active_mask = m->active_mask;
    out->active_lanes = popcount32(m->active_mask);
    out->ldgsts = (m->flags & TRACE_MEM_LDGSTS) != 0;
    out->stride_bytes = lane_stride(m);
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        out->lanes[l].active = (m->active_mask >> l) & 1u;
        out->lanes[l].addr = m->addr[l];
        out->lanes[l].coal_addr = m->addr[l];
    }

    coal_chunk chunks[COAL_MAX_CHUNKS];
    uint32_t n;
    bool atomic = m->kind == TRACE_KIND_ATOM || m->kind == TRACE_KIND_RED;
    switch ((trace_space)m->space) {
    case TRACE_SPACE_GLOBAL:
        n = lane_chunks(m, chunks);
        coal_run(&g->coal, chunks, n, &out->coal);
        summarise_coalescing(g, m, out);
        if (m->kind == TRACE_KIND_LD) {
            /* gpu.c do_global: tag stage, then (not for a cp.async, whose data
             * goes to shared memory) the data stage by the bank rule, never merged */
            uint32_t tpc = g->tags_per_cycle;
            out->tag_wavefronts = (out->coal.n_lines + tpc - 1u) / tpc;
            if (out->ldgsts)
                break;
            out->lanes_per_phase = smem_lanes_per_phase(&g->banks, m->size_bytes, false);
            break_down_banks(g, chunks, n, out);
            uint32_t phases = out->bank.cost.ideal;
            out->data_ideal_if_miss = out->tag_wavefronts > phases ? out->tag_wavefronts : phases;
        }
        break;
    case TRACE_SPACE_LOCAL:
        n = local_layout_chunks(m, 0, 128u, chunks, &out->local_words); /* relative to the warp's word 0, words a line apart */
        for (uint32_t i = 0; i < n && i < out->active_lanes; i++)
            out->lanes[chunks[i].lane].coal_addr = chunks[i].addr; /* word 0 of each lane */
        coal_run(&g->coal, chunks, n, &out->coal);
        summarise_coalescing(g, m, out);
        break;
    case TRACE_SPACE_SHARED: {
        /* gpu.c do_shared */
        bool store = m->kind == TRACE_KIND_ST || out->ldgsts;
        out->serialized = !store && atomic && smem_atomic_serializes(sass);
        out->merged = !store && !atomic && g->load_pairing &&
                      smem_lanes_per_phase(&g->banks, m->size_bytes, false) < 32u &&
                      smem_lanes_pair_up(m->addr, m->active_mask);
        out->lanes_per_phase = smem_lanes_per_phase(&g->banks, m->size_bytes, out->merged);
        n = lane_chunks(m, chunks);
        break_down_banks(g, chunks, n, out);
        break;
    }
    case TRACE_SPACE_COUNT:
        break;
    }
}

/* ---- words ------------------------------------------------------------------- */

char *explain_lane_list(uint32_t mask, char *buf, size_t n)
{
    uint32_t lanes[32], k = 0;
    for (uint32_t l = 0; l < 32; l++)
        if (mask & (1u << l))
            lanes[k++] = l;
    size_t o = 0;
    buf[0] = '\0';
#define PUT(...) (o += (size_t)snprintf(buf + o, o < n ? n - o : 0, __VA_ARGS__), o = o < n ? o : n - 1)
    if (k == 0) {
        PUT("none");
        return buf;
    }
    /* an arithmetic progression of 5 or more with a step above 1: "0,4,8,...,28" */
    bool progression = k >= 5 && lanes[1] - lanes[0] > 1;
    for (uint32_t i = 2; progression && i < k; i++)
        progression = lanes[i] - lanes[i - 1] == lanes[1] - lanes[0];
    if (progression) {
        PUT("%u,%u,%u,...,%u", lanes[0], lanes[1], lanes[2], lanes[k - 1]);
        return buf;
    }
    /* runs of 3 or more as ranges: "0-7,16-23", others one by one */
    for (uint32_t i = 0; i < k;) {
        uint32_t j = i;
        while (j + 1 < k && lanes[j + 1] == lanes[j] + 1)
            j++;
        const char *sep = i ? "," : "";
        if (j - i >= 2) {
            PUT("%s%u-%u", sep, lanes[i], lanes[j]);
            i = j + 1;
        } else {
            PUT("%s%u", sep, lanes[i]);
            i++;
        }
    }
#undef PUT
    return buf;
}

typedef struct text {
    char *buf;
    size_t n, len;
} text;

static void say(text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void say(text *t, const char *fmt, ...)
{
    size_t room = t->len < t->n ? t->n - t->len : 0;
    va_list ap;
    va_start(ap, fmt);
    int w = vsnprintf(t->buf + t->len, room, fmt, ap);
    va_end(ap);
    if (w > 0)
        t->len += (size_t)w < room ? (size_t)w : (room ? room - 1 : 0);
}

static const char *plural(uint64_t v)
{
    return v == 1 ? "" : "s";
}

static void why_global_sectors(const explain_geom *g, const explain_result *r, text *t)
{
    uint32_t sect = g->coal.sector_bytes, linebytes = g->coal.line_bytes;
    uint32_t sectors = r->coal.n_sectors, lines = r->coal.n_lines;
    uint32_t need = (r->requested_bytes + sect - 1u) / sect;
    say(t, "%u active lane%s x %u B = %u B could fill %u sector%s of %u B (ideal); ", r->active_lanes,
        plural(r->active_lanes), r->size_bytes, r->requested_bytes, need, plural(need), sect);
    if (sectors < need) {
        say(t, "lanes share addresses (%u distinct bytes), so they touch only %u sector%s in %u line%s: the "
            "ideal is capped at the sectors touched (%u), no excessive sectors.\n", r->distinct_bytes, sectors,
            plural(sectors), lines, plural(lines), r->ideal_sectors);
    } else if (r->excessive_sectors == 0) {
        say(t, "they touch exactly %u sector%s in %u line%s: no excessive sectors.\n", sectors, plural(sectors),
            lines, plural(lines));
    } else if (r->stride_bytes == (int64_t)r->size_bytes) {
        uint32_t off_sector = (uint32_t)r->lowest_addr & (sect - 1u);
        uint32_t off_line = (uint32_t)r->lowest_addr & (linebytes - 1u);
        say(t, "they touch %u sectors in %u line%s because the first byte is %u B into its %u-B sector "
            "(%u B into its %u-B line): %u excessive sector%s.\n", sectors, lines, plural(lines), off_sector, sect,
            off_line, linebytes, r->excessive_sectors, plural(r->excessive_sectors));
    } else {
        double per_sector = (double)r->distinct_bytes / (double)sectors;
        if (r->stride_bytes != EXPLAIN_NO_STRIDE && r->stride_bytes > (int64_t)r->size_bytes)
            say(t, "consecutive lanes are %lld B apart, so ", (long long)r->stride_bytes);
        else
            say(t, "the lanes' addresses are scattered, so ");
        say(t, "the %u sectors they touch (in %u line%s) carry %.1f of their %u B each on average: "
            "%u excessive sector%s.\n", sectors, lines, plural(lines), per_sector, sect, r->excessive_sectors,
            plural(r->excessive_sectors));
    }
}

static void why_banks(const explain_geom *g, const explain_result *r, text *t)
{
    const smem_geom *b = &g->banks;
    const smem_breakdown *bd = &r->bank;
    bool global = r->space == TRACE_SPACE_GLOBAL;
    if (global)
        say(t, "L1 data stage (the shared-memory bank rule on the global addresses): ");
    say(t, "%u banks x %u B, %u-B words to successive banks, %u B per wavefront: %u-B accesses go in "
        "phases of %u lanes", b->banks, b->bank_bytes, b->mode_bytes, b->phase_bytes, r->size_bytes,
        r->lanes_per_phase);
    if (r->merged)
        say(t, " (merged two by two: every lane's address equals lane l^1's or l^2's)");
    say(t, "; %u phase%s with an active lane = %u ideal wavefront%s.\n", bd->cost.ideal, plural(bd->cost.ideal),
        bd->cost.ideal, plural(bd->cost.ideal));

    uint32_t worst = 0;
    for (uint32_t p = 1; p < bd->n_phases; p++)
        if (bd->phases[p].wavefronts > bd->phases[worst].wavefronts)
            worst = p;
    uint32_t broadcast = 0; /* lanes all of whose words ride on another lane's */
    for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
        const explain_lane *ln = &r->lanes[l];
        bool all = ln->n_words > 0;
        for (uint32_t w = ln->first_word; all && w < ln->first_word + ln->n_words; w++)
            all = bd->words[w].repeat;
        broadcast += all;
    }
    if (bd->cost.wavefronts == bd->cost.ideal) {
        say(t, "Every bank gets at most one distinct %s per phase: %u wavefront%s = ideal, no bank conflict.\n",
            r->serialized ? "lane word" : "word", bd->cost.wavefronts, plural(bd->cost.wavefronts));
    } else {
        const smem_phase *ph = &bd->phases[worst];
        uint32_t lanes = 0;
        for (uint32_t w = ph->first_word; w < ph->first_word + ph->n_words; w++) {
            const smem_word *sw = &bd->words[w];
            if (sw->bank == ph->worst_bank && !sw->repeat) {
                for (uint32_t l = 0; l < TRACE_WARP_LANES; l++) {
                    const explain_lane *ln = &r->lanes[l];
                    if (ln->n_words && w >= ln->first_word && w < ln->first_word + ln->n_words)
                        lanes |= 1u << l;
                }
            }
        }
        char list[160];
        explain_lane_list(lanes, list, sizeof list);
        if (r->serialized)
            say(t, "Atomics serialise: bank %u receives %u lane words in phase %u (lanes %s; same-address lanes "
                "count apart) -> %u wavefronts, ideal 1.\n", ph->worst_bank, ph->wavefronts, worst, list,
                ph->wavefronts);
        else
            say(t, "Bank %u is requested by %u distinct %s in phase %u (lanes %s) -> %u wavefronts, ideal 1: "
                "a %u-way bank conflict.\n", ph->worst_bank, ph->wavefronts,
                b->bank_bytes == b->mode_bytes ? "words" : "entries", worst, list, ph->wavefronts, ph->wavefronts);
    }
    bool atomic = r->kind == TRACE_KIND_ATOM || r->kind == TRACE_KIND_RED;
    if (broadcast && atomic && !r->serialized)
        say(t, "%u lane%s only add%s to words another lane of the phase also adds to: this atomic "
            "(ATOMS.POPC.INC) adds the number of lanes on a word once, so they share its pass.\n",
            broadcast, plural(broadcast), broadcast == 1 ? "s" : "");
    else if (broadcast && !r->serialized && b->bank_bytes == b->mode_bytes)
        say(t, "%u lane%s only read%s words another lane of the phase also asks for: broadcast, no extra "
            "wavefront.\n", broadcast, plural(broadcast), broadcast == 1 ? "s" : "");
    else if (broadcast && !r->serialized)
        say(t, "%u lane%s only use%s %u-B bank entries that another lane of the phase also uses (same bank, "
            "same entry): served together, no extra wavefront.\n", broadcast, plural(broadcast),
            broadcast == 1 ? "s" : "", b->bank_bytes);
    uint32_t wf = bd->cost.wavefronts, ideal = bd->cost.ideal;
    if (global) {
        uint32_t miss = r->data_ideal_if_miss;
        uint32_t bc_hit = wf - ideal, bc_miss = wf > miss ? wf - miss : 0;
        say(t, "%u data-stage wavefront%s; ideal %u (phases) if every sector hits in L1, %u (max of phases and tag "
            "wavefronts) if one misses: ", wf, plural(wf), ideal, miss);
        if (bc_hit == bc_miss)
            say(t, "%u data bank conflict%s either way.\n", bc_hit, plural(bc_hit));
        else
            say(t, "%u data bank conflict%s on a hit, %u on a miss.\n", bc_hit, plural(bc_hit), bc_miss);
    } else if (wf > ideal) {
        say(t, "%u wavefronts in all, ideal %u: %u excessive (bank conflicts); N-way = %u.\n", wf, ideal,
            wf - ideal, wf);
    }
}

size_t explain_why(const explain_geom *g, const explain_result *r, char *buf, size_t n)
{
    text t = {buf, n, 0};
    if (n)
        buf[0] = '\0';
    switch (r->space) {
    case TRACE_SPACE_GLOBAL:
        if (r->zero_fill_mask) {
            char lanes[160];
            bool many = popcount32(r->zero_fill_mask) > 1;
            explain_lane_list(r->zero_fill_mask, lanes, sizeof lanes);
            say(&t, "Lane%s %s zero-fill: %s source lies in the null page (below %u B), so %s nothing and "
                "%s zeros to shared memory (the copy's ignore-source).\n",
                many ? "s" : "", lanes, many ? "their" : "its", TRACE_NULL_PAGE_BYTES, many ? "they read" : "it reads",
                many ? "write" : "writes");
            if (!r->active_lanes) {
                say(&t, "No lane reads memory: no L1 tag request, no sector.\n");
                break;
            }
        }
        why_global_sectors(g, r, &t);
        say(&t, "%u distinct %u-B line%s: L1 Tag Requests Global %u", r->coal.n_lines, g->coal.line_bytes,
            plural(r->coal.n_lines), r->coal.n_lines);
        if (r->kind == TRACE_KIND_LD && !r->ldgsts)
            say(&t, ", %u tag-stage wavefront%s at %u lines per cycle", r->tag_wavefronts,
                plural(r->tag_wavefronts), g->tags_per_cycle);
        say(&t, ".\n");
        if (r->kind == TRACE_KIND_ATOM || r->kind == TRACE_KIND_RED)
            say(&t, "%s: lanes on one address are performed one after another at L2, but the source view "
                "counts each distinct sector once.\n", r->kind == TRACE_KIND_RED ? "A reduction" : "An atomic");
        if (r->banked)
            why_banks(g, r, &t);
        break;
    case TRACE_SPACE_LOCAL:
        say(&t, "Local memory is interleaved by 4-byte words across the warp (word k of lane l at k x 128 + l x 4 "
            "in the warp's region): %u active lane%s x %u B touch %u sector%s in %u line%s "
            "(L2 Theoretical Sectors Local).\n", r->active_lanes, plural(r->active_lanes), r->size_bytes,
            r->coal.n_sectors, plural(r->coal.n_sectors), r->coal.n_lines, plural(r->coal.n_lines));
        if (r->stride_bytes == 0 && r->active_lanes > 1)
            say(&t, "Every lane uses the same offset: consecutive lanes' words are adjacent, the layout's best "
                "case.\n");
        break;
    case TRACE_SPACE_SHARED:
        why_banks(g, r, &t);
        break;
    case TRACE_SPACE_COUNT:
        break;
    }
    return t.len;
}
