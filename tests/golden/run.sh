#!/bin/sh
# run.sh - gpumemsim's golden end-to-end tests and its bad-input contract.
#
#   tests/golden/run.sh BIN            run every check; exit 1 if any fails
#   tests/golden/run.sh --update BIN   rewrite tests/golden/expected/ from BIN
#
# Golden cases (the table CASES below): each runs BIN on a committed input and
# compares its whole output byte for byte with tests/golden/expected/. Then:
#  - a hand-written trace (tests/golden/traces/) carries "#=" claims, each
#    number derived in the trace's comments from the measured rules; every
#    non-zero per-launch counter of the CSV must be claimed, every claim must
#    hold, and every total must be the sum of its launches
#    (tests/golden/README.md);
#  - a table or JSON report must hold the same numbers as the CSV report of
#    the same trace and config;
#  - the binary capture's report must equal the report of its own text dump.
# --update rewrites the expected files but still runs the claims: a changed
# number fails until the trace's derivation is redone.
#
# Bad input (bad_input below, inputs made at run time from committed files in
# a temporary folder): each case must exit 2 with exactly one line on stderr
# that names the file (and the line or record), and must not leave on stdout
# a report that reads as complete.
#
# Output: one line per failed check (with an excerpt below it), then a summary.
# GOLDEN_SHOW=1 also prints the error line of every bad-input case that passed.
set -u

usage() {
    echo "usage: tests/golden/run.sh [--update] BIN" >&2
    exit 2
}
UPDATE=0
if [ "${1:-}" = "--update" ]; then
    UPDATE=1
    shift
