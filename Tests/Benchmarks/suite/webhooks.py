"""Webhooks: how many deliveries a second reach a local receiver, and how long after their event was written."""
import asyncio
import contextlib
import json
import statistics
import subprocess
import threading
import time
from datetime import datetime

from .common import NO_LIMITS, Client, reference_binary, start_transferd, stop_transferd
from .origin import Nginx
from .scaleout import PostgresCluster


class Receiver:
    """An HTTP/1.1 keep-alive receiver on asyncio that answers every POST 204 at once and notes when each body
    arrived (wall clock, as the payloads' timestamps are); while `refusal` is set, it answers that instead (a status
    line and headers) and notes nothing."""

    def __init__(self):
        self.arrivals = []
        self.refusal = None
        self.ready = threading.Event()
        threading.Thread(target=lambda: asyncio.run(self._serve()), daemon=True).start()
        self.ready.wait()

    async def _serve(self):
        server = await asyncio.start_server(self._connection, "127.0.0.1", 0)
        self.port = server.sockets[0].getsockname()[1]
        self.ready.set()
        await server.serve_forever()

    async def _connection(self, reader, writer):
        try:
            while True:
                head = await reader.readuntil(b"\r\n\r\n")
                length = next(
                    int(line.split(b":", 1)[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
                )
                body = await reader.readexactly(length)
                if self.refusal:
                    writer.write(self.refusal)
                    continue
                self.arrivals.append((time.time(), body))
                writer.write(b"HTTP/1.1 204 No Content\r\n\r\n")
        except (asyncio.IncompleteReadError, ConnectionError):
            writer.close()


def webhooks_benchmark(binary, workdir, sessions, events_per_session, paced_events=500, pace_per_second=250):
    """`sessions` sessions subscribed to one receiver, on one instance over SQLite and over PostgreSQL (a cluster of
    the benchmark's own), side by side.

    Throughput: each session gets `events_per_session` tasks created in one batch (one `task.created` event each),
    a backlog; deliveries a second from the first creation to the last arrival.
    Latency: then `paced_events` tasks are created one `POST` at a time, round robin over the sessions, at
    `pace_per_second`, below the throughput; the time from each event's timestamp to its arrival.
    """
    cluster = PostgresCluster(workdir, name="postgres-webhooks")
    try:
        results = {
            store: delivered(binary, workdir, options, sessions, events_per_session, paced_events, pace_per_second)
            for store, options in (("SQLite", []), ("PostgreSQL", ["--database-url", cluster.create_database("webhooks")]))
        }
    finally:
        cluster.stop()
    backlog = sessions * events_per_session
    print(f"\nWebhooks: {sessions} sessions, one local receiver, one instance")
    print(f"{'figure':<46} {'SQLite':>9} {'PostgreSQL':>11} {'target':>8}")
    rows = (
        (f"deliveries a second, a backlog of {backlog:,}", 0, 0, 1500),
        (f"event to delivery p50 ms, {pace_per_second} events/s", 1, 1, 20),
        (f"event to delivery p99 ms, {pace_per_second} events/s", 2, 1, ""),
    )
    for name, index, decimals, target in rows:
        sqlite, postgres = results["SQLite"][index], results["PostgreSQL"][index]
        print(f"{name:<46} {sqlite:9.{decimals}f} {postgres:11.{decimals}f} {target:>8}")
    print(f"{'every session delivered in order':<46} {str(results['SQLite'][3]):>9} {str(results['PostgreSQL'][3]):>11}")
    rate, cpu = reference_to_nginx(workdir, sessions, events_per_session)
    print(f"{'the webhook reference to nginx: AsyncHTTPClient alone, /s':<46} {rate:9.0f} ({cpu:.0f} µs of CPU a delivery)")
    retry_after, silent = (recovered(binary, workdir, sessions, headers) for headers in (b"Retry-After: 1\r\n", b""))
    print(f"\nWebhooks after a 20 s outage: {sessions} sessions × 3 deliveries waiting in the 5-minute retry slot (SQLite)")
    print(f"{'seconds from the subscriber back to the last delivery':<58} {'':>9} {'target':>8}")
    print(f"{'  its 503s said Retry-After: 1':<58} {retry_after:9.1f} {10:>8}")
    print(f"{'  its 503s said nothing (probes at most 10 s apart)':<58} {silent:9.1f} {10:>8}")
    return results


def outage_benchmark(binary, workdir, sessions=100, outages=(20, 600)):
    """The catch-up after a subscriber's outage of each length in `outages` (seconds), its 503s saying nothing: the
    seconds from its answering again until `sessions` sessions' three waiting deliveries each reached it. Probes are
    at most 10 s apart for an outage's first hour (`--webhook-probe-interval`), so the target is 10 s for both."""
    results = {outage: recovered(binary, workdir, sessions, b"", outage=outage) for outage in outages}
    print(f"\nWebhooks after an outage whose 503s said nothing: {sessions} sessions × 3 deliveries waiting (SQLite)")
    print(f"{'outage':<10} {'seconds from the subscriber back to the last delivery':>54} {'target':>8}")
    for outage, seconds in results.items():
        print(f"{outage:>8} s {seconds:54.1f} {10:>8}")
    return results


def recovered(binary, workdir, sessions, headers, outage=20):
    """Seconds from a subscriber that answered 503 (with `headers`) for `outage` seconds answering 204 again until
    each of `sessions` sessions' three waiting deliveries reached it, on one instance over SQLite with Svix's schedule."""
    receiver = Receiver()
    receiver.refusal = b"HTTP/1.1 503 Service Unavailable\r\n" + headers + b"Content-Length: 0\r\n\r\n"
    process, port = start_transferd(binary, workdir, *NO_LIMITS)
    client = Client(port)
    try:
        hook = {"url": f"http://127.0.0.1:{receiver.port}/hook"}
        for number in range(sessions):
            client.call("PUT", f"/v1/sessions/down-{number}", {"configuration": {"webhook": hook}})
            client.call("POST", f"/v1/sessions/down-{number}/tasks", {"tasks": [NEVER] * 3})
        time.sleep(outage)
        receiver.refusal = None
        back = time.monotonic()
        _wait_for(receiver, sessions * 3, back)
        return time.monotonic() - back
    finally:
        client.close()
        stop_transferd(process)


def delivered(binary, workdir, options, sessions, events_per_session, paced_events, pace_per_second):
    """(deliveries a second, p50 ms, p99 ms, in order) on one instance started with `options`."""
    receiver = Receiver()
    process, port = start_transferd(binary, workdir, *NO_LIMITS, *options)
    client = Client(port)
    try:
        backlog = sessions * events_per_session
        start = _backlog(client, receiver.port, sessions, events_per_session)
        _wait_for(receiver, backlog, start)
        elapsed = time.monotonic() - start

        paced_start = time.monotonic()
        for index in range(paced_events):
            time.sleep(max(0.0, paced_start + index / pace_per_second - time.monotonic()))
            client.call("POST", f"/v1/sessions/hooks-{index % sessions}/tasks", NEVER)
        _wait_for(receiver, backlog + paced_events, paced_start)
    finally:
        client.close()
        stop_transferd(process)

    order = {}
    for _, body in receiver.arrivals:
        data = json.loads(body)["data"]
        order.setdefault(data["sessionIdentifier"], []).append(data["sequence"])
    in_order = all(sequences == sorted(sequences) for sequences in order.values())
    latencies = []
    for arrived, body in receiver.arrivals[backlog:]:
        written = datetime.fromisoformat(json.loads(body)["timestamp"].replace("Z", "+00:00")).timestamp()
        latencies.append((arrived - written) * 1000)
    quantiles = statistics.quantiles(latencies, n=100)
    return backlog / elapsed, quantiles[49], quantiles[98], in_order


def delivered_to_nginx(binary, workdir, sessions, events_per_session, backlog_first=False):
    """Deliveries a second of a backlog of `sessions` × `events_per_session` events to nginx, which answers each at
    once (the Python receiver above is itself a bound past about 2,000 a second), on one instance over SQLite. The
    time runs from the first creation, so that the creations share the machine with the first deliveries; with
    `backlog_first`, nginx is paused while the backlog is written and the time runs from when it resumes: the
    deliveries alone."""
    nginx = Nginx(workdir, workdir, hooks=True)
    process, port = start_transferd(binary, workdir, *NO_LIMITS)
    client = Client(port)
    try:
        backlog = sessions * events_per_session
        with nginx.paused() if backlog_first else contextlib.nullcontext():
            start = _backlog(client, nginx.port, sessions, events_per_session)
        start = time.monotonic() if backlog_first else start
        return backlog / wait_for_nginx(nginx, backlog, start)
    finally:
        client.close()
        stop_transferd(process)
        nginx.close()


def reference_to_nginx(workdir, sessions, events_per_session):
    """The webhook reference's deliveries a second to nginx and its CPU microseconds a delivery: `sessions` senders
    POSTing `events_per_session` signed payloads each, one in flight per session, through AsyncHTTPClient alone."""
    binary = reference_binary("webhook-reference")
    nginx = Nginx(workdir, workdir, hooks=True)
    try:
        out = subprocess.run(
            [binary, f"http://127.0.0.1:{nginx.port}/hook", str(sessions), str(events_per_session)],
            capture_output=True, text=True, check=True,
        )
        rate, cpu = out.stdout.split()
        return float(rate), float(cpu)
    finally:
        nginx.close()


def wait_for_nginx(nginx, count, start):
    """Seconds from `start` until `nginx` has received `count` webhooks (at most 300)."""
    while nginx.hooks_received() < count:
        if time.monotonic() - start > 300:
            raise SystemExit(f"only {nginx.hooks_received()} of {count} deliveries reached nginx in 300 s")
        time.sleep(0.01)
    return time.monotonic() - start


NEVER = {"kind": "download", "url": "http://127.0.0.1:9/never", "start": False}


def _backlog(client, port, sessions, events_per_session):
    """Subscribes `sessions` sessions to the receiver on `port`, then writes each `events_per_session` events (a
    batch of suspended tasks); returns when the first batch began."""
    hook = {"url": f"http://127.0.0.1:{port}/hook"}
    for number in range(sessions):
        client.call("PUT", f"/v1/sessions/hooks-{number}", {"configuration": {"webhook": hook}})
    start = time.monotonic()
    for number in range(sessions):
        client.call("POST", f"/v1/sessions/hooks-{number}/tasks", {"tasks": [NEVER] * events_per_session})
    return start


def _wait_for(receiver, count, start):
    while len(receiver.arrivals) < count:
        if time.monotonic() - start > 300:
            raise SystemExit(f"only {len(receiver.arrivals)} of {count} deliveries arrived in 300 s")
        time.sleep(0.005)
