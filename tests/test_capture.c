/* test_capture.c - the capture tool's CUDA-free half: the opcode table, SASS
 * and resource-usage parsing, raw device records into trace records, the
 * command line and its environment, launch selection, metadata helpers.
 *
 * Fixtures (tests/data/capture/) are real tool output from the H200 probe:
 * nvdisasm -g -c of two cubins, cuobjdump -sass of probe_app (sm_90, the
 * encoding-only lines removed except in the first function), and one of the
 * cubins itself (probe_sm90.cubin, 12160 bytes, for the symbol lookup). */
#include <check.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "capture_decode.h"
#include "capture_elf.h"
#include "capture_opts.h"
#include "capture_rec.h"
#include "capture_sass.h"
#include "capture_util.h"
#include "sass.h"
#include "sassflow.h"
#include "suites.h"

#define DATA "tests/data/capture/"

/* ---- helpers --------------------------------------------------------------- */

static void load(const char *path, capture_sass_module *m)
{
    FILE *f = fopen(path, "r");
    ck_assert_msg(f != NULL, "%s missing (run from the repository root)", path);
    err_info err;
    err_clear(&err);
    capture_sass_module_init(m);
    int rc = capture_sass_parse(f, path, m, &err);
    fclose(f);
    ck_assert_msg(rc == 0, "%s", err.msg);
}

static int parse_text(const char *text, capture_sass_module *m, err_info *err)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    capture_sass_module_init(m);
    int rc = capture_sass_parse(f, "listing", m, err);
    fclose(f);
    return rc;
}

static int parse_res(const char *text, capture_sass_module *m, err_info *err)
{
    FILE *f = fmemopen((void *)text, strlen(text), "r");
    ck_assert_ptr_nonnull(f);
    int rc = capture_res_usage_parse(f, "res", m, err);
    fclose(f);
    return rc;
}

static const capture_sass_inst *inst_at(const capture_sass_func *f, uint32_t pc)
{
    static const capture_sass_inst none = {.text = (char *)"", .file = -1};
    for (uint32_t i = 0; f && i < f->n_insts; i++)
        if (f->insts[i].pc == pc)
            return &f->insts[i];
    ck_abort_msg("no instruction at 0x%x", pc);
    return &none;
}

static capture_op classify(const char *sass)
{
    capture_op op;
    capture_op_classify(sass, &op);
    return op;
}

/* ---- the opcode table ------------------------------------------------------- */

/* hardware-facts §3.2: the PTX cache operator each LDG spelling stands for */
START_TEST(global_loads_map_to_their_cache_operator)
{
    static const struct {
        const char *sass;
        trace_cache_op op;
    } t[] = {
        {"LDG.E R2, desc[UR4][R2.64] ;", TRACE_CACHE_DEFAULT},
        {"LDG.E.STRONG.SM R2, desc[UR4][R2.64]", TRACE_CACHE_CA},
        {"LDG.E.CONSTANT R2, desc[UR4][R2.64]", TRACE_CACHE_NC},
        {"LDG.E.EF R2, desc[UR4][R2.64]", TRACE_CACHE_CS},
        {"LDG.E.STRONG.GPU R2, desc[UR4][R2.64]", TRACE_CACHE_CG},
        {"LDG.E.LU R2, desc[UR4][R2.64]", TRACE_CACHE_LU},
        {"LDG.E.STRONG.SYS R2, desc[UR4][R2.64]", TRACE_CACHE_CV},
        {"LDG.E.128.CONSTANT R4, desc[UR4][R2.64]", TRACE_CACHE_NC},
        {"LDG.E.EL.128 R4, desc[UR4][R2.64]", TRACE_CACHE_DEFAULT},
        {"STG.E desc[UR4][R4.64], R7", TRACE_CACHE_DEFAULT},
        {"STG.E.STRONG.GPU desc[UR4][R4.64], R7", TRACE_CACHE_CG},
        {"STG.E.EF.128 desc[UR4][R4.64], R8", TRACE_CACHE_CS},
        {"STG.E.STRONG.SYS desc[UR4][R4.64], R7", TRACE_CACHE_CV},
        {"LD.E.STRONG.GPU R9, desc[UR4][R4.64]", TRACE_CACHE_CG},
        {"LDL.LU R4, [R1+0x10]", TRACE_CACHE_LU},
        {"LDGSTS.E.BYPASS.128 [R9], desc[UR6][R2.64]", TRACE_CACHE_CG},
        {"LDGSTS.E.64 [R11], desc[UR6][R4.64]", TRACE_CACHE_CA},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
        ck_assert_msg(classify(t[i].sass).cache_op == t[i].op, "%s: cache op %u, expected %u", t[i].sass,
                      classify(t[i].sass).cache_op, (unsigned)t[i].op);
}
END_TEST

START_TEST(opcodes_fall_into_their_classes)
{
    static const struct {
        const char *sass;
        capture_op_class c;
        bool atomic, red;
    } t[] = {
        {"@!P0 LDG.E.64 R2, desc[UR4][R2.64] ;", CAPTURE_OP_GLOBAL, false, false},
        {"STG.E.U8 desc[UR4][R2.64], R5", CAPTURE_OP_GLOBAL, false, false},
        {"@P1 REDG.E.ADD.STRONG.GPU desc[UR6][R4.64], R13", CAPTURE_OP_GLOBAL, true, true},
        {"ATOMG.E.CAS.STRONG.GPU PT, R9, [R6+0x4], R2, R3", CAPTURE_OP_GLOBAL, true, false},
        {"LD.E R9, desc[UR4][R4.64]", CAPTURE_OP_GENERIC, false, false},
        {"ST.E desc[UR6][R4.64], R9", CAPTURE_OP_GENERIC, false, false},
        {"ATOM.E.ADD.STRONG.GPU PT, R3, desc[UR4][R2.64], R5", CAPTURE_OP_GENERIC, true, false},
        {"RED.E.ADD.STRONG.GPU desc[UR4][R2.64], R5", CAPTURE_OP_GENERIC, true, true},
        {"LDS.U16 R3, [R2]", CAPTURE_OP_SHARED, false, false},
        {"STS.128 [R0], R4", CAPTURE_OP_SHARED, false, false},
        {"ATOMS.POPC.INC.32 RZ, [R8+UR4]", CAPTURE_OP_SHARED, true, false},
        {"LDSM.16.M88.4 R4, [R0]", CAPTURE_OP_SHARED, false, false},
        {"STSM.16.M88.4 [R0], R4", CAPTURE_OP_SHARED, false, false},
        {"STL.128 [R1+0x10], R8", CAPTURE_OP_LOCAL, false, false},
        {"LDGSTS.E [R13], desc[UR6][R6.64]", CAPTURE_OP_LDGSTS, false, false},
        {"BAR.SYNC.DEFER_BLOCKING 0x0", CAPTURE_OP_BARRIER, false, false},
        {"UTMALDG.2D [UR4], [UR8]", CAPTURE_OP_TMA, false, false},
        {"UTMASTG.2D [UR12], [UR4]", CAPTURE_OP_TMA, false, false},
        {"TLD.LZ RZ, R5, R7, UR4, 0x0, 1D, 0x1", CAPTURE_OP_TEXTURE, false, false},
        {"SULD.P.2D.32.TRAP R0, [R2], UR4", CAPTURE_OP_SURFACE, false, false},
        {"UBLKCP.S.G [UR8], [UR4], UR6", CAPTURE_OP_BULK, false, false},
        {"LDC R5, c[0x3][R0]", CAPTURE_OP_CONST_USER, false, false},
        {"ULDC UR4, c[0x3][0x10]", CAPTURE_OP_CONST_USER, false, false},
        {"LDC R1, c[0x0][0x28]", CAPTURE_OP_OTHER, false, false},
        {"ULDC.64 UR4, c[0x0][0x208]", CAPTURE_OP_OTHER, false, false},
        {"ULDC.64 UR4, c[0x4][0x7c8]", CAPTURE_OP_OTHER, false, false}, /* an address, PyTorch's assert path */
        {"LDC.64 R2, c[0x4][R2]", CAPTURE_OP_OTHER, false, false},
        {"LDC R2, c[R4][0x10]", CAPTURE_OP_CONST_USER, false, false},
        {"REDUX.SUM UR4, R2", CAPTURE_OP_OTHER, false, false},
        {"CCTL.E.PF2 [R2]", CAPTURE_OP_OTHER, false, false},
        {"LDGDEPBAR", CAPTURE_OP_OTHER, false, false},
        {"BSYNC B0", CAPTURE_OP_OTHER, false, false},
        {"NOP", CAPTURE_OP_OTHER, false, false},
        {"", CAPTURE_OP_OTHER, false, false},
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        capture_op op = classify(t[i].sass);
        ck_assert_msg(op.op_class == t[i].c, "%s: class %s, expected %s", t[i].sass,
                      capture_op_class_name((capture_op_class)op.op_class), capture_op_class_name(t[i].c));
        ck_assert_msg(op.atomic == t[i].atomic && op.red == t[i].red, "%s: atomic/red", t[i].sass);
    }
    /* atomics carry no cache operator even when they name a scope */
    ck_assert_uint_eq(classify("ATOMG.E.ADD.STRONG.GPU PT, R15, desc[UR6][R6.64], R13").cache_op,
                      TRACE_CACHE_DEFAULT);
    ck_assert(capture_op_missing_from_trace(CAPTURE_OP_TMA));
    ck_assert(capture_op_missing_from_trace(CAPTURE_OP_CONST_USER));
    ck_assert(!capture_op_missing_from_trace(CAPTURE_OP_GENERIC));
}
END_TEST

/* ---- listings ---------------------------------------------------------------- */

START_TEST(nvdisasm_listing_gives_sass_and_source_lines)
{
    capture_sass_module m;
    load(DATA "probe_sm90.nvdisasm-g-c.txt", &m);
    ck_assert_uint_eq(m.n_funcs, 3);
    const capture_sass_func *f = capture_sass_find(&m, "_Z4smemPfi");
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->n_insts, 40); /* 0x0000 .. 0x0270 */
    ck_assert_uint_eq(f->n_files, 1);
    ck_assert_str_eq(f->files[0], "/work/main/.probe/probe.cu");
    const capture_sass_inst *in = inst_at(f, 0x0);
    ck_assert_str_eq(in->text, "LDC R1, c[0x0][0x28]");
    ck_assert_int_eq(in->file, 0);
    ck_assert_uint_eq(in->line, 11);
    in = inst_at(f, 0x140);
    ck_assert_str_eq(in->text, "STS [R5], R0");
    ck_assert_uint_eq(in->line, 14);
    ck_assert_uint_eq(inst_at(f, 0x160)->line, 15);
    ck_assert_str_eq(inst_at(f, 0x1c0)->text, "STG.E desc[UR4][R2.64], R7");
    ck_assert_uint_eq(inst_at(f, 0x1c0)->line, 16);
    ck_assert_str_eq(inst_at(f, 0x270)->text, "NOP");
    ck_assert_str_eq(inst_at(f, 0x1e0)->text, "BRA 0x1e0"); /* "BRA `(.L_x_0)" after the line ".L_x_0:" */
    f = capture_sass_find(&m, "_Z7stridedPKfPfii");
    ck_assert_str_eq(inst_at(f, 0x110)->text, "BRA 0x110"); /* "BRA `(.L_x_1)" */
    f = capture_sass_find(&m, "_Z9coalescedPKfPfi");
    ck_assert_str_eq(inst_at(f, 0xc0)->text, "LDG.E.CONSTANT R2, desc[UR4][R2.64]");
    ck_assert_ptr_null(capture_sass_find(&m, "_Z4nope"));
    capture_sass_module_free(&m);

    load(DATA "k_stream.nvdisasm-g-c.txt", &m);
    f = capture_sass_find(&m, "_Z8k_streamPK6float4PS_m");
    ck_assert_str_eq(inst_at(f, 0x110)->text, "LDG.E.128 R8, desc[UR4][R2.64]");
    ck_assert_uint_eq(inst_at(f, 0x110)->line, 161);
    ck_assert_str_eq(inst_at(f, 0x90)->text, "@P0 EXIT");
    ck_assert_str_eq(inst_at(f, 0x1a0)->text, "BRA 0x1a0"); /* printed "BRA `(.L_x_0)", .L_x_0 at 0x1a0 */
    capture_sass_module_free(&m);
}
END_TEST

