"""A neighbour's downloads while another tenant floods the service with fetch schedules (issue 63): the p50 and p90
of the time from a download's creation to its completion for one tenant, alone and then while a second tenant tries
to create 100 sessions × 100 schedules at a 60 s interval, of which its quota (`--max-fetches-per-tenant`, 1,000 by
default) admits what it admits."""
import http.client
import json
import os
import shutil
import statistics
import subprocess
import threading
import time

from .common import API_KEY, NO_LIMITS, start_transferd, stop_transferd
from .origin import Nginx


def flood_benchmark(binary, workdir, sessions=100, schedules_per_session=100, measured_seconds=120):
    root = os.path.join(workdir, "flood-origin")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "small.bin"), "wb") as file:
        file.write(os.urandom(64 * 1024))
    nginx = Nginx(root, workdir)
    url = f"http://127.0.0.1:{nginx.port}/small.bin"
    data = os.path.join(workdir, "transferd-data")
    shutil.rmtree(data, ignore_errors=True)
    created = subprocess.run(
        [binary, "keys", "create", "--name", "flood", "--tenant", "flood", "--data-dir", data],
        capture_output=True, text=True, check=True,
    )
    flood_key = next(word for word in created.stdout.split() if word.startswith("trd_"))
    process, port = start_transferd(binary, workdir, *NO_LIMITS, authenticated=True, fresh=False)
    try:
        _call(port, API_KEY, "PUT", "/v1/sessions/neighbour", {})
        alone = _downloads(port, url, seconds=30)

        # The flood: schedules created as fast as the API takes them, each session's in turn; then the neighbour's
        # downloads are timed while the runs go on.
        accepted = refused = 0
        for number in range(sessions):
            _call(port, flood_key, "PUT", f"/v1/sessions/flood-{number}", {})
            for schedule in range(schedules_per_session):
                status = _call(port, flood_key, "POST", f"/v1/sessions/flood-{number}/fetches",
                               {"url": f"{url}?s={number}-{schedule}", "interval": 60}, allowed=(201, 429))
                accepted, refused = (accepted + 1, refused) if status == 201 else (accepted, refused + 1)
        flooded = _downloads(port, url, seconds=measured_seconds)
        runs = _call_json(port, flood_key, "GET", "/v1/tenant")["quotas"]["queuedTasks"]["used"]
    finally:
        stop_transferd(process)
        nginx.close()

    print(f"\nA neighbour's 64 KiB downloads while another tenant floods fetch schedules (60 s), over SQLite")
    print(f"schedules accepted {accepted:,}, refused {refused:,} (429, quota-exceeded); the flooder's unfinished tasks at the end: {runs:,}")
    print(f"{'neighbour':<40} {'downloads':>9} {'p50 ms':>8} {'p90 ms':>8} {'p50 ratio':>10} {'target':>7}")
    base = statistics.median(alone)
    for label, times in (("alone", alone), ("during the flood", flooded)):
        p50, p90 = statistics.median(times), statistics.quantiles(times, n=10)[8]
        print(f"{label:<40} {len(times):9} {p50 * 1000:8.1f} {p90 * 1000:8.1f} {p50 / base:10.2f} {'≤ 1.5':>7}")
    return statistics.median(flooded) / base


def _downloads(port, url, seconds):
    """Times downloads one after another for `seconds`: from the `POST` to the task read as completed."""
    times, deadline, number = [], time.monotonic() + seconds, 0
    while time.monotonic() < deadline:
        number += 1
        started = time.monotonic()
        task = _call_json(port, API_KEY, "POST", "/v1/sessions/neighbour/tasks", {"kind": "download", "url": f"{url}?n={number}"})
        path = f"/v1/sessions/neighbour/tasks/{task['taskIdentifier']}"
        while _call_json(port, API_KEY, "GET", path)["state"] != "completed":
            time.sleep(0.002)
        times.append(time.monotonic() - started)
    return times


_local = threading.local()


def _connection(port):
    if getattr(_local, "port", None) != port:
        _local.connection, _local.port = http.client.HTTPConnection("127.0.0.1", port, timeout=120), port
    return _local.connection


def _exchange(port, key, method, path, body):
    for attempt in range(2):
        connection = _connection(port)
        try:
            headers = {"Content-Type": "application/json", "Authorization": f"Bearer {key}"}
            connection.request(method, path, json.dumps(body) if body is not None else None, headers)
            response = connection.getresponse()
            return response.status, response.read()
        except (http.client.HTTPException, ConnectionError):
            # The API closes a connection left idle; open another once.
            connection.close()
            _local.port = None
            if attempt == 1:
                raise


def _call(port, key, method, path, body=None, allowed=(200, 201, 204)):
    status, data = _exchange(port, key, method, path, body)
    if status not in allowed:
        raise SystemExit(f"{method} {path}: {status} {data.decode()}")
    return status


def _call_json(port, key, method, path, body=None):
    status, data = _exchange(port, key, method, path, body)
    if status >= 300:
        raise SystemExit(f"{method} {path}: {status} {data.decode()}")
    return json.loads(data)
