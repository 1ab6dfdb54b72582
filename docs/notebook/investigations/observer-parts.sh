#!/usr/bin/env bash
# Issue 42 item 3 / issue 38: where the observer's cost goes, part by part, on ONE warmed API under wrk (16 connections,
# 1 thread, compute/sync?cycles=1). 30 s of warm-up, then 8 s phases in rounds: none, then each part of the runtime
# observer's session and of the cause trace alone, held by dotnet-trace (so with a stack per event, as the cause trace
# asks; the always-on parts write a handful of events a second), and this build's own `watch` (the whole light
# session). Per phase: the API's rate and CPU per request (/proc over its own requestsStarted), and the events the
# part wrote per second (EVENTS=1, the first round's traces counted by provider/event with nettrace-events.cs, a
# file-based app), and (PERF=1) perf's CPU samples of the API over the phase (the runtime's perf map on), the share of
# them inside what each part makes the service do (inclusive: the request-duration metric's recording, EventPipe's
# writes and stack walks, the TPL's activity ids, the hosting event source's per-request calls and the activities they
# start), which a busy machine disturbs far less than the CPU per request. A tpl-flow phase turns the service's activity
# tracking on for good: `watch` phases after it show what every request then pays while ASP.NET Core's counters are read.
# Usage: DOTNET_TRACE=path/to/dotnet-trace docs/notebook/investigations/observer-parts.sh [rounds=2] [phase seconds=8]
# (PHASES="none route-metric ..." runs only those phases, in that order.)
# (Release build of this checkout first). Needs wrk, curl and dotnet-trace.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
R=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0
trace=${DOTNET_TRACE:-dotnet-trace}
rounds=${1:-2}; seconds=${2:-8}
W=$(mktemp -d)
# perf names jitted code through the runtime's perf map, which needs the code at the addresses it was written to (no W^X double mapping).
if [ "${PERF:-0}" = 1 ]; then export DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0; fi
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W"
unset DOTNET_PerfMapEnabled DOTNET_EnableWriteXorExecute
side=""
wrk_pid=""
perf_no=0
trap 'kill $wrk_pid $api_pid $side 2>/dev/null || true; rm -rf "$W"' EXIT
# The parts, in dotnet-trace's words (provider:keywords:level[:arguments]); RuntimeObserver.Session and CauseTrace.Providers say why each is there.
declare -A parts=(
  [counters]="System.Runtime:0:4:EventCounterIntervalSec=1,Microsoft.AspNetCore.Hosting:0:1:EventCounterIntervalSec=1"
  [route-metric]="System.Diagnostics.Metrics:0x2:4:SessionId=parts;Metrics=Microsoft.AspNetCore.Hosting\\\\http.server.request.duration;RefreshInterval=1;MaxTimeSeries=100;MaxHistograms=20"
  [gc-verbose]="Microsoft-Windows-DotNETRuntime:0x1:5"
  [alloc-sampled]="Microsoft-Windows-DotNETRuntime:0x80000000000:4"
  [http-client]="System.Net.Http:0xFFFFFFFFFFFFFFFF:4"
  [tpl-flow]="System.Threading.Tasks.TplEventSource:0x80:4"
  [cause-trace]="Microsoft-Windows-DotNETRuntime:0x1:5,System.Net.Http:0xFFFFFFFFFFFFFFFF:4,System.Threading.Tasks.TplEventSource:0x80:4"
)
read -r -a order <<<"${PHASES:-none counters route-metric watch gc-verbose alloc-sampled http-client tpl-flow cause-trace}"
wrk -t1 -c16 -d3600s "$url/api/compute/sync?cycles=1" >"$W/wrk.log" 2>&1 &
wrk_pid=$!
sleep 30
echo "# observer parts: $rounds rounds of $seconds s phases; $(nproc) cores; $(uptime)"
started() { curl -fsS "$url/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p'; }
phase() {
  local name=$1 round=$2 n0 t0 n1 from to
  if [ "$name" = watch ]; then
    dotnet "$R/ConcurrencySandbox.LoadTests.dll" watch --pid "$api_pid" --out "$W/watch" >"$W/watch.log" 2>&1 &
    side=$!
    for _ in $(seq 1 300); do grep -q '^watching ' "$W/watch.log" && break; sleep 0.1; done
  elif [ "$name" != none ]; then
    "$trace" collect -p "$api_pid" --providers "${parts[$name]}" --rundown false -o "$W/$name-$round.nettrace" >"$W/$name.log" 2>&1 &
    side=$!
    for _ in $(seq 1 300); do grep -q 'Output File' "$W/$name.log" && break; sleep 0.1; done
    kill -0 "$side" 2>/dev/null || { echo "dotnet-trace ended before it attached:" >&2; cat "$W/$name.log" >&2; exit 2; }
  fi
  sleep 1
  n0=$(started); read_cpu_ticks "$api_pid"; t0=$cpu_ticks; from=$EPOCHREALTIME
  if [ "${PERF:-0}" = 1 ]; then
    # Numbered in the order taken: PHASES may name a part twice in a round.
    perf_no=$((perf_no + 1))
    perf record -q -F 499 -g -p "$api_pid" -o "$W/$(printf %02d "$perf_no")-$name-$round.perf" -- sleep "$seconds" 2>>"$W/perf.log" || { echo "perf record failed:" >&2; cat "$W/perf.log" >&2; }
  else
    sleep "$seconds"
  fi
  n1=$(started); read_cpu_ticks "$api_pid"; to=$EPOCHREALTIME
  if [ -n "$side" ]; then kill -TERM "$side" 2>/dev/null || true; wait "$side" || true; side=""; fi
  awk -v m="$name" -v t=$((cpu_ticks - t0)) -v hz="$clock_ticks_per_second" -v n=$((n1 - n0)) -v a="$from" -v b="$to" \
    'BEGIN { printf "%-13s %6.0f requests/s, the API %.2f us of CPU per request\n", m, n / (b - a), t / hz / n * 1e6 }' | tee -a "$W/cpu.txt"
  if [ "$round" != 1 ]; then rm -f "$W/$name-$round.nettrace"; fi
}
for round in $(seq 1 "$rounds"); do for name in "${order[@]}"; do phase "$name" "$round"; done; done
phase none last
awk '{ sum[$1] += $(NF-5); n[$1]++ } END { for (m in sum) printf "%-13s mean %.2f us per request (%d phases)%s\n", m, sum[m]/n[m], n[m], (m != "none" ? sprintf(", %+.2f us against none", sum[m]/n[m] - sum["none"]/n["none"]) : "") }' "$W/cpu.txt" | sort
if [ "${PERF:-0}" = 1 ]; then
  # The API's samples per phase; inside the request-duration metric's recording (HostingMetrics.RequestEnd, inclusive),
  # in the runtime itself (libcoreclr.so, self: EventPipe's writes and stack walks; its symbols are stripped) and in the
  # TPL's event source (self: the activity ids TasksFlowActivityIds sets on each task).
  echo "## perf: the API's CPU samples per phase, and the shares inside each part's work"
  for f in "$W"/*.perf; do
    samples=$(perf script -i "$f" -F tid 2>/dev/null | wc -l)
    metric=$(perf report -i "$f" --children --sort sym --stdio -g none 2>/dev/null | awk '/HostingMetrics::RequestEnd/ { sub("%", "", $1); print $1; exit }')
    runtime=$(perf report -i "$f" --no-children --sort dso --stdio -g none 2>/dev/null | awk '/libcoreclr.so/ { sub("%", "", $1); print $1; exit }')
    tpl=$(perf report -i "$f" --no-children --sort sym --stdio -g none 2>/dev/null | awk '/TplEventSource|ActivityTracker|SetCurrentThreadActivityId/ { sub("%", "", $1); s += $1 } END { print s + 0 }')
    # Inclusive: the samples with ASP.NET Core's hosting event source (its RequestStart/RequestStop, called on every request
    # while its counters are enabled, at any level) or the activity tracking those Start/Stop events drive on the stack.
    hosting=$(perf script -i "$f" -F ip,sym 2>/dev/null | awk -v n="$samples" 'BEGIN { RS = "" } /HostingEventSource|RecordRequestStartEventLog|ActivityTracker/ { k++ } END { printf "%.2f", (n > 0 ? 100 * k / n : 0) }')
    printf '%-18s %6s samples; request-duration metric %5.2f %%, libcoreclr.so %5.2f %%, TPL activity ids %5.2f %%, hosting events and activities %5.2f %%\n' "$(basename "$f" .perf)" "$samples" "${metric:-0}" "${runtime:-0}" "$tpl" "$hosting"
  done
fi
if [ "${EVENTS:-0}" = 1 ]; then
  for f in "$W"/*-1.nettrace; do
    echo "## $(basename "$f" -1.nettrace): events per second over the phase"
    dotnet run "$(dirname "$0")/nettrace-events.cs" -- "$f" "$((seconds + 1))"
  done
fi
echo "# done; $(uptime)"
