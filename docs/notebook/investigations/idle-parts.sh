#!/usr/bin/env bash
# What each of the runner observer's once-a-run parts (the route window, the stack sample, the allocation trace) costs the
# service whatever its load: the API's CPU over the part with the API idle (warmed by 8 s of load, never observed before
# round 1), by observer-part.cs, then the idle API over 3 s for comparison. Needs a Release build of the runner
# (scripts/observer-cost.sh makes one). Usage: docs/notebook/investigations/idle-parts.sh ROUNDS
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
work=$(mktemp -d -t idle-parts.XXXXXX)
dotnet build docs/notebook/investigations/observer-part.cs -v quiet -nologo >/dev/null
start_api loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/api/ConcurrencySandbox.Api.dll "$work"
trap 'kill $api_pid; rm -rf "$work"' EXIT
printf '{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [16, "00:00:08"] } ] }\n' >"$work/load.json"
dotnet loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll run --url "$url/api/compute/sync?cycles=1" --config "$work/load.json" --slo-p99-ms 60000 --out "$work/r" --no-observer >/dev/null 2>&1
for i in $(seq 1 "$1"); do
  for part in routes stacks causes; do
    read_cpu_ticks "$api_pid"; before=$cpu_ticks
    line=$(dotnet run --no-build --file docs/notebook/investigations/observer-part.cs -- "$api_pid" "$part" 0 0 "$url/api/compute/sync?cycles=1" 2>&1 | tail -n 1)
    read_cpu_ticks "$api_pid"
    echo "round $i: $line (ticks $((cpu_ticks - before)))"
  done
  sleep 1; read_cpu_ticks "$api_pid"; b=$cpu_ticks; sleep 3; read_cpu_ticks "$api_pid"; echo "round $i: idle API over 3 s: $((cpu_ticks - b)) ticks"
done
echo "# $(bench_header)"
