"""Background fetch: what 10,000 schedules at a 60 s interval cost while none is due, and how many of their
conditional runs transferd makes a second, at what CPU each beside curl making the same conditional requests."""
import datetime
import os
import resource
import subprocess
import time

from .common import NO_LIMITS, Client, cpu_seconds, resident_kib, start_transferd, stop_transferd
from .origin import Nginx


def fetches_benchmark(binary, workdir, schedules=10_000, idle_seconds=60, measured_seconds=60):
    """Creates `schedules` schedules whose window opens hours from now and measures transferd's CPU over
    `idle_seconds`; then `schedules` schedules due every minute against nginx (every run after the first a `304`,
    `noData`): the runs a second over `measured_seconds`, and their CPU beside `curl --parallel` sending as many
    `If-None-Match` requests."""
    root = os.path.join(workdir, "feeds")
    os.makedirs(root, exist_ok=True)
    with open(os.path.join(root, "feed.json"), "wb") as file:
        file.write(os.urandom(1024))
    nginx = Nginx(root, workdir)
    url = f"http://127.0.0.1:{nginx.port}/feed.json"
    process, port = start_transferd(binary, workdir, *NO_LIMITS, "--max-fetches-per-session", str(schedules))
    client = Client(port)
    try:
        # Idle: every schedule waits for a window that opens in six hours.
        now = datetime.datetime.now(datetime.timezone.utc)
        opens, closes = now + datetime.timedelta(hours=6), now + datetime.timedelta(hours=7)
        window = f"{opens:%H:%M}-{closes:%H:%M}"
        client.call("PUT", "/v1/sessions/idle")
        for number in range(schedules):
            client.call("POST", "/v1/sessions/idle/fetches", {"url": f"{url}?idle={number}", "interval": 60, "window": window})
        client.close()
        time.sleep(2)
        before = cpu_seconds(process.pid)
        time.sleep(idle_seconds)
        idle_cpu = (cpu_seconds(process.pid) - before) / idle_seconds * 100
        idle_rss = resident_kib(process.pid) / 1024

        # (The API closed the idle connection meanwhile.)
        client = Client(port)

        # Due: every schedule runs at once and then every minute against nginx, which answers 304 from the second run
        # on. After two minutes of that, a minute is measured: the runs completed, and the CPU they took.
        client.call("PUT", "/v1/sessions/due", {"configuration": {"maximumConnectionsPerHost": 16}})
        for number in range(schedules):
            client.call("POST", "/v1/sessions/due/fetches", {"url": f"{url}?due={number}", "interval": 60})
        client.close()
        time.sleep(120)
        completed, cpu = _completed(port), cpu_seconds(process.pid)
        time.sleep(measured_seconds)
        runs = _completed(port) - completed
        run_cpu = cpu_seconds(process.pid) - cpu
        rate = runs / measured_seconds
        print(f"\nBackground fetch: {schedules:,} schedules at a 60 s interval, over SQLite")
        print(f"{'measure':<56} {'value':>10} {'target':>8}")
        print(f"{'CPU while none is due (% of one core)':<56} {idle_cpu:10.2f} {'< 5':>8}")
        print(f"{'resident memory (MiB)':<56} {idle_rss:10.0f}")
        print(f"{'runs a second, all due every 60 s (a minute measured)':<56} {rate:10.1f} {schedules / 60:8.1f}")
        client.close()
        started = time.monotonic()
        try:
            stop_transferd(process)
            print(f"{'graceful stop (s)':<56} {time.monotonic() - started:10.1f}")
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
            print(f"{'graceful stop (s)':<56} {'over 60':>10}")
        # curl alone on the machine, as transferd was.
        curl_seconds, curl_cpu = _curl_round(url, _etag(url), schedules, workdir)
    finally:
        client.close()
        if process.poll() is None:
            stop_transferd(process)
        nginx.close()

    print("\nConditional requests answered 304: CPU milliseconds each, beside curl")
    print(f"{'client':<48} {'requests':>9} {'CPU ms each':>12} {'ratio':>6}")
    curl_each = curl_cpu / schedules * 1000
    print(f"{'curl --parallel --parallel-max 16':<48} {schedules:9,} {curl_each:12.3f} {1:6.2f}")
    run_each = run_cpu / max(runs, 1) * 1000
    print(f"{'transferd, a fetch run each (task, events, judging)':<48} {runs:9,} {run_each:12.3f} {run_each / curl_each:6.1f}")
    return idle_cpu, rate, run_each, curl_each


def _completed(port):
    """The completed tasks of session `due`, asked on a connection of its own (the API closes idle ones)."""
    client = Client(port)
    try:
        return client.call("GET", "/v1/sessions/due")["taskCounts"]["completed"]
    finally:
        client.close()


def _etag(url):
    headers = subprocess.run(["curl", "-sI", url], capture_output=True, text=True, check=True).stdout
    return next(line.split(":", 1)[1].strip() for line in headers.splitlines() if line.lower().startswith("etag:"))


def _curl_round(url, etag, count, workdir):
    """Seconds and CPU seconds of one curl fetching `url` `count` times with `If-None-Match`, 16 at a time."""
    config = os.path.join(workdir, "curl-round.conf")
    with open(config, "w") as file:
        file.write(f'header = "If-None-Match: {etag}"\n')
        for number in range(count):
            file.write(f'url = "{url}?due={number}"\noutput = "/dev/null"\n')
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    subprocess.run(["curl", "-s", "--no-progress-meter", "--parallel", "--parallel-max", "16", "-K", config], check=True)
    seconds = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