START_TEST(cuobjdump_listing_gives_sass_without_lines)
{
    capture_sass_module m;
    load(DATA "probe_app.cuobjdump-sass.txt", &m);
    ck_assert_uint_eq(m.n_funcs, 8);
    const capture_sass_func *f = capture_sass_find(&m, "_Z7k_constPfi");
    ck_assert_ptr_nonnull(f);
    ck_assert_str_eq(inst_at(f, 0x90)->text, "LDC R5, c[0x3][R0]");
    ck_assert_int_eq(inst_at(f, 0x90)->file, -1);
    ck_assert_uint_eq(inst_at(f, 0x90)->line, 0);
    ck_assert_uint_eq(f->n_files, 0);
    f = capture_sass_find(&m, "_Z8k_atomicPiS_");
    ck_assert_str_eq(inst_at(f, 0x170)->text, "@P1 REDG.E.ADD.STRONG.GPU desc[UR6][R4.64], R13");
    f = capture_sass_find(&m, "_Z9k_genericPKfPfi");
    ck_assert_str_eq(inst_at(f, 0xac0)->text, "LD.E R9, desc[UR4][R4.64]");
    ck_assert_str_eq(inst_at(f, 0xc70)->text, "ST.E desc[UR6][R4.64], R9");
    ck_assert_uint_eq(f->insts[f->n_insts - 1].pc, 0xd70);
    /* branch targets as printed: function-relative PCs (each function is
     * listed from 0, and its closing self-loop names its own PC) */
    f = capture_sass_find(&m, "_Z5k_tma14CUtensorMap_stS_Pf");
    ck_assert_str_eq(inst_at(f, 0x50)->text, "BSSY B0, 0x280");
    ck_assert_str_eq(inst_at(f, 0x140)->text, "@P1 BRA 0x270");
    ck_assert_str_eq(inst_at(f, 0x260)->text, "@P0 BRA.U.ANY 0x220");
    ck_assert_str_eq(inst_at(f, 0x570)->text, "BRA 0x570");
    f = capture_sass_find(&m, "_Z9k_genericPKfPfi");
    ck_assert_str_eq(inst_at(f, 0xae0)->text, "CALL.REL.NOINC 0xc30");
    ck_assert_str_eq(inst_at(f, 0xc90)->text, "BRA 0xc90");
    capture_sass_module_free(&m);
}
END_TEST

/* A listing shaped like nvdisasm -g -c's (its label and operand forms as it
 * prints them for sm_90): forward and backward targets, a convergence
 * barrier, a call into the function's own subroutine and one to another
 * function, two labels on one instruction, a source annotation between a
 * label and its instruction, and labels past the last instruction. */
static const char k_loop_listing[] =
    "//--------------------- .text.k_loop          --------------------------\n"
    "\t.section\t.text.k_loop,\"ax\",@progbits\n"
    "        .size           k_loop,(.L_x_9 - k_loop)\n"
    "k_loop:\n"
    ".text.k_loop:\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
    "        /*0010*/                   ISETP.GE.AND P0, PT, R0, 0x1, PT ;\n"
    "        /*0020*/              @!P0 BRA `(.L_x_1) ;\n"
    "        /*0030*/                   BSSY B0, `(.L_x_2) ;\n"
    ".L_x_3:\n"
    "\t//## File \"k.cu\", line 7\n"
    "        /*0040*/                   LDG.E R2, desc[UR4][R4.64] ;\n"
    "        /*0050*/                   CALL.REL.NOINC `($k_loop$__internal_0) ;\n"
    "        /*0060*/               @P1 BRA `(.L_x_3) ;\n"
    "        /*0070*/                   BSYNC B0 ;\n"
    ".L_x_2:\n"
    ".L_x_1:\n"
    "        /*0080*/                   EXIT ;\n"
    "        /*0090*/                   CALL.ABS.NOINC `(vprintf) ;\n"
    "        .type           $k_loop$__internal_0,@function\n"
    "$k_loop$__internal_0:\n"
    "        /*00a0*/                   RET.REL.NODEC R20 `(k_loop) ;\n"
    ".L_x_4:\n"
    "        /*00b0*/                   BRA `(.L_x_4);\n"
    ".L_x_9:\n"
    "\n"
    "//--------------------- .text.k_two           --------------------------\n"
    "\t.section\t.text.k_two,\"ax\",@progbits\n"
    "k_two:\n"
    "        /*0000*/                   @P0 BRA `(.L_x_10) ;\n"
    "        /*0010*/                   BRA `(.L_x_3) ;\n"
    "        /*0020*/                   EXIT ;\n"
    ".L_x_10:\n";

/* nvdisasm -hex (and cuobjdump -sass) print each instruction's two 64-bit
 * words; the upper one's bits 41-63 are its control word (trace.h), kept for
 * the PC table. The words from build/kernels/l1cost's listing (findings §17:
 * the LDG with a stall count of 4, setting scoreboard 2). */
static const char k_hex_listing[] =
    "//--------------------- .text.k_hex           --------------------------\n"
    "\t.section\t.text.k_hex,\"ax\",@progbits\n"
    "k_hex:\n"
    "        /*0000*/                   LDC R1, c[0x0][0x28] ;          /* 0x00000a00ff017b82 */\n"
    "                                                                   /* 0x000fe40000000800 */\n"
    "//## File \"/work/main/kernels/l1cost.cu\", line 99\n"
    "        /*0010*/                   LDG.E R16, desc[UR4][R2.64] ;   /* 0x0000000402107981 */\n"
    "                                                                   /* 0x000ea8000c1e1900 */\n"
    "        /*0020*/                   EXIT ;\n";

START_TEST(encodings_give_the_control_words)
{
    capture_sass_module m;
    err_info err;
    err_clear(&err);
    ck_assert_msg(parse_text(k_hex_listing, &m, &err) == 0, "%s", err.msg);
    const capture_sass_func *f = capture_sass_find(&m, "k_hex");
    ck_assert_uint_eq(f->n_insts, 3);
    uint32_t ldg = inst_at(f, 0x10)->ctrl;
    ck_assert_uint_eq(ldg, 0x754u | TRACE_CTRL_KNOWN);
    ck_assert_uint_eq(trace_ctrl_stall(ldg), 4);
    ck_assert_uint_eq(trace_ctrl_wbar(ldg), 2);
    ck_assert_uint_eq(trace_ctrl_rbar(ldg), 7);
    ck_assert_uint_eq(trace_ctrl_wait(ldg), 0);
    ck_assert_str_eq(inst_at(f, 0x10)->text, "LDG.E R16, desc[UR4][R2.64]");
    ck_assert_uint_eq(inst_at(f, 0x10)->line, 99);
    ck_assert_uint_eq(inst_at(f, 0x0)->ctrl, (uint32_t)(0x000fe40000000800ull >> 41) | TRACE_CTRL_KNOWN);
    ck_assert_uint_eq(inst_at(f, 0x20)->ctrl, 0); /* no encoding printed: unknown */
    /* and the kernel record's PC table keeps them */
    trace_kernel k;
    memset(&k, 0, sizeof k);
    capture_kernel_set_sass(&k, f);
    ck_assert_uint_eq(k.pcs[1].ctrl, ldg);
    ck_assert_uint_eq(k.pcs[2].ctrl, 0);
    capture_kernel_clear(&k);
    capture_sass_module_free(&m);
}
END_TEST

/* nvdisasm -g -c names branch targets by labels; the trace wants the
 * function-relative PC (model/sassflow.c reads the first "0x" of a branch). */
