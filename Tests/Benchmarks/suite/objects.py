"""One big file fetched into a bucket: transferd beside botocore streaming it (`aws s3 cp - s3://…` style)."""
import json
import os
import subprocess
import urllib.request

from .common import api, timed_child, write_random_file
from .origin import start_origin
from .transfers import run_transferd

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", "..", ".."))

# What `aws s3 cp - s3://bucket/key` does with a stream: s3transfer's multipart upload of what it reads, here the
# origin's response, in parts of 8 MiB (its default).
PEER = """
import sys, urllib.request, boto3
url, endpoint, key_id, secret, bucket, key = sys.argv[1:]
s3 = boto3.client("s3", endpoint_url=endpoint, aws_access_key_id=key_id, aws_secret_access_key=secret, region_name="us-east-1")
with urllib.request.urlopen(url) as response:
    s3.upload_fileobj(response, bucket, key)
"""


def objects_benchmark(binary, workdir, args):
    """A generated file of --size-mib from a local origin into a bucket of moto's S3 server (signatures checked),
    by botocore and by transferd (`destination`), best of --runs; seconds, MB/s, peak RSS and the ratio to
    botocore. moto is one Python process that keeps objects in memory, so it bounds both clients alike: the ratio
    says what transferd adds, not what a real store allows."""
    served = os.path.join(workdir, "served-objects")
    os.makedirs(served, exist_ok=True)
    size = args.size_mib << 20
    write_random_file(os.path.join(served, "file.bin"), args.size_mib)
    origin = start_origin(served)
    url = f"http://127.0.0.1:{origin.server_address[1]}/file.bin"
    moto = subprocess.Popen(
        ["python3", os.path.join(ROOT, "Tests", "Interop", "s3_server.py")], stdout=subprocess.PIPE, text=True
    )
    try:
        started = json.loads(moto.stdout.readline())
        endpoint = f"http://127.0.0.1:{started['port']}"
        urllib.request.urlopen(urllib.request.Request(f"{endpoint}/_buckets?bucket=bench", method="POST")).read()
        results = {}
        samples = [
            timed_child(["python3", "-c", PEER, url, endpoint, started["accessKeyId"], started["secretAccessKey"], "bench", f"peer-{run}"])
            for run in range(args.runs)
        ]
        results["botocore"] = (min(s[0] for s in samples), max(s[1] for s in samples))

        def prepare(port):
            api(port, "PUT", "/v1/storage/bench", {
                "endpoint": endpoint, "bucket": "bench", "accessKeyId": started["accessKeyId"],
                "secretAccessKey": started["secretAccessKey"], "pathStyle": True,
            })

        task = {"kind": "download", "url": url, "destination": {"storage": "bench", "key": "transferd.bin"}}
        results["transferd"] = run_transferd(binary, workdir, args.runs, task, prepare=prepare)

        print(f"\n{args.size_mib} MiB from a local origin into moto's S3 server, best of {args.runs}")
        print(f"{'into a bucket':<13} {'seconds':>8} {'MB/s':>8} {'x boto':>7} {'peak RSS MiB':>13}")
        baseline = results["botocore"][0]
        for name, (seconds, rss) in results.items():
            print(f"{name:<13} {seconds:8.2f} {size / seconds / 1e6:8.0f} {baseline / seconds:7.2f} {rss / 1024:13.1f}")
    finally:
        moto.terminate()
        origin.shutdown()
