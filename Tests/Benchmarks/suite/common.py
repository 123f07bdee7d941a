"""What every benchmark needs: transferd processes, the API, peak memory, wrk."""
import functools
import http.client
import json
import os
import shutil
import subprocess
import sys
import time
import urllib.request


REFERENCE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "Reference")


@functools.cache
def reference_binary(name):
    """The executable `name` of the references' package (Tests/Benchmarks/Reference), built in release mode, once a
    run: each round of --baseline asks for it again."""
    build = subprocess.run(["swift", "build", "-c", "release", "--product", name], cwd=REFERENCE, capture_output=True, text=True)
    if build.returncode != 0:
        sys.exit(build.stdout + build.stderr)
    return os.path.join(REFERENCE, ".build", "release", name)


def timed_child(argv):
    """Runs a command; returns (seconds, peak resident KiB).

    The peak is sampled from /proc rather than taken from rusage, whose maxrss would include this Python
    process's own memory, inherited by the child until it calls exec.
    """
    start = time.monotonic()
    process = subprocess.Popen(argv, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    peak = 0
    while process.poll() is None:
        try:
            peak = max(peak, peak_rss_kib(process.pid))
        except (FileNotFoundError, ProcessLookupError):
            break
        time.sleep(0.005)
    elapsed = time.monotonic() - start
    if process.wait() != 0:
        sys.exit(f"{argv[0]} failed with status {process.returncode}")
    return elapsed, peak


def write_random_file(path, size_mib):
    """A file of `size_mib` MiB of random bytes (one random MiB repeated), for origins to serve."""
    with open(path, "wb") as file:
        chunk = os.urandom(1 << 20)
        for _ in range(size_mib):
            file.write(chunk)


def api(port, method, path, body=None, headers=None):
    data = json.dumps(body).encode() if body is not None else None
    request = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method)
    request.add_header("Content-Type", "application/json")
    for name, value in (headers or {}).items():
        request.add_header(name, value)
    with urllib.request.urlopen(request, timeout=60) as response:
        return json.loads(response.read() or b"{}")


def cpu_seconds(pid, reaped_children=False):
    """The CPU time (user and system) the process has used; with `reaped_children`, also that of its children that
    have exited and been waited for (a PostgreSQL server's backends of closed connections)."""
    fields = open(f"/proc/{pid}/stat").read().rsplit(")", 1)[1].split()
    ticks = int(fields[11]) + int(fields[12]) + (int(fields[13]) + int(fields[14]) if reaped_children else 0)
    return ticks / os.sysconf("SC_CLK_TCK")


def peak_rss_kib(pid):
    """The process's resident high-water mark."""
    return _status_kib(pid, "VmHWM:")


def resident_kib(pid):
    """The process's resident memory now."""
    return _status_kib(pid, "VmRSS:")


def _status_kib(pid, field):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith(field):
                return int(line.split()[1])
    return 0


API_KEY = "trd_00000000000000be_" + "cd" * 32

# Limits lifted, so that a benchmark measures speed rather than the limits that protect a shared service.
NO_LIMITS = ("--rate-limit", "1000000", "--max-tasks-per-session", "10000000", "--max-queued-tasks-per-tenant", "10000000")


class Client:
    """One keep-alive connection to transferd's API, as a client submitting many requests would hold."""

    def __init__(self, port):
        self.connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)

    def call(self, method, path, body=None):
        headers = {"Content-Type": "application/json", "Authorization": f"Bearer {API_KEY}"}
        self.connection.request(method, path, json.dumps(body) if body is not None else None, headers)
        response = self.connection.getresponse()
        data = response.read()
        if response.status >= 300:
            sys.exit(f"{method} {path}: {response.status} {data.decode()}")
        return json.loads(data or b"{}")

    def close(self):
        self.connection.close()


def start_transferd(binary, workdir, *options, authenticated=False, fresh=True, name="transferd"):
    """A transferd on a free port with the data directory of `workdir` (emptied first when `fresh`), logging to
    `workdir/<name>.log`; returns the process and its port."""
    data = os.path.join(workdir, "transferd-data")
    if fresh:
        shutil.rmtree(data, ignore_errors=True)
    log = open(os.path.join(workdir, f"{name}.log"), "w")
    argv = [binary, "serve", "--port", "0", "--data-dir", data, "--allow-destination", "127.0.0.0/8", *options]
    if not authenticated:
        argv.append("--no-auth")
    environment = dict(os.environ, TRANSFERD_API_KEY=API_KEY)
    process = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, env=environment)
    for _ in range(2000):
        text = open(log.name).read()
        if "listening on 127.0.0.1:" in text:
            return process, int(text.split("listening on 127.0.0.1:")[1].split()[0])
        time.sleep(0.005)
    process.kill()
    sys.exit("transferd did not start:\n" + open(log.name).read())


def stop_transferd(process):
    process.terminate()
    process.wait(timeout=60)


def wrk(url, seconds, script=None):
    """Requests a second and p99 latency (ms) of `wrk -t2 -c32` against `url`, authenticated."""
    argv = ["wrk", "-t2", "-c32", f"-d{seconds}s", "--latency", "-H", f"Authorization: Bearer {API_KEY}", url]
    if script:
        argv[1:1] = ["-s", script]
    output = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    rate = float(output.split("Requests/sec:")[1].split()[0])
    p99 = next(line.split()[1] for line in output.splitlines() if line.strip().startswith("99%"))
    value = float(p99.rstrip("msu"))
    millis = value / 1000 if p99.endswith("us") else value * 1000 if p99.endswith("s") and not p99.endswith("ms") else value
    non2xx = int(output.split("Non-2xx or 3xx responses:")[1].split()[0]) if "Non-2xx" in output else 0
    if non2xx:
        sys.exit(f"wrk saw {non2xx} answers that were not 2xx from {url}")
    return rate, millis
