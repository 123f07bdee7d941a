"""A build against the baseline, both running at once: each route of the api section, and the webhooks' backlog to
nginx, loaded on both builds together, so that the two share whatever the machine does meanwhile. Run in turns
instead, a build's own rounds differed by up to 57 % on a 2-core VM; run at once, Hummingbird's own `GET /healthz`
(nearly the same code in both builds) reads within about 0.07 of 1. The figure is the median of the ratios of the
pairs; `/healthz` is printed as the control."""
import contextlib
import os
import statistics
import subprocess
import threading
import time

from .common import API_KEY, NO_LIMITS, Client, api, start_transferd, stop_transferd
from .origin import Nginx
from .webhooks import _backlog, wait_for_nginx

ROUTES = {
    "GET /healthz (control)": "/healthz",
    "GET task": "/v1/sessions/bench/tasks/1",
    "GET session": "/v1/sessions/bench",
    "GET events": "/v1/sessions/bench/events?after=0",
}


def side_by_side(current, baseline, ref, sections, workdir, rounds, seconds, threshold):
    """Prints, for each figure, the median ratio of this build's rate to the baseline's over `rounds` pairs, with a
    verdict at `threshold`; returns how many figures regressed past it."""
    ratios = {}
    if "api" in sections:
        ratios.update(_api_pairs(current, baseline, workdir, rounds, seconds))
    if "webhooks" in sections:
        pairs = max(2, rounds // 4)
        ratios["webhooks to nginx/s"] = [_webhook_pair(current, baseline, workdir) for _ in range(pairs)]
        ratios["webhooks, backlog first/s"] = [_webhook_pair(current, baseline, workdir, backlog_first=True) for _ in range(pairs)]
    print(f"\nThis build against the baseline {ref}, both at once, {rounds} pairs a route; a figure regresses past {threshold:.0%}")
    print(f"{'figure':<28} {'median ratio':>13} {'range':>14}  verdict")
    regressions = 0
    for figure, values in ratios.items():
        ratio = statistics.median(values)
        verdict = "regressed" if ratio < 1 - threshold else "improved" if ratio > 1 + threshold else "within"
        regressions += verdict == "regressed" and "control" not in figure
        print(f"{figure:<28} {ratio:13.3f} {min(values):6.2f}–{max(values):<6.2f}  {verdict}")
    print(f"verdict: {regressions} figure(s) regressed past {threshold:.0%} against {ref}")
    return regressions


def _api_pairs(current, baseline, workdir, rounds, seconds):
    """Each route's ratios of requests a second, this build's over the baseline's, `rounds` pairs of `seconds` each."""
    processes, ports = [], []
    try:
        for label, binary in (("baseline", baseline), ("current", current)):
            directory = os.path.join(workdir, label)
            os.makedirs(directory, exist_ok=True)
            process, port = start_transferd(binary, directory, *NO_LIMITS, authenticated=True, name=label)
            processes.append(process)
            ports.append(port)
            headers = {"Authorization": f"Bearer {API_KEY}"}
            api(port, "PUT", "/v1/sessions/bench", None, headers)
            api(port, "POST", "/v1/sessions/bench/tasks", {"kind": "download", "url": "http://127.0.0.1:9/never", "start": False}, headers)
        ratios = {}
        for figure, path in ROUTES.items():
            for _ in range(rounds):
                rates = [0.0, 0.0]
                loads = [threading.Thread(target=_load, args=(f"http://127.0.0.1:{port}{path}", seconds, rates, index)) for index, port in enumerate(ports)]
                for load in loads:
                    load.start()
                for load in loads:
                    load.join()
                ratios.setdefault(f"{figure} req/s", []).append(rates[1] / rates[0])
        return ratios
    finally:
        for process in processes:
            stop_transferd(process)


def _load(url, seconds, rates, index):
    """wrk -t1 -c16 against `url` for `seconds`; its requests a second go into `rates[index]`."""
    argv = ["wrk", "-t1", "-c16", f"-d{seconds}s", "-H", f"Authorization: Bearer {API_KEY}", url]
    output = subprocess.run(argv, capture_output=True, text=True, check=True).stdout
    rates[index] = float(output.split("Requests/sec:")[1].split()[0])


def _webhook_pair(current, baseline, workdir, sessions=100, events_per_session=100, backlog_first=False):
    """The ratio of this build's deliveries a second to the baseline's, each delivering a backlog of
    `sessions` × `events_per_session` events to an nginx of its own, both at once, on SQLite: from the first creation,
    or with `backlog_first` from when both backlogs are written (their nginx paused until then), as
    `webhooks.delivered_to_nginx` times them."""
    running = []
    try:
        for label, binary in (("baseline", baseline), ("current", current)):
            directory = os.path.join(workdir, f"hooks-{label}")
            os.makedirs(directory, exist_ok=True)
            nginx = Nginx(directory, directory, hooks=True)
            process, port = start_transferd(binary, directory, *NO_LIMITS, name=label)
            running.append((nginx, process, Client(port)))
        rates = [0.0, 0.0]
        start, written = threading.Barrier(2), threading.Barrier(2)

        def deliver(index):
            nginx, _, client = running[index]
            start.wait()
            with nginx.paused() if backlog_first else contextlib.nullcontext():
                began = _backlog(client, nginx.port, sessions, events_per_session)
                if backlog_first:
                    written.wait()
                    began = time.monotonic()
            rates[index] = sessions * events_per_session / wait_for_nginx(nginx, sessions * events_per_session, began)

        both = [threading.Thread(target=deliver, args=(index,)) for index in (0, 1)]
        for thread in both:
            thread.start()
        for thread in both:
            thread.join()
        if not all(rates):
            raise SystemExit("webhooks: a backlog did not reach its nginx within 300 s")
        return rates[1] / rates[0]
    finally:
        for nginx, process, client in running:
            client.close()
            stop_transferd(process)
            nginx.close()
