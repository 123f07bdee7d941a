"""Scaling out: the many-small workload on one instance over SQLite, and on one, two and three instances sharing a
PostgreSQL database and a data directory, beside aria2."""
import http.client
import json
import os
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.request
from datetime import datetime

from .common import API_KEY, NO_LIMITS, Client, cpu_seconds, start_transferd, stop_transferd
from .small import CONCURRENCY, aria2_rpc, best_times, serve_small_files


def scaleout_benchmark(binary, workdir, count, size_kib, runs):
    """Wall time from the first submission to the last completion of `count` downloads of `size_kib` KiB from nginx,
    submitted in batches of 1,000 through the first instance; every instance runs CONCURRENCY transfers at once, so
    N instances may run N × CONCURRENCY. PostgreSQL is a cluster of the benchmark's own (Debian's binaries, as the
    unprivileged postgres user when run as root), a fresh database for every run. Best of `runs` each."""
    origin, urls = serve_small_files(workdir, count, size_kib)
    cluster = PostgresCluster(workdir)
    # A fresh database for every run, named after its directory.
    database = lambda directory: cluster.create_database(os.path.basename(directory).replace("-", "_"))  # noqa: E731
    clients = {
        "aria2 RPC (16)": lambda directory: aria2_rpc(directory, urls),
        "SQLite, 1 instance": lambda directory: transferd_instances(binary, directory, urls, None, 1),
        "PostgreSQL, 1": lambda directory: transferd_instances(binary, directory, urls, database(directory), 1, cluster),
        "PostgreSQL, 2": lambda directory: transferd_instances(binary, directory, urls, database(directory), 2, cluster),
        "PostgreSQL, 3": lambda directory: transferd_instances(binary, directory, urls, database(directory), 3, cluster),
    }
    STREAM_P99.clear()
    CPU.clear()
    try:
        results = best_times(clients, runs, workdir, "scaleout")
    finally:
        origin.close()
        cluster.stop()
    print(f"\n{count} downloads × {size_kib} KiB, {CONCURRENCY} at a time per instance, batches of 1,000 through the "
          f"first instance, best of {runs}; the tenant's event stream read from the last instance meanwhile; the CPU "
          f"seconds transferd (every instance) and PostgreSQL used in the best run, and the least wall time that CPU "
          f"allows on this machine's {os.cpu_count()} cores; the coordination in the best run: claim statements and "
          f"transfer attempts per task, lease renewal statements (every instance's /metrics)")
    baseline = results["SQLite, 1 instance"]
    print(f"{'setup':<20} {'seconds':>8} {'per s':>8} {'x SQLite':>9} {'stream p99 ms':>14} {'CPU transferd':>14} "
          f"{'CPU PostgreSQL':>15} {'CPU floor s':>12} {'claims/task':>12} {'attempts/task':>14} {'renewals':>9}")
    for name, seconds in results.items():
        p99 = max(STREAM_P99.get(instances, [0])) if (instances := INSTANCES.get(name)) else None
        stream = f"{p99:14.0f}" if p99 is not None else f"{'':>14}"
        cpu = CPU.get(instances, {}).get(seconds) if instances else None
        usage = f" {cpu[0]:14.2f} {cpu[1]:15.2f} {(cpu[0] + cpu[1]) / os.cpu_count():12.2f}" if cpu else ""
        counts = COORDINATION.get(instances, {}).get(seconds) if instances else None
        coordination = (f" {counts['claim'] / count:12.2f} {counts['attempts'] / count:14.2f} {counts['renew']:9.0f}"
                        if counts else "")
        print(f"{name:<20} {seconds:8.2f} {count / seconds:8.0f} {seconds / baseline:9.2f} {stream}{usage}{coordination}")
    return results


# The worst p99 of the tenant stream's delay in each run, by the run's setup.
STREAM_P99 = {}
# The CPU seconds of transferd and of PostgreSQL in each run, by the run's setup and then its wall time.
CPU = {}
# Every instance's claim and renewal statements and transfer attempts in each run, by the run's setup and then its
# wall time.
COORDINATION = {}
INSTANCES = {"SQLite, 1 instance": "sqlite", "PostgreSQL, 1": 1, "PostgreSQL, 2": 2, "PostgreSQL, 3": 3}


class StreamReader:
    """Reads the tenant's event stream (`GET /v1/events`, Server-Sent Events) and notes, for each event, how long
    after its `createdAt` it arrived."""

    def __init__(self, port):
        self.delays = []
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=300)
        self.connection.request("GET", "/v1/events?after=now", headers={"Accept": "text/event-stream", "Authorization": f"Bearer {API_KEY}"})
        self.response = self.connection.getresponse()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.response:
                if line.startswith(b"data:"):
                    created = json.loads(line[5:])["createdAt"].replace("Z", "+00:00")
                    self.delays.append((time.time() - datetime.fromisoformat(created).timestamp()) * 1000)
        except (OSError, ValueError, AttributeError, http.client.HTTPException):  # closed under it at the end
            return

    def p99(self):
        self.connection.close()
        return statistics.quantiles(self.delays, n=100)[98] if len(self.delays) >= 100 else None


