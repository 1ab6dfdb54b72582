"""Reads the turns scripts/observer-cost.sh kept (KEEP=DIR: DIR/turns.txt) by groups of turns: per group, the observed
side's throughput over plain's, the API's CPU per request and the side's (runner and observer) CPU per request, each
observed / plain. Shows whether a cost stays after the turns an observer's once-a-run part ran in.
Usage: python3 docs/notebook/investigations/turns-by-five.py DIR/turns.txt [turns per group, 5]"""
import sys

HZ = 100  # clock ticks per second, as the script reads /proc
rows = [line.split() for line in open(sys.argv[1])]
# pair side turn requests seconds api-ticks side-ticks; pair 0 is the warm-up, not counted
rows = [(int(p), s, int(t), int(n), float(sec), int(api), int(own)) for p, s, t, n, sec, api, own in rows if int(p) > 0]
size = int(sys.argv[2]) if len(sys.argv) > 2 else 5
for first in range(0, max(r[2] for r in rows) + 1, size):
    def side(name):
        picked = [r for r in rows if r[1] == name and first <= r[2] < first + size]
        n = sum(r[3] for r in picked)
        return n / sum(r[4] for r in picked), sum(r[5] for r in picked) / HZ / n * 1e6, sum(r[6] for r in picked) / HZ / n * 1e6
    o, p = side("observed"), side("plain")
    print(f"turns {first + 1}-{first + size}: throughput {o[0] / p[0]:.3f}; the API {o[1]:.2f} / {p[1]:.2f} us per request;"
          f" runner and observer {o[2]:.2f} / {p[2]:.2f} us per request")
