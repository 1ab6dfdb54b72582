#!/usr/bin/env bash
# What the runtime observer costs the API: compute/sync?cycles=1 under a constant closed load, runs alternating
# with and without the observer, the sync variant's throughput compared. Loopback only.
#   --observer runner (default): the runner's own observer on the API child it starts (observed) against --no-observer.
#   --observer watch: `watch --pid` (issue 40's passive watch, the same observer) on one fresh API per run, which the
#     runner loads with --target and --no-observer; plain runs have no watch. Issue 40 allows watch 5 % (0.95). Each
#     run also prints the API's own CPU per request over the whole run (both of compute's variants; /proc and the
#     API's requestsStarted), which a busy machine disturbs far less than the throughput.
#   --observer trace: the cause trace the runner takes for 1 s at each step's peak (issue 38: .NET 10's allocation
#     samples with stacks, System.Net.Http's events, the TPL's activity ids; CauseTrace.Providers), held by
#     dotnet-trace (DOTNET_TRACE=path, else dotnet-trace on PATH) over the whole run of one fresh API per run: its
#     cost over the second it runs. Plain runs have no trace.
#   BASELINE_RUNNER=path/to/ConcurrencySandbox.LoadTests.dll: each pair also runs that build's observer ("baseline",
#     the same way), so a change to the observer is measured before/after side by side, in the same minutes. With
#     --observer trace the baseline is a trace of BASELINE_TRACE_PROVIDERS (dotnet-trace's words) instead.
# Usage: scripts/observer-cost.sh [--observer runner|watch|trace] [pairs] [users] [seconds]
#   (default 3 pairs, 16 users, 20 s per variant)
set -euo pipefail
cd "$(dirname "$0")/.."
observer=runner
if [ "${1:-}" = "--observer" ]; then
  observer="${2:-}"
  shift 2 || shift
