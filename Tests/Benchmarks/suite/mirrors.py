"""One big file from three origins each held to 100 MB/s: transferd with mirrors beside aria2 with the same URIs."""
import os

from .common import timed_child, write_random_file
from .origin import Nginx
from .transfers import run_transferd

# Each origin's cap, in bytes a second: nginx's `limit_rate`, per response (one connection to each origin).
RATE = 100_000_000


def mirrors_benchmark(binary, workdir, args):
    """The same file from one origin and from three, by transferd (`mirrors`) and aria2c (`-s3 -x3`, three URIs: one connection to each)."""
    served = os.path.join(workdir, "served")
    os.makedirs(served, exist_ok=True)
    size = args.size_mib << 20
    write_random_file(os.path.join(served, "file.bin"), args.size_mib)
    origins = [Nginx(served, workdir, limit_rate=RATE, name=f"mirror{index}") for index in range(3)]
    urls = [f"http://127.0.0.1:{origin.port}/file.bin" for origin in origins]
    out = os.path.join(workdir, "out.bin")

    def aria2(argv):
        samples = []
        for _ in range(args.runs):
            samples.append(timed_child(["aria2c", "-q", "--file-allocation=none", "-d", workdir, "-o", "out.bin"] + argv))
            os.remove(out)
        return min(s[0] for s in samples)

    results = {
        "aria2c, one origin": aria2(["-s1", "-x1", urls[0]]),
        "aria2c, three origins": aria2(["-s3", "-x3", "-k1M"] + urls),
        "transferd, one origin": run_transferd(binary, workdir, args.runs, {"kind": "download", "url": urls[0]})[0],
        "transferd, three origins": run_transferd(binary, workdir, args.runs, {"kind": "download", "url": urls[0], "mirrors": urls[1:]})[0],
    }
    for origin in origins:
        origin.close()
    one = results["transferd, one origin"]
    print(f"\n{args.size_mib} MiB from origins held to {RATE / 1e6:.0f} MB/s each, best of {args.runs}")
    print(f"{'':<26} {'seconds':>8} {'MB/s':>8} {'x one origin':>13}")
    for name, seconds in results.items():
        print(f"{name:<26} {seconds:8.2f} {size / seconds / 1e6:8.0f} {one / seconds:13.2f}")
