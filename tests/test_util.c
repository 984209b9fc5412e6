/* test_util.c - configs and records built by hand for the model's tests. */
#include "test_util.h"

#include <string.h>

void test_cfg_h200(cfg_gpu *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->name, "NVIDIA H200");
    strcpy(c->chip, "gh100");
    c->cc_major = 9;
    c->cc_minor = 0;
    c->sm_count = 132;
    c->max_threads_per_sm = 2048;
    c->max_ctas_per_sm = 32;
    c->registers_per_sm = 65536;

    c->l1_line_bytes = 128;
    c->l1_sector_bytes = 32;
    c->l1_unified_kib = 256;
    c->l1_sets = 512;
    c->l1_ways = 4;
    c->l1_set_index = CFG_INDEX_MASKS;
    static const uint32_t masks[] = {113, 27, 374, 329, 57, 481, 477, 238, 404, 141, 428, 244, 303, 130, 240};
    c->n_l1_set_masks = (uint32_t)(sizeof masks / sizeof masks[0]);
    for (uint32_t i = 0; i < c->n_l1_set_masks; i++)
        c->l1_set_masks[i] = masks[i];
    c->l1_global_loads = CFG_L1_GLOBAL_CACHE;
    c->l1_stores = CFG_L1_STORES_UPDATE;
    c->l1_tags_per_cycle = 4;

    c->smem_banks = 32;
    c->smem_bank_bytes = 4;
    c->smem_bank_mode_bytes = 4;
    c->smem_load_pairing = true;
    c->smem_reserved_per_cta_bytes = 1024;
    static const uint32_t carve[] = {0, 8, 16, 32, 64, 100, 132, 164, 196, 228};
    c->n_carveouts = (uint32_t)(sizeof carve / sizeof carve[0]);
    memcpy(c->carveout_kib, carve, sizeof carve);
    c->carveout_ctas_factor = 2;
    c->carveout_min_per_cta_bytes = 4096;

    c->l2_line_bytes = 128;
    c->l2_sector_bytes = 32;
    c->l2_size_bytes = 62914560;
    c->l2_partitions = 2;
    c->l2_slices = 96;
    c->l2_sets_per_slice = 256;
    c->l2_ways = 20;
    c->l2_set_index = CFG_INDEX_XOR;
    c->l2_fetch_sectors = 2; /* findings §15: 64 B */
    c->l2_ecc = true;

    c->cold_caches_per_kernel = true;
    c->cta_placement = CFG_PLACE_TRACE;
}

void test_cfg_k20c(cfg_gpu *c)
{
    memset(c, 0, sizeof *c);
    strcpy(c->name, "Tesla K20c");
    strcpy(c->chip, "gk110");
    c->cc_major = 3;
    c->cc_minor = 5;
    c->sm_count = 13;
    c->max_threads_per_sm = 2048;
    c->max_ctas_per_sm = 16;
    c->registers_per_sm = 65536;

    c->l1_line_bytes = 128;
    c->l1_sector_bytes = 32;
    c->l1_unified_kib = 64;
    c->l1_sets = 4;
    c->l1_set_index = CFG_INDEX_LINEAR;
    c->n_l1_set_masks = 1; /* the default: one mask, 0 (unused) */
    c->l1_global_loads = CFG_L1_GLOBAL_BYPASS;
    c->l1_stores = CFG_L1_STORES_INVALIDATE;
    c->l1_tags_per_cycle = 1;

    c->smem_banks = 32;
    c->smem_bank_bytes = 8;
    c->smem_bank_mode_bytes = 4;
    c->smem_load_pairing = false;
    c->smem_reserved_per_cta_bytes = 0;
    static const uint32_t carve[] = {16, 32, 48};
    c->n_carveouts = 3;
    memcpy(c->carveout_kib, carve, sizeof carve);
    c->carveout_ctas_factor = 1;
    c->carveout_min_per_cta_bytes = 0;

    c->l2_line_bytes = 128;
    c->l2_sector_bytes = 32;
    c->l2_size_bytes = 1310720;
    c->l2_partitions = 1;
    c->l2_slices = 10;
    c->l2_sets_per_slice = 64;
    c->l2_ways = 16;
    c->l2_set_index = CFG_INDEX_LINEAR;
    c->l2_fetch_sectors = 1;
    c->l2_ecc = false;

    c->cold_caches_per_kernel = true;
    c->cta_placement = CFG_PLACE_ROUND_ROBIN;
}

void test_kernel(trace_kernel *k, const char *name, uint32_t ctas, uint32_t threads_per_cta)
{
    memset(k, 0, sizeof *k);
    k->name = (char *)name;
    k->demangled = (char *)name;
    k->grid[0] = ctas;
    k->grid[1] = k->grid[2] = 1;
    k->block[0] = threads_per_cta;
    k->block[1] = k->block[2] = 1;
    k->regs_per_thread = 16;
}

void test_mem_addrs(trace_mem *m, trace_kind kind, trace_space space, uint32_t size_bytes,
                    uint32_t active_mask, const uint64_t *addr)
{
    memset(m, 0, sizeof *m);
    m->sm = TRACE_SM_UNKNOWN;
    m->pc = 0x10;
    m->kind = (uint8_t)kind;
    m->space = (uint8_t)space;
    m->size_bytes = (uint8_t)size_bytes;
    m->cache_op = TRACE_CACHE_DEFAULT;
    m->active_mask = active_mask;
    for (int l = 0; l < TRACE_WARP_LANES; l++)
        m->addr[l] = (active_mask >> l) & 1u ? addr[l] : 0;
}

void test_mem(trace_mem *m, trace_kind kind, trace_space space, uint32_t size_bytes,
              uint32_t active_mask, uint64_t base, int64_t stride)
{
    uint64_t addr[TRACE_WARP_LANES];
    for (int l = 0; l < TRACE_WARP_LANES; l++)
        addr[l] = base + (uint64_t)(stride * l);
    test_mem_addrs(m, kind, space, size_bytes, active_mask, addr);
}

/* off_of() of h200_mem_counters.cu and goff() of h200_mem_counters2.cu */
uint64_t test_ubench_offset(int pat, uint32_t l)
{
    switch (pat) {
    case 0: return 4u * l;
    case 1: return 8u * l;
    case 2: return 128u * l;
    case 3: return 0;
    case 4: return 4u * (l % 16) + 128u * (l / 16);
    case 5: return 4u * (l / 2);
    case 6: return 4u * (l % 8);
    case 7: return 8u * (l % 16);
    case 8: { uint32_t h = l / 16, k = l % 16;
              return (h ? 64u : 0u) + ((k & 1) ? 128u : 0u) + 8u * (k / 2); }
    case 9: return 16u * l;
    case 10: return 16u * (l % 4);
    case 11: return 16u * (l / 2);
    case 12: { uint32_t q = l / 8, j = l % 8;
               uint32_t base = (q % 2) * 4 + (q / 2) * 16;
               return 16u * (base + j / 2 + (j % 2) * 8); }
    case 13: return 16u * (l % 8);
    case 14: return 0;
    case 15: return 32u * l;
    case 16: return 8u * (l / 2);
    case 17: return 16u * l;
    case 19: return 16u * (l ^ 1);
    case 20: return 8u * ((l / 4) * 2 + (l % 2));
    case 21: return 16u * ((l / 4) * 2 + (l % 2));
    default: return 4u * l;
    }
}
