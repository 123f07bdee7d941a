"""A deep queue: the API's latency and transferd's memory with 100,000 tasks waiting beside an idle queue."""
import time

from .common import NO_LIMITS, Client, resident_kib, start_transferd, stop_transferd, wrk
from .origin import StallingOrigin


def queue_benchmark(binary, workdir, seconds, depth):
    """One transferd whose session runs one transfer at a time against an origin that never answers: the API under
    wrk with an empty queue, then again once `depth` more tasks wait behind that transfer; and the resident memory
    of both moments."""
    origin = StallingOrigin()
    process, port = start_transferd(binary, workdir, *NO_LIMITS, authenticated=True)
    client = Client(port)
    base = f"http://127.0.0.1:{port}/v1/sessions/queue"
    try:
        client.call("PUT", "/v1/sessions/queue", {"configuration": {"maximumConnectionsPerHost": 1}})
        url = f"http://127.0.0.1:{origin.port}/stalled"
        client.call("POST", "/v1/sessions/queue/tasks", {"kind": "download", "url": url})
        while not origin.arrivals:
            time.sleep(0.01)
        # The same page in both moments: the first event.
        routes = {"GET task": f"{base}/tasks/1", "GET session": base, "GET events": f"{base}/events?after=0&limit=1"}
        before = {name: wrk(route, seconds) for name, route in routes.items()}
        memory_before = resident_kib(process.pid)

        start = time.monotonic()
        for _ in range(depth // 1000):
            client.call("POST", "/v1/sessions/queue/tasks", {"tasks": [{"kind": "download", "url": url}] * 1000})
        queued_in = time.monotonic() - start
        counts = client.call("GET", "/v1/sessions/queue")["taskCounts"]
        after = {name: wrk(route, seconds) for name, route in routes.items()}
        memory_after = resident_kib(process.pid)
    finally:
        client.close()
        stop_transferd(process)
        origin.close()

    print(f"\nA deep queue: {counts['running']:,} tasks running or queued (queued in {queued_in:.1f} s by batches of 1,000),"
          f" one transferring; wrk -t2 -c32 for {seconds} s each")
    print(f"{'route':<13} {'req/s idle':>11} {'req/s deep':>11} {'p99 ms idle':>12} {'p99 ms deep':>12} {'x idle':>7}")
    for name in routes:
        (rate, p99), (deep_rate, deep_p99) = before[name], after[name]
        print(f"{name:<13} {rate:11.0f} {deep_rate:11.0f} {p99:12.2f} {deep_p99:12.2f} {deep_rate / rate:7.2f}")
    print(f"{'RSS MiB':<13} {memory_before / 1024:11.1f} {memory_after / 1024:11.1f}")
    return before, after, memory_after
