"""The API under wrk beside Hummingbird's own health route and a reference server's database reads."""
import os
import socket
import subprocess
import time

from .common import API_KEY, NO_LIMITS, api, start_transferd, stop_transferd, wrk


WRK_POST = """
wrk.method = "POST"
wrk.body = '{"kind": "download", "url": "http://127.0.0.1:9/never", "start": false}'
wrk.headers["Content-Type"] = "application/json"
"""


def api_benchmark(binary, workdir, seconds):
    """The API under wrk beside Hummingbird's own health route, in one transferd."""
    process, port = start_transferd(binary, workdir, *NO_LIMITS, authenticated=True)
    base = f"http://127.0.0.1:{port}"
    try:
        headers = {"Authorization": f"Bearer {API_KEY}"}
        authed = lambda method, path, body=None: api(port, method, path, body, headers)  # noqa: E731
        authed("PUT", "/v1/sessions/bench")
        authed("POST", "/v1/sessions/bench/tasks", {"kind": "download", "url": "http://127.0.0.1:9/never", "start": False})
        script = os.path.join(workdir, "post.lua")
        with open(script, "w") as file:
            file.write(WRK_POST)
        return {
            "GET /healthz": wrk(f"{base}/healthz", seconds),
            "GET task": wrk(f"{base}/v1/sessions/bench/tasks/1", seconds),
            "GET session": wrk(f"{base}/v1/sessions/bench", seconds),
            "GET events": wrk(f"{base}/v1/sessions/bench/events?after=0", seconds),
            "POST task": wrk(f"{base}/v1/sessions/bench/tasks", seconds, script),
        }
    finally:
        stop_transferd(process)


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
    print(f"{'route':<30} {'req/s':>9} {'p99 ms':>8} {'x healthz':>10}")
    for name, (rate, p99) in results.items():
        print(f"{name:<30} {rate:9.0f} {p99:8.2f} {rate / baseline:10.2f}")


