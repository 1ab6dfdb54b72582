# Shared by the wrk benchmarks (loadtests/bench-vs-wrk.sh, docs/notebook/investigations/bench-endpoint-overhead.sh); source it.

# pin_to CPU_LIST: sets the array pin to the command prefix that pins a process to CPU_LIST (taskset, which execs the
# command, so $! and /proc/<pid> are the command's own), or to nothing when CPU_LIST is empty.
pin_to() {
  pin=()
  if [ -n "$1" ]; then pin=(taskset -c "$1"); fi
}

# cpus_for MODE (pinned|shared): sets api_cpus and client_cpus (the first two cpus this script may run on when pinned,
# empty when shared), api_cpu_count and client_cpu_count, and pinned_mode to the mode that will run: shared, with a
# note, when pinned cannot be (one cpu, or no taskset).
cpus_for() {
  pinned_mode=$1
  api_cpus=""
  client_cpus=""
  client_cpu_count=$(nproc)
  api_cpu_count=$(nproc)
  [ "$pinned_mode" = pinned ] || return 0
  if (( $(nproc) < 2 )); then
    echo "note: pinned mode needs 2 cpus and this machine has $(nproc): running shared (client and API on the same cpu), the ratio printed, not judged"
    pinned_mode=shared
  elif ! command -v taskset >/dev/null; then
    echo "note: pinned mode needs taskset (util-linux), not found: running shared, the ratio printed, not judged"
    pinned_mode=shared
  else
    # The first two cpus this script may run on (its affinity list, e.g. "0-3" or "2,5"): the API's and the tool's.
    local allowed=() ranges range cpu
    IFS=, read -r -a ranges <<<"$(taskset -cp $$ | sed 's/.*: //')"
    for range in "${ranges[@]}"; do
      for ((cpu = ${range%-*}; cpu <= ${range#*-}; cpu++)); do allowed+=("$cpu"); done
    done
    api_cpus=${allowed[0]}
    client_cpus=${allowed[1]}
    client_cpu_count=1
    api_cpu_count=1
  fi
}

# turn_order TURN SLOT...: sets order to the SLOTs' order in turn TURN, so a drift of the machine over a few turns
# lands on every slot alike. Two slots: ABBA (in order in turns 0 and 3 of every four, reversed in 1 and 2), which
# gives each slot a turn right after its own once every four. Three or more: the slots rotated by TURN (each slot in
# each place once every N turns), so no slot ever takes two turns in a row: with ABBA's reversal the first and last
# slots did at every reversal and a middle slot never did, and a tool continued at once after its own turn runs
# faster (issue 42, s60, docs/notebook/performance.md: wrk 17 % more requests per second in those turns, a runner
# 18 % less CPU per request), so the middle slot (the runner) was measured against tools with a head start.
turn_order() {
  local turn=$1 i
  shift
  order=("$@")
  if (( $# == 2 )); then
    if (( turn % 4 == 1 || turn % 4 == 2 )); then order=("$2" "$1"); fi
    return
  fi
  for ((i = 0; i < $#; i++)); do order[i]=${*:$(((turn + i) % $# + 1)):1}; done
}

# reporting_for TOOLS: sets reporting_seconds to the reporting interval a runner gets in a benchmark where TOOLS tools take
# 1-second turns in rotation, and warm_rows to the rows its warm-up (run alone) waits for, about 6 s of load. The
# runner's reporting timer runs on wall-clock time, also while the script has it stopped, so with 2-second intervals a
# runner taking one turn in three took its intervals (an agent's take, encoding and send, a coordinator's decode and
# merge) 3.5-4 times as often per request as 2-second rows of a run of its own: 42-48 rows in 24 turns, not 12 (issue
# 42, s61, docs/notebook/performance.md). 2 s per tool keeps one row per 2 s of the runner's own turns; only the
# benchmark's shape file is sized so, no runner default changes (a user's run reports every 5 s unless it says otherwise).
reporting_for() {
  reporting_seconds=$((2 * $1))
  warm_rows=$(((6 + reporting_seconds - 1) / reporting_seconds))
}

# requests_started URL: sets started to the API at URL's requestsStarted (/api/telemetry; this reading included).
requests_started() {
  started=$(curl -fsS "$1/api/telemetry" | sed -n 's/.*"requestsStarted":\([0-9]*\).*/\1/p')
  [ -n "$started" ] || { echo "the API at $1 has no requestsStarted in /api/telemetry" >&2; exit 2; }
}

# start_api API_DLL WORK_DIR [CPU_LIST]: starts one API (pinned to CPU_LIST when given) on a free loopback port with
# quiet logging, waits for its ready line, and sets api_pid and url (no trailing slash). Exits 2 when no ready line
# comes within 60 s.
start_api() {
  pin_to "${3:-}"
  "${pin[@]}" dotnet "$1" --urls http://127.0.0.1:0 \
    --Logging:LogLevel:Default=Warning --Logging:LogLevel:Microsoft.Hosting.Lifetime=Information >"$2/api.log" 2>&1 &
  api_pid=$!
  ready_url "$2/api.log" "ConcurrencySandbox API ready at"
  [ -n "$ready" ] || { echo "the API printed no ready line" >&2; cat "$2/api.log" >&2; exit 2; }
  url="${ready%/}"
}

# ready_url LOG LINE_START: waits up to 60 s for a line of LOG starting "LINE_START http://..." and sets ready to that
# address (empty when none came).
ready_url() {
  ready=""
  for _ in $(seq 1 120); do
    # The log is opened by the process started in the background, which may not have run yet.
    if [ -f "$1" ]; then ready=$(sed -n "s|^$2 \(http:[^ ]*\).*|\1|p" "$1" | head -n 1); fi
    [ -n "$ready" ] && return
    sleep 0.5
  done
}

# bench_header: the machine and the code a figure belongs to (commit, uncommitted changes, nproc, load average).
bench_header() {
  local dirty=""
  git diff --quiet HEAD 2>/dev/null || dirty=" + uncommitted changes"
  echo "commit $(git rev-parse --short HEAD 2>/dev/null || echo unknown)${dirty}; nproc $(nproc); $(uptime)"
}

# read_cpu_ticks PID: sets cpu_ticks to the process's user + system CPU so far, in clock ticks (no subshell, so it
# can be polled cheaply); returns 1 when the process is gone.
read_cpu_ticks() {
  local stat
  read -r stat 2>/dev/null <"/proc/$1/stat" || return 1
  local rest="${stat##*) }"
  local -a fields
  read -r -a fields <<<"$rest"
  cpu_ticks=$((fields[11] + fields[12]))
}

clock_ticks_per_second=$(getconf CLK_TCK)

# wrk_run CONNECTIONS SECONDS URL [THREADS=2] [CPU_LIST]: runs wrk (pinned to CPU_LIST when given) and sets wrk_rps
# (requests/s), wrk_requests and wrk_cpu_us (wrk's own user + system CPU per request in microseconds; "n/a" without
# /usr/bin/time).
wrk_run() {
  local out
  pin_to "${5:-}"
  if [ -x /usr/bin/time ]; then
    out=$(/usr/bin/time -f 'cpu-seconds %U %S' "${pin[@]}" wrk -t"${4:-2}" -c"$1" -d"$2s" "$3" 2>&1)
  else
    out=$("${pin[@]}" wrk -t"${4:-2}" -c"$1" -d"$2s" "$3")
  fi
  wrk_rps=$(sed -n 's/^Requests\/sec:[[:space:]]*\([0-9.]*\).*/\1/p' <<<"$out")
  wrk_requests=$(sed -n 's/^[[:space:]]*\([0-9]*\) requests in .*/\1/p' <<<"$out")
  wrk_cpu_us=$(awk -v n="$wrk_requests" '$1 == "cpu-seconds" && n > 0 { printf "%.1f", ($2 + $3) * 1e6 / n; found = 1 } END { if (!found) print "n/a" }' <<<"$out")
}

# check_pair PAIR BASE_NAME BASE_RPS NAME RPS MINIMUM: prints the pair and NAME/BASE ratio; fails under MINIMUM.
check_pair() {
  awk -v p="$1" -v bn="$2" -v b="$3" -v n="$4" -v o="$5" -v m="$6" \
    'BEGIN { r = o / b; printf "pair %d: %s %.0f requests/s, %s %.0f requests/s, ratio %.2f (at least %.2f): %s\n", p, bn, b, n, o, r, m, (r >= m ? "PASS" : "FAIL"); exit (r >= m ? 0 : 1) }'
}
