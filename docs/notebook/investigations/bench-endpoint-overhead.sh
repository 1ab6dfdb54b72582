#!/usr/bin/env bash
# Issue 19, item 6: what the experiment harness costs around one work unit. wrk against ONE API process, alternating
# GET /healthz (bare) and GET /api/compute/sync?cycles=1 (routing, validation, one work unit, the answer and its
# snapshot), PAIRS pairs of SECONDS each with CONNECTIONS connections; prints each pair's ratio (the issue asks for at
# least 0.9) with the API's own CPU and allocated bytes per request on each path (steadier than a rate on a busy
# machine; the bytes not disturbed at all), and exits 1 when a pair falls short. Inside a pair the two paths take turns
# in 1-second wrk runs, in ABBA order, SECONDS of each: this VM's vCPU changes speed by up to 2 x for seconds at a time
# (docs/notebook/measurement.md, "Why the 2-core break-even moved"), so one 6-second block per path put a speed change between
# the two halves of a pair; 1-second turns give both paths the same mix of speeds, as the measurement policy's
# interleaved pairs do. A benchmark, not a test: needs wrk and curl, exits 2 without them.
# Usage: docs/notebook/investigations/bench-endpoint-overhead.sh [seconds=8] [connections=64] [pairs=3]
set -euo pipefail
cd "$(dirname "$0")/../../.."
seconds="${1:-8}"; connections="${2:-64}"; pairs="${3:-3}"
(( seconds >= 1 && seconds <= 120 )) || { echo "seconds must be 1..120" >&2; exit 2; }
(( connections >= 1 && connections <= 1024 )) || { echo "connections must be 1..1024" >&2; exit 2; }
(( pairs >= 1 && pairs <= 20 )) || { echo "pairs must be 1..20" >&2; exit 2; }
source scripts/wrk-bench-lib.sh
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl is not installed: apt-get install -y curl" >&2; exit 2; }
minimum=0.9

work=$(mktemp -d)
api_pid=""
cleanup() { if [ -n "$api_pid" ]; then kill "$api_pid" 2>/dev/null || true; fi; rm -rf "$work"; }
trap cleanup EXIT

dotnet build -c Release src/ConcurrencySandbox.Api -v quiet -nologo >/dev/null
start_api src/ConcurrencySandbox.Api/bin/Release/net10.0/ConcurrencySandbox.Api.dll "$work"

# allocated: the API's gc.totalAllocatedBytes from /api/telemetry (that call's own few KB vanish over a run's requests).
allocated() { curl -fsS "$url/api/telemetry" | sed -n 's/.*"totalAllocatedBytes":\([0-9]*\).*/\1/p'; }

# measure PATH SECONDS: wrk on PATH for SECONDS; sets requests, elapsed (wrk's own seconds), ticks (the API process's
# user + system CPU over the run, in clock ticks) and bytes (what the API allocated over the run: unlike a rate or a CPU
# time, not disturbed by a busy machine), and wrk_cpu_us.
measure() {
  local bytes_before; bytes_before=$(allocated)
  read_cpu_ticks "$api_pid"; local before=$cpu_ticks
  wrk_run "$connections" "$2" "$url$1"
  read_cpu_ticks "$api_pid"
  local bytes_after; bytes_after=$(allocated)
  requests=$wrk_requests
  elapsed=$(awk -v n="$wrk_requests" -v r="$wrk_rps" 'BEGIN { printf "%.6f", (r > 0 ? n / r : 0) }')
  ticks=$((cpu_ticks - before))
  bytes=$((bytes_after - bytes_before))
}

# turn SLOT PATH: one 1-second turn on PATH, added to SLOT's (0: /healthz, 1: compute/sync) totals.
turn() {
  measure "$2" 1
  total_requests[$1]=$((total_requests[$1] + requests))
  total_elapsed[$1]=$(awk -v a="${total_elapsed[$1]}" -v b="$elapsed" 'BEGIN { printf "%.6f", a + b }')
  total_ticks[$1]=$((total_ticks[$1] + ticks))
  total_bytes[$1]=$((total_bytes[$1] + bytes))
  wrk_us_sum=$(awk -v a="$wrk_us_sum" -v b="$wrk_cpu_us" 'BEGIN { printf "%.3f", a + (b == "n/a" ? 0 : b) }')
}

# per_request SLOT: sets rps, server_us and server_bytes of SLOT's totals.
per_request() {
  local n=${total_requests[$1]}
  rps=$(awk -v n="$n" -v t="${total_elapsed[$1]}" 'BEGIN { printf "%.0f", (t > 0 ? n / t : 0) }')
  server_us=$(awk -v d="${total_ticks[$1]}" -v hz="$clock_ticks_per_second" -v n="$n" 'BEGIN { printf "%.1f", (n > 0 ? d / hz / n * 1e6 : 0) }')
  server_bytes=$(awk -v d="${total_bytes[$1]}" -v n="$n" 'BEGIN { printf "%.0f", (n > 0 ? d / n : 0) }')
}

paths=(/healthz "/api/compute/sync?cycles=1")
# Warm-up (JIT, connections) for both paths.
measure "${paths[0]}" 3; measure "${paths[1]}" 3
echo "API at $url; ${seconds} s of each path per pair in 1-second turns (ABBA), ${connections} connections"
bench_header
failed=0
for pair in $(seq 1 "$pairs"); do
  total_requests=(0 0); total_elapsed=(0 0); total_ticks=(0 0); total_bytes=(0 0); wrk_us_sum=0
  for second in $(seq 0 $((seconds - 1))); do
    # ABBA: /healthz first in turns 0 and 3 of every four, compute/sync first in 1 and 2.
    if (( second % 4 == 0 || second % 4 == 3 )); then turn 0 "${paths[0]}"; turn 1 "${paths[1]}"; else turn 1 "${paths[1]}"; turn 0 "${paths[0]}"; fi
  done
  per_request 0; bare=$rps; bare_us=$server_us; bare_bytes=$server_bytes
  per_request 1
  wrk_us=$(awk -v s="$wrk_us_sum" -v n=$((2 * seconds)) 'BEGIN { printf "%.1f", s / n }')
  echo "pair $pair: API CPU per request: /healthz $bare_us us, compute/sync?cycles=1 $server_us us (wrk's own: $wrk_us us)"
  echo "pair $pair: API allocations per request: /healthz $bare_bytes B, compute/sync?cycles=1 $server_bytes B"
  check_pair "$pair" /healthz "$bare" "compute/sync?cycles=1" "$rps" "$minimum" || failed=1
done
bench_header
exit "$failed"