fi
[ "$observer" = runner ] || [ "$observer" = watch ] || [ "$observer" = trace ] || { echo "--observer must be runner, watch or trace, not '$observer'" >&2; exit 2; }
# CauseTrace.Providers on .NET 10 in dotnet-trace's words: the runtime's AllocationSampling keyword at Informational (4),
# System.Net.Http's events, the TPL's TasksFlowActivityIds. (Before: the GC keyword at Verbose, Microsoft-Windows-DotNETRuntime:0x1:5.)
trace_providers="Microsoft-Windows-DotNETRuntime:0x80000000000:4,System.Net.Http:0xFFFFFFFFFFFFFFFF:4,System.Threading.Tasks.TplEventSource:0x80:4"
pairs=${1:-3}; users=${2:-16}; seconds=${3:-20}
[[ "$pairs" =~ ^[0-9]+$ ]] && (( pairs >= 1 && pairs <= 20 )) || { echo "pairs must be 1..20, not '$pairs'" >&2; exit 2; }
[[ "$users" =~ ^[0-9]+$ ]] && (( users >= 1 && users <= 1024 )) || { echo "users must be 1..1024, not '$users'" >&2; exit 2; }
[[ "$seconds" =~ ^[0-9]+$ ]] && (( seconds >= 2 && seconds <= 59 )) || { echo "seconds must be 2..59, not '$seconds'" >&2; exit 2; }
source scripts/wrk-bench-lib.sh
dotnet build loadtests/ConcurrencySandbox.LoadTests -c Release -v quiet -nologo >/dev/null
work=$(mktemp -d)
api_pid=""
watch_pid=""
cleanup() {
  for pid in "$watch_pid" "$api_pid"; do
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT
printf '{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [%d, "00:00:%02d"] } ] }\n' "$users" "$seconds" >"$work/load.json"
runner=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll
modes=(observed plain)
if [ "$observer" = trace ] && [ -n "${BASELINE_TRACE_PROVIDERS:-}" ]; then
  modes+=(baseline)
elif [ "$observer" != trace ] && [ -n "${BASELINE_RUNNER:-}" ]; then
  [ -f "$BASELINE_RUNNER" ] || { echo "BASELINE_RUNNER is not a file: '$BASELINE_RUNNER'" >&2; exit 2; }
  modes+=(baseline)
fi
echo "# observer cost ($observer): $pairs pairs, $users users, $seconds s per variant; $(nproc) cores; $(uptime)"

# attached PATTERN LOG NAME: waits up to a minute for $watch_pid's LOG to show PATTERN (it attached); exits when it ended first.
attached() {
  for _ in $(seq 1 600); do
    grep -q "$1" "$2" && return
    kill -0 "$watch_pid" 2>/dev/null || { echo "$3 ended before it attached:" >&2; cat "$2" >&2; exit 2; }
    sleep 0.1
  done
}

# load MODE PAIR: one compute run (the sync variant's throughput is what is compared), its report in $work/MODE-PAIR;
# the observer is this build's (observed), none (plain) or BASELINE_RUNNER's (baseline).
load() {
  local flag="" observing=$runner
  [ "$1" = baseline ] && observing=$BASELINE_RUNNER
  if [ "$observer" = runner ]; then
    [ "$1" = plain ] && flag="--no-observer"
    # One whole ramp per variant: a --config run keeps its shape in one round; the pairs here alternate the observer.
    # shellcheck disable=SC2086 # an empty flag is no argument
    dotnet "$observing" compute --cycles 1 --config "$work/load.json" --out "$work/$1-$2" $flag >/dev/null
    return
  fi
  # watch / trace: a fresh API, watched or traced (observed) or not (plain) for the whole run; the runner itself observes nothing.
  start_api "$(dirname "$runner")/api/ConcurrencySandbox.Api.dll" "$work"
  if [ "$1" != plain ] && [ "$observer" = trace ]; then
    local providers=$trace_providers
    [ "$1" = baseline ] && providers=$BASELINE_TRACE_PROVIDERS
    # Longer than the load: the trace covers all of it and ends by itself (its rundown after the load).
    "${DOTNET_TRACE:-dotnet-trace}" collect -p "$api_pid" --providers "$providers" --duration "00:00:$(printf '%02d' $((seconds + 5)))" \
      -o "$work/trace-$2.nettrace" >"$work/trace-$2.log" 2>&1 &
    watch_pid=$!
    attached 'Output File' "$work/trace-$2.log" dotnet-trace
  elif [ "$1" != plain ]; then
    dotnet "$observing" watch --pid "$api_pid" --out "$work/watch-$2" >"$work/watch-$2.log" 2>&1 &
    watch_pid=$!
    attached '^watching ' "$work/watch-$2.log" watch
  fi
  read_cpu_ticks "$api_pid"; local ticks=$cpu_ticks
  dotnet "$runner" compute --target "$url" --no-observer --cycles 1 --config "$work/load.json" --out "$work/$1-$2" >/dev/null
  read_cpu_ticks "$api_pid"; ticks=$((cpu_ticks - ticks))
  local requests
  requests=$(curl -fsS "$url/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p')
  awk -v m="$1" -v p="$2" -v t="$ticks" -v hz="$clock_ticks_per_second" -v n="$requests" \
    'BEGIN { printf "%s %s: the API spent %.1f us of CPU per request (%d requests)\n", m, p, t / hz / n * 1e6, n }' | tee -a "$work/cpu.txt"
  if [ -n "$watch_pid" ] && [ "$observer" = trace ]; then
    wait "$watch_pid" || { echo "dotnet-trace exited with $?:" >&2; cat "$work/trace-$2.log" >&2; exit 2; }
    watch_pid=""
    echo "trace $2: $(du -h "$work/trace-$2.nettrace" | cut -f1) written"
    rm -f "$work/trace-$2.nettrace"
  elif [ -n "$watch_pid" ]; then
    # SIGTERM ends a watch as Ctrl+C does (its report written, exit 0); a background job of a script ignores SIGINT.
    kill -TERM "$watch_pid"
    wait "$watch_pid" || { echo "watch exited with $?:" >&2; cat "$work/watch-$2.log" >&2; exit 2; }
    watch_pid=""
    echo "watch $2: $(tail -n 1 "$work/watch-$2.log")"
  fi
  kill "$api_pid"
  wait "$api_pid" 2>/dev/null || true
  api_pid=""
}

for i in $(seq 1 "$pairs"); do
  for mode in "${modes[@]}"; do
    load "$mode" "$i"
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=[x for x in d["variants"] if x["name"]=="sync"][0]; print(sys.argv[2], sys.argv[3], round(v["requestsPerSecond"],1))' \
      "$work/$mode-$i/summary.json" "$mode" "$i" | tee -a "$work/rps.txt"
  done
done
python3 - "$work/rps.txt" <<'PY'
import sys
rows=[l.split() for l in open(sys.argv[1])]
plain=[float(r[2]) for r in rows if r[0]=="plain"]
for mode in ("observed", "baseline"):
    rps=[float(r[2]) for r in rows if r[0]==mode]
    if rps:
        print(f"{mode} mean {sum(rps)/len(rps):.1f} rps, plain mean {sum(plain)/len(plain):.1f} rps, ratio {sum(rps)/sum(plain):.3f}")
        print(f"{mode} pair ratios: " + ", ".join(f"{o/p:.3f}" for o, p in zip(rps, plain)))
PY
if [ -f "$work/cpu.txt" ]; then
  # Mean of the runs' API CPU per request, per mode; observed over plain is what watch adds to each request.
  awk '{ sum[$1] += $6; n[$1]++ } END { for (m in sum) printf "%s: the API %.2f us of CPU per request (mean of %d runs)%s\n", m, sum[m] / n[m], n[m], (m != "plain" && n["plain"] ? sprintf(", %.3f x plain", (sum[m] / n[m]) / (sum["plain"] / n["plain"])) : "") }' "$work/cpu.txt"
fi
echo "# done; $(uptime)"
