"""Background fetch: what 10,000 schedules at a 60 s interval cost while none is due, and what a round of their
conditional runs costs beside curl making the same conditional requests."""
import datetime
import os
import resource
import subprocess
import time

from .common import NO_LIMITS, Client, cpu_seconds, resident_kib, start_transferd, stop_transferd
from .origin import Nginx


def fetches_benchmark(binary, workdir, schedules=10_000, idle_seconds=60):
    """Creates `schedules` schedules whose window opens hours from now and measures transferd's CPU over
    `idle_seconds`; then `schedules` schedules due at once against nginx, and times their second round (every run a
    `304`, `noData`) beside `curl --parallel` sending the same `If-None-Match` requests."""
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

        # Due: every schedule runs at once, then again a minute later, when the origin answers 304.
        client.call("PUT", "/v1/sessions/due", {"configuration": {"maximumConnectionsPerHost": 16}})
        performed = _Performed(client)
        created = time.monotonic()
        for number in range(schedules):
            client.call("POST", "/v1/sessions/due/fetches", {"url": f"{url}?due={number}", "interval": 60})
        first_round = performed.wait("newData", schedules) - created
        second_start = created + 60
        while time.monotonic() < second_start:
            time.sleep(0.05)
        before = cpu_seconds(process.pid)
        second_round = performed.wait("noData", schedules) - second_start
        round_cpu = cpu_seconds(process.pid) - before
        client.close()
        stop_transferd(process)
        # curl alone on the machine, as transferd was.
        curl_seconds, curl_cpu = _curl_round(url, _etag(url), schedules, workdir)
    finally:
        client.close()
        if process.poll() is None:
            stop_transferd(process)
        nginx.close()

    print(f"\nBackground fetch: {schedules:,} schedules at a 60 s interval, over SQLite")
    print(f"{'measure':<48} {'value':>10} {'target':>8}")
    print(f"{'CPU while none is due (% of one core)':<48} {idle_cpu:10.2f} {'< 5':>8}")
    print(f"{'resident memory (MiB)':<48} {idle_rss:10.0f}")
    print(f"{'first round, every run newData (s, from the first POST)':<48} {first_round:10.1f}")
    print(f"\nA round of {schedules:,} conditional requests answered 304, beside curl")
    print(f"{'client':<40} {'seconds':>8} {'CPU s':>8} {'ratio':>6}")
    print(f"{'curl --parallel --parallel-max 16':<40} {curl_seconds:8.2f} {curl_cpu:8.2f} {1:6.2f}")
    print(f"{'transferd (runs judged noData)':<40} {second_round:8.2f} {round_cpu:8.2f} {second_round / curl_seconds:6.2f}")
    return idle_cpu, second_round, curl_seconds


class _Performed:
    """The `fetch.performed` events of session `due` so far, counted by result as they are read from its log."""

    def __init__(self, client):
        self.client, self.after, self.counts = client, 0, {}

    def wait(self, result, count):
        """When `count` runs have given `result`."""
        while self.counts.get(result, 0) < count:
            page = self.client.call("GET", f"/v1/sessions/due/events?after={self.after}&limit=1000&wait=1")
            for event in page["items"]:
                if event["type"] == "fetch.performed":
                    self.counts[event["data"]["result"]] = self.counts.get(event["data"]["result"], 0) + 1
            self.after = page["nextAfter"]
        return time.monotonic()


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
    subprocess.run(["curl", "-s", "--parallel", "--parallel-max", "16", "-K", config], check=True)
    seconds = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    return seconds, (after.ru_utime + after.ru_stime) - (before.ru_utime + before.ru_stime)
