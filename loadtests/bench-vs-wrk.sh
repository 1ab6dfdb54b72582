#!/usr/bin/env bash
# Is the load runner the bottleneck? Runs wrk and our runner alternately, three pairs of ~10 s each, against ONE API
# process on GET /api/compute/sync?cycles=1 with the same number of connections/users, and prints each pair's
# throughputs and ratio, and each tool's own CPU per request (wrk's whole run from /usr/bin/time; the runner's over its
# measured rows, read from /proc). Issue 19 asks the runner to reach at least 0.9 of wrk's figure in every pair; the
# exit code is 1 when a pair falls short. Alternating pairs keep a shared machine's drift out of the ratio; the commit,
# nproc and load average are printed before and after. A benchmark, not a test: needs wrk (apt-get install -y wrk),
# exits 2 without it.
# Usage: loadtests/bench-vs-wrk.sh [seconds=10] [connections=64] [pairs=3]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-10}"
connections="${2:-64}"
pairs="${3:-3}"
minimum=0.9
source scripts/wrk-bench-lib.sh
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 2; }

work=$(mktemp -d)
api_pid=""
cleanup() { [ -n "$api_pid" ] && kill "$api_pid" 2>/dev/null; rm -rf "$work"; }
trap cleanup EXIT

dotnet build -c Release loadtests/ConcurrencySandbox.LoadTests -v quiet -nologo >/dev/null
runner=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll

# One API for both tools: the copy the build put next to the runner (the same server the runner's children run).
start_api "$(dirname "$runner")/api/ConcurrencySandbox.Api.dll" "$work"
path="/api/compute/sync?cycles=1"
echo "API at $url; ${seconds} s each, ${connections} connections/users, GET $path"

# Warm-up (JIT, connection pools) so neither tool pays it.
wrk -t2 -c"$connections" -d3s "$url$path" >/dev/null

cat >"$work/shape.json" <<JSON
{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [${connections}, "$(printf '%02d:%02d:%02d' $((seconds / 3600)) $((seconds % 3600 / 60)) $((seconds % 60)))"] } ] }
JSON

bench_header
rows=$((seconds / 2))
failed=0
for pair in $(seq 1 "$pairs"); do
  wrk_run "$connections" "$seconds" "$url$path"
  dotnet "$runner" compute --target "$url" --config "$work/shape.json" --cycles 1 --out "$work/report-$pair" >"$work/runner-$pair.log" &
  runner_pid=$!
  # The runner's CPU from its first sync row to its last full one (the rate below is over the same rows): /proc read
  # as the rows are printed, so start-up, JIT and the report after the run are left out.
  from_ticks=""; to_ticks=""
  while read_cpu_ticks "$runner_pid"; do
    printed=$(grep -c '^compute/sync t=' "$work/runner-$pair.log" || true)
    if [ -z "$from_ticks" ] && (( printed >= 1 )); then from_ticks=$cpu_ticks; from_time=$EPOCHREALTIME; fi
    if [ -z "$to_ticks" ] && (( printed >= rows )); then to_ticks=$cpu_ticks; to_time=$EPOCHREALTIME; fi
    sleep 0.1
  done
  wait "$runner_pid"
  # The sync variant's rate after its first 2-second row: a fresh runner process JIT-compiles its HTTP stack in that
  # row, which wrk (native, and the server already warm) never pays. Requests in the later full rows over their time
  # span. Columns are found by name in the header; every request counts (ok, HTTP errors, timeouts, connection errors).
  ours_rps=$(awk -F, -v rows="$rows" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
    $1 == "sync" { n++; if (n == 1) { t0 = $col["elapsed_s"]; next } if (n > rows) next
      done += $col["ok"] + $col["http_errors"] + $col["timed_out"] + $col["connection_errors"]; t1 = $col["elapsed_s"] }
    END { if (t1 > t0) printf "%.1f", done / (t1 - t0); else print 0 }' "$work/report-$pair/curves.csv")
  ours_cpu_us=$(awk -v a="$from_ticks" -v b="$to_ticks" -v t0="$from_time" -v t1="$to_time" -v hz="$clock_ticks_per_second" -v rps="$ours_rps" \
    'BEGIN { if (a == "" || b == "" || t1 <= t0 || rps <= 0) print "n/a"; else printf "%.1f", (b - a) / hz / (t1 - t0) / rps * 1e6 }')
  echo "pair $pair: CPU per request: wrk $wrk_cpu_us us, load runner $ours_cpu_us us"
  check_pair "$pair" wrk "$wrk_rps" "load runner (sync variant)" "$ours_rps" "$minimum" || failed=1
done
bench_header
exit "$failed"
