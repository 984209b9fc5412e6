#!/bin/sh
# explain-cli.sh BIN [--bless-docs]
# End-to-end checks of `gpumemsim explain` on shipped H200 captures: exact
# counts and sentences (through the JSON output), JSON validity, table width,
# bad selections (one line, exit 2), and that every ```console block of
# docs/explain.md still prints what the document quotes. --bless-docs rewrites
# those quotes from the current output instead (review the diff).
set -eu
BIN=${1:?usage: explain-cli.sh BIN [--bless-docs]}
DOC=docs/explain.md
H200=configs/h200.ini
OUT=build/explain-cli
mkdir -p "$OUT"
fails=0
fail() { echo "explain-cli: FAIL: $*" >&2; fails=$((fails + 1)); }

# Run the console blocks of the doc: the "$ " line is the command (build/gpumemsim
# is replaced by BIN), the lines after it up to the fence its output.
run_doc() {
    mode=$1
    awk -v bin="$BIN" -v mode="$mode" -v out="$OUT" '
        function run(cmd,    c, line, got) {
            gsub(/build\/gpumemsim/, bin, cmd)
            got = ""
            c = "(" cmd ") 2>&1"
            while ((c | getline line) > 0) got = got line "\n"
            close(c)
            return got
        }
        /^```console$/ { inblock = 1; if (mode == "bless") print; next }
        inblock && /^\$ / {
            cmd = substr($0, 3); if (mode == "bless") print
            got = run(cmd); want = ""; n++
            while ((getline line) > 0 && line != "```") want = want line "\n"
            if (mode == "bless") { printf "%s", got }
            else if (got != want) {
                f = out "/doc-block-" n
                printf "%s", want > (f ".want"); printf "%s", got > (f ".got")
                close(f ".want"); close(f ".got")
                print "explain-cli: docs/explain.md block " n " differs: diff " f ".want " f ".got" > "/dev/stderr"
                bad++
            }
            if (mode == "bless") print "```"
            inblock = 0; next
        }
        { if (mode == "bless") print }
        END { if (mode != "bless") exit bad ? 1 : 0 }
    ' "$DOC"
}

if [ "${2:-}" = "--bless-docs" ]; then
    run_doc bless > "$OUT/explain.md.new"
    mv "$OUT/explain.md.new" "$DOC"
    echo "explain-cli: rewrote the quoted output in $DOC"
    exit 0
fi

# ---- exact numbers, through the JSON form (one python3 for all: it starts slowly) ----
H200_EXPLAIN="$BIN explain --config $H200"
$H200_EXPLAIN traces/h200/readSegment_off11.trace --pc 0x00d0 --lanes --format json > "$OUT/off11.json"
$H200_EXPLAIN traces/h200/readSegment_off11.trace --format json > "$OUT/off11-pcs.json"
$H200_EXPLAIN traces/h200/bank_stride4.trace --pc 0x0310 --lanes --format json > "$OUT/stride4.json"
$H200_EXPLAIN traces/h200/bank_pad17.trace --format json > "$OUT/pad17.json"
sed 's/^bank_mode_bytes = 4/bank_mode_bytes = 8/' configs/k20c.ini > "$OUT/k20c-8byte.ini"
"$BIN" explain --config configs/k20c.ini traces/h200/filter21_float2.trace --pc 0x0330 --lanes --format json \
    > "$OUT/filter21-4.json"
"$BIN" explain --config "$OUT/k20c-8byte.ini" traces/h200/filter21_float2.trace --pc 0x0330 --lanes --format json \
    > "$OUT/filter21-8.json"
$H200_EXPLAIN traces/h200/local_array.trace --format json > "$OUT/local.json"
$H200_EXPLAIN traces/h200/local_array.trace --pc 0x01b0 --lanes --format json > "$OUT/local-lanes.json"
$H200_EXPLAIN traces/h200/filter21_float2.trace --line filter21.cu:30 --warp 0:0 --format json > "$OUT/warp.json"
n=0
for args in "readSegment_off11.trace --pc 0x00d0" "bank_stride4.trace --pc 0x0310" "local_array.trace --pc 0x01b0" \
    "filter21_float2.trace --line filter21.cu:30 --warp 0:0"; do
    n=$((n + 1))
    # shellcheck disable=SC2086
    "$BIN" explain --config $H200 traces/h200/$args --lanes --format csv > "$OUT/lanes-$n.csv"
