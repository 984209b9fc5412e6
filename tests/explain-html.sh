#!/bin/sh
# explain-html.sh BIN
# End-to-end checks of `gpumemsim explain --format html`: the page is
# well-formed (python3's html.parser, every element closed in order), every
# source-view number and every lane of the grids equals what `explain --format
# csv` prints for the same trace, hostile names are escaped, --max-lanes-views
# and --source-dir do what they say (with the report-wide limit of lane views),
# and bad arguments get one line on stderr and exit code 2.
set -eu
BIN=${1:?usage: explain-html.sh BIN}
H200=configs/h200.ini
OUT=build/explain-html
rm -rf "$OUT"
mkdir -p "$OUT/src/sub"
fails=0
fail() { echo "explain-html: FAIL: $*" >&2; fails=$((fails + 1)); }

if ! command -v python3 >/dev/null 2>&1; then
    echo "explain-html: python3 not found: the HTML checks need it (apt-get install python3)" >&2
    exit 1
fi

# ---- a hostile text trace: markup in the kernel name, the SASS, the file path and the source ----
cat > "$OUT/hostile.txt" <<'EOF'
gpumemsim-trace 1
kernel launch=0 grid=2,1,1 block=64,1,1 name="_Z4evilv" demangled="evil<int, \"q\"> & <script>alert('x')</script>"
file 0 "/nonexistent/</td><b>x/sub/hostile.cu"
pc 0x0010 "LDG.E <R2> & \"R3\"" src=0:3
pc 0x0020 "STS [R1], R2" src=0:4
ld global 4 cta=0 warp=0 pc=0x10 mask=0xffffffff base=0x7f0000000004 stride=4
st shared 4 cta=0 warp=1 pc=0x20 mask=0xffffffff base=0x0 stride=8
ld global 4 cta=1 warp=0 pc=0x10 mask=0x0000ffff base=0x7f0000001000 stride=4
end kernel mem=3 bar=0
end trace kernels=1 complete
EOF
printf '%s\n' '// hostile.cu' '__global__ void evil() {' '    float x = a[i] < b[j] && c > 0 ? 1 : 0; // <b>bold?</b>' \
    '    s[2 * tid] = x;' '}' > "$OUT/src/sub/hostile.cu"

# ---- many launches: the report-wide limit of lane views (1024) ----
awk 'BEGIN {
    print "gpumemsim-trace 1"
    for (k = 0; k < 20; k++) {
        printf "kernel launch=%d grid=1,1,1 block=32,1,1 name=\"many%d\"\n", k, k
        for (p = 0; p < 64; p++)
            printf "ld global 4 cta=0 warp=0 pc=0x%x mask=0xffffffff base=0x7f%08x stride=4\n", 16 * (p + 1), 4096 * p
        print "end kernel mem=64 bar=0"
    }
    print "end trace kernels=20 complete"
}' > "$OUT/many.txt"

# ---- render ----
render() { # name, then explain's arguments
    name=$1; shift
    if ! "$BIN" explain "$@" --format html -o "$OUT/$name.html" 2> "$OUT/$name.err"; then
        fail "explain $* --format html: exit $?: $(cat "$OUT/$name.err")"
        : > "$OUT/$name.html"
    fi
}
csv() { # name, then explain's arguments
    name=$1; shift
    "$BIN" explain "$@" --format csv > "$OUT/$name.csv" || fail "explain $* --format csv: exit $?"
}
for t in readSegment_off11 bank_stride4 bank_pad17 local_array transpose_shared matrixMul_tiled16; do
    render "$t" --config $H200 traces/h200/$t.trace --source-dir kernels
    csv "$t" --config $H200 traces/h200/$t.trace
done
render filter21_k20c --config configs/k20c.ini traces/h200/filter21_float2.trace
csv filter21_k20c --config configs/k20c.ini traces/h200/filter21_float2.trace
# the lanes of a few instructions, to compare with the grids
csv lanes-off11 --config $H200 traces/h200/readSegment_off11.trace --pc 0x00d0 --lanes
csv lanes-stride4 --config $H200 traces/h200/bank_stride4.trace --pc 0x0310 --lanes
csv lanes-pad17 --config $H200 traces/h200/bank_pad17.trace --pc 0x0480 --lanes
csv lanes-local --config $H200 traces/h200/local_array.trace --pc 0x01b0 --lanes
csv lanes-k20c --config configs/k20c.ini traces/h200/filter21_float2.trace --pc 0x0330 --lanes
render stride4-max3 --config $H200 traces/h200/bank_stride4.trace --max-lanes-views 3
render stride4-max0 --config $H200 traces/h200/bank_stride4.trace --max-lanes-views 0
render stride4-line --config $H200 traces/h200/bank_stride4.trace --line bankConflict.cu:63
render off11-warp --config $H200 traces/h200/readSegment_off11.trace --warp 5:3 --pc 0x0d0
csv lanes-warp --config $H200 traces/h200/readSegment_off11.trace --warp 5:3 --pc 0x0d0
render hostile-nosrc --config $H200 "$OUT/hostile.txt"
render hostile-src --config $H200 "$OUT/hostile.txt" --source-dir "$OUT/src"
render many --config $H200 "$OUT/many.txt"
render empty --config $H200 traces/h200/empty_1cta.trace

