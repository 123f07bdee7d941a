"""One big file: curl, aria2 and transferd download and upload it."""
import os
import sys
import time
import urllib.request

from .common import api, peak_rss_kib, start_transferd, stop_transferd, timed_child, write_random_file
from .origin import start_origin


def transfers_benchmark(binary, workdir, args):
    """Downloads and uploads of one big file: curl, aria2 and transferd."""
    served = os.path.join(workdir, "served")
    os.makedirs(served)
    size = args.size_mib << 20
    write_random_file(os.path.join(served, "file.bin"), args.size_mib)
    origin = start_origin(served)
    url = f"http://127.0.0.1:{origin.server_address[1]}/file.bin"
    out = os.path.join(workdir, "out.bin")

    results = {}
    def best(argv):
        samples = []
        for _ in range(args.runs):
            samples.append(timed_child(argv))
            os.remove(out)
        return min(s[0] for s in samples), max(s[1] for s in samples)

    aria2 = ["aria2c", "-q", "--file-allocation=none", "-d", workdir, "-o", "out.bin", url]
    results["curl"] = best(["curl", "-sS", "-o", out, url])
    # What transferd's completion means, the bytes on disk: the row transferd's download is compared with.
    results[ON_DISK] = best(["sh", "-c", f'curl -sS -o "$1" {url} && sync', "sh", out])
    results["dd conv=fsync"] = best(["dd", f"if={os.path.join(served, 'file.bin')}", f"of={out}", "bs=1M", "conv=fsync", "status=none"])
    results["aria2c"] = best(aria2 + ["-x1", "-s1"])
    results["transferd"] = run_transferd(binary, workdir, args.runs, {"kind": "download", "url": url})
    results["aria2c -x4"] = best(aria2 + ["-x4", "-s4", "-k1M"])
    results["transferd x4"] = run_transferd(binary, workdir, args.runs, {"kind": "download", "url": url, "connections": 4})
    source = os.path.join(served, "file.bin")
    sink = f"http://127.0.0.1:{origin.server_address[1]}/sink"
    # Expect: 100-continue would make curl wait a second for an answer the sink (HTTP/1.0) never sends.
    uploads = {"curl -T": best_upload(["curl", "-sS", "-H", "Expect:", "-T", source, sink], args.runs)}
    upload = {"kind": "upload", "url": sink, "method": "PUT", "from": {"file": "bench"}}
    uploads["transferd up"] = run_transferd(binary, workdir, args.runs, upload, stage=source)

    print(f"\n{args.size_mib} MiB over loopback, best of {args.runs}; peak RSS is each process's high-water mark")
    table("download", results, size)
    table("upload", uploads, size)
    origin.shutdown()


def best_upload(argv, runs):
    samples = [timed_child(argv) for _ in range(runs)]
    return min(s[0] for s in samples), max(s[1] for s in samples)


# curl's download followed by `sync`: the file on disk, as transferd's `task.completed` means.
ON_DISK = "curl && sync"


def table(title, results, size):
    """Prints one table; ratios are to the first row (curl) and, when there is one, to curl followed by `sync`."""
    baseline = next(iter(results.values()))[0]
    on_disk = results.get(ON_DISK, (None,))[0]
    print(f"\n{title:<13} {'seconds':>8} {'MB/s':>8} {'x curl':>7} {'x curl && sync':>15} {'peak RSS MiB':>13}")
    for name, (seconds, rss) in results.items():
        synced = f"{on_disk / seconds:15.2f}" if on_disk else f"{'':>15}"
        print(f"{name:<13} {seconds:8.2f} {size / seconds / 1e6:8.0f} {baseline / seconds:7.2f} {synced} {rss / 1024:13.1f}")


def run_transferd(binary, workdir, runs, task, stage=None, prepare=None):
    """Best time of `runs` tasks like `task` (from creation to `task.completed`) in a fresh transferd, and its peak
    RSS; `stage` is a file to PUT to /v1/files/bench first, `prepare(port)` runs first (neither timed)."""
    process, port = start_transferd(binary, workdir)
    try:
        api(port, "PUT", "/v1/sessions/bench")
        if prepare:
            prepare(port)
        if stage:
            with open(stage, "rb") as body:
                request = urllib.request.Request(f"http://127.0.0.1:{port}/v1/files/bench", data=body, method="PUT")
                request.add_header("Content-Length", str(os.path.getsize(stage)))
                urllib.request.urlopen(request, timeout=600).read()
        times, after = [], 0
        for _ in range(runs):
            start = time.monotonic()
            identifier = api(port, "POST", "/v1/sessions/bench/tasks", task)["taskIdentifier"]
            while True:
                batch = api(port, "GET", f"/v1/sessions/bench/events?after={after}&wait=30")
                after = batch["nextAfter"]
                done = [e for e in batch["items"] if e["type"] == "task.completed" and e["taskIdentifier"] == identifier]
                if done:
                    break
            times.append(time.monotonic() - start)
            if done[0]["data"]["error"] is not None:
                sys.exit(f"transferd failed: {done[0]['data']['error']}")
            if task["kind"] == "download" and "destination" not in task:
                api(port, "DELETE", f"/v1/sessions/bench/tasks/{identifier}/content")
        return min(times), peak_rss_kib(process.pid)
    finally:
        stop_transferd(process)
