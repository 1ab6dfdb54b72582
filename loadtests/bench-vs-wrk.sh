#!/usr/bin/env bash
# Is the load runner the bottleneck? wrk and our runner load ONE API process on GET /api/compute/sync?cycles=1 with the
# same number of connections/users, taking 1-second turns: both run for the whole benchmark, and the script stops one
# (SIGSTOP) and continues the other (SIGCONT) each second, in turn_order (scripts/wrk-bench-lib.sh: ABBA for two tools, rotated for
# more, so no tool takes two turns in a row), SECONDS turns of each per pair. Each turn's
# requests are counted by the API itself (requestsStarted in /api/telemetry, the same counter for both tools), so the
# two rates are measured alike and a change of the VM's vCPU speed, which lasts seconds here (docs/notebook/measurement.md),
# lands on both tools' turns instead of on one tool's block. Prints each pair's throughputs and ratio, and for each tool
# its own CPU per request and how busy it kept its cpu(s) during its turns (a stopped process uses none), with the
# API's beside them.
#
# Modes (docs/notebook/performance.md, "Load runner vs wrk"):
#   pinned (default): the API on cpu 0, the load tool (wrk or the runner, the same for both) on cpu 1, with taskset, as
#     the core-count matrix and the streaming experiment run them. The client cannot take CPU from the server, so a
#     lower rate means the tool could not keep the server busy: the question "is the runner the bottleneck". Issue 19
#     asks the runner to reach at least 0.9 of wrk's rate in every pair; the exit code is 1 when a pair falls short.
#   shared (--mode shared): nothing pinned, client and API share every cpu, so each microsecond the tool spends is
#     taken from the server; the ratio is printed, not judged. A machine with 1 cpu runs this mode, with a note.
# The mode, pinning, commit, nproc and load average are printed before and after. A benchmark, not a test: needs wrk
# and curl (apt-get install -y wrk curl), exits 2 without them.
# Usage: loadtests/bench-vs-wrk.sh [--mode pinned|shared] [seconds=8] [connections=64] [pairs=3]
# h2load (Debian's nghttp2-client; apt-get install -y nghttp2-client), when installed, takes turns too as a second
# yardstick, speaking HTTP/1.1 (--h1) over as many connections: the runner is then compared with two tools, not one.
#   BASELINE_RUNNER=path/to/ConcurrencySandbox.LoadTests.dll: a runner built from another commit takes turns too
#     (the same command), so a change to the runner is measured before/after side by side, in the same seconds.
#   RUNNER_ARGS: extra options for the runner, e.g. RUNNER_ARGS="--live 5680" to measure it with its live page on: the
#     script then connects a page to it (curl reads http://127.0.0.1:PORT/events for the whole run), says so, and
#     prints how many events the page read; a page that reads none in the warm-up stops the run (exit 2), one that
#     is disconnected before the end fails it (exit 1).
#   AGENTS=N (1..4): the runner coordinates N local agent processes (--agents N, docs/spread-the-load-over-agents.md)
#     that carry its load against the same API; the runner and its agents take the turns together (all stopped and
#     continued at once) and their CPU is added up, so the ratio is the N agents' throughput against wrk's.
#   RUNNER_TERMINAL=1: the runner runs in a pseudo-terminal (util-linux script, 160 x 40), so it draws its status line
#     as it does for a user, with --verbose so its interval lines still show when it has warmed up.
#   seconds: 1-second turns of each tool per pair, at least 4 so the turn order completes once.
#   API_COUNTS=1: also counts, with perf switched on around each turn only, what the API and each tool did per request
#     in that tool's turns (CPU, wake-ups the tool caused, context switches, epoll_wait, connections accepted, reads and
#     the reads that found nothing, writes, futex) and the bytes the API received and sent per request (ss): how the
#     tools' requests reach the server differently (docs/notebook/performance.md, "Why the API worked harder", "The wire
#     per request"). Needs perf and ss.
#   PROFILE=1: also profiles each tool over its own turns only (perf record -g, switched on around each turn, the
#     runner with the runtime's perf map) and prints its CPU per request by part (socket system calls, parsing,
#     scheduling and wake-ups, timing and histogram recording, allocation and GC: scripts/perf-parts.py), with its
#     system calls and context switches per request (docs/notebook/performance.md, "Where the runner's microseconds go").
#     Needs perf; the profiler's own cost is in these turns' figures, so judge ratios without it. A runner with agents
#     (AGENTS=N) is also split by process (the coordinator, each agent: its CPU per request, its parts, its threads and
#     its system calls), so where the agents' extra goes is seen per process.
# Each runner reports (takes an interval row, and with agents encodes, sends and merges it) every 2 s per tool taking
# turns, so once per 2 s of its own turns as in a run of its own (a stopped runner's clock runs on; scripts/wrk-bench-lib.sh,
# reporting_for); the end prints its rows over the turns. A user's run keeps its own interval (5 s by default).
#   KEEP=DIR: the run's folder (every tool's log, the runner's report, PROFILE=1's perf data and perf script text) is
#     copied to DIR at its end.
# The quiet runs issue 42 judges (nothing else running on the machine; three runs in a row of each mode, the worst
# pair counts; each run prints the load average before and after, so a busy spell shows):
#   for i in 1 2 3; do loadtests/bench-vs-wrk.sh --mode shared 8 64 3; done               # shared: >= 0.95 every pair
#   for i in 1 2 3; do loadtests/bench-vs-wrk.sh 8 64 3; done                             # pinned: >= 0.95 every pair
#   for i in 1 2 3; do RUNNER_ARGS="--live 5680" loadtests/bench-vs-wrk.sh 8 64 3; done   # live page connected: >= 0.9
#   for i in 1 2 3; do AGENTS=3 loadtests/bench-vs-wrk.sh 8 64 3; done                   # 3 local agents: >= 0.95
# Add API_COUNTS=1 to a run to see, per request, what each tool's requests cost the API on the wire.
# At the end a Markdown table (the one docs/notebook/performance.md takes) gives each pair and each tool its rate, its
# ratio to wrk's, its CPU per request and the API's, and over all pairs each tool's CPU and, where the CPU's counters
# can be read (perf with hardware events; a VM often has none: then "n/a"), its instructions per request, the figure
# least moved by other load on the machine.
set -euo pipefail
cd "$(dirname "$0")/.."
mode=pinned
if [ "${1:-}" = "--mode" ]; then
  mode="${2:-}"
  shift 2 || shift
