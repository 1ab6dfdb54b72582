#!/usr/bin/env bash
# Seed 004's benchmark on this machine: compare rows and the sweep, with the API pinned to the first N cores.
# Usage: scripts/bench-seed004.sh [cores]   (default: all cores). Loopback only; stops the API when done.
set -euo pipefail
cd "$(dirname "$0")/.."
cores=${1:-$(nproc)}
port=${PORT:-5180}
url="http://127.0.0.1:$port"

dotnet build src/ConcurrencySandbox.Api -c Release -v quiet -nologo >/dev/null
log=$(mktemp)
DOTNET_PROCESSOR_COUNT=$cores taskset -c "0-$((cores - 1))" \
  dotnet src/ConcurrencySandbox.Api/bin/Release/net10.0/ConcurrencySandbox.Api.dll --urls "$url" >"$log" 2>&1 &
api=$!
trap 'kill $api 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 100); do grep -q "ConcurrencySandbox API ready" "$log" && break; sleep 0.2; done
grep -q "ConcurrencySandbox API ready" "$log" || { cat "$log"; exit 1; }

echo "# Seed 004 on $cores core(s) of $(nproc): $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | xargs)"
echo "## compare cycles=1000000000 repeat=5"
curl -sf "$url/api/compute/compare?cycles=1000000000&repeat=5"; echo
echo "## compare cycles=1 repeat=50 (Task.Run's added cost)"
curl -sf "$url/api/compute/compare?cycles=1&repeat=50"; echo
echo "## compute sweep"
curl -sf "$url/api/compute/sweep?repeat=5&format=markdown"
echo "## spinwait sweep"
curl -sf "$url/api/spinwait/sweep?repeat=3&format=markdown"
echo "## sleep sweep"
curl -sf "$url/api/sleep/sweep?repeat=3&format=markdown"
