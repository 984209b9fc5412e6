#!/usr/bin/env python3
"""runs-spread.py - how much a metric moves between runs of the same kernel,
and how far the model is from the median run (docs/timing.md, docs/findings.md §5).

usage: kernels/runs-spread.py METRIC DIR... [--model BIN --config INI --traces DIR [--timing [--time-order]]
                               [--tolerance PERCENT]] [--exclude REGEX]

DIR: folders of ncu --csv files, NAME.ncu.csv or NAME.rK.ncu.csv (the suite's
traces/h200 and measure.sh's --dest folders), or such files packed in a
.tar.xz (traces/h200-probes/torch-reps.tar.xz); each file is one run of NAME.
With --model, BIN run [--timing] --format csv on DIR/NAME.trace gives the
model's value of METRIC (--time-order: BIN run --timing --time-order), its error against the median run, and how far it
lies outside the runs' range ("outside": 0 between the smallest and the
largest run, else its error against the nearer of the two).
Prints one row per kernel, then the mean absolute error against the median
and how many kernels the model misses by more than --tolerance PERCENT
(default 2) outside the range. Spread and errors are "-" where the median is 0.
--exclude leaves out the kernels whose names match REGEX (e.g. the empty
kernels, whose warps execute no memory instruction and so are not in a trace).
sm__warps_active.sum (the warps' resident cycles, summed) is read where a run
has it, else derived from the runs' sm__warps_active.avg.pct_of_peak_sustained_active
and sm__cycles_active.avg with --config's sm_count and max_threads_per_sm."""
import csv, glob, io, os, re, statistics, subprocess, sys, tarfile


def fail(msg):
    print(f"runs-spread: {msg}", file=sys.stderr)
    sys.exit(2)


def metric_of(path, metric, gpu=None):
    """path: a file, or a (tar, member) pair of an archive's file"""
    if isinstance(path, tuple):
        data = path[0].extractfile(path[1]).read().decode("utf-8", errors="replace")
        lines = io.StringIO(data)
    else:
        lines = open(path, encoding="utf-8", errors="replace")
    rows = [l for l in lines if l.startswith('"')]
    values = {}
    for r in csv.DictReader(rows):
        values.setdefault(r.get("Metric Name"), r["Metric Value"])
    if metric in values:
        return float(values[metric].replace(",", ""))
    pct, active = (values.get("sm__warps_active.avg.pct_of_peak_sustained_active"),
                   values.get("sm__cycles_active.avg"))
    if metric == "sm__warps_active.sum" and pct and active and gpu:
        sms, warps = gpu
        return float(pct.replace(",", "")) / 100 * warps * float(active.replace(",", "")) * sms
    return None


def gpu_of(config):
    """(sm_count, warps an SM holds) from a config's [gpu] section, or None."""
    keys, section = {}, None
    for line in open(config, encoding="utf-8", errors="replace"):
        line = line.split(";")[0].strip()
        if line.startswith("["):
            section = line.strip("[]").strip()
        elif "=" in line and section == "gpu":
            k, v = line.split("=", 1)
            keys[k.strip()] = v.strip()
    try:
        return int(keys["sm_count"]), int(keys["max_threads_per_sm"]) // 32
    except (KeyError, ValueError):
        return None