START_TEST(label_operands_become_function_relative_pcs)
{
    capture_sass_module m;
    err_info err;
    err_clear(&err);
    ck_assert_msg(parse_text(k_loop_listing, &m, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(m.n_funcs, 2);
    const capture_sass_func *f = capture_sass_find(&m, "k_loop");
    ck_assert_uint_eq(f->n_insts, 12);
    static const struct {
        uint32_t pc;
        const char *text;
    } want[] = {
        {0x20, "@!P0 BRA 0x80"},          /* forward, to the second of two labels */
        {0x30, "BSSY B0, 0x80"},          /* the first of them */
        {0x50, "CALL.REL.NOINC 0xa0"},    /* the function's own subroutine */
        {0x60, "@P1 BRA 0x40"},           /* backward, across a source annotation */
        {0x90, "CALL.ABS.NOINC `(vprintf)"}, /* not a label of this function: as printed */
        {0xa0, "RET.REL.NODEC R20 0x0"},  /* the function's own symbol is a label at 0 */
        {0xb0, "BRA 0xb0"},
    };
    for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
        ck_assert_str_eq(inst_at(f, want[i].pc)->text, want[i].text);
    ck_assert_uint_eq(inst_at(f, 0x40)->line, 7);
    f = capture_sass_find(&m, "k_two");
    ck_assert_str_eq(inst_at(f, 0x0)->text, "@P0 BRA 0x30"); /* a label past the last instruction: the end */
    ck_assert_str_eq(inst_at(f, 0x10)->text, "BRA `(.L_x_3)"); /* k_loop's label, not k_two's */
    capture_sass_module_free(&m);

    /* a label defined twice names no one PC: its operands stay as printed */
    ck_assert_int_eq(parse_text("Function : k\n.L_x_5:\n /*0000*/ NOP ;\n.L_x_5:\n /*0010*/ BRA `(.L_x_5) ;\n"
                                " /*0020*/ BRA `(.L_x_6) ;\n.L_x_6:\n /*0030*/ EXIT ;\n",
                                &m, &err),
                     0);
    ck_assert_str_eq(inst_at(&m.funcs[0], 0x10)->text, "BRA `(.L_x_5)");
    ck_assert_str_eq(inst_at(&m.funcs[0], 0x20)->text, "BRA 0x30");
    capture_sass_module_free(&m);
}
END_TEST

START_TEST(bad_listings_are_refused_with_the_line)
{
    capture_sass_module m;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(parse_text("        /*0000*/  LDC R1, c[0x0][0x28] ;\n", &m, &err), -1);
    ck_assert_str_eq(err.msg, "listing: line 1: instruction outside any function");
    capture_sass_module_free(&m);

    ck_assert_int_eq(parse_text("Function : k\n /*0010*/ NOP ;\n /*0010*/ NOP ;\n", &m, &err), -1);
    ck_assert_str_eq(err.msg, "listing: line 3: function k: offset 0x0010 does not follow 0x0010");
    capture_sass_module_free(&m);

    ck_assert_int_eq(parse_text("Function : k\n /*0000*/ NOP ;\nFunction : j\nFunction : k\n", &m, &err), -1);
    ck_assert_str_eq(err.msg, "listing: line 4: function k is listed twice");
    capture_sass_module_free(&m);

    ck_assert_int_eq(parse_text(".section .text.k,\"ax\"\n//## File \"a.cu\" line 3\n", &m, &err), -1);
    ck_assert_str_eq(err.msg, "listing: line 2: expected '//## File \"PATH\", line N'");
    capture_sass_module_free(&m);

    /* a banner and a .section naming the same function are one function;
     * a non-code banner ends it */
    ck_assert_int_eq(parse_text("//--------------------- .text.k ----\n\t.section\t.text.k,\"ax\",@progbits\n"
                                " /*0000*/ EXIT ;\n//--------------------- SYMBOLS ----\n /*0010*/ NOP ;\n",
                                &m, &err),
                     -1);
    ck_assert_str_eq(err.msg, "listing: line 5: instruction outside any function");
    ck_assert_uint_eq(m.n_funcs, 1);
    ck_assert_uint_eq(m.funcs[0].n_insts, 1);
    capture_sass_module_free(&m);
}
END_TEST

START_TEST(resource_usage_fills_functions)
{
    capture_sass_module m;
    load(DATA "probe_sm90.nvdisasm-g-c.txt", &m);
    err_info err;
    err_clear(&err);
    const char *res = "\nFatbin elf code:\n================\narch = sm_90\n\nResource usage:\n Common:\n  GLOBAL:0\n"
                      " Function _Z4smemPfi:\n  REG:10 STACK:0 SHARED:4224 LOCAL:0 CONSTANT[0]:540 TEXTURE:0 "
                      "SURFACE:0 SAMPLER:0\n Function _Z7k_localiPf:\n  REG:24 STACK:256 SHARED:0 LOCAL:8 "
                      "CONSTANT[0]:544\n";
    ck_assert_int_eq(parse_res(res, &m, &err), 0);
    const capture_sass_func *f = capture_sass_find(&m, "_Z4smemPfi");
    ck_assert(f->has_res);
    ck_assert_uint_eq(f->regs, 10);
    ck_assert_uint_eq(f->shared_bytes, 4224);
    f = capture_sass_find(&m, "_Z7k_localiPf"); /* not in the listing: added */
    ck_assert_ptr_nonnull(f);
    ck_assert_uint_eq(f->n_insts, 0);
    ck_assert_uint_eq(f->stack_bytes, 256);
    ck_assert_uint_eq(f->local_bytes, 8);
    ck_assert(!capture_sass_find(&m, "_Z9coalescedPKfPfi")->has_res);

    ck_assert_int_eq(parse_res(" Function k:\n  REG:x STACK:0\n", &m, &err), -1);
    ck_assert_str_eq(err.msg, "res: line 2: expected 'REG:n STACK:n SHARED:n LOCAL:n' for function k");
    capture_sass_module_free(&m);
}
END_TEST

/* Every instruction of the function is in the table (the timing model reads
 * the kernel's control flow from it: model/sassflow.h); before the seventh
 * session only memory instructions and barriers were, so _Z4smemPfi had 4
 * entries and k_cpasync 11. */
START_TEST(kernel_pc_table_holds_every_instruction)
{
    capture_sass_module m;
    load(DATA "probe_sm90.nvdisasm-g-c.txt", &m);
    capture_sass_func *f = (capture_sass_func *)capture_sass_find(&m, "_Z4smemPfi");
    f->has_res = true;
    f->regs = 10;
    f->shared_bytes = 4224;
    f->stack_bytes = 16;
    f->local_bytes = 8;
    trace_kernel k;
    memset(&k, 0, sizeof k);
    capture_kernel_set_sass(&k, f);
    ck_assert_uint_eq(k.n_pcs, 40); /* 0x0000 .. 0x0270 */
    static const struct {
        uint32_t pc;
        const char *sass;
        uint32_t line;
    } want[] = {{0x000, "LDC R1, c[0x0][0x28]", 11},
                {0x140, "STS [R5], R0", 14},
                {0x160, "BAR.SYNC.DEFER_BLOCKING 0x0", 15},
                {0x1a0, "LDS R7, [R4]", 16},
                {0x1c0, "STG.E desc[UR4][R2.64], R7", 16},
                {0x1d0, "EXIT", 17},
                {0x1e0, "BRA 0x1e0", 17},
                {0x270, "NOP", 17}};
    for (uint32_t i = 0; i < sizeof want / sizeof want[0]; i++) {
        const trace_pc_info *pi = &k.pcs[want[i].pc / 16];
        ck_assert_uint_eq(pi->pc, want[i].pc);
        ck_assert_str_eq(pi->sass, want[i].sass);
        ck_assert_uint_eq(pi->line, want[i].line);
        ck_assert_int_eq(pi->file, 0);
        ck_assert_uint_eq(pi->cache_op, TRACE_CACHE_DEFAULT);
    }
    ck_assert_uint_eq(k.n_files, 1);
    ck_assert_str_eq(k.files[0], "/work/main/.probe/probe.cu");
    ck_assert_uint_eq(k.smem_static_bytes, 4224);
    ck_assert_uint_eq(k.regs_per_thread, 10);
    ck_assert_uint_eq(k.local_bytes_per_thread, 24);

    /* again, from another function: the table is replaced */
    f = (capture_sass_func *)capture_sass_find(&m, "_Z9coalescedPKfPfi");
    capture_kernel_set_sass(&k, f);
    ck_assert_uint_eq(k.n_pcs, f->n_insts);
    ck_assert_uint_eq(k.pcs[0xc0 / 16].pc, 0xc0);
    ck_assert_str_eq(k.pcs[0xc0 / 16].sass, "LDG.E.CONSTANT R2, desc[UR4][R2.64]");
    ck_assert_uint_eq(k.pcs[0xc0 / 16].cache_op, TRACE_CACHE_NC);
    capture_kernel_clear(&k);
    ck_assert_ptr_null(k.pcs);
    capture_sass_module_free(&m);

    /* without line info: file -1, line 0, no files */
    load(DATA "probe_app.cuobjdump-sass.txt", &m);
    memset(&k, 0, sizeof k);
    capture_kernel_set_sass(&k, capture_sass_find(&m, "_Z9k_cpasyncPK6float4PK6float2PKfPf"));
    ck_assert_uint_eq(k.n_files, 0);
    ck_assert_uint_eq(k.n_pcs, 48); /* 0x0000 .. 0x02f0 */
    ck_assert_str_eq(k.pcs[0x120 / 16].sass, "@!PT LDS RZ, [RZ]"); /* never executes, still a shared load */
    ck_assert_str_eq(k.pcs[0x150 / 16].sass, "LDGSTS.E.BYPASS.128 [R9], desc[UR6][R2.64]");
    ck_assert_int_eq(k.pcs[0x150 / 16].file, -1);
    ck_assert_uint_eq(k.pcs[0x150 / 16].line, 0);
    ck_assert_uint_eq(k.pcs[0x150 / 16].cache_op, TRACE_CACHE_CG);
    ck_assert_str_eq(k.pcs[0x180 / 16].sass, "LDGSTS.E.64 [R11], desc[UR6][R4.64]");
    ck_assert_uint_eq(k.pcs[0x180 / 16].cache_op, TRACE_CACHE_CA);
    ck_assert_str_eq(k.pcs[0x270 / 16].sass, "BRA 0x270");
    capture_kernel_clear(&k);
    capture_sass_module_free(&m);
}
END_TEST

/* For every function of every listing in tests/data/capture: the table holds
 * PCs 0, 16, 32, ... without a gap, no label is left, every branch target
 * is a PC of the function, and the timing model takes the table as a whole
 * kernel (sassflow_create: NULL would mean it falls back to PC distances). */
START_TEST(fixture_tables_are_whole_kernels)
{
    static const char *const listings[] = {DATA "probe_sm90.nvdisasm-g-c.txt", DATA "k_stream.nvdisasm-g-c.txt",
                                           DATA "probe_app.cuobjdump-sass.txt"};
    uint32_t funcs = 0, branches = 0;
    for (size_t l = 0; l < sizeof listings / sizeof listings[0]; l++) {
        capture_sass_module m;
        load(listings[l], &m);
        for (uint32_t fi = 0; fi < m.n_funcs; fi++) {
            const capture_sass_func *f = &m.funcs[fi];
            trace_kernel k;
            memset(&k, 0, sizeof k);
            capture_kernel_set_sass(&k, f);
            ck_assert_uint_eq(k.n_pcs, f->n_insts);
            for (uint32_t i = 0; i < k.n_pcs; i++) {
                ck_assert_msg(k.pcs[i].pc == 16u * i, "%s %s: entry %u has pc 0x%x", listings[l], f->name, i,
                              k.pcs[i].pc);
                ck_assert_msg(!strstr(k.pcs[i].sass, "`("), "%s %s: label left in '%s'", listings[l], f->name,
                              k.pcs[i].sass);
                const char *sass = k.pcs[i].sass;
                if (!sass_opcode_is(sass, "BRA") && !sass_opcode_is(sass, "BSSY") &&
                    !sass_opcode_is(sass, "CALL.REL"))
                    continue;
                const char *x = strstr(sass_opcode(sass), "0x");
                ck_assert_ptr_nonnull(x);
                unsigned long target = strtoul(x + 2, NULL, 16);
                ck_assert_msg(target % 16 == 0 && target / 16 < k.n_pcs, "%s %s: '%s' at 0x%x leaves the function",
                              listings[l], f->name, k.pcs[i].sass, k.pcs[i].pc);
                branches++;
            }
            sassflow *flow = sassflow_create(k.pcs, k.n_pcs);
            ck_assert_msg(flow != NULL, "%s %s: not taken as a whole kernel", listings[l], f->name);
            sassflow_destroy(flow);
            capture_kernel_clear(&k);
            funcs++;
        }
        capture_sass_module_free(&m);
    }
    ck_assert_uint_eq(funcs, 12);
    ck_assert_uint_eq(branches, 34); /* grep -cE '(BRA |BRA\.|BSSY |CALL\.REL)' on the listings: 3, 1, 30 */
}
END_TEST

/* The timing model follows a captured table: in k_stream, the instructions
 * between the LDG (0x110) and the STG (0x180) are the 6 in between; from the
 * entry to the LDG, the 17 before it; the closing self-loop at 0x1a0
 * reaches only itself. In k_loop, the warp that skips the loop runs 3
 * instructions before EXIT (0x0, 0x10 and the branch at 0x20), not the 8 the
 * PC distance counts, and one more trip from the LDG back to it runs the
 * CALL and the branch. */
START_TEST(captured_branches_steer_the_timing_model)
{
    capture_sass_module m;
    load(DATA "k_stream.nvdisasm-g-c.txt", &m);
    trace_kernel k;
    memset(&k, 0, sizeof k);
    capture_kernel_set_sass(&k, capture_sass_find(&m, "_Z8k_streamPK6float4PS_m"));
    sassflow *flow = sassflow_create(k.pcs, k.n_pcs);
    ck_assert_ptr_nonnull(flow);
    uint32_t count;
    const uint32_t *path;
    ck_assert(sassflow_between(flow, 0x110, 0x180, &count, &path));
    ck_assert_uint_eq(count, 6);
    for (uint32_t i = 0; i < count; i++)
        ck_assert_uint_eq(path[i], 0x120 / 16 + i);
    ck_assert(sassflow_between(flow, UINT32_MAX, 0x110, &count, &path));
    ck_assert_uint_eq(count, 17);
    ck_assert(sassflow_between(flow, 0x1a0, 0x1a0, &count, &path)); /* BRA 0x1a0: to itself */
    ck_assert_uint_eq(count, 0);
    ck_assert(!sassflow_between(flow, 0x1a0, 0x1b0, &count, &path)); /* never falls through */
    sassflow_destroy(flow);
    capture_kernel_clear(&k);
    capture_sass_module_free(&m);

    err_info err;
    err_clear(&err);
    ck_assert_msg(parse_text(k_loop_listing, &m, &err) == 0, "%s", err.msg);
    memset(&k, 0, sizeof k);
    capture_kernel_set_sass(&k, capture_sass_find(&m, "k_loop"));
    flow = sassflow_create(k.pcs, k.n_pcs);
    ck_assert_ptr_nonnull(flow);
    ck_assert(sassflow_between(flow, UINT32_MAX, 0x80, &count, &path));
    ck_assert_uint_eq(count, 3);
    ck_assert_uint_eq(path[2], 0x20 / 16);
    ck_assert(sassflow_between(flow, 0x40, 0x40, &count, &path));
    ck_assert_uint_eq(count, 2);
    ck_assert_uint_eq(path[0], 0x50 / 16);
    ck_assert_uint_eq(path[1], 0x60 / 16);
    sassflow_destroy(flow);
    capture_kernel_clear(&k);
    capture_sass_module_free(&m);
}
END_TEST

START_TEST(missing_traffic_is_summarized_per_kernel)
{
    capture_sass_module m;
    load(DATA "probe_app.cuobjdump-sass.txt", &m);
    char msg[512];
    ck_assert_uint_eq(capture_sass_missing_summary(capture_sass_find(&m, "_Z5k_tma14CUtensorMap_stS_Pf"), msg,
                                                   sizeof msg), 2);
    ck_assert_str_eq(msg, "2 TMA tensor copy (first: 'UTMALDG.2D [UR4], [UR8]' at 0x0230)");
    ck_assert_uint_eq(capture_sass_missing_summary(capture_sass_find(&m, "_Z5k_texyPf"), msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "1 texture fetch (first: 'TLD.LZ RZ, R5, R7, UR4, 0x0, 1D, 0x1' at 0x0040)");
    ck_assert_uint_eq(capture_sass_missing_summary(capture_sass_find(&m, "_Z7k_constPfi"), msg, sizeof msg), 1);
    ck_assert_str_eq(msg, "1 load of __constant__ data (first: 'LDC R5, c[0x3][R0]' at 0x0090)");
    ck_assert_uint_eq(capture_sass_missing_summary(capture_sass_find(&m, "_Z8k_atomicPiS_"), msg, sizeof msg), 0);
    ck_assert_str_eq(msg, "");
    capture_sass_module_free(&m);
}
END_TEST

/* Kernels with barriers or many registers: nvdisasm prints .sectionflags and
 * .sectioninfo after .section (a cuBLAS nvjet kernel on the H200); they are
 * not new sections. */
START_TEST(section_attributes_do_not_end_the_function)
{
    capture_sass_module m;
    err_info err;
    err_clear(&err);
    const char *listing =
        "\t.target\tsm_90a\n"
        "//--------------------- .text.k_bar        --------------------------\n"
        "\t.section\t.text.k_bar,\"ax\",@progbits\n"
        "\t.sectionflags\t@\"SHF_BARRIERS=1\"\n"
        "\t.sectioninfo\t@\"SHI_REGISTERS=168\"\n"
        "\t.align\t128\n"
        "        .global         k_bar\n"
        "k_bar:\n"
        ".text.k_bar:\n"
        "        /*0000*/                   LDC R1, c[0x0][0x28] ;\n"
        "        /*0010*/                   BAR.SYNC.DEFER_BLOCKING 0x0 ;\n";
    ck_assert_msg(parse_text(listing, &m, &err) == 0, "%s", err.msg);
    ck_assert_uint_eq(m.n_funcs, 1);
    ck_assert_str_eq(m.funcs[0].name, "k_bar");
    ck_assert_uint_eq(m.funcs[0].n_insts, 2);
    capture_sass_module_free(&m);
}
END_TEST

static unsigned char *read_all(const char *path, size_t *n)
{
    FILE *f = fopen(path, "rb");
    ck_assert_msg(f != NULL, "%s missing", path);
    static unsigned char buf[65536];
    *n = fread(buf, 1, sizeof buf, f);
    fclose(f);
    return buf;
}

/* readelf -s probe_sm90.cubin: 15 _Z4smemPfi, 16 _Z7stridedPKfPfii, 17 _Z9coalescedPKfPfi
 * (FUNC); 3 is the SECTION symbol .text._Z4smemPfi */
START_TEST(kernel_symbol_index_comes_from_the_cubin)
{
    size_t n;
    unsigned char *img = read_all(DATA "probe_sm90.cubin", &n);
    ck_assert_uint_eq(n, 12160);
    err_info err;
    err_clear(&err);
    uint32_t idx = 0;
    ck_assert_int_eq(capture_elf_function_index(img, n, "_Z4smemPfi", &idx, &err), 1);
    ck_assert_uint_eq(idx, 15);
    ck_assert_int_eq(capture_elf_function_index(img, n, "_Z7stridedPKfPfii", &idx, &err), 1);
    ck_assert_uint_eq(idx, 16);
    ck_assert_int_eq(capture_elf_function_index(img, n, "_Z9coalescedPKfPfi", &idx, &err), 1);
    ck_assert_uint_eq(idx, 17);
    ck_assert_int_eq(capture_elf_function_index(img, n, ".text._Z4smemPfi", &idx, &err), 0);
    ck_assert_int_eq(capture_elf_function_index(img, n, "_Z4smem", &idx, &err), 0);
    /* cut short: the section headers are at 0x2768 */
    ck_assert_int_eq(capture_elf_function_index(img, 0x2768, "_Z4smemPfi", &idx, &err), -1);
    ck_assert_str_eq(err.msg, "ELF section headers out of the image (offset 10088, 28 of 64 bytes)");
    ck_assert_int_eq(capture_elf_function_index((const unsigned char *)"\x50\xed\x55\xba fatbin", 11, "k", &idx,
                                                &err), -1);
    ck_assert_str_eq(err.msg, "not a 64-bit little-endian ELF image");
    /* a symbol table that points past the end */
    static unsigned char bad[12160];
    memcpy(bad, img, n);
    bad[0x2768 + 3 * 64 + 0x18 + 3] = 0x7f;
    ck_assert_int_eq(capture_elf_function_index(bad, n, "_Z4smemPfi", &idx, &err), -1);
    ck_assert_str_eq(err.msg, "ELF symbol table out of the image");
}
END_TEST

/* ---- raw records into trace records ------------------------------------------ */

#define CODE_PC 0x7fd5d37d7e00ull
#define TAG 0x5a5a0001u

typedef struct fixture {
    capture_sass_module m;
    capture_pc_map map;
    capture_decoder d;
} fixture;

static void setup_kernel(fixture *fx, const char *file, const char *fname, uint64_t code_bytes, uint32_t gx,
                         uint32_t bx)
{
    load(file, &fx->m);
    err_info err;
    err_clear(&err);
    const capture_sass_func *f = fname ? capture_sass_find(&fx->m, fname) : NULL;
    ck_assert(!fname || f);
    ck_assert_int_eq(capture_pc_map_build(&fx->map, f, code_bytes, &err), 0);
    capture_launch l = {.launch = 7, .name = "k", .grid = {gx, 1, 1}, .block = {bx, 1, 1},
                        .code_pc = CODE_PC, .code_bytes = code_bytes, .tag = TAG};
    ck_assert_int_eq(capture_decoder_init(&fx->d, &l, &fx->map, &err), 0);
}

static void teardown_kernel(fixture *fx)
{
    capture_pc_map_free(&fx->map);
    capture_sass_module_free(&fx->m);
}

/* A record as the device writes it: lanes outside mask hold stale junk. */
static capture_raw_rec raw(unsigned type, uint32_t pc, unsigned size, unsigned flags, uint32_t mask,
                           uint64_t base, uint64_t stride)
{
    capture_raw_rec r;
    memset(&r, 0, sizeof r);
    r.pc = CODE_PC + pc;
    r.tag = TAG;
    r.cta = 3;
    r.warp = 1;
    r.active_mask = mask;
    r.sm = 17;
    r.type = (uint8_t)type;
    r.size_bytes = (uint8_t)size;
    r.flags = (uint8_t)flags;
    for (unsigned l = 0; l < 32; l++)
        r.addr[l] = (mask >> l & 1u) ? base + l * stride : 0xdeadbeefull;
    return r;
}

static int decode(fixture *fx, const capture_raw_rec *r, capture_out *out, err_info *err)
{
    err_clear(err);
    return capture_decode(&fx->d, r, 41, out, err);
}

START_TEST(raw_layout_is_fixed)
{
    ck_assert_uint_eq(sizeof(capture_raw_rec), 288);
    ck_assert_uint_eq(offsetof(capture_raw_rec, addr), 32);
    ck_assert_uint_eq(sizeof(capture_tracker), 48);
}
END_TEST

START_TEST(global_load_and_store_decode_exactly)
{
    fixture fx;
    setup_kernel(&fx, DATA "k_stream.nvdisasm-g-c.txt", "_Z8k_streamPK6float4PS_m", 640, 16384, 256);
    capture_out out;
    err_info err;
    capture_raw_rec r = raw(CAPTURE_RAW_GLOBAL, 0x110, 16, CAPTURE_SAN_READ, TRACE_FULL_MASK, 0x7fd5ae000000ull, 16);
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_int_eq(out.type, CAPTURE_OUT_MEM);
    ck_assert_uint_eq(out.mem.cta, 3);
    ck_assert_uint_eq(out.mem.warp, 1);
    ck_assert_int_eq(out.mem.sm, 17);
    ck_assert_uint_eq(out.mem.pc, 0x110);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_LD);
    ck_assert_uint_eq(out.mem.space, TRACE_SPACE_GLOBAL);
    ck_assert_uint_eq(out.mem.size_bytes, 16);
    ck_assert_uint_eq(out.mem.cache_op, TRACE_CACHE_DEFAULT);
    ck_assert_uint_eq(out.mem.flags, 0);
    ck_assert_uint_eq(out.mem.active_mask, TRACE_FULL_MASK);
    for (unsigned l = 0; l < 32; l++)
        ck_assert_uint_eq(out.mem.addr[l], 0x7fd5ae000000ull + 16 * l);

    /* a store from a divergent warp: inactive lanes become 0 */
    r = raw(CAPTURE_RAW_GLOBAL, 0x180, 16, CAPTURE_SAN_WRITE, 0x49249249u, 0x7fd5cbe00000ull, 16);
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_ST);
    ck_assert_uint_eq(out.mem.active_mask, 0x49249249u);
    ck_assert_uint_eq(out.mem.addr[0], 0x7fd5cbe00000ull);
    ck_assert_uint_eq(out.mem.addr[1], 0);
    ck_assert_uint_eq(out.mem.addr[3], 0x7fd5cbe00000ull + 48);
    ck_assert_uint_eq(fx.d.n_mem, 2);
    teardown_kernel(&fx);
}
END_TEST

START_TEST(records_that_cannot_be_true_are_refused)
{
    fixture fx;
    setup_kernel(&fx, DATA "k_stream.nvdisasm-g-c.txt", "_Z8k_streamPK6float4PS_m", 640, 4, 48);
    capture_out out;
    err_info err;
    capture_raw_rec good = raw(CAPTURE_RAW_GLOBAL, 0x110, 16, CAPTURE_SAN_READ, 0xffff, 0x1000, 16);
    capture_raw_rec r = good;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);

    r.tag = 0x5a5a0000u;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: the slot was claimed but never written (tag 0x5a5a0000, "
                              "expected 0x5a5a0001)");
    r = good;
    r.active_mask = 0;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: active mask is 0");
    r = good;
    r.cta = 4;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: CTA 4 is outside the grid (4 CTAs)");
    r = good;
    r.warp = 2;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: warp 2 is outside the CTA (2 warps)");
    r = raw(CAPTURE_RAW_GLOBAL, 0x110, 16, CAPTURE_SAN_READ, 0x10000, 0x1000, 16); /* thread 48 of 48 */
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: active mask 0x00010000 has lanes beyond the CTA's last "
                              "thread (0x0000ffff)");
    r = good;
    r.addr[5] = 0x1008;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: lane 5: address 0x1008 is not aligned to the access size 16");
    r = good;
    r.size_bytes = 3;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: access size 3 (expected 1, 2, 4, 8 or 16)");
    r = good;
    r.flags = 0;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: flags 0x0 say neither read nor write");
    r = good;
    r.type = 9;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: unknown record type 9");
    /* the PC check: a shared access where the listing has an LDG */
    r = raw(CAPTURE_RAW_SHARED, 0x110, 4, CAPTURE_SAN_READ, 0xffff, 0x400, 4);
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: a shared access at pc 0x0110, whose opcode is a global "
                              "instruction: the PC mapping is wrong");
    /* an opcode the table does not know (here the ULDC at 0x0100): kept as reported, counted */
    r = raw(CAPTURE_RAW_GLOBAL, 0x100, 4, CAPTURE_SAN_READ | CAPTURE_SAN_WRITE, 0xffff, 0x1000, 4);
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_ATOM);
    ck_assert_uint_eq(out.mem.pc, 0x100);
    ck_assert_uint_eq(fx.d.n_unknown_opcode, 1);
    ck_assert_uint_eq(fx.d.first_unknown_pc, 0x100);
    r = raw(CAPTURE_RAW_GLOBAL, 0x118, 4, CAPTURE_SAN_READ, 0xffff, 0x1000, 4);
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: pc 0x0118 is not at an instruction of the kernel's listing");
    teardown_kernel(&fx);
}
END_TEST

