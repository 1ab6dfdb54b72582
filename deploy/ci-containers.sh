#!/usr/bin/env bash
# CI's container stage (.ci/run calls it after the dotnet tests). Where a container engine can run (as root it
# installs docker.io and starts dockerd when missing), it builds the three images with the project's Dockerfile,
# reads the load runner image's assemblies (the observer's precompiled, the engine's not: deploy/readytorun.cs), runs the API at --cpus 1, --cpus 2, --cpuset-cpus 0 and --cpuset-cpus 0-1 and checks /healthz, the processor
# count the runtime derived and the non-root uid, prints one compute compare row per setting, checks at --cpus 1
# that the control plane (port 5081) answers /healthz from outside the container, then has the load runner observe a
# container's runtime through a diagnostics socket on a shared volume during a starving fan-out, then runs the compose
# stack end to end with the smoke profile (beside it, `watch` reads api-1cpu's runtime through the socket volume of
# compose.watch.yaml), then under the monitoring profile checks that Prometheus scrapes every API's
# control plane (/metrics), then under the agents profile runs 3 scaled-out load agents and checks the coordinator's
# merged report. Between the observer and the compose stack, the load runner's "limits" command answers quota vs cpuset: at
# 1 and 2 cores the API runs at --cpus N and --cpuset-cpus 0-(N-1) side by side, a single-threaded request, a fan-out
# burst and (at 1 core: a 2-core quota on 2 CPUs cannot be exceeded) a throttled compute burst with probes of the control
# plane are timed on both in alternating rounds, and one "ok: quota vs cpuset ..." (or "inconclusive: ...", "skipped: ...")
# line per workload gives the quota / cpuset ratio with its 95 % CI and each cgroup's CFS counters. Everything it started (containers, the compose network,
# dockerd) is removed again by id. Where no engine can run, one line says so and every check counts as skipped.
# Last line: "containers: N passed, N failed, N skipped".
# Settings: COMPARE_CYCLES (default 10^8), COMPARE_CI_WIDTH (5 %), COMPARE_BUDGET_S (10 s), LIMITS_ROUNDS (6), OBSERVER_LOAD_S (12 s), OBSERVER_MAX_GAP_S (5 s), SDK_IMAGE / RUNTIME_IMAGE (default: the official images when present
# or pullable, else the offline stand-ins deploy/build-base-images.sh builds).
set -uo pipefail
cd "$(dirname "$0")/.."
repo=$(pwd)

