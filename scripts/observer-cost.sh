#!/usr/bin/env bash
# What the runtime observer costs the API: compute/sync?cycles=1 under a constant closed load, runs alternating
# with and without the observer (--no-observer), the sync variant's throughput compared. Loopback only.
# Usage: scripts/observer-cost.sh [pairs] [users] [seconds]   (default 3 pairs, 16 users, 20 s per variant)
set -euo pipefail
cd "$(dirname "$0")/.."
pairs=${1:-3}; users=${2:-16}; seconds=${3:-20}
dotnet build loadtests/ConcurrencySandbox.LoadTests -c Release -v quiet -nologo >/dev/null
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
printf '{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [%d, "00:00:%02d"] } ] }\n' "$users" "$seconds" >"$work/load.json"
runner=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll
echo "# observer cost: $pairs pairs, $users users, $seconds s per variant; $(nproc) cores; $(uptime)"
for i in $(seq 1 "$pairs"); do
  for mode in observed plain; do
    flag=""; [ "$mode" = plain ] && flag="--no-observer"
    # One whole ramp per variant: a --config run keeps its shape in one round; the pairs here alternate the observer.
    # shellcheck disable=SC2086 # an empty flag is no argument
    dotnet "$runner" compute --cycles 1 --config "$work/load.json" --out "$work/$mode-$i" $flag >/dev/null
    python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); v=[x for x in d["variants"] if x["name"]=="sync"][0]; print(sys.argv[2], sys.argv[3], round(v["requestsPerSecond"],1))' \
      "$work/$mode-$i/summary.json" "$mode" "$i" | tee -a "$work/rps.txt"
  done
done
python3 - "$work/rps.txt" <<'PY'
import sys
rows=[l.split() for l in open(sys.argv[1])]
observed=[float(r[2]) for r in rows if r[0]=="observed"]; plain=[float(r[2]) for r in rows if r[0]=="plain"]
print(f"observed mean {sum(observed)/len(observed):.1f} rps, plain mean {sum(plain)/len(plain):.1f} rps, ratio {sum(observed)/sum(plain):.3f}")
print("pair ratios: " + ", ".join(f"{o/p:.3f}" for o, p in zip(observed, plain)))
PY
echo "# done; $(uptime)"
