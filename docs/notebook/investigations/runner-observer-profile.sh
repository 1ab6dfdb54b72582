#!/usr/bin/env bash
# Issue 42 item 3: where the RUNNER's own CPU goes when it observes. One warmed API (Release, compute/sync?cycles=1), the
# runner's `run --url` load on it as scripts/observer-cost.sh takes it (16 users held SECONDS), alternately plain
# (`--no-observer`) and observed (`--pid API`), ROUNDS rounds. Per run: the runner's CPU per request under the load (its
# /proc ticks while the API's requestsStarted grows, read every 0.2 s) and over the whole process (load, startup, the
# diagnosis and the report after it), and perf's samples of the runner (the runtime's perf map on) sorted into parts by
# the thread they ran on and the frames on their stack (the first part that matches, in the order of `parts` below).
# Usage: docs/notebook/investigations/runner-observer-profile.sh [rounds=1] [seconds=20] (Release build of this checkout
# first; RUNNER=path/to/ConcurrencySandbox.LoadTests.dll profiles another build). Needs perf, curl and python3.
set -euo pipefail
cd "$(dirname "$0")/../../.."
source scripts/wrk-bench-lib.sh
rounds=${1:-1}; seconds=${2:-20}
R=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0
runner=${RUNNER:-$R/ConcurrencySandbox.LoadTests.dll}
W=$(mktemp -d -t runner-observer-profile.XXXXXX)
start_api "$R/api/ConcurrencySandbox.Api.dll" "$W"
runner_pid=""
# KEEP=dir keeps the samples there for a closer look, with their frames named (dir/observed-1.script, perf script's text),
# and each run's timeline (dir/observed-1.timeline: time, the runner's CPU ticks, the API's requests, every 0.2 s).
# The runtime's perf maps of the runs (DOTNET_PerfMapEnabled) go with the run.
trap 'kill $runner_pid $api_pid 2>/dev/null || true; for p in $(cat "$W/pids" 2>/dev/null); do rm -f "/tmp/perf-$p.map" "/tmp/perfinfo-$p.map"; done; if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP"; cp "$W"/*.script "$W"/*.timeline "$KEEP"/ 2>/dev/null || true; fi; rm -rf "$W"' EXIT
target="$url/api/compute/sync?cycles=1"
printf '{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [16, "00:00:%02d"] } ] }\n' "$seconds" >"$W/load.json"
started() { curl -fsS "$url/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p'; }
echo "# runner observer profile: $rounds rounds of $seconds s, one API (pid $api_pid); $(bench_header)"

# one MODE NAME [perf]: one run of the runner on the API; prints its CPU per request under the load and over the process.
one() {
  # --slo-p99-ms: without it a closed profile holds one user first, for --find-capacity's default step (UrlCommand.UnloadedFirst).
  local flags=(--no-observer) prefix=()
  [ "$1" = observed ] && flags=(--pid "$api_pid")
  [ "${3:-}" = perf ] && prefix=(perf record -q -F 499 -g -o "$W/$2.perf" --)
  DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 "${prefix[@]}" dotnet "$runner" run --url "$target" --config "$W/load.json" \
    --slo-p99-ms 60000 --out "$W/$2" "${flags[@]}" >"$W/$2.log" 2>&1 &
  runner_pid=$!
  echo "$runner_pid" >>"$W/pids"
  # perf execs the runner: the pid to read is its child when perf runs it.
  local pid=$runner_pid
  if [ "${3:-}" = perf ]; then
    for _ in $(seq 1 50); do pid=$(pgrep -P "$runner_pid" -n || true); [ -n "$pid" ] && break; sleep 0.1; done
    pid=${pid:-$runner_pid}
    echo "$pid" >>"$W/pids"
  fi
  : >"$W/$2.timeline"
  while read_cpu_ticks "$pid"; do
    echo "$EPOCHREALTIME $cpu_ticks $(started)" >>"$W/$2.timeline"
    sleep 0.2
  done
  wait "$runner_pid" || { echo "the runner's $1 run failed:" >&2; tail -n 5 "$W/$2.log" >&2; exit 2; }
  runner_pid=""
  python3 - "$W/$2.timeline" "$clock_ticks_per_second" "$1" "$2" <<'PY'
import sys
rows = [tuple(float(x) for x in l.split()) for l in open(sys.argv[1]) if len(l.split()) == 3]
hz = int(sys.argv[2])
# Under the load: from the first poll at which the API's count grew to the last one at which it did.
# (the polls' own requests to /api/telemetry count too: a poll's few are not load).
grew = [i for i in range(1, len(rows)) if rows[i][2] > rows[i - 1][2] + 20]
a, b = grew[0] - 1, grew[-1]
requests = rows[b][2] - rows[a][2]
under = (rows[b][1] - rows[a][1]) / hz
total = rows[-1][1] / hz
print(f"{sys.argv[3]:8s} {sys.argv[4]:12s} {requests / (rows[b][0] - rows[a][0]):7.0f} requests/s; the runner under the load {under:5.2f} s "
      f"({under / requests * 1e6:5.2f} us per request), whole process {total:5.2f} s ({total / requests * 1e6:5.2f} us per request), "
      f"after the load {(rows[-1][1] - rows[b][1]) / hz:4.2f} s")
PY
}

for mode in plain observed; do one "$mode" "warm-$mode" >/dev/null; done
echo "# warmed; $(uptime)"
for i in $(seq 1 "$rounds"); do
  for mode in plain observed; do one "$mode" "$mode-$i" perf; done
done
echo "# runs done; $(uptime)"

# The parts: a sample belongs to the part of the leaf-most frame on its stack that names one (a kernel or runtime frame
# under the engine's send is the load's; the runtime's allocator under the trace conversion is the conversion's), else
# to the thread's; it fell under the load when it came between the first and the last sample of the load's loop threads.
python3 - "$W" <<'PY'
import glob, os, re, subprocess, sys
parts = [
    ("report and summary (after the load)", r"ConcurrencySandbox\.LoadTests\.Reports|Running\.Headline|System\.Text\.Json"),
    ("JIT", r"libclrjit\.so"),
    ("trace conversion (TraceLog: stack sample, cause trace)", r"Tracing\.Etlx|TraceLog|SampleProfilerThreadTimeComputer|Tracing\.Stacks|FastSerialization|SymbolReader"),
    ("session reading (TraceEvent: always-on session, route window)", r"Microsoft\.Diagnostics\.Tracing"),
    ("diagnostics IPC (sessions' start and stop)", r"Microsoft\.Diagnostics\.NETCore\.Client"),
    ("call sites, hot methods, PDBs (Diagnostics)", r"ConcurrencySandbox\.LoadTests\.Diagnostics|System\.Reflection\.Metadata"),
    ("load (engine: sockets, parsing, timing)", r"ConcurrencySandbox\.LoadTests\.Engine"),
]
# A sample with no frame that names a part: its thread's.
threads = [("load (engine: sockets, parsing, timing)", "load loop"), ("trace copy to a file", "trace copy"),
           ("session reading (TraceEvent: always-on session, route window)", "runtime observ")]
def part(comm, frames):
    for frame in frames:
        for name, pattern in parts:
            if re.search(pattern, frame):
                return name
    return next((name for name, prefix in threads if comm.startswith(prefix)), "other (runtime, GC, host, the app)")
rows = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.perf"))):
    run = os.path.basename(f)[:-5]
    out = subprocess.run(["perf", "script", "-i", f, "-F", "comm,time,ip,sym,dso"], capture_output=True, text=True).stdout
    # Named now: the runtime's perf map (/tmp/perf-PID.map) may not outlive the run on a shared machine.
    open(f[:-5] + ".script", "w").write(out)
    samples = []
    for block in out.split("\n\n"):
        lines = [l for l in block.splitlines() if l.strip()]
        if not lines:
            continue
        head = re.match(r"\s*(.*?)\s+(\d+\.\d+):", lines[0])
        if head:
            samples.append((head.group(1), float(head.group(2)), lines[1:]))
    loop = [t for c, t, _ in samples if c.startswith("load loop")]
    counts = {}
    for comm, t, frames in samples:
        key = (part(comm, frames), "under" if loop and loop[0] <= t <= loop[-1] else "outside")
        counts[key] = counts.get(key, 0) + 1
    rows[run] = (len(samples), counts)
for run, (total, counts) in rows.items():
    print(f"## {run}: {total} samples (share of the run's samples: under the load / outside it)")
    for name in sorted({k[0] for k in counts}, key=lambda n: -(counts.get((n, "under"), 0) + counts.get((n, "outside"), 0))):
        u, o = counts.get((name, "under"), 0), counts.get((name, "outside"), 0)
        print(f"  {100 * u / total:5.1f} % / {100 * o / total:5.1f} %  {name}")
PY
echo "# done; $(uptime)"
