/* test_validate.c - the comparison rules of `gpumemsim validate` (sim/validate.c):
 * which measured counters are compared exactly, and when ncu's own
 * instrumented counts overrule a noisy hardware counter. The numbers are the
 * H200's (traces/h200/wmma_gemm.ncu.csv, docs/findings.md §9). */
#include <check.h>
#include <math.h>
#include <string.h>

#include "suites.h"
#include "timing.h"
#include "validate.h"

typedef struct measured {
    const char *name;
    double value;
} measured;

/* A launch's measured values, ended by a NULL name. */
static double lookup(const void *ctx, const char *name)
{
    for (const measured *m = ctx; m->name; m++)
        if (strcmp(m->name, name) == 0)
            return m->value;
    return (double)NAN;
}

#define HW_WF_LD "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define HW_BC_LD "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum"
#define HW_WF_ST "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
#define SASS_WF_LD "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ld.sum"
#define SASS_WF_LDSM "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_ldsm.sum"
#define SASS_BC_LDSM "smsp__sass_l1tex_data_bank_conflicts_pipe_lsu_mem_shared_op_ldsm.sum"
#define SASS_WF_ST "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_st.sum"
#define SASS_WF_STSM "smsp__sass_l1tex_data_pipe_lsu_wavefronts_mem_shared_op_stsm.sum"

/* wmma_gemm as the suite measured it: the hardware counters 7 wavefronts and
 * 8 conflicts above ncu's instrumented LDSM counts; stores agree. */
static const measured wmma[] = {
    {HW_WF_LD, 393223}, {HW_BC_LD, 262152}, {HW_WF_ST, 65536},
    {SASS_WF_LD, 0},    {SASS_WF_LDSM, 393216}, {SASS_BC_LDSM, 262144},
    {SASS_WF_ST, 65536}, {SASS_WF_STSM, 0},
    {NULL, 0},
};

/* The same kernel as the demangler (trace) and ncu (CSV) print it: PyTorch's
 * kernels (traces/h200/torch_*), whose anonymous namespaces and template
 * arguments the two spell differently, and the suite's plain ones. */
START_TEST(kernel_base_names_agree_between_trace_and_ncu)
{
    static const char *const pairs[][3] = {
        {"void at::native::indexFuncLargeIndex<float, long, unsigned int, 2, 2, -2, true, "
         "at::native::(anonymous namespace)::ReduceAdd>(at::cuda::detail::TensorInfo<float, "
         "unsigned int>, long)",
         "void indexFuncLargeIndex<float, long, unsigned int, 2, 2, (int)-2, 1, unnamed>::ReduceAdd>"
         "(TensorInfo<T1, T3>, long)",
         "indexFuncLargeIndex"},
        {"void (anonymous namespace)::softmax_warp_forward<float, float, float, 10, false, false>"
         "(float*, float const*, int, int, int, bool const*, int, bool)",
         "void <unnamed>::softmax_warp_forward<float, float, float, 10, 0, 0>(T2 *, const T1 *, int, "
         "int, int, const bool *, int, bool)",
         "softmax_warp_forward"},
        {"void at::native::(anonymous namespace)::vectorized_layer_norm_kernel<float, float, false>"
         "(int, float, float const*, float const*, float const*, float*, float*, float*)",
         "void unnamed>::vectorized_layer_norm_kernel<float, float, 0>(int, T2, const T1 *, const T1 *, "
         "const T1 *, T2 *, T2 *, T1 *)",
         "vectorized_layer_norm_kernel"},
        {"void at::native::reduce_kernel<512, 1, at::native::ReduceOp<float, "
         "at::native::func_wrapper_t<float, at::native::sum_functor<float, float, "
         "float>::operator()(at::TensorIterator&)::{lambda(float, float)#1}>, unsigned int, float, 4, "
         "4> >(at::native::ReduceOp<float, unsigned int, float, 4, 4>)",
         "void reduce_kernel<512, 1, ReduceOp<float, func_wrapper_t<float, sum_functor<float, float, "
         "float>::operator ()(TensorIterator &)::[lambda(float, float) (instance 1)]>, unsigned int, "
         "float, 4, 4>>(T3)",
         "reduce_kernel"},
        {"sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_"
         "alignc4_execute_kernel__5x_cublas",
         "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_"
         "alignc4_execute_kernel__5x_cublas",
         "sm80_xmma_gemm_f32f32_f32f32_f32_nn_n_tilesize32x32x8_stage3_warpsize1x2x1_ffma_aligna4_"
         "alignc4_execute_kernel__5x_cublas"},
        {"void at::native::(anonymous namespace)::CatArrayBatchedCopy_vectorized<at::native::(anonymous "
         "namespace)::OpaqueType<4u>, unsigned int, 2, 128, 1, 16, 4>(char*, unsigned int)",
         "void unnamed>::CatArrayBatchedCopy_vectorized<unnamed>::OpaqueType<4>, unsigned int, 2, 128, 1, 16, "
         "4>(char *, unnamed>::CatArrInputTensorMetadata<T1, T2, T4, T5>, int, T2)",
         "CatArrayBatchedCopy_vectorized"},
        {"readOffset(float*, float*, float*, int, int)", "readOffset(float *, float *, float *, int, int)",
         "readOffset"},
        {"void matrixMulTiled<16>(float const*, float const*, float*, int, int, int)",
         "void matrixMulTiled<16>(const float *, const float *, float *, int, int, int)", "matrixMulTiled"},
    };
    for (size_t i = 0; i < sizeof pairs / sizeof pairs[0]; i++) {
        char a[256], b[256];
        validate_base_name(pairs[i][0], a, sizeof a);
        validate_base_name(pairs[i][1], b, sizeof b);
        ck_assert_str_eq(a, pairs[i][2]);
        ck_assert_str_eq(b, pairs[i][2]);
    }
    char small[8];
    validate_base_name("void at::native::vectorized_gather_kernel<16, long>(char*)", small, sizeof small);
    ck_assert_str_eq(small, "vectori"); /* cut to the buffer, terminated */
}
END_TEST

