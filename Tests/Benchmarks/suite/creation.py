"""Creating tasks: a batch of 1,000 in one `POST`, and 100 single `POST`s one after another, on one instance over
SQLite and over PostgreSQL, side by side."""
import os
import time

from .common import NO_LIMITS, Client, start_transferd, stop_transferd
from .scaleout import PostgresCluster

BATCH = 1000
SINGLES = 100


def creation_benchmark(binary, workdir, runs):
    """Each store: the median and best of `runs` × 2 batches of 1,000 tasks (suspended, so that no claim runs
    beside them; then started), and the wall time of 100 single creations (best of `runs`). PostgreSQL is a cluster
    of the benchmark's own."""
    cluster = PostgresCluster(workdir, name="postgres-creation")
    try:
        results = {
            "SQLite": created(binary, os.path.join(workdir, "creation-sqlite"), None, runs),
            "PostgreSQL": created(binary, os.path.join(workdir, "creation-postgres"), cluster.create_database("creation"), runs),
        }
    finally:
        cluster.stop()
    print(f"\nTask creation on one instance: a batch of {BATCH:,} in one POST, {SINGLES} POSTs one after another")
    print(f"{'store':<12} {'batch, suspended (ms)':>22} {'batch, started (ms)':>20} {'100 singles (ms)':>17}")
    for name, (suspended, started, singles) in results.items():
        print(f"{name:<12} {suspended:22.0f} {started:20.0f} {singles:17.0f}")
    sqlite, postgres = results["SQLite"], results["PostgreSQL"]
    print(f"{'x SQLite':<12} {postgres[0] / sqlite[0]:22.2f} {postgres[1] / sqlite[1]:20.2f} {postgres[2] / sqlite[2]:17.2f}")
    return results


def created(binary, workdir, database, runs):
    """(median batch suspended, median batch started, best 100 singles), in milliseconds."""
    os.makedirs(workdir)
    options = [*NO_LIMITS]
    if database:
        options += ["--database-url", database]
    process, port = start_transferd(binary, workdir, *options)
    client = Client(port)
    try:
        client.call("PUT", "/v1/sessions/created", {})
        batches = {False: [], True: []}
        for run in range(runs * 2):
            for start in (False, True):
                tasks = [{"kind": "download", "url": f"http://127.0.0.1:9/{start}-{run}-{n}", "start": start} for n in range(BATCH)]
                began = time.monotonic()
                client.call("POST", "/v1/sessions/created/tasks", {"tasks": tasks})
                batches[start].append((time.monotonic() - began) * 1000)
        singles = []
        for run in range(runs):
            began = time.monotonic()
            for n in range(SINGLES):
                client.call("POST", "/v1/sessions/created/tasks", {"kind": "download", "url": f"http://127.0.0.1:9/s{run}-{n}", "start": False})
            singles.append((time.monotonic() - began) * 1000)
        median = lambda values: sorted(values)[len(values) // 2]  # noqa: E731
        return median(batches[False]), median(batches[True]), min(singles)
    finally:
        client.close()
        stop_transferd(process)
