#!/usr/bin/env python3
"""Uploads a file to transferd's /v1/files with the public `tuspy` client (pip), not with code written here:
in 256 KiB chunks with Upload-Checksum, then a PATCH whose connection breaks mid-body, then a fresh uploader
that asks the server where to go on (HEAD) and finishes. Prints one JSON line:
{"url", "size", "sha256", "interruptedAt", "resumedAt"}.

    tus_interop.py http://127.0.0.1:PORT API_KEY [keeps-nothing]

With `keeps-nothing` (a service whose broken appends keep no byte: its content store), it waits until the broken
append has ended instead of until its bytes are recorded.
"""
import hashlib
import http.client
import json
import os
import sys
import tempfile
import time
import urllib.parse

try:
    from tusclient import client
except ImportError:
    sys.exit("the tuspy package is needed: pip install tuspy")

CHUNK = 256 * 1024
base, key = sys.argv[1], sys.argv[2]
keeps_nothing = sys.argv[3:] == ["keeps-nothing"]
authorization = {"Authorization": f"Bearer {key}"}
data = os.urandom(1_500_000)
with tempfile.NamedTemporaryFile(delete=False) as file:
    file.write(data)

tus = client.TusClient(base + "/v1/files", headers=authorization)
first = tus.uploader(file.name, chunk_size=CHUNK, upload_checksum=True,
                     metadata={"filename": "interop.bin", "filetype": "application/x-interop"})
first.upload_chunk()  # creates the upload, then sends the first chunk
first.upload_chunk()
interrupted_at = first.offset

# The next PATCH announces 200,000 bytes, sends half of them, and the connection breaks.
target = urllib.parse.urlsplit(first.url if "://" in first.url else base + first.url)
connection = http.client.HTTPConnection(target.hostname, target.port)
connection.putrequest("PATCH", target.path)
for name, value in [("Tus-Resumable", "1.0.0"), ("Content-Type", "application/offset+octet-stream"),
                    ("Upload-Offset", str(interrupted_at)), ("Content-Length", "200000"), *authorization.items()]:
    connection.putheader(name, value)
connection.endheaders()
connection.send(data[interrupted_at:interrupted_at + 100_000])
connection.close()

# The server keeps what arrived; wait (bounded) until it has noticed the break and recorded it. A server that keeps
# nothing of a broken append has ended it once an empty append at the same offset is no longer refused as concurrent.
deadline = time.monotonic() + 10
while time.monotonic() < deadline:
    probe = http.client.HTTPConnection(target.hostname, target.port)
    if keeps_nothing:
        probe.request("PATCH", target.path, body=b"", headers={"Tus-Resumable": "1.0.0", "Upload-Offset": str(interrupted_at),
                      "Content-Type": "application/offset+octet-stream", **authorization})
        done = probe.getresponse().status == 204
    else:
        probe.request("HEAD", target.path, headers={"Tus-Resumable": "1.0.0", **authorization})
        done = int(probe.getresponse().getheader("Upload-Offset", "0")) > interrupted_at
    probe.close()
    if done:
        break
    time.sleep(0.05)

second = tus.uploader(file.name, url=first.url, chunk_size=CHUNK, upload_checksum=True)
resumed_at = second.offset  # tuspy asked the server with HEAD
second.upload()
os.unlink(file.name)
print(json.dumps({"url": first.url, "size": len(data), "sha256": hashlib.sha256(data).hexdigest(),
                  "interruptedAt": interrupted_at, "resumedAt": resumed_at}))
