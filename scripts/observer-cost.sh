#!/usr/bin/env bash
# What the runtime observer costs the API, measured in 1-second turns so the machine's drift lands on both sides: TWO
# API processes from one build (three with a baseline), "observed" and "plain", each loaded by its own runner (`run
# --url .../api/compute/sync?cycles=1`, a constant closed load of USERS); the script stops (SIGSTOP) and continues
# (SIGCONT) the sides' processes turn by turn (turn_order: ABBA for two sides, rotated for three), as
# loadtests/bench-vs-wrk.sh does with its tools, so one API is loaded while the other idles (an idle API costs next to
# nothing). A side's processes are its runner and, when the observer is a process of its own, that process (watch,
# dotnet-trace, one part): all stopped and continued together, so every microsecond the observer spends falls in its
# own side's turns. Per turn: requests the API started (its own requestsStarted, /api/telemetry), the API's CPU (/proc)
# and the side's processes' CPU. Per pair, over its turns:
# observed/plain throughput (the sum of observed turns' requests over their seconds against plain's), the same over the
# first 5 turns (where the runner's once-a-run parts mostly fall) and over the rest (its session alone), and the API's CPU
# per request observed/plain. Loopback only.
# A pair is as many legs as sides (two: observed and plain; three with a baseline) with the sides on the APIs in turn:
# in leg L side S loads API (S + L) mod the number of sides, with fresh runners (and observers) each leg, so every side
# loads every API once a pair, and a pair's ratio is the geometric mean of its legs' ratios; which side starts and takes
# its turn first alternates by leg as well (the ABBA order mirrored in odd legs). Why (issue 42, s58): an API
# process has a speed of its own for its whole life (its own JIT, tiering and PGO, its own memory), so when a pair was
# one leg (each side on the same API in every pair) two plain APIs read pairs of 1.028, 1.130, 1.120, one process 5-9 %
# cheaper per request in all three: a difference no number of turns averages away, and it cancels in the legs' mean.
# Each pair line shows its legs' ratios and the API each ran on (legs apart in opposite directions, their mean near 1.00:
# that difference); the verdict gives the pairs' mean with a 95 % interval beside every pair. The warm-up pair has its
# legs too, so every API has been observed once before a pair counts: an after-cost an observer leaves in a process
# (none was shown: docs/notebook/investigations/part-after.sh) falls on every side alike; a pair measures the observer
# while it observes.
#   --observer runner (default): the runner's own observer as it runs in a load run (`run --url ... --pid API`: its
#     always-on session, the route window once requests flow, the stack sample and the cause trace at the peak) against
#     `run --url ... --no-observer`.
#   --observer watch: `watch --pid` (issue 40's passive watch, the same session) on the observed API beside a
#     --no-observer runner; the plain API has no watch. Issue 40 allows watch 5 % (0.95).
#   --observer trace: the allocation trace's providers (CauseTrace.Providers on .NET 10) held by dotnet-trace (DOTNET_TRACE=
#     path, else dotnet-trace on PATH) over the whole leg beside a --no-observer runner: the trace's cost per second it runs.
#   --observer session|routes|stacks|causes|calls: ONE part of the runner's observer, taken beside a --no-observer runner by
#     docs/notebook/investigations/observer-part.cs with the runner's own code, when the runner would take it (the
#     session for the whole leg; the route window 3 s, the stack sample's 3 rounds, the allocation trace's 1 s, once, a
#     few seconds in; the HTTP client's calls from then as the runner traces them, CauseTrace.CallsWindow (2 s) or less
#     once the trace holds enough calls): what each part costs as a share of the API's CPU per request, over a leg's
#     SECONDS (pass 10 for the default 10-s step). compute/sync makes no outgoing call, so `calls` there is its session's
#     cost alone.
#   --observer none: the method's own check: both APIs plain, measured the same way; their pairs must read 1.00 within
#     the method's error before a pair with an observer can be read (docs/notebook/performance.md says how close they came).
#   PROFILE=1: perf's call-chain samples of each API over turns 8 to the leg's last (after the once-a-run parts), the
#     APIs started with the runtime's perf map, kept as perf-SIDE-PAIR.data and reported (modules and symbols, self) as
#     perf-SIDE-PAIR.txt: where an API that is dearer per request after the parts spends it. Needs perf; its own cost
#     falls on every side alike.
#   KEEP=DIR: the run's folder (turns.txt, pairs.txt, every process's log) is copied to DIR at its end.
#   --mode shared (default): nothing pinned, the APIs and the runners (and observers) share every cpu, as a load run on
#     one machine does: what the observer's processes spend is taken from the API. --mode pinned: the APIs on the first
#     cpu, the runners and observers on the second (taskset), as bench-vs-wrk's pinned mode: the API's side alone.
#   UPSTREAM_CALLS=N (1..64): the load is /api/fanout?calls=N&delayMs=0&strategy=async instead, the APIs' calls going
#     over HTTP to a ThirdPartyStub (ThirdParty__BaseUrl): N outgoing HTTP calls per request, for the parts whose cost
#     grows with them (`calls`: the HTTP client's events).
#   BASELINE_RUNNER=path/to/ConcurrencySandbox.LoadTests.dll: a third API observed by that build's observer ("baseline",
#     the same way; runner and watch only) takes turns too, so a change to the observer is measured before/after in the
#     same seconds. With --observer trace the baseline is a trace of BASELINE_TRACE_PROVIDERS (dotnet-trace's words).
# What it measures that the 20-second runs before it did not (issue 42, 2026-11-29): they alternated observed and plain
# runs of 20 s in one API, so a pair compared two stretches of a machine whose speed moved by a fifth within a run (the
# plain runs alone spread as widely as the pairs); here each pair's two sides are interleaved second by second, so a
# drift longer than a few seconds lands on both. What it cannot: the observer's parts that run once a run (the route
# window, the stack sample, the cause trace) still run once per leg, not per turn: each leg starts fresh runners (and
# watch, trace or part), so a leg holds one observed run's worth of them, in the observed turns they fall in, spread
# over that leg's SECONDS observed seconds, as a load run of SECONDS seconds spreads them. An observer's session left
# open in the API while its side is stopped (a stack sample or rundown that straddles a stop) makes the idle observed
# API work in the plain side's turns: the script prints each API's CPU outside its own turns, so that shows. The runner's
# attach (its session's start) and start-up come before the turns and are not counted; what it does after the load (the
# diagnosis, the report) is not counted either: its runner is killed at the leg's end, as the load ends.
# Usage: scripts/observer-cost.sh [--observer runner|watch|trace|session|routes|stacks|causes|calls|none]
#   [--mode shared|pinned] [pairs] [users] [seconds]
#   (default 3 pairs, 16 users, 20 1-second turns of each side per leg, after one warm-up pair not counted). Needs curl
#   and python3. Exit 2 with one line on bad input. Prints one line per pair and, last, a one-line verdict per run.
# The quiet figures (nothing else running; docs/notebook/performance.md, "The observer's cost in 1-second turns"):
#   scripts/observer-cost.sh --observer none 3 16 20                             # the method: 1.00 +- its error
#   for i in 1 2 3; do scripts/observer-cost.sh 3 16 20; done                    # issue 42's bar: >= 0.95 in every pair
#   for i in 1 2 3; do scripts/observer-cost.sh --observer watch 3 16 20; done   # issue 40's watch
#   BASELINE_RUNNER=<main's build>/ConcurrencySandbox.LoadTests.dll scripts/observer-cost.sh 3 16 20   # before/after
#   for p in session routes stacks causes calls; do scripts/observer-cost.sh --observer $p 3 16 20; done    # the parts
set -euo pipefail
cd "$(dirname "$0")/.."
observer=runner
mode=shared
while [ "${1:-}" = "--observer" ] || [ "${1:-}" = "--mode" ]; do
  if [ "$1" = "--observer" ]; then observer="${2:-}"; else mode="${2:-}"; fi
  shift 2 || shift
