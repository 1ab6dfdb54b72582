#!/usr/bin/env bash
# Issue 38: what the calls' trace's three header events (a retrying handler's attempts on the wire) cost the service per
# request. Two APIs, each under its own wrk (1 thread, CONNECTIONS connections) on /api/fanout?calls=CALLS&delayMs=0&
# strategy=async at the same time, their outgoing calls going over HTTP to one ThirdPartyStub; header-events-cost.cs
# traces both in PHASE_S-second phases, one with the runner's calls' providers and one without the header events,
# swapped each phase (ABBA over the pairs), and prints each phase's CPU per request of both and with/without. Robust to a
# busy machine by design (a ratio inside each phase, the processes' own difference cancelled over a pair); the load
# average is printed per phase.
# Usage: [WARM_S=40] docs/notebook/investigations/header-events-cost.sh [pairs=4] [phase seconds=8] [calls=4] [connections=16]
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
pairs=${1:-4}; seconds=${2:-8}; calls=${3:-4}; connections=${4:-16}
part_app=docs/notebook/investigations/header-events-cost.cs
dotnet build src/ConcurrencySandbox.Api -c Release -v quiet -nologo >/dev/null
dotnet build src/ConcurrencySandbox.ThirdPartyStub -c Release -v quiet -nologo >/dev/null
dotnet build "$part_app" -v quiet -nologo >/dev/null
W=$(mktemp -d -t header-events.XXXXXX)
dotnet src/ConcurrencySandbox.ThirdPartyStub/bin/Release/net10.0/ConcurrencySandbox.ThirdPartyStub.dll --urls http://127.0.0.1:0 \
  --Logging:LogLevel:Default=Warning >"$W/stub.log" 2>&1 &
stub_pid=$!
trap 'kill ${wa:-} ${wb:-} ${a_pid:-} ${b_pid:-} $stub_pid 2>/dev/null || true; rm -rf "$W"' EXIT
ready_url "$W/stub.log" "ConcurrencySandbox stub ready at"
[ -n "$ready" ] || { echo "the stub printed no ready line" >&2; cat "$W/stub.log" >&2; exit 2; }
export ThirdParty__BaseUrl="$ready"
mkdir -p "$W/a" "$W/b"
api=src/ConcurrencySandbox.Api/bin/Release/net10.0/ConcurrencySandbox.Api.dll
start_api "$api" "$W/a"; a_pid=$api_pid; a_url=$url
start_api "$api" "$W/b"; b_pid=$api_pid; b_url=$url
path="/api/fanout?calls=$calls&delayMs=0&strategy=async"
wrk -t1 -c"$connections" -d3600s "$a_url$path" >"$W/wrk-a.log" 2>&1 & wa=$!
wrk -t1 -c"$connections" -d3600s "$b_url$path" >"$W/wrk-b.log" 2>&1 & wb=$!
sleep "${WARM_S:-40}"  # the JIT's tiers settle first: at 15 s on a busy machine the CPU per request still fell by half over the phases
echo "# header events' cost: $pairs pairs of $seconds s phases, wrk -t1 -c$connections on $path each; $(bench_header)"
dotnet run --no-build --file "$part_app" -- "$a_pid" "$a_url" "$b_pid" "$b_url" "$pairs" "$seconds"