python3 - "$OUT" <<'PY' || fails=$((fails + 1))
import csv, html, os, re, sys
from html.parser import HTMLParser
out = sys.argv[1]
VOID = {"meta", "br", "hr", "img", "link", "input", "wbr", "col", "area", "base", "source", "track", "embed"}
bad = []
def check(name, ok):
    if not ok:
        bad.append(name)

class Page(HTMLParser):
    """Well-formedness (every element closed, in order) and what the tests look at."""
    def __init__(self):
        super().__init__(convert_charrefs=True)
        self.stack, self.errors, self.tags = [], [], {}
        self.tables, self.grids, self.articles, self.whys = [], {}, [], {}
        self.text, self.cur_table, self.cur_row, self.cur_cell = [], None, None, None
        self.cur_article, self.in_why, self.cur_grid = None, False, None
        self.scripts = 0
    def handle_starttag(self, tag, attrs):
        a = dict(attrs)
        self.tags[tag] = self.tags.get(tag, 0) + 1
        if tag == "script" or any(k.startswith("on") for k in a):
            self.scripts += 1
        if tag in VOID:
            return
        self.stack.append(tag)
        if tag == "table":
            self.cur_table = {"class": a.get("class"), "data-class": a.get("data-class"), "head": [], "rows": [],
                              "article": self.cur_article}
            if a.get("class") == "grid":
                self.cur_grid = []
                self.grids[self.cur_article] = self.cur_grid
        elif tag == "tr" and self.cur_table is not None:
            self.cur_row = {"attrs": a, "cells": []}
        elif tag in ("td", "th") and self.cur_row is not None:
            self.cur_cell = {"attrs": a, "text": ""}
            if self.cur_grid is not None and tag == "td":
                self.cur_grid.append(self.cur_cell)
        elif tag == "article":
            self.cur_article = a.get("data-pc")
            self.articles.append(a)
        elif tag == "div" and a.get("class") == "why":
            self.in_why = True
            self.whys[self.cur_article] = []
        elif tag == "p" and self.in_why:
            self.whys[self.cur_article].append("")
    def handle_endtag(self, tag):
        if tag in VOID:
            return
        if not self.stack or self.stack[-1] != tag:
            self.errors.append("</%s> at line %d closes <%s>" % (tag, self.getpos()[0],
                               self.stack[-1] if self.stack else "nothing"))
            return
        self.stack.pop()
        if tag in ("td", "th") and self.cur_cell is not None:
            self.cur_row["cells"].append(self.cur_cell)
            self.cur_cell = None
        elif tag == "tr" and self.cur_row is not None:
            if self.stack and self.stack[-1] == "thead":
                self.cur_table["head"] = [c["text"] for c in self.cur_row["cells"]]
            else:
                self.cur_table["rows"].append(self.cur_row)
            self.cur_row = None
        elif tag == "table":
            self.tables.append(self.cur_table)
            self.cur_table, self.cur_grid = None, None
        elif tag == "article":
            self.cur_article = None
        elif tag == "div" and self.in_why:
            self.in_why = False
    def handle_data(self, data):
        self.text.append(data)
        if self.cur_cell is not None:
            self.cur_cell["text"] += data
        if self.in_why and self.whys[self.cur_article] and self.stack[-1] == "p":
            self.whys[self.cur_article][-1] += data

def page(name):
    path = os.path.join(out, name + ".html")
    raw = open(path, "rb").read()
    p = Page()
    p.feed(raw.decode("utf-8"))  # also: the page is valid UTF-8
    p.close()
    p.raw = raw.decode("utf-8")
    check(name + ": well-formed (" + "; ".join(p.errors[:3]) + ")", not p.errors)
    check(name + ": every element closed (open: %s)" % p.stack, not p.stack)
    check(name + ": starts with <!DOCTYPE html>", p.raw.startswith("<!DOCTYPE html>\n<html"))
    check(name + ": no script, no event handler", p.scripts == 0)
    check(name + ": no external asset", not re.search(r'(src|href)="(?!#)', p.raw))
    return p

