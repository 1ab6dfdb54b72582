#!/usr/bin/env bash
# Issue 42 item 3: what `watch` adds to a warmed API, this build's watch against another build's, on ONE API process.
# One API under wrk (16 connections, 1 thread) for the whole run, 40 s of warm-up, then 10 s phases in rounds:
# unwatched, watched by this build's watch (new), watched by OLD_RUNNER's (old), and unwatched at the end; per phase
# the API's rate, its CPU per request (/proc, over its own requestsStarted) and the watch process's own CPU per request.
# Usage: OLD_RUNNER=path/to/ConcurrencySandbox.LoadTests.dll docs/notebook/investigations/watch-cost-ab.sh (Release
# build of this checkout first). Needs wrk and curl.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
R=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0
OLD=${OLD_RUNNER:?OLD_RUNNER=path/to/another build of ConcurrencySandbox.LoadTests.dll}
W=$(mktemp -d)
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W"
wp=""
wrk_pid=""
trap 'kill $wrk_pid $api_pid $wp 2>/dev/null || true; rm -rf "$W"' EXIT
wrk -t1 -c16 -d600s "$url/api/compute/sync?cycles=1" > $W/wrk.log 2>&1 &
wrk_pid=$!
sleep 40
echo "start: $(uptime)"
started() { curl -fsS "$url/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p'; }
phase() {
  local name=$1 n0 t0 w0=0 n1 from to
  if [ $name != plain ]; then
    local dll=$R/ConcurrencySandbox.LoadTests.dll; [ $name = old ] && dll=$OLD
    dotnet $dll watch --pid $api_pid --out $W/watch-$name > $W/watch-$name.log 2>&1 &
    wp=$!
    for _ in $(seq 1 300); do grep -q '^watching ' $W/watch-$name.log && break; sleep 0.1; done
    sleep 1
    read_cpu_ticks $wp; w0=$cpu_ticks
  fi
  n0=$(started); read_cpu_ticks $api_pid; t0=$cpu_ticks; from=$EPOCHREALTIME
  sleep 10
  n1=$(started); read_cpu_ticks $api_pid; to=$EPOCHREALTIME
  local wt=0
  if [ -n "$wp" ]; then local a=$cpu_ticks; read_cpu_ticks $wp; wt=$((cpu_ticks - w0)); cpu_ticks=$a; kill -TERM $wp; wait $wp || true; wp=""; fi
  awk -v m=$name -v t=$((cpu_ticks - t0)) -v hz=$clock_ticks_per_second -v n=$((n1 - n0)) -v a=$from -v b=$to -v w=$wt \
    'BEGIN { printf "%s: %.0f requests/s, the API %.2f us of CPU per request, the watch %.2f us per request\n", m, n / (b - a), t / hz / n * 1e6, w / hz / n * 1e6 }'
}
for round in 1 2 3; do for name in plain new old; do phase $name; done; done
phase plain
echo "end: $(uptime)"
