"""Many small downloads: transferd beside aria2 driven over its JSON-RPC interface, the tool it replaces."""
import json
import os
import socket
import subprocess
import sys
import time
import urllib.request

from .common import NO_LIMITS, Client, start_transferd, stop_transferd
from .origin import Nginx

CONCURRENCY = 16


def small_benchmark(binary, workdir, count, size_kib, runs):
    """Wall time from the first submission to the last completion of `count` downloads of `size_kib` KiB each from
    nginx, CONCURRENCY at a time for both: aria2 with one `aria2.addUri` each, transferd with one `POST` each and then
    with batches of 1,000, over SQLite and over PostgreSQL (a cluster of the benchmark's own, a fresh database for every
    run). They take turns, `runs` rounds; each keeps its best time.

    Every run writes into a directory of its own and nothing is deleted until the end: on ext4, creating files
    within 30 s of deleting many is slow in the kernel (`recently_deleted`), and that would fall on whichever
    client ran next."""
    from .scaleout import PostgresCluster  # scaleout builds on this module

    origin, urls = serve_small_files(workdir, count, size_kib)
    cluster = PostgresCluster(workdir, name="postgres-small")
    # A fresh database for every run, named after its directory.
    database = lambda directory: cluster.create_database(os.path.basename(directory).replace("-", "_"))  # noqa: E731
    clients = {
        "aria2 RPC": lambda directory: aria2_rpc(directory, urls),
        "transferd": lambda directory: transferd(binary, directory, urls, batch=1),
        "transferd batches": lambda directory: transferd(binary, directory, urls, batch=1000),
        "PostgreSQL": lambda directory: transferd(binary, directory, urls, batch=1, database=database(directory)),
        "PostgreSQL batches": lambda directory: transferd(binary, directory, urls, batch=1000, database=database(directory)),
    }
    try:
        results = best_times(clients, runs, workdir, "small")
    finally:
        origin.close()
        cluster.stop()
    print(f"\n{count} downloads × {size_kib} KiB, {CONCURRENCY} at a time, from submission to the last completion, best of "
          f"{runs}; transferd over SQLite, then over PostgreSQL (× SQLite: against the same submission over SQLite)")
    baseline = results["aria2 RPC"]
    print(f"{'client':<18} {'seconds':>8} {'per s':>8} {'x aria2':>8} {'x SQLite':>9}")
    for name, seconds in results.items():
        sqlite = {"PostgreSQL": "transferd", "PostgreSQL batches": "transferd batches"}.get(name)
        versus = f" {seconds / results[sqlite]:9.2f}" if sqlite else ""
        print(f"{name:<18} {seconds:8.2f} {count / seconds:8.0f} {seconds / baseline:8.2f}{versus}")
    return results


def best_times(clients, runs, workdir, prefix):
    """Runs the clients in turn, `runs` rounds, each run in a new directory of its own under `workdir`; returns each
    client's best time."""
    results = {}
    for round in range(runs):
        for number, (name, run) in enumerate(clients.items()):
            directory = os.path.join(workdir, f"{prefix}-{round}-{number}")
            os.makedirs(directory)
            results[name] = min(results.get(name, float("inf")), run(directory))
    return results


def serve_small_files(workdir, count, size_kib):
    """nginx serving `count` random files of `size_kib` KiB; returns it and their URLs."""
    served = os.path.join(workdir, "small")
    os.makedirs(served, exist_ok=True)
    for number in range(count):
        with open(os.path.join(served, f"{number}.bin"), "wb") as file:
            file.write(os.urandom(size_kib << 10))
    origin = Nginx(served, workdir)
    return origin, [f"http://127.0.0.1:{origin.port}/{number}.bin" for number in range(count)]


def aria2_rpc(workdir, urls):
    directory = os.path.join(workdir, "aria2")
    with socket.create_server(("127.0.0.1", 0)) as probe:
        port = probe.getsockname()[1]
    process = subprocess.Popen(
        ["aria2c", "--enable-rpc", f"--rpc-listen-port={port}", f"--dir={directory}", "--quiet",
         f"--max-concurrent-downloads={CONCURRENCY}", "--file-allocation=none", "--max-download-result=100000"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    call = lambda method, *params: rpc(port, method, list(params))  # noqa: E731
    try:
        for _ in range(500):
            try:
                call("aria2.getVersion")
                break
            except OSError:
                time.sleep(0.01)
        start = time.monotonic()
        for number, url in enumerate(urls):
            call("aria2.addUri", [url], {"out": f"{number}.bin"})
        while True:
            stat = call("aria2.getGlobalStat")
            if int(stat["numActive"]) == 0 and int(stat["numWaiting"]) == 0:
                break
            time.sleep(0.01)
        elapsed = time.monotonic() - start
        stopped = call("aria2.tellStopped", 0, len(urls), ["status"])
        if sum(1 for download in stopped if download["status"] == "complete") != len(urls):
            sys.exit("aria2 did not complete every download")
        return elapsed
    finally:
        process.terminate()
        process.wait()


def rpc(port, method, params):
    body = json.dumps({"jsonrpc": "2.0", "id": "bench", "method": method, "params": params}).encode()
    request = urllib.request.Request(f"http://127.0.0.1:{port}/jsonrpc", data=body)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read())["result"]


def transferd(binary, workdir, urls, batch, database=None, options=()):
    options = ["--worker-concurrency", str(CONCURRENCY), *NO_LIMITS, *options] + (["--database-url", database] if database else [])
    process, port = start_transferd(binary, workdir, *options)
    client = Client(port)
    try:
        client.call("PUT", "/v1/sessions/small", {"configuration": {"maximumConnectionsPerHost": CONCURRENCY}})
        start = time.monotonic()
        for first in range(0, len(urls), batch):
            bodies = [{"kind": "download", "url": url} for url in urls[first:first + batch]]
            client.call("POST", "/v1/sessions/small/tasks", bodies[0] if batch == 1 else {"tasks": bodies})
        while client.call("GET", "/v1/sessions/small")["taskCounts"]["completed"] < len(urls):
            time.sleep(0.01)
        elapsed = time.monotonic() - start
        failed, after = 0, 0
        while True:
            page = client.call("GET", f"/v1/sessions/small/events?after={after}&limit=1000")
            failed += sum(1 for event in page["items"] if event["type"] == "task.completed" and event["data"]["error"])
            if not page["items"]:
                break
            after = page["nextAfter"]
        if failed:
            sys.exit(f"transferd failed {failed} of the small downloads")
        return elapsed
    finally:
        client.close()
        stop_transferd(process)
