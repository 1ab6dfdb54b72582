#!/usr/bin/env bash
# Seed 003 / seed 000 benchmark: each request fans out to CALLS calls of DELAY_MS, CONCURRENCY requests in flight
# for SECONDS per variant, one fresh API per variant: async, threadpool (defaults), threadpool after raising the
# minimum worker threads to MIN_WORKERS at run time (PUT /api/threadpool), dedicated (DEDICATED_THREADS threads).
# Usage: scripts/fanout-bench.sh [seconds] [concurrency]   (defaults 30 and 32; seconds capped at 300).
# Env: CALLS=10 DELAY_MS=1000 MIN_WORKERS=400 DEDICATED_THREADS=400 PORT=5181 VARIANTS="async threadpool threadpool-min dedicated"
# Loopback only. Writes a Markdown table to stdout and per-variant latencies and telemetry to reports/fanout-bench-<time>/.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-30}; concurrency=${2:-32}
(( seconds >= 1 && seconds <= 300 )) || { echo "seconds must be 1..300" >&2; exit 2; }
(( concurrency >= 1 && concurrency <= 256 )) || { echo "concurrency must be 1..256" >&2; exit 2; }
calls=${CALLS:-10}; delay_ms=${DELAY_MS:-1000}; min_workers=${MIN_WORKERS:-400}; dedicated=${DEDICATED_THREADS:-400}
port=${PORT:-5181}; url="http://127.0.0.1:$port"
variants=${VARIANTS:-async threadpool threadpool-min dedicated}
out="reports/fanout-bench-$(date -u +%Y%m%dT%H%M%SZ)"; mkdir -p "$out"

dotnet build src/ConcurrencySandbox.Api -c Release -v quiet -nologo >/dev/null
api=""
stop_api() { if [ -n "$api" ]; then kill "$api" 2>/dev/null || true; wait "$api" 2>/dev/null || true; api=""; fi; }
trap stop_api EXIT

start_api() {
  local log="$out/$1.api.log"
  FanOut__DedicatedThreads=$dedicated dotnet src/ConcurrencySandbox.Api/bin/Release/net10.0/ConcurrencySandbox.Api.dll --urls "$url" >"$log" 2>&1 &
  api=$!
  for _ in $(seq 1 100); do grep -qs "ConcurrencySandbox API ready" "$log" && return; sleep 0.2; done
  cat "$log" >&2; exit 1
}

field() { grep -o "\"$1\":[0-9.]*" <<<"$2" | head -n 1 | cut -d: -f2; }

# The API records a snapshot every second on a thread of its own, so its history has no gaps while the pool
# starves (the live /api/telemetry is served by that pool): read it once the load has ended.
write_telemetry() { # file, uptime at the start: seconds, pool threads, queue, CPU %, in flight
  local history; history=$(curl -s --max-time 30 "$url/api/telemetry/history?since=$2")
  echo "second,threadCount,pendingWorkItemCount,cpuPercent,inFlightRequests" >"$1"
  paste -d, <(grep -o '"uptimeSeconds":[0-9.]*' <<<"$history" | cut -d: -f2 | awk -v s="$2" '{ printf "%.0f\n", $1 - s }') \
    <(grep -o '"threadCount":[0-9]*' <<<"$history" | cut -d: -f2) \
    <(grep -o '"pendingWorkItemCount":[0-9]*' <<<"$history" | cut -d: -f2) \
    <(grep -o '"cpuPercent":[0-9.]*' <<<"$history" | cut -d: -f2) \
    <(grep -o '"inFlightRequests":[0-9]*' <<<"$history" | cut -d: -f2) >>"$1"
}

echo "# Fan-out: $calls calls x $delay_ms ms, $concurrency in flight for $seconds s per variant, $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo
echo "| variant | requests | errors | mean (s) | p50 (s) | p99 (s) | max (s) | peak pool threads | peak queue |"
echo "|---|---|---|---|---|---|---|---|---|"
for variant in $variants; do
  start_api "$variant"
  strategy=$variant
  if [ "$variant" = threadpool-min ]; then
    strategy=threadpool
    curl -sf -X PUT -H 'Content-Type: application/json' -d "{\"minWorkerThreads\":$min_workers}" "$url/api/threadpool" >"$out/$variant.threadpool.json"
  fi
  request="$url/api/fanout?calls=$calls&delayMs=$delay_ms&strategy=$strategy"
  curl -s -o /dev/null "$url/api/fanout?calls=1&delayMs=1&strategy=$strategy" # unmeasured warm-up: JIT, first connection
  end=$((SECONDS + seconds))
  started_uptime=$(field uptimeSeconds "$(curl -s "$url/api/telemetry")")
  for _ in $(seq 1 "$concurrency"); do
    while (( SECONDS < end )); do
      curl -s -o /dev/null --max-time 120 -w '%{http_code} %{time_total}\n' "$request" || echo "000 0"
    done >>"$out/$variant.latencies.txt" &
  done
  wait $(jobs -p | grep -v "^$api\$")
  write_telemetry "$out/$variant.telemetry.csv" "$started_uptime"
  stop_api
  sort -k2 -n "$out/$variant.latencies.txt" | awk -v v="$variant" -v tel="$out/$variant.telemetry.csv" '
    { n++; t[n] = $2; sum += $2; if ($1 != 200) errors++ }
    END {
      while ((getline line < tel) > 0) { split(line, f, ","); if (f[2] + 0 > threads) threads = f[2] + 0; if (f[3] + 0 > queue) queue = f[3] + 0 }
      if (n == 0) { printf "| %s | 0 | 0 | | | | | %d | %d |\n", v, threads, queue; exit }
      p50 = t[int((n - 1) * 0.50) + 1]; p99 = t[int((n - 1) * 0.99) + 1]
      printf "| %s | %d | %d | %.2f | %.2f | %.2f | %.2f | %d | %d |\n", v, n, errors, sum / n, p50, p99, t[n], threads, queue
    }'
done
echo
echo "Raw latencies and per-second telemetry: $out/"
