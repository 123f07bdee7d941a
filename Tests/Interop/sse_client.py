#!/usr/bin/env python3
"""Reads a transferd event stream with the public `httpx-sse` client (pip), not with code written here: opens
PATH with `Accept: text/event-stream` (and `Last-Event-ID` when given), and prints each message as one JSON line
{"id", "event", "data"} as it arrives; after COUNT messages it exits, and when the server ends the stream it prints
{"end": true} and exits.

    sse_client.py http://127.0.0.1:PORT API_KEY PATH COUNT [LAST_EVENT_ID]
"""
import json
import sys

try:
    import httpx
    from httpx_sse import connect_sse
except ImportError:
    sys.exit("the httpx-sse package is needed: pip install httpx-sse")

base, key, path, count = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
headers = {"Authorization": f"Bearer {key}"} if key else {}
if len(sys.argv) > 5:
    headers["Last-Event-ID"] = sys.argv[5]

with httpx.Client(base_url=base, timeout=httpx.Timeout(10.0, read=None)) as client:
    with connect_sse(client, "GET", path, headers=headers) as source:
        print(json.dumps({"status": source.response.status_code}), flush=True)
        if source.response.status_code != 200:
            sys.exit(0)
        received = 0
        for message in source.iter_sse():
            # httpx-sse dispatches a message for the blank line after a comment (a heartbeat) when an id was seen
            # before, with no data; the HTML standard dispatches nothing for an empty data buffer.
            if not message.data:
                continue
            print(json.dumps({"id": message.id, "event": message.event, "data": message.data}), flush=True)
            received += 1
            if received == count:
                sys.exit(0)
print(json.dumps({"end": True}), flush=True)
