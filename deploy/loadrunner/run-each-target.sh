#!/usr/bin/env bash
# Runs each experiment in $EXPERIMENTS against each API in $TARGETS, one run at a time so the APIs never
# compete for the host's CPUs, and writes the reports to $REPORTS_DIR/<target host>/<experiment>/.
# A failed run (e.g. a threshold) is reported and the remaining runs still happen; the exit code says so.
set -uo pipefail

failed=0
for target in $TARGETS; do
  host=${target#*://}
  host=${host%%[:/]*}
  for experiment in $EXPERIMENTS; do
    echo "== $experiment against $target"
    if ! dotnet /app/ConcurrencySandbox.LoadTests.dll "$experiment" --profile "$PROFILE" --target "$target" --out "$REPORTS_DIR/$host/$experiment"; then
      echo "!! $experiment against $target failed"
      failed=1
    fi
  done
done
exit "$failed"