START_TEST(pcs_outside_the_kernel_are_kept_and_counted)
{
    fixture fx;
    setup_kernel(&fx, DATA "k_stream.nvdisasm-g-c.txt", "_Z8k_streamPK6float4PS_m", 640, 1, 32);
    capture_out out;
    err_info err;
    capture_raw_rec r = raw(CAPTURE_RAW_GLOBAL, 0, 4, CAPTURE_SAN_READ | CAPTURE_SAN_WRITE, 1, 0x1000, 4);
    r.cta = 0;
    r.warp = 0;
    r.pc = CODE_PC - 0x200; /* a callee placed before the kernel */
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.pc, (uint32_t)-0x200);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_ATOM); /* no SASS: atom, not red */
    ck_assert_uint_eq(fx.d.n_outside_code, 1);
    teardown_kernel(&fx);
}
END_TEST

START_TEST(generic_accesses_keep_the_resolved_space)
{
    fixture fx;
    setup_kernel(&fx, DATA "probe_app.cuobjdump-sass.txt", "_Z9k_genericPKfPfi", 3456, 1, 32);
    capture_out out;
    err_info err;
    /* one LD.E at 0x0ac0 resolved three ways (probe: shared offset 0x400, a
     * global VA, a local-window offset) */
    capture_raw_rec r = raw(CAPTURE_RAW_SHARED, 0xac0, 4, CAPTURE_SAN_READ, TRACE_FULL_MASK, 0x400, 4);
    r.cta = 0;
    r.warp = 0;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.space, TRACE_SPACE_SHARED);
    ck_assert_uint_eq(out.mem.flags, TRACE_MEM_GENERIC);
    ck_assert_uint_eq(out.mem.addr[31], 0x400 + 124);
    r.type = CAPTURE_RAW_GLOBAL;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.space, TRACE_SPACE_GLOBAL);
    ck_assert_uint_eq(out.mem.flags, TRACE_MEM_GENERIC);
    r.type = CAPTURE_RAW_LOCAL;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.space, TRACE_SPACE_LOCAL);
    ck_assert_uint_eq(out.mem.flags, TRACE_MEM_GENERIC);
    /* the STS at 0x09b0 is a plain shared store; the STL.128 at 0x0180 local */
    r = raw(CAPTURE_RAW_SHARED, 0x9b0, 4, CAPTURE_SAN_WRITE, TRACE_FULL_MASK, 0x400, 4);
    r.cta = 0;
    r.warp = 0;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.flags, 0);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_ST);
    r = raw(CAPTURE_RAW_LOCAL, 0x180, 16, CAPTURE_SAN_WRITE, TRACE_FULL_MASK, 0xfffa50, 0);
    r.cta = 0;
    r.warp = 0;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.space, TRACE_SPACE_LOCAL);
    ck_assert_uint_eq(out.mem.addr[7], 0xfffa50); /* every thread reports the same offset */
    r.flags = CAPTURE_SAN_READ | CAPTURE_SAN_WRITE;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: an atomic on local memory");
    teardown_kernel(&fx);
}
END_TEST

