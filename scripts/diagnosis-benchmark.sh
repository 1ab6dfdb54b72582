#!/usr/bin/env bash
# The diagnosis accuracy benchmark (issue 37 item 5) in one command: ServiceGenerator composes COUNT services (45) from
# the shapes of issue 37 item 4 with SEED (37), one dotnet build of them all, then run --url on each, as
# DiagnosisAccuracyTests does in CI on a sample of 3; the table (right / ambiguous / not named / wrong by entry, wait,
# depth and inlining, then the repository's own services: the sample service, tests/Targets' blocking three and the
# sandbox API's five blocking endpoints (sleep/sync, sleep/taskrun, fanout threadpool and sync-over-async,
# contention/lock), by the same scorer) and one line per service go to <report file>, with the commit, the runtime,
# nproc, the load average before and after and the duration. ONLY=Svc06,RazorPage runs those of the seed's services
# (and of the repository's) whose names hold one of them; ONLY=Api runs the API's endpoints alone, with no corpus build.
# CAUSES=N runs instead the seed's first N cause services (issue 38 item 6: CPU, allocations, a slow dependency through
# IHttpClientFactory, CPU and that dependency; from the 17th, the shapes of the cold services: a backtracking Regex, LINQ
# over a large list, a named client that retries 503s, a database that is not HTTP, five checks of equal CPU with no
# dominant method; ONLY=Regex,Linq,Retry,Database,Spread picks those), each through run --url --find-capacity, and writes their table by cause.
# Usage: scripts/diagnosis-benchmark.sh [report file]   (default reports/<date>-diagnosis-benchmark.md)
set -euo pipefail
cd "$(dirname "$0")/.."
count=${COUNT:-45}
seed=${SEED:-37}
report=${1:-reports/$(date +%Y%m%d-%H%M%S)-diagnosis-benchmark.md}
mkdir -p "$(dirname "$report")"
table=$(mktemp)
before=$(cat /proc/loadavg)
started=$(date +%s)
dotnet build tests/ConcurrencySandbox.LoadTests.Tests -v quiet -nologo >/dev/null
status=0
if [ -n "${CAUSES:-}" ]; then
  DIAGNOSIS_BENCHMARK_CAUSES=$CAUSES DIAGNOSIS_BENCHMARK_SEED=$seed DIAGNOSIS_BENCHMARK_REPORT=$table DIAGNOSIS_BENCHMARK_ONLY=${ONLY:-} \
    dotnet test tests/ConcurrencySandbox.LoadTests.Tests --no-build --filter "FullyQualifiedName~DiagnosisAccuracyTests.GeneratedCauseServices" \
    >"$report.log" 2>&1 || status=$?
else
  DIAGNOSIS_BENCHMARK_COUNT=$count DIAGNOSIS_BENCHMARK_SEED=$seed DIAGNOSIS_BENCHMARK_REPORT=$table DIAGNOSIS_BENCHMARK_ONLY=${ONLY:-} DIAGNOSIS_BENCHMARK_FIXED=1 \
    dotnet test tests/ConcurrencySandbox.LoadTests.Tests --no-build --filter "FullyQualifiedName~DiagnosisAccuracyTests.GeneratedServicesAreNamedRight" \
    >"$report.log" 2>&1 || status=$?
fi
{
  echo "Commit $(git rev-parse --short HEAD)$(git diff --quiet HEAD -- . ':!reports' || echo ' (with uncommitted changes)'), .NET $(dotnet --list-runtimes | awk '/Microsoft.NETCore.App/ {v=$2} END {print v}'), nproc $(nproc)"
  echo "Command: ${CAUSES:+CAUSES=$CAUSES }${ONLY:+ONLY=$ONLY }COUNT=$count SEED=$seed scripts/diagnosis-benchmark.sh; $(( $(date +%s) - started )) s; /proc/loadavg before: $before; after: $(cat /proc/loadavg); test exit $status"
  echo
  if [ -s "$table" ]; then cat "$table"; else echo "no line: the test failed before scoring, see $report.log"; fi
} >"$report"
rm -f "$table"
cat "$report"
exit "$status"
