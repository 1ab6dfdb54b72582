#!/usr/bin/env python3
"""Issues 12 and 21's benchmark: does the control plane answer while sync-over-async load starves the ThreadPool,
and while idle and trickling clients try to hold its connections?

Starts the API (Release build, fresh process, loopback only), runs CONNECTIONS connections of
/api/fanout?calls=1&delayMs=500&strategy=sync-over-async, holds IDLE connections open to the control port that send
nothing and TRICKLE connections that send one header byte a second (each reopened as soon as the server closes it),
and meanwhile polls the control plane (/healthz, /api/threadpool, /api/telemetry, /api/telemetry/history, /metrics)
every 250 ms and scrapes /metrics once a second as Prometheus would. After STARVE seconds it sends
PUT /api/threadpool {"minWorkerThreads": 400} to the control plane and measures the time to the next completed
experiment request and the throughput after. Then a second fresh API is starved the same way and sent SIGTERM:
the time to exit is measured. Bounded: every phase has a fixed length, every request a timeout.

Usage: docs/notebook/investigations/control-plane-bench.py [--connections 125] [--idle 100] [--trickle 20] [--starve 20] [--recover 15]
                                     [--sigterm-after 10] [--probe control|api] [--env NAME=VALUE ...] [--no-build]
--probe api polls the same endpoints on the API port (Kestrel) instead, for comparison; --env passes environment
variables to the API (e.g. DOTNET_SYSTEM_NET_SOCKETS_INLINE_COMPLETIONS=1).
Prints a Markdown table; figures depend on the machine (print its cores and runtime with them).
"""
import argparse, http.client, json, os, re, select, signal, socket, subprocess, sys, threading, time

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))))
DLL = os.path.join(ROOT, "src/ConcurrencySandbox.Api/bin/Release/net10.0/ConcurrencySandbox.Api.dll")
API_READY = re.compile(r"ConcurrencySandbox API ready at (http://\S+)")
CONTROL_READY = re.compile(r"ConcurrencySandbox control plane ready at (http://\S+)")
EXPERIMENT = "/api/fanout?calls=1&delayMs=500&strategy=sync-over-async"
CONTROL_PATHS = ["/healthz", "/api/threadpool", "/api/telemetry", "/api/telemetry/history?since={since}", "/metrics"]


def start_api(environment):
    process = subprocess.Popen(
        ["dotnet", DLL, "--urls", "http://127.0.0.1:0", "--Control:Port=0", "--Logging:LogLevel:Default=Warning"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, cwd=ROOT, env={**os.environ, **environment})
    api = control = None
    deadline = time.monotonic() + 60
    while (api is None or control is None) and time.monotonic() < deadline:
        line = process.stdout.readline()
        if not line:
            break
        api = api or (API_READY.search(line) and API_READY.search(line).group(1))
        control = control or (CONTROL_READY.search(line) and CONTROL_READY.search(line).group(1))
    if api is None or control is None:
        process.kill()
        sys.exit("the API printed no ready lines within 60 s")
    # Keep draining its output so it never blocks on a full pipe; keep the watchdog's lines.
    log = []
    threading.Thread(target=lambda: [log.append(l) for l in process.stdout], daemon=True).start()
    return process, api, control, log


def request(base, method, path, body=None, timeout=5.0):
    host, port = base.removeprefix("http://").rsplit(":", 1)
    connection = http.client.HTTPConnection(host, int(port), timeout=timeout)
    try:
        headers = {"Content-Type": "application/json"} if body is not None else {}
        connection.request(method, path, body=body, headers=headers)
        response = connection.getresponse()
        return response.status, response.read()
    finally:
        connection.close()


def load(api, stop, completions, connections):
    """CONNECTIONS closed-loop workers on keep-alive connections; each completion's time is recorded."""
    host, port = api.removeprefix("http://").rsplit(":", 1)

    def worker():
        connection = None
        while not stop.is_set():
            try:
                connection = connection or http.client.HTTPConnection(host, int(port), timeout=120)
                connection.request("GET", EXPERIMENT)
                response = connection.getresponse()
                response.read()
                completions.append((time.monotonic(), response.status))
            except (OSError, http.client.HTTPException):
                connection = None
                time.sleep(0.1)

    threads = [threading.Thread(target=worker, daemon=True) for _ in range(connections)]
    for thread in threads:
        thread.start()
    return threads


def probe_control(control, stop, samples):
    since = 0.0
    i = 0
    while not stop.is_set():
        path = CONTROL_PATHS[i % len(CONTROL_PATHS)].format(since=int(since))
        started = time.monotonic()
        try:
            status, body = request(control, "GET", path, timeout=5.0)
            if path == "/api/telemetry":
                since = max(0.0, json.loads(body)["uptimeSeconds"] - 5)
        except (OSError, http.client.HTTPException):
            status = None
        samples.append((started, time.monotonic() - started, path.split("?")[0], status))
        i += 1
        time.sleep(max(0.0, 0.25 - (time.monotonic() - started)))


def hold_idle(control, stop, count, closed):
    """COUNT connections that send nothing; each one the server closes (evicted or past its deadline) is reopened."""
    host, port = control.removeprefix("http://").rsplit(":", 1)
    sockets = []
    while not stop.is_set():
        while len(sockets) < count:
            try:
                sockets.append(socket.create_connection((host, int(port)), timeout=5))
            except OSError:
                time.sleep(0.05)
                break
        time.sleep(0.1)  # reopen at most ten times a second, as a port scanner or a browser's pre-connects would
        readable, _, _ = select.select(sockets, [], [], 0)
        for ended in readable:
            closed.append(time.monotonic())
            ended.close()
            sockets.remove(ended)
    for held in sockets:
        held.close()


def trickle(control, stop, closed):
    """A client that sends a request line, then one header byte a second; reopened whenever the server closes it."""
    host, port = control.removeprefix("http://").rsplit(":", 1)
    while not stop.is_set():
        try:
            with socket.create_connection((host, int(port)), timeout=5) as connection:
                connection.sendall(b"GET /healthz HTTP/1.1\r\nX-Slow: ")
                while not stop.is_set():
                    if select.select([connection], [], [], 1.0)[0]:
                        break  # the server answered (408) or closed
                    connection.sendall(b"a")
            closed.append(time.monotonic())
        except OSError:
            closed.append(time.monotonic())
            time.sleep(0.05)


def scrape(control, stop, samples):
    """GET /metrics once a second, as a Prometheus server with a 1 s scrape interval would."""
    while not stop.is_set():
        started = time.monotonic()
        try:
            status, body = request(control, "GET", "/metrics", timeout=5.0)
            status = status if b"dotnet_thread_pool_queue_length" in body else "no pool series"
        except (OSError, http.client.HTTPException):
            status = None
        samples.append((started, time.monotonic() - started, "/metrics (scrape every 1 s)", status))
        time.sleep(max(0.0, 1.0 - (time.monotonic() - started)))


def percentile(values, p):
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, int(round(p / 100 * (len(ordered) - 1))))] if ordered else float("nan")


