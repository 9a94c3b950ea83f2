#!/usr/bin/env python3
"""Tables of issue 15's device runs (scripts/device_system_db.sh): Find time per problem, tuned vs
default per layer and whole net, the immediate-mode evaluation. Reads the reports of one or more
$OUT folders, writes markdown to stdout. Every ratio is within one report: the tuned-vs-default
columns come from Find's measurement of both configs in one process (tune's own default and best
are beside them), never from two runs.
Usage: scripts/system_db_summary.py DIR [DIR...] > summary.md"""
import glob, json, os, sys
from collections import defaultdict

def load(path):
    with open(path) as f:
        return json.load(f)

def finds(dirs):
    out = {}  # (combo, dir) -> report
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, 'find_*.json'))):
            out[os.path.basename(d.rstrip('/')) + '/' + os.path.basename(p)[5:-5]] = load(p)
    return out

def tunes(dirs):
    out = {}
    for d in dirs:
        for p in sorted(glob.glob(os.path.join(d, 'tune_*.json'))):
            out[os.path.basename(d.rstrip('/')) + '/' + os.path.basename(p)[5:-5]] = load(p)
    return out

def main(dirs):
    F, T = finds(dirs), tunes(dirs)
    print('## Find: time per problem and the winners\n')
    print('| suite part | problems | without a winner | Find s per problem (mean / max) | winners (solver: problems) | whole net, winners, count-weighted (ms) |')
    print('|---|---|---|---|---|---|')
    all_s = []
    for name, r in F.items():
        ps = r['problems']
        secs = [p['find_seconds'] for p in ps]
        if not secs:
            continue
        all_s += secs
        wins = defaultdict(int)
        total = 0.0
        none = 0
        for p in ps:
            w = p.get('winner')
            if not w:
                none += 1
                continue
            wins[w['solver']] += 1
            total += p.get('count', 1) * w['time_us']
        wtxt = ', '.join(f'{k}: {v}' for k, v in sorted(wins.items(), key=lambda kv: -kv[1]))
        print(f'| {name} | {len(ps)} | {none} | {sum(secs)/len(secs):.2f} / {max(secs):.2f} | {wtxt} | {total/1000:.3f} |')
    if all_s:
        print(f'\nAll parts: {len(all_s)} problems, Find {sum(all_s)/len(all_s):.2f} s per problem on average, {max(all_s):.2f} s at most.\n')
    print('## Tuned vs default (measured side by side by Find in one process)\n')
    print('Per problem, the tuned solver\'s default config and the perf db\'s tuned config, both verified and timed by the same Find; '
          'whole net = each problem times its count in ResNet-50.\n')
    for name, r in T.items():
        tuned = {t['problem']: t for t in r['tunings']}
        f = F.get(name)
        solver = r['tunings'][0]['solver'] if r['tunings'] else '?'
        print(f'### {name} ({solver})\n')
        print('| problem | count | default config | default us | tuned config | tuned us | default / tuned | tune: configs tried, s |')
        print('|---|---|---|---|---|---|---|---|')
        dt = tt = 0.0
        n = 0
        for p in (f['problems'] if f else []):
            t = tuned.get(p['problem'])
            if not t:
                continue
            mine = [m for m in p['tried'] if m['solver'] == solver and m['verified'] and m['time_us'] is not None]
            if not mine:
                continue
            d = next((m for m in mine if m['config'] == t['default_config']), None)
            b = next((m for m in mine if m['config'] == t['best_config']), None)
            if d is None:
                continue
            if b is None and t['best_config'] == t['default_config']:  # Find measured it once
                b = d
            if b is None:  # the tuned config was not measured by this Find (e.g. it no longer fits)
                continue
            c = p.get('count', 1)
            dt += c * d['time_us']; tt += c * b['time_us']; n += 1
            print(f"| {p['problem']} | {c} | {d['config']} | {d['time_us']:.2f} | {b['config']} | {b['time_us']:.2f} | "
                  f"{d['time_us']/b['time_us']:.3f} | {t['tried']} of {t['space']}, {t['seconds']:.1f} |")
        if n:
            print(f'\nWhole net ({n} problems): default {dt/1000:.3f} ms, tuned {tt/1000:.3f} ms, default / tuned {dt/tt:.3f}.\n')
        tsec = sum(t['seconds'] for t in r['tunings'])
        print(f"Tuning time: {tsec:.0f} s for {len(r['tunings'])} problems.\n")
    # Find parts whose tune report is missing (the tune step timed out after recording some layers):
    # where Find tried a solver at two configs, the first is its default, the second the perf db's.
    for name, r in F.items():
        if name in T:
            continue
        rows = []
        for p in r['problems']:
            by = defaultdict(list)
            for m in p['tried']:
                by[m['solver']].append(m)
            for solver, ms in by.items():
                if len(ms) == 2 and all(m['verified'] and m['time_us'] is not None for m in ms):
                    rows.append((p, solver, ms[0], ms[1]))
        if not rows:
            continue
        print(f'### {name}: the layers tuned before the tune step timed out (from Find alone)\n')
        print('| problem | count | solver | default config | default us | tuned config | tuned us | default / tuned |')
        print('|---|---|---|---|---|---|---|---|')
        dt = tt = 0.0
        for p, solver, d, b in rows:
            c = p.get('count', 1)
            dt += c * d['time_us']; tt += c * b['time_us']
            print(f"| {p['problem']} | {c} | {solver} | {d['config']} | {d['time_us']:.2f} | {b['config']} | {b['time_us']:.2f} | {d['time_us']/b['time_us']:.3f} |")
        print(f'\nThose {len(rows)} layers (count-weighted): default {dt/1000:.3f} ms, tuned {tt/1000:.3f} ms, default / tuned {dt/tt:.3f}.\n')
    for d in dirs:
        p = os.path.join(d, 'eval.json')
        if not os.path.exists(p):
            continue
        e = load(p)
        print('## Immediate mode on held-out problems\n')
        print(f"Holdout {e['holdout']}: {e['trained']} problems trained, {e['held_out']} held out, {e['picked']} picked; "
              f"by the records {e['hits']} within 10% of Find's best ({100*e['hit_rate']:.0f}%); pick time mean {e['mean_pick_us']:.1f} us, "
              f"max {e['max_pick_us']:.1f} us.")
        m = e.get('measured')
        if m:
            print(f"Measured (each pick run as immediate mode runs it, Find's best beside it, same process): {m['hits']} of {m['picks']} "
                  f"within 10% ({100*m['hit_rate']:.0f}%), {m['failed']} failed.\n")
            misses = [c for c in m['cases'] if not c['hit']]
            if misses:
                print('| missed problem | pick | pick us | best | best us |')
                print('|---|---|---|---|---|')
                for c in misses:
                    pk, b = c['picked'], c['best']
                    print(f"| {c['problem']} | {pk['solver']} {pk['config']} | {pk['time_us']} | {b['solver']} {b['config']} | {b['time_us']} |")
                print()

if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.exit(__doc__)
    main(sys.argv[1:])