/* Local instructions that produced no record are listed, so capture can warn
 * that spills (invisible to the API) may be missing: k_generic has 16
 * STL.128, the first at 0x0180. */
START_TEST(local_instructions_without_records_are_found)
{
    fixture fx;
    setup_kernel(&fx, DATA "probe_app.cuobjdump-sass.txt", "_Z9k_genericPKfPfi", 3456, 1, 32);
    uint8_t seen[3456 / CAPTURE_SASS_INST_BYTES] = {0};
    ck_assert_uint_eq(fx.map.n_slots, sizeof seen);
    uint32_t first = 0;
    /* no decoder attached yet: nothing is known */
    ck_assert_uint_eq(capture_pc_map_unseen(&fx.map, NULL, CAPTURE_OP_LOCAL, &first), 0);
    ck_assert_uint_eq(capture_pc_map_unseen(&fx.map, seen, CAPTURE_OP_LOCAL, &first), 16);
    ck_assert_uint_eq(first, 0x180);
    fx.d.seen = seen;
    capture_out out;
    err_info err;
    capture_raw_rec r = raw(CAPTURE_RAW_LOCAL, 0x180, 16, CAPTURE_SAN_WRITE, TRACE_FULL_MASK, 0xfffa50, 0);
    r.cta = 0;
    r.warp = 0;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(capture_pc_map_unseen(&fx.map, seen, CAPTURE_OP_LOCAL, &first), 15);
    ck_assert_uint_eq(first, 0x1c0);
    teardown_kernel(&fx);
}
END_TEST

