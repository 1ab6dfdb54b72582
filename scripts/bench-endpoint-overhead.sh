#!/usr/bin/env bash
# Issue 19, item 6: what the experiment harness costs around one work unit. wrk against ONE API process, alternating
# GET /healthz (bare) and GET /api/compute/sync?cycles=1 (routing, validation, one work unit, the answer and its
# snapshot), PAIRS pairs of SECONDS each with CONNECTIONS connections; prints each pair's ratio (the issue asks for at
# least 0.9) and exits 1 when a pair falls short. A benchmark, not a test: needs wrk, exits 2 without it.
# Usage: scripts/bench-endpoint-overhead.sh [seconds=8] [connections=64] [pairs=3]
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-8}"; connections="${2:-64}"; pairs="${3:-3}"
(( seconds >= 1 && seconds <= 120 )) || { echo "seconds must be 1..120" >&2; exit 2; }
(( connections >= 1 && connections <= 1024 )) || { echo "connections must be 1..1024" >&2; exit 2; }
(( pairs >= 1 && pairs <= 20 )) || { echo "pairs must be 1..20" >&2; exit 2; }
source scripts/wrk-bench-lib.sh
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 2; }
minimum=0.9

work=$(mktemp -d)
api_pid=""
cleanup() { if [ -n "$api_pid" ]; then kill "$api_pid" 2>/dev/null || true; fi; rm -rf "$work"; }
trap cleanup EXIT

dotnet build -c Release src/ConcurrencySandbox.Api -v quiet -nologo >/dev/null
start_api src/ConcurrencySandbox.Api/bin/Release/net10.0/ConcurrencySandbox.Api.dll "$work"

rps() { wrk_rps "$connections" "$seconds" "$url$1"; }

# Warm-up (JIT, connections) for both paths.
rps /healthz >/dev/null; rps "/api/compute/sync?cycles=1" >/dev/null
echo "API at $url; ${seconds} s each, ${connections} connections; $(uptime); nproc $(nproc)"
failed=0
for pair in $(seq 1 "$pairs"); do
  bare=$(rps /healthz)
  compute=$(rps "/api/compute/sync?cycles=1")
  check_pair "$pair" /healthz "$bare" "compute/sync?cycles=1" "$compute" "$minimum" || failed=1
done
echo "$(uptime)"
exit "$failed"