fi
[ $# -eq 1 ] || usage
BIN=$1
case $BIN in
/*) ;;
*) BIN=$(pwd)/$BIN ;;
esac
[ -x "$BIN" ] || { echo "golden: $BIN is not an executable" >&2; exit 2; }

# paths in the reports are relative to the repository root, as in the expected files
cd "$(dirname "$0")/../.." || exit 2
GOLDEN=tests/golden
EXPECTED=$GOLDEN/expected
LC_ALL=C
export LC_ALL
TMP=$(mktemp -d "${TMPDIR:-/tmp}/gpumemsim-golden.XXXXXX") || exit 2
trap 'rm -rf "$TMP"' EXIT
trap 'exit 1' INT TERM

checks=0
failed=0
updated=""

# fail NAME WHAT [FILE]: one line, then up to 12 lines of FILE indented
fail() {
    failed=$((failed + 1))
    printf 'FAIL %s: %s\n' "$1" "$2"
    if [ $# -ge 3 ] && [ -s "$3" ]; then
        head -n 12 "$3" | sed 's/^/    /'
    fi
}

# ---- golden cases ------------------------------------------------------------

# name          format  config                                   input
CASES='
global_loads    csv     configs/h200.ini                         tests/golden/traces/global_loads.txt
shared_banks    csv     configs/h200.ini                         tests/golden/traces/shared_banks.txt
atomics         csv     configs/h200.ini                         tests/golden/traces/atomics.txt
l1_reuse        csv     configs/h200.ini                         tests/golden/traces/l1_reuse.txt
l1_reuse        table   configs/h200.ini                         tests/golden/traces/l1_reuse.txt
l1_reuse        json    configs/h200.ini                         tests/golden/traces/l1_reuse.txt
k20c_4byte      csv     configs/k20c.ini                         tests/golden/traces/k20c_banks.txt
k20c_8byte      csv     tests/golden/configs/k20c-8byte.ini      tests/golden/traces/k20c_banks.txt
dram_ecc        csv     tests/golden/configs/h200-l2-1k.ini      tests/golden/traces/dram_writeback.txt
dram_noecc      csv     tests/golden/configs/h200-l2-1k-noecc.ini tests/golden/traces/dram_writeback.txt
capture         csv     configs/h200.ini                         traces/h200/matrixMul_tiny_naive.trace
capture         info    -                                        traces/h200/matrixMul_tiny_naive.trace
capture         dump    -                                        traces/h200/matrixMul_tiny_naive.trace
'

# produce FORMAT CONFIG INPUT OUT ERR: BIN's report (or trace info/dump) into OUT
produce() {
    case $1 in
    info) "$BIN" trace info "$3" > "$4" 2> "$5" ;;
    dump) "$BIN" trace dump "$3" > "$4" 2> "$5" ;;
    *) "$BIN" run --config "$2" "$3" --format "$1" > "$4" 2> "$5" ;;
    esac
}

extension() {
    case $1 in
    csv) echo csv ;;
    table) echo txt ;;
    json) echo json ;;
    info) echo info.txt ;;
    dump) echo dump.txt ;;
    esac
}

# check_claims CASE TRACE CSV: the trace's "#=" claims against the report
check_claims() {
    awk -v casename="$1" -v trace="$2" '
    function problem(msg) { print msg; bad = 1 }
    FNR == NR {
        if ($1 !~ /^#=/)
            next
        tag = substr($1, 3)
        if (tag != "") {
            if (substr(tag, 1, 1) != "@") {
                problem(trace ":" FNR ": a claim is \"#= LAUNCH METRIC VALUE\" or \"#=@CASE,... LAUNCH METRIC VALUE\"")
                next
            }
            n = split(substr(tag, 2), cs, ",")
            mine = 0
            for (k = 1; k <= n; k++)
                if (cs[k] == casename)
                    mine = 1
            if (!mine)
                next
        }
        if (NF < 4 || $2 !~ /^[0-9]+$/) {
            problem(trace ":" FNR ": a claim is \"#= LAUNCH METRIC VALUE\"")
            next
        }
        key = $2 SUBSEP $3
        if (key in claim)
            problem(trace ":" FNR ": launch " $2 " " $3 " claimed twice (also line " line[key] ")")
        claim[key] = $4
        line[key] = FNR
        next
    }
    /^#/ || /^kernel,launch,metric,value$/ { next }
    {
        n = split($0, f, ",")
        value = f[n]; metric = f[n - 1]; launch = f[n - 2]
        if (launch == "") {
            total[metric] = value
            order[++n_total] = metric
            next
        }
        if (metric !~ /\.pct$/)
            sum[metric] += value
        key = launch SUBSEP metric
        if (key in claim) {
            seen[key] = 1
            if (claim[key] != value)
                problem("launch " launch " " metric " = " value ", but " trace ":" line[key] " claims " claim[key])
        } else if (value + 0 != 0) {
            problem("launch " launch " " metric " = " value " is not claimed (justified) in " trace)
        }
    }
    END {
        for (key in claim)
            if (!(key in seen)) {
                split(key, part, SUBSEP)
                problem(trace ":" line[key] ": claims launch " part[1] " " part[2] ", which the report does not have")
            }
        for (i = 1; i <= n_total; i++) {
            m = order[i]
            if (m ~ /^smsp__sass_average_data_bytes_per_sector_mem_global_op_[a-z]+\.pct$/) {
                op = m
                sub(/^smsp__sass_average_data_bytes_per_sector_mem_global_op_/, "", op)
                sub(/\.pct$/, "", op)
                bytes = total["smsp__sass_data_bytes_mem_global_op_" op ".sum"]
                sectors = total["l1tex__t_sectors_pipe_lsu_mem_global_op_" op ".sum"]
                want = sectors > 0 ? sprintf("%.4f", 100 * bytes / (32 * sectors)) : "(none)"
            } else if (m ~ /\.pct$/) {
                problem("total " m ": run.sh does not know how this ratio is formed")
                continue
            } else {
                want = sprintf("%d", sum[m])
            }
            if (total[m] != want)
                problem("total " m " = " total[m] ", but its launches give " want)
        }
        exit bad
    }' "$2" "$3"
}

# launch/metric/value lines of a CSV report (as in the other formats: zero
# counters and the table's ratio precision where told)
csv_values() { # CSV MODE(json|table)
    awk -v mode="$2" '
    /^#/ || /^kernel,launch,metric,value$/ { next }
    {
        n = split($0, f, ",")
        launch = f[n - 2] == "" ? "total" : f[n - 2]
        value = f[n]
        if (mode == "table") {
            if (value + 0 == 0)
                next
            if (f[n - 1] ~ /\.pct$/)
                value = sprintf("%.2f", value)
        }
        print launch, f[n - 1], value
    }' "$1"
}

# shellcheck disable=SC2317 # called as "${fmt}_values"
json_values() {
    awk '
    /"launch": [0-9]+,/ { match($0, /"launch": [0-9]+/); launch = substr($0, RSTART + 10, RLENGTH - 10) }
    /^  "total": / { launch = "total" }
    /"metrics": \{/ { in_metrics = 1; next }
    in_metrics && /^ *\}/ { in_metrics = 0; next }
    in_metrics {
        line = $0
        gsub(/[ ",]/, "", line)
        split(line, kv, ":")
        print launch, kv[1], kv[2]
    }' "$1"
}

# shellcheck disable=SC2317 # called as "${fmt}_values"
table_values() {
    awk '
    /^== .*: launch [0-9]+: / { match($0, /: launch [0-9]+: /); launch = substr($0, RSTART + 9, RLENGTH - 11); next }
    /^== total over / { launch = "total"; next }
    /^  [a-z_0-9.]+ +[0-9.]+$/ && launch != "" { print launch, $1, $2 }' "$1"
}

golden() { # NAME FORMAT CONFIG INPUT
    name=$1 fmt=$2 config=$3 input=$4
    expected=$EXPECTED/$name.$(extension "$fmt")
    out=$TMP/$name.$fmt.out
    err=$TMP/$name.$fmt.err
    checks=$((checks + 1))
    produce "$fmt" "$config" "$input" "$out" "$err"
    rc=$?
    if [ $rc -ne 0 ] || [ -s "$err" ]; then
        fail "$name ($fmt)" "gpumemsim exited $rc on $input" "$err"
        return
    fi
    if [ $UPDATE -eq 1 ]; then
        if ! cmp -s "$out" "$expected"; then
            mkdir -p "$EXPECTED"
            cp "$out" "$expected"
            updated="$updated $expected"
        fi
    elif [ ! -f "$expected" ]; then
        fail "$name ($fmt)" "$expected is missing (tests/golden/run.sh --update BIN writes it)"
        return
    elif ! cmp -s "$expected" "$out"; then
        diff -u "$expected" "$out" > "$TMP/diff" 2>&1
        fail "$name ($fmt)" "output differs from $expected (- expected, + now)" "$TMP/diff"
        return
    fi
    case $input in
    "$GOLDEN"/traces/*)
        if [ "$fmt" = csv ]; then
            checks=$((checks + 1))
            if ! check_claims "$name" "$input" "$out" > "$TMP/claims"; then
                fail "$name" "the report and the claims (#=) in $input disagree" "$TMP/claims"
            fi
        else
            # the same numbers as the CSV report, which the claims check
            checks=$((checks + 1))
            produce csv "$config" "$input" "$TMP/$name.ref.csv" "$TMP/$name.ref.err"
            csv_values "$TMP/$name.ref.csv" "$fmt" > "$TMP/want"
            "${fmt}_values" "$out" > "$TMP/got"
            if ! diff "$TMP/want" "$TMP/got" > "$TMP/diff"; then
                fail "$name ($fmt)" "numbers differ from the CSV report (< csv, > $fmt)" "$TMP/diff"
            fi
        fi
        ;;
    *.trace)
        if [ "$fmt" = csv ]; then
            # the binary reader and the text reader give the same report
            checks=$((checks + 1))
            "$BIN" trace dump "$input" -o "$TMP/$name.txt" 2> "$err"
            produce csv "$config" "$TMP/$name.txt" "$TMP/$name.from-text.csv" "$err"
            if ! cmp -s "$out" "$TMP/$name.from-text.csv"; then
                diff -u "$out" "$TMP/$name.from-text.csv" > "$TMP/diff" 2>&1
                fail "$name" "the report of its text dump differs (- binary, + text)" "$TMP/diff"
            fi
        fi
        ;;
    esac
}

# check_variant BASE VARIANT SED: the variant config is BASE with the SED
# edits, comments aside, so that it follows BASE when BASE changes
check_variant() {
    checks=$((checks + 1))
    sed -e '/^;/d' -e 's/[[:space:]]*;.*$//' "$1" | sed "$3" > "$TMP/want"
    sed -e '/^;/d' -e 's/[[:space:]]*;.*$//' "$2" > "$TMP/got"
    if ! diff "$TMP/want" "$TMP/got" > "$TMP/diff"; then
        fail "config $2" "is no longer $1 with: $3 (< expected, > found)" "$TMP/diff"
    fi
}

run_golden() {
    check_variant configs/k20c.ini $GOLDEN/configs/k20c-8byte.ini 's/^bank_mode_bytes = 4$/bank_mode_bytes = 8/'
    l2_1k='s/^size_bytes = .*/size_bytes = 1024/;s/^partitions = .*/partitions = 1/;s/^slices = .*/slices = 1/'
    l2_1k="$l2_1k;s/^sets_per_slice = .*/sets_per_slice = 8/;/^\[l2\]/,/^ecc = /s/^ways = .*/ways = 1/"
    l2_1k="$l2_1k;/^\[l2\]/,/^ecc = /s/^set_index = .*/set_index = linear/"
    l2_1k="$l2_1k;s/^placement = .*/placement = granule/;s/^dirty_ways = .*/dirty_ways = 0/"
    l2_1k="$l2_1k;s/^dirty_recent_ways = .*/dirty_recent_ways = 0/"
    l2_1k="$l2_1k;s/^gpc_partition = .*/gpc_partition = 00000000/"
    check_variant configs/h200.ini $GOLDEN/configs/h200-l2-1k.ini "$l2_1k"
    check_variant configs/h200.ini $GOLDEN/configs/h200-l2-1k-noecc.ini "$l2_1k;s/^ecc = true$/ecc = false/"
    echo "$CASES" | while read -r name fmt config input; do
        [ -n "$name" ] && printf '%s %s %s %s\n' "$name" "$fmt" "$config" "$input"
    done > "$TMP/cases"
    while read -r name fmt config input; do
        golden "$name" "$fmt" "$config" "$input"
    done < "$TMP/cases"
}

