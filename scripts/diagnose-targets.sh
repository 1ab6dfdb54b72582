#!/usr/bin/env bash
# docs/notebook/diagnostics.md's "Where each service breaks" table in one command: for each of the three target services of
# tests/Targets and the sample service, one at a time, the runner launches it on a loopback port and runs
# `run --url ... --launch ... --find-capacity --verify-fix`, then prints one Markdown row per service read from the
# run's summary.json (its `capacity` figures and the diagnosed step's call site), with the load average before and
# after each run, nproc, the runtime and the commit.
# Usage: scripts/diagnose-targets.sh [report folder]   One report per service in <folder>/<service>.
#   STEP_S (3) and MAX_DURATION_S (150) bound each ramp (the run is the ramp and the --verify-fix ramp, so at most
#   twice MAX_DURATION_S plus start-ups per service); extra runner options go in RUNNER_ARGS (e.g. "--slo-p99-ms 2000").
set -euo pipefail
cd "$(dirname "$0")/.."
out=${1:-reports/$(date +%Y%m%d-%H%M%S)-targets}
step_s=${STEP_S:-3}
max_duration_s=${MAX_DURATION_S:-150}
mkdir -p "$out"
started_loadavg=$(cat /proc/loadavg)

# service name | project | assembly | path and query
services=(
  "InlinedHelper|tests/Targets/InlinedHelper|InlinedHelper|/orders/1"
  "ControllerLinq|tests/Targets/ControllerLinq|ControllerLinq|/orders/1"
  "LockSleep|tests/Targets/LockSleep|LockSleep|/inventory/1"
  "sample service|src/ConcurrencySandbox.SampleService|ConcurrencySandbox.SampleService|/orders/1?delayMs=100"
)

dotnet build loadtests/ConcurrencySandbox.LoadTests -c Release -m:1 -v quiet -nologo >/dev/null
for service in "${services[@]}"; do
  IFS='|' read -r _ project _ _ <<<"$service"
  dotnet build "$project" -c Release -m:1 -v quiet -nologo >/dev/null
done
runner=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll

free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }

rows=()
for service in "${services[@]}"; do
  IFS='|' read -r name project assembly path <<<"$service"
  folder="$out/${name// /-}"
  before=$(cut -d' ' -f1 /proc/loadavg)
  echo "== $name: run --url http://127.0.0.1:<port>$path --launch $project/bin/Release/net10.0/$assembly.dll (load average $before)" >&2
  # shellcheck disable=SC2086 # RUNNER_ARGS is a list of options
  dotnet "$runner" run --url "http://127.0.0.1:$(free_port)$path" --launch "$project/bin/Release/net10.0/$assembly.dll" \
    --find-capacity --verify-fix --step-s "$step_s" --max-duration-s "$max_duration_s" ${RUNNER_ARGS:-} --out "$folder" >"$folder.log" 2>&1 \
    || echo "   exit $? (see $folder.log)" >&2
  after=$(cut -d' ' -f1 /proc/loadavg)
  rows+=("$(python3 - "$name" "$folder/summary.json" "$before" "$after" <<'PY'
import json, os, sys

name, path, before, after = sys.argv[1:]
if not os.path.exists(path):
    print(f"| {name} ({before} → {after}) | no summary.json: the run failed, see its log | | | |")
    sys.exit()
summary = json.load(open(path))
capacity = summary.get("capacity")
if capacity is None:
    print(f"| {name} ({before} → {after}) | no capacity figures in summary.json (an older runner?) | | | |")
    sys.exit()
unit = capacity["unit"]

def load(value):
    return "none" if value is None else f"{value:g}"

def call_site(label):
    observation = summary["observations"].get(label) if label else None
    sites = (observation or {}).get("stacks") or {}
    top = next((s for s in sites.get("sites", []) if s["inUserCode"]), None)
    if top is None:
        return "no pool thread found in user code"
    source = top.get("source")
    if source is None:
        return top["callSite"]
    where = [f"{os.path.basename(source['line']['file'])}:{source['line']['line']}"] if source.get("line") else ["no line"]
    if source.get("inlinedInto"):
        where.append(f"inlined by the JIT into {source['inlinedInto']}")
    return f"{source['method']} ({'; '.join(where)}), {source['primitive']}, {source.get('route') or 'no route in that sample'}"

if capacity["brokeAt"] is None:
    finding = f"held {load(capacity['held'])} {unit} without breaking"
else:
    finding = f"held {load(capacity['held'])}; broke at {load(capacity['brokeAt'])} {unit} ({capacity['brokeBecause']}): {capacity['cause']}"
fix = capacity.get("fix")
if fix is None:
    verified = "not starved: no minimum to verify"
else:
    asynchronous = "" if fix["asyncCapacity"] is None else f" (async: about {fix['asyncCapacity']:.0f} {unit})"
    measured = f"held {load(fix['held'])}" + ("" if fix["brokeAt"] is None else f", broke at {load(fix['brokeAt'])} ({fix['cause']})")
    verified = f"minimum {fix['minimumThreads']} (0x{fix['minimumThreads']:X}): predicted about {fix['predictedCapacity']:.0f} {unit} with no wait{asynchronous}; measured: {measured}"
print(f"| {name} ({before} → {after}) | {call_site(capacity['diagnosedVariant'])} | {capacity['slo']} | {finding} | {verified} |")
PY
)")
done

echo
runtime=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["machine"]["runtime"])' "$(ls "$out"/*/summary.json | head -1)" 2>/dev/null || echo "runtime not known: no summary")
echo "Commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!reports' || echo ' (with uncommitted changes)'), $runtime, nproc $(nproc); /proc/loadavg at the start: $started_loadavg; at the end: $(cat /proc/loadavg) (each row: the 1-minute load average before and after its run)"
echo
echo "| service (load average before → after) | named method, file:line, route | SLO (how set) | held; broke at; cause | fix: predicted; measured after --verify-fix |"
echo "|---|---|---|---|---|"
printf '%s\n' "${rows[@]}"
