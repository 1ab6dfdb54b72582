"""Where scripts/observer-cost.sh's spread comes from: per pair (and leg) of a kept run (KEEP=DIR: DIR/turns.txt, either
format: one leg a pair before s58, "pair leg api side ..." since), each 1-second turn's throughput ratio to plain's turn
of the same second, from turn FROM on (the once-a-run parts fall in the first 5); its mean with its standard error from
the turns, the turns' spread and their lag-1 correlation (near 0: noise turn to turn, not a drift), and across the run's
pairs the spread of their means beside the turns' error (about equal: the turns explain the pairs' spread).
Usage: python3 docs/notebook/investigations/turn-noise.py FROM DIR/turns.txt..."""
import math
import sys

FROM = int(sys.argv[1])
for path in sys.argv[2:]:
    rows = [line.split() for line in open(path)]
    if len(rows[0]) == 9:
        rows = [(int(r[0]), int(r[1]), r[3], int(r[4]), int(r[5]) / float(r[6])) for r in rows]
    else:
        rows = [(int(r[0]), 0, r[1], int(r[2]), int(r[3]) / float(r[4])) for r in rows]
    rate = {(p, leg, side, t): v for p, leg, side, t, v in rows}
    found = []
    for p, leg in sorted({(r[0], r[1]) for r in rows if r[0] > 0}):
        ts = sorted({r[3] for r in rows if r[0] == p and r[1] == leg and r[3] >= FROM})
        x = [math.log(rate[(p, leg, "observed", t)] / rate[(p, leg, "plain", t)]) for t in ts]
        mean = sum(x) / len(x)
        d = [v - mean for v in x]
        sd = math.sqrt(sum(v * v for v in d) / (len(d) - 1))
        lag1 = sum(d[i] * d[i + 1] for i in range(len(d) - 1)) / sum(v * v for v in d)
        found.append((f"{p}.{leg}", mean, sd / math.sqrt(len(x)), sd, lag1))
    means = [f[1] for f in found]
    middle = sum(means) / len(means)
    between = math.sqrt(sum((v - middle) ** 2 for v in means) / (len(means) - 1))
    error = math.sqrt(sum(f[2] ** 2 for f in found) / len(found))
    print(f"{path}: " + "; ".join(f"{name} {math.exp(m):.3f} +-{e:.3f} (turns' sd {sd:.3f}, lag-1 {lag:+.2f})" for name, m, e, sd, lag in found)
          + f"; spread of the means {between:.3f} against the turns' error {error:.3f}")
