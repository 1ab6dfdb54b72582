#!/usr/bin/env bash
# Issue 42 item 3: what the runner JIT-compiles while its load runs. One fresh API (Release, compute/sync?cycles=1), one
# runner run on it (16 users held SECONDS, observed `--pid API` or `--no-observer`), the runner with a startup hook
# (jit-timeline/: the runtime's JitInfo every 100 ms) and its perf map (DOTNET_PerfMapEnabled=3, one line per compiled
# method, in order). Prints the methods compiled and the JIT's time before, under and after the load (the load: from the
# first poll at which the API's requestsStarted grew to the last), second by second under it, and how many of the
# methods compiled under it are the observer's (TraceEvent, the diagnostics client, the Diagnostics assembly's types).
# The JIT's time is wall time on the compiling thread: on a busy machine read the methods, not the milliseconds.
# Usage: [KEEP=DIR] docs/notebook/investigations/runner-jit.sh [observed|plain] [seconds=12] (RUNNER=path/to/ConcurrencySandbox.LoadTests.dll
# runs another build; the default is this checkout's Release build, made first). Needs curl and python3.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
mode=${1:-observed}; seconds=${2:-12}
R=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0
[ -n "${RUNNER:-}" ] || dotnet build loadtests/ConcurrencySandbox.LoadTests -c Release -v quiet -nologo >/dev/null
runner=${RUNNER:-$R/ConcurrencySandbox.LoadTests.dll}
hook=docs/notebook/investigations/jit-timeline
dotnet build "$hook" -c Release -v quiet -nologo >/dev/null
W=$(mktemp -d -t runner-jit.XXXXXX)
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W"
rp=""
# KEEP=DIR keeps the run's files there (jit.txt, api.txt: unix-ms, perf map lines, requests; perf.map).
trap 'kill $rp $api_pid 2>/dev/null || true; rm -f "/tmp/perf-$rp.map" "/tmp/perfinfo-$rp.map"; if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$W"/*.txt "$W"/perf.map "$KEEP"/ 2>/dev/null || true; fi; rm -rf "$W"' EXIT
printf '{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [16, "00:00:%02d"] } ] }\n' "$seconds" >"$W/load.json"
flags=(--no-observer); [ "$mode" = observed ] && flags=(--pid "$api_pid")
DOTNET_PerfMapEnabled=3 DOTNET_PerfMapShowOptimizationTiers=1 JIT_TIMELINE=$W/jit.txt DOTNET_STARTUP_HOOKS=$PWD/$hook/bin/Release/net10.0/JitTimeline.dll \
  dotnet "$runner" run --url "$url/api/compute/sync?cycles=1" --config "$W/load.json" --slo-p99-ms 60000 --out "$W/report" "${flags[@]}" >"$W/runner.log" 2>&1 &
rp=$!
# unix-ms, the perf map's lines so far, the API's requestsStarted
while kill -0 "$rp" 2>/dev/null; do
  echo "$(date +%s%3N) $(wc -l <"/tmp/perf-$rp.map" 2>/dev/null || echo 0) $(curl -fsS "$url/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p')" >>"$W/api.txt"
  sleep 0.1
done
wait "$rp" || { echo "the runner failed:" >&2; tail -n 5 "$W/runner.log" >&2; exit 2; }
cp "/tmp/perf-$rp.map" "$W/perf.map"
echo "# runner JIT ($mode, $runner): $seconds s of 16 users on one fresh API; $(bench_header)"
python3 - "$W/jit.txt" "$W/api.txt" "$W/perf.map" <<'PY'
import re, sys
jit = [tuple(float(x) for x in l.split()) for l in open(sys.argv[1]) if len(l.split()) == 3]
api = [tuple(float(x) for x in l.split()) for l in open(sys.argv[2]) if len(l.split()) == 3]
grew = [i for i in range(1, len(api)) if api[i][2] > api[i - 1][2] + 20]
t0, t1 = api[grew[0] - 1][0], api[grew[-1]][0]
def at(t):
    return max((r for r in jit if r[0] <= t), default=jit[0])
a, b, e = at(t0), at(t1), jit[-1]
print(f"before the load {a[1]:.0f} methods, {a[2]:.0f} ms; under it ({(t1 - t0) / 1000:.1f} s, {api[grew[-1]][2] - api[grew[0] - 1][2]:.0f} requests)"
      f" +{b[1] - a[1]:.0f} methods, +{b[2] - a[2]:.0f} ms; after it +{e[1] - b[1]:.0f} methods, +{e[2] - b[2]:.0f} ms; in all {e[1]:.0f} methods, {e[2]:.0f} ms")
print("under the load, second by second: " + ", ".join(f"+{at(s + 1000)[1] - at(s)[1]:.0f}" for s in range(int(t0), int(t1), 1000)))
lines = open(sys.argv[3]).read().splitlines()[int(api[grew[0] - 1][1]):int(api[grew[-1]][1])]
compiled = [l for l in lines if l.endswith("[Optimized]")]
observer = [l for l in compiled if re.search(r"Microsoft\.Diagnostics\.|ConcurrencySandbox\.LoadTests\.Diagnostics", l)]
print(f"perf map under the load: {len(compiled)} methods JIT-compiled, {len(observer)} of them the observer's (TraceEvent, the diagnostics client, the Diagnostics assembly's types, generics over them)")
PY
