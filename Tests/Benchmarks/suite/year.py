"""A year of history, simulated with the injected clock (issue 64), on SQLite and on PostgreSQL.

The simulation is a test of the suite's (Tests/TransferdTests/Benchmarks/YearOfHistoryTests.swift), skipped unless
TRANSFERD_YEAR_DAYS is set: the service in-process on a clock the test moves a day at a time, 10,000 downloads a
day with a webhook and 100 fetch schedules at 60 s, history kept 7 days. It writes a line per day (the database's
bytes, its tasks, events and deliveries, and the seconds the day took) to the curve of its directory; this section
runs it on each database in turn and prints the curve and the ratio of the last day's size to day 8's (the target:
at most 1.2).

A year takes hours (a day about 30 s on each database). With --year-directory, the simulations keep their state
there (SQLite's data directory, PostgreSQL's cluster, the curves), and a later run goes on from the last day each
reached: run it again with the same directory until both reach --days. A file named `stop` in a simulation's
directory (`sqlite/stop`, `postgres/stop`) ends it after the day it is on; a run stopped otherwise leaves a day
begun, whose copies the next run discards.
"""
import os
import subprocess
import sys

from .scaleout import PostgresCluster

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))


def year_benchmark(workdir, days, directory=None):
    print(f"building the tests (the simulation runs in the suite's build)…", flush=True)
    build = subprocess.run(["swift", "build", "--build-tests"], cwd=ROOT, capture_output=True, text=True)
    if build.returncode != 0:
        sys.exit(build.stdout + build.stderr)
    directory = os.path.abspath(directory or os.path.join(workdir, "year"))
    os.makedirs(directory, exist_ok=True)
    curves = {"SQLite": _simulate(os.path.join(directory, "sqlite"), days, {})}
    cluster = PostgresCluster(directory, "cluster", reuse=True)
    try:
        url = cluster.create_database("transferd", exist_ok=True)
        curves["PostgreSQL"] = _simulate(os.path.join(directory, "postgres"), days, {"TRANSFERD_TEST_DATABASE_URL": url})
    finally:
        cluster.stop()
    print(f"\nA year of history: 10,000 downloads a day with a webhook, 100 fetch schedules at 60 s, kept 7 days")
    print(f"{'day':>5} " + " ".join(f"{name + ' MiB':>16} {'tasks':>9} {'events':>10} {'day s':>6}" for name in curves))
    shown = sorted({1, 7, 8, 14, 30, days} | set(range(60, days + 1, 30)))
    for day in shown:
        cells = []
        for curve in curves.values():
            row = curve.get(day)
            cells.append(f"{row['bytes'] / 2**20:16.0f} {row['tasks']:9d} {row['events']:10d} {row['seconds']:6.1f}" if row else f"{'':>44}")
        print(f"{day:5d} " + " ".join(cells))
    for name, curve in curves.items():
        if 8 in curve and days in curve:
            ratio = curve[days]["bytes"] / curve[8]["bytes"]
            verdict = "met" if ratio <= 1.2 else "NOT MET"
            print(f"{name}: day {days} / day 8 = {ratio:.3f} (the target: at most 1.2 at day 365): {verdict}")
    return curves


def _simulate(directory, days, environment):
    print(f"simulating {days} days in {directory}…", flush=True)
    run = subprocess.run(
        ["swift", "test", "--skip-build", "--filter", "YearOfHistoryTests"],
        cwd=ROOT,
        env={**os.environ, **environment, "TRANSFERD_YEAR_DAYS": str(days), "TRANSFERD_YEAR_DIRECTORY": directory},
        capture_output=True,
        text=True,
    )
    if run.returncode != 0:
        print(run.stdout[-4000:] + run.stderr[-4000:])
    curve = {}
    report = os.path.join(directory, "curve.tsv")
    if os.path.exists(report):
        for line in open(report).read().splitlines()[1:]:
            day, size, tasks, events, deliveries, copying, passing = line.split("\t")
            curve[int(day)] = {
                "bytes": int(size), "tasks": int(tasks), "events": int(events), "deliveries": int(deliveries),
                "seconds": float(copying) + float(passing),
            }
    return curve
