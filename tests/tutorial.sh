#!/bin/sh
# tutorial.sh BIN [--bless]
# Re-runs every command docs/tutorial.md quotes and fails when its output is
# no longer what the document shows, so that the tutorial cannot rot. A
# ```console block holds one "$ COMMAND" line (build/gpumemsim is replaced by
# BIN), then the output quoted as it is, up to the closing fence. Commands run
# from the repository root with /bin/sh; stderr is quoted with stdout.
#
# --bless rewrites the quoted output from the current output instead; review
# the diff (`git diff docs/tutorial.md`) before committing: a changed number is
# a changed model, and the prose around it may need to change too.
set -eu
BIN=${1:?usage: tutorial.sh BIN [--bless]}
DOC=docs/tutorial.md
OUT=build/tutorial
mkdir -p "$OUT"
rm -f "$OUT"/block-*.want "$OUT"/block-*.got

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
                f = out "/block-" n
                printf "%s", want > (f ".want"); printf "%s", got > (f ".got")
                close(f ".want"); close(f ".got")
                print "tutorial: docs/tutorial.md block " n " (" cmd ") differs: diff " f ".want " f ".got" > "/dev/stderr"
                bad++
            }
            if (mode == "bless") print "```"
            inblock = 0; next
        }
        inblock { print "tutorial: docs/tutorial.md line " NR ": a console block must start with a \"$ \" line" > "/dev/stderr"; bad++ }
        { if (mode == "bless") print }
        END { if (mode == "bless") exit bad ? 1 : 0; print n " quoted commands" > "/dev/stderr"; exit bad ? 1 : 0 }
    ' "$DOC"
}

if [ "${2:-}" = "--bless" ]; then
    run_doc bless > "$OUT/tutorial.md.new"
    mv "$OUT/tutorial.md.new" "$DOC"
    echo "tutorial: rewrote the quoted output in $DOC (review: git diff $DOC)"
    exit 0
fi
if run_doc check; then
    echo "tutorial: ok"
else
    echo "tutorial: the quoted output of $DOC differs from what the commands print now (make bless-tutorial" \
         "rewrites it; review the diff)" >&2
    exit 1
fi
