#!/usr/bin/env python3
"""lrc-pairs.py - read kernels/probes/lrc-pairs.sh's outputs (docs/findings.md §2b).

  lrc-pairs.py --partners DIR/map.log   print "SAME OTHER": an SM of SM 0's GPC, one of another
  lrc-pairs.py DIR                      the GPCs, then one line per launch of every sweep, then
                                        the merged share per partner kind (same GPC, other GPC)
"""
import csv, glob, os, re, sys
from collections import defaultdict

def gpcs(map_log):
    parent = {}
    def find(x):
        parent.setdefault(x, x)
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x
    for line in open(map_log):
        m = re.match(r'cluster (\d+):((?: \d+)+)$', line.strip())
        if not m:
            continue
        sms = [int(s) for s in m.group(2).split()]
        for s in sms[1:]:
            parent[find(s)] = find(sms[0])
    groups = defaultdict(list)
    for s in list(parent):
        groups[find(s)].append(s)
    out = sorted(sorted(g) for g in groups.values())
    return {s: i for i, g in enumerate(out) for s in g}, out

def launches(csv_path, log_path):
    """[(anchor, j, delay, skew, {metric: value})] in launch order."""
    info = []
    for line in open(log_path):
        m = re.match(r'launch (\d+): (\d+) (\d+) (\d+) (-?\d+)', line)
        if m:
            info.append(tuple(int(x) for x in m.groups()[1:]))
    rows = [l for l in open(csv_path) if l.startswith('"')]
    per_id = defaultdict(dict)
    for d in csv.DictReader(rows):
        if 'pairRead' not in d['Kernel Name']:
            continue
        per_id[int(d['ID'])][d['Metric Name']] = float(d['Metric Value'].replace(',', ''))
    ids = sorted(per_id)
    return [(*info[k], per_id[i]) for k, i in enumerate(ids) if k < len(info)]

def main():
    if len(sys.argv) == 3 and sys.argv[1] == '--partners':
        gpc_of, groups = gpcs(sys.argv[2])
        g0 = gpc_of.get(0)
        same = next((s for s in groups[g0] if s != 0), 1) if g0 is not None else 1
        other = next((g[0] for g in groups if 0 not in g), 66)
        print(same, other)
        return
    d = sys.argv[1]
    gpc_of, groups = gpcs(os.path.join(d, 'map.log'))
    print(f'# {len(groups)} GPCs from clusters: ' + '; '.join(
        f'{i}: {len(g)} SMs [{",".join(map(str, g))}]' for i, g in enumerate(groups)))
    MER = 'lrc__request_sectors_op_read_coalescing_achieved_type_hardware.sum'
    L1 = 'l1tex__m_xbar2l1tex_read_sectors_mem_lg_op_ld.sum'
    LTS = 'lts__t_sectors_srcunit_tex_op_read.sum'
    REQ = 'lrc__xbar2lrc_requests_op_read.sum'
    kinds = defaultdict(list)
    print('file anchor partner gpc_a gpc_j delay skew_ns l1_read_sectors lrc_requests merged lts_read merged_share')
    for path in sorted(glob.glob(os.path.join(d, '*.csv'))):
        name = os.path.basename(path)[:-4]
        for a, j, delay, skew, m in launches(path, path[:-4] + '.log'):
            l1 = m.get(L1, 0)
            share = m.get(MER, 0) / l1 if l1 else 0
            ga, gj = gpc_of.get(a, -1), gpc_of.get(j, -1)
            print(f'{name} {a} {j} {ga} {gj} {delay} {skew} {l1:.0f} {m.get(REQ, 0):.0f} '
                  f'{m.get(MER, 0):.0f} {m.get(LTS, 0):.0f} {share:.3f}')
            if name.startswith('sweep'):
                kinds['same GPC' if ga == gj and ga >= 0 else 'other GPC'].append(share)
            else:
                kinds[f'delay {delay} {"same" if ga == gj else "other"} GPC'].append(share)
    print('# merged share of read sectors (LRC coalesced / L1 read sectors), per partner kind:')
    for k, v in sorted(kinds.items()):
        v = sorted(v)
        print(f'#   {k}: n {len(v)}, min {v[0]:.3f}, median {v[len(v)//2]:.3f}, max {v[-1]:.3f}')

main()