done
if command -v python3 >/dev/null 2>&1; then
    python3 - "$OUT" <<'PY' || fails=$((fails + 1))
import json, os, sys
out = sys.argv[1]
docs = {}
for name in ("off11", "off11-pcs", "stride4", "pad17", "filter21-4", "filter21-8", "local", "local-lanes", "warp"):
    with open(os.path.join(out, name + ".json")) as f:
        docs[name] = json.load(f)  # also: every output is valid JSON
e = lambda name: docs[name]["executions"][0]
checks = [
    ("off11 coalescing", e("off11")["coalescing"] == {"lines": 2, "sectors": 5, "requested_bytes": 128,
        "distinct_bytes": 128, "ideal_sectors": 4, "excessive_sectors": 1, "tag_wavefronts": 1}),
    ("off11 lanes 0 and 21", e("off11")["lanes"][0]["sector"] == 1 and e("off11")["lanes"][0]["sector_offset"] == 12
        and e("off11")["lanes"][21]["line"] == 1),
    ("off11 why", e("off11")["why"][0] == "32 active lanes x 4 B = 128 B could fill 4 sectors of 32 B (ideal); they "
        "touch 5 sectors in 2 lines because the first byte is 12 B into its 32-B sector (44 B into its 128-B line): "
        "1 excessive sector."),
    ("off11 this execution", e("off11")["source_view"]["L2 Theoretical Sectors Global Excessive"] == 1),
    # ncu measured 163838 / 131071 / 32767 for each load (traces/h200/readSegment_off11.source.csv)
    ("off11 per PC", [(i["pc"], i["source_view"]["L2 Theoretical Sectors Global"],
        i["source_view"]["L2 Theoretical Sectors Global Ideal"], i["source_view"]["L2 Theoretical Sectors Global Excessive"])
        for i in docs["off11-pcs"]["launches"][0]["instructions"]]
        == [("0x00d0", 163838, 131071, 32767), ("0x0100", 163838, 131071, 32767), ("0x0130", 131071, 131071, 0)]),
    ("off11 line 20", docs["off11-pcs"]["launches"][0]["lines"][0]["line"] == 20
        and docs["off11-pcs"]["launches"][0]["lines"][0]["source_view"]["Instructions Executed"] == 98304),
    ("stride4 banks", e("stride4")["banks"] == {"lanes_per_phase": 32, "merged": False, "serialized": False,
        "wavefronts": 4, "ideal": 1}),
    ("stride4 worst bank", e("stride4")["phases"][0]["worst_bank"] == 1
        and e("stride4")["phases"][0]["worst_bank_lanes"] == "0,8,16,24"),
    ("stride4 lane 24 waits for the 4th pass",
        e("stride4")["lanes"][24]["words"] == [{"bank": 1, "entry": 11, "wavefront": 3, "broadcast": False}]),
    ("pad17: stores 2-way (line 90), loads conflict-free (line 98)",
        sorted((l["line"], l["source_view"]["L1 Conflicts Shared N-Way"]) for l in docs["pad17"]["launches"][0]["lines"]
               if l["source_view"]["L1 Wavefronts Shared"]) == [(90, 2), (98, 1)]),
    ("filter21_float2 LDS.64 on the K20c, 4-byte mode: 2 wavefronts", e("filter21-4")["banks"]["wavefronts"] == 2),
    ("filter21_float2 LDS.64 on the K20c, 8-byte mode: 1 wavefront", e("filter21-8")["banks"]["wavefronts"] == 1),
    ("local_array STL.128: 16 sectors per execution", e("local-lanes")["coalescing"]["sectors"] == 16),
    ("--warp 0:0 picks CTA 0 warp 0", all(x["cta"] == 0 and x["warp"] == 0 for x in docs["warp"]["executions"])),
]
import csv
for n in range(1, 5):  # --lanes --format csv: a header of 17 fields, then 32 rows of 17 per execution
    with open(os.path.join(out, "lanes-%d.csv" % n)) as f:
        rows = list(csv.reader(l for l in f if not l.startswith("#")))
    checks.append(("lanes csv %d" % n, rows[0][0] == "launch" and (len(rows) - 1) % 32 == 0 and len(rows) > 1
                   and all(len(r) == 17 for r in rows)))
