#!/usr/bin/env python3
"""A small forward proxy on 127.0.0.1, as a company's egress proxy would be: it opens CONNECT tunnels (the way
AsyncHTTPClient sends every request through an HTTP proxy) to the host and port asked, after checking
`Proxy-Authorization: Basic` against USER:PASSWORD (407 otherwise). `GET /tunnels` answers the targets it opened
tunnels to, as JSON. Given a certificate and its key, it is an HTTPS proxy: clients reach it over TLS. Listens on
$FORWARD_PROXY_ADDRESS (127.0.0.1 unless set). Prints its port.

    forward_proxy.py USER:PASSWORD [CERTIFICATE.pem KEY.pem]
"""
import asyncio
import base64
import json
import os
import ssl
import sys

expected = "Basic " + base64.b64encode(sys.argv[1].encode()).decode()
tunnels = []


async def pipe(reader, writer):
    try:
        while data := await reader.read(65536):
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def answer(writer, status, body=b""):
    writer.write(f"HTTP/1.1 {status}\r\nContent-Length: {len(body)}\r\nConnection: close\r\n".encode())
    if status.startswith("407"):
        writer.write(b'Proxy-Authenticate: Basic realm="egress"\r\n')
    writer.write(b"\r\n" + body)
    await writer.drain()
    writer.close()


async def handle(reader, writer):
    head = (await reader.readuntil(b"\r\n\r\n")).decode("latin-1").split("\r\n")
    method, target, _ = head[0].split(" ", 2)
    headers = {line.split(":", 1)[0].strip().lower(): line.split(":", 1)[1].strip() for line in head[1:] if ":" in line}
    if method == "GET" and target == "/tunnels":
        return await answer(writer, "200 OK", json.dumps(tunnels).encode())
    if method != "CONNECT":
        return await answer(writer, "405 Method Not Allowed")
    if headers.get("proxy-authorization") != expected:
        return await answer(writer, "407 Proxy Authentication Required")
    host, port = target.rsplit(":", 1)
    try:
        upstream_reader, upstream_writer = await asyncio.open_connection(host.strip("[]"), int(port))
    except OSError:
        return await answer(writer, "502 Bad Gateway")
    tunnels.append(target)
    writer.write(b"HTTP/1.1 200 Connection Established\r\n\r\n")
    await writer.drain()
    await asyncio.gather(pipe(reader, upstream_writer), pipe(upstream_reader, writer))


async def main():
    tls = None
    if len(sys.argv) > 3:
        tls = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
        tls.load_cert_chain(sys.argv[2], sys.argv[3])
    server = await asyncio.start_server(handle, os.environ.get("FORWARD_PROXY_ADDRESS", "127.0.0.1"), 0, ssl=tls)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
