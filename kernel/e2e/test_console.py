"""jupyter console (from PyPI) on the gnnlab kernel: error positions use the
execution count it shows, and `exit` quits it and shuts the kernel down."""

from __future__ import annotations

import pathlib
import subprocess
import sys

import kernelenv


def test_console_exit_and_counts() -> None:
    console = pathlib.Path(sys.executable).parent / "jupyter-console"
    run = subprocess.run(
        [str(console), "--simple-prompt", "--kernel", kernelenv.KERNEL_NAME],
        input="x := 20\nx * 2\nundefinedY\nexit\nprint_never_runs\n",
        capture_output=True, text=True, timeout=90,
    )
    out = run.stdout + run.stderr
    assert run.returncode == 0, f"jupyter console exited {run.returncode}: {run.stderr[-2000:]}"
    assert "Out[2]: 40" in out, out
    assert "cell[3]:1:1: undefined: undefinedY" in out, out
    assert "Shutting down kernel" in out, out
    assert "print_never_runs" not in out, out
