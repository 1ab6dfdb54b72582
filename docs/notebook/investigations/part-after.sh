#!/usr/bin/env bash
# Issue 42: does one of the runner's once-a-run parts (observer-part.cs: routes, stacks or causes; PART=, default causes,
# the allocation trace this script was first written for as alloc-trace-after.sh) leave the API dearer after it stopped?
# Two APIs, each under its own wrk (1 thread, 16 connections, compute/sync?cycles=1) at the same time, so the machine's
# noise falls on both; PHASE_S-second phases: BEFORE phases, then the part on API A alone (the runner's own code), then
# AFTER phases. Per phase, each API's CPU per request (/proc over its requestsStarted), A over B, and A's threads (count,
# and the names that came or went since the last before-phase: a session's threads that outlive it). SESSION=1 holds the
# runner's always-on session (observer-part.cs session) on both APIs for the whole run, as the runner holds it around its
# parts. With PERF=1, perf's CPU samples of A over the last before-phase and the first after-phase (the runtime's perf
# map on), the top modules and symbols of each, so the frames that grow say what the part left behind. Robust to a busy
# machine by design (a ratio inside each phase).
# Usage: [PART=routes|stacks|causes] [SESSION=1] [PERF=1] docs/notebook/investigations/part-after.sh [before=2] [after=4] [phase seconds=8]
# (Release build first)
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
R=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0
part=${PART:-causes}
case "$part" in routes | stacks | causes) ;; *) echo "PART must be routes, stacks or causes, not '$part'" >&2; exit 2 ;; esac
before=${1:-2}; after=${2:-4}; seconds=${3:-8}
part_app=docs/notebook/investigations/observer-part.cs
dotnet build "$part_app" -v quiet -nologo >/dev/null
W=$(mktemp -d)
if [ "${PERF:-0}" = 1 ]; then export DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0; fi
mkdir -p "$W/a" "$W/b"
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W/a"; a_pid=$api_pid; a_url=$url
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W/b"; b_pid=$api_pid; b_url=$url
unset DOTNET_PerfMapEnabled DOTNET_EnableWriteXorExecute
sessions=""
if [ "${SESSION:-0}" = 1 ]; then
  for p in "$a_pid" "$b_pid"; do
    dotnet run --no-build --file "$part_app" -- "$p" session 0 3600 "$a_url/" >"$W/session-$p.log" 2>&1 &
    sessions="$sessions $!"
  done
fi
wrk -t1 -c16 -d3600s "$a_url/api/compute/sync?cycles=1" >"$W/wrk-a.log" 2>&1 & wa=$!
wrk -t1 -c16 -d3600s "$b_url/api/compute/sync?cycles=1" >"$W/wrk-b.log" 2>&1 & wb=$!
# shellcheck disable=SC2086 # a list of pids
trap 'kill $wa $wb $sessions $a_pid $b_pid 2>/dev/null || true; [ -n "${KEEP:-}" ] && cp -r "$W/." "$KEEP/" ; rm -rf "$W"' EXIT
# Both APIs' tiered compilation done before the first phase: after 20 s under wrk at a load average of 26, the runtime's
# JIT still took 8.9 % of A's samples in the second before-phase (2026-11-30, PERF=1), so the before-phases measured the
# tier-up as well as the steady state.
sleep 40
echo "# $part's after-cost on A$([ "${SESSION:-0}" = 1 ] && echo ', the always-on session held on both'): $before before, $after after, $seconds s phases; $(bench_header)"
# threads PID: sorts the process's thread names, one a line (the runtime's and the pool's threads by their comm).
threads() { cat /proc/"$1"/task/*/comm 2>/dev/null | sort; }
phase() { # NAME [perf]
  local n0a n0b t0a t0b n1a n1b from
  requests_started "$a_url"; n0a=$started; requests_started "$b_url"; n0b=$started
  read_cpu_ticks "$a_pid"; t0a=$cpu_ticks; read_cpu_ticks "$b_pid"; t0b=$cpu_ticks; from=$EPOCHREALTIME
  if [ "${2:-}" = perf ]; then perf record -F 499 -g -p "$a_pid" -o "$W/$1.perf" -- sleep "$seconds" >/dev/null 2>&1; else sleep "$seconds"; fi
  requests_started "$a_url"; n1a=$started; requests_started "$b_url"; n1b=$started
  read_cpu_ticks "$a_pid"; local ca=$((cpu_ticks - t0a)); read_cpu_ticks "$b_pid"; local cb=$((cpu_ticks - t0b))
  threads "$a_pid" >"$W/threads-$1"
  local changed=""
  # "> .NET TP Worker x2; < .NET SigHandler x1": the names that came (>) or went (<) since the last before-phase.
  [ ! -f "$W/threads-base" ] || changed=$(diff "$W/threads-base" "$W/threads-$1" | grep '^[<>]' | sort | uniq -c | awk '{c = $1; $1 = ""; printf "%s x%s; ", substr($0, 2), c}' || true)
  python3 - "$1" "$ca" "$cb" $((n1a - n0a)) $((n1b - n0b)) "$clock_ticks_per_second" "$(uptime | sed 's/.*load average: //')" \
    "$(wc -l <"$W/threads-$1")" "$changed" <<'PY'
import sys
name, ca, cb, na, nb, hz, load, count, changed = sys.argv[1], *map(float, sys.argv[2:7]), sys.argv[7], sys.argv[8], sys.argv[9]
ua, ub = ca / hz * 1e6 / max(na, 1), cb / hz * 1e6 / max(nb, 1)
print(f"{name:9} A {ua:5.1f} us/req ({na:.0f} req)  B {ub:5.1f} us/req ({nb:.0f} req)  A/B {ua / ub:.3f}  load {load}; A's threads {count}"
      + (f" (since before: {changed.strip()})" if changed.strip() else ""))
PY
}
for i in $(seq 1 "$before"); do phase "before$i" $([ "${PERF:-0}" = 1 ] && [ "$i" = "$before" ] && echo perf); done
cp "$W/threads-before$before" "$W/threads-base"
dotnet run --no-build --file "$part_app" -- "$a_pid" "$part" 0 0 "$a_url/api/compute/sync?cycles=1" 2>&1 | tail -1
for i in $(seq 1 "$after"); do phase "after$i" $([ "${PERF:-0}" = 1 ] && [ "$i" = 1 ] && echo perf); done
if [ "${PERF:-0}" = 1 ]; then
  for p in "before$before" after1; do
    echo "## top modules and symbols of A, $p (self, share of samples)"
    perf report -i "$W/$p.perf" --no-children --sort dso,sym --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' | head -30
  done
fi