def transferd_instances(binary, workdir, urls, database, instances, cluster=None):
    options = ["--worker-concurrency", str(CONCURRENCY), *NO_LIMITS]
    if database:
        options += ["--database-url", database]
    started = []
    try:
        for number in range(instances):
            started.append(start_transferd(binary, workdir, *options, "--instance-id", f"i{number + 1}",
                                           fresh=number == 0, name=f"transferd-{number + 1}"))
        client = Client(started[0][1])
        client.call("PUT", "/v1/sessions/small", {"configuration": {"maximumConnectionsPerHost": CONCURRENCY * instances}})
        stream = StreamReader(started[-1][1])
        used = lambda: (sum(cpu_seconds(process.pid) for process, _ in started), cluster.cpu_seconds() if cluster else 0.0)  # noqa: E731
        cpu_before = used()
        start = time.monotonic()
        for first in range(0, len(urls), 1000):
            client.call("POST", "/v1/sessions/small/tasks", {"tasks": [{"kind": "download", "url": url} for url in urls[first:first + 1000]]})
        while client.call("GET", "/v1/sessions/small")["taskCounts"]["completed"] < len(urls):
            time.sleep(0.01)
        elapsed = time.monotonic() - start
        cpu_after = used()
        CPU.setdefault(instances if database else "sqlite", {})[elapsed] = (cpu_after[0] - cpu_before[0], cpu_after[1] - cpu_before[1])
        COORDINATION.setdefault(instances if database else "sqlite", {})[elapsed] = coordination([port for _, port in started])
        client.close()
        p99 = stream.p99()
        if p99 is not None:
            STREAM_P99.setdefault(instances if database else "sqlite", []).append(p99)
        return elapsed
    finally:
        for process, _ in started:
            stop_transferd(process)


def coordination(ports):
    """The claim and renewal statements and the transfer attempts of every instance, summed, from their /metrics."""
    wanted = {
        'transferd_database_statements_total{transaction="claim"}': "claim",
        'transferd_database_statements_total{transaction="renew"}': "renew",
    }
    totals = {"claim": 0.0, "renew": 0.0, "attempts": 0.0}
    for port in ports:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=30) as response:
            for line in response.read().decode().splitlines():
                name, _, value = line.rpartition(" ")
                if name in wanted:
                    totals[wanted[name]] += float(value)
                elif name.startswith("transferd_transfer_attempts_total"):
                    totals["attempts"] += float(value)
    return totals


class PostgresCluster:
    """A PostgreSQL server of the benchmark's own on a free loopback port, from Debian's packages."""

    def __init__(self, workdir, name="postgres", reuse=False):
        """A new cluster in `workdir/name`; with `reuse`, the one an earlier run left there, if any."""
        versions = sorted(int(name) for name in os.listdir("/usr/lib/postgresql") if name.isdigit())
        if not versions:
            sys.exit("PostgreSQL is needed: apt-get install postgresql")
        self.bin = f"/usr/lib/postgresql/{versions[-1]}/bin"
        self.directory = os.path.join(workdir, name)
        existing = reuse and os.path.exists(f"{self.directory}/data")
        if not existing:
            os.makedirs(self.directory)
        if os.getuid() == 0:
            os.chmod(workdir, 0o755)  # the postgres user passes through it to its own directory
            subprocess.run(["chown", "postgres", self.directory], check=True)
        with socket.create_server(("127.0.0.1", 0)) as probe:
            self.port = probe.getsockname()[1]
        if not existing:
            self.run("initdb", "-D", f"{self.directory}/data", "-U", "postgres", "--auth=trust")
        self.run("pg_ctl", "-D", f"{self.directory}/data", "-l", f"{self.directory}/log", "-w", "start",
                 "-o", f"-h 127.0.0.1 -p {self.port} -k {self.directory} -c max_connections=200")

    def run(self, program, *arguments):
        argv = [f"{self.bin}/{program}", *arguments]
        if os.getuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        subprocess.run(argv, check=True, stdout=subprocess.DEVNULL)

    def create_database(self, name, exist_ok=False):
        argv = [f"{self.bin}/createdb", "-h", "127.0.0.1", "-p", str(self.port), "-U", "postgres", name]
        if os.getuid() == 0:
            argv = ["runuser", "-u", "postgres", "--", *argv]
        created = subprocess.run(argv, capture_output=True, text=True)
        if created.returncode != 0 and not (exist_ok and "already exists" in created.stderr):
            sys.exit(created.stderr)
        return f"postgres://postgres@127.0.0.1:{self.port}/{name}?sslmode=disable"

    def cpu_seconds(self):
        """The CPU time the server has used: its postmaster's, its backends' that have ended, and its live processes'."""
        postmaster = int(open(f"{self.directory}/data/postmaster.pid").readline())
        children = [int(name) for name in os.listdir("/proc") if name.isdigit() and self._parent(name) == postmaster]
        return cpu_seconds(postmaster, reaped_children=True) + sum(self._cpu(child) for child in children)

    @staticmethod
    def _cpu(pid):
        try:
            return cpu_seconds(pid)
        except (OSError, ValueError, IndexError):  # it ended meanwhile; its time is its parent's now
            return 0.0

    @staticmethod
    def _parent(pid):
        try:
            return int(open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()[1])
        except (OSError, ValueError, IndexError):
            return None

    def stop(self):
        self.run("pg_ctl", "-D", f"{self.directory}/data", "-m", "fast", "stop")