def csv_rows(name):
    with open(os.path.join(out, name + ".csv")) as f:
        return list(csv.reader(l for l in f if not l.startswith("#")))

def num(text):
    return float(text.replace(",", ""))

# 1. Every number of the source view's instruction rows equals the csv's, and
#    the source lines whose instructions all sit in one table equal its line rows.
def compare_source_view(name):
    p = page(name)
    rows = csv_rows(name)
    want, want_line = {}, {}
    for r in rows[1:]:
        launch, kernel, row, file, line, pc, sass, origin, metric, value = r
        if origin != "source-view":
            continue
        if row == "instruction":
            want[(pc, metric)] = float(value)
        else:
            want_line[(os.path.basename(file) + ":" + line, metric)] = float(value)
    seen = 0
    line_tables = {}
    for t in p.tables:
        if t["class"] != "sv":
            continue
        for r in t["rows"]:
            if r["attrs"].get("class") == "line":
                line_tables.setdefault(r["cells"][0]["text"], []).append(t["data-class"])
    for t in p.tables:
        if t["class"] != "sv":
            continue
        head = t["head"]
        for r in t["rows"]:
            cells = r["cells"]
            if r["attrs"].get("class") == "pc":
                pc = r["attrs"]["data-pc"]
                for i, col in enumerate(head[2:-1], start=2):
                    got, exp = num(cells[i]["text"]), want.get((pc, col))
                    seen += 1
                    if exp is None or abs(got - exp) > 0.005:
                        bad.append("%s: %s %s: html %s, csv %s" % (name, pc, col, cells[i]["text"], exp))
            elif len(line_tables[cells[0]["text"]]) == 1:
                where = cells[0]["text"]
                for i, col in enumerate(head[2:-1], start=2):
                    got, exp = num(cells[i]["text"]), want_line.get((where, col))
                    if exp is None or abs(got - exp) > 0.005:
                        bad.append("%s: line %s %s: html %s, csv %s" % (name, where, col, cells[i]["text"], exp))
    check(name + ": some source-view numbers compared", seen >= 5)
    return p

pages = {}
for name in ("readSegment_off11", "bank_stride4", "bank_pad17", "local_array", "transpose_shared",
             "matrixMul_tiled16", "filter21_k20c"):
    pages[name] = compare_source_view(name)

# a few exact numbers, as the table prints them
def pc_row(p, pc):
    for t in p.tables:
        if t["class"] == "sv":
            for r in t["rows"]:
                if r["attrs"].get("data-pc") == pc:
                    return dict(zip(t["head"], [c["text"] for c in r["cells"]])), r
    return {}, None
row, r = pc_row(pages["readSegment_off11"], "0x00d0")
check("off11 0x00d0: 163,838 sectors, 32,767 excessive (ncu's numbers)",
      row.get("L2 Theoretical Sectors Global") == "163,838" and row.get("L2 Theoretical Sectors Global Excessive") == "32,767")
check("off11 0x00d0: excessive sectors are heat-coloured (20% of 163,838: level 1)",
      r is not None and r["cells"][6]["attrs"]["class"] == "n h1")
row, r = pc_row(pages["bank_stride4"], "0x0310")
check("stride4 0x0310: 8,448 wavefronts, 4.00-way", row.get("L1 Wavefronts Shared") == "8,448"
      and row.get("L1 Conflicts Shared N-Way") == "4.00")
check("stride4 0x0310: a 4-way conflict is heat level 4", r is not None and r["cells"][6]["attrs"]["class"] == "n h4")
row, r = pc_row(pages["bank_pad17"], "0x0480")
check("pad17 0x0480: the padded store is 2-way, heat level 3", row.get("L1 Conflicts Shared N-Way") == "2.00"
      and r["cells"][6]["attrs"]["class"] == "n h3")
row, r = pc_row(pages["matrixMul_tiled16"], "0x0310")
check("tiled16 0x0310: an LDS.128 is 2 wavefronts without a conflict: no heat",
      row.get("L1 Conflicts Shared N-Way") == "2.00" and r["cells"][6]["attrs"]["class"] == "n")
