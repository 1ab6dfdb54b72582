#!/usr/bin/env bash
# Issue 19, item 6: what the experiment harness costs around one work unit. wrk against ONE API process, alternating
# GET /healthz (bare) and GET /api/compute/sync?cycles=1 (routing, validation, one work unit, the answer and its
# snapshot), PAIRS pairs of SECONDS each with CONNECTIONS connections; prints each pair's ratio (the issue asks for at
# least 0.9) with the API's own CPU and allocated bytes per request on each path (steadier than a rate on a busy
# machine; the bytes not disturbed at all), and exits 1 when a pair falls short. A benchmark, not a test: needs wrk and
# curl, exits 2 without them.
# Usage: scripts/bench-endpoint-overhead.sh [seconds=8] [connections=64] [pairs=3]
set -euo pipefail
cd "$(dirname "$0")/.."
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

# measure PATH: wrk on PATH; sets rps, server_us (the API process's user + system CPU per request, microseconds) and
# server_bytes (bytes the API allocated per request: unlike a rate or a CPU time, not disturbed by a busy machine).
measure() {
  local bytes_before; bytes_before=$(allocated)
  read_cpu_ticks "$api_pid"; local before=$cpu_ticks
  wrk_run "$connections" "$seconds" "$url$1"
  read_cpu_ticks "$api_pid"
  local bytes_after; bytes_after=$(allocated)
  rps=$wrk_rps
  server_us=$(awk -v d=$((cpu_ticks - before)) -v hz="$clock_ticks_per_second" -v n="$wrk_requests" 'BEGIN { printf "%.1f", (n > 0 ? d / hz / n * 1e6 : 0) }')
  server_bytes=$(awk -v d=$((bytes_after - bytes_before)) -v n="$wrk_requests" 'BEGIN { printf "%.0f", (n > 0 ? d / n : 0) }')
}

# Warm-up (JIT, connections) for both paths.
measure /healthz; measure "/api/compute/sync?cycles=1"
echo "API at $url; ${seconds} s each, ${connections} connections"
bench_header
failed=0
for pair in $(seq 1 "$pairs"); do
  measure /healthz; bare=$rps; bare_us=$server_us; bare_bytes=$server_bytes
  measure "/api/compute/sync?cycles=1"
  echo "pair $pair: API CPU per request: /healthz $bare_us us, compute/sync?cycles=1 $server_us us (wrk's own: $wrk_cpu_us us)"
  echo "pair $pair: API allocations per request: /healthz $bare_bytes B, compute/sync?cycles=1 $server_bytes B"
  check_pair "$pair" /healthz "$bare" "compute/sync?cycles=1" "$rps" "$minimum" || failed=1
done
bench_header
exit "$failed"