# ---- bad input ----------------------------------------------------------------

# Markers of a finished report: none may be on stdout after bad input.
COMPLETE='^total,|^== total over|"total": [{]|^  complete$|^end trace kernels=[0-9]+ complete$|values within tolerance|^# [0-9]+ launches, [0-9]+ counts compared'

# bad NAME 'NEEDLE|...' CMD...: exit 2, one line on stderr, gpumemsim's, that
# contains every needle (a fixed string, or after ~ a shell pattern), and no
# complete report on stdout (run and validate must also say it is incomplete).
# Written with few processes: the suite runs it a hundred times.
bad() {
    name=$1 needles=$2
    shift 2
    checks=$((checks + 1))
    "$@" > "$TMP/out" 2> "$TMP/err"
    rc=$?
    if [ $rc -ne 2 ]; then
        fail "bad input: $name" "exit $rc, expected 2" "$TMP/err"
        return
    fi
    first='' second=''
    if ! { IFS= read -r first && ! IFS= read -r second && [ -z "$second" ]; } < "$TMP/err"; then
        fail "bad input: $name" "stderr is not exactly one line" "$TMP/err"
        return
    fi
    case $first in
    "gpumemsim: "*) ;;
    *)
        fail "bad input: $name" "stderr is not gpumemsim's error line" "$TMP/err"
        return
        ;;
    esac
    rest=$needles
    while [ -n "$rest" ]; do
        needle=${rest%%|*}
        case $rest in
        *"|"*) rest=${rest#*|} ;;
        *) rest= ;;
        esac
        ok=0
        case $needle in
        "~"*)
            pattern=${needle#"~"}
            # shellcheck disable=SC2254
            case $first in $pattern) ok=1 ;; esac
            ;;
        *)
            case $first in *"$needle"*) ok=1 ;; esac
            ;;
        esac
        if [ $ok -eq 0 ]; then
            fail "bad input: $name" "stderr does not name '$needle'" "$TMP/err"
            return
        fi
    done
    verdict=$(awk -v complete="$COMPLETE" -v report="${2:-}" '
        $0 ~ complete { found = 1 }
        /^# ERROR: |"error": / { marked = 1 }
        END {
            if (found)
                print "stdout holds a report that reads as complete"
            else if (NR > 0 && !marked && (report == "run" || report == "validate"))
                print "stdout has part of a report without saying it is incomplete"
        }' "$TMP/out")
    if [ -n "$verdict" ]; then
        fail "bad input: $name" "$verdict" "$TMP/out"
    elif [ -n "${GOLDEN_SHOW:-}" ]; then
        printf 'ok   %s: %s\n' "$name" "$first"
    fi
}