SETTINGS=("--cpus 1" "--cpus 2" "--cpuset-cpus 0" "--cpuset-cpus 0-1")
CHECKS_PER_SETTING=4 # healthz, processor count, uid, compare row
CONTROL_SETTING="--cpus 1" # the setting whose control plane (port 5081) is also checked from outside: one more check
CONTROL_PORT=5081          # the image's control port (ControlOptions.DefaultPort, Control__Host=0.0.0.0 in the image)
COMPOSE_CHECKS=3     # the stack exits 0, the reports are written, its smoke runs print no verdict
WATCH_CHECKS=1       # watch (compose.watch.yaml) reads api-1cpu's runtime through the socket volume during the stack
AGENTS_CHECKS=2      # the agents profile's coordinator exits 0, its merged report has a healthy row per agent
MONITORING_CHECKS=2  # Prometheus reports every API's control plane up, and holds its thread pool series
OBSERVER_CHECKS=1    # a container's runtime observed through the diagnostics socket during a starving fan-out
LIMITS_CORES=(1 2)   # quota vs cpuset: the core counts compared
LIMITS_CHECKS=$((4 * ${#LIMITS_CORES[@]})) # a line per workload (single-threaded request, fan-out burst, throttled burst, probe during it) and core count
# Paired rounds per workload: quota and cpuset alternating which goes first. Every line is an answer here (ok or
# inconclusive: a busy CI machine must not fail the stage), so CI takes 6, the fewest a 95 % CI is computed from (the
# command's default is 12; more narrow the CIs; 10 took 68 s of CI's 20 minutes until 2026-11-30).
LIMITS_ROUNDS=${LIMITS_ROUNDS:-6}
OBSERVER_LOAD_S=${OBSERVER_LOAD_S:-12}      # how long the starving load is held
# The longest gap allowed between two counter samples. They come every second from outside the starved pool; an
# in-process reader stalls with the pool for tens of seconds. 2 s failed once (2.75 s) with the host at load 25 and the
# container on a 1-core quota, so the limit tells the two mechanisms apart rather than timing the machine.
OBSERVER_MAX_GAP_S=${OBSERVER_MAX_GAP_S:-5}
BUILD_CHECKS=4       # the three images built, the load runner image's observer precompiled (deploy/readytorun.cs)
TOTAL_CHECKS=$((BUILD_CHECKS + ${#SETTINGS[@]} * CHECKS_PER_SETTING + 1 + OBSERVER_CHECKS + LIMITS_CHECKS + COMPOSE_CHECKS + WATCH_CHECKS + AGENTS_CHECKS + MONITORING_CHECKS))
# The compare row is printed, never asserted beyond being answered: 10^8 cycles (about 0.1 s a unit on one core) let
# the API repeat the pair many times within a 10 s budget (10^9 and 30 s took 30-35 s a setting for n=6).
COMPARE_CYCLES=${COMPARE_CYCLES:-100000000}
COMPARE_CI_WIDTH=${COMPARE_CI_WIDTH:-5}  # the API's ciWidth: target half-width of each figure's 95 % CI, in percent
COMPARE_BUDGET_S=${COMPARE_BUDGET_S:-10} # the API's budgetSeconds for one compare row
PROJECT=concurrencysandbox-ci

passed=0; failed=0; skipped=0
started_at=$(date +%s)
work=$(mktemp -d)
containers=()
dockerd_pid=""
runner_build_pid=""
compose=()

# Each numbered step's time, printed when the next starts (and at the end): "containers: step 3 (images) took 95 s".
step_name=""; step_at=$started_at
step() {
  local now; now=$(date +%s)
  [ -z "$step_name" ] || echo "containers: step $step_name took $((now - step_at)) s (load average $(cut -d' ' -f1-3 /proc/loadavg))"
  step_name=$1; step_at=$now
}
pass() { echo "ok: $*"; passed=$((passed + 1)); }
fail() { echo "FAIL: $*"; failed=$((failed + 1)); }
skip() { echo "skipped: $*"; skipped=$((skipped + $2)); }
# A number field of one object in a compare answer, to 4 significant digits: json_number "$row" efficiency low; empty when absent or null.
json_number() {
  local value
  value=$(grep -o "\"$2\":{[^}]*}" <<<"$1" | head -n 1 | grep -o "\"$3\":-\?[0-9.eE+-]*" | cut -d: -f2)
  if [ -n "$value" ]; then LC_ALL=C printf '%.4g' "$value"; fi
}
# A figure's 95 % CI as "[low, high]", or "[no CI]" below 6 repeats.
json_interval() { local low high; low=$(json_number "$1" "$2" low); high=$(json_number "$1" "$2" high); if [ -n "$low" ]; then echo "[$low, $high]"; else echo "[no CI]"; fi; }
# How many checks a setting counts: the control plane's is one more on CONTROL_SETTING.
checks_for() { if [ "$1" = "$CONTROL_SETTING" ]; then echo $((CHECKS_PER_SETTING + 1)); else echo "$CHECKS_PER_SETTING"; fi; }
# The CPU count a setting such as "--cpus 2" or "--cpuset-cpus 0-1" gives the container.
expected_cpus() {
  local value=${1#* }
  case $1 in
    "--cpus "*) echo "$value" ;;
    *) awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }' <<<"$value" ;;
  esac
}

finish() {
  step "8 (teardown)"
  if [ -n "$runner_build_pid" ] && kill -0 "$runner_build_pid" 2>/dev/null; then kill "$runner_build_pid"; wait "$runner_build_pid" 2>/dev/null; fi
  for id in "${containers[@]}"; do docker rm -f "$id" >/dev/null 2>&1; done
  if [ ${#compose[@]} -gt 0 ]; then
    (cd deploy && REPORTS_HOST_DIR="$work/reports" "${compose[@]}" -p "$PROJECT" -f compose.yaml -f compose.watch.yaml --profile monitoring --profile agents down --volumes --remove-orphans >/dev/null 2>&1)
  fi
  if [ -n "$dockerd_pid" ]; then
    kill "$dockerd_pid" 2>/dev/null
    for _ in $(seq 1 30); do kill -0 "$dockerd_pid" 2>/dev/null || break; sleep 1; done
    echo "containers: stopped the dockerd this stage started (pid $dockerd_pid)"
  fi
  rm -rf "$work"
  step ""
  echo "containers: stage took $(($(date +%s) - started_at)) s"
  echo "containers: $passed passed, $failed failed, $skipped skipped"
}
trap finish EXIT

step "1 (engine)"
# 1. An engine: use a running one; as root, install docker.io and start dockerd when missing.
engine_unavailable() {
  echo "containers: no container engine can run here ($1): $TOTAL_CHECKS container checks skipped"
  skipped=$TOTAL_CHECKS
  exit 0
}
if ! docker info >/dev/null 2>&1; then
  [ "$(id -u)" -eq 0 ] || engine_unavailable "docker is not running and this is not root"
  if ! command -v dockerd >/dev/null; then
    { apt-get install -y docker.io docker-compose || { apt-get update && apt-get install -y docker.io docker-compose; }; } >"$work/apt.log" 2>&1 \
      || engine_unavailable "apt-get could not install docker.io (see apt-get's output)"
  fi
  dockerd >"$work/dockerd.log" 2>&1 &
  dockerd_pid=$!
  for _ in $(seq 1 30); do docker info >/dev/null 2>&1 && break; sleep 1; done
  docker info >/dev/null 2>&1 || { tail -n 5 "$work/dockerd.log"; engine_unavailable "dockerd did not start"; }
  echo "containers: started dockerd (pid $dockerd_pid)"
fi
if docker compose version >/dev/null 2>&1; then compose=(docker compose)
elif command -v docker-compose >/dev/null; then compose=(docker-compose)
fi
engine=$(docker version --format '{{.Server.Version}}' 2>/dev/null)
echo "containers: Docker Engine $engine, compose: ${compose[*]:-none}, host CPUs $(nproc)"

# The load runner that steps 5 and 5b run (this checkout's Debug build) builds in the background while the images are
# made: neither measures anything, and after .ci/run's dotnet test the build is an incremental check.
if command -v dotnet >/dev/null; then
  dotnet build loadtests/ConcurrencySandbox.LoadTests -v quiet -nologo >"$work/runner-build.log" 2>&1 &
  runner_build_pid=$!
fi

step "2 (base images)"
# 2. Base images: the official ones when present or pullable, else the offline stand-ins.
have_image() { docker image inspect "$1" >/dev/null 2>&1; }
official_sdk=mcr.microsoft.com/dotnet/sdk:10.0
official_runtime=mcr.microsoft.com/dotnet/aspnet:10.0
if [ -z "${SDK_IMAGE:-}" ]; then
  if { have_image "$official_sdk" || timeout 120 docker pull -q "$official_sdk"; } >/dev/null 2>&1 \
    && { have_image "$official_runtime" || timeout 120 docker pull -q "$official_runtime"; } >/dev/null 2>&1; then
    SDK_IMAGE=$official_sdk RUNTIME_IMAGE=$official_runtime
  else
    echo "containers: the official .NET images cannot be pulled: using the offline stand-ins"
    deploy/build-base-images.sh || echo "containers: building the offline stand-ins failed"
    SDK_IMAGE=concurrencysandbox/dotnet-sdk:10.0-offline RUNTIME_IMAGE=concurrencysandbox/dotnet-aspnet:10.0-offline
  fi
fi
RUNTIME_IMAGE=${RUNTIME_IMAGE:-$official_runtime}
echo "containers: base images $SDK_IMAGE and $RUNTIME_IMAGE"

step "3 (images)"
# 3. The three images, with the legacy builder (BuildKit would reach for a registry).
for target in api stub loadrunner; do
  build_started=$(date +%s)
  if DOCKER_BUILDKIT=0 docker build -q --build-arg "SDK_IMAGE=$SDK_IMAGE" --build-arg "RUNTIME_IMAGE=$RUNTIME_IMAGE" \
      --target "$target" -t "concurrencysandbox/$target:local" . >"$work/build-$target.log" 2>&1; then
    pass "image concurrencysandbox/$target:local built in $(($(date +%s) - build_started)) s"
  else
    tail -n 20 "$work/build-$target.log"
    fail "image concurrencysandbox/$target:local did not build"
  fi
done
# The load runner image as a Release publish leaves it (ReadyToRunTheObserver in the runner's csproj): the observer's
# assemblies precompiled, so their code is not JIT-compiled in a load's first seconds, and the engine and the app IL, so
# their loop is JIT-compiled fully optimised (the runner runs with tiering off). Read from the image's own files.
if have_image concurrencysandbox/loadrunner:local; then
  observer=$(sed -n 's:.*<ObserverAssemblies>\(.*\)</ObserverAssemblies>.*:\1:p' loadtests/ConcurrencySandbox.LoadTests/ConcurrencySandbox.LoadTests.csproj | tr ';' ' ')
  jit_compiled="ConcurrencySandbox.LoadTests.Engine ConcurrencySandbox.LoadTests"
  id=$(docker create concurrencysandbox/loadrunner:local)
  docker cp "$id:/app" "$work/loadrunner-app" >/dev/null && docker rm "$id" >/dev/null
  # shellcheck disable=SC2086 # the names are words
  images=$(dotnet run deploy/readytorun.cs -- "$work/loadrunner-app" $observer $jit_compiled 2>&1)
  wrong=$(for name in $observer; do grep -qx "$name: ReadyToRun" <<<"$images" || echo "$name"; done
          for name in $jit_compiled; do grep -qx "$name: IL only" <<<"$images" || echo "$name"; done)
  if [ -n "$observer" ] && [ -z "$wrong" ]; then pass "loadrunner image: the observer's assemblies precompiled ($observer), the engine and the app IL only"
  else fail "loadrunner image: not as a Release publish should leave it (${wrong//$'\n'/, }): ${images//$'\n'/; }"; fi
else
  skip "loadrunner image: the image is missing, its assemblies not read" 1
fi

have_image concurrencysandbox/api:local || { skip "the API image is missing: API and compose checks" $((TOTAL_CHECKS - BUILD_CHECKS)); exit 1; }

step "4 (API per CPU setting)"
# 4. The API at each CPU setting.
now_ms() { date +%s%3N; }
for setting in "${SETTINGS[@]}"; do
  cpus=$(expected_cpus "$setting")
  if [ "$cpus" -gt "$(nproc)" ]; then
    skip "$setting: the host has only $(nproc) CPU(s)" "$(checks_for "$setting")"
    continue
  fi
  started_ms=$(now_ms)
  # shellcheck disable=SC2086 # the setting is a flag and its value
  id=$(docker run -d $setting -p 127.0.0.1::8080 -p "127.0.0.1::$CONTROL_PORT" concurrencysandbox/api:local)
  containers+=("$id")
  port=$(docker port "$id" 8080/tcp | head -n 1 | sed 's/.*://')
  healthy_ms=""
  for _ in $(seq 1 600); do
    if [ "$(curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/healthz")" = 200 ]; then healthy_ms=$(( $(now_ms) - started_ms )); break; fi
    sleep 0.05
  done
  if [ -n "$healthy_ms" ]; then pass "$setting: /healthz 200, $healthy_ms ms from docker run"; else fail "$setting: /healthz never answered 200 within 30 s"; fi
  processors=$(curl -s "http://127.0.0.1:$port/api/threadpool" | grep -o '"processorCount":[0-9]*' | cut -d: -f2)
  if [ "$processors" = "$cpus" ]; then pass "$setting: ProcessorCount $processors"; else fail "$setting: ProcessorCount '${processors}', expected $cpus"; fi
  if [ "$setting" = "$CONTROL_SETTING" ]; then
    control_port=$(docker port "$id" "$CONTROL_PORT/tcp" | head -n 1 | sed 's/.*://')
    control=$(curl -s --max-time 10 -o /dev/null -w '%{http_code}' "http://127.0.0.1:$control_port/healthz")
    ready_line=$(docker logs "$id" 2>&1 | grep -o 'control plane ready at [^ ]*' | head -n 1)
    if [ "$control" = 200 ]; then pass "$setting: control plane /healthz 200 from outside the container ($ready_line, published on $control_port)"
    else fail "$setting: control plane /healthz answered '$control' on published port $control_port (${ready_line:-no ready line in the log})"; fi
  fi
  uid=$(docker exec "$id" id -u)
  if [ "$uid" = 1654 ]; then pass "$setting: runs as uid 1654"; else fail "$setting: runs as uid '$uid', expected 1654"; fi
  # The API's measurement policy warms up to the final JIT tier, interleaves sync and Task.Run pairs and repeats them
  # until each 95 % CI is within +-COMPARE_CI_WIDTH % or COMPARE_BUDGET_S runs out. The row is printed, never asserted
  # beyond being answered: a busy CI machine must not fail the stage.
  row=$(curl -s --max-time 600 "http://127.0.0.1:$port/api/compute/compare?cycles=$COMPARE_CYCLES&ciWidth=$COMPARE_CI_WIDTH&budgetSeconds=$COMPARE_BUDGET_S")
  efficiency=$(json_number "$row" efficiency median)
  if [ -n "$efficiency" ]; then
    # The API flags figures impossible beyond their CI, inconclusive ones, and a busy or CFS-throttled machine.
    flags=$(grep -o '"kind":"[a-z]*"' <<<"$row" | cut -d'"' -f4 | sort -u | paste -sd, -)
    throttled=""
    if [ -n "$(json_number "$row" load throttledPeriods)" ]; then
      throttled=$(printf '  CFS throttled %s periods (%s s)' "$(json_number "$row" load throttledPeriods)" "$(json_number "$row" load throttledSeconds)")
    fi
    pass "$(printf '%-18s compare cycles=%s  sync %s s %s  Task.Run %s s %s  efficiency %s %% %s n=%s  other processes %s %%, steal %s %%%s%s' \
      "$setting:" "$COMPARE_CYCLES" "$(json_number "$row" sync median)" "$(json_interval "$row" sync)" \
      "$(json_number "$row" taskRun median)" "$(json_interval "$row" taskRun)" \
      "$efficiency" "$(json_interval "$row" efficiency)" "$(json_number "$row" efficiency count)" \
      "$(json_number "$row" load otherProcessesPercent)" "$(json_number "$row" load stealPercent)" "$throttled" "${flags:+  (flagged: $flags)}")"
  else
    fail "$setting: no compare row (${row:0:200})"
  fi
  docker rm -f "$id" >/dev/null
done

step "5 (observer in a container)"
# 5. The runtime observer on a container: the load runner (this checkout's Debug build, built since step 2) starts the
#    API image at --cpus 1 with its diagnostics socket on a shared volume (DOTNET_DiagnosticPorts), starves a
#    sync-over-async fan-out, and the report must name that channel and hold a counter sample every second of the run (no gap over OBSERVER_MAX_GAP_S).
runner_dll=loadtests/ConcurrencySandbox.LoadTests/bin/Debug/net10.0/ConcurrencySandbox.LoadTests.dll
if ! command -v dotnet >/dev/null; then
  skip "observer in a container: no dotnet to run the load runner" "$OBSERVER_CHECKS"
elif ! wait "$runner_build_pid"; then
  tail -n 20 "$work/runner-build.log"
  fail "observer in a container: the load runner did not build"
else
  observer_started=$(date +%s)
  containers_before=" $(docker ps -aq | tr '\n' ' ') "
  printf '{"ReportingInterval":"00:00:01","LoadSimulationsSettings":[{"KeepConstant":[40,"00:00:%02d"]}]}' "$OBSERVER_LOAD_S" >"$work/starve.json"
  # SIGINT: the runner removes the container it started when it is stopped, as on Ctrl+C.
  timeout -s INT -k 30 300 dotnet "$runner_dll" matrix --engine docker --cpus 1 --limit quota --matrix-experiments fanout --strategies sync-over-async \
    --config "$work/starve.json" --request-timeout-s 8 --out "$work/observer" >"$work/observer.log" 2>&1
  # The runner removes its containers itself; one it left (killed by the timeout) is removed here, by id.
  for id in $(docker ps -aq --filter ancestor=concurrencysandbox/api:local); do
    [[ "$containers_before" == *" $id "* ]] || { docker rm -f "$id" >/dev/null; echo "containers: removed $id, left by the load runner"; }
  done
  summary="$work/observer/fanout-1cpu-quota/summary.json"
  source=$(grep -o '"telemetrySource": "[^"]*"' "$summary" 2>/dev/null | head -n 1 | cut -d'"' -f4)
  samples=$(grep -o '"samples": [0-9]*' "$summary" 2>/dev/null | head -n 1 | grep -o '[0-9]*$')
  gap=$(grep -o '"longestGapSeconds": [0-9.]*' "$summary" 2>/dev/null | head -n 1 | grep -o '[0-9.]*$')
  queue=$(grep -o '"peakQueue": [0-9]*' "$summary" 2>/dev/null | head -n 1 | grep -o '[0-9]*$')
  elapsed=$(grep -o '"elapsedSeconds": [0-9.]*' "$summary" 2>/dev/null | head -n 1 | grep -o '[0-9.]*$')
  starvation=$(grep -c '"reason": "Starvation"' "$summary" 2>/dev/null)
  figures="${samples:-no} samples in $(LC_ALL=C printf '%.1f' "${elapsed:-0}") s, longest gap $(LC_ALL=C printf '%.2f' "${gap:-0}") s, peak queue ${queue:-?}, ${starvation:-0} Starvation adjustments; $(($(date +%s) - observer_started)) s"
  whole_seconds=${elapsed%.*}
  if [[ "$source" == *"diagnostics socket"* ]] && [ "${queue:-0}" -gt 0 ] && [ "${samples:-0}" -ge $((${whole_seconds:-99} - 2)) ] \
      && awk -v gap="${gap:-99}" -v max="$OBSERVER_MAX_GAP_S" 'BEGIN { exit !(gap <= max) }'; then
    pass "observer in a container (--cpus 1, sync-over-async starving): $figures; through $source"
  else
    grep -E '^(note|error|observer|-- )' "$work/observer.log" | tail -n 10
    fail "observer in a container: $figures; through '${source:-no report}'"
  fi
fi

step "5b (quota vs cpuset)"
# 5b. Quota vs cpuset (docs/notebook/deploy.md, "CPU quota or cpuset"): the load runner's limits command prints a line per
#     workload and core count; an inconclusive one is an answer too (a busy CI machine must not fail the stage), a
#     skipped one (a core count above the host's CPUs, or the throttled burst at a quota of every host CPU, which can
#     never be exceeded) counts as skipped, a command that fails counts as failed.
if [ ! -f "$runner_dll" ] || ! command -v dotnet >/dev/null; then
  skip "quota vs cpuset: no load runner build to run" "$LIMITS_CHECKS"
else
  limits_started=$(date +%s)
  containers_before=" $(docker ps -aq | tr '\n' ' ') "
  cores_list=$(IFS=,; echo "${LIMITS_CORES[*]}")
  timeout -s INT -k 30 600 dotnet "$runner_dll" limits --engine docker --cores "$cores_list" --rounds "$LIMITS_ROUNDS" >"$work/limits.log" 2>&1
  limits_rc=$?
  grep -E '^(limits:|error:)' "$work/limits.log"
  answered=0
  while IFS= read -r line; do
    echo "$line"
    case $line in
      skipped:*) skipped=$((skipped + 1)) ;;
      *) passed=$((passed + 1)); answered=$((answered + 1)) ;;
    esac
  done < <(grep -E '^(ok|inconclusive|skipped): quota vs cpuset' "$work/limits.log")
  for id in $(docker ps -aq --filter ancestor=concurrencysandbox/api:local); do
    [[ "$containers_before" == *" $id "* ]] || { docker rm -f "$id" >/dev/null; echo "containers: removed $id, left by the limits command"; }
  done
  if [ "$limits_rc" -ne 0 ]; then
    tail -n 5 "$work/limits.log"
    fail "quota vs cpuset: the limits command exited $limits_rc after $answered verdict line(s), in $(($(date +%s) - limits_started)) s"
  else
    echo "containers: quota vs cpuset took $(($(date +%s) - limits_started)) s"
  fi
fi

step "6 (compose stack)"
# 6. The compose stack end to end: a smoke run against each API, reports written, exit 0: fan-out on api-1cpu (the
#    watch below needs its starving pool) and compute on api-2cpu (also what the agents profile loads in 6b), one
#    experiment per API where both on both took 40-50 s more of CI's time.
#    With compose.watch.yaml beside it: watch reads api-1cpu's runtime through the socket on their shared volume while
#    the load runner's smoke runs are its traffic, until the stack stops (SIGTERM: the watch writes its report).
if [ ${#compose[@]} -eq 0 ]; then
  skip "compose stack: neither 'docker compose' nor docker-compose is installed" "$((COMPOSE_CHECKS + WATCH_CHECKS))"
else
  mkdir -p "$work/reports" && chmod 777 "$work/reports"
  compose_started=$(date +%s)
  (cd deploy && REPORTS_HOST_DIR="$work/reports" LOADRUNNER_UID=$(id -u) PROFILE=smoke TARGETS="http://api-1cpu:8080=fanout http://api-2cpu:8080=compute" WATCH_S=900 \
    timeout 900 "${compose[@]}" -p "$PROJECT" -f compose.yaml -f compose.watch.yaml up --no-build --abort-on-container-exit --exit-code-from loadrunner) >"$work/compose.log" 2>&1
  compose_rc=$?
  grep -E 'loadrunner.*(==|!!|verdict|report:)' "$work/compose.log" | tail -n 20
  if [ "$compose_rc" -eq 0 ]; then pass "compose stack (smoke) exited 0 in $(($(date +%s) - compose_started)) s"; else tail -n 30 "$work/compose.log"; fail "compose stack (smoke) exited $compose_rc"; fi
  missing=""
  for report in api-1cpu/fanout api-2cpu/compute; do
    [ -n "$(find "$work/reports/$report" -name '*.md' 2>/dev/null)" ] || missing+=" $report"
  done
  if [ -z "$missing" ]; then pass "compose stack wrote each API's report"; else fail "compose stack wrote no report for:$missing"; fi
  # Smoke runs give figures, never a verdict: "== compute: smoke: no verdict: ...", not "Reproduced", "Not reproduced" or
  # "Partly reproduced" (a fan-out smoke run printed that once, its seed's claims disagreeing).
  verdicts=$(grep -cE 'loadrunner.*== [a-z-]+: (Reproduced|Not reproduced|Partly reproduced|Inconclusive)' "$work/compose.log")
  if [ "$verdicts" -eq 0 ]; then pass "compose stack (smoke) printed no verdict"; else fail "compose stack (smoke) printed $verdicts verdict(s) from smoke runs"; fi
  watch_id=$(cd deploy && "${compose[@]}" -p "$PROJECT" -f compose.yaml -f compose.watch.yaml ps -q watch 2>/dev/null)
  watch_rc=$(docker inspect -f '{{.State.ExitCode}}' "$watch_id" 2>/dev/null)
  watch_json="$work/reports/watch/watch.json"
  watch_channel=$(grep -o '"channel": "[^"]*"' "$watch_json" 2>/dev/null | cut -d'"' -f4)
  watch_samples=$(grep -o '"samples": [0-9]*' "$watch_json" 2>/dev/null | grep -o '[0-9]*$')
  watch_episodes=$(grep -c '"number": ' "$watch_json" 2>/dev/null)
  # The JSON writer escapes an apostrophe as \u0027 ("the pool's threads"): printed as the report says it.
  watch_site=$(grep -o '"whatWaited": "[^"]*"' "$watch_json" 2>/dev/null | head -n 1 | cut -d'"' -f4 | sed "s/\\\\u0027/'/g")
  if [ "$watch_rc" = 0 ] && [ "$watch_channel" = "the diagnostics socket /diag/api-1cpu.sock" ] && [ "${watch_samples:-0}" -gt 0 ]; then
    pass "watch on api-1cpu through the socket volume during the stack: $watch_samples samples, ${watch_episodes:-0} starvation episode(s)${watch_site:+ ($watch_site)}"
  else
    docker logs "$watch_id" 2>&1 | tail -n 5
    fail "watch on api-1cpu: exit '${watch_rc}', channel '${watch_channel}', ${watch_samples:-no} samples"
  fi
fi

step "6b (agents profile)"
# 6b. The agents profile: 3 scaled-out agents against api-2cpu (smoke profile, compute), one coordinator merging their
#     histograms; its exit code is the run's, and its summary.md has one healthy row per agent and variant.
AGENT_COUNT=3
if [ ${#compose[@]} -eq 0 ]; then
  skip "agents profile: no compose" "$AGENTS_CHECKS"
else
  agents_started=$(date +%s)
  (cd deploy && REPORTS_HOST_DIR="$work/reports" LOADRUNNER_UID=$(id -u) PROFILE=smoke AGENTS=$AGENT_COUNT \
    timeout 300 "${compose[@]}" -p "$PROJECT" --profile agents up -d --no-build --scale agent=$AGENT_COUNT coordinator agent) >"$work/agents.log" 2>&1
  coordinator_id=$(cd deploy && "${compose[@]}" -p "$PROJECT" --profile agents ps -q coordinator 2>/dev/null)
  agents_rc=$(timeout 300 docker wait "$coordinator_id" 2>/dev/null || echo timeout)
  docker logs "$coordinator_id" 2>&1 | grep -E '^(agents:|== |THRESHOLD|report:)' | tail -n 12
  if [ "$agents_rc" = 0 ]; then pass "agents profile: the coordinator of $AGENT_COUNT agents exited 0 in $(($(date +%s) - agents_started)) s"
  else tail -n 20 "$work/agents.log"; fail "agents profile: the coordinator exited ${agents_rc:-without starting}"; fi
  healthy=$(grep -cE '^\| [a-z-]+ \| [0-9]+ \| .* \| ok \| ' "$work/reports/agents/summary.md" 2>/dev/null)
  if [ "${healthy:-0}" -ge "$AGENT_COUNT" ] && grep -q '"passed": true' "$work/reports/agents/summary.json" 2>/dev/null; then
    pass "agents profile: the merged report has $healthy healthy agent rows and passed"
  else fail "agents profile: ${healthy:-0} healthy agent rows in the merged report (expected at least $AGENT_COUNT)"; fi
  (cd deploy && "${compose[@]}" -p "$PROJECT" --profile agents rm -fs coordinator agent >/dev/null 2>&1)
fi

step "7 (monitoring profile)"
# 7. The monitoring profile: Prometheus (image built offline from Debian's package) scrapes /metrics on every API's
#    control plane; asked through its own query API from the host.
MONITORED="api-1cpu api-2cpu"
prometheus_query() { curl -s --max-time 5 --get "http://127.0.0.1:9090/api/v1/query" --data-urlencode "query=$1" | grep -o '"instance":"[^"]*"' | sort -u | tr '\n' ' '; }
if [ ${#compose[@]} -eq 0 ]; then
  skip "monitoring profile: no compose" "$MONITORING_CHECKS"
elif ! { have_image "${PROMETHEUS_IMAGE:-concurrencysandbox/prometheus:offline}" || deploy/build-base-images.sh prometheus >"$work/prometheus-image.log" 2>&1; }; then
  tail -n 5 "$work/prometheus-image.log"
  fail "monitoring profile: the Prometheus image could not be built from Debian's package"
  skip "monitoring profile: no Prometheus image" $((MONITORING_CHECKS - 1))
else
  # shellcheck disable=SC2086 # the service names are words
  (cd deploy && REPORTS_HOST_DIR="$work/reports" timeout 300 "${compose[@]}" -p "$PROJECT" --profile monitoring up -d --no-build prometheus $MONITORED) >"$work/monitoring.log" 2>&1
  expected=$(for api in $MONITORED; do printf '"instance":"%s:%s" ' "$api" "$CONTROL_PORT"; done)
  up=""
  for _ in $(seq 1 60); do
    up=$(prometheus_query 'up{job="sandbox-control"} == 1')
    [ "$up" = "$expected" ] && break
    sleep 2
  done
  if [ "$up" = "$expected" ]; then pass "monitoring profile: Prometheus scrapes /metrics on every API's control plane ($up)"
  else tail -n 20 "$work/monitoring.log"; fail "monitoring profile: Prometheus reports up for '${up}', expected '$expected'"; fi
  series=$(prometheus_query '{job="sandbox-control", __name__=~"dotnet_thread_pool_thread_count.*"}')
  if [ "$series" = "$expected" ]; then pass "monitoring profile: Prometheus holds each API's dotnet_thread_pool_thread_count series"
  else fail "monitoring profile: thread pool series for '${series}', expected '$expected'"; fi
fi
[ "$failed" -eq 0 ]
