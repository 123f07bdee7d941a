#!/usr/bin/env python3
"""An upload destination that reads what arrives with Python's own parsers (the `email` package for
multipart/form-data), not with transferd's code. Prints its port, then serves on 127.0.0.1 until killed:

    PUT/POST/PATCH /upload/<name>?status=&failures=&drop=&retryAfter=&reply=&replySize=&bytesPerSecond=
        reads the body (at most bytesPerSecond when given) and records it; the first `failures` requests of
        <name> get 503 (with Retry-After when asked), or with `drop` lose their connection halfway through the
        body; the others get `status` (200 by default) with the text `reply`, or `replySize` bytes of "r"
    GET /received/<name>
        [{"method", "contentType", "size", "sha256", "parts": [{"name", "filename", "contentType", "size",
          "sha256", "value"}]}]: every complete request for <name>, in order
"""
import email.parser
import email.policy
import hashlib
import json
import socket
import threading
import time
import urllib.parse
from http.server import BaseHTTPRequestHandler

from interop_server import serve

lock = threading.Lock()
received = {}
seen = {}


def parts_of(content_type, body):
    if not content_type.startswith("multipart/form-data"):
        return []
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        b"Content-Type: " + content_type.encode() + b"\r\n\r\n" + body
    )
    parts = []
    for part in message.iter_parts():
        payload = part.get_payload(decode=True) or b""
        parts.append({
            "name": part.get_param("name", header="content-disposition"),
            "filename": part.get_filename(),
            "contentType": part.get_content_type(),
            "size": len(payload),
            "sha256": hashlib.sha256(payload).hexdigest(),
            "value": payload.decode("utf-8", "replace") if part.get_filename() is None else None,
        })
    return parts


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def answer(self, status, data=b"", headers=()):
        self.send_response(status)
        for name, value in headers:
            self.send_header(name, value)
        self.send_header("content-length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def read_body(self, rate, drop):
        remaining, chunks = int(self.headers.get("content-length", "0")), []
        stop_at = remaining // 2 if drop else -1
        while remaining > 0:
            if remaining <= stop_at:
                self.connection.shutdown(socket.SHUT_RDWR)
                raise ConnectionError("dropped on request")
            chunk = self.rfile.read(min(remaining, 65536))
            if not chunk:
                raise ConnectionError("the body ended early")
            chunks.append(chunk)
            remaining -= len(chunk)
            if rate:
                time.sleep(len(chunk) / rate)
        return b"".join(chunks)

    def upload(self):
        url = urllib.parse.urlsplit(self.path)
        name = url.path.rsplit("/", 1)[-1]
        query = dict(urllib.parse.parse_qsl(url.query))
        with lock:
            seen[name] = seen.get(name, 0) + 1
            count = seen[name]
        failing = count <= int(query.get("failures", "0"))
        try:
            body = self.read_body(int(query.get("bytesPerSecond", "0")), failing and "drop" in query)
        except ConnectionError:
            self.close_connection = True
            return
        content_type = self.headers.get("content-type", "")
        with lock:
            received.setdefault(name, []).append({
                "method": self.command,
                "contentType": content_type,
                "size": len(body),
                "sha256": hashlib.sha256(body).hexdigest(),
                "parts": parts_of(content_type, body),
            })
        if failing:
            retry = [("retry-after", query["retryAfter"])] if "retryAfter" in query else []
            return self.answer(503, b"try later", retry)
        reply = query.get("reply", "").encode() or b"r" * int(query.get("replySize", "0"))
        self.answer(int(query.get("status", "200")), reply, [("content-type", "text/plain")])

    do_PUT = do_POST = do_PATCH = upload

    def do_GET(self):
        name = self.path.rsplit("/", 1)[-1]
        with lock:
            self.answer(200, json.dumps(received.get(name, [])).encode(), [("content-type", "application/json")])

    def log_message(self, *args):
        pass


serve(Handler)
