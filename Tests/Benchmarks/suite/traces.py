"""What tracing costs: the API and small downloads with tracing off and on (every trace sampled, exported over
OTLP/HTTP to a sink that reads each batch and drops it), the two in turns."""
import http.server
import os
import statistics
import threading

from .api import api_benchmark
from .small import serve_small_files, transferd as small_downloads

ROUTES = ("GET /healthz", "GET task", "POST task")


class OTLPSink:
    """An OTLP/HTTP receiver that answers every export with an empty `ExportTraceServiceResponse` (no bytes, which
    protobuf reads as the empty message) and counts the bytes: the collector's work is not what is measured."""

    def __init__(self):
        received = self.received = [0]

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                received[0] += len(self.rfile.read(int(self.headers.get("content-length", "0"))))
                self.send_response(200)
                self.send_header("content-type", "application/x-protobuf")
                self.send_header("content-length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        threading.Thread(target=self.server.serve_forever, daemon=True).start()
        self.endpoint = f"http://127.0.0.1:{self.server.server_address[1]}"

    def close(self):
        self.server.shutdown()


def traces_benchmark(binary, workdir, seconds, rounds, downloads=500):
    """For tracing off and on, in turns, `rounds` times: the API's rates (wrk, as `api` measures them) and the
    seconds of `downloads` small downloads of 256 KiB, one `POST` each; the medians and on's ratio to off."""
    sink = OTLPSink()
    origin, urls = serve_small_files(workdir, downloads, 256)
    settings = {"off": [], "on": ["--otlp-endpoint", sink.endpoint]}
    figures = {setting: {route: [] for route in ROUTES + ("downloads",)} for setting in settings}
    try:
        for round in range(rounds):
            for setting, options in settings.items():
                api = api_benchmark(binary, workdir, seconds, *options)
                for route in ROUTES:
                    figures[setting][route].append(api[route])
                directory = os.path.join(workdir, f"traces-{round}-{setting}")
                os.makedirs(directory)
                figures[setting]["downloads"].append(small_downloads(binary, directory, urls, batch=1, options=options))
    finally:
        origin.close()
        sink.close()
    print(f"\ntracing off and on (every trace sampled, exported to a sink over OTLP/HTTP; {sink.received[0] >> 10} KiB "
          f"exported), medians of {rounds} rounds in turns; the API as `api` measures it, then {downloads} downloads "
          "of 256 KiB, one POST each")
    print(f"{'figure':<16} {'off':>18} {'on':>18} {'on / off':>9}")
    for route in ROUTES:
        off, on = (statistics.median(rate for rate, _, _ in figures[setting][route]) for setting in settings)
        cpu_off, cpu_on = (statistics.median(cpu for _, _, cpu in figures[setting][route]) for setting in settings)
        print(f"{route:<16} {off:10.0f}/s {cpu_off:4.0f} µs {on:10.0f}/s {cpu_on:4.0f} µs {on / off:9.2f}")
    off, on = (statistics.median(figures[setting]["downloads"]) for setting in settings)
    print(f"{'downloads':<16} {off:16.2f} s {on:16.2f} s {off / on:9.2f}")
    return figures