# expect_rc NAME RC CMD...: a well-formed input gives exit RC (0, or 1 for a
# failed validation) and nothing on stderr
expect_rc() {
    name=$1 want=$2
    shift 2
    checks=$((checks + 1))
    "$@" > "$TMP/out" 2> "$TMP/err"
    rc=$?
    if [ $rc -ne "$want" ]; then
        fail "$name" "exit $rc, expected $want" "$TMP/err"
    elif [ -s "$TMP/err" ]; then
        fail "$name" "unexpected stderr" "$TMP/err"
    fi
}

# flip SRC DST OFFSET MASK: DST = SRC with byte OFFSET xor MASK
flip() {
    cp "$1" "$2"
    byte=$(od -An -tu1 -j "$3" -N 1 "$1" | tr -d ' ')
    # shellcheck disable=SC2059 # the format is the octal escape of the byte
    printf "$(printf '\\%03o' $((byte ^ $4)))" | dd of="$2" bs=1 seek="$3" conv=notrunc 2> /dev/null
}

# bytes N SEED: N pseudo-random bytes, the same on every machine (Park-Miller)
bytes() {
    awk -v n="$1" -v x="$2" 'BEGIN {
        for (i = 0; i < n; i++) {
            x = (x * 16807) % 2147483647
            printf "\\%03o", x % 256
        }
    }' > "$TMP/octal"
    # shellcheck disable=SC2059 # the format is the octal escapes
    printf "$(cat "$TMP/octal")"
}