bad = [name for name, ok in checks if not ok]
for name in bad:
    print("explain-cli: FAIL:", name, file=sys.stderr)
sys.exit(1 if bad else 0)
PY
else
    echo "explain-cli: python3 not found: JSON checks skipped" >&2
fi

# ---- csv -------------------------------------------------------------------------
"$BIN" explain --config $H200 traces/h200/readSegment_off11.trace --format csv > "$OUT/off11.csv"
grep -q '^launch,kernel,row,file,line,pc,sass,origin,metric,value$' "$OUT/off11.csv" || fail "csv header"
grep -q '^0,"readOffset(float\*, float\*, float\*, int, int)",instruction,/work/main/kernels/readSegment.cu,20,0x00d0,"LDG.E R3, desc\[UR4\]\[R2.64\]",source-view,L2 Theoretical Sectors Global Excessive,32767$' \
    "$OUT/off11.csv" || fail "csv row of 0x00d0"

# ---- tables fit 100 columns -----------------------------------------------------
for args in "traces/h200/bank_pad17.trace" "traces/h200/readSegment_off11.trace --pc 0x00d0 --lanes" \
    "traces/h200/local_array.trace --pc 0x01b0 --lanes" "traces/h200/filter21_float2.trace --line filter21.cu:70 --lanes"; do
    # shellcheck disable=SC2086
    "$BIN" explain --config $H200 $args > "$OUT/table.txt"
    wide=$(awk 'length > 100' "$OUT/table.txt" | head -1)
    [ -z "$wide" ] || fail "explain $args: a line wider than 100 columns: $wide"
done

# ---- bad selections: one line on stderr, exit 2 ---------------------------------
expect_error() { # expected text, then the arguments
    want=$1; shift
    rc=0
    "$BIN" explain "$@" > "$OUT/err.out" 2> "$OUT/err.txt" || rc=$?
    [ "$rc" -eq 2 ] || fail "explain $*: exit $rc, expected 2"
    [ "$(wc -l < "$OUT/err.txt")" -eq 1 ] || fail "explain $*: expected one line on stderr, got: $(cat "$OUT/err.txt")"
    grep -qF -- "$want" "$OUT/err.txt" || fail "explain $*: expected '$want' in: $(cat "$OUT/err.txt")"
    [ ! -s "$OUT/err.out" ] || fail "explain $*: wrote to stdout before failing"
}
T=traces/h200/readSegment_off11.trace
expect_error "--pc 0x00d4: launch 0 (readOffset(float*, float*, float*, int, int)) has no instruction at that offset (its memory instructions: 0x00d0 LDG.E, 0x0100 LDG.E, 0x0130 STG.E)" \
    --config $H200 $T --pc 0xd4
expect_error 'has "BAR.SYNC.DEFER_BLOCKING 0x0" there, not a memory instruction it executed' \
    --config $H200 traces/h200/filter21_float2.trace --pc 0x2f0
expect_error "--line readSegment.cu:21: no memory instruction of launch 0 is on that line (lines with memory instructions: readSegment.cu:20)" \
    --config $H200 $T --line readSegment.cu:21
expect_error "--line expects FILE:LINE, like readSegment.cu:20, got readSegment.cu" --config $H200 $T --line readSegment.cu
expect_error "--pc expects a hexadecimal offset from the kernel entry, like 0x0d0, got 208" --config $H200 $T --pc 208
expect_error "--warp expects CTA:WARP (flat CTA index, warp in the CTA), like 3:1, got 3:x" --config $H200 $T --pc 0xd0 --warp 3:x
expect_error "--warp 5000:0: launch 0 has CTAs 0..2047 of warps 0..15" --config $H200 $T --pc 0xd0 --warp 5000:0
expect_error "--warp 0:1: CTA 0 warp 1 never executed PC 0x0270 in launch 0" \
    --config $H200 traces/h200/filter21_float2.trace --pc 0x270 --warp 0:1
