# Shared by the wrk benchmarks (loadtests/bench-vs-wrk.sh, scripts/bench-endpoint-overhead.sh); source it.

# start_api API_DLL WORK_DIR: starts one API on a free loopback port with quiet logging, waits for its ready line,
# and sets api_pid and url (no trailing slash). Exits 2 when no ready line comes within 60 s.
start_api() {
  dotnet "$1" --urls http://127.0.0.1:0 \
    --Logging:LogLevel:Default=Warning --Logging:LogLevel:Microsoft.Hosting.Lifetime=Information >"$2/api.log" 2>&1 &
  api_pid=$!
  url=""
  for _ in $(seq 1 120); do
    url=$(sed -n 's/^ConcurrencySandbox API ready at \(http:[^ ]*\).*/\1/p' "$2/api.log" | head -n 1)
    [ -n "$url" ] && break
    sleep 0.5
  done
  [ -n "$url" ] || { echo "the API printed no ready line" >&2; cat "$2/api.log" >&2; exit 2; }
  url="${url%/}"
}

# wrk_rps CONNECTIONS SECONDS URL: wrk's requests per second (2 threads).
wrk_rps() {
  wrk -t2 -c"$1" -d"$2s" "$3" | sed -n 's/^Requests\/sec:[[:space:]]*\([0-9.]*\).*/\1/p'
}

# check_pair PAIR BASE_NAME BASE_RPS NAME RPS MINIMUM: prints the pair and NAME/BASE ratio; fails under MINIMUM.
check_pair() {
  awk -v p="$1" -v bn="$2" -v b="$3" -v n="$4" -v o="$5" -v m="$6" \
    'BEGIN { r = o / b; printf "pair %d: %s %.0f requests/s, %s %.0f requests/s, ratio %.2f (at least %.2f): %s\n", p, bn, b, n, o, r, m, (r >= m ? "PASS" : "FAIL"); exit (r >= m ? 0 : 1) }'
}
