#!/usr/bin/env bash
# Runs each experiment in $EXPERIMENTS against each API in $TARGETS, one run at a time so the APIs never
# compete for the host's CPUs, and writes the reports to $REPORTS_DIR/<target host>/<experiment>/. A target may name
# its own experiments after "=", comma-separated (http://api-1cpu:8080=fanout,sleep): those run there instead.
# A target whose service is not running (an opt-in profile such as cpu4) is skipped with one line; one that is
# running but not healthy within $TARGET_WAIT_SECONDS fails. A failed run (e.g. a threshold) is reported and the
# remaining runs still happen; the exit code says so.
set -uo pipefail

# 0 when GET /healthz on host:port answers 200 (bash's /dev/tcp: the image has no curl).
healthy() {
  local host=$1 port=$2 status
  exec 3<>"/dev/tcp/$host/$port" 2>/dev/null || return 1
  printf 'GET /healthz HTTP/1.1\r\nHost: %s\r\nConnection: close\r\n\r\n' "$host" >&3
  read -r _ status _ <&3
  exec 3<&-
  [ "$status" = 200 ]
}

failed=0
for entry in $TARGETS; do
  target=${entry%%=*}
  experiments=$EXPERIMENTS
  [ "$target" != "$entry" ] && experiments=${entry#*=} && experiments=${experiments//,/ }
  hostport=${target#*://}
  hostport=${hostport%%/*}
  host=${hostport%%:*}
  port=${hostport#*:}
  [ "$port" = "$hostport" ] && port=80
  if ! getent hosts "$host" >/dev/null; then
    echo "== $target skipped: no service $host is running (opt-in profile not enabled)"
    continue
  fi
  waited=0
  until healthy "$host" "$port"; do
    if [ "$waited" -ge "${TARGET_WAIT_SECONDS:-120}" ]; then
      echo "!! $target is running but not healthy after ${waited} s"
      failed=1
      continue 2
    fi
    sleep 2
    waited=$((waited + 2))
  done
  for experiment in $experiments; do
    echo "== $experiment against $target"
    if ! dotnet /app/ConcurrencySandbox.LoadTests.dll "$experiment" --profile "$PROFILE" --target "$target" --out "$REPORTS_DIR/$host/$experiment"; then
      echo "!! $experiment against $target failed"
      failed=1
    fi
  done
done
exit "$failed"