START_TEST(atomics_and_reductions_follow_the_opcode)
{
    fixture fx;
    setup_kernel(&fx, DATA "probe_app.cuobjdump-sass.txt", "_Z8k_atomicPiS_", 0x400, 1, 64);
    capture_out out;
    err_info err;
    static const struct {
        unsigned type;
        uint32_t pc;
        unsigned flags;
        trace_kind kind;
        trace_space space;
    } t[] = {
        {CAPTURE_RAW_GLOBAL, 0x170, 0x3, TRACE_KIND_RED, TRACE_SPACE_GLOBAL},  /* REDG (result unused) */
        {CAPTURE_RAW_GLOBAL, 0x180, 0x3, TRACE_KIND_ATOM, TRACE_SPACE_GLOBAL}, /* ATOMG.E.ADD */
        {CAPTURE_RAW_GLOBAL, 0x190, 0x3, TRACE_KIND_ATOM, TRACE_SPACE_GLOBAL}, /* ATOMG.E.CAS */
        {CAPTURE_RAW_GLOBAL, 0x1a0, 0x7, TRACE_KIND_RED, TRACE_SPACE_GLOBAL},  /* REDG...STRONG.SYS: ATOMSYS */
        {CAPTURE_RAW_SHARED, 0x210, 0x3, TRACE_KIND_ATOM, TRACE_SPACE_SHARED}, /* ATOMS */
    };
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        capture_raw_rec r = raw(t[i].type, t[i].pc, 4, t[i].flags, 0x80000000u, 0x7f0000001000ull, 0);
        r.cta = 0;
        ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
        ck_assert_msg(out.mem.kind == t[i].kind, "pc 0x%x: kind %u", t[i].pc, out.mem.kind);
        ck_assert_uint_eq(out.mem.space, t[i].space);
        ck_assert_uint_eq(out.mem.cache_op, TRACE_CACHE_DEFAULT);
        ck_assert_uint_eq(out.mem.addr[31], 0x7f0000001000ull);
    }
    teardown_kernel(&fx);

    /* without SASS every read-write access is an atom */
    setup_kernel(&fx, DATA "probe_app.cuobjdump-sass.txt", NULL, 0x400, 1, 64);
    capture_raw_rec r = raw(CAPTURE_RAW_GLOBAL, 0x170, 4, 0x3, 1, 0x1000, 0);
    r.cta = 0;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_ATOM);
    teardown_kernel(&fx);
}
END_TEST

START_TEST(cp_async_is_a_global_read_and_a_shared_write)
{
    fixture fx;
    setup_kernel(&fx, DATA "probe_app.cuobjdump-sass.txt", "_Z9k_cpasyncPK6float4PK6float2PKfPf", 0x400, 1, 32);
    capture_out out;
    err_info err;
    capture_raw_rec g = raw(CAPTURE_RAW_LDGSTS_GLOBAL, 0x150, 16, CAPTURE_SAN_READ, TRACE_FULL_MASK,
                            0x7fe682000000ull, 16);
    capture_raw_rec s = raw(CAPTURE_RAW_LDGSTS_SHARED, 0x150, 16, CAPTURE_SAN_WRITE, TRACE_FULL_MASK, 0x400, 16);
    g.cta = s.cta = 0;
    g.warp = s.warp = 0;
    ck_assert_int_eq(decode(&fx, &g, &out, &err), 0);
    ck_assert_uint_eq(out.mem.space, TRACE_SPACE_GLOBAL);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_LD);
    ck_assert_uint_eq(out.mem.flags, TRACE_MEM_LDGSTS);
    ck_assert_uint_eq(out.mem.cache_op, TRACE_CACHE_CG); /* LDGSTS.E.BYPASS.128: cp.async.cg */
    ck_assert_int_eq(capture_decoder_finish(&fx.d, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): the last cp.async global read has no shared write");
    ck_assert_int_eq(decode(&fx, &s, &out, &err), 0);
    ck_assert_uint_eq(out.mem.space, TRACE_SPACE_SHARED);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_ST);
    ck_assert_uint_eq(out.mem.flags, TRACE_MEM_LDGSTS);
    ck_assert_uint_eq(out.mem.cache_op, TRACE_CACHE_DEFAULT);
    ck_assert_uint_eq(out.mem.addr[2], 0x420);
    ck_assert_int_eq(capture_decoder_finish(&fx.d, &err), 0);

    /* a shared half alone, or a global half followed by something else */
    ck_assert_int_eq(decode(&fx, &s, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: a cp.async shared write that does not follow its global read");
    capture_raw_rec g8 = raw(CAPTURE_RAW_LDGSTS_GLOBAL, 0x180, 8, CAPTURE_SAN_READ, TRACE_FULL_MASK, 0x1000, 8);
    g8.cta = 0;
    g8.warp = 0;
    ck_assert_int_eq(decode(&fx, &g8, &out, &err), 0);
    ck_assert_uint_eq(out.mem.cache_op, TRACE_CACHE_CA); /* LDGSTS.E.64: cp.async.ca */
    ck_assert_int_eq(decode(&fx, &g8, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: the cp.async global read before it has no shared write");
    teardown_kernel(&fx);
}
END_TEST

START_TEST(ldmatrix_rows_become_one_shared_record)
{
    fixture fx;
    setup_kernel(&fx, DATA "probe_app.cuobjdump-sass.txt", "_Z10k_ldmatrixPj", 0x500, 1, 32);
    capture_out out;
    err_info err;
    capture_raw_rec r = raw(CAPTURE_RAW_MATRIX, 0x3a0, 16, CAPTURE_SAN_READ, TRACE_FULL_MASK, 0x400, 16);
    r.cta = 0;
    r.warp = 0;
    r.count = 4;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.space, TRACE_SPACE_SHARED);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_LD);
    ck_assert_uint_eq(out.mem.size_bytes, 16);
    ck_assert_uint_eq(out.mem.active_mask, TRACE_FULL_MASK);
    ck_assert_uint_eq(out.mem.addr[31], 0x400 + 31 * 16);
    /* .x1: only lanes 0-7 give row addresses */
    r.count = 1;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.active_mask, 0xffu);
    ck_assert_uint_eq(out.mem.addr[8], 0);
    r.count = 2;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.active_mask, 0xffffu);
    /* stmatrix */
    r = raw(CAPTURE_RAW_MATRIX, 0x3c0, 16, CAPTURE_SAN_WRITE, TRACE_FULL_MASK, 0x400, 16);
    r.cta = 0;
    r.warp = 0;
    r.count = 4;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_uint_eq(out.mem.kind, TRACE_KIND_ST);
    r.count = 3;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: ldmatrix/stmatrix count 3 (expected 1, 2 or 4)");
    teardown_kernel(&fx);
}
END_TEST

