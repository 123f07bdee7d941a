"""Origins the benchmarks download from: files by sendfile(2) with byte ranges, and a stalling origin."""
import contextlib
import http.server
import os
import signal
import socket
import socketserver
import subprocess
import threading
import time


class SendfileHandler(http.server.SimpleHTTPRequestHandler):
    """Serves files with sendfile(2), so the origin is not what is measured, and honours single byte ranges
    (`Range: bytes=a-b`), so that segmented clients (aria2 -x, transferd `connections`) can split the download."""

    span = None

    def send_head(self):
        self.span = None
        header = self.headers.get("Range", "")
        path = self.translate_path(self.path)
        if not header.startswith("bytes=") or not os.path.isfile(path):
            return super().send_head()
        size = os.path.getsize(path)
        first, _, last = header[6:].partition("-")
        first, last = int(first), min(int(last) if last else size - 1, size - 1)
        source = open(path, "rb")
        self.span = (first, last + 1)
        self.send_response(206)
        self.send_header("Content-Type", "application/octet-stream")
        self.send_header("Content-Range", f"bytes {first}-{last}/{size}")
        self.send_header("Content-Length", str(last + 1 - first))
        self.send_header("Last-Modified", self.date_time_string(int(os.path.getmtime(path))))
        self.send_header("Accept-Ranges", "bytes")
        self.end_headers()
        return source

    def end_headers(self):
        if self.span is None:
            self.send_header("Accept-Ranges", "bytes")
        super().end_headers()

    def do_PUT(self):
        """An upload sink: reads the body and drops it."""
        remaining = int(self.headers.get("content-length", "0"))
        while remaining > 0:
            chunk = self.rfile.read(min(remaining, 1 << 20))
            if not chunk:
                break
            remaining -= len(chunk)
        self.send_response(204)
        self.send_header("content-length", "0")
        self.end_headers()

    def copyfile(self, source, outputfile):
        self.wfile.flush()
        offset, end = self.span or (0, os.fstat(source.fileno()).st_size)
        try:
            while offset < end:
                offset += os.sendfile(self.connection.fileno(), source.fileno(), offset, end - offset)
        except (BrokenPipeError, ConnectionResetError):
            pass  # a segmented client closes the first connection once it has its segment

    def log_message(self, *args):
        pass


class Origin(socketserver.ThreadingMixIn, http.server.HTTPServer):
    daemon_threads = True


def start_origin(directory):
    handler = lambda *args, **kwargs: SendfileHandler(*args, directory=directory, **kwargs)  # noqa: E731
    server = Origin(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server




class StallingOrigin:
    """Accepts connections and never answers, so that the transfers it is asked for stay under way and the rest of
    their queue waits; records when each connection arrived (`time.monotonic()`)."""

    def __init__(self):
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.arrivals = []
        self.connections = []
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                connection, _ = self.listener.accept()
            except OSError:
                return
            self.arrivals.append(time.monotonic())
            self.connections.append(connection)

    def close(self):
        self.listener.close()
        for connection in self.connections:
            connection.close()


class Nginx:
    """nginx serving `directory` on a free loopback port, one worker, without access logs: an origin fast enough that
    the clients, not the origin, are what a benchmark of many requests measures. With `hooks`, it is also a webhook
    receiver: every POST to /hook is answered 204 at once and logged, one line each (`hooks_received`)."""

    CONFIGURATION = """
{user}
worker_processes 1;
pid {prefix}/nginx.pid;
error_log {prefix}/error.log;
events {{ worker_connections 1024; }}
http {{
    access_log off;
    sendfile on;
    keepalive_requests 100000;
    client_body_temp_path {prefix}/body;
    proxy_temp_path {prefix}/proxy;
    fastcgi_temp_path {prefix}/fastcgi;
    uwsgi_temp_path {prefix}/uwsgi;
    scgi_temp_path {prefix}/scgi;
    server {{
        listen 127.0.0.1:{port}{listen};
        root {root};
        {limit}
        {hooks}
    }}
}}
"""

    def __init__(self, directory, workdir, hooks=False, limit_rate=None, name="nginx"):
        """`limit_rate`: the bytes a second each response is held to (nginx's `limit_rate`); `name`: the directory of
        its files under `workdir`, for several at once."""
        prefix = os.path.join(workdir, name)
        self.hooks_log = os.path.join(prefix, "hooks.log")
        self._hooks_read, self._hooks_counted = 0, 0
        os.makedirs(prefix, exist_ok=True)
        # A log left by an earlier nginx in the same directory would count its deliveries as this one's.
        if os.path.exists(self.hooks_log):
            os.remove(self.hooks_log)
        with socket.create_server(("127.0.0.1", 0)) as probe:
            self.port = probe.getsockname()[1]
        configuration = os.path.join(prefix, "nginx.conf")
        with open(configuration, "w") as file:
            # As root, nginx would hand its worker to `nobody`, who may not read a private temporary directory.
            user = "user root;" if os.geteuid() == 0 else ""
            receiver = f"location = /hook {{ access_log {self.hooks_log}; return 204; }}" if hooks else ""
            file.write(self.CONFIGURATION.format(user=user, prefix=prefix, port=self.port, root=directory, hooks=receiver,
                                                   limit=f"limit_rate {limit_rate};" if limit_rate else "",
                                                   # A small send buffer, so that a new request's first bytes do not
                                                   # leave at once, past the rate (loopback's buffers grow to MBs).
                                                   listen=" sndbuf=128k" if limit_rate else ""))
        self.process = subprocess.Popen(["nginx", "-p", prefix, "-c", configuration, "-g", "daemon off;"])
        for _ in range(500):
            try:
                socket.create_connection(("127.0.0.1", self.port)).close()
                return
            except OSError:
                time.sleep(0.01)
        raise SystemExit("nginx did not start; see " + os.path.join(prefix, "error.log"))

    @contextlib.contextmanager
    def paused(self):
        """nginx's worker stopped (SIGSTOP) for the block: connections queue in the kernel, unanswered, until it ends."""
        workers = [int(pid) for pid in subprocess.run(["pgrep", "-P", str(self.process.pid)], capture_output=True, text=True).stdout.split()]
        for pid in workers:
            os.kill(pid, signal.SIGSTOP)
        try:
            yield
        finally:
            for pid in workers:
                os.kill(pid, signal.SIGCONT)

    def hooks_received(self):
        """How many webhook deliveries reached /hook so far: the lines logged since the last call counted on to the
        ones before (reading the whole log at every poll took CPU from the service being measured)."""
        try:
            with open(self.hooks_log, "rb") as file:
                file.seek(self._hooks_read)
                added = file.read()
        except FileNotFoundError:
            return 0
        whole = added[:added.rfind(b"\n") + 1]
        self._hooks_read += len(whole)
        self._hooks_counted += whole.count(b"\n")
        return self._hooks_counted

    def close(self):
        self.process.terminate()
        self.process.wait()