fi
[ "$mode" = pinned ] || [ "$mode" = shared ] || { echo "--mode must be pinned or shared, not '$mode'" >&2; exit 2; }
(( $# <= 3 )) || { echo "at most three arguments after the options: seconds connections pairs, not '$*'" >&2; exit 2; }
seconds="${1:-8}"
connections="${2:-64}"
pairs="${3:-3}"
[[ "$seconds" =~ ^[0-9]+$ ]] && (( seconds >= 4 && seconds <= 120 )) || { echo "seconds must be 4..120, not '$seconds'" >&2; exit 2; }
[[ "$connections" =~ ^[0-9]+$ ]] && (( connections >= 1 && connections <= 1024 )) || { echo "connections must be 1..1024, not '$connections'" >&2; exit 2; }
[[ "$pairs" =~ ^[0-9]+$ ]] && (( pairs >= 1 && pairs <= 20 )) || { echo "pairs must be 1..20, not '$pairs'" >&2; exit 2; }
api_counts="${API_COUNTS:-0}"
[ "$api_counts" = 0 ] || [ "$api_counts" = 1 ] || { echo "API_COUNTS must be 0 or 1, not '$api_counts'" >&2; exit 2; }
runner_terminal="${RUNNER_TERMINAL:-0}"
[ "$runner_terminal" = 0 ] || [ "$runner_terminal" = 1 ] || { echo "RUNNER_TERMINAL must be 0 or 1, not '$runner_terminal'" >&2; exit 2; }
agents="${AGENTS:-0}"
[[ "$agents" =~ ^[0-4]$ ]] || { echo "AGENTS must be 0..4 (local agent processes), not '$agents'" >&2; exit 2; }
live_port=""
if [[ " ${RUNNER_ARGS:-} " == *" --live"* ]]; then
  [[ " ${RUNNER_ARGS} " =~ \ --live[\ =]([0-9]+)\  ]] || { echo "RUNNER_ARGS' --live needs its port (--live 5680), not '${RUNNER_ARGS}'" >&2; exit 2; }
  live_port=${BASH_REMATCH[1]}
fi
profile="${PROFILE:-0}"
[ "$profile" = 0 ] || [ "$profile" = 1 ] || { echo "PROFILE must be 0 or 1, not '$profile'" >&2; exit 2; }
minimum=0.9
source scripts/wrk-bench-lib.sh
command -v wrk >/dev/null || { echo "wrk is not installed: apt-get install -y wrk" >&2; exit 2; }
command -v curl >/dev/null || { echo "curl is not installed: apt-get install -y curl" >&2; exit 2; }
if [ "$runner_terminal" = 1 ]; then
  command -v script >/dev/null || { echo "RUNNER_TERMINAL=1 needs script (util-linux): apt-get install -y bsdutils" >&2; exit 2; }
fi
for setting in API_COUNTS PROFILE; do
  if [ "${!setting:-0}" = 1 ]; then
    command -v perf >/dev/null || { echo "$setting=1 needs perf: apt-get install -y linux-perf" >&2; exit 2; }
  fi
done
if [ "$api_counts" = 1 ]; then command -v ss >/dev/null || { echo "API_COUNTS=1 needs ss: apt-get install -y iproute2" >&2; exit 2; }; fi

cpus_for "$mode"
mode=$pinned_mode
# wrk gets one thread per cpu it may use (it runs one event loop per thread, as the runner's pool sizes to its cpus).
wrk_threads=$client_cpu_count
if [ "$mode" = pinned ]; then
  pinning="API on cpu $api_cpus, load tool on cpu $client_cpus (taskset); wrk with $wrk_threads thread"
else
  pinning="nothing pinned: API and load tool share all $(nproc) cpus; wrk with $wrk_threads threads"
fi

work=$(mktemp -d)
api_pid=""
runner_pid=""
terminal_pid=""
page_pid=""
counter_pids=()
# The tools taking turns, by slot: 0 wrk, 1 the runner, 2 h2load, 3 the baseline runner (the last two when present);
# a runner's slot holds its pid and its agents' (AGENTS=N), the processes that take its turns together.
tool_pids=()
tool_names=(wrk "load runner" h2load "baseline runner")
if [ "$agents" != 0 ]; then tool_names[1]="load runner ($agents agents)"; tool_names[3]="baseline runner ($agents agents)"; fi
cleanup() {
  # SIGKILL ends a stopped process too; SIGTERM would wait for a SIGCONT.
  for pid in $terminal_pid $page_pid ${tool_pids[*]} ${counter_pids[*]}; do
    kill -KILL "$pid" 2>/dev/null || true
  done
  if [ -n "$api_pid" ]; then kill "$api_pid" 2>/dev/null || true; fi
  if [ -n "${KEEP:-}" ]; then mkdir -p "$KEEP" && cp -r "$work"/. "$KEEP"/ 2>/dev/null || true; fi
  rm -rf "$work"
}
trap cleanup EXIT

dotnet build -c Release loadtests/ConcurrencySandbox.LoadTests -v quiet -nologo >/dev/null
runner=loadtests/ConcurrencySandbox.LoadTests/bin/Release/net10.0/ConcurrencySandbox.LoadTests.dll

# One API for both tools: the copy the build put next to the runner (the same server the runner's children run).
start_api "$(dirname "$runner")/api/ConcurrencySandbox.Api.dll" "$work" "$api_cpus"
path="/api/compute/sync?cycles=1"
echo "API at $url; ${seconds} 1-second turns of each tool per pair (ABBA for two tools, rotated for more), ${connections} connections/users, GET $path"
echo "mode $mode: $pinning; the runner's output goes to $([ "$runner_terminal" = 1 ] && echo "a pseudo-terminal (status line on)" || echo "a file (no status line)")"

# Warm-up (JIT, connection pools): 30 s of wrk alone. An API pinned to one cpu settles slowly under this load: in 5 s
# windows of wrk after its start it took 44.5, 38.2, 35.4, 25.0 us of CPU per request, then 17.4-18.2 us from the fifth
# window on (2026-11-24, quiet).
wrk_run "$connections" 30 "$url$path" "$wrk_threads" "$client_cpus"

# Both tools run for longer than the turns need (a stopped process's clock runs on) and are killed at the end.
lifetime=$((120 + 4 * pairs * seconds))
pin_to "$client_cpus"
"${pin[@]}" wrk -t"$wrk_threads" -c"$connections" -d"${lifetime}s" --timeout 30s "$url$path" >"$work/wrk.log" 2>&1 &
tool_pids[0]=$!
if command -v h2load >/dev/null; then
  "${pin[@]}" h2load --h1 -t"$wrk_threads" -c"$connections" -D"$lifetime" "$url$path" >"$work/h2load.log" 2>&1 &
  tool_pids[2]=$!
else
  echo "note: h2load is not installed (apt-get install -y nghttp2-client): wrk is the only yardstick"
fi
sleep 2  # their connections open
for pid in "${tool_pids[@]}"; do kill -STOP "$pid"; done

# One interval row per 2 s of the runner's own turns, as in a run of its own (reporting_for, scripts/wrk-bench-lib.sh):
# 2 s per tool taking turns.
tools=$((1 + ${#tool_pids[@]}))  # wrk, h2load when installed, and the runner
[ -z "${BASELINE_RUNNER:-}" ] || tools=$((tools + 1))
reporting_for "$tools"
echo "the runner reports every $reporting_seconds s of wall-clock time: one row per 2 s of its own turns, $tools tools taking turns"
cat >"$work/shape.json" <<JSON
{ "ReportingInterval": "$(printf '00:00:%02d' "$reporting_seconds")", "LoadSimulationsSettings": [ { "KeepConstant": [${connections}, "$(printf '%02d:%02d:%02d' $((lifetime / 3600)) $((lifetime % 3600 / 60)) $((lifetime % 60)))"] } ] }
JSON
# One ramp of the sync variant for the whole lifetime: a --config (or --target) run keeps its shape whole, one round
# (with compute's default of 6 interleaved rounds, each a quarter of the lifetime, the runner moved to the taskrun
# variant part-way through the pairs: pair 1 then read 0.92-0.94 and pairs 2-3 0.84-0.86, 2026-11-25).
# Profiled, the runner writes the runtime's perf map (/tmp/perf-PID.map) so its compiled methods have names: without
# the W^X double mapping (perf cannot name code in its memfd) and without ReadyToRun code (precompiled framework code
# has no symbols perf can read), so every method it runs is compiled, fully optimised, and named in the map.
perf_map=(); [ "$profile" = 0 ] || perf_map=(env DOTNET_PerfMapEnabled=1 DOTNET_EnableWriteXorExecute=0 DOTNET_ReadyToRun=0)
runner_args=(compute --target "$url" --config "$work/shape.json" --cycles 1)
[ "$agents" = 0 ] || runner_args+=(--agents "$agents")
runner_command=("${pin[@]}" "${perf_map[@]}" dotnet "$runner" "${runner_args[@]}" --out "$work/report")
if [ "$runner_terminal" = 1 ]; then
  # The pseudo-terminal's shell execs the (pinned) runner, so the terminal's one child is the runner itself.
  # shellcheck disable=SC2086 # RUNNER_ARGS is a list of options
  script -qefc "stty cols 160 rows 40; exec $(printf '%q ' "${runner_command[@]}") --verbose ${RUNNER_ARGS:-}" /dev/null </dev/null >"$work/runner.log" 2>&1 &
  terminal_pid=$!
  for _ in $(seq 1 100); do
    runner_pid=$(pgrep -P "$terminal_pid" | head -n 1 || true)
    [ -n "$runner_pid" ] && break
    sleep 0.1
  done
  [ -n "$runner_pid" ] || { echo "the runner did not start in its pseudo-terminal" >&2; exit 2; }
else
  # shellcheck disable=SC2086 # RUNNER_ARGS is a list of options
  "${runner_command[@]}" ${RUNNER_ARGS:-} >"$work/runner.log" 2>&1 &
  runner_pid=$!
fi
if [ -n "$live_port" ]; then
  # The page: the live page's event stream read for the whole run, as a browser tab would (retried until it listens).
  curl -sSN --retry 120 --retry-connrefused --retry-delay 1 "http://127.0.0.1:$live_port/events" >"$work/page.log" 2>&1 &
  page_pid=$!
fi
# warm_up SLOT PID LOG NAME: a runner's warm-up (start-up, JIT and its connections) until it has printed warm_rows rows
# of load (about 6 s) (in a terminal each line starts after the status line's erase), then stopped, with its agents, for
# its turns; the slot then holds the runner's pid and its agents'.
warm_up() {
  for _ in $(seq 1 600); do
    (( $(grep -c 'compute/sync t=' "$3" || true) >= warm_rows )) && break
    kill -0 "$2" 2>/dev/null || { echo "the $4 ended before its warm-up:" >&2; cat "$3" >&2; exit 2; }
    sleep 0.1
  done
  local children=""
  [ "$agents" = 0 ] || children=$(pgrep -P "$2" -d ' ' || true)
  (( $(wc -w <<<"$children") == agents )) || { echo "the $4 has $(wc -w <<<"$children") agent processes, not $agents:" >&2; cat "$3" >&2; exit 2; }
  tool_pids[$1]="$2${children:+ $children}"
  kill -STOP ${tool_pids[$1]}
}
if [ -n "${BASELINE_RUNNER:-}" ]; then
  [ -f "$BASELINE_RUNNER" ] || { echo "BASELINE_RUNNER is not a file: '$BASELINE_RUNNER'" >&2; exit 2; }
  # Started with the runner, so the two warm up together: the runner, stopped once warm, waits less for the baseline
  # (on a busy machine a baseline warming up alone took over 30 s, and the runner's coordinator, whose clock ran on
  # while it was stopped, then gave its agents up as silent).
  # shellcheck disable=SC2086 # RUNNER_ARGS is a list of options
  "${pin[@]}" "${perf_map[@]}" dotnet "$BASELINE_RUNNER" "${runner_args[@]}" --out "$work/baseline-report" ${RUNNER_ARGS:-} >"$work/baseline.log" 2>&1 &
  tool_pids[3]=$!
fi
tool_pids[1]=$runner_pid
warm_up 1 "$runner_pid" "$work/runner.log" "load runner"
[ "$agents" = 0 ] || echo "load runner: pid ${tool_pids[1]%% *} and its $agents agents (pids ${tool_pids[1]#* }) take its turns together"
# page_events: sets events to the events the page has read so far (the lines of data in its stream).
page_events() { events=$(grep -c '^data:' "$work/page.log" || true); }
if [ -n "$live_port" ]; then
  page_events
  (( events > 0 )) && kill -0 "$page_pid" 2>/dev/null \
    || { echo "no page connected: http://127.0.0.1:$live_port/events sent no event during the runner's warm-up ($(head -c 300 "$work/page.log"))" >&2; exit 2; }
  echo "live page: a page is connected to the runner's --live $live_port (curl reading http://127.0.0.1:$live_port/events), $events events read in the warm-up"
fi
[ -z "${BASELINE_RUNNER:-}" ] || warm_up 3 "${tool_pids[3]}" "$work/baseline.log" "baseline runner"
runner_threads_before=$(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$runner_pid/status")
runner_rows_before=$(grep -c 'compute/sync t=' "$work/runner.log" || true)
slots=("${!tool_pids[@]}")

# tool_ticks SLOT: sets cpu_ticks to the CPU ticks of the tool of SLOT, all its processes (a runner's agents) together,
# and process_ticks[PID] to each process's own.
declare -A process_ticks=() counted_process_ticks=()
tool_ticks() {
  local pid ticks=0
  for pid in ${tool_pids[$1]}; do read_cpu_ticks "$pid"; process_ticks[$pid]=$cpu_ticks; ticks=$((ticks + cpu_ticks)); done
  cpu_ticks=$ticks
}

# turn SLOT: one 1-second turn of the tool of SLOT (every process of it), added to SLOT's totals: requests the
# API started (less the closing reading itself), seconds, and the API's and the tool's CPU ticks; and one line in
# $work/turns.txt: "pair second slot previous-slot requests seconds tool-ticks api-ticks" (previous-slot: whose turn
# came just before, -1 for the first).
previous_slot=-1
turn() {
  local slot=$1
  requests_started "$url"; local before=$started
  read_cpu_ticks "$api_pid"; local api_before=$cpu_ticks
  tool_ticks "$slot"; local tool_before=$cpu_ticks pid
  local -A process_before=(); for pid in ${tool_pids[$slot]}; do process_before[$pid]=${process_ticks[$pid]}; done
  [ "$api_counts" = 0 ] || { read_socket_bytes; local received_before=$socket_received sent_before=$socket_sent; }
  count_turn "$slot" enable
  local from=$EPOCHREALTIME
  kill -CONT ${tool_pids[$slot]}
  sleep 1
  kill -STOP ${tool_pids[$slot]}
  local to=$EPOCHREALTIME
  sleep 0.02  # the API takes the requests that were on their way when the tool stopped
  count_turn "$slot" disable
  requests_started "$url"
  total_requests[$slot]=$((total_requests[$slot] + started - before - 1))
  total_seconds[$slot]=$(awk -v t="${total_seconds[$slot]}" -v a="$from" -v b="$to" 'BEGIN { printf "%.6f", t + b - a }')
  read_cpu_ticks "$api_pid"; total_api_ticks[$slot]=$((total_api_ticks[$slot] + cpu_ticks - api_before))
  local api_turn_ticks=$((cpu_ticks - api_before))
  tool_ticks "$slot"; total_tool_ticks[$slot]=$((total_tool_ticks[$slot] + cpu_ticks - tool_before))
  echo "$pair $second $slot $previous_slot $((started - before - 1)) $(awk -v a="$from" -v b="$to" 'BEGIN { printf "%.6f", b - a }') $((cpu_ticks - tool_before)) $api_turn_ticks" >>"$work/turns.txt"
  previous_slot=$slot
  for pid in ${tool_pids[$slot]}; do
    counted_process_ticks[$pid]=$((${counted_process_ticks[$pid]:-0} + process_ticks[$pid] - process_before[$pid]))
  done
  if [ "$api_counts" = 1 ]; then
    read_socket_bytes
    api_read_bytes[slot]=$((api_read_bytes[slot] + socket_received - received_before))
    api_written_bytes[slot]=$((api_written_bytes[slot] + socket_sent - sent_before))
  fi
}
# read_socket_bytes: sets socket_received and socket_sent to the bytes the API's open connections have received and
# sent so far (tcp_info's bytes_received and bytes_sent, summed by ss over the API's port): over a turn, the request
# bytes the API took from the tool and the answer bytes it gave (no tool closes a connection: accept4 says so).
api_read_bytes=(0 0 0 0)
api_written_bytes=(0 0 0 0)
read_socket_bytes() {
  read -r socket_received socket_sent < <(ss -tinH state established "( sport = :${url##*:} )" | awk '
    { for (i = 1; i <= NF; i++) { split($i, kv, ":"); if (kv[1] == "bytes_received") r += kv[2]; else if (kv[1] == "bytes_sent") s += kv[2] } }
    END { printf "%d %d\n", r, s }')
}

# summary_row PAIR SLOT: the pair's Markdown row for the tool of SLOT (rate, ratio to wrk's, its and the API's CPU per request).
summary_rows=()
summary_row() {
  summary_rows+=("$(awk -v p="$1" -v name="${tool_names[$2]}" -v n="${total_requests[$2]}" -v s="${total_seconds[$2]}" -v w="$(rate 0)" \
    -v tool="${total_tool_ticks[$2]}" -v api="${total_api_ticks[$2]}" -v hz="$clock_ticks_per_second" 'BEGIN {
    r = (s > 0 ? n / s : 0)
    printf "| %d | %s | %.0f | %s | %s | %s |", p, name, r, (w > 0 ? sprintf("%.2f", r / w) : "n/a"),
      (n > 0 ? sprintf("%.1f", tool / hz / n * 1e6) : "n/a"), (n > 0 ? sprintf("%.1f", api / hz / n * 1e6) : "n/a") }')")
}

# figures SLOT NAME CPUS: "NAME X us of CPU per request, Y % of its N cpu(s)" for the tool of SLOT, then the API's.
figures() {
  awk -v name="$2" -v cpus="$3" -v api_cpus="$api_cpu_count" -v n="${total_requests[$1]}" -v s="${total_seconds[$1]}" \
    -v tool="${total_tool_ticks[$1]}" -v api="${total_api_ticks[$1]}" -v hz="$clock_ticks_per_second" 'BEGIN {
    if (n <= 0 || s <= 0) { printf "%s n/a", name; exit }
    printf "%s %.1f us of CPU per request, %.0f %% of its %d cpu(s); API %.1f us per request, %.0f %% of its %d cpu(s)",
      name, tool / hz / n * 1e6, 100 * tool / hz / s / cpus, cpus, api / hz / n * 1e6, 100 * api / hz / s / api_cpus, api_cpus }'
}

# start_perf SLOT NAME PERF_ARGS...: a perf (stat or record) of the tool of SLOT's turns, counting or sampling only
# while switched on (count_turn SLOT enable|disable, through perf's control fifo, which answers each command once it
# is done); its log is $work/NAME.log.
perf_controls=("" "" "" "")
start_perf() {
  local slot=$1 name=$2 control answer
  shift 2
  mkfifo "$work/$name.control" "$work/$name.answer"
  perf "$@" -D -1 --control "fifo:$work/$name.control,$work/$name.answer" 2>"$work/$name.log" &
  counter_pids+=($!)
  exec {control}<>"$work/$name.control"
  exec {answer}<>"$work/$name.answer"
  perf_controls[slot]+="$control:$answer:$name "
}
count_turn() {
  local perf
  for perf in ${perf_controls[$1]}; do
    echo "$2" >&"${perf%%:*}"
    perf=${perf#*:}
    read -r -t 10 -u "${perf%%:*}" _ || { echo "perf did not answer '$2': $(cat "$work/${perf#*:}.log")" >&2; exit 2; }
  done
}
# stop_perfs: ends every perf (a perf record writes its data as it ends).
stop_perfs() {
  local perf
  for perf in ${perf_controls[*]}; do echo stop >&"${perf%%:*}"; done
  for perf in "${counter_pids[@]}"; do
    kill -INT "$perf" 2>/dev/null || true
    wait "$perf" 2>/dev/null || true
  done
}
tool_of() { echo "${tool_pids[$1]// /,}"; }

# With API_COUNTS=1: per tool slot, the API and that tool, every thread; the receives that found nothing (EAGAIN) and
# the connections accepted (a tool that closes and reopens its connections would show them) too.
counted_events='task-clock,context-switches,sched:sched_wakeup,syscalls:sys_enter_epoll_wait,syscalls:sys_enter_epoll_ctl,syscalls:sys_enter_accept4,syscalls:sys_enter_recvfrom,syscalls:sys_enter_sendto,syscalls:sys_enter_read,syscalls:sys_enter_write,syscalls:sys_enter_futex'
start_counters() {
  local slot
  for slot in "${slots[@]}"; do
    start_perf "$slot" "counts$slot" stat -x, --per-thread -e "$counted_events" -e syscalls:sys_exit_recvfrom --filter 'ret == -11' \
      -p "$api_pid,$(tool_of "$slot")" -o "$work/counts$slot.csv"
  done
}
# With PROFILE=1: per tool slot, call-chain samples of the tool and its system calls and context switches.
profiled_syscalls='epoll_wait epoll_pwait epoll_ctl recvfrom recvmsg read readv sendto sendmsg write writev futex sched_yield'
start_profiles() {
  local slot events=raw_syscalls:sys_enter,context-switches,sched:sched_wakeup name pid
  for name in $profiled_syscalls; do events+=",syscalls:sys_enter_$name"; done
  for slot in "${slots[@]}"; do
    start_perf "$slot" "profile$slot" record -g -F 1999 -p "$(tool_of "$slot")" -o "$work/profile$slot.data"
    start_perf "$slot" "syscalls$slot" stat -x, -e "$events" -p "$(tool_of "$slot")" -o "$work/syscalls$slot.csv"
    if (( $(wc -w <<<"${tool_pids[$slot]}") > 1 )); then
      for pid in ${tool_pids[$slot]}; do
        start_perf "$slot" "syscalls$slot-$pid" stat -x, -e "$events" -p "$pid" -o "$work/syscalls$slot-$pid.csv"
      done
    fi
  done
}
# Instructions per request, per tool over its turns, where perf can count them (hardware events).
instructions_counted=0
if command -v perf >/dev/null && perf stat -x, -e instructions:u true 2>&1 | grep -q '^[0-9]'; then instructions_counted=1; fi
start_instructions() {
  local slot
  for slot in "${slots[@]}"; do
    start_perf "$slot" "instructions$slot" stat -x, -e instructions -p "$(tool_of "$slot")" -o "$work/instructions$slot.csv"
  done
}
# instructions_per_request SLOT REQUESTS: the tool's instructions over its turns per request, or n/a.
instructions_per_request() {
  [ "$instructions_counted" = 1 ] && [ -f "$work/instructions$1.csv" ] || { echo "n/a"; return; }
  awk -F, -v n="$2" '$1 ~ /^[0-9]+$/ && n > 0 { printf "%.0f", $1 / n; found = 1 } END { if (!found) print "n/a" }' "$work/instructions$1.csv"
}

# us_per_request TICKS REQUESTS: sets us to TICKS of CPU per request, in microseconds.
us_per_request() { us=$(awk -v t="$1" -v hz="$clock_ticks_per_second" -v n="$2" 'BEGIN { printf "%.3f", (n > 0 ? t / hz / n * 1e6 : 0) }'); }
# print_profile SLOT NAME REQUESTS TOOL_TICKS: NAME's CPU per request by part over its turns, then its system calls
# and context switches per request (the events counted less than 1 in 100 requests left out). A runner with agents
# (AGENTS=N) is then split by process, each with its own CPU over the turns per request of all of them, and its threads.
print_profile() {
  local us pid process=0
  us_per_request "$4" "$3"
  echo "profile, $2: $us us of CPU per request over its turns ($3 requests)"
  perf script -i "$work/profile$1.data" -F comm,pid,tid,time,event,ip,sym,dso 2>/dev/null >"$work/profile$1.txt"
  python3 scripts/perf-parts.py "$2" --us-per-request "$us" <"$work/profile$1.txt"
  if (( $(wc -w <<<"${tool_pids[$1]}") > 1 )); then
    for pid in ${tool_pids[$1]}; do
      us_per_request "${counted_process_ticks[$pid]}" "$3"
      local who="coordinator"; (( process == 0 )) || who="agent process $process"
      echo "profile, $2, $who (pid $pid): $us us of CPU per request of all its processes' turns"
      python3 scripts/perf-parts.py "$2, $who" --us-per-request "$us" --pid "$pid" <"$work/profile$1.txt"
      process=$((process + 1))
    done
  fi
  per_request_counts "$2" "$3" "$work/syscalls$1.csv"
  if (( $(wc -w <<<"${tool_pids[$1]}") > 1 )); then
    process=0
    for pid in ${tool_pids[$1]}; do
      local who="coordinator"; (( process == 0 )) || who="agent process $process"
      per_request_counts "$2, $who (pid $pid)" "$3" "$work/syscalls$1-$pid.csv"
      process=$((process + 1))
    done
  fi
}
# per_request_counts NAME REQUESTS CSV: the events of a perf stat CSV per request (those under 1 in 100 requests left out).
per_request_counts() {
  awk -F, -v name="$1" -v n="$2" '$1 ~ /^[0-9.]+$/ && n > 0 && $1 / n >= 0.01 {
    e = $3; sub(/^(syscalls:sys_enter_|sched:sched_)/, "", e); sub(/^raw_syscalls:sys_enter$/, "system calls, all", e)
    out = out sprintf(" %s %.3f,", e, $1 / n) } END { sub(/,$/, "", out); printf "per request, %s:%s\n", name, out }' "$3"
}
# print_counts SLOT NAME REQUESTS: NAME's turns, per request: each counted event on the API's threads and on the tool's,
# and the bytes the API received and sent.
print_counts() {
  local tid line
  while IFS= read -r line; do
    tid=${line%%,*}; tid=${tid##*-}
    if [ -d "/proc/$api_pid/task/$tid" ]; then echo "API,$line"; else echo "tool,$line"; fi
  done < <(grep -E '^[^#].*-[0-9]+,' "$work/counts$1.csv") | awk -F, -v name="$2" -v n="$3" -v received="${api_read_bytes[$1]}" -v sent="${api_written_bytes[$1]}" '
    $3 ~ /^[0-9.]+$/ { e = $5; sub(/^(syscalls:sys_enter_|sched:sched_)/, "", e); sub(/^syscalls:sys_exit_recvfrom$/, "recvfrom-EAGAIN", e); v[$1 "," e] += $3 }
    END {
      split("task-clock context-switches wakeup epoll_wait epoll_ctl accept4 recvfrom recvfrom-EAGAIN sendto read write futex", order, " ")
      for (w = 1; w <= 2; w++) {
        who = (w == 1 ? "API" : "tool"); out = ""
        for (i = 1; i <= 12; i++) {
          k = who "," order[i]; if (!(k in v)) continue
          out = out sprintf(" %s %.3f%s", order[i], (order[i] == "task-clock" ? v[k] * 1000 / n : v[k] / n), (order[i] == "task-clock" ? " us" : ""))
        }
        if (w == 1) out = out sprintf(" bytes-received %.1f bytes-sent %.1f", received / n, sent / n)
        printf "counts, %s turns, per request (%d requests), %s:%s\n", name, n, (w == 1 ? "API" : name), out
      }
    }'
}

# turn_rates PAIR SLOT: the pair's turns of the tool of SLOT in order, each one's requests per second (thousands) and
# its CPU per request; "+" marks a turn that came right after the tool's own previous one (stopped and continued at
# once, not after the others' turns), so a low pair shows whether one turn or all of them made it.
turn_rates() {
  awk -v p="$1" -v slot="$2" -v name="${tool_names[$2]}" -v hz="$clock_ticks_per_second" '
    $1 == p && $3 == slot { out = out sprintf(" %s%.1f/%.1f", ($4 == slot ? "+" : ""), $5 / $6 / 1000, ($5 > 0 ? $7 / hz / $5 * 1e6 : 0)) }
    END { printf "pair %d turns, %s (thousand requests/s / its CPU us per request):%s\n", p, name, out }' "$work/turns.txt"
}
rate() { awk -v n="${total_requests[$1]}" -v s="${total_seconds[$1]}" 'BEGIN { printf "%.1f", (s > 0 ? n / s : 0) }'; }

bench_header
[ "$api_counts" = 0 ] || start_counters
[ "$profile" = 0 ] || start_profiles
[ "$instructions_counted" = 0 ] || start_instructions
failed=0
counted_requests=(0 0 0 0)
counted_tool_ticks=(0 0 0 0)
# ratio PAIR SLOT: the runner's rate over the tool of SLOT's, printed and not judged.
ratio() {
  awk -v p="$1" -v bn="${tool_names[$2]}" -v b="$(rate "$2")" -v on="${tool_names[1]}" -v o="$(rate 1)" -v m="$mode" \
    'BEGIN { printf "pair %d: %s %.0f requests/s, %s (sync variant) %.0f requests/s, ratio %.2f (%s)\n", p, bn, b, on, o, o / b, (bn == "wrk" ? m " mode: not judged" : "not judged") }'
}
for pair in $(seq 1 "$pairs"); do
  total_requests=(0 0 0 0); total_seconds=(0 0 0 0); total_api_ticks=(0 0 0 0); total_tool_ticks=(0 0 0 0)
  for second in $(seq 0 $((seconds - 1))); do
    # Numbered across pairs, so a pair's first turn is never the same tool as the previous pair's last.
    turn_order "$(((pair - 1) * seconds + second))" "${slots[@]}"
    for slot in "${order[@]}"; do turn "$slot"; done
  done
  for slot in "${slots[@]}"; do
    counted_requests[slot]=$((counted_requests[slot] + total_requests[slot]))
    counted_tool_ticks[slot]=$((counted_tool_ticks[slot] + total_tool_ticks[slot]))
    echo "pair $pair: $(figures "$slot" "${tool_names[$slot]}" "$client_cpu_count")"
    summary_row "$pair" "$slot"
  done
  for slot in "${slots[@]}"; do turn_rates "$pair" "$slot"; done
  if [ "$mode" = pinned ]; then
    check_pair "$pair" wrk "$(rate 0)" "${tool_names[1]} (sync variant)" "$(rate 1)" "$minimum" || failed=1
  else
    ratio "$pair" 0
  fi
  for slot in "${slots[@]}"; do
    if (( slot >= 2 )); then ratio "$pair" "$slot"; fi
  done
done
# Every request of both tools reached the same API; a failed one would still count as started, so failures are shown.
if [ -n "$live_port" ]; then
  page_events
  if kill -0 "$page_pid" 2>/dev/null; then
    echo "live page: $events events read over the run, the page still connected at the end"
  else
    echo "live page: $events events read, then the page was DISCONNECTED before the end: this run does not count"
    failed=1
  fi
fi
awk '{ for (i = 1; i <= NF; i++) if ($i ~ /^(failed|timedout)=/) { split($i, kv, "="); n += kv[2] } } END { printf "load runner: %d failed or timed-out requests over its run\n", n }' "$work/runner.log"
echo "load runner: $(($(grep -c 'compute/sync t=' "$work/runner.log" || true) - runner_rows_before)) interval rows in its $((pairs * seconds)) turns (its reporting interval $reporting_seconds s)"
# The runtime may add pool threads after a stop it reads as starvation; printed so a reader can see whether it did.
echo "load runner threads: $runner_threads_before before the turns, $(sed -n 's/^Threads:[[:space:]]*//p' "/proc/$runner_pid/status") after"
stop_perfs
for slot in "${slots[@]}"; do
  if [ "$api_counts" = 1 ]; then print_counts "$slot" "${tool_names[$slot]}" "${counted_requests[$slot]}"; fi
  if [ "$profile" = 1 ]; then print_profile "$slot" "${tool_names[$slot]}" "${counted_requests[$slot]}" "${counted_tool_ticks[$slot]}"; fi
done
echo
echo "| pair | tool | requests/s | / wrk | tool's CPU us per request | API's CPU us per request |"
echo "|---|---|---|---|---|---|"
printf '%s\n' "${summary_rows[@]}"
echo
echo "| tool, all pairs | requests | CPU us per request | instructions per request |"
echo "|---|---|---|---|"
for slot in "${slots[@]}"; do
  awk -v name="${tool_names[$slot]}" -v n="${counted_requests[$slot]}" -v t="${counted_tool_ticks[$slot]}" -v hz="$clock_ticks_per_second" \
    -v i="$(instructions_per_request "$slot" "${counted_requests[$slot]}")" \
    'BEGIN { printf "| %s | %d | %s | %s |\n", name, n, (n > 0 ? sprintf("%.2f", t / hz / n * 1e6) : "n/a"), i }'
done
[ "$instructions_counted" = 1 ] || echo "(instructions: perf cannot count hardware events on this machine)"
echo
echo "mode $mode: $pinning"
bench_header
exit "$failed"