START_TEST(barriers_and_prefetches)
{
    fixture fx;
    setup_kernel(&fx, DATA "probe_sm90.nvdisasm-g-c.txt", "_Z4smemPfi", 0x280, 2, 64);
    capture_out out;
    err_info err;
    capture_raw_rec r = raw(CAPTURE_RAW_BARRIER, 0x160, 0, 0, TRACE_FULL_MASK, 0, 0);
    r.cta = 1;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_int_eq(out.type, CAPTURE_OUT_BARRIER);
    ck_assert_uint_eq(out.barrier.cta, 1);
    ck_assert_uint_eq(out.barrier.warp, 1);
    ck_assert_int_eq(out.barrier.sm, 17);
    ck_assert_uint_eq(out.barrier.pc, 0x160);
    ck_assert_int_eq(out.barrier.kind, TRACE_BAR_SYNC);
    /* a shuffle is a barrier record of kind SHFL; at a memory instruction's
     * PC the mapping is wrong, as for a barrier */
    capture_raw_rec sh = raw(CAPTURE_RAW_SHFL, 0x140, 0, 0, TRACE_FULL_MASK, 0, 0);
    sh.cta = 1;
    ck_assert_int_eq(decode(&fx, &sh, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: a shuffle at pc 0x0140, whose opcode is a shared "
                              "instruction: the PC mapping is wrong");
    capture_op op;
    capture_op_classify("SHFL.DOWN PT, R7, R16, R5, 0x1f", &op);
    ck_assert_int_eq(op.op_class, CAPTURE_OP_SHFL);
    capture_op_classify("@!P0 SHFL.BFLY PT, R3, R2, 0x1, 0x1f", &op);
    ck_assert_int_eq(op.op_class, CAPTURE_OP_SHFL);
    r.pc = CODE_PC + 0x140; /* the STS */
    ck_assert_int_eq(decode(&fx, &r, &out, &err), -1);
    ck_assert_str_eq(err.msg, "launch 7 (k): record 41: a barrier at pc 0x0140, whose opcode is a shared "
                              "instruction: the PC mapping is wrong");
    r = raw(CAPTURE_RAW_SHARED, 0x140, 4, CAPTURE_SAN_READ | CAPTURE_SAN_PREFETCH, TRACE_FULL_MASK, 0x400, 4);
    r.cta = 1;
    ck_assert_int_eq(decode(&fx, &r, &out, &err), 0);
    ck_assert_int_eq(out.type, CAPTURE_OUT_SKIP);
    ck_assert_uint_eq(fx.d.n_prefetch, 1);
    ck_assert_uint_eq(fx.d.n_barrier, 1);
    ck_assert_uint_eq(fx.d.n_mem, 0);
    teardown_kernel(&fx);
}
END_TEST

START_TEST(impossible_launches_and_code_sizes_are_refused)
{
    capture_pc_map map;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(capture_pc_map_build(&map, NULL, 0, &err), -1);
    ck_assert_int_eq(capture_pc_map_build(&map, NULL, (uint64_t)1 << 40, &err), -1);
    ck_assert_int_eq(capture_pc_map_build(&map, NULL, 64, &err), 0);
    capture_decoder d;
    capture_launch l = {.launch = 2, .name = "k", .grid = {1, 1, 1}, .block = {1025, 1, 1}, .code_bytes = 64};
    ck_assert_int_eq(capture_decoder_init(&d, &l, &map, &err), -1);
    ck_assert_str_eq(err.msg, "launch 2 (k): grid 1x1x1 block 1025x1x1 is out of range");
    l.block[0] = 32;
    l.grid[0] = 0;
    ck_assert_int_eq(capture_decoder_init(&d, &l, &map, &err), -1);
    capture_pc_map_free(&map);
}
END_TEST

/* ---- options -------------------------------------------------------------------- */

static int args(capture_opts *o, capture_action *act, err_info *err, int n, ...)
{
    static char *argv[32];
    va_list ap;
    va_start(ap, n);
    argv[0] = (char *)"gpumemsim-capture";
    for (int i = 0; i < n; i++)
        argv[i + 1] = va_arg(ap, char *);
    va_end(ap);
    capture_opts_init(o);
    err_clear(err);
    return capture_args_parse(n + 1, argv, o, act, err);
}

START_TEST(command_line_is_parsed)
{
    capture_opts o;
    capture_action act;
    err_info err;
    ck_assert_int_eq(args(&o, &act, &err, 12, "-o", "x.trace", "--kernel", "k_.*", "--launch", "3-5",
                          "--max-records", "100", "--", "./app", "a", "--b"),
                     0);
    ck_assert_int_eq(act, CAPTURE_ACTION_RUN);
    ck_assert_str_eq(o.output, "x.trace");
    ck_assert_str_eq(o.kernel_regex, "k_.*");
    ck_assert(o.has_launch_range);
    ck_assert_uint_eq(o.launch_first, 3);
    ck_assert_uint_eq(o.launch_last, 5);
    ck_assert_str_eq(o.launch_text, "3-5");
    ck_assert_uint_eq(o.max_records, 100);
    ck_assert_uint_eq(o.buffer_mb, CAPTURE_DEFAULT_BUFFER_MB);
    ck_assert_int_eq(o.format, TRACE_FORMAT_BINARY);
    ck_assert_int_eq(o.prog_argc, 3);
    ck_assert_str_eq(o.prog_argv[0], "./app");
    ck_assert_str_eq(o.prog_argv[2], "--b");
    ck_assert(!o.shuffles); /* off unless asked for */

    /* --opt=value, and the program starts at the first non-option */
    ck_assert_int_eq(args(&o, &act, &err, 9, "--launch=7", "--format=text", "--zstd-level", "9", "-v",
                          "--buffer-mb=64", "--keep-temp", "--shuffles", "./app"),
                     0);
    ck_assert(o.keep_temp);
    ck_assert(o.shuffles);
    ck_assert_uint_eq(o.launch_first, 7);
    ck_assert_uint_eq(o.launch_last, 7);
    ck_assert_int_eq(o.format, TRACE_FORMAT_TEXT);
    ck_assert_uint_eq(o.zstd_level, 9);
    ck_assert(o.verbose);
    ck_assert_uint_eq(o.buffer_mb, 64);
    ck_assert_int_eq(o.prog_argc, 1);
    ck_assert_ptr_null(o.output);

    ck_assert_int_eq(args(&o, &act, &err, 2, "--help", "./app"), 0);
    ck_assert_int_eq(act, CAPTURE_ACTION_HELP);
    ck_assert_int_eq(args(&o, &act, &err, 1, "--version"), 0);
    ck_assert_int_eq(act, CAPTURE_ACTION_VERSION);
}
END_TEST

START_TEST(bad_command_lines_say_what_is_wrong)
{
    static const struct {
        const char *a, *b;
        const char *msg;
    } t[] = {
        {"--frobnicate", "./app", "unknown option '--frobnicate'"},
        {"-x", "./app", "unknown option '-x'"},
        {"--launch", "5-3", "--launch 5-3: the range ends before it starts"},
        {"--launch", "x", "--launch 'x': expected N or N-M (launch indices from 0)"},
        {"--launch", "3-", "--launch '3-': expected N or N-M (launch indices from 0)"},
        {"--max-records", "0", "--max-records '0': expected a number from 1 to 1099511627776"},
        {"--max-records", "1e3", "--max-records '1e3': expected a number from 1 to 1099511627776"},
        {"--max-records", "-1", "--max-records '-1': expected a number from 1 to 1099511627776"},
        {"--buffer-mb", "0", "--buffer-mb '0': expected a number from 1 to 1048576"},
        {"--format", "json", "--format 'json': expected binary or text"},
        {"--zstd-level", "20", "--zstd-level '20': expected a number from 1 to 19"},
        {"-o", "", "--output: empty file name"},
    };
    capture_opts o;
    capture_action act;
    err_info err;
    for (size_t i = 0; i < sizeof t / sizeof t[0]; i++) {
        ck_assert_int_eq(args(&o, &act, &err, 3, t[i].a, t[i].b, "./app"), -1);
        ck_assert_str_eq(err.msg, t[i].msg);
    }
    ck_assert_int_eq(args(&o, &act, &err, 1, "--kernel"), -1);
    ck_assert_str_eq(err.msg, "option '--kernel' needs a value");
    ck_assert_int_eq(args(&o, &act, &err, 2, "-o", "t.trace"), -1);
    ck_assert_str_eq(err.msg, "no program to run (usage: gpumemsim-capture [OPTIONS] -- PROGRAM [ARGS...])");
    ck_assert_int_eq(args(&o, &act, &err, 1, "--"), -1);
}
END_TEST

START_TEST(launch_selection_uses_range_and_demangled_name)
{
    capture_opts o;
    capture_action act;
    err_info err;
    capture_select s;
    ck_assert_int_eq(args(&o, &act, &err, 5, "--launch", "2-4", "--kernel", "^k_stream\\(", "./app"), 0);
    ck_assert_int_eq(capture_select_init(&s, &o, &err), 0);
    const char *ks = "k_stream(float4 const*, float4*, unsigned long)";
    ck_assert(!capture_select_launch(&s, 1, ks));
    ck_assert(capture_select_launch(&s, 2, ks));
    ck_assert(capture_select_launch(&s, 4, ks));
    ck_assert(!capture_select_launch(&s, 5, ks));
    ck_assert(!capture_select_launch(&s, 3, "void other<k_stream>(int)"));
    capture_select_free(&s);

    ck_assert_int_eq(args(&o, &act, &err, 1, "./app"), 0);
    ck_assert_int_eq(capture_select_init(&s, &o, &err), 0);
    ck_assert(capture_select_launch(&s, 123456, "anything"));
    capture_select_free(&s);

    ck_assert_int_eq(args(&o, &act, &err, 3, "--kernel", "k_(", "./app"), 0);
    ck_assert_int_eq(capture_select_init(&s, &o, &err), -1);
    ck_assert_msg(strncmp(err.msg, "--kernel 'k_(': ", 16) == 0, "%s", err.msg);
}
END_TEST

static const char *fake_env_table[][2] = {
    {CAPTURE_ENV_OUTPUT, "/tmp/x.trace"}, {CAPTURE_ENV_FORMAT, "text"}, {CAPTURE_ENV_LAUNCH, "0-9"},
    {CAPTURE_ENV_KERNEL, "gemm"},         {CAPTURE_ENV_MAX_RECORDS, "5000"}, {CAPTURE_ENV_BUFFER_MB, "256"},
    {CAPTURE_ENV_VERBOSE, "1"},           {NULL, NULL},
};
static int fake_env_broken; /* 1: no output, 2: a bad launch range */

static const char *fake_env(const char *name)
{
    if (fake_env_broken == 1 && !strcmp(name, CAPTURE_ENV_OUTPUT))
        return NULL;
    if (fake_env_broken == 2 && !strcmp(name, CAPTURE_ENV_LAUNCH))
        return "9-0";
    for (size_t i = 0; fake_env_table[i][0]; i++)
        if (!strcmp(fake_env_table[i][0], name))
            return fake_env_table[i][1];
    return NULL;
}

START_TEST(options_travel_through_the_environment)
{
    capture_opts o;
    err_info err;
    err_clear(&err);
    fake_env_broken = 0;
    ck_assert_int_eq(capture_opts_from_env(&o, fake_env, &err), 0);
    ck_assert_str_eq(o.output, "/tmp/x.trace");
    ck_assert_int_eq(o.format, TRACE_FORMAT_TEXT);
    ck_assert_uint_eq(o.launch_first, 0);
    ck_assert_uint_eq(o.launch_last, 9);
    ck_assert_str_eq(o.kernel_regex, "gemm");
    ck_assert_uint_eq(o.max_records, 5000);
    ck_assert_uint_eq(o.buffer_mb, 256);
    ck_assert(o.verbose);
    fake_env_broken = 1;
    ck_assert_int_eq(capture_opts_from_env(&o, fake_env, &err), -1);
    ck_assert_str_eq(err.msg, "GPUMEMSIM_CAPTURE_OUTPUT is not set (run the program under gpumemsim-capture)");
    fake_env_broken = 2;
    ck_assert_int_eq(capture_opts_from_env(&o, fake_env, &err), -1);
    ck_assert_str_eq(err.msg, "GPUMEMSIM_CAPTURE_LAUNCH: --launch 9-0: the range ends before it starts");
    fake_env_broken = 0;
}
END_TEST

/* ---- metadata helpers --------------------------------------------------------------- */

/* A stand-in for __cxa_demangle (the test program has no C++ runtime; the
 * real one is exercised on the GPU machine): knows one name. */
static char *fake_demangler(const char *mangled, char *buf, size_t *len, int *status)
{
    (void)buf;
    (void)len;
    if (!strcmp(mangled, "_Z8k_streamPK6float4PS_m")) {
        *status = 0;
        char *s = malloc(64);
        strcpy(s, "k_stream(float4 const*, float4*, unsigned long)");
        return s;
    }
    *status = -2; /* not a valid mangled name */
    return NULL;
}

START_TEST(kernel_names_are_demangled)
{
    char *d = capture_demangle("_Z8k_streamPK6float4PS_m", fake_demangler);
    ck_assert_str_eq(d, "k_stream(float4 const*, float4*, unsigned long)");
    free(d);
    d = capture_demangle("k_plain", fake_demangler); /* extern "C": not asked */
    ck_assert_str_eq(d, "k_plain");
    free(d);
    d = capture_demangle("_Zgarbage", fake_demangler);
    ck_assert_str_eq(d, "_Zgarbage");
    free(d);
    d = capture_demangle("_Z8k_streamPK6float4PS_m", NULL);
    ck_assert_str_eq(d, "_Z8k_streamPK6float4PS_m");
    free(d);
}
END_TEST

START_TEST(driver_cuda_and_date_strings)
{
    char v[64];
    ck_assert_int_eq(capture_driver_version("NVRM version: NVIDIA UNIX x86_64 Kernel Module  580.159.04  Thu Jul 24 "
                                            "01:23:45 UTC 2025\nGCC version:  gcc 13\n", v, sizeof v), 0);
    ck_assert_str_eq(v, "580.159.04");
    ck_assert_int_eq(capture_driver_version("NVRM version: NVIDIA UNIX Open Kernel Module for x86_64  570.86.15  "
                                            "Release Build  (dvs-builder@U16)\n", v, sizeof v), 0);
    ck_assert_str_eq(v, "570.86.15");
    ck_assert_int_eq(capture_driver_version("no driver here", v, sizeof v), -1);
    ck_assert_int_eq(capture_driver_version("NVRM version: NVIDIA x86_64\n580.1", v, sizeof v), -1);
    capture_cuda_version(13000, v, sizeof v);
    ck_assert_str_eq(v, "13.0");
    capture_cuda_version(12040, v, sizeof v);
    ck_assert_str_eq(v, "12.4");
    capture_iso8601_utc(0, v, sizeof v);
    ck_assert_str_eq(v, "1970-01-01T00:00:00Z");
    capture_iso8601_utc(1795000000, v, sizeof v);
    ck_assert_str_eq(v, "2026-11-18T11:06:40Z");
}
END_TEST

START_TEST(gpu_list_round_trips)
{
    char list[256] = "";
    capture_gpu a = {.name = "NVIDIA H200", .cc_major = 9, .cc_minor = 0, .sm_count = 132};
    capture_gpu b = {.name = "odd|name;x", .cc_major = 8, .cc_minor = 6, .sm_count = 84};
    ck_assert_int_eq(capture_gpu_append(list, sizeof list, &a), 0);
    ck_assert_int_eq(capture_gpu_append(list, sizeof list, &b), 0);
    ck_assert_str_eq(list, "NVIDIA H200|9.0|132;odd_name_x|8.6|84");
    capture_gpu g;
    err_info err;
    err_clear(&err);
    ck_assert_int_eq(capture_gpu_lookup(list, 0, &g, &err), 0);
    ck_assert_str_eq(g.name, "NVIDIA H200");
    ck_assert_uint_eq(g.cc_major, 9);
    ck_assert_uint_eq(g.sm_count, 132);
    ck_assert_int_eq(capture_gpu_lookup(list, 1, &g, &err), 0);
    ck_assert_str_eq(g.name, "odd_name_x");
    ck_assert_uint_eq(g.cc_minor, 6);
    ck_assert_int_eq(capture_gpu_lookup(list, 2, &g, &err), -1);
    ck_assert_str_eq(err.msg, "no GPU 2 in the wrapper's list 'NVIDIA H200|9.0|132;odd_name_x|8.6|84'");
    ck_assert_int_eq(capture_gpu_lookup("H200|9|132", 0, &g, &err), -1);
    ck_assert_str_eq(err.msg, "GPU 0 in the wrapper's list: expected NAME|MAJOR.MINOR|SMS, got 'H200|9|132'");
    char tiny[8] = "";
    ck_assert_int_eq(capture_gpu_append(tiny, sizeof tiny, &a), -1);
    ck_assert_str_eq(tiny, "");
}
END_TEST

START_TEST(tools_run_with_their_output_in_a_file)
{
    char path[] = "/tmp/gms-capture-test-XXXXXX";
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    close(fd);
    err_info err;
    err_clear(&err);
    const char *ok[] = {"/bin/sh", "-c", "echo listing", NULL};
    ck_assert_int_eq(capture_run_tool(ok, path, &err), 0);
    FILE *f = fopen(path, "r");
    char line[64] = "";
    ck_assert_ptr_nonnull(fgets(line, sizeof line, f));
    fclose(f);
    ck_assert_str_eq(line, "listing\n");
    const char *bad[] = {"/bin/sh", "-c", "echo 'nvdisasm fatal : bad cubin' >&2; exit 3", NULL};
    ck_assert_int_eq(capture_run_tool(bad, path, &err), -1);
    ck_assert_str_eq(err.msg, "/bin/sh failed (exit status 3): nvdisasm fatal : bad cubin");
    const char *none[] = {"/nonexistent/nvdisasm", NULL};
    ck_assert_int_eq(capture_run_tool(none, path, &err), -1);
    ck_assert_str_eq(err.msg, "cannot run /nonexistent/nvdisasm: No such file or directory");
    char errpath[64];
    snprintf(errpath, sizeof errpath, "%s.err", path);
    unlink(errpath);
    unlink(path);
}
END_TEST

/* cuobjdump's SHARED against Nsight Compute's static shared memory, the
 * H200 suite's kernels (traces/h200-probes/launchstats, findings §3e): SHARED
 * is the kernel's own plus the driver's 1 KiB when it uses shared memory. */
START_TEST(static_shared_memory_leaves_out_the_driver_reservation)
{
    static const struct {
        uint32_t res_shared, reserved, want;
    } cases[] = {
        {2048, 1024, 1024}, /* histogram, reduce, copyAsync_ca4 */
        {5248, 1024, 4224}, /* transpose_padded: a 32x33-float tile */
        {9728, 1024, 8704}, /* bank_pad17 */
        {1056, 1024, 32},   /* matrixMul_tiny_tiled2 */
        {2128, 1024, 1104}, /* filter21_float */
        {1024, 1024, 0},    /* dynamic shared memory only (lrcpair) */
        {0, 1024, 0},       /* no shared memory (readSegment, local_array) */
        {3072, 0, 3072},    /* before sm_80: nothing reserved */
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
        ck_assert_uint_eq(capture_static_smem(cases[i].res_shared, cases[i].reserved), cases[i].want);
}
END_TEST

Suite *capture_suite(void)
{
    Suite *s = suite_create("capture");
    TCase *tc = tcase_create("sass");
    tcase_add_test(tc, global_loads_map_to_their_cache_operator);
    tcase_add_test(tc, opcodes_fall_into_their_classes);
    tcase_add_test(tc, nvdisasm_listing_gives_sass_and_source_lines);
    tcase_add_test(tc, encodings_give_the_control_words);
    tcase_add_test(tc, cuobjdump_listing_gives_sass_without_lines);
    tcase_add_test(tc, bad_listings_are_refused_with_the_line);
    tcase_add_test(tc, resource_usage_fills_functions);
    tcase_add_test(tc, label_operands_become_function_relative_pcs);
    tcase_add_test(tc, kernel_pc_table_holds_every_instruction);
    tcase_add_test(tc, fixture_tables_are_whole_kernels);
    tcase_add_test(tc, captured_branches_steer_the_timing_model);
    tcase_add_test(tc, missing_traffic_is_summarized_per_kernel);
    tcase_add_test(tc, section_attributes_do_not_end_the_function);
    tcase_add_test(tc, kernel_symbol_index_comes_from_the_cubin);
    tcase_add_test(tc, static_shared_memory_leaves_out_the_driver_reservation);
    suite_add_tcase(s, tc);

    tc = tcase_create("decode");
    tcase_add_test(tc, raw_layout_is_fixed);
    tcase_add_test(tc, global_load_and_store_decode_exactly);
    tcase_add_test(tc, records_that_cannot_be_true_are_refused);
    tcase_add_test(tc, pcs_outside_the_kernel_are_kept_and_counted);
    tcase_add_test(tc, generic_accesses_keep_the_resolved_space);
    tcase_add_test(tc, local_instructions_without_records_are_found);
    tcase_add_test(tc, atomics_and_reductions_follow_the_opcode);
    tcase_add_test(tc, cp_async_is_a_global_read_and_a_shared_write);
    tcase_add_test(tc, ldmatrix_rows_become_one_shared_record);
    tcase_add_test(tc, barriers_and_prefetches);
    tcase_add_test(tc, impossible_launches_and_code_sizes_are_refused);
    suite_add_tcase(s, tc);

    tc = tcase_create("options");
    tcase_add_test(tc, command_line_is_parsed);
    tcase_add_test(tc, bad_command_lines_say_what_is_wrong);
    tcase_add_test(tc, launch_selection_uses_range_and_demangled_name);
    tcase_add_test(tc, options_travel_through_the_environment);
    suite_add_tcase(s, tc);

    tc = tcase_create("util");
    tcase_add_test(tc, kernel_names_are_demangled);
    tcase_add_test(tc, driver_cuda_and_date_strings);
    tcase_add_test(tc, gpu_list_round_trips);
    tcase_add_test(tc, tools_run_with_their_output_in_a_file);
    suite_add_tcase(s, tc);
    return s;
}
