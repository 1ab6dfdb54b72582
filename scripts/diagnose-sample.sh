#!/usr/bin/env bash
# The observer end to end on the sample service: start it on a free loopback port, put 125 users on its blocking
# .Result endpoint, watch its runtime from outside (the runner finds the process listening on the URL's port), write
# the report with the blocking call site and the sized fix.
# Usage: scripts/diagnose-sample.sh [report folder]   Extra runner options go in RUNNER_ARGS (e.g. "--profile quick").
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-reports/$(date +%Y%m%d-%H%M%S)-sample}

dotnet build src/ConcurrencySandbox.SampleService -c Release -v quiet -nologo >/dev/null
dotnet build loadtests/ConcurrencySandbox.LoadTests -c Release -v quiet -nologo >/dev/null
log=$(mktemp)
dotnet src/ConcurrencySandbox.SampleService/bin/Release/net10.0/ConcurrencySandbox.SampleService.dll --urls http://127.0.0.1:0 >"$log" 2>&1 &
service=$!
trap 'kill $service 2>/dev/null || true; rm -f "$log"' EXIT
for _ in $(seq 1 150); do grep -q "SampleService ready" "$log" && break; sleep 0.2; done
url=$(grep -m1 -o 'SampleService ready: http://[^ ]*' "$log" | cut -d' ' -f3) || { cat "$log"; exit 1; }

# shellcheck disable=SC2086 # RUNNER_ARGS is a list of options
dotnet loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll run \
  --url "$url/orders/1?delayMs=500" ${RUNNER_ARGS:---config loadtests/profiles/burst-125.json} --out "$out"
