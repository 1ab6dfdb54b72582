"""The figures of scripts/observer-cost.sh, read from its turns.txt and pairs.txt (KEEP=DIR keeps them): per pair, or
for a run's verdict over all its pairs, each side's rate and CPU per request and its ratio to plain's, a ratio being the
geometric mean over the pair's legs of the leg's ratio, so a fixed difference of speed between the API processes cancels
(each side loads each API once a pair).
Usage: python3 scripts/observer-cost-figures.py TURNS PAIRS CLOCK_TICKS_PER_SECOND PAIR|all OBSERVER MODE
  turns.txt: "pair leg api side turn requests seconds api-ticks side-ticks", one row per turn (pair 0 the warm-up);
  pairs.txt: "pair leg api side api-ticks [pool-threads]", one row per side and leg: its API's CPU over the leg."""
import math, sys
turns_path, pairs_path, hz, which, observer, mode = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5], sys.argv[6]
turns = [(int(p), int(leg), int(api), side, int(t), int(n), float(sec), int(cpu), int(own))
         for p, leg, api, side, t, n, sec, cpu, own in (l.split() for l in open(turns_path))]
rows = [l.split() for l in open(pairs_path)]
whole = {(int(p), int(leg), side): int(cpu) for p, leg, _, side, cpu, *_ in rows}
pool = {(int(p), int(leg), side): rest[0] for p, leg, _, side, _, *rest in rows if rest}
api_of = {(int(p), int(leg), side): int(api) for p, leg, api, side, *_ in rows}
legs = sorted({r[1] for r in turns})
# The turns in which a side's runner takes the observer's once-a-run parts (the route window from its first interval row,
# the stack sample and the cause trace about a second later, their reading) fall mostly in the first few of each leg.
EARLY = 5
early, later = (lambda t: t < EARLY), (lambda t: t >= EARLY)
def per(side, pairs, in_legs=legs, turn=lambda t: True):
    picked = [r for r in turns if r[3] == side and r[0] in pairs and r[1] in in_legs and turn(r[4])]
    n, sec = sum(r[5] for r in picked), sum(r[6] for r in picked)
    return dict(n=n / len({(r[0], r[1]) for r in picked}), rate=n / sec, api=sum(r[7] for r in picked) / hz / n * 1e6, own=sum(r[8] for r in picked) / hz / n * 1e6,
                out=sum(whole[(p, leg, side)] for p in pairs for leg in in_legs) / hz - sum(r[7] for r in picked) / hz)
def leg_ratios(side, pairs, figure, turn=lambda t: True):
    return [per(side, pairs, [leg], turn)[figure] / per("plain", pairs, [leg], turn)[figure] for leg in legs]
def ratio(side, pairs, figure, turn=lambda t: True):
    """The side's FIGURE against plain's: the geometric mean of the legs' ratios (each API on each side once)."""
    return math.prod(leg_ratios(side, pairs, figure, turn)) ** (1 / len(legs))
def error(side, p):
    """One standard error of the pair's log ratio from its turns' spread: each turn's ratio to plain's turn of the same
    second, a leg's error the spread of those over the square root of their number, the legs' errors combined as their
    mean is. Quiet, a 1-second turn's ratio spreads by about a tenth, turn to turn, not drifting (lag-1 correlation near 0)."""
    legs_squared = []
    for leg in legs:
        def rates(name):
            return {r[4]: r[5] / r[6] for r in turns if r[0] == p and r[1] == leg and r[3] == name}
        mine, theirs = rates(side), rates("plain")
        x = [math.log(mine[t] / theirs[t]) for t in mine if t in theirs and mine[t] > 0 and theirs[t] > 0]
        mean = sum(x) / len(x)
        legs_squared.append(sum((v - mean) ** 2 for v in x) / (len(x) - 1) / len(x))
    return math.sqrt(sum(legs_squared)) / len(legs)
def extra(side, pairs, figure, turn):
    """The CPU seconds a leg the side's FIGURE (api: its API; own: its runner and observer) spent over plain's at plain's
    cost per request, at the side's own requests: a fixed cost of the observer, which a busy machine's throughput hides
    and the CPU per request shows (s58, busy: every leg's turns 1-5 dearer, none of its later turns)."""
    return sum(per(side, pairs, [leg], turn)["n"] * (per(side, pairs, [leg], turn)[figure] - per("plain", pairs, [leg], turn)[figure]) / 1e6
               for leg in legs) / len(legs)