def rescue_run(args):
    process, api, control, _ = start_api(args.environment)
    try:
        request(api, "GET", "/api/fanout?calls=1&delayMs=1&strategy=sync-over-async", timeout=30)  # warm-up: JIT, first connection
        stop_load, stop_probe = threading.Event(), threading.Event()
        completions, samples = [], []
        started = time.monotonic()
        load(api, stop_load, completions, args.connections)
        probed = api if args.probe == "api" else control
        idle_closed, trickle_closed, scrapes = [], [], []
        holders = [threading.Thread(target=hold_idle, args=(probed, stop_probe, args.idle, idle_closed), daemon=True)]
        holders += [threading.Thread(target=trickle, args=(probed, stop_probe, trickle_closed), daemon=True) for _ in range(args.trickle)]
        for holder in holders:
            holder.start()
        prober = threading.Thread(target=probe_control, args=(probed, stop_probe, samples), daemon=True)
        prober.start()
        scraper = threading.Thread(target=scrape, args=(probed, stop_probe, scrapes), daemon=True)
        scraper.start()
        time.sleep(args.starve)
        put_at = time.monotonic()
        try:
            put_status, put_body = request(control, "PUT", "/api/threadpool", body=json.dumps({"minWorkerThreads": 400}), timeout=5.0)
        except (OSError, http.client.HTTPException) as e:
            put_status, put_body = f"none ({type(e).__name__})", b""
        put_seconds = time.monotonic() - put_at
        time.sleep(args.recover)
        stop_probe.set()
        prober.join(10)
        scraper.join(10)
        end = time.monotonic()
        stop_load.set()
        pool_threads_before_put = max((json.loads(b)["threadPool"]["threadCount"] for b in [put_body] if put_status == 200), default=None)
        after_put = [t for t, s in completions if t > put_at]
        return {
            "samples": samples,
            "scrapes": scrapes,
            "put_at": put_at,
            "idle_closed": sum(1 for t in idle_closed if t <= put_at),
            "trickle_closed": sum(1 for t in trickle_closed if t <= put_at),
            "starved_ok": sum(1 for t, s in completions if t <= put_at and s == 200),
            "recovered_ok": sum(1 for t, s in completions if t > put_at and s == 200),
            "starve_seconds": put_at - started,
            "recover_seconds": end - put_at,
            "put_status": put_status,
            "put_seconds": put_seconds,
            "next_completion": (min(after_put) - put_at) if after_put else None,
            "threads_after_put": pool_threads_before_put,
        }
    finally:
        process.kill()
        process.wait()


