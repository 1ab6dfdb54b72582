#!/usr/bin/env bash
# Mutation check: do the fast tests catch a deliberate regression? Copies the working tree to a scratch folder, runs
# the chosen tests there once unchanged (they must pass), then applies each mutation below alone, rebuilds, runs the
# tests that guard it and prints one line per mutation: "caught" (a test failed) or "NOT caught" (all passed: a hole).
# The repository itself is never touched. Not run by CI: each mutation rebuilds a test project (minutes on 2 cores).
# Usage: scripts/mutation-check.sh [name ...]   (default: every mutation; names as in the table below)
# Exit: 0 when every mutation ran was caught, 1 when one was not, 2 when a mutation no longer applies or a baseline fails.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v python3 >/dev/null || { echo "python3 is needed to apply the mutations" >&2; exit 2; }

scratch=$(mktemp -d)
trap 'rm -rf "$scratch"' EXIT
git ls-files -z --cached --others --exclude-standard | tar --null --ignore-failed-read -T - -cf - 2>/dev/null | tar -xf - -C "$scratch"
echo "scratch copy of $(git rev-parse --short HEAD) with the working tree's changes; load average $(cut -d' ' -f1-3 /proc/loadavg)"

run_tests() { # project filter log: prints "N passed" or "N of M failed"; returns 0 passed, 1 a test failed, 2 no build
  local project=$1 filter=$2 log=$3
  if ! dotnet build "$scratch/tests/$project" -v q -nologo </dev/null >"$log" 2>&1; then echo "build failed"; return 2; fi
  if dotnet test "$scratch/tests/$project" --no-build --filter "$filter" </dev/null >>"$log" 2>&1; then
    echo "$(grep -oE 'Passed: +[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+') passed"; return 0
  fi
  echo "$(grep -oE 'Failed: +[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo '?') of $(grep -oE 'Total: +[0-9]+' "$log" | tail -1 | grep -oE '[0-9]+' || echo '?') failed"
  return 1
}

declare -A baseline
status=0
mutation() { # name test-project filter file text replacement what
  local name=$1 project=$2 filter=$3 file=$4 from=$5 to=$6 what=$7 result rc path
  if [ $# -ne 7 ]; then echo "mutation $name: 7 arguments expected" >&2; exit 2; fi
  if [ ${#selected[@]} -gt 0 ] && [[ " ${selected[*]} " != *" $name "* ]]; then return; fi
  if [ -z "${baseline["$project $filter"]:-}" ]; then
    if ! result=$(run_tests "$project" "$filter" "$scratch/baseline-$name.log"); then
      echo "baseline FAILED  $project, $filter: $result, so no mutation of it can be judged"; tail -20 "$scratch/baseline-$name.log"; exit 2
    fi
    baseline["$project $filter"]=$result
  fi
  mapfile -t paths < <(find "$scratch/src" "$scratch/loadtests" -name "$file" -not -path '*/bin/*' -not -path '*/obj/*')
  if [ ${#paths[@]} -ne 1 ]; then echo "NOT APPLIED  $name: $file found ${#paths[@]} times"; status=2; return; fi
  path=${paths[0]}
  cp "$path" "$scratch/original"
  if ! python3 -c 'import sys; p, a, b = sys.argv[1:]; s = open(p).read(); sys.exit(1) if a not in s else open(p, "w").write(s.replace(a, b, 1))' "$path" "$from" "$to"; then
    echo "NOT APPLIED  $name: the text to change is no longer in $file (update the mutation)"; status=2; return
  fi
  result=$(run_tests "$project" "$filter" "$scratch/$name.log") && rc=0 || rc=$?
  cp "$scratch/original" "$path"
  case $rc in
    1) echo "caught       $name: $what ($result; unchanged: ${baseline["$project $filter"]})" ;;
    0) echo "NOT caught   $name: $what (still $result)"; status=1 ;;
    *) echo "NOT APPLIED  $name: $result"; tail -20 "$scratch/$name.log"; status=2 ;;
  esac
}

selected=("$@")
# One mutation per line: name | test project | test filter | file | text | replaced by | what the regression is.
# Fields are separated by " | " (a filter's own | has no spaces around it); "-" as the replacement deletes the text.
while IFS= read -r row; do
  mapfile -t fields < <(python3 -c 'import sys; print("\n".join(sys.argv[1].split(" | ")))' "$row")
  [ "${fields[5]}" = "-" ] && fields[5]=""
  mutation "${fields[@]}"
done <<'MUTATIONS'
origin-port | ConcurrencySandbox.Tests | FullyQualifiedName~OriginPolicyTests|FullyQualifiedName~CrossOriginTests | OriginPolicy.cs | own => own.Port == page.Port && Names(own) | own => Names(own) | the cross-origin check takes a loopback page on any port as the sandbox's own
origin-scheme | ConcurrencySandbox.Tests | FullyQualifiedName~OriginPolicyTests|FullyQualifiedName~CrossOriginTests | OriginPolicy.cs | page.Scheme != Uri.UriSchemeHttp ||  | - | the cross-origin check takes an https page on an own host and port as its own
origin-host-port | ConcurrencySandbox.Tests | FullyQualifiedName~OriginPolicyTests|FullyQualifiedName~CrossOriginTests | OriginPolicy.cs | UriComponents.SchemeAndServer | UriComponents.Scheme|UriComponents.Host | a page on the request's own Host (a published container port) matches on any port
query-bound | ConcurrencySandbox.Tests | FullyQualifiedName~ConcurrencySandbox.Tests.Validation|FullyQualifiedName~ContentionEndpointTests | QueryParameter.cs | value >= Min && value <= Max | value >= Min && value < Max | an integer query parameter refuses its own maximum (off by one)
censoring | ConcurrencySandbox.LoadTests.Tests | FullyQualifiedName~PeakLoadTests|FullyQualifiedName~ReportTests | VariantRunner.cs | public bool Censored => TimedOut > 0; | public bool Censored => TimedOut == 0; | the peak-step mean is marked a lower bound when nothing timed out and exact when something did
figure-flag | ConcurrencySandbox.LoadTests.Tests | FullyQualifiedName~FigureFlag | FigureChecks.cs | (efficiency.Low ?? efficiency.Median) > cores * 100.0 | (efficiency.Low ?? efficiency.Median) < cores * 100.0 | the impossible-efficiency flag (more than 100 % per core) is inverted
summary-strict | ConcurrencySandbox.LoadTests.Tests | FullyQualifiedName~SummaryContractTests | RunSummary.cs | UnmappedMemberHandling = JsonUnmappedMemberHandling.Disallow, | - | reading summary.json ignores a member the record does not know (a renamed field)
MUTATIONS
exit $status