done
case "$observer" in
  runner | watch | trace | session | routes | stacks | causes | calls | none) ;;
  *) echo "--observer must be runner, watch, trace, session, routes, stacks, causes, calls or none, not '$observer'" >&2; exit 2 ;;
esac
[ "$mode" = shared ] || [ "$mode" = pinned ] || { echo "--mode must be shared or pinned, not '$mode'" >&2; exit 2; }
# CauseTrace.Providers on .NET 10 in dotnet-trace's words: the runtime's AllocationSampling keyword at Informational (4).
# (Before: the GC keyword at Verbose, Microsoft-Windows-DotNETRuntime:0x1:5. Until 2026-11-29 the trace also held
# System.Net.Http:0xFFFFFFFFFFFFFFFF:4 and System.Threading.Tasks.TplEventSource:0x80:4, now the calls' own session.)
trace_providers="Microsoft-Windows-DotNETRuntime:0x80000000000:4"
(($# <= 3)) || { echo "at most three numbers (pairs, users, seconds), not '$*'" >&2; exit 2; }
pairs=${1:-3}; users=${2:-16}; seconds=${3:-20}
[[ "$pairs" =~ ^[0-9]+$ ]] && (( pairs >= 1 && pairs <= 20 )) || { echo "pairs must be 1..20, not '$pairs'" >&2; exit 2; }
[[ "$users" =~ ^[0-9]+$ ]] && (( users >= 1 && users <= 1024 )) || { echo "users must be 1..1024, not '$users'" >&2; exit 2; }
[[ "$seconds" =~ ^[0-9]+$ ]] && (( seconds >= 6 && seconds <= 59 )) || { echo "seconds must be 6..59 (the observer's parts take the first 5), not '$seconds'" >&2; exit 2; }
upstream_calls=${UPSTREAM_CALLS:-}
[ -z "$upstream_calls" ] || { [[ "$upstream_calls" =~ ^[0-9]+$ ]] && (( upstream_calls >= 1 && upstream_calls <= 64 )); } ||
  { echo "UPSTREAM_CALLS must be 1..64, not '$upstream_calls'" >&2; exit 2; }
profile=${PROFILE:-0}
[ "$profile" = 0 ] || [ "$profile" = 1 ] || { echo "PROFILE must be 0 or 1, not '$profile'" >&2; exit 2; }
[ "$profile" = 0 ] || command -v perf >/dev/null || { echo "PROFILE=1 needs perf: apt-get install -y linux-perf" >&2; exit 2; }
sides=(observed plain)
if [ -n "${BASELINE_RUNNER:-}" ] && [ "$observer" != trace ]; then
  [ "$observer" = runner ] || [ "$observer" = watch ] || { echo "BASELINE_RUNNER goes with --observer runner or watch, not '$observer'" >&2; exit 2; }
  [ -f "$BASELINE_RUNNER" ] || { echo "BASELINE_RUNNER is not a file: '$BASELINE_RUNNER'" >&2; exit 2; }
  sides+=(baseline)
elif [ -n "${BASELINE_TRACE_PROVIDERS:-}" ] && [ "$observer" = trace ]; then
  sides+=(baseline)
fi
for tool in curl python3; do
  command -v "$tool" >/dev/null || { echo "$tool is not installed: apt-get install -y $tool" >&2; exit 2; }
done
source scripts/wrk-bench-lib.sh
cpus_for "$mode"
mode=$pinned_mode
dotnet build loadtests/ConcurrencySandbox.LoadTests -c Release -v quiet -nologo >/dev/null
runner=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll
part_app=docs/notebook/investigations/observer-part.cs
case "$observer" in
  session | routes | stacks | causes | calls) dotnet build "$part_app" -v quiet -nologo >/dev/null ;;
esac
# Named for this script: a cleanup of /tmp/tmp.* by something else on a shared machine took the API log of two runs.
work=$(mktemp -d -t observer-cost.XXXXXX)
# The runners' recorded traces go here too: a runner killed at its leg's end never reads (and deletes) them.
export TMPDIR=$work
api_pids=()
urls=()
api_of=()  # per side, the API (an index of api_pids) it loads in the current leg
side_pids=()
stub_pid=""
cleanup() {
  # SIGKILL ends a stopped process too; SIGTERM would wait for a SIGCONT.
  for pid in ${side_pids[*]}; do kill -KILL "$pid" 2>/dev/null || true; done
  for pid in "${api_pids[@]}" "$stub_pid"; do
    if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; fi
  done
  # KEEP=DIR keeps the turns (turns.txt: one row per turn, pairs.txt) and every log, for a per-turn reading.
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$work"/. "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
# The runners load for longer than a leg's turns take (a stopped process's clock runs on) and are killed at its end.
lifetime=$((4 * seconds + 60))
printf '{ "ReportingInterval": "00:00:02", "LoadSimulationsSettings": [ { "KeepConstant": [%d, "00:%02d:%02d"] } ] }\n' \
  "$users" $((lifetime / 60)) $((lifetime % 60)) >"$work/load.json"
if [ -n "$upstream_calls" ]; then
  dotnet build src/ConcurrencySandbox.ThirdPartyStub -c Release -v quiet -nologo >/dev/null
  dotnet src/ConcurrencySandbox.ThirdPartyStub/bin/Release/net10.0/ConcurrencySandbox.ThirdPartyStub.dll --urls http://127.0.0.1:0 \
    --Logging:LogLevel:Default=Warning >"$work/stub.log" 2>&1 &
  stub_pid=$!
  ready_url "$work/stub.log" "ConcurrencySandbox stub ready at"
  [ -n "$ready" ] || { echo "the stub printed no ready line" >&2; cat "$work/stub.log" >&2; exit 2; }
  export ThirdParty__BaseUrl="$ready"
fi
path="/api/compute/sync?cycles=1"
[ -z "$upstream_calls" ] || path="/api/fanout?calls=$upstream_calls&delayMs=0&strategy=async"
# perf names JIT-compiled code by the runtime's perf map, which needs the code where it was written (no W^X double mapping).
[ "$profile" = 0 ] || export DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0
for s in "${!sides[@]}"; do
  mkdir -p "$work/api-$s"
  start_api "$(dirname "$runner")/api/ConcurrencySandbox.Api.dll" "$work/api-$s" "$api_cpus"
  api_pids[s]=$api_pid
  urls[s]=$url
done
unset DOTNET_PerfMapEnabled DOTNET_EnableWriteXorExecute
if [ "$mode" = pinned ]; then
  pinning="the APIs on cpu $api_cpus, the runners and observers on cpu $client_cpus (taskset)"
else
  pinning="nothing pinned: the APIs, runners and observers share all $(nproc) cpus"
fi
echo "# observer cost ($observer), mode $mode ($pinning): $pairs pairs of ${#sides[@]} legs (the sides on the APIs in turn), each leg $seconds 1-second turns of each side (ABBA), $users users, on $path;" \
  "APIs: $(for s in "${!sides[@]}"; do printf 'API %s pid %s; ' "$s" "${api_pids[s]}"; done)$(bench_header)"

# attached PID PATTERN LOG NAME: waits up to a minute for PID's LOG to show PATTERN (it attached); exits when it ended first.
attached() {
  for _ in $(seq 1 600); do
    grep -q "$2" "$3" && return
    kill -0 "$1" 2>/dev/null || { echo "$4 ended before it attached:" >&2; cat "$3" >&2; exit 2; }
    sleep 0.1
  done
  echo "$4 did not attach within a minute:" >&2; cat "$3" >&2; exit 2
}

# descendants PID...: the pids and every descendant of theirs (`dotnet run --file` runs the part as its child).
descendants() {
  local pid
  for pid in "$@"; do
    echo "$pid"
    # shellcheck disable=SC2046 # one pid a word
    [ -z "$(pgrep -P "$pid" || true)" ] || descendants $(pgrep -P "$pid")
  done
}

# start_side SIDE LEG_TAG: starts what observes the side's API beside a --no-observer runner (watch, dotnet-trace or one
# part; none for the runner's own observer, a plain side or --observer none), then the side's runner, waits until the
# runner's load has reached the API (its users' requests started), and stops them all; side_pids[SIDE] holds their pids.
start_side() {
  local s=$1 name=${sides[$1]} log="$work/side-$1-$2.log" observer_pid="" dll=$runner flags=(--no-observer)
  local api_pid=${api_pids[api_of[s]]} url=${urls[api_of[s]]}
  [ "$name" = baseline ] && [ "$observer" != trace ] && dll=$BASELINE_RUNNER
  pin_to "$client_cpus"
  case "$observer/$name" in
    */plain | none/* ) ;;
    runner/*) flags=(--pid "$api_pid") ;;
    watch/*)
      "${pin[@]}" dotnet "$dll" watch --pid "$api_pid" --out "$work/watch-$s-$2" >"$log" 2>&1 &
      observer_pid=$!
      attached "$observer_pid" '^watching ' "$log" watch ;;
    trace/*)
      local providers=$trace_providers
      [ "$name" = baseline ] && providers=$BASELINE_TRACE_PROVIDERS
      # Longer than the leg: the trace covers all of it and is killed at its end.
      "${pin[@]}" "${DOTNET_TRACE:-dotnet-trace}" collect -p "$api_pid" --providers "$providers" --duration "$(printf '00:%02d:%02d' $((lifetime / 60)) $((lifetime % 60)))" \
        -o "$work/trace-$s-$2.nettrace" >"$log" 2>&1 &
      observer_pid=$!
      attached "$observer_pid" 'Output File' "$log" dotnet-trace ;;
    *)
      # The part, when the runner would take it: the route window with the first interval row (2 s into the load), the
      # stack sample and the allocation trace a second later (VariantObserver.OnInterval), the calls' trace from then as
      # the runner holds it (CauseTrace.CallsWindow, or less once it holds enough calls); the session from the start to
      # the end. Its delays run on the wall clock, whose seconds the turns halve: a part that waits 3 s is taken about
      # 1.5 s into its side's turns.
      local delay=2 hold=0
      [ "$observer" = session ] && delay=0 hold=$lifetime
      [ "$observer" = stacks ] || [ "$observer" = causes ] && delay=3
      [ "$observer" = calls ] && delay=2
      "${pin[@]}" dotnet run --no-build --file "$part_app" -- "$api_pid" "$observer" "$delay" "$hold" "$url$path" >"$log" 2>&1 &
      observer_pid=$! ;;
  esac
  requests_started "$url"
  local before=$started
  # --slo-p99-ms: a closed profile without it holds one user first, for as long as its first step (UrlCommand.UnloadedFirst).
  "${pin[@]}" dotnet "$dll" run --url "$url$path" --config "$work/load.json" --slo-p99-ms 60000 --out "$work/report-$s-$2" "${flags[@]}" \
    >"$work/runner-$s-$2.log" 2>&1 &
  local runner_pid=$!
  for _ in $(seq 1 1200); do
    requests_started "$url"
    (( started - before > 4 * users )) && break
    kill -0 "$runner_pid" 2>/dev/null || { echo "the $name side's runner ended before its load began:" >&2; tail -n 5 "$work/runner-$s-$2.log" >&2; exit 2; }
    sleep 0.05
  done
  (( started - before > 4 * users )) || { echo "the $name side's runner sent no load within a minute:" >&2; tail -n 5 "$work/runner-$s-$2.log" >&2; exit 2; }
  # shellcheck disable=SC2046 # one pid a word
  side_pids[s]=$(descendants "$runner_pid" $observer_pid | tr '\n' ' ')
  runner_pids[s]=$runner_pid
  # shellcheck disable=SC2086 # a list of pids
  kill -STOP ${side_pids[s]} 2>/dev/null || true
}

# end_side SIDE LEG_TAG: kills the side's processes (the load ends; a watch's report and a runner's diagnosis are not waited
# for) and says what a part did, when it finished.
end_side() {
  # shellcheck disable=SC2086 # a list of pids
  kill -KILL ${side_pids[$1]} 2>/dev/null || true
  for pid in ${side_pids[$1]}; do wait "$pid" 2>/dev/null || true; done
  side_pids[$1]=""
  if [ -f "$work/side-$1-$2.log" ]; then
    case "$observer" in
      routes | stacks | causes) echo "  ${sides[$1]} $observer: $(tail -n 1 "$work/side-$1-$2.log")" ;;
    esac
  fi
}

# side_ticks SIDE: sets cpu_ticks to the CPU ticks of the side's processes together; one that has ended (a part that
# finished) counts with its last reading, so a turn does not lose what it spent before (only what it spent after that
# reading, in its last turn).
declare -A last_ticks
side_ticks() {
  local pid ticks=0
  for pid in ${side_pids[$1]}; do
    if read_cpu_ticks "$pid"; then last_ticks[$pid]=$cpu_ticks; fi
    ticks=$((ticks + ${last_ticks[$pid]:-0}))
  done
  cpu_ticks=$ticks
}

# turn SIDE TURN: one 1-second turn of the side (every process of it); appends "pair leg api side turn requests seconds
# api-ticks side-ticks" to $work/turns.txt: the requests its API started (less the closing reading itself), the turn's seconds,
# its API's CPU ticks and its processes'.
turn() {
  local s=$1
  kill -0 "${runner_pids[s]}" 2>/dev/null || { echo "the ${sides[s]} side's runner ended during the turns:" >&2; tail -n 5 "$work/runner-$s-$leg_tag.log" >&2; exit 2; }
  local api_pid=${api_pids[api_of[s]]} url=${urls[api_of[s]]}
  requests_started "$url"; local before=$started
  read_cpu_ticks "$api_pid"; local api_before=$cpu_ticks
  side_ticks "$s"; local side_before=$cpu_ticks
  local from=$EPOCHREALTIME
  # shellcheck disable=SC2086 # a list of pids
  kill -CONT ${side_pids[s]} 2>/dev/null || true
  sleep 1
  # shellcheck disable=SC2086 # a list of pids
  kill -STOP ${side_pids[s]} 2>/dev/null || true
  local to=$EPOCHREALTIME
  sleep 0.02  # the API takes the requests that were on their way when the side stopped
  requests_started "$url"
  read_cpu_ticks "$api_pid"; local api=$((cpu_ticks - api_before))
  side_ticks "$s"
  echo "$pair $leg ${api_of[s]} ${sides[s]} $2 $((started - before - 1)) $(awk -v a="$from" -v b="$to" 'BEGIN { printf "%.6f", b - a }') $api $((cpu_ticks - side_before))" >>"$work/turns.txt"
}

# leg N L: the pair's leg L: every side on the API the leg gives it (side S on API (S + L) mod the sides' count), started
# afresh, SECONDS turns of each (ABBA), the sides ended; appends one row per side to $work/pairs.txt: "pair leg api
# side api-ticks pool-threads", its API's CPU over the whole of the leg's turns (the other sides' turns included).
leg() {
  pair=$1 leg=$2 leg_tag=$1.$2
  local s second order api_from=()
  for s in "${!sides[@]}"; do api_of[s]=$(((s + leg) % ${#sides[@]})); done
  # Which side starts and takes its turn first alternates by leg too (ABBA shifted by two turns in odd legs), so no
  # side is first in more of a pair's seconds than another.
  turn_order "$((2 * (leg % 2)))" "${!sides[@]}"
  for s in "${order[@]}"; do start_side "$s" "$leg_tag"; done
  for s in "${!sides[@]}"; do read_cpu_ticks "${api_pids[api_of[s]]}"; api_from[s]=$cpu_ticks; done
  local perfs=()
  for second in $(seq 0 $((seconds - 1))); do
    if [ "$profile" = 1 ] && [ "$second" = 7 ] && [ "$pair" != 0 ]; then
      for s in "${!sides[@]}"; do
        perf record -F 499 -g -p "${api_pids[api_of[s]]}" -o "$work/perf-${sides[s]}-$leg_tag.data" >/dev/null 2>&1 &
        perfs+=($!)
      done
    fi
    turn_order "$((second + 2 * (leg % 2)))" "${!sides[@]}"
    for s in "${order[@]}"; do turn "$s" "$second"; done
  done
  if ((${#perfs[@]} > 0)); then
    kill -INT "${perfs[@]}" 2>/dev/null || true
    wait "${perfs[@]}" 2>/dev/null || true
    for s in "${!sides[@]}"; do
      perf report -i "$work/perf-${sides[s]}-$leg_tag.data" --no-children --sort dso,sym --stdio 2>/dev/null | grep -E '^ +[0-9.]+%' >"$work/perf-${sides[s]}-$leg_tag.txt" || true
    done
  fi
  for s in "${!sides[@]}"; do
    read_cpu_ticks "${api_pids[api_of[s]]}"
    # The API's pool threads as the leg ends: an observer that stalls the service's threads (a stack sample suspends
    # them every millisecond) may leave its pool larger than plain's for the rest of the leg.
    echo "$pair $leg ${api_of[s]} ${sides[s]} $((cpu_ticks - api_from[s])) $(curl -fsS "${urls[api_of[s]]}/api/telemetry" | sed -n 's/.*"threadCount":\([0-9]*\).*/\1/p')" >>"$work/pairs.txt"
  done
  for s in "${!sides[@]}"; do end_side "$s" "$leg_tag"; done
}

# pair N: one leg per side, so every side loads every API once in the pair.
pair() {
  local l
  for l in "${!sides[@]}"; do leg "$1" "$l"; done
}

# figures PAIR|all: per pair (or for a run's verdict, over all its pairs) each side's rate and CPU per request and its
# ratio to plain's (the geometric mean of its legs'), from $work/turns.txt and pairs.txt: scripts/observer-cost-figures.py.
figures() {
  python3 scripts/observer-cost-figures.py "$work/turns.txt" "$work/pairs.txt" "$clock_ticks_per_second" "$1" "$observer" "$mode"
}

# Warm-up, not counted: one pair of the same turns (each API's JIT and pool, its first EventPipe session, the runners').
pair 0
echo "# warm-up, not counted: $(figures 0); $(uptime)"
for i in $(seq 1 "$pairs"); do
  pair "$i"
  figures "$i"
done
figures all
echo "# done; $(bench_header)"