check("transpose_shared: a 32-way conflict at heat level 5", any(
    dict(zip(t["head"], [c["text"] for c in r["cells"]])).get("L1 Conflicts Shared N-Way") == "32.00"
    and r["cells"][6]["attrs"]["class"] == "n h5"
    for t in pages["transpose_shared"].tables if t["class"] == "sv" for r in t["rows"]))

# 2. The lane grids equal explain --lanes --format csv, lane by lane; the why text too.
def expand(banks):
    outl = []
    for part in banks.split(","):
        if "-" in part:
            a, b = part.split("-")
            outl += [str(x) for x in range(int(a), int(b) + 1)]
        else:
            outl.append(part)
    return outl
def compare_lanes(pname, csvname, pc, p=None):
    p = p or pages.get(pname) or page(pname)
    grid = p.grids.get(pc)
    if grid is None:
        bad.append("%s: no lane view of %s" % (pname, pc))
        return
    lanes = [r for r in csv_rows(csvname)[1:]]
    check("%s %s: 32 lanes drawn" % (pname, pc), len(grid) == 32 and len(lanes) == 32)
    for cell, r in zip(grid, lanes):
        a = cell["attrs"]
        lane, active = int(r[4]), r[5] == "1"
        if int(a["data-lane"]) != lane or (a["class"] == "off") == active:
            bad.append("%s %s lane %d: active differs" % (pname, pc, lane))
            continue
        if not active:
            continue
        if r[8] and (a.get("data-line") != r[8] or a.get("data-sector") != r[10]):
            bad.append("%s %s lane %d: line/sector %s/%s, csv %s/%s" % (pname, pc, lane, a.get("data-line"),
                       a.get("data-sector"), r[8], r[10]))
        if "data-bank" in a and (expand(a["data-bank"]) != r[13].split() or
                                 sorted(set(r[15].split()), key=int) != a["data-wavefront"].split(",")):
            bad.append("%s %s lane %d: bank/wavefront %s/%s, csv %s/%s" % (pname, pc, lane, a["data-bank"],
                       a["data-wavefront"], r[13], r[15]))
    with open(os.path.join(out, csvname + ".csv")) as f:
        why = [l.split(": ", 1)[1].rstrip("\n") for l in f if l.startswith("# why ")]
    check("%s %s: the why text is the model's" % (pname, pc), p.whys.get(pc) == why)
compare_lanes("readSegment_off11", "lanes-off11", "0x00d0")
compare_lanes("bank_stride4", "lanes-stride4", "0x0310")
compare_lanes("bank_pad17", "lanes-pad17", "0x0480")
compare_lanes("local_array", "lanes-local", "0x01b0")
compare_lanes("filter21_k20c", "lanes-k20c", "0x0330")
compare_lanes("off11-warp", "lanes-warp", "0x00d0")
g = pages["bank_stride4"].grids["0x0310"]
check("stride4 0x0310: lanes 0, 8, 16, 24 in bank 1, wavefronts 0-3",
      [(c["attrs"]["data-bank"], c["attrs"]["data-wavefront"]) for c in (g[0], g[8], g[16], g[24])]
      == [("1", "0"), ("1", "1"), ("1", "2"), ("1", "3")])
check("off11 --warp 5:3: CTA 5 warp 3", "CTA 5 warp 3: its first execution" in page("off11-warp").raw)

# 3. Source text: found with --source-dir kernels, escaped
check("off11: the CUDA line beside line 20, escaped",
      "<code>    if (k &lt; n) C[i] = A[k] + B[k];</code>" in pages["readSegment_off11"].raw)

# 4. A hostile trace: every text escaped; the source found (or not) and said why
for name in ("hostile-nosrc", "hostile-src"):
    p = page(name)
    check(name + ": no <script> element", "script" not in p.tags and "<script" not in p.raw)
    check(name + ": the kernel name escaped", "evil&lt;int, &quot;q&quot;&gt; &amp; &lt;script&gt;alert(&#39;x&#39;)"
          "&lt;/script&gt;" in p.raw)
    check(name + ": the kernel name reads as text", "evil<int, \"q\"> & <script>alert('x')</script>" in "".join(p.text))
    check(name + ": the SASS escaped", "LDG.E &lt;R2&gt; &amp; &quot;R3&quot;" in p.raw)
    check(name + ": the recorded path escaped", "<b>x" not in p.raw.replace("<b>lane", ""))
    check(name + ": a lane view per instruction", len(p.articles) == 2)
p = page("hostile-nosrc")
check("hostile-nosrc: line numbers only, and why", "Source text not shown: /nonexistent/&lt;/td&gt;&lt;b&gt;x/sub/"
      "hostile.cu cannot be read (No such file or directory); --source-dir DIR" in p.raw and 'class="src"><code>' not in p.raw)
