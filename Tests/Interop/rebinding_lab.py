#!/usr/bin/env python3
"""A DNS rebinding attack, for transferd to withstand: a DNS server (dnspython) for names under `.test`, and two
HTTP servers on the same port, one at the public address and one at the internal address.

    rebinding_lab.py PUBLIC_ADDRESS INTERNAL_ADDRESS NAME=SAFE_ANSWERS ...

The DNS server listens on port 53 (UDP and TCP) of an address of 127.0.53.0/24 that no other lab holds: labs run side
by side, and two that drew the same address once shared its UDP port unnoticed and refused its TCP one. It answers a name's first SAFE_ANSWERS A queries with
PUBLIC_ADDRESS, and every later one with INTERNAL_ADDRESS, with a TTL of 0, as an attacker's server would once the
victim has checked the name. Names are counted case-insensitively and without a trailing dot. A name not listed is
always public. AAAA queries get no answer.

The public server answers `GET /redirect?to=URL` with a 302 to URL, `GET /data` with "public content", and records
`POST /hook`. The internal server answers everything with "internal secret" and records it: a request that reaches
it is the attack succeeding. `GET /report` on the public server returns the A queries per name, the internal server's
requests and the hooks received, as JSON. Prints the servers' port and the DNS server's address, on one line.
"""
import json
import random
import socket
import socketserver
import sys
import threading
import urllib.parse
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import dns.message
import dns.rcode
import dns.rdatatype
import dns.rrset

public_address, internal_address = sys.argv[1:3]
safe_answers = {name.lower(): int(count) for name, count in (arg.split("=") for arg in sys.argv[3:])}
lock = threading.Lock()
queries = {}
internal_requests = []
hooks = []


def answer(wire):
    query = dns.message.from_wire(wire)
    response = dns.message.make_response(query)
    question = query.question[0]
    name = question.name.to_text().rstrip(".").lower()
    if not name.endswith(".test"):
        response.set_rcode(dns.rcode.NXDOMAIN)
    elif question.rdtype == dns.rdatatype.A:
        with lock:
            queries[name] = queries.get(name, 0) + 1
            count = queries[name]
        address = public_address if count <= safe_answers.get(name, 1 << 30) else internal_address
        response.answer.append(dns.rrset.from_text(question.name, 0, "IN", "A", address))
    return response.to_wire()


class UDPHandler(socketserver.BaseRequestHandler):
    def handle(self):
        data, sock = self.request
        sock.sendto(answer(data), self.client_address)


class TCPHandler(socketserver.BaseRequestHandler):
    def handle(self):
        length = int.from_bytes(self.request.recv(2), "big")
        reply = answer(self.request.recv(length))
        self.request.sendall(len(reply).to_bytes(2, "big") + reply)


class Public(BaseHTTPRequestHandler):
    def do_GET(self):
        url = urllib.parse.urlsplit(self.path)
        if url.path == "/redirect":
            target = urllib.parse.parse_qs(url.query)["to"][0]
            return self.reply(302, b"", {"Location": target})
        if url.path == "/data":
            return self.reply(200, b"public content")
        if url.path == "/report":
            with lock:
                report = {"queries": queries, "internal": internal_requests, "hooks": len(hooks)}
            return self.reply(200, json.dumps(report).encode(), {"Content-Type": "application/json"})
        self.reply(404, b"")

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
        with lock:
            hooks.append(body)
        self.reply(204, b"")

    def reply(self, status, body, headers=None):
        self.send_response(status)
        for name, value in (headers or {}).items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


class Internal(Public):
    def do_GET(self):
        with lock:
            internal_requests.append(f"{self.command} {self.headers.get('Host')}{self.path}")
        self.reply(200, b"internal secret")

    do_POST = do_GET


def main():
    # Both servers on one port, so that a URL with the name reaches either, depending on the address it resolves to.
    while True:
        public = ThreadingHTTPServer((public_address, 0), Public)
        port = public.server_address[1]
        try:
            internal = ThreadingHTTPServer((internal_address, port), Internal)
            break
        except OSError:
            public.server_close()
    # UDP without SO_REUSEADDR, so that an address another lab holds refuses the bind instead of sharing it; TCP with
    # it, so that one a lab left in TIME_WAIT is taken again.
    socketserver.ThreadingTCPServer.allow_reuse_address = True
    while True:
        dns_address = f"127.0.53.{random.randint(1, 254)}"
        try:
            udp = socketserver.ThreadingUDPServer((dns_address, 53), UDPHandler)
        except OSError:
            continue
        try:
            tcp = socketserver.ThreadingTCPServer((dns_address, 53), TCPHandler)
            break
        except OSError:
            udp.server_close()
    for server in [internal, udp, tcp]:
        threading.Thread(target=server.serve_forever, daemon=True).start()
    print(f"{port} {dns_address}", flush=True)  # one write: the test reads the first chunk it gets
    public.serve_forever()


main()