def sigterm_run(args):
    process, api, control, log = start_api(args.environment)
    stop_load = threading.Event()
    completions = []
    request(api, "GET", "/api/fanout?calls=1&delayMs=1&strategy=sync-over-async", timeout=30)
    load(api, stop_load, completions, args.connections)
    time.sleep(args.sigterm_after)
    _, body = request(control, "GET", "/api/threadpool")
    pool = json.loads(body)["threadPool"]
    sent = time.monotonic()
    process.send_signal(signal.SIGTERM)
    try:
        code = process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        code = "killed after 30 s"
    exit_seconds = time.monotonic() - sent
    stop_load.set()
    time.sleep(0.5)
    watchdog = [l.strip() for l in log if "Shutdown watchdog" in l]
    return {"exit_seconds": exit_seconds, "code": code, "pool": pool, "watchdog": watchdog[:1], "abandoned": len(watchdog) - 1 if watchdog else 0}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--connections", type=int, default=125)
    parser.add_argument("--idle", type=int, default=100)
    parser.add_argument("--trickle", type=int, default=20)
    parser.add_argument("--starve", type=float, default=20)
    parser.add_argument("--recover", type=float, default=15)
    parser.add_argument("--sigterm-after", type=float, default=10)
    parser.add_argument("--probe", choices=["control", "api"], default="control")
    parser.add_argument("--env", action="append", default=[], metavar="NAME=VALUE")
    parser.add_argument("--no-build", action="store_true")
    args = parser.parse_args()
    args.environment = dict(pair.split("=", 1) for pair in args.env)
    if not 1 <= args.connections <= 500 or not 1 <= args.starve <= 120 or not 1 <= args.recover <= 120 \
            or not 0 <= args.idle <= 500 or not 0 <= args.trickle <= 100:
        sys.exit("connections 1..500, idle 0..500, trickle 0..100, starve and recover 1..120 s")
    if not args.no_build:
        subprocess.run(["dotnet", "build", "src/ConcurrencySandbox.Api", "-c", "Release", "-v", "quiet", "-nologo"], cwd=ROOT, check=True, stdout=subprocess.DEVNULL)

    before_load = open("/proc/loadavg").read().split()[:3]
    rescue = rescue_run(args)
    term = sigterm_run(args)

    cpu = next((l.split(":", 1)[1].strip() for l in open("/proc/cpuinfo") if l.startswith("model name")), "?")
    runtime = subprocess.run(["dotnet", "--version"], capture_output=True, text=True).stdout.strip()
    extra = "".join(f" --env {pair}" for pair in args.env) + (" --probe api" if args.probe == "api" else "") + f" --idle {args.idle} --trickle {args.trickle}"
    print(f"# Control endpoints on the {args.probe} port under {args.connections} connections of {EXPERIMENT}")
    print(f"\n{os.cpu_count()} cores ({cpu}), .NET SDK {runtime}; command: docs/notebook/investigations/control-plane-bench.py "
          f"--connections {args.connections} --starve {args.starve:g} --recover {args.recover:g} --sigterm-after {args.sigterm_after:g}{extra}\n")
    load_average = open("/proc/loadavg").read().split()[:3]
    print(f"Load average before the run {' '.join(before_load)}, after it {' '.join(load_average)} (1, 5, 15 min).\n")
    print(f"Held against the {args.probe} port meanwhile: {args.idle} idle connections (closed by the server and reopened "
          f"{rescue['idle_closed']} times while starved) and {args.trickle} trickling ones (closed {rescue['trickle_closed']} times).\n")
    put_at = rescue["put_at"]
    for title, chosen_samples in [("while starved", [s for s in rescue["samples"] + rescue["scrapes"] if s[0] <= put_at]),
                                  ("after the PUT", [s for s in rescue["samples"] + rescue["scrapes"] if s[0] > put_at])]:
        print(f"| endpoint on the {args.probe} port, {title} | requests | failed (5 s timeout) | p50 (ms) | p99 (ms) | max (ms) |")
        print("|---|---|---|---|---|---|")
        for path in [p.split("?")[0] for p in CONTROL_PATHS] + ["/metrics (scrape every 1 s)", "all"]:
            chosen = [s for s in chosen_samples if path == "all" or s[2] == path]
            ms = [s[1] * 1000 for s in chosen]
            failed = sum(1 for s in chosen if s[3] != 200)
            print(f"| {path} | {len(chosen)} | {failed} | {percentile(ms, 50):.1f} | {percentile(ms, 99):.1f} | {max(ms, default=float('nan')):.1f} |")
        print()
    next_completion = rescue["next_completion"]
    print("\n| rescue | figure |")
    print("|---|---|")
    print(f"| experiment requests completed while starved | {rescue['starved_ok']} in {rescue['starve_seconds']:.1f} s |")
    print(f"| PUT minWorkerThreads=400 on the control plane | HTTP {rescue['put_status']} in {rescue['put_seconds'] * 1000:.1f} ms |")
    print(f"| PUT to the next completed experiment request | {'none' if next_completion is None else f'{next_completion:.2f} s'} |")
    print(f"| experiment requests completed after the PUT | {rescue['recovered_ok']} in {rescue['recover_seconds']:.1f} s ({rescue['recovered_ok'] / rescue['recover_seconds']:.1f}/s) |")
    print(f"| SIGTERM while starved ({term['pool']['threadCount']} pool threads, {term['pool']['pendingWorkItemCount']} queued) to exit | {term['exit_seconds']:.2f} s, exit code {term['code']}, {term['abandoned']} abandoned requests logged |")
    for line in term["watchdog"]:
        print(f"\nWatchdog: `{line}`")


if __name__ == "__main__":
    main()