p = page("hostile-src")
check("hostile-src: line 3 found by its last components under --source-dir, escaped",
      re.search(r'hostile.cu:3</th>.*<td class="src"><code>    float x = a\[i\] &lt; b\[j\] &amp;&amp; c &gt; 0 \? 1 : 0; '
                r'// &lt;b&gt;bold\?&lt;/b&gt;</code></td></tr>', p.raw) and "Source text not shown" not in p.raw)
check("hostile-src: line 4 beside the STS",
      re.search(r'hostile.cu:4</th>.*<td class="src"><code>    s\[2 \* tid\] = x;</code></td></tr>', p.raw))

# 5. --max-lanes-views, --line, and the report-wide limit
n_mem = sum(1 for t in pages["bank_stride4"].tables if t["class"] == "sv" for r in t["rows"]
            if r["attrs"].get("class") == "pc")
check("stride4: %d memory instructions under the default 64: all drawn" % n_mem,
      len(pages["bank_stride4"].articles) == n_mem and "without a lane view" not in pages["bank_stride4"].raw)
p = page("stride4-max3")
omitted = re.findall(r'<p class="omitted">(\d+) memory instructions without a lane view \(--max-lanes-views 3;', p.raw)
check("--max-lanes-views 3: 3 drawn, the rest listed", len(p.articles) == 3 and omitted == [str(n_mem - 3)]
      and p.raw.count('<span data-pc="') == n_mem - 3)
p = page("stride4-max0")
check("--max-lanes-views 0: none drawn, all listed", len(p.articles) == 0 and p.raw.count('<span data-pc="') == n_mem)
p = page("stride4-line")
check("--line bankConflict.cu:63: its 16 loads only", len(p.articles) == 16 and "16 selected by --line" in p.raw)
p = page("many")
check("20 launches x 64: 1,024 lane views in all, 256 listed", len(p.articles) == 1024
      and p.raw.count('<span data-pc="') == 256 and "1024 in the report" in p.raw)
check("20 launches: a list of launches", p.raw.count('<li><a href="#launch-') == 20)

p = page("empty")
check("empty_1cta: a kernel without memory instructions is shown as such",
      "(this launch executed no memory instruction)" in p.raw and len(p.articles) == 0)

for b in bad:
    print("explain-html: FAIL:", b, file=sys.stderr)
sys.exit(1 if bad else 0)
PY

# ---- bad arguments: one line on stderr, exit 2, nothing on stdout ----
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
expect_error "--max-lanes-views expects a number of instructions from 0 to 1024, got 1025" \
    --config $H200 $T --format html --max-lanes-views 1025
expect_error "--max-lanes-views expects a number of instructions from 0 to 1024, got -1" \
    --config $H200 $T --format html --max-lanes-views -1
expect_error "--max-lanes-views expects a number of instructions from 0 to 1024" --config $H200 $T --format html --max-lanes-views
expect_error "--source-dir $OUT/nosuchdir: No such file or directory" --config $H200 $T --format html --source-dir "$OUT/nosuchdir"
expect_error "--source-dir README.md: not a directory" --config $H200 $T --format html --source-dir README.md
expect_error "--source-dir needs a directory" --config $H200 $T --format html --source-dir
expect_error "--source-dir is an option of --format html" --config $H200 $T --source-dir kernels
expect_error "--max-lanes-views is an option of --format html" --config $H200 $T --format csv --max-lanes-views 3
expect_error "--format expects table, csv, json or html, got htm" --config $H200 $T --format htm
expect_error "--format html reads the trace twice to draw lanes: give a file, not standard input" \
    --config $H200 - --format html
expect_error "--warp 5000:0: launch 0 has CTAs 0..2047 of warps 0..15" --config $H200 $T --format html --warp 5000:0 --pc 0xd0
expect_error "explain: cannot create $OUT/nodir/x.html" --config $H200 $T --format html -o "$OUT/nodir/x.html"
# standard input works without lane views
"$BIN" explain --config $H200 - --format html --max-lanes-views 0 < $T > "$OUT/stdin.html" || fail "html from standard input"
grep -q '0 memory instructions\|3 memory instructions without a lane view' "$OUT/stdin.html" || fail "html from stdin: omitted list"

if [ "$fails" -ne 0 ]; then
    echo "explain-html: $fails failure(s)" >&2
    exit 1
fi
echo "explain-html: ok"
