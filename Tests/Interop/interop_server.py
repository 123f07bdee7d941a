"""What the servers of Tests/Interop share: serving on 127.0.0.1, port 0, after printing the port for the test."""
import signal
from http.server import ThreadingHTTPServer


def serve(handler):
    # A parent that ignores or blocks SIGTERM (as services do, to handle it themselves) passes that on; stop on it anyway.
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, [signal.SIGTERM])
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    print(server.server_address[1], flush=True)
    server.serve_forever()