def extras(side, pairs):
    return (f"its extra CPU a leg over plain's, turns 1-{EARLY} / the rest: the API {extra(side, pairs, 'api', early):+.2f} / {extra(side, pairs, 'api', later):+.2f} s,"
            f" its runner and observer {extra(side, pairs, 'own', early):+.2f} / {extra(side, pairs, 'own', later):+.2f} s")
def split(side, pairs, figure):
    return f"turns 1-{EARLY} {ratio(side, pairs, figure, early):.3f}, the rest {ratio(side, pairs, figure, later):.3f}"
# Two-sided 95 % quantiles of Student's t for 1..19 degrees of freedom: the interval of the pairs' mean (of their logs).
T95 = [12.706, 4.303, 3.182, 2.776, 2.571, 2.447, 2.365, 2.306, 2.262, 2.228, 2.201, 2.179, 2.160, 2.145, 2.131, 2.120, 2.110, 2.101, 2.093]
def interval(ratios):
    logs = [math.log(r) for r in ratios]
    mean = sum(logs) / len(logs)
    if len(logs) < 2:
        return f"mean {math.exp(mean):.3f}"
    half = T95[len(logs) - 2] * math.sqrt(sum((x - mean) ** 2 for x in logs) / (len(logs) - 1) / len(logs))
    return f"mean {math.exp(mean):.3f} (95 % interval {math.exp(mean - half):.3f}-{math.exp(mean + half):.3f} over {len(logs)} pairs)"
sides = [s for s in ("observed", "baseline") if any(r[3] == s for r in turns)]
numbers = sorted({r[0] for r in turns} - {0})
def on_apis(side, p, ratios):
    return ", ".join(f"{r:.3f} on API {api_of[(p, leg, side)]}" for leg, r in zip(legs, ratios))
if which != "all":
    p = int(which)
    plain = per("plain", [p])
    pools = "/".join(pool.get((p, leg, "plain"), "?") for leg in legs)
    text = [f"pair {p}: plain {plain['rate']:,.0f} requests/s (the API {plain['api']:.2f} us of CPU per request, its runner {plain['own']:.2f} us,"
            f" its pool {pools} threads at its legs' ends)"]
    for s in sides:
        o = per(s, [p])
        text.append(f"{s} {o['rate']:,.0f} (the API {o['api']:.2f} us, its runner and observer {o['own']:.2f} us, {ratio(s, [p], 'own'):.3f} x plain's"
                    f" ({split(s, [p], 'own')})): ratio {ratio(s, [p], 'rate'):.3f} (+-{error(s, p):.3f}, one standard error from its turns; its legs {on_apis(s, p, leg_ratios(s, [p], 'rate'))};"
                    f" {split(s, [p], 'rate')}), the API's CPU per request {ratio(s, [p], 'api'):.3f} x ({split(s, [p], 'api')}),"
                    f" {extras(s, [p])}, its CPU outside its turns {o['out']:.2f} s (plain's {plain['out']:.2f} s),"
                    f" its pool {'/'.join(pool.get((p, leg, s), '?') for leg in legs)} threads")
    print("; ".join(text))
    sys.exit(0)
plain = per("plain", numbers)
for s in sides:
    ratios = [ratio(s, [p], "rate") for p in numbers]
    legs_alone = [r for p in numbers for r in leg_ratios(s, [p], "rate")]
    cpu = [ratio(s, [p], "api") for p in numbers]
    o = per(s, numbers)
    label = "no observer (the method's check)" if observer == "none" else f"{observer} observer" + (" (baseline build)" if s == "baseline" else "")
    if observer == "none":
        verdict = (f"pairs within {max(abs(r - 1) for r in ratios):.1%} of 1.00 (the method's error on this machine now;"
                   f" its legs alone, one API a side as a pair was before, within {max(abs(r - 1) for r in legs_alone):.1%})")
    else:
        verdict = "MET (>= 0.95 in every pair)" if min(ratios) >= 0.95 else f"NOT MET ({sum(r < 0.95 for r in ratios)} of {len(ratios)} pairs under 0.95)"
    print(f"verdict, {label}, {mode}: throughput {s}/plain per pair {', '.join(f'{r:.3f}' for r in ratios)}, {interval(ratios)},"
          f" all turns {ratio(s, numbers, 'rate'):.3f} ({split(s, numbers, 'rate')}), worst {min(ratios):.3f}: {verdict};"
          f" the API's CPU per request {', '.join(f'{c:.3f}' for c in cpu)} x ({o['api']:.2f} against {plain['api']:.2f} us, {ratio(s, numbers, 'api') - 1:+.1%});"
          f" runner{' and observer' if observer != 'none' else ''} {o['own']:.2f} against {plain['own']:.2f} us per request; {extras(s, numbers)}")
