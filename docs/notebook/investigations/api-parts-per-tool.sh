#!/usr/bin/env bash
# Issue 42: where the API's CPU goes under each load tool in the shared mode (nothing pinned), sampled with perf and the
# runtime's perf map. One API (perf map on), wrk (2 threads) and the runner (and BASELINE_RUNNER, a runner built from
# another commit, when given) each with 64 connections on compute/sync?cycles=1, all started, then stopped and
# continued in turns of SECONDS, ROUNDS rounds; in each turn perf samples the API (record -g) and counts its context
# switches, wake-ups, futex and epoll_wait, and the tool's polls. Per tool over its turns: its rate, the API's CPU per
# request, the API's samples by thread (pool workers, the socket engine's epoll thread, ...) and by part
# (scripts/perf-parts.py), the share in its pool workers' wait for work (spinning, sched_yield) and in context
# switches, and the API's events per request. The sampler's own cost is in the figures (judge shares); the counts cover
# perf stat's own window, which starts late on a busy machine, so compare them across tools (and the tool's sends per
# poll, a ratio), not with 1 per request.
# Usage: [BASELINE_RUNNER=dll] docs/notebook/investigations/api-parts-per-tool.sh [rounds=3] [seconds=3]
# (Release build of this checkout first.) Needs wrk, curl, perf.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
R=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0
rounds=${1:-3}; seconds=${2:-3}
W=$(mktemp -d)
export DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W"
unset DOTNET_PerfMapEnabled DOTNET_EnableWriteXorExecute
pids=()
trap 'for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done; kill "$api_pid" 2>/dev/null || true; rm -rf "$W"' EXIT
path="/api/compute/sync?cycles=1"
wrk_run 64 20 "$url$path" 2
lifetime=$((60 + 4 * rounds * seconds))
names=(wrk runner)
wrk -t2 -c64 -d"${lifetime}s" --timeout 30s "$url$path" >"$W/wrk.log" 2>&1 &
pids+=($!)
cat >"$W/shape.json" <<JSON
{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [64, "00:$(printf '%02d:%02d' $((lifetime / 60)) $((lifetime % 60)))"] } ] }
JSON
start_runner() {
  dotnet "$1" compute --target "$url" --config "$W/shape.json" --cycles 1 --out "$W/report$2" >"$W/runner$2.log" 2>&1 &
  pids+=($!)
  for _ in $(seq 1 600); do (( $(grep -c 'compute/sync t=' "$W/runner$2.log" || true) >= 3 )) && break; sleep 0.1; done
  kill -STOP "${pids[-1]}"
}
kill -STOP "${pids[0]}"
start_runner "$R/ConcurrencySandbox.LoadTests.dll" 1
if [ -n "${BASELINE_RUNNER:-}" ]; then names+=(baseline); start_runner "$BASELINE_RUNNER" 2; fi
started() { curl -fsS "$url/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p'; }
events=task-clock,context-switches,sched:sched_wakeup,syscalls:sys_enter_futex,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_sched_yield
echo "# API under each tool, shared mode: $rounds rounds of $seconds s turns; $(nproc) cpus; $(uptime)"
requests=(0 0 0); api_ticks=(0 0 0); elapsed=(0 0 0)
for round in $(seq 1 "$rounds"); do
  for slot in "${!names[@]}"; do
    n0=$(started); read_cpu_ticks "$api_pid"; t0=$cpu_ticks; from=$EPOCHREALTIME
    kill -CONT "${pids[$slot]}"
    perf record -q -F 999 -g -p "$api_pid" -o "$W/api-$slot-$round.perf" -- sleep "$seconds" 2>>"$W/perf.log" &
    recorder=$!
    perf stat -x, -e "$events" -p "$api_pid" -o "$W/api-$slot-$round.csv" -- sleep "$seconds" 2>>"$W/perf.log" &
    counter=$!
    perf stat -x, -e syscalls:sys_enter_epoll_wait,syscalls:sys_enter_sendto,syscalls:sys_enter_write -p "${pids[$slot]}" -o "$W/tool-$slot-$round.csv" -- sleep "$seconds" 2>>"$W/perf.log" &
    tool_counter=$!
    wait "$recorder" "$counter" "$tool_counter" || true
    kill -STOP "${pids[$slot]}"
    to=$EPOCHREALTIME
    sleep 0.02
    n1=$(started); read_cpu_ticks "$api_pid"
    requests[slot]=$((requests[slot] + n1 - n0 - 1)); api_ticks[slot]=$((api_ticks[slot] + cpu_ticks - t0))
    elapsed[slot]=$(awk -v e="${elapsed[$slot]}" -v a="$from" -v b="$to" 'BEGIN { printf "%.6f", e + b - a }')
  done
done
echo "# after: $(uptime)"
set +o pipefail  # the reports below end in head
for slot in "${!names[@]}"; do
  n=${requests[$slot]}
  awk -v name="${names[$slot]}" -v n="$n" -v s="${elapsed[$slot]}" -v t="${api_ticks[$slot]}" -v hz="$clock_ticks_per_second" \
    'BEGIN { printf "## %s: %.0f requests/s, the API %.2f us of CPU per request (%d requests)\n", name, n / s, t / hz / n * 1e6, n }'
  cat "$W"/api-"$slot"-*.csv | awk -F, -v n="$n" '$1 ~ /^[0-9.]+$/ { v[$3] += $1 } END {
    out = "API per request:"; for (e in v) { k = e; sub(/^(syscalls:sys_enter_|sched:sched_)/, "", k); out = out sprintf(" %s %.3f%s", k, (k == "task-clock" ? v[e] * 1000 / n : v[e] / n), (k == "task-clock" ? "us" : "")) } print out }'
  cat "$W"/tool-"$slot"-*.csv | awk -F, -v n="$n" '$1 ~ /^[0-9.]+$/ { v[$3] += $1 } END {
    out = "tool per request:"; for (e in v) { k = e; sub(/^syscalls:sys_enter_/, "", k); out = out sprintf(" %s %.3f", k, v[e] / n); if (k != "epoll_wait") sends += v[e] }
    printf "%s; sends per epoll_wait %.1f\n", out, (v["syscalls:sys_enter_epoll_wait"] > 0 ? sends / v["syscalls:sys_enter_epoll_wait"] : 0) }'
  for f in "$W"/api-"$slot"-*.perf; do perf script -i "$f" 2>/dev/null; done >"$W/api-$slot.script"
  echo "API samples by thread:"
  for f in "$W"/api-"$slot"-*.perf; do perf script -i "$f" -F comm 2>/dev/null; done | sort | uniq -c | sort -rn | head -8 \
    | awk '{ c = $1; $1 = ""; total += c; rows[++k] = c; names[k] = $0 } END { for (i = 1; i <= k; i++) printf "  %5.1f %% %s\n", 100 * rows[i] / total, names[i] }'
  echo "API samples in its pool workers' wait for work and in context switches (inclusive):"
  python3 -c '
import re, sys
parts = {"pool wait (LowLevelLifoSemaphore)": r"LowLevelLifoSemaphore", "sched_yield": r"sched_yield",
         "either": r"LowLevelLifoSemaphore|sched_yield", "finish_task_switch": r"finish_task_switch",
         "socket engine thread": r"^\.NET Sockets", "ThreadPoolWorkQueue.Dispatch": r"ThreadPoolWorkQueue::Dispatch"}
samples = [b for b in sys.stdin.read().split("\n\n") if b.strip()]
print("  " + "; ".join(f"{name} {100 * sum(1 for b in samples if re.search(rx, b, re.M)) / max(len(samples), 1):.1f} %" for name, rx in parts.items()))
' <"$W/api-$slot.script"
  echo "API samples by part:"
  python3 scripts/perf-parts.py "API under ${names[$slot]}" <"$W/api-$slot.script"
  echo "API's top symbols (self, round 1):"
  perf report -i "$W/api-$slot-1.perf" --no-children --sort sym --stdio -g none 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
done
