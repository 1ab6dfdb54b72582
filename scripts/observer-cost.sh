#!/usr/bin/env bash
# What the runtime observer costs the API, measured in ONE warmed API process: compute/sync?cycles=1 under the runner's
# constant closed load (`run --url`), runs alternating with and without the observer, the order alternated from pair to
# pair (observed first in odd pairs, plain first in even ones). Per run: the runner's throughput (its summary.json), the
# API's own CPU per request over the run (/proc over the API's requestsStarted, which a busy machine disturbs far less
# than the throughput) and the runner's CPU per request; per pair, both ratios to the plain run. Loopback only.
#   --observer runner (default): the runner's own observer as it runs in a load run (`run --url ... --pid API`: its
#     always-on session, the route window once requests flow, the stack sample and the cause trace at the peak) against
#     `run --url ... --no-observer`.
#   --observer watch: `watch --pid` (issue 40's passive watch, the same session) beside a --no-observer run; plain runs
#     have no watch. Issue 40 allows watch 5 % (0.95).
#   --observer trace: the allocation trace's providers (CauseTrace.Providers on .NET 10) held by dotnet-trace (DOTNET_TRACE=
#     path, else dotnet-trace on PATH) over the whole of a --no-observer run: the trace's cost per second it runs.
#   --observer session|routes|stacks|causes|calls: ONE part of the runner's observer, taken beside a --no-observer run by
#     docs/notebook/investigations/observer-part.cs with the runner's own code, when the runner would take it (the
#     session for the whole run; the route window 3 s, the stack sample's 3 rounds, the allocation trace's 1 s, once, a
#     few seconds in; the HTTP client's calls from then to the load's end, longer than the runner's CauseTrace.CallsWindow
#     of 2 s, so what they cost a second shows): what each part costs as a share of the API's CPU per request.
#     compute/sync makes no outgoing call, so `calls` there is its session's cost alone.
#   UPSTREAM_CALLS=N (1..64): the load is /api/fanout?calls=N&delayMs=0&strategy=async instead, the API's calls going
#     over HTTP to a ThirdPartyStub of their own (ThirdParty__BaseUrl): N outgoing HTTP calls per request, for the parts
#     whose cost grows with them (`calls`: the HTTP client's events).
#   BASELINE_RUNNER=path/to/ConcurrencySandbox.LoadTests.dll: each pair also runs that build's observer ("baseline",
#     the same way; runner and watch only), so a change to the observer is measured before/after in the same process
#     and minutes. What one run leaves in the process counts for the others: a calls' trace (every peak before aa7b6b0)
#     turns the API's activity tracking on for good, and every observed run after it pays for it (performance.md). With --observer trace the baseline is a trace of BASELINE_TRACE_PROVIDERS (dotnet-trace's words).
# Changed 2026-11-29 (issue 42 item 3): each run used to start a fresh API (the runner's child, or one per watch or
# trace run), so a pair measured one process against another as much as the observer (quiet, 71a5e76: the plain runs
# alone spread 42.8k-55.2k requests/s). Now one API serves every run, warmed by one plain and one observed run first
# (not counted); the runner loads it with `run --url` (the runner mode used to run `compute` on its own child).
# Usage: scripts/observer-cost.sh [--observer runner|watch|trace|session|routes|stacks|causes|calls] [pairs] [users] [seconds]
#   (default 3 pairs, 16 users, 20 s per run). Needs curl and python3. Exit 2 with one line on bad input.
# The quiet figures (nothing else running; docs/notebook/performance.md, "The observer's cost in one warmed API"):
#   for i in 1 2 3; do scripts/observer-cost.sh 3 16 20; done                # issue 42's bar: >= 0.95 in every pair
#   BASELINE_RUNNER=<main's build>/ConcurrencySandbox.LoadTests.dll scripts/observer-cost.sh 3 16 20   # before/after
#   for p in session routes stacks causes calls; do scripts/observer-cost.sh --observer $p 3 16 20; done    # the parts
set -euo pipefail
cd "$(dirname "$0")/.."
observer=runner
if [ "${1:-}" = "--observer" ]; then
  observer="${2:-}"
  shift 2 || shift