expect_error "--lanes needs the instruction: --pc 0xPC or --line FILE:LINE" --config $H200 $T --lanes
expect_error "no launch 3 (the launches replayed are 0 to 0)" --config $H200 $T --launch 3
expect_error "no kernel launch matches --kernel 'nosuchkernel'" --config $H200 $T --kernel nosuchkernel
expect_error "give --pc or --line, not both" --config $H200 $T --pc 0xd0 --line a.cu:1
expect_error "--format expects table, csv, json or html, got xml" --config $H200 $T --format xml
expect_error "--lanes reads the trace twice: give a file, not standard input" --config $H200 - --pc 0x10 --lanes
expect_error "--timing shows every instruction of the selected launches: drop --pc" --config $H200 $T --timing --pc 0xd0
expect_error "--timing writes a table or csv (--format table|csv)" --config $H200 $T --timing --format json
expect_error "--source-csv is an option of --timing" --config $H200 $T --source-csv x.csv
expect_error "--timing: configs/a100.ini has no [timing] section" --config configs/a100.ini $T --timing

# ---- --timing: where the warps wait ----------------------------------------------
# shares per instruction add up to 100 on each side (model, ncu's samples), the
# agreement is a percentage, and the csv form has its header and one row per
# instruction with cycles or samples
R=traces/h200/reduce_interleaved.trace
"$BIN" explain --config $H200 --timing $R > "$OUT/timing.txt"
grep -q "^agreement: [0-9]*% " "$OUT/timing.txt" || fail "explain --timing: no agreement line"
grep -q "from traces/h200/reduce_interleaved.source.csv (262 samples)" "$OUT/timing.txt" ||
    fail "explain --timing: the source view next to the trace was not read"
wide=$(awk 'length > 100' "$OUT/timing.txt" | head -1)
[ -z "$wide" ] || fail "explain --timing: a line wider than 100 columns: $wide"
"$BIN" explain --config $H200 --timing --format csv $R > "$OUT/timing.csv"
WHYS="model_selected_cycles,model_not_selected_cycles,model_wait_cycles,model_long_sb_cycles,model_short_sb_cycles"
WHYS="$WHYS,model_barrier_cycles,model_no_inst_cycles,model_branch_resolving_cycles,model_imc_cycles,model_drain_cycles"
head -1 "$OUT/timing.csv" | grep -qx "launch,kernel,pc,sass,line,model_warp_cycles,model_share_pct,ncu_samples,ncu_share_pct,$WHYS" ||
    fail "explain --timing --format csv: header"
# (fields from the end: the kernel's name holds commas) the shares add up to
# 100, and each row's cycles by reason to its cycles
awk -F, 'NR > 1 { m += $(NF-12); n += $(NF-10); w = 0; for (i = NF - 9; i <= NF; i++) w += $i; if (w != $(NF-13)) bad++ }
         END { if (m < 99.9 || m > 100.1 || n < 99.9 || n > 100.1 || bad) { print "shares " m " and " n ", " bad+0 " rows whose reasons do not add up"; exit 1 } }' \
    "$OUT/timing.csv" > "$OUT/timing.sum" || fail "explain --timing --format csv: $(cat "$OUT/timing.sum")"
grep -q "^  long_sb  *[0-9.]*  *[0-9.]*$" "$OUT/timing.txt" || fail "explain --timing: no long_sb row in the table by reason"
# the same without a source view: model shares only
cp traces/h200/reduce_interleaved.trace "$OUT/alone.trace"
"$BIN" explain --config $H200 --timing "$OUT/alone.trace" > "$OUT/alone.txt"
grep -q "no ncu source view next to the trace" "$OUT/alone.txt" || fail "explain --timing without a source view"
! grep -q "^agreement" "$OUT/alone.txt" || fail "explain --timing without a source view: an agreement line"

# ---- the tutorial's quoted output ----------------------------------------------
run_doc check || fails=$((fails + 1))

if [ "$fails" -ne 0 ]; then
    echo "explain-cli: $fails failure(s)" >&2
    exit 1
fi
echo "explain-cli: ok"
