#!/usr/bin/env python3
"""A webhook subscriber that checks every delivery with the public `standardwebhooks` package (pip), not with
transferd's own code. Prints its port, then serves on 127.0.0.1 until killed:

    POST /hook      verify the delivery against each known secret; 204 when all verify, else 400
    PUT  /secrets   set the known secrets (a JSON list of whsec_ strings)
    GET  /received  what arrived: [{"id", "type", "verified": {secret: bool}}]
"""
import json
import sys
import threading
from http.server import BaseHTTPRequestHandler

from interop_server import serve

try:
    from standardwebhooks.webhooks import Webhook
except ImportError:
    sys.exit("the standardwebhooks package is needed: pip install standardwebhooks")

lock = threading.Lock()
secrets = []
received = []


class Handler(BaseHTTPRequestHandler):
    def body(self):
        return self.rfile.read(int(self.headers.get("content-length", "0")))

    def answer(self, status, payload=None):
        data = json.dumps(payload).encode() if payload is not None else b""
        self.send_response(status)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_POST(self):
        body = self.body()
        headers = {name.lower(): value for name, value in self.headers.items()}
        with lock:
            known = list(secrets)
        results = {}
        for secret in known:
            try:
                Webhook(secret).verify(body, headers)
                results[secret] = True
            except Exception:  # any verification failure counts as not verified
                results[secret] = False
        with lock:
            received.append({"id": headers.get("webhook-id"), "type": json.loads(body)["type"], "verified": results})
        self.answer(204 if known and all(results.values()) else 400)

    def do_PUT(self):
        with lock:
            secrets[:] = json.loads(self.body())
        self.answer(204)

    def do_GET(self):
        with lock:
            self.answer(200, received)

    def log_message(self, *args):
        pass


serve(Handler)
