"""The API under wrk beside Hummingbird's own health route and a reference server's database reads."""
import os
import socket
import subprocess
import time

from .common import API_KEY, NO_LIMITS, api, cpu_seconds, start_transferd, stop_transferd, wrk


WRK_POST = """
wrk.method = "POST"
wrk.body = '{"kind": "download", "url": "http://127.0.0.1:9/never", "start": false}'
wrk.headers["Content-Type"] = "application/json"
"""


def api_benchmark(binary, workdir, seconds, *options):
    """The API under wrk beside Hummingbird's own health route, in one transferd started with `options` besides the
    usual: each route's requests a second, p99 (ms) and transferd's CPU a request (µs), which a busy machine moves far
    less than the rate."""
    process, port = start_transferd(binary, workdir, *NO_LIMITS, *options, authenticated=True)
    base = f"http://127.0.0.1:{port}"
    try:
        headers = {"Authorization": f"Bearer {API_KEY}"}
        authed = lambda method, path, body=None: api(port, method, path, body, headers)  # noqa: E731
        authed("PUT", "/v1/sessions/bench")
        authed("POST", "/v1/sessions/bench/tasks", {"kind": "download", "url": "http://127.0.0.1:9/never", "start": False})
        script = os.path.join(workdir, "post.lua")
        with open(script, "w") as file:
            file.write(WRK_POST)
        measured = lambda path, script=None: _with_cpu(process.pid, f"{base}{path}", seconds, script)  # noqa: E731
        return {
            "GET /healthz": measured("/healthz"),
            "GET task": measured("/v1/sessions/bench/tasks/1"),
            "GET session": measured("/v1/sessions/bench"),
            "GET events": measured("/v1/sessions/bench/events?after=0"),
            "POST task": measured("/v1/sessions/bench/tasks", script),
        }
    finally:
        stop_transferd(process)


def _with_cpu(pid, url, seconds, script):
    """wrk's requests a second and p99 against `url`, and the CPU microseconds process `pid` spent a request."""
    before = cpu_seconds(pid)
    rate, p99 = wrk(url, seconds, script)
    return rate, p99, (cpu_seconds(pid) - before) * 1e6 / max(rate * seconds, 1)


def reference_benchmark(binary, workdir, seconds):
    """The reference server (Tests/Benchmarks/Reference): Hummingbird alone, and one read of one key per request
    through GRDB's pool, through GRDB connections of its own (as transferd reads) and through SQLite's C API."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    argv = [binary, os.path.join(workdir, "reference.sqlite"), str(port)]
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        _wait_for_listener(port)
        base = f"http://127.0.0.1:{port}"
        return {
            "reference: Hummingbird alone": wrk(f"{base}/healthz", seconds),
            "reference: 1 read, GRDB pool": wrk(f"{base}/grdb-pool", seconds),
            "reference: 1 read, GRDB": wrk(f"{base}/grdb", seconds),
            "reference: 1 read, C API": wrk(f"{base}/sqlite", seconds),
        }
    finally:
        process.terminate()
        process.wait(timeout=30)


def _wait_for_listener(port):
    for _ in range(2000):
        try:
            socket.create_connection(("127.0.0.1", port)).close()
            return
        except OSError:
            time.sleep(0.005)
    raise SystemExit(f"the reference server did not listen on {port}")


def api_table(results, seconds):
    """Requests a second and p99 of each route; ratios are to /healthz (Hummingbird alone)."""
    print(f"\nAPI, wrk -t2 -c32 for {seconds} s each, authentication on")
    baseline = results["GET /healthz"][0]
    print(f"{'route':<30} {'req/s':>9} {'p99 ms':>8} {'CPU µs':>8} {'x healthz':>10}")
    for name, (rate, p99, *cpu) in results.items():
        shown = f"{cpu[0]:8.0f}" if cpu else f"{'':>8}"
        print(f"{name:<30} {rate:9.0f} {p99:8.2f} {shown} {rate / baseline:10.2f}")


