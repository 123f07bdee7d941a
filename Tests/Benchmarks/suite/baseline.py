"""A build against a fixed baseline build, side by side: both run each comparable section in turns (baseline,
current, then current, baseline, …) in one sitting, and each figure's ratio gets a verdict at a threshold."""
import os
import statistics
import subprocess
import sys

from .api import api_benchmark
from .webhooks import delivered, delivered_to_nginx, reference_to_nginx

RECORDED = "baseline"


def recorded_ref(root):
    """The baseline's ref recorded in Tests/Benchmarks/baseline (its first line)."""
    with open(os.path.join(root, "Tests", "Benchmarks", RECORDED)) as file:
        return file.readline().strip()


def build_baseline(root, ref):
    """A release build of `ref` in a worktree of its own (`.build-baseline/<commit>`, git-ignored), built once and
    kept for later runs; returns its binary."""
    commit = subprocess.run(["git", "rev-parse", "--verify", f"{ref}^{{commit}}"], cwd=root, capture_output=True, text=True)
    if commit.returncode != 0:
        sys.exit(f"--baseline {ref}: not a commit of this repository")
    sha = commit.stdout.strip()
    tree = os.path.join(root, ".build-baseline", sha[:12])
    if not os.path.isdir(tree):
        subprocess.run(["git", "worktree", "add", "--detach", tree, sha], cwd=root, check=True, capture_output=True)
    print(f"building the baseline {ref} ({sha[:12]}, release) in {tree}…", flush=True)
    build = subprocess.run(
        ["swift", "build", "-c", "release", "--product", "transferd", "--scratch-path", ".build-release"],
        cwd=tree, capture_output=True, text=True,
    )
    if build.returncode != 0:
        sys.exit(build.stdout + build.stderr)
    return os.path.join(tree, ".build-release", "release", "transferd")


def api_figures(binary, workdir, seconds):
    """Each route's requests a second (higher is better), p99 in ms and CPU µs a request (lower is better)."""
    figures = {}
    for route, (rate, p99, cpu) in api_benchmark(binary, workdir, seconds).items():
        figures[f"{route} req/s"] = (rate, True)
        figures[f"{route} p99 ms"] = (p99, False)
        figures[f"{route} CPU µs"] = (cpu, False)
    return figures


def webhook_figures(binary, workdir, seconds):
    """Deliveries a second of a backlog of 10,000 over 100 sessions to nginx, from its first creation and (backlog
    first) from when it is all written; and to the Python receiver, which checks
    each session's order, with an event's delay to its delivery; on SQLite. The webhook reference's rate is the
    control: neither build runs in it, so its ratio is the machine's drift between the turns."""
    to_nginx = delivered_to_nginx(binary, workdir, 100, 100)
    backlog_first = delivered_to_nginx(binary, workdir, 100, 100, backlog_first=True)
    rate, p50, p99, in_order = delivered(binary, workdir, [], 100, 100, paced_events=500, pace_per_second=250)
    if not in_order:
        sys.exit("webhooks: a session's deliveries arrived out of order")
    return {
        "webhooks to nginx/s": (to_nginx, True),
        "webhooks to nginx, backlog first/s": (backlog_first, True),
        "webhooks to Python/s": (rate, True),
        "event to delivery p50 ms": (p50, False),
        "event to delivery p99 ms": (p99, False),
        "control: the webhook reference to nginx/s": (reference_to_nginx(workdir, 100, 100)[0], True),
    }


COMPARABLE = {"api": api_figures, "webhooks": webhook_figures}


def compare(current, baseline, ref, sections, workdir, rounds, seconds, threshold):
    """Runs the comparable sections of `sections` with both builds in turns, `rounds` times each, and prints each
    figure's values, the ratio of the medians (current over baseline, so that above 1 is better for a rate) and a
    verdict; returns how many figures regressed past `threshold` (0.10 for 10 %)."""
    chosen = [name for name in COMPARABLE if name in sections]
    if not chosen:
        sys.exit(f"--baseline compares the sections {', '.join(COMPARABLE)}")
    values = {"baseline": {}, "current": {}}
    for round_number in range(rounds):
        order = (("baseline", baseline), ("current", current))
        for label, binary in order if round_number % 2 == 0 else reversed(order):
            for name in chosen:
                print(f"round {round_number + 1}/{rounds}: {name}, {label}", flush=True)
                for figure, (value, higher_is_better) in COMPARABLE[name](binary, workdir, seconds).items():
                    values[label].setdefault(figure, ([], higher_is_better))[0].append(value)
    regressions = 0
    print(f"\nThis build against the baseline {ref}, {rounds} rounds in turns; a figure regresses past {threshold:.0%}")
    print(f"{'figure':<34} {'baseline':>22} {'this build':>22} {'ratio':>7}  verdict")
    for figure, (old, higher_is_better) in values["baseline"].items():
        new = values["current"][figure][0]
        ratio = statistics.median(new) / statistics.median(old) if statistics.median(old) else float("inf")
        better = ratio if higher_is_better else (1 / ratio if ratio else float("inf"))
        verdict = "regressed" if better < 1 - threshold else "improved" if better > 1 + threshold else "within"
        regressions += verdict == "regressed" and "control" not in figure
        shown = lambda samples: " / ".join(f"{sample:,.1f}" for sample in samples)  # noqa: E731
        print(f"{figure:<34} {shown(old):>22} {shown(new):>22} {ratio:7.2f}  {verdict}")
    print(f"verdict: {regressions} figure(s) regressed past {threshold:.0%} against {ref}")
    return regressions
