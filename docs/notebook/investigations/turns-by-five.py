"""Reads the turns scripts/observer-cost.sh kept (KEEP=DIR: DIR/turns.txt) by groups of turns: per group, the observed
side's throughput over plain's, the API's CPU per request and the side's (runner and observer) CPU per request, each
observed / plain as the script takes a ratio (the geometric mean over the legs, each side on each API once). Shows
whether a cost stays after the turns an observer's once-a-run part ran in.
Usage: python3 docs/notebook/investigations/turns-by-five.py DIR/turns.txt [turns per group, 5]"""
import math
import sys

HZ = 100  # clock ticks per second, as the script reads /proc
rows = [line.split() for line in open(sys.argv[1])]
# pair leg api side turn requests seconds api-ticks side-ticks; pair 0 is the warm-up, not counted
rows = [(int(p), int(leg), side, int(t), int(n), float(sec), int(api), int(own))
        for p, leg, _, side, t, n, sec, api, own in rows if int(p) > 0]
legs = sorted({r[1] for r in rows})
size = int(sys.argv[2]) if len(sys.argv) > 2 else 5
for first in range(0, max(r[3] for r in rows) + 1, size):
    def side(name, leg):
        picked = [r for r in rows if r[2] == name and r[1] == leg and first <= r[3] < first + size]
        n = sum(r[4] for r in picked)
        return n / sum(r[5] for r in picked), sum(r[6] for r in picked) / HZ / n * 1e6, sum(r[7] for r in picked) / HZ / n * 1e6
    def ratio(figure):
        return math.prod(side("observed", leg)[figure] / side("plain", leg)[figure] for leg in legs) ** (1 / len(legs))
    def mean(name, figure):
        return sum(side(name, leg)[figure] for leg in legs) / len(legs)
    print(f"turns {first + 1}-{first + size}: throughput {ratio(0):.3f}; the API {ratio(1):.3f} x ({mean('observed', 1):.2f} / {mean('plain', 1):.2f}"
          f" us per request); runner and observer {ratio(2):.3f} x ({mean('observed', 2):.2f} / {mean('plain', 2):.2f} us per request)")
