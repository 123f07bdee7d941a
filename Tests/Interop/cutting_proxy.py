#!/usr/bin/env python3
"""A TCP proxy on 127.0.0.1 that breaks one connection on purpose: it relays every connection to UPSTREAM_PORT, and
the first connection whose request bytes contain MARKER is closed after BYTES more bytes have gone in DIRECTION
(`down`: of the answer, `up`: of the request). Every later connection is relayed whole. Prints its port.

    cutting_proxy.py UPSTREAM_PORT MARKER BYTES up|down
"""
import asyncio
import sys

upstream_port, marker, limit, direction = int(sys.argv[1]), sys.argv[2].encode(), int(sys.argv[3]), sys.argv[4]
state = {"cut": False}


async def relay(reader, writer, watch):
    try:
        while data := await reader.read(65536):
            if watch is not None and watch(data):
                break
            writer.write(data)
            await writer.drain()
    except (ConnectionError, asyncio.CancelledError):
        pass
    finally:
        writer.close()


async def handle(client_reader, client_writer):
    upstream_reader, upstream_writer = await asyncio.open_connection("127.0.0.1", upstream_port)
    counting = {"armed": False, "sent": 0}

    def cut_here(data, going):
        """Whether this connection must break before `data` goes on (only the first marked connection does)."""
        if going == "up" and not state["cut"] and marker in data:
            counting["armed"] = True
            state["cut"] = True
            data = data[data.index(marker):]
        if counting["armed"] and going == direction:
            counting["sent"] += len(data)
            return counting["sent"] > limit
        return False

    up = asyncio.ensure_future(relay(client_reader, upstream_writer, lambda data: cut_here(data, "up")))
    down = asyncio.ensure_future(relay(upstream_reader, client_writer, lambda data: cut_here(data, "down")))
    await asyncio.wait([up, down], return_when=asyncio.FIRST_COMPLETED)
    for task in (up, down):
        task.cancel()
    client_writer.close()
    upstream_writer.close()


async def main():
    server = await asyncio.start_server(handle, "127.0.0.1", 0)
    print(server.sockets[0].getsockname()[1], flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