# line_of FILE ERE: number of the first line matching
line_of() {
    grep -nE -- "$2" "$1" | head -n 1 | cut -d: -f1
}

bad_input() {
    B=$TMP/bad
    mkdir -p "$B"
    H=configs/h200.ini
    SMALL=traces/h200/matrixMul_tiny_naive.trace   # 1031 bytes, one zstd block (traces/recompress.sh leaves it)
    BIG=traces/h200/transpose_naive.trace          # 244 KB, many blocks, exact in validate
    TEXT=tests/golden/traces/l1_reuse.txt

    # the inputs below are corrupted copies of these, which are good
    expect_rc "good input: run $SMALL" 0 "$BIN" run --config "$H" "$SMALL"
    expect_rc "good input: run $TEXT" 0 "$BIN" run --config "$H" "$TEXT"
    # -o - is standard output (run, validate, explain, as the trace commands),
    # not a file named "-"; a timeline on it beside the report is refused
    for cmd in run validate explain; do
        "$BIN" $cmd --config "$H" "$SMALL" > "$B/stdout.txt" 2> /dev/null
        expect_rc "good input: $cmd -o -" $? "$BIN" $cmd --config "$H" -o - "$SMALL"
        checks=$((checks + 1))
        cmp -s "$TMP/out" "$B/stdout.txt" || fail "$cmd -o -" "not what $cmd writes without -o" "$TMP/out"
        checks=$((checks + 1))
        [ ! -e ./- ] || fail "$cmd -o -" "wrote a file named -"
    done
    bad "run --timeline - with the report on standard output" "--timeline -|standard output" \
        "$BIN" run --config "$H" --timing --timeline - "$SMALL"

    # -- traces: every reader path (run, trace info, trace dump)
    : > "$B/empty.trace"
    bytes 1000 20240601 > "$B/random.trace"
    head -c 16 "$SMALL" > "$B/random-after-header.trace"
    bytes 1000 777 >> "$B/random-after-header.trace"
    head -c 16 "$SMALL" > "$B/header-only.trace"
    head -c 17 "$SMALL" > "$B/cut17.trace"
    head -c 500 "$SMALL" > "$B/cut500.trace"
    head -c 1030 "$SMALL" > "$B/cut1030.trace"
    head -c 150000 "$BIG" > "$B/cut150000.trace"
    for t in empty random; do
        for cmd in "run --config $H" "trace info" "trace dump"; do
            # shellcheck disable=SC2086
            bad "$cmd $t" "$B/$t.trace" "$BIN" $cmd "$B/$t.trace"
        done
    done
    for t in random-after-header header-only cut17 cut500; do
        for cmd in "run --config $H --format csv" "trace info" "trace dump"; do
            # shellcheck disable=SC2086
            bad "$cmd $t" "$B/$t.trace|~*record [0-9]*: *" "$BIN" $cmd "$B/$t.trace"
        done
    done

    # cut before the frame's checksum: no record is at fault
    bad "run cut1030" "$B/cut1030.trace|truncated" "$BIN" run --config "$H" "$B/cut1030.trace"
    bad "trace info cut1030" "$B/cut1030.trace|truncated" "$BIN" trace info "$B/cut1030.trace"
    # cut inside a record deep in the stream, after reports of nothing yet
    bad "run cut150000" "$B/cut150000.trace|~*record [0-9]*: truncated*" "$BIN" run --config "$H" "$B/cut150000.trace" --format csv

    # bit flips: header (magic, version, flags) and compressed payload (frame
    # header, blocks, checksum); in BIG, flips that decode into bad records
    flip "$SMALL" "$B/flip0.trace" 0 1
    flip "$SMALL" "$B/flip8.trace" 8 1
    flip "$SMALL" "$B/flip12.trace" 12 1
    flip "$SMALL" "$B/flip15.trace" 15 128
    for t in flip0 flip8 flip12 flip15; do
        bad "run $t (header)" "$B/$t.trace" "$BIN" run --config "$H" "$B/$t.trace"
    done
    bad "trace info flip8 (header)" "$B/flip8.trace" "$BIN" trace info "$B/flip8.trace"
    for o in 16 17 40 300 1000 1030; do
        flip "$SMALL" "$B/flip$o.trace" $o 1
        bad "run flip$o (payload)" "$B/flip$o.trace|~*record [0-9]*: *" "$BIN" run --config "$H" "$B/flip$o.trace" --format json
    done
    for o in 40 1030; do
        bad "trace dump flip$o (payload)" "$B/flip$o.trace|~*record [0-9]*: *" "$BIN" trace dump "$B/flip$o.trace"
    done
    # BIG: flips that decode into bad records (sm out of range at record
    # 2276, a misaligned lane address at record 21810) before the checksum
    for o in 1000 200000; do
        flip "$BIG" "$B/big-flip$o.trace" $o 1
        bad "run big-flip$o (payload)" "$B/big-flip$o.trace|~*record [0-9]*: *" "$BIN" run --config "$H" "$B/big-flip$o.trace" --format csv
    done
    # a failed dump ends its text "incomplete" on stdout, and removes its -o file
    bad "trace dump big-flip200000" "$B/big-flip200000.trace|~*record [0-9]*: *" "$BIN" trace dump "$B/big-flip200000.trace"
    checks=$((checks + 1))
    if ! tail -n 1 "$TMP/out" | grep -q '^end trace kernels=[0-9]* incomplete '; then
        fail "bad input: trace dump big-flip200000" "the partial dump does not end marked incomplete" "$TMP/out"
    fi
    bad "trace dump -o big-flip200000" "$B/big-flip200000.trace|~*record [0-9]*: *" \
        "$BIN" trace dump "$B/big-flip200000.trace" -o "$B/dump.txt"
    checks=$((checks + 1))
    if [ -e "$B/dump.txt" ]; then
        fail "bad input: trace dump -o" "a failed dump left $B/dump.txt"
    fi
    # a failed report written with -o says it is incomplete
    bad "run -o flip40" "$B/flip40.trace" "$BIN" run --config "$H" "$B/flip40.trace" -o "$B/report.txt"
    checks=$((checks + 1))
    if ! grep -q '^# ERROR: report incomplete: ' "$B/report.txt" 2> /dev/null; then
        fail "bad input: run -o" "$B/report.txt does not say the report is incomplete" "$B/report.txt"
    fi

    # a newer format version, binary and text
    flip "$SMALL" "$B/version2.trace" 8 3
    bad "run binary version 2" "$B/version2.trace|version 2 is newer" "$BIN" run --config "$H" "$B/version2.trace"
    sed '1s/^gpumemsim-trace 1$/gpumemsim-trace 2/' "$TEXT" > "$B/version2.txt"
    bad "run text version 2" "$B/version2.txt:1:|version 2 is newer" "$BIN" run --config "$H" "$B/version2.txt"

    # text traces: a malformed line, an unknown key, a cut, CRLF line ends
    n=$(line_of "$TEXT" '^ld global ')
    sed "${n}s/ warp=0 / warp=zero /" "$TEXT" > "$B/malformed.txt"
    bad "run text malformed line $n" "$B/malformed.txt:$n:" "$BIN" run --config "$H" "$B/malformed.txt"
    bad "trace info text malformed line $n" "$B/malformed.txt:$n:" "$BIN" trace info "$B/malformed.txt"
    sed "${n}s/ warp=0 / wrap=0 /" "$TEXT" > "$B/unknown-key.txt"
    bad "run text unknown key line $n" "$B/unknown-key.txt:$n:|wrap" "$BIN" run --config "$H" "$B/unknown-key.txt"
    n=$(line_of "$TEXT" '^end kernel ')
    head -n "$n" "$TEXT" > "$B/cut.txt"
    bad "run text cut after line $n" "$B/cut.txt|line $n" "$BIN" run --config "$H" "$B/cut.txt" --format csv
    sed 's/$/\r/' "$TEXT" > "$B/crlf.txt"
    bad "run text CRLF" "$B/crlf.txt:1:" "$BIN" run --config "$H" "$B/crlf.txt"

    # missing files
    bad "run missing trace" "$B/missing.trace" "$BIN" run --config "$H" "$B/missing.trace"
    bad "trace info missing trace" "$B/missing.trace" "$BIN" trace info "$B/missing.trace"
    bad "run missing config" "$B/missing.ini" "$BIN" run --config "$B/missing.ini" "$SMALL"
    bad "validate missing capture" "$B/missing.trace" "$BIN" validate --config "$H" "$B/missing.trace"
    bad "trace check missing CSV" "$B/missing.ncu.csv" "$BIN" trace check "$SMALL" "$B/missing.ncu.csv"

    # -- configs, from configs/h200.ini: a misspelt key, impossible geometry
    expect_rc "good input: config check $H" 0 "$BIN" config check "$H"
    n=$(line_of "$H" '^sets = ')
    sed "${n}s/^sets = /setz = /" "$H" > "$B/misspelt.ini"
    bad "run config misspelt key" "$B/misspelt.ini:$n:|setz" "$BIN" run --config "$B/misspelt.ini" "$SMALL"
    bad "config check misspelt key" "$B/misspelt.ini:$n:|setz" "$BIN" config check "$B/misspelt.ini"
    sed "${n}s/^sets = 512/sets = 48/" "$H" > "$B/sets48.ini"
    bad "run config l1 sets 48" "$B/sets48.ini:$n:|sets" "$BIN" run --config "$B/sets48.ini" "$SMALL"
    n=$(line_of "$H" '^line_bytes = ')
    sed "${n}s/^line_bytes = 128/line_bytes = 100/" "$H" > "$B/l1-line100.ini"
    bad "run config l1 line 100" "$B/l1-line100.ini:$n:|line_bytes" "$BIN" run --config "$B/l1-line100.ini" "$SMALL"
    n=$(line_of "$H" '^sets_per_slice = ')
    sed "${n}s/^sets_per_slice = 256/sets_per_slice = 200/" "$H" > "$B/l2-sets200.ini"
    bad "validate config l2 sets 200" "$B/l2-sets200.ini:$n:|sets_per_slice" "$BIN" validate --config "$B/l2-sets200.ini" "$BIG"
    : > "$B/empty.ini"
    bad "run empty config" "$B/empty.ini" "$BIN" run --config "$B/empty.ini" "$SMALL"

    # -- validate: a CSV of another GPU; a value off by one
    mkdir -p "$B/good" "$B/a100" "$B/h100" "$B/off" "$B/cut"
    for d in good a100 h100 off cut; do
        cp "$BIG" "$B/$d/x.trace"
    done
    CSV=${BIG%.trace}.ncu.csv
    cp "$CSV" "$B/good/x.ncu.csv"
    sed 's/"NVIDIA H200"/"NVIDIA A100-SXM4-80GB"/; s/,"9\.0",/,"8.0",/' "$CSV" > "$B/a100/x.ncu.csv"
    sed 's/"NVIDIA H200"/"NVIDIA H100 80GB HBM3"/' "$CSV" > "$B/h100/x.ncu.csv"
    METRIC=l1tex__t_sectors_pipe_lsu_mem_global_op_ld.sum
    sed "s/\"$METRIC\",\"sector\",\"65,536\"/\"$METRIC\",\"sector\",\"65,537\"/" "$CSV" > "$B/off/x.ncu.csv"
    sed 's/"smsp__inst_executed_op_global_ld_pred_on_any.sum","inst","16,384"/"smsp__inst_executed_op_global_ld_pred_on_any.sum","inst","16,385"/' \
        "$B/off/x.ncu.csv" > "$B/off/y.ncu.csv"
    n=$(line_of "$CSV" "\"$METRIC\"")
    head -n $((n - 1)) "$CSV" > "$B/cut/x.ncu.csv"
    sed -n "${n}p" "$CSV" | cut -c1-100 >> "$B/cut/x.ncu.csv"
    expect_rc "good input: validate $B/good/x.trace" 0 "$BIN" validate --config "$H" "$B/good/x.trace"
    expect_rc "good input: trace check $B/good/x.trace" 0 "$BIN" trace check "$B/good/x.trace" "$B/good/x.ncu.csv"
    bad "validate CSV of an A100" "$B/a100/x.ncu.csv|8.0" "$BIN" validate --config "$H" "$B/a100/x.trace"
    bad "validate --format csv, CSV of an A100" "$B/a100/x.ncu.csv" "$BIN" validate --config "$H" "$B/a100/x.trace" --format csv
    bad "validate CSV of an H100" "$B/h100/x.ncu.csv|NVIDIA H100" "$BIN" validate --config "$H" "$B/h100"
    bad "validate CSV cut inside a row" "$B/cut/x.ncu.csv:$n:" "$BIN" validate --config "$H" "$B/cut/x.trace"
    checks=$((checks + 1))
    [ "$(grep -c '"65,537"' "$B/off/x.ncu.csv")" -eq 1 ] || fail "bad input: doctored CSV" "the sed did not change one value"
    expect_rc "validate, one value off by one" 1 "$BIN" validate --config "$H" "$B/off/x.trace" --format csv
    checks=$((checks + 1))
    if [ "$(grep -c ',FAIL$' "$TMP/out")" -ne 1 ] || ! grep -q ",0,$METRIC,65537,65536,.*,FAIL$" "$TMP/out"; then
        fail "validate, one value off by one" "expected exactly the row of $METRIC to fail" "$TMP/out"
    fi
    expect_rc "trace check, one count off by one" 1 "$BIN" trace check "$B/off/x.trace" "$B/off/y.ncu.csv"

    # -- command lines
    bad "no command" "no command" "$BIN"
    bad "unknown command" "frobnicate" "$BIN" frobnicate
    bad "help of an unknown command" "frobnicate" "$BIN" help frobnicate
    bad "version with an argument" "extra" "$BIN" version extra
    bad "run unknown option" "--bogus" "$BIN" run --bogus --config "$H" "$SMALL"
    bad "run --config without its file" "--config" "$BIN" run --config
    bad "run --format without its value" "--format" "$BIN" run --config "$H" "$SMALL" --format
    bad "run --format xml" "xml" "$BIN" run --config "$H" "$SMALL" --format xml
    bad "run -o without its file" "-o" "$BIN" run --config "$H" "$SMALL" -o
    bad "run without a trace" "no trace" "$BIN" run --config "$H"
    bad "run without --config" "--config" "$BIN" run "$SMALL"
    bad "run --kernel with a bad regex" "regular expression" "$BIN" run --config "$H" --kernel '(' "$SMALL"
    bad "validate --kernel with a bad regex" "regular expression" "$BIN" validate --config "$H" --kernel '(' "$SMALL"
    bad "run -o into a missing folder" "No such file" "$BIN" run --config "$H" "$SMALL" -o /nonexistent-dir/x.csv
    bad "validate unknown option" "--bogus" "$BIN" validate --bogus
    bad "validate --config without its file" "--config" "$BIN" validate --config
    bad "trace without a subcommand" "trace" "$BIN" trace
    bad "trace unknown subcommand" "frobnicate" "$BIN" trace frobnicate
    bad "trace info unknown option" "--bogus" "$BIN" trace info --bogus "$SMALL"
    bad "trace dump without a trace" "no trace" "$BIN" trace dump
    bad "trace dump -o without its file" "-o" "$BIN" trace dump "$SMALL" -o
    bad "trace check with one argument" "trace check" "$BIN" trace check "$SMALL"
    bad "config without a subcommand" "config" "$BIN" config
    bad "config unknown subcommand" "frobnicate" "$BIN" config frobnicate
    bad "config dump of two files" "dump" "$BIN" config dump "$H" "$H"
}

run_golden
bad_input

if [ $UPDATE -eq 1 ]; then
    if [ -n "$updated" ]; then
        echo "golden: rewrote$updated"
        echo "golden: re-justify every changed number in the trace's comments (tests/golden/README.md)"
    else
        echo "golden: expected files already up to date"
    fi
fi
if [ $failed -ne 0 ]; then
    echo "golden: $failed of $checks checks FAILED"
    exit 1
fi
echo "golden: all $checks checks passed"
exit 0