fi
case "$observer" in
  runner | watch | trace | session | routes | stacks | causes | calls) ;;
  *) echo "--observer must be runner, watch, trace, session, routes, stacks, causes or calls, not '$observer'" >&2; exit 2 ;;
esac
# CauseTrace.Providers on .NET 10 in dotnet-trace's words: the runtime's AllocationSampling keyword at Informational (4).
# (Before: the GC keyword at Verbose, Microsoft-Windows-DotNETRuntime:0x1:5. Until 2026-11-29 the trace also held
# System.Net.Http:0xFFFFFFFFFFFFFFFF:4 and System.Threading.Tasks.TplEventSource:0x80:4, now the calls' own session.)
trace_providers="Microsoft-Windows-DotNETRuntime:0x80000000000:4"
(($# <= 3)) || { echo "at most three numbers (pairs, users, seconds), not '$*'" >&2; exit 2; }
pairs=${1:-3}; users=${2:-16}; seconds=${3:-20}
[[ "$pairs" =~ ^[0-9]+$ ]] && (( pairs >= 1 && pairs <= 20 )) || { echo "pairs must be 1..20, not '$pairs'" >&2; exit 2; }
[[ "$users" =~ ^[0-9]+$ ]] && (( users >= 1 && users <= 1024 )) || { echo "users must be 1..1024, not '$users'" >&2; exit 2; }
[[ "$seconds" =~ ^[0-9]+$ ]] && (( seconds >= 6 && seconds <= 59 )) || { echo "seconds must be 6..59 (the observer's parts take the first 5), not '$seconds'" >&2; exit 2; }
upstream_calls=${UPSTREAM_CALLS:-}
[ -z "$upstream_calls" ] || { [[ "$upstream_calls" =~ ^[0-9]+$ ]] && (( upstream_calls >= 1 && upstream_calls <= 64 )); } ||
  { echo "UPSTREAM_CALLS must be 1..64, not '$upstream_calls'" >&2; exit 2; }
modes=(observed plain)
if [ -n "${BASELINE_RUNNER:-}" ] && [ "$observer" != trace ]; then
  [ "$observer" = runner ] || [ "$observer" = watch ] || { echo "BASELINE_RUNNER goes with --observer runner or watch, not '$observer'" >&2; exit 2; }
  [ -f "$BASELINE_RUNNER" ] || { echo "BASELINE_RUNNER is not a file: '$BASELINE_RUNNER'" >&2; exit 2; }
  modes+=(baseline)
elif [ -n "${BASELINE_TRACE_PROVIDERS:-}" ] && [ "$observer" = trace ]; then
  modes+=(baseline)
fi
for tool in curl python3; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed: apt-get install -y $tool" >&2; exit 2; }
done
source scripts/wrk-bench-lib.sh
dotnet build loadtests/ConcurrencySandbox.LoadTests -c Release -v quiet -nologo >/dev/null
runner=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll
part_app=docs/notebook/investigations/observer-part.cs
case "$observer" in
  session | routes | stacks | causes | calls) dotnet build "$part_app" -v quiet -nologo >/dev/null ;;
esac
# Named for this script: a cleanup of /tmp/tmp.* by something else on a shared machine took the API log of two runs.
work=$(mktemp -d -t observer-cost.XXXXXX)
api_pid=""
side_pid=""
stub_pid=""
cleanup() {
  for pid in "$side_pid" "$api_pid" "$stub_pid"; do
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
printf '{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [%d, "00:00:%02d"] } ] }\n' "$users" "$seconds" >"$work/load.json"
if [ -n "$upstream_calls" ]; then
  dotnet build src/ConcurrencySandbox.ThirdPartyStub -c Release -v quiet -nologo >/dev/null
  dotnet src/ConcurrencySandbox.ThirdPartyStub/bin/Release/net10.0/ConcurrencySandbox.ThirdPartyStub.dll --urls http://127.0.0.1:0 \
    --Logging:LogLevel:Default=Warning >"$work/stub.log" 2>&1 &
  stub_pid=$!
  ready_url "$work/stub.log" "ConcurrencySandbox stub ready at"
  [ -n "$ready" ] || { echo "the stub printed no ready line" >&2; cat "$work/stub.log" >&2; exit 2; }
  export ThirdParty__BaseUrl="$ready"
fi
start_api "$(dirname "$runner")/api/ConcurrencySandbox.Api.dll" "$work"
target="$url/api/compute/sync?cycles=1"
[ -z "$upstream_calls" ] || target="$url/api/fanout?calls=$upstream_calls&delayMs=0&strategy=async"
echo "# observer cost ($observer): $pairs pairs, $users users, $seconds s per run, one API (pid $api_pid) on ${target#"$url"}; $(bench_header)"

# attached PATTERN LOG NAME: waits up to a minute for $side_pid's LOG to show PATTERN (it attached); exits when it ended first.
attached() {
  for _ in $(seq 1 600); do
    grep -q "$1" "$2" && return
    kill -0 "$side_pid" 2>/dev/null || { echo "$3 ended before it attached:" >&2; cat "$2" >&2; exit 2; }
    sleep 0.1
  done
}

# side MODE RUN: starts what observes the API beside a --no-observer run (watch, dotnet-trace or one part); none for the
# runner's own observer or a plain run.
side() {
  local log="$work/side-$2.log"
  case "$observer/$1" in
    runner/* | */plain) return ;;
    watch/*)
      local dll=$runner
      [ "$1" = baseline ] && dll=$BASELINE_RUNNER
      dotnet "$dll" watch --pid "$api_pid" --out "$work/watch-$2" >"$log" 2>&1 &
      side_pid=$!
      attached '^watching ' "$log" watch ;;
    trace/*)
      local providers=$trace_providers
      [ "$1" = baseline ] && providers=$BASELINE_TRACE_PROVIDERS
      # Longer than the load: the trace covers all of it and ends by itself (its rundown after the load).
      "${DOTNET_TRACE:-dotnet-trace}" collect -p "$api_pid" --providers "$providers" --duration "00:00:$(printf '%02d' $((seconds + 5)))" \
        -o "$work/trace-$2.nettrace" >"$log" 2>&1 &
      side_pid=$!
      attached 'Output File' "$log" dotnet-trace ;;
    *)
      # The part, when the runner would take it: the route window with the first interval row (2 s into the load), the stack
      # sample and the allocation trace a second later (VariantObserver.OnInterval), the calls from then to the load's end;
      # the session from the start to the end.
      local delay=2 hold=0
      [ "$observer" = session ] && delay=0 hold=$seconds
      [ "$observer" = stacks ] || [ "$observer" = causes ] && delay=3
      [ "$observer" = calls ] && delay=2 hold=$((seconds - 2))
      dotnet run --no-build --file "$part_app" -- "$api_pid" "$observer" "$delay" "$hold" "$target" >"$log" 2>&1 &
      side_pid=$! ;;
  esac
}

# side_done RUN: waits for (watch: stops) what side started, and says what it did.
side_done() {
  [ -n "$side_pid" ] || return 0
  local log="$work/side-$1.log"
  # SIGTERM ends a watch as Ctrl+C does (its report written, exit 0); a background job of a script ignores SIGINT.
  [ "$observer" = watch ] && kill -TERM "$side_pid"
  wait "$side_pid" || { echo "$observer ($1) exited with $?:" >&2; cat "$log" >&2; exit 2; }
  side_pid=""
  echo "  $observer $1: $(tail -n 1 "$log")"
  rm -f "$work/trace-$1.nettrace"
}

# run MODE RUN: one constant load on the API, observed (or baseline) or plain; appends "MODE RUN rps api-us runner-us" to $work/runs.txt.
run() {
  local dll=$runner flags=(--no-observer)
  [ "$observer" = runner ] && [ "$1" != plain ] && flags=(--pid "$api_pid")
  [ "$observer/$1" = runner/baseline ] && dll=$BASELINE_RUNNER
  side "$1" "$2"
  local requests ticks
  requests=$(curl -fsS "$url/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p')
  read_cpu_ticks "$api_pid"; ticks=$cpu_ticks
  /usr/bin/time -f '%U %S' -o "$work/time-$2" dotnet "$dll" run --url "$target" --config "$work/load.json" --out "$work/$2" "${flags[@]}" >"$work/runner-$2.log" 2>&1 ||
    { echo "the runner's $1 run $2 failed:" >&2; tail -n 5 "$work/runner-$2.log" >&2; exit 2; }
  read_cpu_ticks "$api_pid"; ticks=$((cpu_ticks - ticks))
  requests=$(( $(curl -fsS "$url/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p') - requests - 1 ))
  side_done "$2"
  python3 - "$work/$2/summary.json" "$1" "$2" "$ticks" "$clock_ticks_per_second" "$requests" "$work/time-$2" <<'PY' >>"$work/runs.txt"
import json, sys
summary, mode, run, ticks, hz, requests, timing = sys.argv[1:]
rps = json.load(open(summary))["variants"][0]["requestsPerSecond"]
runner_seconds = sum(float(x) for x in open(timing).read().split()[-2:])
print(f"{mode} {run} {rps:.1f} {int(ticks) / int(hz) / int(requests) * 1e6:.2f} {runner_seconds / int(requests) * 1e6:.2f}")
PY
}

# Warm-up, not counted: the API's JIT and pool, and its first EventPipe session, before anything is compared.
for mode in plain observed; do run "$mode" "warm-$mode" >/dev/null; done
echo "# warmed; $(uptime)"
for i in $(seq 1 "$pairs"); do
  # The order turns with each pair (observed plain, plain observed, ...), so a drift of the machine or the API lands on both.
  n=${#modes[@]}
  for k in $(seq 0 $((n - 1))); do
    if (( i % 2 == 1 )); then mode=${modes[k]}; else mode=${modes[n - 1 - k]}; fi
    run "$mode" "$mode-$i"
    tail -n 1 "$work/runs.txt" | awk '{ printf "%s: %.0f requests/s, the API %.2f us of CPU per request, the runner %.2f us\n", $2, $3, $4, $5 }'
  done
done
python3 - "$work/runs.txt" <<'PY'
import re, sys
rows = [l.split() for l in open(sys.argv[1]) if not l.split()[1].startswith("warm-")]
def by(mode): return {int(re.sub(r"\D", "", r[1])): (float(r[2]), float(r[3]), float(r[4])) for r in rows if r[0] == mode}
plain = by("plain")
for mode in ("observed", "baseline"):
    runs = by(mode)
    if not runs:
        continue
    pairs = sorted(runs)
    rps = [runs[i][0] / plain[i][0] for i in pairs]
    cpu = [runs[i][1] / plain[i][1] for i in pairs]
    mean = lambda xs: sum(xs) / len(xs)
    print(f"{mode}: throughput ratio per pair " + ", ".join(f"{r:.3f}" for r in rps)
          + f"; ratio of means {mean([runs[i][0] for i in pairs]) / mean([plain[i][0] for i in pairs]):.3f}; worst pair {min(rps):.3f}")
    print(f"{mode}: the API's CPU per request per pair " + ", ".join(f"{c:.3f}" for c in cpu) + " x plain"
          + f"; means {mean([runs[i][1] for i in pairs]):.2f} us against {mean([plain[i][1] for i in pairs]):.2f} us ({mean([runs[i][1] for i in pairs]) / mean([plain[i][1] for i in pairs]) - 1:+.1%})")
    print(f"{mode}: the runner's CPU per request {mean([runs[i][2] for i in pairs]):.2f} us against {mean([plain[i][2] for i in pairs]):.2f} us plain")
PY
echo "# done; $(uptime)"
