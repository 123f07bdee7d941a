"""A restart with many unfinished tasks: how soon transferd is ready, and how soon it transfers again."""
import signal
import time
import urllib.request

from .common import NO_LIMITS, Client, start_transferd
from .origin import StallingOrigin


def restart_benchmark(binary, workdir, unfinished):
    """Queues `unfinished` tasks against an origin that never answers, kills transferd with SIGKILL, starts it again
    on the same data directory, and times from the start of the new process to its first `/readyz` 200 and to the
    first connection of a transfer at the origin."""
    origin = StallingOrigin()
    process, port = start_transferd(binary, workdir, *NO_LIMITS)
    client = Client(port)
    url = f"http://127.0.0.1:{origin.port}/stalled"
    client.call("PUT", "/v1/sessions/restart")
    for _ in range(unfinished // 1000):
        client.call("POST", "/v1/sessions/restart/tasks", {"tasks": [{"kind": "download", "url": url}] * 1000})
    client.close()
    process.send_signal(signal.SIGKILL)
    process.wait()

    origin.arrivals.clear()
    start = time.monotonic()
    process, port = start_transferd(binary, workdir, *NO_LIMITS, fresh=False)
    try:
        ready = None
        while ready is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/readyz", timeout=10) as response:
                    if response.status == 200:
                        ready = time.monotonic() - start
            except OSError:
                time.sleep(0.002)
        while not origin.arrivals:
            time.sleep(0.002)
        first_transfer = origin.arrivals[0] - start
    finally:
        process.terminate()
        process.wait(timeout=60)
        origin.close()

    print(f"\nRestart after SIGKILL with {unfinished:,} unfinished tasks, from the new process's start")
    print(f"{'moment':<24} {'seconds':>8} {'target':>7}")
    print(f"{'/readyz answers 200':<24} {ready:8.3f} {2:7.1f}")
    print(f"{'first transfer begins':<24} {first_transfer:8.3f} {2:7.1f}")
    return ready, first_transfer
