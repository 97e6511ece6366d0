#!/usr/bin/env python3
"""Benchmark (not a test): gnnlab beside ipykernel through jupyter_client.

For each kernel, in one run on one machine, it measures
  - start: from KernelManager.start_kernel to the first kernel_info_reply,
    median over --starts starts (after one unmeasured warm-up start);
  - round trip of a trivial cell: from sending execute_request to having
    both the execute_reply and the idle status, p50 and p95 over --runs
    cells (after a warm-up);
  - for reference, a kernel_info request to its reply: what the Python
    client and the transport alone cost, with no cell run,
  - the trivial cell's round trip again with CurveZMQ transport
    encryption on (jupyter_client's transport_encryption="required"),
and prints a table with the ratios gnnlab/ipykernel beside the goals, and
one of CURVE on against off for each kernel.

Run it with `make bench-kernel` (builds bin/gnnlab and the venv first) or
  .venv/bin/python kernel/e2e/bench/bench_kernel.py --binary bin/gnnlab
"""

from __future__ import annotations

import argparse
import json
import pathlib
import statistics
import sys
import tempfile
import os
import subprocess
import time

sys.path.insert(0, str(pathlib.Path(__file__).resolve().parents[1]))

import zmq  # noqa: E402
from jupyter_client.manager import KernelManager  # noqa: E402

import kernelenv  # noqa: E402
from kclient import execute, shell_reply  # noqa: E402

# Cells per kernel: the same trivial work in each language.
CELLS = {
    "gnnlab": {"expr": "1", "assign": "x := 1"},
    "python3": {"expr": "1", "assign": "x = 1"},
}
LABELS = {"gnnlab": "gnnlab", "python3": "ipykernel"}


def measure_start(name: str, starts: int) -> list[float]:
    samples = []
    for i in range(starts + 1):
        km = KernelManager(kernel_name=name)
        t0 = time.perf_counter()
        km.start_kernel(stderr=subprocess.DEVNULL)
        kc = km.client()
        kc.start_channels()
        try:
            shell_reply(kc, kc.kernel_info(), timeout=60)
            elapsed = time.perf_counter() - t0
        finally:
            kc.stop_channels()
            km.shutdown_kernel(now=True)
        if i > 0:  # the first start warms caches (page cache, .pyc files)
            samples.append(elapsed)
    return samples