START_TEST(noisy_hardware_counter_gives_way_to_instrumented)
{
    ck_assert(!validate_smem_counter_trusted(HW_WF_LD, 393223, lookup, wmma));
    ck_assert(!validate_smem_counter_trusted(HW_BC_LD, 262152, lookup, wmma));
    ck_assert(validate_smem_counter_trusted(HW_WF_ST, 65536, lookup, wmma));
    /* the same launch in a run whose counter read exactly the instrumented sum */
    ck_assert(validate_smem_counter_trusted(HW_WF_LD, 393216, lookup, wmma));
    ck_assert(validate_smem_counter_trusted(HW_BC_LD, 262144, lookup, wmma));
    /* instrumented counts are compared exactly, and are what the model predicts */
    ck_assert_int_eq(validate_tolerance_of(SASS_WF_LDSM).kind, VALIDATE_EXACT);
    ck_assert_int_eq(validate_tolerance_of(SASS_BC_LDSM).kind, VALIDATE_EXACT);
    ck_assert_int_eq(validate_tolerance_of(HW_BC_LD).kind, VALIDATE_EXACT);
}
END_TEST

START_TEST(hardware_counter_stays_exact_without_an_equivalent)
{
    /* a capture without the instrumented counts (the suite before them) */
    static const measured old[] = {{HW_WF_LD, 393219}, {HW_BC_LD, 262145}, {NULL, 0}};
    ck_assert(validate_smem_counter_trusted(HW_WF_LD, 393219, lookup, old));
    ck_assert(validate_smem_counter_trusted(HW_BC_LD, 262145, lookup, old));
    /* plain LDS ran: their conflicts have no instrumented count, so the
     * hardware's op_ld conflicts have no equivalent even with LDSM measured */
    static const measured mixed[] = {{HW_WF_LD, 1000}, {HW_BC_LD, 300}, {SASS_WF_LD, 500},
                                     {SASS_WF_LDSM, 500}, {SASS_BC_LDSM, 100}, {NULL, 0}};
    ck_assert(validate_smem_counter_trusted(HW_BC_LD, 300, lookup, mixed));
    ck_assert(validate_smem_counter_trusted(HW_WF_LD, 1000, lookup, mixed));
    ck_assert(!validate_smem_counter_trusted(HW_WF_LD, 1001, lookup, mixed));
    /* metrics outside the rule are untouched */
    ck_assert(validate_smem_counter_trusted("dram__sectors_read.sum", 1, lookup, wmma));
}
END_TEST

START_TEST(pred_on_any_split_trusted_only_when_plain_agrees)
{
    /* reduce_sequential: 25,600 LDS with a lane on, ncu's split read 25,746 */
    ck_assert(validate_pred_on_any_trusted(25600, 25600));
    ck_assert(!validate_pred_on_any_trusted(25746, 25800));
    ck_assert(validate_pred_on_any_trusted(25600, (double)NAN));
}
END_TEST

/* validate --timing compares the achieved occupancy ncu reports
 * (sm__warps_active.avg.pct_of_peak_sustained_active), the warps' active
 * cycles and the SMs': reported, not failed (docs/timing.md, "Achieved
 * occupancy"). */
START_TEST(the_timing_model_predicts_occupancy)
{
    timing_result t = {.cycles = 9000, .warp_cycles = 640000, .sm_cycles_active = 5000, .warps_active_pct = 42.5};
    double v = 0;
    ck_assert_int_eq(validate_timing_predicted("sm__warps_active.sum", &t, &v), 0);
    ck_assert(v == 640000.0);
    ck_assert_int_eq(validate_timing_predicted("sm__cycles_active.avg", &t, &v), 0);
    ck_assert(v == 5000.0);
    ck_assert_int_eq(validate_timing_predicted("sm__warps_active.avg.pct_of_peak_sustained_active", &t, &v), 0);
    ck_assert(v == 42.5);
    ck_assert_int_eq(validate_timing_tolerance_of("sm__warps_active.sum").kind, VALIDATE_INFO);
    ck_assert_int_eq(validate_timing_predicted("sm__warps_launched.sum", &t, &v), -1);
}
END_TEST

Suite *validate_suite(void)
{
    Suite *s = suite_create("validate");
    TCase *tc = tcase_create("rules");
    tcase_add_test(tc, noisy_hardware_counter_gives_way_to_instrumented);
    tcase_add_test(tc, hardware_counter_stays_exact_without_an_equivalent);
    tcase_add_test(tc, pred_on_any_split_trusted_only_when_plain_agrees);
    tcase_add_test(tc, the_timing_model_predicts_occupancy);
    tcase_add_test(tc, kernel_base_names_agree_between_trace_and_ncu);
    suite_add_tcase(s, tc);
    return s;
}