def main(argv):
    if len(argv) < 2:
        fail("usage: runs-spread.py METRIC DIR... [--model BIN --config INI --traces DIR [--timing [--time-order]] [--tolerance PERCENT]] [--exclude REGEX]")
    metric, dirs, model, config, traces, timing, tol, exclude = argv[0], [], None, None, None, False, 2.0, None
    time_order = False
    i = 1
    while i < len(argv):
        a = argv[i]
        if a == "--tolerance":
            if i + 1 >= len(argv):
                fail("--tolerance needs a value")
            try:
                tol = float(argv[i + 1])
            except ValueError:
                fail(f"--tolerance: '{argv[i + 1]}' is not a number (expected a percentage, e.g. 2)")
            i += 2
            continue
        if a == "--exclude":
            if i + 1 >= len(argv):
                fail("--exclude needs a regular expression")
            try:
                exclude = re.compile(argv[i + 1])
            except re.error as e:
                fail(f"--exclude: '{argv[i + 1]}' is not a regular expression ({e})")
            i += 2
            continue
        if a in ("--model", "--config", "--traces"):
            if i + 1 >= len(argv):
                fail(f"{a} needs a value")
            if a == "--model": model = argv[i + 1]
            elif a == "--config": config = argv[i + 1]
            else: traces = argv[i + 1]
            i += 2
        elif a == "--timing":
            timing, i = True, i + 1
        elif a == "--time-order":
            time_order, i = True, i + 1
        else:
            dirs.append(a); i += 1
    if model and not (config and traces):
        fail("--model needs --config and --traces")
    if time_order and not timing:
        fail("--time-order needs --timing")
    gpu = None
    if config:
        if not os.path.isfile(config):
            fail(f"--config: no file '{config}'")
        gpu = gpu_of(config)
    runs = {}
    for d in dirs:
        if d.endswith(".tar.xz") and os.path.isfile(d):
            try:
                tar = tarfile.open(d, "r:xz")
            except (tarfile.TarError, OSError) as e:
                fail(f"{d}: not a readable .tar.xz ({e})")
            files = sorted(((tar, m) for m in tar.getmembers() if m.isfile() and m.name.endswith(".ncu.csv")),
                           key=lambda p: p[1].name)
        elif os.path.isdir(d):
            files = sorted(glob.glob(os.path.join(d, "*.ncu.csv")))
        else:
            fail(f"{d}: not a folder or a .tar.xz")
        for f in files:
            base = os.path.basename(f[1].name if isinstance(f, tuple) else f)
            name = re.sub(r"(\.r\d+)?\.ncu\.csv$", "", base)
            if exclude and exclude.search(name):
                continue
            v = metric_of(f, metric, gpu)
            if v is not None:
                runs.setdefault(name, []).append(v)
    if not runs:
        fail(f"no run in {' '.join(dirs)} has {metric}")
    print(f"# {metric}: runs per kernel from {' '.join(dirs)}")
    head = f"{'kernel':26} {'runs':>4} {'min':>10} {'median':>10} {'max':>10} {'spread':>7}"
    if model:
        head += f" {'model':>10} {'error':>8} {'outside':>8}"
    print(head)
    errs, missed, compared = [], [], 0
    for name in sorted(runs):
        v = runs[name]
        med = statistics.median(v)
        spread = f"{100 * (max(v) - min(v)) / med:6.1f}%" if med else f"{'-':>7}"
        row = f"{name:26} {len(v):4} {min(v):10.0f} {med:10.0f} {max(v):10.0f} {spread}"
        if model:
            tr = os.path.join(traces, name + ".trace")
            if not os.path.exists(tr):
                print(row + f" {'-':>10} {'-':>8}")
                continue
            cmd = [model, "run", "--config", config, "--format", "csv"] + (["--timing"] if timing else []) + (["--time-order"] if time_order else []) + [tr]
            out = subprocess.run(cmd, capture_output=True, text=True)
            if out.returncode != 0:
                fail(f"{' '.join(cmd)}: {out.stderr.strip()}")
            pred = None
            for line in out.stdout.splitlines():
                f = line.split(",")
                if len(f) >= 4 and f[-2] == metric and f[-3] == "0":
                    pred = float(f[-1])
            if pred is None:
                fail(f"{tr}: the model printed no {metric} for launch 0")
            if med:
                e = 100 * (pred - med) / med
                errs.append(abs(e))
                row += f" {pred:10.0f} {e:+7.2f}%"
            else:
                row += f" {pred:10.0f} {'-':>8}"
            compared += 1
            lo, hi = min(v), max(v)
            near = hi if pred > hi else lo if pred < lo else None
            if near is None:
                row += f" {0:+7.2f}%"
            elif near:
                out = 100 * (pred - near) / near
                row += f" {out:+7.2f}%"
                if abs(out) > tol:
                    missed.append(name)
            else:
                row += f" {'-':>8}"
                missed.append(name)
        print(row)
    if errs:
        print(f"# mean absolute error against the median run: {statistics.mean(errs):.2f}% over {len(errs)} kernels")
    if model:
        print(f"# outside the runs' range by more than {tol:g}%: {len(missed)} of {compared}"
              + (f" ({', '.join(missed)})" if missed else ""))


if __name__ == "__main__":
    main(sys.argv[1:])