def measure_round_trips(name: str, code: str | None, runs: int, encryption: str = "disabled") -> list[float]:
    """Time runs cells of code; with code None, time kernel_info requests
    instead (the client's and the transport's share of a round trip).
    encryption is jupyter_client's transport_encryption."""
    km = KernelManager(kernel_name=name, transport_encryption=encryption)
    km.start_kernel(stderr=subprocess.DEVNULL)
    kc = km.client()
    kc.start_channels()

    def once() -> None:
        if code is None:
            shell_reply(kc, kc.kernel_info())
            return
        reply, _ = execute(kc, code)
        if reply["content"]["status"] != "ok":
            raise RuntimeError(f"{name}: cell {code!r} failed: {reply['content']}")

    try:
        kc.wait_for_ready(timeout=60)
        for _ in range(max(10, runs // 10)):
            once()
        samples = []
        for _ in range(runs):
            t0 = time.perf_counter()
            once()
            samples.append(time.perf_counter() - t0)
        return samples
    finally:
        kc.stop_channels()
        km.shutdown_kernel(now=True)


def measure_curve_pair(name: str, code: str, runs: int) -> tuple[list[float], list[float]]:
    """Time cells of code on two kernels of name, one without and one with
    CURVE, alternating cell by cell so that the machine's load drifts over
    both alike; return (off, on) samples."""
    kms, kcs = [], []
    try:
        for enc in ("disabled", "required"):
            km = KernelManager(kernel_name=name, transport_encryption=enc)
            kms.append(km)
            km.start_kernel(stderr=subprocess.DEVNULL)
            kc = km.client()
            kc.start_channels()
            kcs.append(kc)
            kc.wait_for_ready(timeout=60)
        samples: tuple[list[float], list[float]] = ([], [])
        for i in range(max(10, runs // 10) + runs):
            for j in (i % 2, 1 - i % 2):  # alternate which goes first
                t0 = time.perf_counter()
                reply, _ = execute(kcs[j], code)
                elapsed = time.perf_counter() - t0
                if reply["content"]["status"] != "ok":
                    raise RuntimeError(f"{name}: cell {code!r} failed: {reply['content']}")
                if i >= max(10, runs // 10):
                    samples[j].append(elapsed)
        return samples
    finally:
        for kc in kcs:
            kc.stop_channels()
        for km in kms:
            if km.has_kernel:
                km.shutdown_kernel(now=True)


def pct(samples: list[float], p: float) -> float:
    s = sorted(samples)
    return s[min(len(s) - 1, int(round(p / 100 * (len(s) - 1))))]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--binary", default=None, help="gnnlab binary (default $GNNLAB_BIN or bin/gnnlab)")
    ap.add_argument("--starts", type=int, default=10, help="kernel starts per kernel (median reported)")
    ap.add_argument("--runs", type=int, default=300, help="cells per kernel and cell kind")
    ap.add_argument(
        "--reconnect-ms",
        type=int,
        default=5,
        help="zmq reconnect interval of the client; the default 100 ms would round every start up to it",
    )
    ap.add_argument("--json", default=None, help="also write the raw figures to this file")
    args = ap.parse_args()

    if args.binary:
        os.environ["GNNLAB_BIN"] = args.binary
    # A client started before the kernel binds its ports connects on its
    # next reconnect attempt; a short interval keeps that out of the figure.
    zmq.Context.instance().setsockopt(zmq.RECONNECT_IVL, args.reconnect_ms)

    with tempfile.TemporaryDirectory(prefix="gnnlab-bench-") as tmp:
        root = pathlib.Path(tmp)
        prefix = root / "prefix"
        kernelenv.install_kernelspec(kernelenv.gnnlab_binary(), prefix)
        os.environ.update(kernelenv.isolated_env(root, prefix))

        figures: dict[str, dict[str, float]] = {}
        for name in ("gnnlab", "python3"):
            print(f"measuring {LABELS[name]} ...", file=sys.stderr, flush=True)
            start = measure_start(name, args.starts)
            f = {"start_median_ms": statistics.median(start) * 1e3}
            for kind, code in [*CELLS[name].items(), ("info", None)]:
                rt = measure_round_trips(name, code, args.runs)
                f[f"{kind}_p50_ms"] = pct(rt, 50) * 1e3
                f[f"{kind}_p95_ms"] = pct(rt, 95) * 1e3
            if zmq.has("curve"):
                try:
                    off, on = measure_curve_pair(name, CELLS[name]["expr"], args.runs)
                    f["plain_p50_ms"], f["plain_p95_ms"] = pct(off, 50) * 1e3, pct(off, 95) * 1e3
                    f["curve_p50_ms"], f["curve_p95_ms"] = pct(on, 50) * 1e3, pct(on, 95) * 1e3
                except RuntimeError as e:  # a kernelspec without supported_encryption
                    print(f"{LABELS[name]}: no CURVE run: {e}", file=sys.stderr)
            figures[name] = f

    g, p = figures["gnnlab"], figures["python3"]
    rows = [
        ("start to kernel_info, median", "start_median_ms", "<= 150 ms"),
        ("cell `1`, round trip p50", "expr_p50_ms", "<= 1 ms and <= 0.2x"),
        ("cell `1`, round trip p95", "expr_p95_ms", ""),
        ("cell `x := 1` / `x = 1`, p50", "assign_p50_ms", "<= 1 ms and <= 0.2x"),
        ("cell `x := 1` / `x = 1`, p95", "assign_p95_ms", ""),
        ("kernel_info reply only, p50", "info_p50_ms", "(client + transport floor)"),
    ]
    print(f"\nkernel benchmark: {args.starts} starts, {args.runs} cells each, through jupyter_client")
    print(f"{'measure':32} {'gnnlab':>10} {'ipykernel':>10} {'ratio':>7}  goal")
    for label, key, goal in rows:
        print(f"{label:32} {g[key]:8.2f}ms {p[key]:8.2f}ms {g[key] / p[key]:6.2f}x  {goal}")
    print(f"\n{'cell `1`, CURVE off/on alternating':32} {'CURVE off':>10} {'CURVE on':>10} {'on/off':>7}  goal")
    for name in ("gnnlab", "python3"):
        f = figures[name]
        if "curve_p50_ms" not in f:
            print(f"{LABELS[name] + ', p50':32} {f['expr_p50_ms']:8.2f}ms {'n/a':>10}")
            continue
        for q in ("p50", "p95"):
            off, on = f[f"plain_{q}_ms"], f[f"curve_{q}_ms"]
            goal = "<= 1.10x" if name == "gnnlab" and q == "p50" else ""
            print(f"{LABELS[name] + ', ' + q:32} {off:8.2f}ms {on:8.2f}ms {on / off:6.2f}x  {goal}")
    if args.json:
        with open(args.json, "w", encoding="utf-8") as out:
            json.dump({LABELS[k]: v for k, v in figures.items()}, out, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
