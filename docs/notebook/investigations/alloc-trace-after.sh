#!/usr/bin/env bash
# Issue 42: does the runner's allocation trace (CauseTrace.Record: 1 s of the AllocationSampling keyword with the
# rundown) leave the API dearer after it stopped? Two APIs, each under its own wrk (1 thread, 16 connections,
# compute/sync?cycles=1) at the same time, so the machine's noise falls on both; PHASE_S-second phases: BEFORE phases,
# then the allocation trace on API A alone (observer-part.cs causes, the runner's own code), then AFTER phases. Per
# phase, each API's CPU per request (/proc over its requestsStarted) and A over B. With PERF=1, perf's CPU samples of A
# over the last before-phase and the first after-phase (the runtime's perf map on), the top symbols of each, so the
# frames that grow say what the trace left behind. Robust to a busy machine by design (a ratio inside each phase).
# Usage: docs/notebook/investigations/alloc-trace-after.sh [before=2] [after=4] [phase seconds=8]  (Release build first)
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
R=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0
before=${1:-2}; after=${2:-4}; seconds=${3:-8}
part_app=docs/notebook/investigations/observer-part.cs
dotnet build "$part_app" -v quiet -nologo >/dev/null
W=$(mktemp -d)
if [ "${PERF:-0}" = 1 ]; then export DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0; fi
mkdir -p "$W/a" "$W/b"
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W/a"; a_pid=$api_pid; a_url=$url
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W/b"; b_pid=$api_pid; b_url=$url
unset DOTNET_PerfMapEnabled DOTNET_EnableWriteXorExecute
wrk -t1 -c16 -d3600s "$a_url/api/compute/sync?cycles=1" >"$W/wrk-a.log" 2>&1 & wa=$!
wrk -t1 -c16 -d3600s "$b_url/api/compute/sync?cycles=1" >"$W/wrk-b.log" 2>&1 & wb=$!
trap 'kill $wa $wb $a_pid $b_pid 2>/dev/null || true; [ -n "${KEEP:-}" ] && cp -r "$W/." "$KEEP/" ; rm -rf "$W"' EXIT
sleep 20
echo "# allocation trace's after-cost: $before before, $after after, $seconds s phases; $(bench_header)"
phase() { # NAME [perf]
  local n0a n0b t0a t0b n1a n1b from
  requests_started "$a_url"; n0a=$started; requests_started "$b_url"; n0b=$started
  read_cpu_ticks "$a_pid"; t0a=$cpu_ticks; read_cpu_ticks "$b_pid"; t0b=$cpu_ticks; from=$EPOCHREALTIME
  if [ "${2:-}" = perf ]; then perf record -F 499 -g -p "$a_pid" -o "$W/$1.perf" -- sleep "$seconds" >/dev/null 2>&1; else sleep "$seconds"; fi
  requests_started "$a_url"; n1a=$started; requests_started "$b_url"; n1b=$started
  read_cpu_ticks "$a_pid"; local ca=$((cpu_ticks - t0a)); read_cpu_ticks "$b_pid"; local cb=$((cpu_ticks - t0b))
  python3 - "$1" "$ca" "$cb" $((n1a - n0a)) $((n1b - n0b)) "$clock_ticks_per_second" "$(uptime | sed 's/.*load average: //')" <<'PY'
import sys
name, ca, cb, na, nb, hz, load = sys.argv[1], *map(float, sys.argv[2:7]), sys.argv[7]
ua, ub = ca / hz * 1e6 / max(na, 1), cb / hz * 1e6 / max(nb, 1)
print(f"{name:9} A {ua:5.1f} us/req ({na:.0f} req)  B {ub:5.1f} us/req ({nb:.0f} req)  A/B {ua / ub:.3f}  load {load}")
PY
}
for i in $(seq 1 "$before"); do phase "before$i" $([ "${PERF:-0}" = 1 ] && [ "$i" = "$before" ] && echo perf); done
dotnet run --no-build --file "$part_app" -- "$a_pid" causes 0 0 "$a_url/api/compute/sync?cycles=1" 2>&1 | tail -1
for i in $(seq 1 "$after"); do phase "after$i" $([ "${PERF:-0}" = 1 ] && [ "$i" = 1 ] && echo perf); done
if [ "${PERF:-0}" = 1 ]; then
  for p in "before$before" after1; do
    echo "## top symbols of A, $p (self, share of samples)"
    perf report -i "$W/$p.perf" --no-children --sort sym --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' | head -25
  done
fi
